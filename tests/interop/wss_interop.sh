#!/usr/bin/env bash
# opc.wss (Part 6 §7.5, docs/wss.md) against node-opcua's client, then our command line client: `uactor run --wss-port 0` serves
# an opc.wss endpoint beside opc.tcp, and node-opcua 2.186 connects with a transport factory whose
# transport is a WebSocket of the `ws` package (tests/interop/node_wss_client.js): Read, Browse, a
# subscription's data changes and GetEndpoints, over None and over Basic256Sha256/SignAndEncrypt
# (node-opcua's certificate trusted by the server, the server's by node-opcua).
#
#   bash wss_interop.sh UACTOR_BINARY
#
# Exit 0 = all passed, 77 without node or node_modules.
set -u
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
if ! command -v node >/dev/null 2>&1; then echo "skipped: node not found"; exit 77; fi
if [ ! -d "$here/node_modules/ws" ]; then echo "skipped: $here/node_modules/ws missing (npm ci)"; exit 77; fi
uactor="${1:?usage: wss_interop.sh UACTOR_BINARY}"
tmp="$(mktemp -d)"
server_pid=""
cleanup() {
    if [ -n "$server_pid" ]; then kill -TERM "$server_pid" 2>/dev/null; wait "$server_pid" 2>/dev/null; fi
    rm -rf "$tmp"
}
trap cleanup EXIT

client_uri="urn:uactor:node-secure-client"
if ! timeout -k 5 90 node "$here/security/make_certs.js" "$tmp/certs" "client=$client_uri" >"$tmp/certs.out" 2>&1; then
    cat "$tmp/certs.out"; echo "wss_interop: FAIL: make_certs.js"; exit 1
fi
(cd "$tmp" && UACTOR_PKI="$tmp/pki" exec "$uactor" run --port 0 --wss-port 0 --host 127.0.0.1 \
    --trust "$tmp/certs/client/cert.der" >"$tmp/server.out" 2>"$tmp/server.err" </dev/null) &
server_pid=$!
url=""
for _ in $(seq 600); do
    url=$(sed -n 's#^listening on \(opc\.wss://[^[:space:]]*\).*#\1#p' "$tmp/server.out" | head -n 1)
    [ -n "$url" ] && break
    kill -0 "$server_pid" 2>/dev/null || break
    sleep 0.1
done
if [ -z "$url" ]; then echo "wss_interop: FAIL: no opc.wss endpoint listened"; cat "$tmp/server.out" "$tmp/server.err"; exit 1; fi
node_pki="$tmp/node-pki"
mkdir -p "$node_pki/trusted/certs"
cp "$tmp"/pki/own/certs/*.der "$node_pki/trusted/certs/"
timeout -k 5 120 node "$here/node_wss_client.js" --url "$url" --pki "$node_pki" \
    --cert "$tmp/certs/client/cert.pem" --key "$tmp/certs/client/key.pem" \
    --server-cert "$(ls "$tmp"/pki/own/certs/*.der | head -n 1)" >"$tmp/client.out" 2>"$tmp/client.err"
status=$?
cat "$tmp/client.out"
if [ "$status" -ne 0 ]; then
    tail -n 20 "$tmp/client.err"; tail -n 20 "$tmp/server.err"
    echo "wss_interop: FAIL (exit $status)"; exit 1
fi
# Our own command line client over the same endpoint, with each of its transports (docs/decisions/0077):
# the server's TLS certificate trusted in its PKI (checked, host included), and with None.
cli_pki="$tmp/cli-pki"
mkdir -p "$cli_pki/trusted/certs"
cp "$tmp"/pki/own/certs/*.der "$cli_pki/trusted/certs/"
for t in native door; do
    if ! out=$(UACTOR_WSS_CLIENT_TRANSPORT=$t timeout -k 5 60 "$uactor" read "$url" 'i=2258' --pki "$cli_pki" 2>"$tmp/cli.err"); then
        cat "$tmp/cli.err"; echo "wss_interop: FAIL: uactor read over opc.wss ($t client)"; exit 1
    fi
    echo "uactor read over opc.wss ($t client): $out"
    case "$out" in *Good*|*20[0-9][0-9]-*) ;; *) echo "wss_interop: FAIL: no value ($t client)"; exit 1 ;; esac
done
echo "wss_interop: PASS"
