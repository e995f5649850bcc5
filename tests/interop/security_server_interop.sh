#!/usr/bin/env bash
# node-opcua's client against our server with security (Part 4 §5.5, §6.1.3, §7.41; Part 6 §6.7):
# every policy x mode, anonymous, UserName and X509 identities, and the refusals, over real
# sockets.
#
#   bash security_server_interop.sh UACTOR_BINARY
#
# 1. security/make_certs.js (node-opcua-pki) makes, in one process: the node client's application
#    certificate, one nobody trusts, an expired one, one whose ApplicationUri is not the one the
#    client says in CreateSession, and an X509 user certificate.
# 2. `uactor run --pki DIR --trust ...` trusts the client, expired, wrong-uri and user certificates
#    (so that each refusal is for the property under test, not for trust); the server's own
#    certificate (made on its first start) goes into the node client's trusted/certs.
# 3. node_secure_client.js --batch runs every case in one node process (loading node-opcua takes
#    seconds on a busy machine); each case says `ok` or `FAIL`. node_session_takeover.js then tries
#    to take a session over from other channels (docs/decisions/0045).
# 4. The server's side of the refusals: the refused certificates are in its rejected/certs, and
#    its log names the failed check.
#
# Exit 0 = every case passed, 77 (ctest's skip) without node or tests/interop/node_modules, 1 on
# any failure. Bounded: each step has a timeout, the server is killed (its process group) at exit.
set -u

here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
if ! command -v node >/dev/null 2>&1; then echo "skipped: node not found"; exit 77; fi
if [ ! -d "$here/node_modules" ]; then echo "skipped: $here/node_modules missing (npm ci)"; exit 77; fi
uactor_bin="${1:?usage: security_server_interop.sh UACTOR_BINARY}"
if [ ! -x "$uactor_bin" ]; then echo "security_server_interop: $uactor_bin is not an executable" >&2; exit 1; fi

tmp="$(mktemp -d)"
server_pid=""
cleanup() {
    if [ -n "$server_pid" ]; then
        kill -TERM -- "-$server_pid" 2>/dev/null
        for _ in 1 2 3 4 5 6 7 8 9 10; do kill -0 "$server_pid" 2>/dev/null || break; sleep 0.5; done
        kill -KILL -- "-$server_pid" 2>/dev/null
        wait "$server_pid" 2>/dev/null
    fi
    if [ -n "${UACTOR_KEEP_TMP:-}" ]; then echo "security_server_interop: kept $tmp"; else rm -rf "$tmp"; fi
}
trap cleanup EXIT
trap 'echo "security_server_interop: interrupted"; exit 1' INT TERM

failures=0
fail() { echo "FAIL $*"; failures=$((failures + 1)); }
pass() { echo "ok   $*"; }
show_server_log() {
    echo "--- server stdout and stderr (last lines):"
    tail -n 30 "$tmp/server.out"
    tail -n 30 "$tmp/server.err"
    echo "---"
}

client_uri="urn:uactor:node-secure-client"
certs="$tmp/certs"
echo "security_server_interop: making certificates (node-opcua-pki)"
if ! timeout -k 5 90 node "$here/security/make_certs.js" "$certs" \
        "client=$client_uri" \
        "other=$client_uri" \
        "untrusted=$client_uri" \
        "expired=$client_uri,2020-01-01T00:00:00Z,1" \
        "wronguri=urn:uactor:somebody-else" \
        "user=urn:uactor:user1" \
        "stranger=urn:uactor:stranger" >"$tmp/certs.out" 2>"$tmp/certs.err"; then
    cat "$tmp/certs.out" "$tmp/certs.err"
    echo "security_server_interop: FAIL: make_certs.js"
    exit 1
fi

server_pki="$tmp/server-pki"
set -m  # the server gets its own process group: cleanup kills whatever it started
"$uactor_bin" run --host 127.0.0.1 --port 0 --pki "$server_pki" --security all --profile interop \
    --trust "$certs/client/cert.der" --trust "$certs/other/cert.der" --trust "$certs/expired/cert.der" \
    --trust "$certs/wronguri/cert.der" \
    --trust "$certs/user/cert.der" >"$tmp/server.out" 2>"$tmp/server.err" </dev/null &
server_pid=$!
set +m

