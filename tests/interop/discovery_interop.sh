#!/usr/bin/env bash
# Discovery (Part 12 §4.3; Part 4 §5.4.2, §5.4.3, §5.4.5, §5.4.6) against node-opcua 2.186, both
# ways; docs/discovery.md:
# 1. our server as the LDS (`[discovery] lds = true`): node-opcua's server (node_secure_server.js
#    --register-with, registerServerMethod LDS) registers over a secured channel with its own
#    certificate; `uactor discover` before (the LDS only), during (the node server, and its
#    FindServersOnNetwork record), after its shutdown (gone: it sent IsOnline false).
# 2. node-opcua's LDS (node-opcua-server-discovery, node_lds.js): our server
#    (`[discovery] register_with`) registers with RegisterServer2; `uactor discover` against it
#    before, during, after our server's shutdown.
# Trust in both PKIs: each side's certificate goes into the other's trusted/ before it connects.
#
#   discovery_interop.sh UACTOR
#
# Exit 0 when everything passed, 77 (ctest's skip) without node, node_modules or openssl, 1
# otherwise. Bounded: every process has a timeout; the node processes exit by themselves.
set -u
uactor="${1:?usage: discovery_interop.sh UACTOR}"
# Absolute: our servers run in the scratch folder (the default plant historizes into ./).
uactor="$(cd "$(dirname "$uactor")" && pwd)/$(basename "$uactor")"
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
if ! command -v node >/dev/null 2>&1; then echo "skipped: node missing"; exit 77; fi
if [ ! -d "$here/node_modules/node-opcua-server-discovery" ]; then echo "skipped: node_modules missing"; exit 77; fi
if ! command -v openssl >/dev/null 2>&1; then echo "skipped: openssl missing"; exit 77; fi
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
    if [ -n "${UACTOR_KEEP_TMP:-}" ]; then echo "discovery_interop: kept $tmp"; else rm -rf "$tmp"; fi
}
trap cleanup EXIT
trap 'echo "discovery_interop: interrupted"; exit 1' INT TERM
die() { echo "discovery_interop: FAIL: $*"; exit 1; }
failures=0
fail() { echo "FAIL $*"; failures=$((failures + 1)); }
pass() { echo "ok   $*"; }
host="$(hostname)"

# wait_for_listening FILE PID WHAT: the URL of the `listening on URL` line, within 90 s.
wait_for_listening() {
    local file="$1" pid="$2" what="$3" url="" deadline=$((SECONDS + 90))
    while [ "$SECONDS" -lt "$deadline" ]; do
        url="$(sed -n 's#^listening on \(opc\.tcp://[^[:space:]]*\).*#\1#p' "$file" 2>/dev/null | head -n 1)"
        [ -n "$url" ] && { echo "$url"; return 0; }
        kill -0 "$pid" 2>/dev/null || break
        sleep 0.2
    done
    return 1
}
# discover URL: `uactor discover` into $tmp/discover.out; exit status kept in $discover_rc.
discover() {
    timeout -k 5 30 "$uactor" discover "$1" --timeout 5000 >"$tmp/discover.out" 2>"$tmp/discover.err" </dev/null
    discover_rc=$?
}
# until_listed URL URI SECONDS [absent]: polls `uactor discover` until URI is listed (or gone).
until_listed() {
    local deadline=$((SECONDS + $3))
    while [ "$SECONDS" -lt "$deadline" ]; do
        discover "$1"
        if [ "${4:-}" = absent ]; then
            [ "$discover_rc" -eq 0 ] && ! grep -qF "$2" "$tmp/discover.out" && return 0
        else
            grep -qF "$2" "$tmp/discover.out" && return 0
        fi
        sleep 0.5
    done
    return 1
}
der_of() { openssl x509 -in "$1" -outform der -out "$2"; }

