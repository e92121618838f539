#!/usr/bin/env bash
# clang-tidy over ringcast's own sources with the checks of .clang-tidy (every finding an error).
# Usage: scripts/tidy.sh [BUILD_DIR]   (a configured build: its compile_commands.json; default build)
set -euo pipefail
cd "$(dirname "$0")/.."
build=${1:-build}
db=$(mktemp -d)
trap 'rm -rf "$db"' EXIT
# GCC's precompiled headers mean nothing to clang: the same commands without them (each source
# includes what it uses).
python3 - "$build/compile_commands.json" "$db/compile_commands.json" <<'PY'
import json, re, sys
entries = [e for e in json.load(open(sys.argv[1])) if not e["file"].endswith(".cxx")]
for e in entries:
    e["command"] = re.sub(r" -Winvalid-pch| -include \S+cmake_pch\.hxx", "", e["command"])
json.dump(entries, open(sys.argv[2], "w"))
PY
# Only the findings: not each file's command line, nor the count of warnings in system headers
# that the header filter leaves out. The status is run-clang-tidy's: non-zero on any finding.
set +e
run-clang-tidy -p "$db" -j "$(nproc)" -quiet "$PWD/(server|wheel|loadtest)/.*\.cpp$" 2>&1 |
  grep -Ev '^clang-tidy(-[0-9]+)? |^[0-9]+ warnings? generated\.$|^Suppressed [0-9]+ warnings|^Use -header-filter'
status=${PIPESTATUS[0]}
set -e
exit "$status"
