#!/usr/bin/env bash
# The certificate `uactor run` makes on its first start names loopback (Part 6 §6.2.2), so that an
# engineer on the machine connects over SignAndEncrypt by 127.0.0.1 and by localhost with the host
# name check on (Part 4 §6.1.3); it names ::1 as well, and the names a plant adds (`[pki] san`). A
# certificate made earlier without them is kept, and the log says what it lacks and how to renew it.
#
#   loopback_certificate_test.sh UACTOR
#
# The server listens on 0.0.0.0 (the default) at a port it picks. Exit 0 when all passed, 1
# otherwise. Bounded: every command has a timeout; the servers are stopped at exit.
set -u
uactor="${1:?usage: loopback_certificate_test.sh UACTOR}"
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

# start_server PKI [ARGS...]: `uactor run` on every address, SignAndEncrypt only; sets $port.
start_server() {
    local pki="$1"
    shift
    "$uactor" run --port 0 --pki "$pki" --security Basic256Sha256:SignAndEncrypt "$@" \
        --trust "$tmp/client/own/certs/uactor-client.der" >"$tmp/server.out" 2>"$tmp/server.err" </dev/null &
    server_pid=$!
    port=""
    for _ in $(seq 300); do
        port="$(sed -n 's#^listening on opc\.tcp://[^[:space:]]*:\([0-9]*\).*#\1#p' "$tmp/server.out" | head -n 1)"
        [ -n "$port" ] && return 0
        kill -0 "$server_pid" 2>/dev/null || break
        sleep 0.1
    done
    echo "FAIL the server did not listen"; cat "$tmp/server.out" "$tmp/server.err"; exit 1
}

"$uactor" certs create --pki "$tmp/client" --name uactor-client --uri "urn:$(hostname):uactor:client" \
    >"$tmp/create.out" 2>&1 || { cat "$tmp/create.out"; echo "FAIL certs create"; exit 1; }

start_server "$tmp/server"
for host in 127.0.0.1 localhost; do
    if timeout -k 5 60 "$uactor" read "opc.tcp://$host:$port" "ns=1;s=the.answer" --security encrypt \
        --pki "$tmp/client" --accept-server-certificate >"$tmp/out" 2>"$tmp/err" </dev/null &&
        grep -qF "Int32 43" "$tmp/out"; then
        pass "SignAndEncrypt by $host, host name checked"
    else
        fail "SignAndEncrypt by $host: $(cat "$tmp/out" "$tmp/err" | head -c 1500)"
    fi
done
sans="$(openssl x509 -inform DER -in "$(ls "$tmp/server/own/certs/"*.der | head -n 1)" -noout -ext subjectAltName 2>&1)"
for want in "DNS:localhost" "IP Address:127.0.0.1" "IP Address:0:0:0:0:0:0:0:1"; do
    if grep -qF "$want" <<<"$sans"; then pass "the certificate names $want"; else fail "the certificate lacks $want: $sans"; fi
done
stop_server

# A plant adds names the endpoints do not show (`[pki] san`): a DNS alias and a NAT address.
printf '[pki]\nsan = ["scada.plant.example", "10.20.30.40"]\n' >"$tmp/san.toml"
start_server "$tmp/san" --config "$tmp/san.toml"
stop_server
sans="$(openssl x509 -inform DER -in "$(ls "$tmp/san/own/certs/"*.der | head -n 1)" -noout -ext subjectAltName 2>&1)"
for want in "DNS:scada.plant.example" "IP Address:10.20.30.40" "IP Address:127.0.0.1"; do
    if grep -qF "$want" <<<"$sans"; then pass "[pki] san: the certificate names $want"; else fail "[pki] san: the certificate lacks $want: $sans"; fi
done

# A certificate made before (by `uactor certs create` for one host name) is kept and the log says
# what it lacks.
"$uactor" certs create --pki "$tmp/old" --name uactor --uri "urn:$(hostname):uactor:server" --host "$(hostname)" \
    >"$tmp/create.out" 2>&1 || { cat "$tmp/create.out"; echo "FAIL certs create (old server)"; exit 1; }
before="$(sha1sum "$tmp/old/own/certs/uactor.der")"
start_server "$tmp/old"
stop_server
if [ "$before" = "$(sha1sum "$tmp/old/own/certs/uactor.der")" ]; then pass "a certificate made earlier is kept"
else fail "a certificate made earlier was replaced"; fi
if cat "$tmp/server.out" "$tmp/server.err" | grep -qE "does not name .*127\.0\.0\.1.*::1.*to renew it, move $tmp/old/own away"; then
    pass "the log says what it lacks and how to renew it"
else
    fail "no renewal hint in the log: $(grep -i certificate "$tmp/server.out" "$tmp/server.err" | head -c 1500)"
fi

if [ "$failures" -ne 0 ]; then echo "loopback_certificate: $failures failed"; exit 1; fi
echo "loopback_certificate: PASS"
