#!/usr/bin/env bash
# The RoleSet of examples/config/roles.toml (docs/security.md "The RoleSet") with node-opcua's
# client against `uactor run` (tests/interop/node_role_set.js): the admin reads the roles'
# Identities and adds an identity rule to Engineer over SignAndEncrypt; a new session of that
# identity gets Engineer's permissions, one from before keeps its roles; the same call is refused
# over Sign (Bad_SecurityModeInsufficient), to the operator and to an anonymous session over None.
#
#   bash role_set_interop.sh UACTOR_BINARY SOURCE_DIR
#
# The file is copied with its ports set to 0 and Basic256Sha256:Sign added to the users' endpoint.
# Exit 0 = all passed, 77 without node or node_modules.
set -u
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
if ! command -v node >/dev/null 2>&1; then echo "skipped: node not found"; exit 77; fi
if [ ! -d "$here/node_modules" ]; then echo "skipped: $here/node_modules missing (npm ci)"; exit 77; fi
uactor="${1:?usage: role_set_interop.sh UACTOR_BINARY SOURCE_DIR}"
src="${2:?usage: role_set_interop.sh UACTOR_BINARY SOURCE_DIR}"
tmp="$(mktemp -d)"
server_pid=""
cleanup() {
    if [ -n "$server_pid" ]; then kill -TERM "$server_pid" 2>/dev/null; wait "$server_pid" 2>/dev/null; fi
    rm -rf "$tmp"
}
trap cleanup EXIT

client_uri="urn:uactor:node-secure-client"
if ! timeout -k 5 90 node "$here/security/make_certs.js" "$tmp/certs" "client=$client_uri" >"$tmp/certs.out" 2>&1; then
    cat "$tmp/certs.out"; echo "role_set_interop: FAIL: make_certs.js"; exit 1
fi
sed -e 's/^port = [0-9]*/port = 0/' \
    -e 's/^security = \["Basic256Sha256:SignAndEncrypt", /security = ["Basic256Sha256:SignAndEncrypt", "Basic256Sha256:Sign", /' \
    "$src/examples/config/roles.toml" >"$tmp/roles.toml"
grep -q '"Basic256Sha256:Sign",' "$tmp/roles.toml" || { echo "role_set_interop: FAIL: the edit of roles.toml did not apply"; exit 1; }
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
    echo "role_set_interop: FAIL: two endpoints did not listen"; cat "$tmp/server.out" "$tmp/server.err"; exit 1
fi
node_pki="$tmp/node-pki"
mkdir -p "$node_pki/trusted/certs"
cp "$tmp"/pki/own/certs/*.der "$node_pki/trusted/certs/"
timeout -k 5 150 node "$here/node_role_set.js" --floor "${urls[0]}" --eng "${urls[1]}" --pki "$node_pki" \
    --cert "$tmp/certs/client/cert.pem" --key "$tmp/certs/client/key.pem" >"$tmp/role_set.out" 2>"$tmp/role_set.err"
status=$?
cat "$tmp/role_set.out"
if [ "$status" -ne 0 ]; then
    tail -n 20 "$tmp/role_set.err"; tail -n 20 "$tmp/server.err"
    echo "role_set_interop: FAIL (exit $status)"; exit 1
fi
grep -q "AddIdentity on Engineer by user 'admin'" "$tmp/server.err" && grep -q "AddRole on RoleSet by user 'admin'" "$tmp/server.err" ||
    { echo "role_set_interop: FAIL: the change is not in the log"; tail -n 20 "$tmp/server.err"; exit 1; }
echo "role_set_interop: PASS"
