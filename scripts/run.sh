#!/usr/bin/env bash
# Installs what is missing, builds the server (Release), and runs it with the given flags.
#   scripts/run.sh --listen 127.0.0.1:8080 --admin-token s3cret
#   scripts/run.sh --help      the server's flags, without installing or building anything
set -euo pipefail
cd "$(dirname "$0")/.."
binary=build-release/server/ringcast

case "${1:-}" in
  -h | --help | --version)
    if [[ -x $binary ]]; then exec "$binary" "$1"; fi
    cat <<'USAGE'
Usage: scripts/run.sh [ringcast flags]

Installs what is missing (scripts/deps.sh build), builds build-release/server/ringcast (a few
minutes the first time) and runs it with the flags given. It is not built yet, so its own --help
cannot be shown here: the flags, with their defaults, are in docs/operations.md ("Flags"). Once
built, scripts/run.sh --help prints them.
USAGE
    exit 0
    ;;
esac

scripts/deps.sh build
# build-release is the one Release tree: loadtest/run.sh, loadtest/cluster.sh, the benchmarks and
# the docs' commands build in it too, so what one built the others reuse. Configured once; a tree
# configured by another of them (with the benchmarks, say) is used as it is.
echo "scripts/run.sh: building build-release/server/ringcast (Release; the first time takes a few minutes)" >&2
if [[ ! -f build-release/build.ninja ]]; then
  cmake -S . -B build-release -G Ninja -DCMAKE_BUILD_TYPE=Release \
    -DRINGCAST_BUILD_TESTS=OFF -DRINGCAST_BUILD_BENCH=OFF >/dev/null
fi
cmake --build build-release -j "$(nproc)" --target ringcast
exec "$binary" "$@"
