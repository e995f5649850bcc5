#!/usr/bin/env bash
# DefaultHttpsGroup and DefaultUserTokenGroup against `uactor run --wss-port 0` with node-opcua's
# client (tests/interop/node_https_group.js; docs/security.md "Certificate groups",
# docs/decisions/0078): the opc.wss TLS certificate renewed from a signing request signed by a test
# CA (openssl CLI), new TLS connections get it while one from before goes on; the user token trust
# list parts from the application's at its first change.
#
#   bash https_group_interop.sh UACTOR_BINARY
#
# Exit 0 = all passed, 77 without node, node_modules or openssl, 1 otherwise.
set -u
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
if ! command -v node >/dev/null 2>&1; then echo "skipped: node not found"; exit 77; fi
if ! command -v openssl >/dev/null 2>&1; then echo "skipped: openssl not found"; exit 77; fi
if [ ! -d "$here/node_modules" ]; then echo "skipped: $here/node_modules missing (npm ci)"; exit 77; fi
uactor="${1:?usage: https_group_interop.sh UACTOR_BINARY}"
tmp="$(mktemp -d)"
server_pid=""
cleanup() {
    if [ -n "$server_pid" ]; then kill -TERM "$server_pid" 2>/dev/null; wait "$server_pid" 2>/dev/null; fi
    rm -rf "$tmp"
}
trap cleanup EXIT

if ! timeout -k 5 90 node "$here/security/make_certs.js" "$tmp/certs" "client=urn:uactor:node-secure-client" \
    "user=urn:uactor:node-user" >"$tmp/certs.out" 2>&1; then
    cat "$tmp/certs.out"; echo "https_group_interop: FAIL: make_certs.js"; exit 1
fi
openssl req -x509 -newkey rsa:2048 -nodes -keyout "$tmp/ca.key" -out "$tmp/ca.pem" -days 30 -subj "/CN=uactor interop web CA" \
    -addext "basicConstraints=critical,CA:TRUE" -addext "keyUsage=critical,keyCertSign,cRLSign" >/dev/null 2>&1 \
    || { echo "https_group_interop: FAIL: openssl could not make the CA"; exit 1; }
cat >"$tmp/leaf.ext" <<'EXT'
basicConstraints=critical,CA:FALSE
keyUsage=critical,digitalSignature,keyEncipherment
extendedKeyUsage=serverAuth
authorityKeyIdentifier=keyid
subjectKeyIdentifier=hash
EXT

"$uactor" hash-password admin <<<'admin-pw' >"$tmp/admin.hash" || { echo "FAIL hash-password"; exit 1; }
admin_hash="$(cut -d: -f2- "$tmp/admin.hash")"
cat >"$tmp/plant.toml" <<EOF2
[server]
demo = false
wss_port = 0

[[server.endpoints]]
port = 0
security = ["Basic256Sha256:SignAndEncrypt"]
user_tokens = ["username", "x509"]

[pki]
dir = "pki"

[[users]]
name = "admin"
hash = "$admin_hash"
roles = ["SecurityAdmin"]
EOF2
(cd "$tmp" && exec "$uactor" run --config "$tmp/plant.toml" --host 127.0.0.1 --trust "$tmp/certs/client/cert.der" \
    >"$tmp/server.out" 2>"$tmp/server.err" </dev/null) &
server_pid=$!
url=""
wss=""
for _ in $(seq 600); do
    url="$(sed -n 's#^listening on \(opc\.tcp://[^[:space:]]*\).*#\1#p' "$tmp/server.out" | head -n 1)"
    wss="$(sed -n 's#^listening on opc\.wss://[^:]*:\([0-9]*\).*#\1#p' "$tmp/server.out" | head -n 1)"
    [ -n "$url" ] && [ -n "$wss" ] && break
    kill -0 "$server_pid" 2>/dev/null || break
    sleep 0.1
done
if [ -z "$url" ] || [ -z "$wss" ]; then
    echo "https_group_interop: FAIL: the server did not start"; cat "$tmp/server.out" "$tmp/server.err"; exit 1
fi
node_pki="$tmp/node-pki"
mkdir -p "$node_pki/trusted/certs"
cp "$tmp"/pki/own/certs/uactor.der "$node_pki/trusted/certs/"
timeout -k 5 150 node "$here/node_https_group.js" --url "$url" --wss-port "$wss" --pki "$node_pki" \
    --cert "$tmp/certs/client/cert.pem" --key "$tmp/certs/client/key.pem" --work "$tmp" --ca-cert "$tmp/ca.pem" \
    --ca-key "$tmp/ca.key" --user-cert "$tmp/certs/user/cert.pem" >"$tmp/push.out" 2>"$tmp/push.err"
status=$?
cat "$tmp/push.out"
if [ "$status" -ne 0 ]; then
    tail -n 20 "$tmp/push.err"; tail -n 30 "$tmp/server.err"
    echo "https_group_interop: FAIL (exit $status)"; exit 1
fi
grep -q "new opc.wss TLS connections present" "$tmp/server.err" \
    || { echo "https_group_interop: FAIL: no ApplyChanges line for the HTTPS certificate in the log"; exit 1; }
[ -f "$tmp/pki/own/certs/uactor-https.der" ] || { echo "https_group_interop: FAIL: own/certs/uactor-https.der missing"; exit 1; }
[ -d "$tmp/pki/user/trusted/certs" ] || { echo "https_group_interop: FAIL: pki/user/trusted/certs missing"; exit 1; }
echo "https_group_interop: PASS"