# ---- 1. our LDS, node-opcua's server registering
node_uri="urn:$host:uactor:node-secure-server"
# The node server's certificate made beforehand (node-opcua-pki), so that our LDS trusts it from
# the start; node_secure_server.js keeps an own/certs/certificate.pem it finds.
timeout -k 5 90 node "$here/security/make_certs.js" "$tmp/node-server" "PKI=$node_uri" \
    >"$tmp/certs.out" 2>"$tmp/certs.err" || { cat "$tmp/certs.err"; die "make_certs.js"; }
mkdir -p "$tmp/node-server/PKI/own/certs"
cp "$tmp/node-server/PKI/cert.pem" "$tmp/node-server/PKI/own/certs/certificate.pem"

printf '[discovery]\nlds = true\nexpiry_s = 120\n' >"$tmp/lds.toml"
lds_pki="$tmp/lds-pki"
cd "$tmp" || die "cd $tmp"
set -m
timeout -k 5 200 "$uactor" run --config "$tmp/lds.toml" --host 127.0.0.1 --port 0 --pki "$lds_pki" --security all \
    --trust "$tmp/node-server/PKI/cert.der" >"$tmp/lds.out" 2>"$tmp/lds.err" </dev/null &
lds_pid=$!
set +m
pids+=("$lds_pid")
lds_url="$(wait_for_listening "$tmp/lds.out" "$lds_pid" "our LDS")" || { tail -n 20 "$tmp/lds.out" "$tmp/lds.err"; die "our LDS did not listen"; }
echo "discovery_interop: our LDS at $lds_url"
lds_uri="$(sed -n 's#^application uri *\([^[:space:]]*\)$#\1#p' "$tmp/lds.out" | head -n 1)"

discover "$lds_url"
if [ "$discover_rc" -eq 0 ] && grep -qF "server	$lds_uri" "$tmp/discover.out" && ! grep -qF "$node_uri" "$tmp/discover.out"; then
    pass "1 before: our LDS lists itself only"
else fail "1 before: exit $discover_rc: $(cat "$tmp/discover.out" "$tmp/discover.err")"; fi
grep -qE "^record	[0-9]+	.*	LDS$" "$tmp/discover.out" && pass "1 before: its own FindServersOnNetwork record (LDS)" \
    || fail "1 before: no LDS record: $(cat "$tmp/discover.out")"

