#!/usr/bin/env bash
# Checks of the test machinery itself, so that a green run cannot mean "nothing ran":
#  - scripts/test.sh refuses an unknown or empty RINGCAST_TEST_STAGES, and the developer-only
#    switches (stand-in server, pages from disk, another binary), before it installs or builds;
#  - every ctest call in the scripts fails when no test matches (--no-tests=error);
#  - scripts/run.sh --help prints without installing or building anything;
#  - the docs' commands are installed by scripts/deps.sh build (no xxd), client.md defines show();
#  - loadtest/server_process.sh's stop_server fails for a server killed by its SIGTERM (143), one
#    that needs SIGKILL, and one whose log has a sanitizer report, and passes a clean exit 0.
# Registered with CTest (tests/CMakeLists.txt); takes a few seconds.
set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
work=$(mktemp -d /tmp/ringcast-scripts-test.XXXXXX)
trap 'rm -rf "$work"' EXIT
failures=0
fail() {
  echo "FAIL: $*" >&2
  failures=$((failures + 1))
}

# test.sh STAGES [VAR=VALUE...]: must exit 2 at once, saying why, without running a stage.
expect_refused() {
  local stages=$1
  shift
  local rc=0
  env -u RINGCAST_FAKE -u RINGCAST_WEB_ROOT -u RINGCAST_BIN RINGCAST_TEST_STAGES="$stages" "$@" \
    timeout 20 "$root/scripts/test.sh" >"$work/out" 2>&1 || rc=$?
  if ((rc != 2)) || ! grep -q '^test.sh: ' "$work/out" || grep -q '^== ' "$work/out"; then
    fail "test.sh with RINGCAST_TEST_STAGES='$stages' $* exited $rc, expected 2 before any stage:"
    sed 's/^/  | /' "$work/out" >&2
  else
    echo "ok: test.sh refuses RINGCAST_TEST_STAGES='$stages' $*: $(head -n 1 "$work/out")"
  fi
}
expect_refused plian
expect_refused none
expect_refused ''
expect_refused plain,tsna
expect_refused ,plain
expect_refused plain RINGCAST_FAKE=1
expect_refused plain RINGCAST_WEB_ROOT=web
expect_refused plain RINGCAST_BIN=/bin/true

# .ci/run runs every stage with the real binaries whatever the environment says: a stand-in
# scripts/test.sh beside a copy of it reports what it was given.
mkdir -p "$work/ci/.ci" "$work/ci/scripts"
cp "$root/.ci/run" "$work/ci/.ci/run"
cat >"$work/ci/scripts/test.sh" <<'SH'
#!/usr/bin/env bash
echo "stages=${RINGCAST_TEST_STAGES-unset} fake=${RINGCAST_FAKE-unset} web_root=${RINGCAST_WEB_ROOT-unset} bin=${RINGCAST_BIN-unset} fuzz_seconds=${FUZZ_SECONDS-unset}"
SH
chmod +x "$work/ci/scripts/test.sh"
got=$(RINGCAST_TEST_STAGES=plain RINGCAST_FAKE=1 RINGCAST_WEB_ROOT=web RINGCAST_BIN=/bin/true \
  FUZZ_SECONDS=1 bash "$work/ci/.ci/run")
if [[ $got == "stages=unset fake=unset web_root=unset bin=unset fuzz_seconds=unset" ]]; then
  echo "ok: .ci/run clears the stage list and the developer-only switches"
else
  fail ".ci/run passed on: $got"
fi

# Every line that runs ctest (not a comment) asks it to fail on an empty selection.
while IFS= read -r hit; do
  [[ $hit == *--no-tests=error* ]] || fail "ctest without --no-tests=error: $hit"
