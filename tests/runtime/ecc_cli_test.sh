#!/usr/bin/env bash
# The ECC policies through the command line (Part 6 §6.8): a real `uactor run --security ecc` and
# `uactor read --policy ECC_...` in every ECC policy and mode, Anonymous and UserName (the password
# an EccEncryptedSecret in both modes, docs/security.md); the server makes
# one certificate per curve on its first start; a client certificate of another curve than the
# policy's is refused.
#
#   ecc_cli_test.sh UACTOR
#
# The server listens on 127.0.0.1 at a port it picks. Exit 0 when all passed, 1 otherwise.
# Bounded: every command has a timeout; the server is stopped at exit.
set -u
uactor="${1:?usage: ecc_cli_test.sh UACTOR}"
tmp="$(mktemp -d)"
server_pid=""
stop_server() {
    [ -n "$server_pid" ] || return 0
    kill "$server_pid" 2>/dev/null
    for _ in $(seq 20); do kill -0 "$server_pid" 2>/dev/null || break; sleep 0.25; done
    kill -9 "$server_pid" 2>/dev/null
    wait "$server_pid" 2>/dev/null
    server_pid=""
}
trap 'stop_server; rm -rf "$tmp"' EXIT
failures=0
fail() { echo "FAIL $*"; failures=$((failures + 1)); }
pass() { echo "ok   $*"; }

curves="nistP256 nistP384 brainpoolP256r1 brainpoolP384r1"
trust=()
for curve in $curves; do
    "$uactor" certs create --pki "$tmp/client" --name uactor-client --curve "$curve" \
        --uri "urn:$(hostname):uactor:client" >"$tmp/create.out" 2>&1 || { cat "$tmp/create.out"; echo "FAIL certs create"; exit 1; }
    trust+=(--trust "$tmp/client/own/certs/uactor-client-ecc-$curve.der")
done

"$uactor" run --port 0 --host 127.0.0.1 --pki "$tmp/server" --security ecc --user op:op-pw "${trust[@]}" \
    >"$tmp/server.out" 2>"$tmp/server.err" </dev/null &
server_pid=$!
port=""
for _ in $(seq 300); do
    port="$(sed -n 's#^listening on opc\.tcp://[^[:space:]]*:\([0-9]*\).*#\1#p' "$tmp/server.out" | head -n 1)"
    [ -n "$port" ] && break
    kill -0 "$server_pid" 2>/dev/null || break
    sleep 0.1
done
[ -n "$port" ] || { echo "FAIL the server did not listen"; cat "$tmp/server.out" "$tmp/server.err"; exit 1; }
url="opc.tcp://127.0.0.1:$port"

for curve in $curves; do
    if [ -f "$tmp/server/own/certs/uactor-ecc-$curve.der" ]; then pass "the server made its $curve certificate"
    else fail "no $tmp/server/own/certs/uactor-ecc-$curve.der"; fi
    for mode in sign encrypt; do
        if timeout -k 5 60 "$uactor" read "$url" "ns=1;s=the.answer" --policy "ECC_$curve" --security "$mode" \
            --pki "$tmp/client" --accept-server-certificate >"$tmp/out" 2>"$tmp/err" </dev/null &&
            grep -qF "Int32 43" "$tmp/out"; then
            pass "ECC_$curve $mode, anonymous"
        else
            fail "ECC_$curve $mode, anonymous: $(cat "$tmp/out" "$tmp/err" | head -c 1500)"
        fi
        UACTOR_PASSWORD=op-pw timeout -k 5 60 "$uactor" read "$url" "ns=1;s=the.answer" --policy "ECC_$curve" \
            --security "$mode" --user op --pki "$tmp/client" --accept-server-certificate >"$tmp/out" 2>"$tmp/err" </dev/null
        rc=$?
        if [ $rc = 0 ] && grep -qF "Int32 43" "$tmp/out"; then pass "ECC_$curve $mode, UserName"
        else fail "ECC_$curve $mode, UserName: $(cat "$tmp/out" "$tmp/err" | head -c 1500)"; fi
    done
done

# A client whose nistP256 certificate is really a brainpoolP256r1 one: our client refuses to use it
# before anything is sent (the key does not fit the policy).
cp -r "$tmp/client" "$tmp/wrong"
cp "$tmp/wrong/own/certs/uactor-client-ecc-brainpoolP256r1.der" "$tmp/wrong/own/certs/uactor-client-ecc-nistP256.der"
cp "$tmp/wrong/own/private/uactor-client-ecc-brainpoolP256r1.pem" "$tmp/wrong/own/private/uactor-client-ecc-nistP256.pem"
if timeout -k 5 60 "$uactor" read "$url" "ns=1;s=the.answer" --policy ECC_nistP256 --security sign \
    --pki "$tmp/wrong" --accept-server-certificate >"$tmp/out" 2>"$tmp/err" </dev/null; then
    fail "a brainpool client certificate on ECC_nistP256 connected"
else
    pass "a brainpool client certificate on ECC_nistP256 is refused"
fi
kill -0 "$server_pid" 2>/dev/null && pass "the server still runs" || fail "the server stopped"

[ "$failures" = 0 ] || { echo "$failures failure(s)"; tail -n 30 "$tmp/server.err"; exit 1; }
echo "ecc_cli_test: ok"
