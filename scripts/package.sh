#!/usr/bin/env bash
# Builds the Debian package of ringcast and prints its path on stdout:
#
#   scripts/package.sh                       # -> build-package/ringcast_0.1.0_amd64.deb
#   sudo apt install ./build-package/ringcast_*.deb
#   sudo systemctl enable --now ringcast
#
# A Release build in build-package/ (RINGCAST_BUILD_DIR picks another; an existing build directory
# must have been configured with CMAKE_INSTALL_PREFIX=/usr). dpkg-shlibdeps writes the Depends line
# from the libraries the binaries link (README "Install as a service").
set -euo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
build=${RINGCAST_BUILD_DIR:-$root/build-package}
if [[ ${1:-} == -h || ${1:-} == --help ]]; then
  sed -n '2,10p' "${BASH_SOURCE[0]}" | sed 's/^# \{0,1\}//'
  exit 0
fi
"$root/scripts/deps.sh" package >&2

# A tree of its own (installed under /usr, which build-release, scripts/run.sh's, is not): said
# before it builds, as the first build takes minutes.
echo "package.sh: building ringcast and ringcast-load in ${build#"$root"/}/ (Release, prefix /usr)" >&2
if [[ ! -f $build/CMakeCache.txt ]]; then
  cmake -S "$root" -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=Release -DCMAKE_INSTALL_PREFIX=/usr \
    -DRINGCAST_BUILD_TESTS=OFF -DRINGCAST_BUILD_BENCH=OFF >&2
fi
prefix=$(sed -n 's/^CMAKE_INSTALL_PREFIX:PATH=//p' "$build/CMakeCache.txt")
if [[ $prefix != /usr ]]; then
  echo "package.sh: $build is configured with CMAKE_INSTALL_PREFIX=$prefix; the package needs /usr" \
    "(cmake -B $build -DCMAKE_INSTALL_PREFIX=/usr)" >&2
  exit 2
fi
cmake --build "$build" --target ringcast ringcast-load >&2
rm -f "$build"/ringcast_*.deb
(cd "$build" && cpack -G DEB >&2)
ls "$build"/ringcast_*.deb