lds_cert=("$lds_pki"/own/certs/*.der)
[ -f "${lds_cert[0]}" ] || die "no certificate in $lds_pki/own/certs"
coproc NODE_SERVER {
    exec timeout -k 5 120 node "$here/node_secure_server.js" --pki "$tmp/node-server" --trust "${lds_cert[0]}" \
        --register-with "$lds_url" --max-seconds 110 2>"$tmp/node-server.err"
}
node_pid="$NODE_SERVER_PID"
pids+=("$node_pid")
line=""
read -r -t 90 line <&"${NODE_SERVER[0]}" || { tail -n 20 "$tmp/node-server.err"; die "node_secure_server.js did not listen"; }
node_url="${line#listening on }"
echo "discovery_interop: node-opcua's server at $node_url registers"
if until_listed "$lds_url" "$node_uri" 60; then
    pass "1 during: node-opcua's server is registered (FindServers)"
    grep -F "server	$node_uri" "$tmp/discover.out" | grep -qF "$node_url" && pass "1 during: with its DiscoveryUrl $node_url" \
        || fail "1 during: its DiscoveryUrl: $(cat "$tmp/discover.out")"
    grep -qE "^record	[0-9]+	$node_uri	opc\.tcp://[^	]*	" "$tmp/discover.out" \
        && pass "1 during: its FindServersOnNetwork record (RegisterServer2's mDNS name)" \
        || fail "1 during: no record: $(cat "$tmp/discover.out")"
else
    fail "1 during: node-opcua's server not registered within 60 s: $(cat "$tmp/discover.out")"
    tail -n 20 "$tmp/node-server.err" "$tmp/lds.out"
fi
kill -TERM "$node_pid" 2>/dev/null
wait "$node_pid" 2>/dev/null
if until_listed "$lds_url" "$node_uri" 30 absent; then pass "1 after: gone once node-opcua's server shut down (IsOnline false)"
else fail "1 after: still listed: $(cat "$tmp/discover.out")"; fi
kill -TERM "$lds_pid" 2>/dev/null
wait "$lds_pid" 2>/dev/null

# ---- 2. node-opcua's LDS, our server registering
server_pki="$tmp/server-pki"
# `uactor run --host 127.0.0.1` makes the ApplicationUri urn:127.0.0.1:uactor:server; the
# certificate made beforehand names it (Part 4 §5.4.5: the LDS compares the two).
server_uri="urn:127.0.0.1:uactor:server"
timeout 60 "$uactor" certs create --pki "$server_pki" --name uactor --uri "$server_uri" \
    >"$tmp/create.out" 2>&1 || { cat "$tmp/create.out"; die "uactor certs create"; }
coproc NODE_LDS {
    exec timeout -k 5 150 node "$here/node_lds.js" --pki "$tmp/node-lds" --trust "$server_pki/own/certs/uactor.der" \
        --max-seconds 140 2>"$tmp/node-lds.err"
}
nlds_pid="$NODE_LDS_PID"
pids+=("$nlds_pid")
line=""
read -r -t 90 line <&"${NODE_LDS[0]}" || { tail -n 20 "$tmp/node-lds.err"; die "node_lds.js did not listen"; }
nlds_url="${line#listening on }"
echo "discovery_interop: node-opcua's LDS at $nlds_url"
mkdir -p "$server_pki/trusted/certs"
der_of "$tmp/node-lds/own/certs/certificate.pem" "$server_pki/trusted/certs/node-lds.der" || die "openssl x509"

discover "$nlds_url"
if [ "$discover_rc" -eq 0 ] && ! grep -qF "$server_uri" "$tmp/discover.out"; then pass "2 before: node-opcua's LDS does not list our server"
else fail "2 before: exit $discover_rc: $(cat "$tmp/discover.out" "$tmp/discover.err")"; fi

printf '[discovery]\nregister_with = "%s"\nsecurity = "encrypt"\ncapabilities = ["DA"]\n' "$nlds_url" >"$tmp/register.toml"
set -m
timeout -k 5 120 "$uactor" run --config "$tmp/register.toml" --host 127.0.0.1 --port 0 --pki "$server_pki" \
    >"$tmp/server.out" 2>"$tmp/server.err" </dev/null &
server_pid=$!
set +m
pids+=("$server_pid")
server_url="$(wait_for_listening "$tmp/server.out" "$server_pid" "our server")" || { tail -n 20 "$tmp/server.out" "$tmp/server.err"; die "our server did not listen"; }
if until_listed "$nlds_url" "$server_uri" 60; then
    pass "2 during: node-opcua's LDS lists our server"
    grep -F "server	$server_uri" "$tmp/discover.out" | grep -qF "$server_url" && pass "2 during: with its DiscoveryUrl $server_url" \
        || fail "2 during: its DiscoveryUrl: $(cat "$tmp/discover.out")"
else
    fail "2 during: not registered within 60 s: $(cat "$tmp/discover.out")"
    tail -n 20 "$tmp/server.out" "$tmp/server.err" "$tmp/node-lds.err"
fi
grep -q "discovery: registered with $nlds_url (RegisterServer2)" "$tmp/server.out" "$tmp/server.err" \
    && pass "2 our log: registered with RegisterServer2" || fail "2 our log has no 'discovery: registered with $nlds_url (RegisterServer2)'"
kill -TERM "$server_pid" 2>/dev/null
wait "$server_pid" 2>/dev/null
if until_listed "$nlds_url" "$server_uri" 30 absent; then pass "2 after: gone once our server shut down (IsOnline false)"
else fail "2 after: still listed: $(cat "$tmp/discover.out")"; fi
grep -q "discovery: unregistered from $nlds_url" "$tmp/server.out" "$tmp/server.err" \
    && pass "2 our log: unregistered" || fail "2 our log has no 'discovery: unregistered from $nlds_url'"

if [ "$failures" -ne 0 ]; then
    echo "discovery_interop: $failures failure(s)"
    exit 1
fi
echo "discovery_interop: all passed"
