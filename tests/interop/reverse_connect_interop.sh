#!/usr/bin/env bash
# Reverse connect (Part 6 §7.1.3) against node-opcua 2.186, both ways, in every security mode we
# claim (None, Sign and SignAndEncrypt with Basic256Sha256):
# 1. node-opcua's server (node_secure_server.js --reverse-connect, its ReverseConnectManager)
#    dials our client's reverse listener: `uactor read|browse|subscribe --reverse-listen`.
# 2. our server (`uactor run --reverse-connect`) dials node-opcua's ClientReverseConnect
#    (node_reverse_client.js): its client reads, browses and subscribes.
# 3. the reverse connection of 2 is cut (node_reverse_client.js's relay destroys both sockets):
#    our server dials again, node-opcua's client recovers, the subscription continues.
#
#   reverse_connect_interop.sh UACTOR
#
# Trust: our client's and server's certificates go into node-opcua's trusted/certs and node-opcua's
# into ours, before anything connects (a reverse client cannot fetch the server's certificate
# first: node-opcua wants it given, ours asks over a first reverse connection).
# Exit 0 when everything passed, 77 (ctest's skip) without node, node_modules or python3, 1
# otherwise. Bounded: every process has a timeout; the node server exits by itself after 240 s.
set -u
uactor="${1:?usage: reverse_connect_interop.sh UACTOR}"
# Absolute: our servers run in the scratch folder (the default plant historizes into ./).
uactor="$(cd "$(dirname "$uactor")" && pwd)/$(basename "$uactor")"
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
if ! command -v node >/dev/null 2>&1; then echo "skipped: node missing"; exit 77; fi
if [ ! -d "$here/node_modules" ]; then echo "skipped: node_modules missing"; exit 77; fi
if ! command -v python3 >/dev/null 2>&1; then echo "skipped: python3 missing"; exit 77; fi
tmp="$(mktemp -d)"
pids=()
cleanup() {
    local p
    for p in "${pids[@]}"; do kill "$p" 2>/dev/null; done
    for p in "${pids[@]}"; do
        for _ in 1 2 3 4 5 6 7 8 9 10; do kill -0 "$p" 2>/dev/null || break; sleep 0.5; done
        kill -9 "$p" 2>/dev/null
        wait "$p" 2>/dev/null
    done
    if [ -n "${UACTOR_KEEP_TMP:-}" ]; then echo "reverse_connect_interop: kept $tmp"; else rm -rf "$tmp"; fi
}
trap cleanup EXIT
trap 'echo "reverse_connect_interop: interrupted"; exit 1' INT TERM
die() { echo "reverse_connect_interop: FAIL: $*"; exit 1; }
failures=0
fail() { echo "FAIL $*"; failures=$((failures + 1)); }
pass() { echo "ok   $*"; }
expect() {  # expect NAME TEXT COMMAND...: exit 0 and TEXT in its output
    local name="$1" text="$2"
    shift 2
    timeout -k 5 60 "$@" >"$tmp/out" 2>"$tmp/err" </dev/null
    local rc=$?
    if [ "$rc" -ne 0 ]; then
        fail "$name: exit $rc; stdout: $(head -c 1500 "$tmp/out"); stderr: $(tail -c 1500 "$tmp/err")"
    elif grep -qF -- "$text" "$tmp/out"; then pass "$name"
    else fail "$name: no '$text' in: $(head -c 1500 "$tmp/out")"; fi
}
der_of() { openssl x509 -in "$1" -outform der -out "$2"; }
# A port on 127.0.0.1 that was free a moment ago: node-opcua's server is told where to dial before
# our CLI listens, and each CLI command listens anew.
free_port() { python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])'; }

host="$(hostname)"
client_pki="$tmp/client-pki"
timeout 60 "$uactor" certs create --pki "$client_pki" --name uactor-client --uri "urn:$host:uactor:client" \
    >"$tmp/create.out" 2>&1 || { cat "$tmp/create.out"; die "uactor certs create"; }
timeout -k 5 90 node "$here/security/make_certs.js" "$tmp/certs" "client=urn:uactor:node-secure-client" \
    >"$tmp/certs.out" 2>"$tmp/certs.err" || { cat "$tmp/certs.err"; die "make_certs.js"; }

# ---- 1. node-opcua's server dials our client
port="$(free_port)"
coproc NODE_SERVER {
    exec timeout -k 5 240 node "$here/node_secure_server.js" --pki "$tmp/node" \
        --trust "$client_pki/own/certs/uactor-client.der" --reverse-connect "opc.tcp://127.0.0.1:$port" \
        --max-seconds 230 2>"$tmp/node-server.err"
}
pids+=("$NODE_SERVER_PID")
line=""
read -r -t 90 line <&"${NODE_SERVER[0]}" || { tail -n 20 "$tmp/node-server.err"; die "node_secure_server.js did not say it listens within 90 s"; }
case "$line" in "listening on "*) ;; *) die "unexpected first line: $line" ;; esac
node_uri="urn:$host:uactor:node-secure-server"
mkdir -p "$client_pki/trusted/certs"
der_of "$tmp/node/PKI/own/certs/certificate.pem" "$client_pki/trusted/certs/node-secure-server.der" || die "openssl x509"
echo "reverse_connect_interop: node-opcua's server dials opc.tcp://127.0.0.1:$port"