endpoint=""
deadline=$((SECONDS + 31))
while [ "$SECONDS" -lt "$deadline" ]; do
    endpoint="$(sed -n 's#^listening on \(opc\.tcp://[^[:space:]]*\).*#\1#p' "$tmp/server.out" | head -n 1)"
    [ -n "$endpoint" ] && break
    if ! kill -0 "$server_pid" 2>/dev/null; then
        wait "$server_pid"
        echo "security_server_interop: FAIL: the server exited (status $?) before it listened"
        show_server_log
        exit 1
    fi
    sleep 0.1
done
if [ -z "$endpoint" ]; then
    echo "security_server_interop: FAIL: no 'listening on' line within 30 s"
    show_server_log
    exit 1
fi
echo "security_server_interop: uactor listens on $endpoint"

# The node client trusts our server's certificate (made on its first start).
node_pki="$tmp/node-pki"
mkdir -p "$node_pki/trusted/certs"
server_certs=("$server_pki"/own/certs/*.der)
if [ ! -f "${server_certs[0]}" ]; then
    echo "security_server_interop: FAIL: no certificate in $server_pki/own/certs"
    exit 1
fi
cp "${server_certs[@]}" "$node_pki/trusted/certs/"

c="--cert $certs/client/cert.pem --key $certs/client/key.pem"
x509="--x509 $certs/user/cert.pem $certs/user/key.pem"
b=Basic256Sha256 a=Aes128_Sha256_RsaOaep p=Aes256_Sha256_RsaPss
cat >"$tmp/batch.txt" <<EOF
# every policy x mode, anonymous
$b-sign-anonymous          --policy $b --mode Sign $c
$b-encrypt-anonymous       --policy $b --mode SignAndEncrypt $c
$a-sign-anonymous          --policy $a --mode Sign $c
$a-encrypt-anonymous       --policy $a --mode SignAndEncrypt $c
$p-sign-anonymous          --policy $p --mode Sign $c
$p-encrypt-anonymous       --policy $p --mode SignAndEncrypt $c
# UserName (the password encrypted with the server's key, Part 4 §7.41.2.2) and X509 per policy
$b-sign-user1              --policy $b --mode Sign $c --user user1 --password password
$a-encrypt-user1           --policy $a --mode SignAndEncrypt $c --user user1 --password password
$p-sign-user1              --policy $p --mode Sign $c --user user1 --password password
$b-encrypt-x509            --policy $b --mode SignAndEncrypt $c $x509
$a-sign-x509               --policy $a --mode Sign $c $x509
$p-encrypt-x509            --policy $p --mode SignAndEncrypt $c $x509
# refusals. UserName over None: the None endpoint offers no UserName token policy, so the
# client is made to send one anyway; Bad_IdentityTokenInvalid or _Rejected (both substrings).
untrusted-client-cert      --policy $b --mode SignAndEncrypt --cert $certs/untrusted/cert.pem --key $certs/untrusted/key.pem --expect-fail BadSecurityChecksFailed --expect-step connect
wrong-password             --policy $p --mode SignAndEncrypt $c --user user1 --password wrong --expect-fail BadUserAccessDenied --expect-step session
expired-client-cert        --policy $a --mode SignAndEncrypt --cert $certs/expired/cert.pem --key $certs/expired/key.pem --expect-fail BadSecurityChecksFailed --expect-step connect
application-uri-mismatch   --policy $b --mode Sign --cert $certs/wronguri/cert.pem --key $certs/wronguri/key.pem --session-application-uri $client_uri --expect-fail BadCertificateUriInvalid --expect-step session
untrusted-x509-user        --policy $b --mode SignAndEncrypt $c --x509 $certs/stranger/cert.pem $certs/stranger/key.pem --expect-fail BadIdentityTokenRejected --expect-step session
username-over-none         --policy None --mode None --user user1 --password password --pretend-user-token-policy username --expect-fail BadIdentityToken --expect-step session
EOF

echo "security_server_interop: node_secure_client.js --batch ($(grep -c '^[A-Za-z]' "$tmp/batch.txt") cases)"
batch_status=0
timeout -k 5 150 node "$here/node_secure_client.js" --endpoint "$endpoint" --pki "$node_pki" --timeout 30 \
    --batch "$tmp/batch.txt" >"$tmp/client.out" 2>"$tmp/client.err" || batch_status=$?
cat "$tmp/client.out"
# Each case's verdict: its last line is `ok all steps`, `ok failed as expected` or a FAIL.
while read -r name _; do
    case "$name" in ''|'#'*) continue ;; esac
    if grep -q "^case $name: FAIL" "$tmp/client.out"; then
        fail "$name"
    elif grep -qE "^case $name: ok (all steps|failed as expected)" "$tmp/client.out"; then
        pass "$name"
    else
        fail "$name: no verdict (node_secure_client.js exit $batch_status)"
    fi
done <"$tmp/batch.txt"
if [ "$batch_status" -ne 0 ] && [ "$failures" -eq 0 ]; then
    fail "node_secure_client.js exited with $batch_status"
    tail -n 20 "$tmp/client.err"
fi

# Session takeovers (docs/decisions/0045): other clients' channels with the session's token.
echo "security_server_interop: node_session_takeover.js"
takeover_status=0
timeout -k 5 150 node "$here/node_session_takeover.js" --endpoint "$endpoint" --pki "$node_pki" --timeout 120 \
    --cert "$certs/client/cert.pem" --key "$certs/client/key.pem" \
    --other-cert "$certs/other/cert.pem" --other-key "$certs/other/key.pem" \
    >"$tmp/takeover.out" 2>"$tmp/takeover.err" || takeover_status=$?
cat "$tmp/takeover.out"
if [ "$takeover_status" -ne 0 ]; then
    fail "node_session_takeover.js (exit $takeover_status)"
    tail -n 20 "$tmp/takeover.err"
fi

# The server's side of the refusals.
in_rejected() {  # in_rejected NAME: is certs/NAME/cert.der, byte for byte, in the server's rejected/certs?
    local f
    for f in "$server_pki"/rejected/certs/*; do
        [ -f "$f" ] && cmp -s "$f" "$certs/$1/cert.der" && return 0
    done
    return 1
}
if in_rejected untrusted; then pass "the untrusted client certificate is in the server's rejected/certs"
else fail "the untrusted client certificate is not in $server_pki/rejected/certs: $(ls "$server_pki/rejected/certs" 2>&1)"; fi
if in_rejected stranger; then pass "the untrusted X509 user certificate is in the server's rejected/certs"
else fail "the untrusted X509 user certificate is not in $server_pki/rejected/certs"; fi
# pki_store copies to rejected/ only what an operator could trust: not a certificate that is
# trusted already and failed another check (security/pki_store.cpp, validate()).
if in_rejected expired; then fail "the expired (trusted) client certificate was copied to rejected/certs"
else pass "the expired (trusted) client certificate is not copied to rejected/certs"; fi

# The log (spdlog; stdout today) names each failed check.
log="$tmp/server.log"
cat "$tmp/server.out" "$tmp/server.err" >"$log"
log_names() {  # log_names WHAT PATTERN
    if grep -qiE -- "$2" "$log"; then pass "the server's log names $1"
    else fail "the server's log does not name $1 (no line matching: $2)"; fi
}
log_names "the wrong password" "wrong user name or password for user 'user1'"
log_names "the untrusted X509 user (trust list check)" "X509 user certificate failed the trust list check"
log_names "the ApplicationUri mismatch" "CreateSession refused: ApplicationUri"
log_names "a refused takeover with both channels and both identities" \
    "ActivateSession refused: session ns=1;i=[0-9]+ of channel [0-9]+ \(Basic256Sha256:SignAndEncrypt, user 'user1'\) asked for from channel [0-9]+ \(None, no certificate\) with an anonymous token"
log_names "the legitimate move" "session ns=1;i=[0-9]+ moved from channel [0-9]+ \(Basic256Sha256:SignAndEncrypt\) to channel [0-9]+ \(Basic256Sha256:SignAndEncrypt, .*user 'user1' on both"
log_names "the change of user" "identity anonymous \(urn:uactor:node-secure-client\) replaces user 'user1'"
# The OPN refusals: the wire says only BadSecurityChecksFailed, the log names the check.
opn_log() {  # opn_log WHAT NAME PATTERN: a line with the certificate's thumbprint and PATTERN
    local tp
    tp="$(openssl x509 -inform DER -in "$certs/$2/cert.der" -noout -fingerprint -sha1 | sed 's/.*=//; s/://g')"
    if grep -i -- "$tp" "$log" | grep -qiE -- "$3"; then pass "the server's log names $1"
    else fail "the server's log does not name $1 (no line with $tp and: $3)"; fi
}
opn_log "the OPN's trust list check" untrusted "trust list|not trusted"
opn_log "the OPN's validity period check" expired "validity period|expired"

if ! kill -0 "$server_pid" 2>/dev/null; then
    wait "$server_pid"
    fail "the server exited by itself (status $?) during the cases"
fi

if [ "$failures" -ne 0 ]; then
    show_server_log
    echo "security_server_interop: $failures failed"
    exit 1
fi
echo "security_server_interop: PASS"
exit 0