done < <(grep -nE '^[^#]*\bctest( |$)' "$root"/scripts/*.sh "$root"/tests/fuzz/run.sh \
  "$root"/loadtest/*.sh | grep -v 'ctest_checked')
echo "ok: every ctest call has --no-tests=error"

# A stand-in server for stop_server: prints the "listening on" line, then on SIGTERM does MODE.
cat >"$work/server" <<'SH'
#!/usr/bin/env bash
mode=${!#}  # start_ringcast puts --listen 127.0.0.1:0 first
case $mode in
  exit0) trap 'exit 0' TERM ;;
  die) trap - TERM ;;  # the default action: killed by the signal, status 143
  hang) trap '' TERM ;;
  asan) trap 'echo "==1==ERROR: AddressSanitizer: heap-use-after-free on address 0x1" >&2; exit 0' TERM ;;
  ubsan) trap 'echo "x.cpp:1:2: runtime error: signed integer overflow" >&2; exit 0' TERM ;;
  tsan) trap 'echo "WARNING: ThreadSanitizer: data race (pid=1)" >&2; exit 0' TERM ;;
esac
echo "ringcast: listening on 127.0.0.1:4242 (test stand-in)" >&2
while :; do sleep 0.05; done
SH
chmod +x "$work/server"
# stop_server's SIGKILL comes after 20 s; the hang case shortens that wait.
stop_case() {  # stop_case MODE EXPECTED(pass|fail)
  local mode=$1 expected=$2 rc=0
  (
    # shellcheck source=/dev/null
    source "$root/loadtest/server_process.sh"
    [[ $mode != hang ]] || RINGCAST_STOP_WAIT_S=1
    start_ringcast "$work/$mode.log" "$work/server" "$mode" || exit 3
    [[ $port == 4242 ]] || exit 4
    stop_server
  ) >"$work/$mode.out" 2>&1 || rc=$?
  if [[ $expected == pass && $rc != 0 ]] || [[ $expected == fail && $rc != 1 ]]; then
    fail "stop_server on a server that does '$mode' at SIGTERM: status $rc, expected to $expected"
    sed 's/^/  | /' "$work/$mode.out" >&2
  else
    echo "ok: stop_server should $expected and does, for '$mode'"
  fi
}
stop_case exit0 pass
stop_case die fail
stop_case hang fail
stop_case asan fail
stop_case ubsan fail
stop_case tsan fail

# scripts/run.sh --help prints without installing or building: in a copy of it whose deps.sh and
# cmake only leave a mark, its own usage before a build, the server's --help after one.
mkdir -p "$work/run/scripts" "$work/run/bin"
cp "$root/scripts/run.sh" "$work/run/scripts/"
printf '#!/bin/sh\ntouch "%s/built"\nexit 1\n' "$work/run" >"$work/run/scripts/deps.sh"
cp "$work/run/scripts/deps.sh" "$work/run/bin/cmake"
chmod +x "$work/run/scripts/deps.sh" "$work/run/bin/cmake"
run_help() { PATH="$work/run/bin:$PATH" timeout 10 "$work/run/scripts/run.sh" --help >"$work/run/out" 2>&1; }
if ! run_help || [[ -e $work/run/built ]] || ! grep -q '^Usage: scripts/run.sh' "$work/run/out" ||
  ! grep -q 'docs/operations.md' "$work/run/out"; then
  fail "scripts/run.sh --help before a build did not print its usage without building:"
  sed 's/^/  | /' "$work/run/out" >&2
else
  echo "ok: scripts/run.sh --help before a build prints its usage and builds nothing"
fi
mkdir -p "$work/run/build-release/server"
printf '#!/bin/sh\necho "server help: $1"\n' >"$work/run/build-release/server/ringcast"
chmod +x "$work/run/build-release/server/ringcast"
if ! run_help || [[ -e $work/run/built ]] || [[ $(cat "$work/run/out") != "server help: --help" ]]; then
  fail "scripts/run.sh --help after a build did not print the server's --help without building:"
  sed 's/^/  | /' "$work/run/out" >&2
else
  echo "ok: scripts/run.sh --help after a build prints the server's --help and builds nothing"
fi

# One Release tree, build-release: scripts/run.sh, loadtest/run.sh, loadtest/cluster.sh and the
# docs' commands build in it, and each says so before it builds (a first build takes minutes).
mkdir -p "$work/tree/scripts" "$work/tree/bin"
cp "$root/scripts/run.sh" "$work/tree/scripts/"
printf '#!/bin/sh\nexit 0\n' >"$work/tree/scripts/deps.sh"
cat >"$work/tree/bin/cmake" <<'FAKE'
#!/bin/sh
echo "CMAKE $*"
if [ "$1" = --build ]; then mkdir -p "$2/server" && printf '#!/bin/sh\necho "server ran"\n' >"$2/server/ringcast" && chmod +x "$2/server/ringcast"; fi
FAKE
sed 's/CMAKE/NINJA/' "$work/tree/bin/cmake" >"$work/tree/bin/ninja"
chmod +x "$work/tree/scripts/deps.sh" "$work/tree/bin/cmake" "$work/tree/bin/ninja"
PATH="$work/tree/bin:$PATH" timeout 10 "$work/tree/scripts/run.sh" --listen 127.0.0.1:0 >"$work/tree/run.out" 2>&1 || true
said=$(grep -n '^scripts/run.sh: building build-release/' "$work/tree/run.out" | head -n1 | cut -d: -f1 || true)
built=$(grep -n '^CMAKE --build build-release ' "$work/tree/run.out" | head -n1 | cut -d: -f1 || true)
if [[ -z $said || -z $built ]] || ((said > built)) || ! grep -q '^server ran$' "$work/tree/run.out"; then
  fail "scripts/run.sh did not say that it builds build-release before building it:"
  sed 's/^/  | /' "$work/tree/run.out" >&2
else
  echo "ok: scripts/run.sh says that it builds build-release, then builds it"
fi
mkdir -p "$work/tree/build-release" && : >"$work/tree/build-release/build.ninja"
(PATH="$work/tree/bin:$PATH" && source "$root/loadtest/flags.sh" &&
  build_load_tools "$work/tree" "$work/tree/build-release") >"$work/tree/load.out" 2>&1 || true
if ! head -n1 "$work/tree/load.out" | grep -q '^building ringcast and ringcast-load in build-release/' ||
  ! grep -q '^NINJA ' "$work/tree/load.out"; then
  fail "loadtest's build_load_tools did not say what it builds, and where, before ninja:"
  sed 's/^/  | /' "$work/tree/load.out" >&2
else
  echo "ok: loadtest's build says what it builds before it builds, also in a configured tree"
fi
# (The sanitizer and fuzzing trees are not Release builds: they stay apart.)
others=$(grep -noE 'build-[a-z-]+' "$root/loadtest/run.sh" "$root/loadtest/cluster.sh" "$root/scripts/run.sh" \
  "$root/bench/run.sh" "$root/README.md" "$root/docs/"*.md |
  grep -vE ':build-(release|package|fuzz|asan|tsan|wheel-asan)$' || true)
# and a Release build in the plain `build` (CI's tree) is one more.
others+=$(grep -nE -- '-B build .*Release|-B build$' "$root/README.md" "$root/docs/"*.md || true)
if [[ -n $others ]]; then
  fail "a Release build tree other than build-release (and package.sh's build-package):"
  sed 's/^/  | /' <<<"$others" >&2
else
  echo "ok: scripts/run.sh, the load scripts and the docs share build-release"
fi

# The commands the docs tell a newcomer to run are installed by scripts/deps.sh build (xxd is
# not; openssl makes tokens), and client.md's examples call nothing they do not define.
if grep -rnIw 'xxd' "$root/README.md" "$root/docs" --include='*.md' >"$work/xxd" 2>&1; then
  fail "the docs use xxd, which scripts/deps.sh does not install:"
  sed 's/^/  | /' "$work/xxd" >&2
elif ! grep -q '^  openssl curl$' "$root/scripts/deps.sh"; then
  fail "scripts/deps.sh build no longer installs openssl and curl, which the docs use"
else
  echo "ok: the docs' token and try-it commands are installed by scripts/deps.sh build"
fi
if grep -n '[^.a-zA-Z_]show(' "$root/docs/client.md" >"$work/show" 2>&1; then
  fail "docs/client.md calls show(), which no example defines:"
  sed 's/^/  | /' "$work/show" >&2
else
  echo "ok: docs/client.md's examples call no undefined show()"
fi

# Every URL parameter the storefront reads is documented in docs/client.md (`?name=`).
undocumented=()
for name in $(grep -oE "params\.(get|has)\('[a-z_]+'\)" "$root/web/store.js" | sed -E "s/.*'([a-z_]+)'.*/\1/" | sort -u); do
  grep -q "\`?$name=" "$root/docs/client.md" || undocumented+=("$name")
done
if ((${#undocumented[@]})); then
  fail "the storefront's URL parameters ${undocumented[*]} are not in docs/client.md"
else
  echo "ok: every URL parameter of the storefront is in docs/client.md"
fi

if ((failures)); then
  echo "$failures check(s) failed" >&2
  exit 1
fi
echo "scripts_test: all checks passed"