rl=(--reverse-listen "127.0.0.1:$port" --server-uri "$node_uri" --pki "$client_pki" --timeout 30000)
for mode in none sign encrypt; do
    s=(--security "$mode")
    [ "$mode" != none ] && s+=(--policy Basic256Sha256)
    expect "1 $mode: uactor read over node-opcua's reverse connection" "Int32 43" \
        "$uactor" read - "ns=1;s=the.answer" "${rl[@]}" "${s[@]}"
    expect "1 $mode: uactor browse over node-opcua's reverse connection" "Server" \
        "$uactor" browse - "ns=0;i=85" "${rl[@]}" "${s[@]}"
    expect "1 $mode: uactor subscribe over node-opcua's reverse connection" "Demo.Dynamic.Counter" \
        "$uactor" subscribe - "ns=1;s=Demo.Dynamic.Counter" --count 2 --interval 200 "${rl[@]}" "${s[@]}"
done
# An RHE with another ServerUri is refused by our listener (docs/reverse-connect.md), and the
# command gives up at its timeout: exit 3.
timeout -k 5 60 "$uactor" read - "ns=1;s=the.answer" --reverse-listen "127.0.0.1:$port" --server-uri "urn:somebody:else" \
    --pki "$client_pki" --timeout 3000 --verbose >"$tmp/out" 2>"$tmp/err" </dev/null
rc=$?
if [ "$rc" -eq 3 ] && grep -q "closing the connection from .*ServerUri $node_uri, expected urn:somebody:else" "$tmp/err"; then pass "1: an RHE naming another ServerUri is refused (exit 3)"
else fail "1: another ServerUri: exit $rc; $(tail -c 1500 "$tmp/err")"; fi
node_server_pid="$NODE_SERVER_PID"
kill "$node_server_pid" 2>/dev/null
wait "$node_server_pid" 2>/dev/null

# ---- 2 and 3. our server dials node-opcua's client
server_pki="$tmp/server-pki"
coproc NODE_CLIENT {
    exec timeout -k 5 200 node "$here/node_reverse_client.js" --pki "$tmp/node-client" \
        --server-uri "urn:127.0.0.1:uactor:server" --server-cert "$server_pki/own/certs" \
        --cert "$tmp/certs/client/cert.pem" --key "$tmp/certs/client/key.pem" \
        --case None:None --case Basic256Sha256:Sign --case Basic256Sha256:SignAndEncrypt \
        --cut Basic256Sha256:SignAndEncrypt --timeout 180 2>"$tmp/node-client.err"
}
client_pid="$NODE_CLIENT_PID"
pids+=("$client_pid")
line=""
read -r -t 90 line <&"${NODE_CLIENT[0]}" || { tail -n 20 "$tmp/node-client.err"; die "node_reverse_client.js did not say it listens within 90 s"; }
case "$line" in "reverse listening on "*) rurl="${line#reverse listening on }" ;; *) die "unexpected first line: $line" ;; esac
echo "reverse_connect_interop: our server dials $rurl"
started_ms="$(date +%s%3N)"
set -m
cd "$tmp" || die "cd $tmp"
"$uactor" run --host 127.0.0.1 --port 0 --pki "$server_pki" --security all --trust "$tmp/certs/client/cert.der" \
    --writer-interval 200 --reverse-connect "$rurl" >"$tmp/server.out" 2>"$tmp/server.err" </dev/null &
server_pid=$!
set +m
pids+=("$server_pid")
# node_reverse_client.js prints one line per step and a verdict per case; it exits when done.
cat <&"${NODE_CLIENT[0]}" >"$tmp/client.out"
wait "$client_pid"
client_rc=$?
cat "$tmp/client.out"
for c in None:None Basic256Sha256:Sign Basic256Sha256:SignAndEncrypt Basic256Sha256:SignAndEncrypt+cut; do
    if grep -qx "case $c: ok" "$tmp/client.out"; then pass "2 node-opcua's reverse client $c: read, browse, subscribe"
    else fail "2 node-opcua's reverse client $c (exit $client_rc)"; fi
done
# The time from our server's start to node-opcua's first value read over the reverse connection
# (the first case, policy None): docs/performance.md.
first_ms="$(sed -n 's/^case None:None: ok read .*(at \([0-9]*\) ms)$/\1/p' "$tmp/client.out" | head -n 1)"
[ -n "$first_ms" ] && echo "reverse_connect_interop: measured: our server's start to node-opcua's first value: $((first_ms - started_ms)) ms"
grep -q "ok the subscription continues" "$tmp/client.out" && pass "3 after a cut our server dials again and the subscription continues" \
    || fail "3 the subscription after the cut"
if [ "$client_rc" -ne 0 ]; then
    tail -n 30 "$tmp/node-client.err"
    tail -n 30 "$tmp/server.out" "$tmp/server.err"
fi
grep -q "reverse connect: connected to $rurl" "$tmp/server.out" "$tmp/server.err" \
    && pass "our server's log says it connected" || fail "our server's log has no 'reverse connect: connected to $rurl'"

if [ "$failures" -ne 0 ]; then
    echo "reverse_connect_interop: $failures failure(s)"
    exit 1
fi
echo "reverse_connect_interop: all passed"
