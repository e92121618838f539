#!/usr/bin/env bash
# Installs the Debian 12 packages ringcast needs that are not installed yet.
# Usage: scripts/deps.sh [build|package|test]   (package adds what `cpack -G DEB` needs; test adds
# that and what the test suite needs)
set -euo pipefail

# openssl and curl: the commands the docs use to make tokens (openssl rand -hex 16) and
# certificates, and to try the server (README's "Try it").
build_packages=(
  g++ cmake ninja-build pkg-config
  libboost1.81-dev libboost-json1.81-dev libboost-url1.81-dev libboost-program-options1.81-dev
  libfmt-dev libjwt-dev libssl-dev libhiredis-dev zlib1g-dev
  openssl curl
)
# dpkg-shlibdeps (dpkg-dev) and file find the package's Depends; adduser is what it depends on.
package_packages=(dpkg-dev file adduser)
# redis-sentinel for the failover test, systemd for `systemd-analyze verify` of the unit, curl
# for the package test and README's "Try it" (with python3-websockets, tests/scripts/readme_try_it.sh),
# nginx for deploy/nginx-3-nodes.conf, clang-tidy for scripts/tidy.sh, iproute2 (ss) for
# docs/loadtest.md's way to find a server's PID (tests/loadtest/docs_server_pid.sh).
test_packages=(
  libgtest-dev libbenchmark-dev
  nodejs npm chromium redis-server redis-sentinel openssl
  clang libclang-rt-14-dev clang-tidy
  systemd curl nginx python3-websockets iproute2
)

wanted=("${build_packages[@]}")
case ${1:-build} in
  build) ;;
  package) wanted+=("${package_packages[@]}") ;;
  test) wanted+=("${package_packages[@]}" "${test_packages[@]}") ;;
  *) echo "deps.sh: expected build, package or test, got '$1'" >&2; exit 2 ;;
esac

missing=()
for package in "${wanted[@]}"; do
  # node may come from elsewhere than Debian's nodejs package (its version is checked below)
  if [[ $package == nodejs || $package == npm ]] && command -v "${package/nodejs/node}" >/dev/null; then
    continue
  fi
  dpkg-query -W -f='${Status}' "$package" 2>/dev/null | grep -q "install ok installed" ||
    missing+=("$package")
done

if ((${#missing[@]})); then
  echo "deps: installing ${missing[*]}"
  sudo_cmd=()
  if [[ $(id -u) != 0 ]]; then sudo_cmd=(sudo); fi
  "${sudo_cmd[@]}" apt-get update -q
  DEBIAN_FRONTEND=noninteractive "${sudo_cmd[@]}" apt-get install -y -q --no-install-recommends "${missing[@]}"
fi

# The Node test suites need node >= 20.10 (node --test with --test-concurrency; tests/package.json
# "engines"). Debian 12's own nodejs is 18: a newer one must be on PATH, and an older one is refused
# here rather than failing obscurely inside a suite.
node_min=20.10
if [[ "${1:-build}" == test ]]; then
  node_version=$(node --version 2>/dev/null || echo none)
  if ! printf '%s\n%s\n' "$node_min" "${node_version#v}" | sort -V -C; then
    echo "deps: node $node_version on PATH; the test suites need node >= $node_min" >&2
    exit 1
  fi
fi
