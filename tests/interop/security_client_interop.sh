#!/usr/bin/env bash
# Our client with security against a node-opcua server (tests/interop/node_secure_server.js):
# lays out the PKI folders, starts the server, runs the hidden Catch2 tests "[interop_security]"
# (security_client_interop_test.cpp: every policy x mode, anonymous, UserName and X509 users;
# an untrusted server certificate, a wrong password, a client certificate node-opcua does not
# trust), and stops the server whatever happens.
#
#   security_client_interop.sh UACTOR_TESTS UACTOR
#
# Folders (under a temporary directory):
#   pki/         our PKI: own/ made by `uactor certs create` (the name and ApplicationUri the
#                client uses, urn:<host>:uactor:client) and trusted by node-opcua; the server's
#                certificate trusted with `uactor certs trust`
#   untrusting/  the same own/, nothing trusted
#   stranger/    the server's certificate trusted, no own/: the client makes its certificate on
#                first use, and node-opcua has never seen it
#   certs/user/  an X509 user (node-opcua-pki) the server trusts (UserPKI)
#   node/        the node-opcua server's PKI and UserPKI
#
# Exit 0 when everything passed, 77 (ctest's skip) without node or node_modules, 1 otherwise.
# Bounded: the server exits by itself after 240 s, each step has a timeout.
set -u

tests_bin="${1:?usage: security_client_interop.sh UACTOR_TESTS UACTOR}"
uactor_bin="${2:?usage: security_client_interop.sh UACTOR_TESTS UACTOR}"
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"

if ! command -v node >/dev/null 2>&1; then echo "skipped: node missing"; exit 77; fi
if [ ! -d "$here/node_modules" ]; then echo "skipped: node_modules missing"; exit 77; fi

tmp="$(mktemp -d)"
server_pid=""
cleanup() {
    if [ -n "$server_pid" ]; then
        kill "$server_pid" 2>/dev/null
        # SIGTERM ends it within 3 s; SIGKILL if it has not gone within 5 s.
        for _ in 1 2 3 4 5 6 7 8 9 10; do kill -0 "$server_pid" 2>/dev/null || break; sleep 0.5; done
        kill -9 "$server_pid" 2>/dev/null
        wait "$server_pid" 2>/dev/null
    fi
    if [ -n "${UACTOR_KEEP_TMP:-}" ]; then echo "security_client_interop: kept $tmp"; else rm -rf "$tmp"; fi
}
trap cleanup EXIT
trap 'echo "security_client_interop: interrupted"; exit 1' INT TERM

die() {
    echo "security_client_interop: FAIL: $*"
    [ -f "$tmp/server.err" ] && { echo "--- node_secure_server.js stderr (last lines):"; tail -n 30 "$tmp/server.err"; }
    exit 1
}

host="$(hostname)"
pki="$tmp/pki"
timeout 60 "$uactor_bin" certs create --pki "$pki" --name uactor-client --uri "urn:$host:uactor:client" \
    >"$tmp/create.out" 2>&1 || { cat "$tmp/create.out"; die "uactor certs create"; }
own_cert="$pki/own/certs/uactor-client.der"
[ -f "$own_cert" ] || die "no $own_cert after uactor certs create"
mkdir -p "$tmp/untrusting"
cp -r "$pki/own" "$tmp/untrusting/own"

timeout -k 5 90 node "$here/security/make_certs.js" "$tmp/certs" "user=urn:uactor:user1" \
    >"$tmp/certs.out" 2>"$tmp/certs.err" || { cat "$tmp/certs.err"; die "make_certs.js"; }

# Its stdout carries one line, `listening on URL`; read it as it comes.
coproc NODE_SERVER {
    exec node "$here/node_secure_server.js" --pki "$tmp/node" --trust "$own_cert" \
        --trust-user "$tmp/certs/user/cert.der" --max-seconds 240 2>"$tmp/server.err"
}
server_pid="$NODE_SERVER_PID"
line=""
read -r -t 90 line <&"${NODE_SERVER[0]}" || die "node_secure_server.js did not say it listens within 90 s"
case "$line" in
    "listening on "*) url="${line#listening on }" ;;
    *) die "unexpected first line: $line" ;;
esac
echo "security_client_interop: node-opcua server at $url"

server_cert="$tmp/node/PKI/own/certs/certificate.pem"
[ -f "$server_cert" ] || die "no $server_cert"
for dir in "$pki" "$tmp/stranger"; do
    timeout 60 "$uactor_bin" certs trust --pki "$dir" "$server_cert" >"$tmp/trust.out" 2>&1 ||
        { cat "$tmp/trust.out"; die "uactor certs trust --pki $dir"; }
done
[ -z "$(ls -A "$tmp/stranger/own/certs" 2>/dev/null)" ] || die "uactor certs trust made a certificate in $tmp/stranger/own/certs"

status=0
UACTOR_SEC_ENDPOINT="$url" UACTOR_SEC_PKI="$pki" UACTOR_SEC_PKI_UNTRUSTING="$tmp/untrusting" \
UACTOR_SEC_PKI_STRANGER="$tmp/stranger" UACTOR_SEC_SERVER_CERT="$server_cert" \
UACTOR_SEC_USER_CERT="$tmp/certs/user/cert.pem" UACTOR_SEC_USER_KEY="$tmp/certs/user/key.pem" \
    timeout -k 5 180 "$tests_bin" "[interop_security]" || status=$?
if [ "$status" -ne 0 ]; then
    echo "--- node_secure_server.js stderr (last lines):"
    tail -n 30 "$tmp/server.err"
    echo "security_client_interop: FAIL: uactor_tests [interop_security] exited with $status"
    exit 1
fi
kill -0 "$server_pid" 2>/dev/null || die "node_secure_server.js ended during the tests"
echo "security_client_interop: all passed"
exit 0
