#!/usr/bin/env bash
# CI check of the Debian package (README "Install as a service"), on a build directory configured
# with CMAKE_INSTALL_PREFIX=/usr:
#   1. scripts/package.sh builds the .deb; its Depends (dpkg-shlibdeps) names the libraries the
#      binaries link, each an installed Debian package here; the config is a conffile.
#   2. The package unpacked into a throw-away root (dpkg -x): the installed binary serves with the
#      installed config (an SSE client gets a publish), SIGTERM drains and exits 0; the unit passes
#      `systemd-analyze verify` with no warning, alone and with the low-port drop-in; it bounds
#      memory and tasks and grants no capability (only the drop-in does).
#   3. As root (CI), installed for real with dpkg -i: system user, admin token made by postinst
#      and readable by the service's group only, the binary run as that user with
#      /etc/ringcast/ringcast.conf, the unit verified in place; then purged.
# Usage: tests/package/package_test.sh BUILD_DIR
set -euo pipefail
src=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
build=$(cd "${1:?usage: package_test.sh BUILD_DIR}" && pwd)
work=$(mktemp -d /tmp/ringcast-package.XXXXXX)
server_pid=
installed_here=0
cleanup() {
  if [[ -n $server_pid ]]; then kill -KILL "$server_pid" 2>/dev/null || true; fi
  if ((installed_here)); then dpkg --purge ringcast >/dev/null 2>&1 || true; fi
  rm -rf "$work"
}
trap cleanup EXIT
fail() {
  echo "package_test: FAIL: $*" >&2
  exit 1
}
ok() { echo "package_test: ok: $*"; }

deb=$(RINGCAST_BUILD_DIR=$build "$src/scripts/package.sh")
[[ -f $deb ]] || fail "scripts/package.sh printed '$deb', not a file"
ok "built $(basename "$deb") ($(stat -c %s "$deb") bytes)"

# 1. What the package says.
depends=$(dpkg-deb -f "$deb" Depends)
for lib in adduser libboost-json1.81.0 libboost-program-options1.81.0 libboost-url1.81.0 libfmt9 \
  libhiredis0.14 libjwt0 libssl3 libstdc++6 libc6; do
  [[ ", $depends," == *", $lib "* || ", $depends," == *", $lib,"* ]] ||
    fail "Depends lacks $lib: $depends"
done
while read -r name; do
  dpkg-query -W -f='${Status}' "$name" 2>/dev/null | grep -q "install ok installed" ||
    fail "Depends names '$name', which is not an installed package here"
done < <(tr ',' '\n' <<<"$depends" | sed 's/(.*//; s/[[:space:]]//g')
ok "Depends: $depends"
[[ $(dpkg-deb --ctrl-tarfile "$deb" | tar -xO ./conffiles) == /etc/ringcast/ringcast.conf ]] ||
  fail "conffiles is not /etc/ringcast/ringcast.conf"
listing=$(dpkg-deb -c "$deb" | awk '{print $6}')
for f in ./usr/bin/ringcast ./usr/bin/ringcast-load ./etc/ringcast/ringcast.conf \
  ./lib/systemd/system/ringcast.service ./usr/share/doc/ringcast/README.md \
  ./usr/share/doc/ringcast/docs/operations.md ./usr/share/doc/ringcast/examples/nginx-3-nodes.conf \
  ./usr/share/doc/ringcast/examples/ringcast-low-port.conf; do
  grep -qx -- "$f" <<<"$listing" || fail "the package lacks $f"
done
ok "files, conffiles"

# serve BIN CONF TOKEN [USER [FLAGS...]]: starts BIN with CONF (on a free loopback port, a short
# drain), checks /healthz, that an SSE client receives a publish made with TOKEN, and that SIGTERM
# ends it with status 0.
serve() {
  local bin=$1 conf=$2 token=$3 user=${4:-} log=$work/server.log port=
  local cmd=("$bin" --config "$conf" --listen 127.0.0.1:0 --drain 200ms)
  # setpriv execs: the signal reaches the server itself, as systemd sends it.
  if [[ -n $user ]]; then cmd=(setpriv --reuid="$user" --regid="$user" --init-groups "${cmd[@]}"); fi
  "${cmd[@]}" "${@:5}" >"$log" 2>&1 &
  server_pid=$!
  for _ in $(seq 100); do
    port=$(sed -n 's/.*listening on 127\.0\.0\.1:\([0-9]*\) .*/\1/p' "$log")
    [[ -n $port ]] && break
    kill -0 "$server_pid" 2>/dev/null || break
    sleep 0.1
  done
  [[ -n $port ]] || fail "$bin --config $conf did not start: $(cat "$log")"
  [[ $(curl -s -o /dev/null -w '%{http_code}' "http://127.0.0.1:$port/healthz") == 200 ]] ||
    fail "/healthz is not 200"
  curl -sN --max-time 3 "http://127.0.0.1:$port/sse?user=pkg" >"$work/sse.out" &
  local sse=$!
  sleep 0.5
  local reply
  reply=$(curl -s -H "Authorization: Bearer $token" -d '{"data":{"from":"package_test"}}' \
    "http://127.0.0.1:$port/admin/publish")
  [[ $reply == *'"recipients":1'* ]] || fail "publish answered '$reply'"
  wait "$sse" || true
  grep -q '"from":"package_test"' "$work/sse.out" || fail "the SSE client got: $(cat "$work/sse.out")"
  kill -TERM "$server_pid"
  local status=0
  timeout 15 tail --pid="$server_pid" -f /dev/null || fail "no exit 15 s after SIGTERM"
  wait "$server_pid" || status=$?
  server_pid=
  ((status == 0)) || fail "exit status $status after SIGTERM: $(cat "$log")"
}

