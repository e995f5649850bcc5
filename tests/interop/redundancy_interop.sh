#!/usr/bin/env bash
# `uactor run --redundancy warm` read by node-opcua's client (docs/decisions/0041): ServiceLevel,
# ServerRedundancy (NonTransparentRedundancyType, RedundancySupport, ServerUriArray), and
# ServiceLevel 0 notified to a subscriber on SIGTERM before the session ends.
#
#   bash redundancy_interop.sh UACTOR_BINARY
#
# Exit 0 = all passed, 77 without node or node_modules, 1 otherwise.
set -u
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
if ! command -v node >/dev/null 2>&1; then echo "skipped: node not found"; exit 77; fi
if [ ! -d "$here/node_modules" ]; then echo "skipped: $here/node_modules missing (npm ci)"; exit 77; fi
uactor="${1:?usage: redundancy_interop.sh UACTOR_BINARY}"
tmp="$(mktemp -d)"
server_pid=""
cleanup() {
    if [ -n "$server_pid" ]; then kill -KILL "$server_pid" 2>/dev/null; wait "$server_pid" 2>/dev/null; fi
    rm -rf "$tmp"
}
trap cleanup EXIT
"$uactor" run --host 127.0.0.1 --port 0 --pki "$tmp/pki" --redundancy warm --redundant-server urn:a:uactor:server \
    --redundant-server urn:b:uactor:server --service-level 210 --shutdown-delay 2000 \
    >"$tmp/server.out" 2>"$tmp/server.err" </dev/null &
server_pid=$!
url=""
for _ in $(seq 300); do
    url="$(sed -n 's#^listening on \(opc\.tcp://[^[:space:]]*\).*#\1#p' "$tmp/server.out" | head -n 1)"
    [ -n "$url" ] && break
    kill -0 "$server_pid" 2>/dev/null || break
    sleep 0.1
done
if [ -z "$url" ]; then echo "redundancy_interop: FAIL: the server did not listen"; cat "$tmp/server.out" "$tmp/server.err"; exit 1; fi
timeout -k 5 60 node "$here/node_redundancy_check.js" "$url" 2 "urn:a:uactor:server,urn:b:uactor:server" 210 "$server_pid" \
    >"$tmp/check.out" 2>"$tmp/check.err"
status=$?
cat "$tmp/check.out"
# The server ends by itself after SIGTERM (its shutdown delay, then the stop); killed after 15 s.
( sleep 15; kill -KILL "$server_pid" 2>/dev/null ) &
killer=$!
wait "$server_pid"
rc=$?
server_pid=""
kill "$killer" 2>/dev/null
if [ "$rc" -ne 0 ]; then echo "FAIL the server's exit status after SIGTERM: $rc"; status=1; fi
grep -q "ServiceLevel 0" "$tmp/server.err" "$tmp/server.out" || { echo "FAIL no 'ServiceLevel 0' in the server's log"; status=1; }
if [ "$status" -ne 0 ]; then tail -n 20 "$tmp/check.err" "$tmp/server.err"; echo "redundancy_interop: FAIL"; exit 1; fi
echo "redundancy_interop: ok"
