#!/usr/bin/env bash
# Push certificate management and an application file against `uactor run` with node-opcua's
# client (tests/interop/node_push_certificates.js; docs/security.md "Remote certificate
# management", docs/files.md): a user without SecurityAdmin refused every method; the TrustList
# read, a certificate added and removed; bad trust lists refused; a signing request signed by a
# test CA (openssl CLI), UpdateCertificate, ApplyChanges, bound to the session that made them; a
# session from before goes on, a new one sees the new certificate; GetCertificates; the file written
# and read back; an X509 user session closed once its certificate leaves the trust list;
# ResetToServerDefaults.
#
#   bash certmgmt_interop.sh UACTOR_BINARY
#
# Exit 0 = all passed, 77 without node, node_modules or openssl, 1 otherwise.
set -u
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
if ! command -v node >/dev/null 2>&1; then echo "skipped: node not found"; exit 77; fi
if ! command -v openssl >/dev/null 2>&1; then echo "skipped: openssl not found"; exit 77; fi
if [ ! -d "$here/node_modules" ]; then echo "skipped: $here/node_modules missing (npm ci)"; exit 77; fi
uactor="${1:?usage: certmgmt_interop.sh UACTOR_BINARY}"
tmp="$(mktemp -d)"
server_pid=""
cleanup() {
    if [ -n "$server_pid" ]; then kill -TERM "$server_pid" 2>/dev/null; wait "$server_pid" 2>/dev/null; fi
    rm -rf "$tmp"
}
trap cleanup EXIT

if ! timeout -k 5 90 node "$here/security/make_certs.js" "$tmp/certs" "client=urn:uactor:node-secure-client" \
    "other=urn:uactor:node-other" >"$tmp/certs.out" 2>&1; then
    cat "$tmp/certs.out"; echo "certmgmt_interop: FAIL: make_certs.js"; exit 1
fi
# The site CA and what it puts into the leaf certificates it signs.
openssl req -x509 -newkey rsa:2048 -nodes -keyout "$tmp/ca.key" -out "$tmp/ca.pem" -days 30 -subj "/CN=uactor interop site CA" \
    -addext "basicConstraints=critical,CA:TRUE" -addext "keyUsage=critical,keyCertSign,cRLSign" >/dev/null 2>&1 \
    || { echo "certmgmt_interop: FAIL: openssl could not make the CA"; exit 1; }
cat >"$tmp/leaf.ext" <<'EXT'
basicConstraints=critical,CA:FALSE
keyUsage=critical,digitalSignature,nonRepudiation,keyEncipherment,dataEncipherment
extendedKeyUsage=serverAuth,clientAuth
authorityKeyIdentifier=keyid
subjectKeyIdentifier=hash
EXT
# The CA's (empty) CRL: the server's own checks want one for a CA-issued certificate.
mkdir -p "$tmp/ca-db"
touch "$tmp/ca-db/index.txt"
cat >"$tmp/ca.cnf" <<CNF
[ca]
default_ca = site
[site]
database = $tmp/ca-db/index.txt
crlnumber = $tmp/ca-db/crlnumber
default_md = sha256
default_crl_days = 30
CNF
echo 01 >"$tmp/ca-db/crlnumber"
openssl ca -config "$tmp/ca.cnf" -gencrl -keyfile "$tmp/ca.key" -cert "$tmp/ca.pem" -out "$tmp/ca.crl.pem" >/dev/null 2>&1 \
    || { echo "certmgmt_interop: FAIL: openssl could not make the CA's CRL"; exit 1; }

"$uactor" hash-password admin <<<'admin-pw' >"$tmp/admin.hash" || { echo "FAIL hash-password"; exit 1; }
"$uactor" hash-password operator <<<'operator-pw' >"$tmp/operator.hash" || { echo "FAIL hash-password"; exit 1; }
admin_hash="$(cut -d: -f2- "$tmp/admin.hash")"
operator_hash="$(cut -d: -f2- "$tmp/operator.hash")"
cp "$tmp/certs/other/cert.der" "$tmp/other.der"
cp "$tmp/certs/other/key.pem" "$tmp/other.key"
cat >"$tmp/plant.toml" <<EOF2
[server]
demo = false

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
"$uactor" run --config "$tmp/plant.toml" --host 127.0.0.1 --trust "$tmp/certs/client/cert.der" \
    >"$tmp/server.out" 2>"$tmp/server.err" </dev/null &
server_pid=$!
url=""
for _ in $(seq 600); do
    url="$(sed -n 's#^listening on \(opc\.tcp://[^[:space:]]*\).*#\1#p' "$tmp/server.out" | head -n 1)"
    [ -n "$url" ] && break
    kill -0 "$server_pid" 2>/dev/null || break
    sleep 0.1
done
if [ -z "$url" ]; then echo "certmgmt_interop: FAIL: the server did not start"; cat "$tmp/server.out" "$tmp/server.err"; exit 1; fi
# The server checks the CA's revocation list for the certificate it will be given.
mkdir -p "$tmp/pki/issuers/certs" "$tmp/pki/issuers/crl"
openssl crl -in "$tmp/ca.crl.pem" -outform DER -out "$tmp/pki/issuers/crl/site-ca.crl"
# node-opcua trusts the server's certificate of now and the CA of the one to come.
node_pki="$tmp/node-pki"
mkdir -p "$node_pki/trusted/certs" "$node_pki/trusted/crl"
cp "$tmp"/pki/own/certs/*.der "$node_pki/trusted/certs/"
openssl x509 -in "$tmp/ca.pem" -outform DER -out "$node_pki/trusted/certs/site-ca.der"
openssl crl -in "$tmp/ca.crl.pem" -outform DER -out "$node_pki/trusted/crl/site-ca.crl"
timeout -k 5 150 node "$here/node_push_certificates.js" --url "$url" --pki "$node_pki" --cert "$tmp/certs/client/cert.pem" \
    --key "$tmp/certs/client/key.pem" --work "$tmp" --ca-cert "$tmp/ca.pem" --ca-key "$tmp/ca.key" \
    --file "$tmp/recipe.txt" >"$tmp/push.out" 2>"$tmp/push.err"
status=$?
cat "$tmp/push.out"
if [ "$status" -ne 0 ]; then
    tail -n 20 "$tmp/push.err"; tail -n 30 "$tmp/server.err"
    echo "certmgmt_interop: FAIL (exit $status)"; exit 1
fi
grep -q "ApplyChanges: new channels use" "$tmp/server.err" || { echo "certmgmt_interop: FAIL: no ApplyChanges line in the log"; exit 1; }
grep -q "closed after the trust list changed: the X509 user certificate" "$tmp/server.err" \
    || { echo "certmgmt_interop: FAIL: the X509 user session was not closed after the trust list changed"; exit 1; }
grep -q "is dropped with its session" "$tmp/server.err" \
    || { echo "certmgmt_interop: FAIL: no transaction dropped with its session in the log"; exit 1; }
# The channels of the removed client certificate were closed by the server's check, not by chance.
grep -q "closed after the trust list changed" "$tmp/server.err" \
    || { echo "certmgmt_interop: FAIL: no channel closed after the trust list changed"; exit 1; }
echo "certmgmt_interop: PASS"
