#!/usr/bin/env bash
# `uactor certs` end to end: create (once), list, trust a rejected certificate by thumbprint
# prefix and by file, reject it again, $UACTOR_PKI as the default folder, and the exit codes
# (0 done, 1 failed, 2 usage). Usage: certs_cli_test.sh UACTOR. Exit 77 (skip) without openssl.
set -euo pipefail
uactor=${1:?usage: certs_cli_test.sh UACTOR}
command -v openssl >/dev/null || { echo "skipped: no openssl"; exit 77; }
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
pki=$work/pki
fail() { echo "FAIL: $*" >&2; exit 1; }
expect_rc() {  # expect_rc CODE COMMAND...
  local want=$1; shift
  set +e; "$@" >"$work/out" 2>"$work/err"; local rc=$?; set -e
  [[ $rc == "$want" ]] || { cat "$work/out" "$work/err" >&2; fail "$* exited $rc, expected $want"; }
}

# create: own/ made once, the thumbprint printed, the key private.
expect_rc 0 "$uactor" certs create --pki "$pki" --uri urn:test:cli --host cli-host --host 127.0.0.1
grep -q '^created .*own/certs/uactor.der' "$work/out" || fail "create did not say created"
thumb=$(grep -oE '[0-9A-F]{40}' "$work/out" | head -1)
[[ -n $thumb ]] || fail "create printed no thumbprint"
[[ $(stat -c %a "$pki/own/private/uactor.pem") == 600 ]] || fail "private key is not mode 600"
openssl x509 -inform DER -in "$pki/own/certs/uactor.der" -noout -text | grep -q 'URI:urn:test:cli' || fail "no SAN URI"
expect_rc 0 "$uactor" certs create --pki "$pki"
grep -q '^exists' "$work/out" || fail "second create did not keep the certificate"
grep -q "$thumb" "$work/out" || fail "second create changed the certificate"

# --curve: an ECC policy's certificate under the name the server looks for (Part 6 §6.8), the key on
# the curve (checked by openssl, not by uactor), signed with ECDSA-SHA384 for a 384-bit curve.
expect_rc 0 "$uactor" certs create --pki "$pki" --curve nistP256 --uri urn:test:cli
grep -q '^created .*own/certs/uactor-ecc-nistP256.der' "$work/out" || fail "create --curve did not name uactor-ecc-nistP256"
openssl x509 -inform DER -in "$pki/own/certs/uactor-ecc-nistP256.der" -noout -text | grep -q 'ASN1 OID: prime256v1' ||
  fail "the nistP256 certificate's key is not on prime256v1"
expect_rc 0 "$uactor" certs create --pki "$pki" --curve brainpoolP384r1 --uri urn:test:cli
openssl x509 -inform DER -in "$pki/own/certs/uactor-ecc-brainpoolP384r1.der" -noout -text |
  grep -q 'ecdsa-with-SHA384' || fail "the brainpoolP384r1 certificate is not signed with ECDSA-SHA384"
openssl pkey -in "$pki/own/private/uactor-ecc-brainpoolP384r1.pem" -noout -text | grep -q 'brainpoolP384r1' ||
  fail "the brainpoolP384r1 key is not on its curve"
# curve25519 / curve448 (docs/decisions/0082): Ed25519 / Ed448 keys, signed with PureEdDSA.
expect_rc 0 "$uactor" certs create --pki "$pki" --curve curve25519 --uri urn:test:cli
grep -q '^created .*own/certs/uactor-ecc-curve25519.der' "$work/out" || fail "create --curve did not name uactor-ecc-curve25519"
openssl x509 -inform DER -in "$pki/own/certs/uactor-ecc-curve25519.der" -noout -text |
  grep -q 'Signature Algorithm: ED25519' || fail "the curve25519 certificate is not signed with Ed25519"
expect_rc 0 "$uactor" certs create --pki "$pki" --curve curve448 --uri urn:test:cli
openssl pkey -in "$pki/own/private/uactor-ecc-curve448.pem" -noout -text | grep -q 'ED448' ||
  fail "the curve448 key is not an Ed448 key"
expect_rc 2 "$uactor" certs create --pki "$pki" --curve secp521r1
# The own folder now lists five certificates.
expect_rc 0 "$uactor" certs list --pki "$pki"
grep -q "^own (5)" "$work/out" || fail "list does not show the five own certificates"

# A peer's certificate, as the server copies it into rejected/certs.
openssl req -x509 -newkey rsa:2048 -nodes -keyout "$work/peer.key" -subj "/CN=peer/O=test" -days 30 \
  -addext "subjectAltName=URI:urn:test:peer" -outform DER -out "$work/peer.der" 2>/dev/null
peer=$(openssl x509 -inform DER -in "$work/peer.der" -noout -fingerprint -sha1 | sed 's/.*=//; s/://g')
cp "$work/peer.der" "$pki/rejected/certs/peer[$peer].der"
expect_rc 0 "$uactor" certs list --pki "$pki"
grep -q "^rejected (1)" "$work/out" || fail "list does not show the rejected certificate"
grep -q "$peer" "$work/out" || fail "list does not show the thumbprint"
grep -q "uri urn:test:peer" "$work/out" || fail "list does not show the URI"

# trust by a thumbprint prefix (lower case): moved from rejected/ to trusted/.
expect_rc 0 "$uactor" certs trust "$(tr 'A-F' 'a-f' <<<"${peer:0:10}")" --pki "$pki"
[[ -f "$pki/trusted/certs/peer[$peer].der" ]] || fail "trust did not write trusted/certs"
[[ ! -e "$pki/rejected/certs/peer[$peer].der" ]] || fail "trust left the file in rejected/certs"
# reject by thumbprint: back again.
expect_rc 0 "$uactor" certs reject "$peer" --pki "$pki"
[[ -f "$pki/rejected/certs/peer[$peer].der" && ! -e "$pki/trusted/certs/peer[$peer].der" ]] || fail "reject did not move it"
# trust by file.
expect_rc 0 "$uactor" certs trust "$work/peer.der" --pki "$pki"
[[ -f "$pki/trusted/certs/peer[$peer].der" ]] || fail "trust FILE did not write trusted/certs"

# $UACTOR_PKI is the default folder.
UACTOR_PKI=$pki expect_rc 0 "$uactor" certs list
grep -q "^trusted (1)" "$work/out" || fail "UACTOR_PKI was not used"

# Exit codes: usage 2, failure 1.
expect_rc 2 "$uactor" certs
expect_rc 2 "$uactor" certs list --pki "$pki" --bogus
expect_rc 2 "$uactor" certs trust --pki "$pki"
expect_rc 2 "$uactor" certs trust not-a-file-or-hex --pki "$pki"
expect_rc 1 "$uactor" certs trust ABCDEF0123 --pki "$pki"
echo "garbage" >"$work/junk.der"
expect_rc 1 "$uactor" certs trust "$work/junk.der" --pki "$pki"
echo "certs_cli_test: ok"
