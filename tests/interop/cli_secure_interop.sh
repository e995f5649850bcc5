#!/usr/bin/env bash
# The client commands (docs/cli.md) against a node-opcua server with security
# (tests/interop/node_secure_server.js: None for discovery, and each policy in Sign and
# SignAndEncrypt with anonymous, UserName user1/password and X509 users):
# - its untrusted certificate refused (exit 3) with the thumbprint and the trust command, which
#   then trusts it;
# - none (anonymous; a user refused), sign and encrypt, each with anonymous, UserName (password
#   file) and X509 identities; each policy by --policy; a wrong password (exit 3);
# - endpoints, read, write, browse, call and subscribe with --json, parsed (python3).
#
#   cli_secure_interop.sh UACTOR
#
# Exit 0 when everything passed, 77 (ctest's skip) without node, node_modules or python3, 1
# otherwise. Bounded: the server exits by itself after 200 s, each command has a timeout.
set -u
uactor="${1:?usage: cli_secure_interop.sh UACTOR}"
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
if ! command -v node >/dev/null 2>&1; then echo "skipped: node missing"; exit 77; fi
if [ ! -d "$here/node_modules" ]; then echo "skipped: node_modules missing"; exit 77; fi
if ! command -v python3 >/dev/null 2>&1; then echo "skipped: python3 missing"; exit 77; fi
tmp="$(mktemp -d)"
server_pid=""
cleanup() {
    if [ -n "$server_pid" ]; then
        kill "$server_pid" 2>/dev/null
        for _ in 1 2 3 4 5 6 7 8 9 10; do kill -0 "$server_pid" 2>/dev/null || break; sleep 0.5; done
        kill -9 "$server_pid" 2>/dev/null
        wait "$server_pid" 2>/dev/null
    fi
    if [ -n "${UACTOR_KEEP_TMP:-}" ]; then echo "cli_secure_interop: kept $tmp"; else rm -rf "$tmp"; fi
}
trap cleanup EXIT
die() {
    echo "cli_secure_interop: FAIL: $*"
    [ -f "$tmp/server.err" ] && tail -n 30 "$tmp/server.err"
    exit 1
}
failures=0
fail() { echo "FAIL $*"; failures=$((failures + 1)); }
pass() { echo "ok   $*"; }
run() {
    local name="$1" want="$2"
    shift 2
    timeout -k 5 60 "$@" >"$tmp/out" 2>"$tmp/err" </dev/null
    rc=$?
    if [ "$rc" -ne "$want" ]; then
        fail "$name: exit $rc (want $want); stdout: $(head -c 2000 "$tmp/out"); stderr: $(head -c 2000 "$tmp/err")"
        return 1
    fi
    return 0
}
expect() {
    local name="$1" want="$2" text="$3"
    shift 3
    run "$name" "$want" "$@" || return 1
    if cat "$tmp/out" "$tmp/err" | grep -qF -- "$text"; then pass "$name"
    else fail "$name: no '$text' in: $(cat "$tmp/out" "$tmp/err" | head -c 2000)"; fi
}
json() {
    if python3 - "$tmp/out" "$2" <<'PY'; then pass "$1"; else fail "$1: $(head -c 2000 "$tmp/out")"; fi
import json, sys
lines = [json.loads(l) for l in open(sys.argv[1], encoding="utf-8") if l.strip()]
assert all(isinstance(l, dict) for l in lines), "not one object per line"
exec(sys.argv[2])
PY
}

host="$(hostname)"
pki="$tmp/pki"
timeout 60 "$uactor" certs create --pki "$pki" --name uactor-client --uri "urn:$host:uactor:client" \
    >"$tmp/create.out" 2>&1 || { cat "$tmp/create.out"; die "uactor certs create"; }
timeout -k 5 90 node "$here/security/make_certs.js" "$tmp/certs" "user=urn:uactor:user1" \
    >"$tmp/certs.out" 2>"$tmp/certs.err" || { cat "$tmp/certs.err"; die "make_certs.js"; }
coproc NODE_SERVER {
    exec node "$here/node_secure_server.js" --pki "$tmp/node" --trust "$pki/own/certs/uactor-client.der" \
        --trust-user "$tmp/certs/user/cert.der" --max-seconds 200 2>"$tmp/server.err"
}
server_pid="$NODE_SERVER_PID"
line=""
read -r -t 90 line <&"${NODE_SERVER[0]}" || die "node_secure_server.js did not say it listens within 90 s"
case "$line" in
    "listening on "*) url="${line#listening on }" ;;
    *) die "unexpected first line: $line" ;;
esac
echo "cli_secure_interop: node-opcua server at $url"
thumbprint="$(python3 -c '
import base64, hashlib, sys
pem = open(sys.argv[1]).read().split("-----")[2]
print(hashlib.sha1(base64.b64decode(pem)).hexdigest().upper())' "$tmp/node/PKI/own/certs/certificate.pem")"

# ---- its certificate, untrusted, then trusted with the command the message gives
sec=(--security encrypt --pki "$pki")
if run "untrusted node-opcua certificate: exit 3" 3 "$uactor" read "$url" "ns=1;s=the.answer" "${sec[@]}"; then
    if grep -qF "thumbprint  $thumbprint" "$tmp/err"; then pass "the refusal names the thumbprint"
    else fail "the refusal: $(cat "$tmp/err")"; fi
