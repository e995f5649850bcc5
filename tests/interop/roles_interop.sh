#!/usr/bin/env bash
# examples/config/roles.toml served, and its roles matrix checked with node-opcua's client
# (tests/interop/node_roles_matrix.js): anonymous over None, viewer, operator, engineer and admin
# over Basic256Sha256/SignAndEncrypt; Browse, TranslateBrowsePaths, Read, Write, Call and
# CreateMonitoredItems answer exactly what each role allows, and namespace 2's NamespaceMetadata shows
# the file's namespace default (docs/security.md "Roles and permissions").
# Then SIGHUP with the file changed (Observer may write the setpoint and call SetSetpoint, and read
# in namespace 2's default): a new viewer session can, and sees it (docs/security.md "When a change
# takes effect").
#
#   bash roles_interop.sh UACTOR_BINARY SOURCE_DIR
#
# The file is copied with its ports set to 0. Exit 0 = all passed, 77 without node or node_modules.
set -u
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
if ! command -v node >/dev/null 2>&1; then echo "skipped: node not found"; exit 77; fi
if [ ! -d "$here/node_modules" ]; then echo "skipped: $here/node_modules missing (npm ci)"; exit 77; fi
uactor="${1:?usage: roles_interop.sh UACTOR_BINARY SOURCE_DIR}"
src="${2:?usage: roles_interop.sh UACTOR_BINARY SOURCE_DIR}"
tmp="$(mktemp -d)"
server_pid=""
cleanup() {
    if [ -n "$server_pid" ]; then kill -TERM "$server_pid" 2>/dev/null; wait "$server_pid" 2>/dev/null; fi
    rm -rf "$tmp"
}
trap cleanup EXIT

client_uri="urn:uactor:node-secure-client"
if ! timeout -k 5 90 node "$here/security/make_certs.js" "$tmp/certs" "client=$client_uri" >"$tmp/certs.out" 2>&1; then
    cat "$tmp/certs.out"; echo "roles_interop: FAIL: make_certs.js"; exit 1
fi
sed 's/^port = [0-9]*/port = 0/' "$src/examples/config/roles.toml" >"$tmp/roles.toml"
"$uactor" run --config "$tmp/roles.toml" --host 127.0.0.1 --trust "$tmp/certs/client/cert.der" \
    >"$tmp/server.out" 2>"$tmp/server.err" </dev/null &
server_pid=$!
urls=()
for _ in $(seq 600); do
    mapfile -t urls < <(sed -n 's#^listening on \(opc\.tcp://[^[:space:]]*\).*#\1#p' "$tmp/server.out")
    [ "${#urls[@]}" -ge 2 ] && break
    kill -0 "$server_pid" 2>/dev/null || break
    sleep 0.1
done
if [ "${#urls[@]}" -lt 2 ]; then
    echo "roles_interop: FAIL: two endpoints did not listen"; cat "$tmp/server.out" "$tmp/server.err"; exit 1
fi
node_pki="$tmp/node-pki"
mkdir -p "$node_pki/trusted/certs"
cp "$tmp"/pki/own/certs/*.der "$node_pki/trusted/certs/"
timeout -k 5 150 node "$here/node_roles_matrix.js" --floor "${urls[0]}" --eng "${urls[1]}" --pki "$node_pki" \
    --cert "$tmp/certs/client/cert.pem" --key "$tmp/certs/client/key.pem" >"$tmp/matrix.out" 2>"$tmp/matrix.err"
status=$?
cat "$tmp/matrix.out"
if [ "$status" -ne 0 ]; then
    tail -n 20 "$tmp/matrix.err"; tail -n 20 "$tmp/server.err"
    echo "roles_interop: FAIL (exit $status)"; exit 1
fi

# SIGHUP with changed permissions (docs/security.md "When a change takes effect"): Observer may
# now write the line's setpoint and call SetSetpoint; a new session of the viewer can.
sed -i 's/Observer = \["Browse", "Read", "ReceiveEvents"\], Operator = \["Browse", "Read", "ReceiveEvents", "Write", "Call"\]/Observer = ["Browse", "Read", "ReceiveEvents", "Write", "Call"], Operator = ["Browse", "Read", "ReceiveEvents", "Write", "Call"]/' "$tmp/roles.toml"
grep -q 'Observer = \["Browse", "Read", "ReceiveEvents", "Write", "Call"\]' "$tmp/roles.toml" || { echo "roles_interop: FAIL: the edit of roles.toml did not apply"; exit 1; }
# ... and namespace 2's default gives Observer Browse and Read (its NamespaceMetadata follows).
sed -i 's/^roles = { Anonymous = \["Browse"\], Engineer = \["Browse", "Read"\],/roles = { Anonymous = ["Browse"], Observer = ["Browse", "Read"], Engineer = ["Browse", "Read"],/' "$tmp/roles.toml"
grep -q 'Anonymous = \["Browse"\], Observer = \["Browse", "Read"\]' "$tmp/roles.toml" || { echo "roles_interop: FAIL: the edit of the namespace rule did not apply"; exit 1; }
kill -HUP "$server_pid"
reloads=0
for _ in $(seq 300); do
    reloads=$(grep -c "roles and permissions: " "$tmp/server.err")
    [ "$reloads" -ge 2 ] && break
    grep -q "reload refused" "$tmp/server.err" && break
    sleep 0.1
done
[ "$reloads" -ge 2 ] || { echo "roles_interop: FAIL: no reload in the log"; tail -n 20 "$tmp/server.err"; exit 1; }
timeout -k 5 100 node "$here/node_roles_matrix.js" --floor "${urls[0]}" --eng "${urls[1]}" --pki "$node_pki" \
    --cert "$tmp/certs/client/cert.pem" --key "$tmp/certs/client/key.pem" --after-reload yes \
    >"$tmp/reload.out" 2>"$tmp/reload.err"
status=$?
sed 's/^/after SIGHUP: /' "$tmp/reload.out"
if [ "$status" -ne 0 ]; then
    tail -n 20 "$tmp/reload.err"; tail -n 20 "$tmp/server.err"
    echo "roles_interop: FAIL after SIGHUP (exit $status)"; exit 1
fi
echo "roles_interop: PASS"
