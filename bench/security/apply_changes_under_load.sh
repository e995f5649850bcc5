#!/usr/bin/env bash
# ApplyChanges under a 20 x 1 Read load (docs/performance.md "Remote certificate management under
# load"): `uactor run` with the demo namespace, a SignAndEncrypt endpoint with an admin user, and
# `uactor load --endpoint ... --scenario read --nodes 1 --sessions 20 --inflight 1` against it,
# twice: a window without a change, then a window during which node-opcua runs the whole push
# sequence of tests/interop/node_push_certificates.js (CSR, signed by a test CA, UpdateCertificate,
# ApplyChanges, and the TrustList's reads and writes). Prints both result lines (JSON).
#
#   bash bench/security/apply_changes_under_load.sh BUILD_DIR
#
# The load's sessions are anonymous over None: `uactor load --endpoint` does not set up
# certificates for a server it did not start. Sessions over SignAndEncrypt that go on across
# ApplyChanges are checked by interop.push_certificates_node_opcua_against_uactor_run.
set -u
src="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
build="$(cd "${1:?usage: apply_changes_under_load.sh BUILD_DIR}" && pwd)"
interop="$src/tests/interop"
tmp="$(mktemp -d)"
server_pid=""
cleanup() {
    if [ -n "$server_pid" ]; then kill -TERM "$server_pid" 2>/dev/null; wait "$server_pid" 2>/dev/null; fi
    rm -rf "$tmp"
}
trap cleanup EXIT
node "$interop/security/make_certs.js" "$tmp/certs" "client=urn:uactor:node-secure-client" "other=urn:uactor:node-other" \
    >/dev/null 2>&1 || { echo "make_certs.js failed"; exit 1; }
cp "$tmp/certs/other/cert.der" "$tmp/other.der"
openssl req -x509 -newkey rsa:2048 -nodes -keyout "$tmp/ca.key" -out "$tmp/ca.pem" -days 30 -subj "/CN=bench CA" \
    -addext "basicConstraints=critical,CA:TRUE" -addext "keyUsage=critical,keyCertSign,cRLSign" >/dev/null 2>&1
printf 'basicConstraints=critical,CA:FALSE\nkeyUsage=critical,digitalSignature,nonRepudiation,keyEncipherment,dataEncipherment\nextendedKeyUsage=serverAuth,clientAuth\nauthorityKeyIdentifier=keyid\nsubjectKeyIdentifier=hash\n' >"$tmp/leaf.ext"
admin_hash="$("$build/cli/uactor" hash-password admin <<<'admin-pw' | cut -d: -f2-)"
operator_hash="$("$build/cli/uactor" hash-password operator <<<'operator-pw' | cut -d: -f2-)"
cat >"$tmp/plant.toml" <<EOF2
[server]
demo = true

[[server.endpoints]]
port = 0
security = ["none", "Basic256Sha256:SignAndEncrypt"]
user_tokens = ["anonymous", "username"]

[pki]
dir = "pki"

[[users]]
name = "admin"
hash = "$admin_hash"
roles = ["SecurityAdmin"]

[[users]]
name = "operator"
hash = "$operator_hash"
roles = ["Operator"]

[[files]]
id = "ns=1;s=Recipe"
name = "Recipe"
path = "recipe.txt"
writable = true
EOF2
"$build/cli/uactor" run --config "$tmp/plant.toml" --host 127.0.0.1 --trust "$tmp/certs/client/cert.der" \
    >"$tmp/server.out" 2>"$tmp/server.err" </dev/null &
server_pid=$!
url=""
for _ in $(seq 600); do
    url="$(sed -n 's#^listening on \(opc\.tcp://[^[:space:]]*\).*#\1#p' "$tmp/server.out" | head -n 1)"
    [ -n "$url" ] && break
    sleep 0.1
done
[ -n "$url" ] || { echo "the server did not start"; cat "$tmp/server.err"; exit 1; }
node_pki="$tmp/node-pki"
mkdir -p "$node_pki/trusted/certs"
cp "$tmp"/pki/own/certs/*.der "$node_pki/trusted/certs/"
load=("$build/cli/uactor" load --endpoint "$url" --scenario read --nodes 1 --sessions 20 --inflight 1 --warmup 2 --duration 10
      --json)
echo "# without a change"
"${load[@]}" 2>"$tmp/load1.err" || { cat "$tmp/load1.err"; exit 1; }
echo "# with the push sequence and ApplyChanges in the window"
"${load[@]}" 2>"$tmp/load2.err" &
load_pid=$!
sleep 5
node "$interop/node_push_certificates.js" --url "$url" --pki "$node_pki" --cert "$tmp/certs/client/cert.pem" \
    --key "$tmp/certs/client/key.pem" --work "$tmp" --ca-cert "$tmp/ca.pem" --ca-key "$tmp/ca.key" --file "$tmp/recipe.txt" \
    >"$tmp/push.out" 2>&1
push=$?
wait "$load_pid" || { cat "$tmp/load2.err"; exit 1; }
tail -n 1 "$tmp/push.out"
grep "ApplyChanges: new channels use" "$tmp/server.err" | sed 's/^/# server: /'
[ "$push" -eq 0 ] || { cat "$tmp/push.out"; exit 1; }