fi
trust_line="$(grep -E '^  uactor certs trust ' "$tmp/err" | head -n 1)"
read -r -a trust_args <<<"${trust_line#  uactor }"
expect "the printed trust command" 0 "trusted" "$uactor" "${trust_args[@]}"

# ---- every mode with every identity; every policy
printf 'password\n' >"$tmp/password"
printf 'wrong\n' >"$tmp/wrong"
for mode in sign encrypt; do
    m=(--security "$mode" --pki "$pki")
    expect "$mode, anonymous" 0 "Int32 43	Good" "$uactor" read "$url" "ns=1;s=the.answer" "${m[@]}"
    expect "$mode, user1" 0 "Int32 43	Good" "$uactor" read "$url" "ns=1;s=the.answer" "${m[@]}" --user user1 --password-file "$tmp/password"
    expect "$mode, X509 user" 0 "Int32 43	Good" "$uactor" read "$url" "ns=1;s=the.answer" "${m[@]}" \
        --cert "$tmp/certs/user/cert.pem" --key "$tmp/certs/user/key.pem"
done
expect "none, anonymous (its None endpoint)" 0 "Int32 43	Good" "$uactor" read "$url" "ns=1;s=the.answer" --pki "$pki"
expect "none, user1: no UserName over None, exit 3" 3 "BadIdentityToken" "$uactor" read "$url" "ns=1;s=the.answer" --pki "$pki" \
    --user user1 --password-file "$tmp/password"
for policy in Basic256Sha256 Aes128_Sha256_RsaOaep Aes256_Sha256_RsaPss; do
    expect "--policy $policy --security sign" 0 "Int32 43" "$uactor" read "$url" "ns=1;s=the.answer" --policy "$policy" --security sign --pki "$pki"
done
expect "a wrong password: exit 3" 3 "BadUserAccessDenied" "$uactor" read "$url" "ns=1;s=the.answer" "${sec[@]}" \
    --user user1 --password-file "$tmp/wrong"

# ---- every command with --json, logged in over SignAndEncrypt
u=(--security encrypt --pki "$pki" --user user1 --password-file "$tmp/password")
run "endpoints --json" 0 "$uactor" endpoints "$url" --json &&
    json "endpoints --json: None and the three policies in both modes" "
seen = {(l['securityPolicy'], l['securityMode']) for l in lines}
for p in ('Basic256Sha256', 'Aes128_Sha256_RsaOaep', 'Aes256_Sha256_RsaPss'):
    for m in ('Sign', 'SignAndEncrypt'):
        assert (p, m) in seen, (p, m, seen)
assert ('None', 'None') in seen, seen
assert all(l['certificate']['thumbprint'] == '$thumbprint' for l in lines if l['securityMode'] != 'None'), lines
"
run "read --json" 0 "$uactor" read "$url" "ns=1;s=the.answer" "i=2256" "${u[@]}" --json &&
    json "read --json: a value and the ServerStatus structure by field" "
a, b = lines
assert a['value'] == {'type': 'Int32', 'value': 43}, a
f = b['value']['value']['fields']
assert b['value']['value']['dataType'] == 'ServerStatusDataType' and f['State'] == 0, b
assert f['CurrentTime'].endswith('Z') and 'ProductName' in f['BuildInfo']['fields'], b
"
expect "write" 0 "Good" "$uactor" write "$url" "ns=1;s=Demo.Static.Scalar.UInt16" 4242 "${u[@]}"
run "read it back --json" 0 "$uactor" read "$url" "ns=1;s=Demo.Static.Scalar.UInt16" "${u[@]}" --json &&
    json "the written value" "assert lines[0]['value'] == {'type': 'UInt16', 'value': 4242}, lines"
expect "browse --depth 2" 0 "  1:Scalar	ns=1;s=Demo.Static.Scalar	Object" "$uactor" browse "$url" "ns=1;s=Demo" --depth 2 "${u[@]}"
run "call --json" 0 "$uactor" call "$url" "ns=1;s=Demo.Methods" "ns=1;s=Demo.Methods.Add" 1.5 2.25 "${u[@]}" --json &&
    json "call --json" "assert lines[0]['outputs'] == [{'type': 'Double', 'value': 3.75}], lines"
run "subscribe --json --count 3" 0 "$uactor" subscribe "$url" "ns=1;s=Demo.Dynamic.Counter" --count 3 --interval 50 --sampling 0 "${u[@]}" --json &&
    json "subscribe --json: three changes with ISO 8601 timestamps" "
assert len(lines) == 3 and all(l['sourceTimestamp'].endswith('Z') for l in lines), lines
"

kill -0 "$server_pid" 2>/dev/null || fail "node_secure_server.js ended during the tests"
if [ "$failures" -ne 0 ]; then
    echo "--- node_secure_server.js stderr (last lines):"
    tail -n 20 "$tmp/server.err"
    echo "cli_secure_interop: $failures failed"
    exit 1
fi
echo "cli_secure_interop: all passed"
exit 0