# verify_unit FILE: systemd-analyze verify with nothing to say.
verify_unit() {
  if ! command -v systemd-analyze >/dev/null; then
    echo "package_test: systemd-analyze is not installed: unit not verified"
    return
  fi
  local out
  out=$(systemd-analyze verify "$1" 2>&1) || fail "systemd-analyze verify $1: $out"
  [[ -z $out ]] || fail "systemd-analyze verify $1 warns: $out"
  ok "systemd-analyze verify $1"
}

# 2. A throw-away root.
root=$work/root
dpkg -x "$deb" "$root"
conf=$root/etc/ringcast/ringcast.conf
if [[ ! -e /etc/ringcast/admin-token ]]; then
  # The installed config names /etc/ringcast/admin-token, which only postinst makes: the error
  # says which file and line.
  status=0
  err=$("$root/usr/bin/ringcast" --config "$conf" 2>&1) || status=$?
  line=$(grep -n '^admin-token-file' "$conf" | cut -d: -f1)
  [[ $status == 2 && $err == "ringcast: $conf:$line: admin-token-file: /etc/ringcast/admin-token: No such file or directory" ]] ||
    fail "without the token file: status $status, '$err'"
  ok "a missing token file is named with the config's file and line"
fi
echo "pkg-$RANDOM$RANDOM" >"$work/admin-token"
serve "$root/usr/bin/ringcast" "$conf" "$(cat "$work/admin-token")" "" \
  --admin-token-file "$work/admin-token"
ok "the unpacked binary serves with the unpacked config"
unit=$root/lib/systemd/system/ringcast.service
grep -qx "ExecStart=/usr/bin/ringcast --config /etc/ringcast/ringcast.conf" "$unit" ||
  fail "unexpected ExecStart in $unit"
# The unit names /usr/bin/ringcast, which systemd-analyze checks is executable: point it at the
# unpacked one.
sed "s|=/usr/bin/ringcast |=$root/usr/bin/ringcast |" "$unit" >"$work/ringcast.service"
verify_unit "$work/ringcast.service"
# Containment (docs/operations.md#service-limits): memory and tasks bounded; no capability, unless
# the documented drop-in adds the one a port below 1024 needs.
for key in MemoryHigh MemoryMax TasksMax; do
  grep -Eq "^$key=[0-9]+[KMG]?$" "$unit" || fail "the unit sets no $key=: $(grep -E '^(Memory|Tasks)' "$unit")"
done
grep -qx 'CapabilityBoundingSet=' "$unit" && ! grep -q '^AmbientCapabilities=' "$unit" ||
  fail "the unit grants capabilities: $(grep -i capabilit "$unit")"
dropin=$root/usr/share/doc/ringcast/examples/ringcast-low-port.conf
grep -qx 'AmbientCapabilities=CAP_NET_BIND_SERVICE' "$dropin" ||
  fail "the low-port drop-in does not grant CAP_NET_BIND_SERVICE"
mkdir -p "$work/ringcast.service.d"
cp "$dropin" "$work/ringcast.service.d/low-port.conf"
verify_unit "$work/ringcast.service"
ok "the unit bounds memory and tasks; CAP_NET_BIND_SERVICE only through the low-port drop-in"

# 3. Installed for real.
if [[ $(id -u) != 0 ]]; then
  echo "package_test: not root: not installed with dpkg -i"
elif dpkg-query -W -f='${Status}' ringcast 2>/dev/null | grep -q "install ok installed"; then
  echo "package_test: a ringcast package is already installed here: left alone, not installed again"
else
  installed_here=1
  dpkg -i "$deb" >"$work/dpkg.log" 2>&1 || fail "dpkg -i: $(cat "$work/dpkg.log")"
  getent passwd ringcast >/dev/null || fail "no ringcast user after dpkg -i"
  [[ $(stat -c '%a %U %G' /etc/ringcast/admin-token) == "640 root ringcast" ]] ||
    fail "admin-token is $(stat -c '%a %U %G' /etc/ringcast/admin-token)"
  [[ $(stat -c '%a %U %G' /etc/ringcast/ringcast.conf) == "640 root ringcast" ]] ||
    fail "ringcast.conf is $(stat -c '%a %U %G' /etc/ringcast/ringcast.conf)"
  [[ $(wc -c </etc/ringcast/admin-token) == 33 ]] || fail "the admin token is not 32 characters"
  serve /usr/bin/ringcast /etc/ringcast/ringcast.conf "$(cat /etc/ringcast/admin-token)" ringcast
  ok "dpkg -i: the ringcast user runs /usr/bin/ringcast with /etc/ringcast/ringcast.conf"
  verify_unit /lib/systemd/system/ringcast.service
  dpkg --purge ringcast >"$work/dpkg.log" 2>&1 || fail "dpkg --purge: $(cat "$work/dpkg.log")"
  installed_here=0
  [[ ! -e /usr/bin/ringcast && ! -e /etc/ringcast ]] || fail "dpkg --purge left files behind"
  ok "dpkg --purge removes the binary and /etc/ringcast"
fi
echo "package_test: all checks passed"
