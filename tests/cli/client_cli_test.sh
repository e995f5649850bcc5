#!/usr/bin/env bash
# The client commands as an engineer uses them (docs/cli.md), against our own server offering
# secured endpoints only (Basic256Sha256 SignAndEncrypt, Aes256_Sha256_RsaPss Sign), a user and an
# X509 user:
# - the untrusted server certificate refused (exit 3) with its thumbprint and the `uactor certs
#   trust` command, which then trusts it; --accept-server-certificate once, said loudly, not kept;
# - each mode (sign, encrypt; none refused) with each identity (anonymous, UserName with the
#   password from a file and from $UACTOR_PASSWORD, X509), and a wrong password;
# - read, write (typed by the node and by --type), browse as a tree, call, subscribe, endpoints,
#   history (raw, --csv, an aggregate, --events, --delete-event; HistoryUpdate's insert, replace, deletes and the modified
#   values), with --json parsed (python3) and every exit code: 0, 1, 2, 3.
#
#   client_cli_test.sh UACTOR
#
# Exit 0 when everything passed, 77 (ctest's skip) without python3, 1 otherwise. Bounded: each
# command has a timeout; the server is stopped at exit.
set -u
uactor="${1:?usage: client_cli_test.sh UACTOR}"
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
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
    if [ -n "${UACTOR_KEEP_TMP:-}" ]; then echo "client_cli: kept $tmp"; else rm -rf "$tmp"; fi
}
trap cleanup EXIT
failures=0
fail() { echo "FAIL $*"; failures=$((failures + 1)); }
pass() { echo "ok   $*"; }

# run NAME EXPECTED_RC COMMAND...: runs with a timeout, stdout in $tmp/out, stderr in $tmp/err.
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
# expect NAME RC TEXT COMMAND...: exit RC and TEXT in stdout or stderr.
expect() {
    local name="$1" want="$2" text="$3"
    shift 3
    run "$name" "$want" "$@" || return 1
    if cat "$tmp/out" "$tmp/err" | grep -qF -- "$text"; then pass "$name"
    else fail "$name: no '$text' in: $(cat "$tmp/out" "$tmp/err" | head -c 2000)"; fi
}
# json NAME PYTHON: every line of $tmp/out parses as a JSON object; PYTHON checks `lines` (a list).
json() {
    if python3 - "$tmp/out" "$2" <<'PY'; then pass "$1"; else fail "$1: $(head -c 2000 "$tmp/out")"; fi
import json, sys
lines = [json.loads(l) for l in open(sys.argv[1], encoding="utf-8") if l.strip()]
assert all(isinstance(l, dict) for l in lines), "not one object per line"
exec(sys.argv[2])
PY
}

host="$(hostname)"
client_pki="$tmp/client"
# The client's application certificate, made ahead so that the server can trust it (the client
# would make the same one on first use), and an X509 user.
"$uactor" certs create --pki "$client_pki" --name uactor-client --uri "urn:$host:uactor:client" >"$tmp/create.out" 2>&1 ||
    { cat "$tmp/create.out"; echo "FAIL certs create"; exit 1; }
"$uactor" certs create --pki "$tmp/user" --name user1 --uri urn:uactor:user1 >"$tmp/create.out" 2>&1 ||
    { cat "$tmp/create.out"; echo "FAIL certs create (user)"; exit 1; }
user_cert="$tmp/user/own/certs/user1.der"
user_key="$tmp/user/own/private/user1.pem"
mkdir -p "$tmp/once" && cp -r "$client_pki/own" "$tmp/once/own"
# The server's certificate names 127.0.0.1 only (not localhost, which `uactor run` would add), for
# the client's host name check (Part 4 §6.1.3).
"$uactor" certs create --pki "$tmp/server" --name uactor --uri urn:127.0.0.1:uactor:server --host 127.0.0.1 \
    >"$tmp/create.out" 2>&1 || { cat "$tmp/create.out"; echo "FAIL certs create (server)"; exit 1; }

# In $tmp: the embedded default's history file (uactor-history.sqlite, Demo.Dynamic.*) is its own.
(cd "$tmp" && exec "$uactor" run --host 127.0.0.1 --port 0 --pki "$tmp/server" --writer-interval 50 \
    --security Basic256Sha256:SignAndEncrypt,Aes256_Sha256_RsaPss:Sign \
    --trust "$client_pki/own/certs/uactor-client.der" --trust "$user_cert" --user operator:s3cret \
    --nodeset "$here/../fuzz/nodeset_seeds/small.NodeSet2.xml" \
    >"$tmp/server.out" 2>"$tmp/server.err" </dev/null) &
server_pid=$!
url=""
for _ in $(seq 1 300); do
    url="$(sed -n 's#^listening on \(opc\.tcp://[^[:space:]]*\).*#\1#p' "$tmp/server.out" | head -n 1)"
    [ -n "$url" ] && break
    kill -0 "$server_pid" 2>/dev/null || break
    sleep 0.1
done
if [ -z "$url" ]; then echo "FAIL the server did not listen"; cat "$tmp/server.out" "$tmp/server.err"; exit 1; fi
echo "client_cli: uactor run at $url"
server_der="$(ls "$tmp/server/own/certs/"*.der | head -n 1)"
thumbprint="$(sha1sum "$server_der" | cut -d' ' -f1 | tr a-f A-F)"

# ---- the untrusted server certificate (its first contact also shows the refusal's exact words)
sec=(--security encrypt --pki "$client_pki")
if run "untrusted server certificate: exit 3" 3 "$uactor" read "$url" "ns=1;s=the.answer" "${sec[@]}"; then
    if grep -qF "is not trusted" "$tmp/err" && grep -qF "thumbprint  $thumbprint" "$tmp/err"; then
        pass "untrusted server certificate: the message names its thumbprint"
    else fail "untrusted server certificate: message: $(cat "$tmp/err")"; fi
fi
trust_line="$(grep -E '^  uactor certs trust ' "$tmp/err" | head -n 1)"
if [ "$trust_line" = "  uactor certs trust --pki $client_pki $thumbprint" ]; then
    pass "untrusted server certificate: the message gives the command that trusts it"
else fail "the trust command in the message: '$trust_line'"; fi
# The refused certificate is in rejected/, where the printed command finds it.
read -r -a trust_args <<<"${trust_line#  uactor }"
expect "the printed command trusts it" 0 "trusted" "$uactor" "${trust_args[@]}"
expect "then read over SignAndEncrypt works" 0 "ns=1;s=the.answer	Int32 43	Good" "$uactor" read "$url" "ns=1;s=the.answer" "${sec[@]}"

# ---- the host name check: the endpoint URL's host must be one the certificate names
by_name="${url/127.0.0.1/localhost}"
expect "host name not in the server certificate: exit 3, naming the hosts it has" 3 \
    "BadCertificateHostNameInvalid (0x80160000) (the server certificate names the hosts [127.0.0.1]" \
    "$uactor" read "$by_name" "ns=1;s=the.answer" "${sec[@]}"
expect "--skip-host-name-check: the same URL works" 0 "Int32 43" \
    "$uactor" read "$by_name" "ns=1;s=the.answer" "${sec[@]}" --skip-host-name-check

once=(--security encrypt --pki "$tmp/once")
expect "--accept-server-certificate: exit 0" 0 "Int32 43" "$uactor" read "$url" "ns=1;s=the.answer" "${once[@]}" --accept-server-certificate
if grep -qF "WARNING" "$tmp/err" && grep -qF "NOT TRUSTED" "$tmp/err" && grep -qF "$thumbprint" "$tmp/err"; then
    pass "--accept-server-certificate says it loudly, with the thumbprint"
else fail "--accept-server-certificate warning: $(cat "$tmp/err")"; fi
expect "--accept-server-certificate is for one run: the next is refused" 3 "is not trusted" \
    "$uactor" read "$url" "ns=1;s=the.answer" "${once[@]}"

# ---- every mode with every identity
printf 's3cret\n' >"$tmp/password"
printf 'wrong\n' >"$tmp/wrong"
for mode in sign encrypt; do
    m=(--security "$mode" --pki "$client_pki")
    expect "$mode, anonymous" 0 "Int32 43	Good" "$uactor" read "$url" "ns=1;s=the.answer" "${m[@]}"
    expect "$mode, user, --password-file" 0 "Int32 43	Good" "$uactor" read "$url" "ns=1;s=the.answer" "${m[@]}" \
        --user operator --password-file "$tmp/password"
    expect "$mode, user, \$UACTOR_PASSWORD" 0 "Int32 43	Good" env UACTOR_PASSWORD=s3cret "$uactor" read "$url" \
        "ns=1;s=the.answer" "${m[@]}" --user operator
    expect "$mode, X509 user" 0 "Int32 43	Good" "$uactor" read "$url" "ns=1;s=the.answer" "${m[@]}" \
        --cert "$user_cert" --key "$user_key"
done
expect "a wrong password: exit 3" 3 "BadUserAccessDenied" "$uactor" read "$url" "ns=1;s=the.answer" "${sec[@]}" \
    --user operator --password-file "$tmp/wrong"
expect "no password and no terminal: exit 2" 2 "--password-file" "$uactor" read "$url" "ns=1;s=the.answer" "${sec[@]}" \
    --user operator
expect "--security none against a secured-only server: exit 3" 3 "cannot connect" "$uactor" read "$url" "ns=1;s=the.answer"
expect "--policy names what the server does not offer for the mode: exit 3" 3 "offers no endpoint" \
    "$uactor" read "$url" "ns=1;s=the.answer" --policy Aes128_Sha256_RsaOaep --pki "$client_pki"
expect "--policy alone means SignAndEncrypt" 0 "Int32 43" "$uactor" read "$url" "ns=1;s=the.answer" \
    --policy Basic256Sha256 --pki "$client_pki"

# ---- at a terminal (script(1) gives the command one): the password asked with echo off, and a
# long array cut with its count
if command -v script >/dev/null 2>&1; then
    tty_cmd="$(printf '%q ' "$uactor" read "$url" "ns=1;s=the.answer" --security encrypt --pki "$client_pki" --user operator)"
    (sleep 2; printf 's3cret\n') | timeout -k 5 30 script -qec "$tty_cmd" /dev/null >"$tmp/tty.out" 2>&1
    rc=$?
    if [ "$rc" -eq 0 ] && grep -qF "Password for operator:" "$tmp/tty.out" && grep -qF "Int32 43" "$tmp/tty.out"; then
        pass "the password asked on the terminal"
    else fail "the password prompt: exit $rc: $(cat "$tmp/tty.out")"; fi
    long="[$(seq -s, 1 30)]"
    "$uactor" write "$url" "ns=1;s=Demo.Static.Array.Int32" "$long" --security encrypt --pki "$client_pki" >/dev/null 2>&1
    tty_cmd="$(printf '%q ' "$uactor" read "$url" "ns=1;s=Demo.Static.Array.Int32" --security encrypt --pki "$client_pki")"
    timeout -k 5 30 script -qec "$tty_cmd" /dev/null </dev/null >"$tmp/tty.out" 2>&1
    if grep -qF "Int32[] [1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17, 18, 19, 20, ... 10 more (30)]" "$tmp/tty.out"; then
        pass "a long array on a terminal: the first 20 and the count"
    else fail "a long array on a terminal: $(cat "$tmp/tty.out")"; fi
    expect "the same array into a pipe: every element" 0 "28, 29, 30]" "$uactor" read "$url" "ns=1;s=Demo.Static.Array.Int32" \
        --security encrypt --pki "$client_pki"
else
    echo "skip the terminal cases: no script(1)"
fi

# ---- every command, logged in over SignAndEncrypt, with --json parsed
u=(--security encrypt --pki "$client_pki" --user operator --password-file "$tmp/password")
run "endpoints --json" 0 "$uactor" endpoints "$url" --json &&
    json "endpoints --json: each endpoint with its policy, mode, tokens and certificate" "
modes = sorted((l['securityPolicy'], l['securityMode']) for l in lines)
assert modes == [('Aes256_Sha256_RsaPss', 'Sign'), ('Basic256Sha256', 'SignAndEncrypt')], modes
for l in lines:
    assert l['certificate']['thumbprint'] == '$thumbprint', l
    assert l['certificate']['validTo'].endswith('Z'), l
    assert 'UserName' in [t['type'] for t in l['userTokens']], l
"
expect "endpoints (text)" 0 "Basic256Sha256	SignAndEncrypt" "$uactor" endpoints "$url"
# discover (docs/discovery.md): a server that is no LDS lists itself; FindServersOnNetwork is
# Bad_ServiceUnsupported there, said on stderr, exit 0.
expect "discover (text): the server itself" 0 "server	urn:127.0.0.1:uactor:server	Server" "$uactor" discover "$url"
expect "discover: FindServersOnNetwork unsupported on a plain server, on stderr" 0 \
    "FindServersOnNetwork: BadServiceUnsupported" "$uactor" discover "$url"
run "discover --json" 0 "$uactor" discover "$url" --json &&
    json "discover --json: one server object with its DiscoveryUrls" "
assert len(lines) == 1 and lines[0]['kind'] == 'server', lines
assert lines[0]['applicationUri'] == 'urn:127.0.0.1:uactor:server', lines
assert lines[0]['discoveryUrls'] == ['$url'], lines
"
expect "discover --security encrypt: over a Basic256Sha256 channel, no session, no identity asked" 0 \
    "server	urn:127.0.0.1:uactor:server	Server" "$uactor" discover "$url" "${sec[@]}"

run "read --json: two nodes, one unknown: exit 1" 1 "$uactor" read "$url" "ns=1;s=the.answer" "ns=1;s=no.such" "${u[@]}" --json &&
    json "read --json: value, status and ISO 8601 timestamps" "
a, b = lines
assert a['node'] == 'ns=1;s=the.answer' and a['value'] == {'type': 'Int32', 'value': 43}, a
assert a['status'] == 'Good' and a['statusCode'] == 0, a
assert a['serverTimestamp'].endswith('Z') and a['serverTimestamp'][4] == '-' and a['serverTimestamp'][10] == 'T', a
assert b['status'] == 'BadNodeIdUnknown' and b['value'] is None, b
"
run "read --json a structure of a loaded NodeSet" 0 "$uactor" read "$url" "ns=2;i=4003" "ns=2;i=2004" "${u[@]}" --json &&
    json "read --json: structures by field, from the server's DataTypeDefinition and known ones" "
pump, rng = lines
v = pump['value']['value']
assert v['dataType'] == 'PumpStatus' and v['fields'] == {'Mode': 1, 'Rpm': 1500, 'Tags': ['x']}, pump
assert rng['value']['value']['fields'] == {'Low': -1.5, 'High': 99}, rng
"
expect "read a structure (text)" 0 'ExtensionObject PumpStatus {Mode: 1, Rpm: 1500, Tags: ["x"]}' "$uactor" read "$url" "ns=2;i=4003" "${u[@]}"
expect "subscribe prints a structure by field" 0 'PumpStatus {Mode: 1' "$uactor" subscribe "$url" "ns=2;i=4003" --count 1 "${u[@]}"
expect "--local-time: the zone's offset" 0 "+01:00" env TZ=CET-1 "$uactor" read "$url" "ns=1;s=the.answer" "${u[@]}" --local-time
expect "write, typed by the node's DataType" 0 "UInt16 4242	Good" "$uactor" write "$url" "ns=1;s=Demo.Static.Scalar.UInt16" 4242 "${u[@]}"
expect "write --type Double to a Double" 0 "Double 2.5	Good" "$uactor" write "$url" "ns=1;s=Demo.Static.Scalar.Double" 2.5 "${u[@]}" --type Double
expect "write --type Int32 to a Double: the server says BadTypeMismatch, exit 1" 1 "BadTypeMismatch" \
    "$uactor" write "$url" "ns=1;s=Demo.Static.Scalar.Double" 7 "${u[@]}" --type Int32
expect "write --type that is no type: exit 2" 2 "not a built-in type" "$uactor" write "$url" "ns=1;s=Demo.Static.Scalar.Double" 7 "${u[@]}" --type Real
run "write --json an array" 0 "$uactor" write "$url" "ns=1;s=Demo.Static.Array.Int16" "[1, -2, 3]" "${u[@]}" --json &&
    json "write --json" "assert lines == [{'node': 'ns=1;s=Demo.Static.Array.Int16', 'value': {'type': 'Int16[]', 'value': [1, -2, 3]}, 'status': 'Good', 'statusCode': 0}], lines"

expect "browse --depth 2 prints a tree" 0 "  1:Scalar	ns=1;s=Demo.Static.Scalar	Object	Organizes" "$uactor" browse "$url" "ns=1;s=Demo" --depth 2 "${u[@]}"
if grep -q "^1:Static	" "$tmp/out" && ! grep -q "^    " "$tmp/out"; then pass "browse --depth 2: the first level unindented, nothing below the second"
else fail "browse --depth 2: $(head -c 2000 "$tmp/out")"; fi
expect "browse --depth 3 from Objects" 0 "    1:Scalar	ns=1;s=Demo.Static.Scalar	Object	Organizes" "$uactor" browse "$url" --depth 3 "${u[@]}"
run "browse --references all --json" 0 "$uactor" browse "$url" "ns=1;s=the.answer" --references all "${u[@]}" --json &&
    json "browse --references all: the type definition reference too" "
refs = [l['referenceType'] for l in lines]
assert 'HasTypeDefinition' in refs, refs
assert all(l['depth'] == 1 and l['parent'] == 'ns=1;s=the.answer' for l in lines), lines
"
run "call --json" 0 "$uactor" call "$url" "ns=1;s=Demo.Methods" "ns=1;s=Demo.Methods.Add" 1.5 2.25 "${u[@]}" --json &&
    json "call --json: status and outputs" "assert lines[0]['status'] == 'Good' and lines[0]['outputs'] == [{'type': 'Double', 'value': 3.75}], lines"
expect "call with an argument missing: exit 1" 1 "BadArgumentsMissing" "$uactor" call "$url" "ns=1;s=Demo.Methods" "ns=1;s=Demo.Methods.Add" 1.5 "${u[@]}"

run "subscribe --json --count 3" 0 "$uactor" subscribe "$url" "ns=1;s=Demo.Dynamic.Counter" --count 3 --interval 50 --queue 5 "${u[@]}" --json &&
    json "subscribe --json: three changes with ISO 8601 source timestamps, in order" "
assert len(lines) == 3, lines
vals = [l['value']['value'] for l in lines]
assert vals == sorted(vals) and len(set(vals)) == 3, vals
assert all(l['node'] == 'ns=1;s=Demo.Dynamic.Counter' and l['sourceTimestamp'].endswith('Z') for l in lines), lines
"
expect "subscribe (text): ISO 8601 source timestamps" 0 "Z" "$uactor" subscribe "$url" "ns=1;s=Demo.Dynamic.Counter" --count 2 --interval 50 "${u[@]}"
if grep -qE $'^ns=1;s=Demo.Dynamic.Counter\tUInt32 [0-9]+\tGood[^\t]*\t20[0-9]{2}-[0-9]{2}-[0-9]{2}T[0-9:.]+Z$' "$tmp/out"; then
    pass "subscribe (text): NODE, value, status, ISO 8601 time"
else fail "subscribe (text): $(cat "$tmp/out")"; fi
expect "subscribe --deadband-type absolute" 0 "UInt32" "$uactor" subscribe "$url" "ns=1;s=Demo.Dynamic.Counter" --count 1 \
    --deadband-type absolute --deadband 0.5 "${u[@]}"
expect "subscribe --queue 2 --discard-newest --trigger status-value-timestamp" 0 "UInt32" "$uactor" subscribe "$url" \
    "ns=1;s=Demo.Dynamic.Counter" --count 2 --interval 200 --sampling 50 --queue 2 --discard-newest --trigger status-value-timestamp "${u[@]}"
expect "subscribe --deadband without its type: exit 2" 2 "--deadband-type" "$uactor" subscribe "$url" "ns=1;s=Demo.Dynamic.Counter" \
    --deadband 1 "${u[@]}"
expect "subscribe to an unknown node: exit 1" 1 "BadNodeIdUnknown" "$uactor" subscribe "$url" "ns=1;s=no.such" --count 1 "${u[@]}"

# ---- history (docs/history.md): the embedded default records Demo.Dynamic.* from the start
counter="ns=1;s=Demo.Dynamic.Counter"
for _ in $(seq 1 50); do
    timeout 30 "$uactor" history "$url" "$counter" --start -10m "${u[@]}" --json >"$tmp/out" 2>"$tmp/err" </dev/null
    [ "$(wc -l <"$tmp/out")" -ge 3 ] && break
    sleep 0.2
done
json "history --json: the Counter's recorded values, in time order" "
assert len(lines) >= 3, lines
vals = [l['value']['value'] for l in lines]
times = [l['sourceTimestamp'] for l in lines]
assert vals == sorted(vals) and times == sorted(times), lines
assert all(l['node'] == '$counter' and l['status'] == 'Good' and l['serverTimestamp'].endswith('Z') for l in lines), lines
"
run "history --max 2 --csv" 0 "$uactor" history "$url" "$counter" --start -10m --max 2 --csv "${u[@]}" &&
    if [ "$(head -n 1 "$tmp/out")" = "sourceTimestamp,value,status,serverTimestamp" ] && [ "$(wc -l <"$tmp/out")" -eq 3 ] &&
        sed -n 2p "$tmp/out" | grep -qE '^20[0-9-]+T[0-9:.]+Z,[0-9]+,Good,20'; then pass "history --max 2 --csv: a header and two rows"
    else fail "history --csv: $(cat "$tmp/out")"; fi
run "history --aggregate Count --interval 0" 0 "$uactor" history "$url" "$counter" --start -10m --aggregate Count --interval 0 "${u[@]}" --json &&
    json "history --aggregate Count: one interval, a count" "
assert len(lines) == 1 and lines[0]['value']['value'] >= 3, lines
"
expect "history --aggregate of another name: exit 2, naming the served ones" 2 "one of Interpolative, Average" \
    "$uactor" history "$url" "$counter" --aggregate Mean "${u[@]}"
expect "history --start that is no time: exit 2" 2 "is not a time" "$uactor" history "$url" "$counter" --start yesterday "${u[@]}"
expect "history of a variable that does not historize: exit 1" 1 "BadHistoryOperationUnsupported" \
    "$uactor" history "$url" "ns=1;s=the.answer" "${u[@]}"
# HistoryUpdate (the embedded default has [history] updates = true) at a time long before the recording.
t="2020-01-01T00:00:00Z"
span=(--start 2019-12-31T23:59:59Z --end 2020-01-01T00:00:01Z)
run "history --insert" 0 "$uactor" history "$url" "$counter" --insert "$t=5" "${u[@]}" --json &&
    json "history --insert: GoodEntryInserted at its time" "
assert [(l['sourceTimestamp'], l['status']) for l in lines] == [('2020-01-01T00:00:00Z', 'GoodEntryInserted')], lines
"
expect "history --insert where a value is: exit 1" 1 "BadEntryExists" "$uactor" history "$url" "$counter" --insert "$t=7" "${u[@]}"
expect "history --replace" 0 "GoodEntryReplaced" "$uactor" history "$url" "$counter" --replace "$t=6" "${u[@]}"
run "history --modified" 0 "$uactor" history "$url" "$counter" "${span[@]}" --modified "${u[@]}" --json &&
    json "history --modified: the inserted and the replaced value, with their update types" "
assert [(l['value']['value'], l['updateType']) for l in lines] == [(5, 'Insert'), (5, 'Replace')], lines
assert all(l['userName'] == 'operator' for l in lines), lines
"
expect "history --delete-at" 0 "Good" "$uactor" history "$url" "$counter" --delete-at "$t" "${u[@]}"
expect "history --delete-at again: exit 1" 1 "BadNoEntryExists" "$uactor" history "$url" "$counter" --delete-at "$t" "${u[@]}"
expect "history --delete --modified" 0 "Good" "$uactor" history "$url" "$counter" --delete --modified "${span[@]}" "${u[@]}"
expect "history --delete of an empty range: exit 1" 1 "BadNoData" "$uactor" history "$url" "$counter" --delete "${span[@]}" "${u[@]}"
expect "history --insert without a value: exit 2" 2 "TIME=VALUE" "$uactor" history "$url" "$counter" --insert "$t" "${u[@]}"
expect "history --insert and --replace together: exit 2" 2 "one of" "$uactor" history "$url" "$counter" --insert "$t=1" \
    --replace "$t=2" "${u[@]}"
# Event history (ReadEventDetails): the embedded default keeps the Server object's events (the demo
# alarms' transitions come every few seconds).
for _ in $(seq 1 100); do
    timeout 30 "$uactor" history "$url" i=2253 --events --start -10m "${u[@]}" --json >"$tmp/out" 2>"$tmp/err" </dev/null
    [ "$(wc -l <"$tmp/out")" -ge 2 ] && break
    sleep 0.2
done
json "history --events --json: the Server object's stored events, in time order, fields by path" "
assert len(lines) >= 2, lines
for l in lines:
    f = l['fields']
    assert l['node'] == 'i=2253' and list(f) == ['Time', 'SourceName', 'EventType', 'Severity', 'Message'], l
    assert f['Time']['type'] == 'DateTime' and 1 <= f['Severity']['value'] <= 1000, l
times = [l['fields']['Time']['value'] for l in lines]
assert times == sorted(times), times
"
run "history --events --where, --select, --csv" 0 "$uactor" history "$url" i=2253 --events --start -10m \
    --select "Severity,SourceName" --where "Severity >= 1" --where "Severity <= 1000" --csv "${u[@]}" &&
    if [ "$(head -n 1 "$tmp/out")" = "Severity,SourceName" ] && [ "$(wc -l <"$tmp/out")" -ge 3 ] &&
        sed -n 2p "$tmp/out" | grep -qE '^[0-9]+,'; then pass "history --events --csv: a header of the paths and a row per event"
    else fail "history --events --csv: $(cat "$tmp/out")"; fi
run "history --events --where that keeps none" 0 "$uactor" history "$url" i=2253 --events --start -10m --where "Severity > 1000" "${u[@]}" &&
    if [ ! -s "$tmp/out" ]; then pass "history --events --where 'Severity > 1000': no event"; else fail "history --events: $(cat "$tmp/out")"; fi
expect "history --events --max 1: one event" 0 "i=2253	Time=" "$uactor" history "$url" i=2253 --events --start -10m --max 1 "${u[@]}"
expect "history --events --where without an operator: exit 2" 2 "no operator" "$uactor" history "$url" i=2253 --events \
    --where "Severity" "${u[@]}"
expect "history --events of a variable: exit 1" 1 "BadHistoryOperationUnsupported" "$uactor" history "$url" "$counter" --events "${u[@]}"
expect "history --where without --events: exit 2" 2 "is for --events" "$uactor" history "$url" "$counter" --where "Severity > 1" "${u[@]}"
# DeleteEventDetails (Part 11 §6.9.7): the first stored event, by the EventId --events prints.
run "history --events --select EventId" 0 "$uactor" history "$url" i=2253 --events --start -10m --select EventId,Time --max 1 "${u[@]}"
event_id=$(sed -n 1p "$tmp/out" | tr '\t' '\n' | sed -n 's/^EventId=//p')
if [ -n "$event_id" ]; then pass "history --events --select EventId: $event_id"; else fail "no EventId in: $(cat "$tmp/out")"; fi
expect "history --delete-event" 0 "$event_id	Good" "$uactor" history "$url" i=2253 --delete-event "$event_id" "${u[@]}"
expect "history --delete-event again: exit 1" 1 "BadNoEntryExists" "$uactor" history "$url" i=2253 --delete-event "$event_id" "${u[@]}"
expect "history --delete-event that is not hex: exit 2" 2 "is not hex" "$uactor" history "$url" i=2253 --delete-event 0xZZ "${u[@]}"

# ---- usage (2) and connection (3) errors
expect "no endpoint: exit 2" 2 "give an endpoint" "$uactor" read
expect "not a NodeId: exit 2" 2 "not a NodeId" "$uactor" read "$url" "what"
expect "an unknown option: exit 2" 2 "" "$uactor" read "$url" "i=85" --no-such-option
expect "--security of another word: exit 2" 2 "" "$uactor" read "$url" "i=85" --security maximum
expect "--user and --cert together: exit 2" 2 "two identities" "$uactor" read "$url" "i=85" --user a --cert "$user_cert" --key "$user_key"
expect "not an endpoint URL: exit 2" 2 "not an endpoint URL" "$uactor" read "http://127.0.0.1:1" "i=85"
expect "nothing listens there: exit 3" 3 "cannot connect" "$uactor" read "opc.tcp://127.0.0.1:1" "i=85" --timeout 3000
expect "endpoints of nothing: exit 3" 3 "cannot connect" "$uactor" endpoints "opc.tcp://127.0.0.1:1" --timeout 3000
expect "discover of nothing: exit 3" 3 "cannot connect" "$uactor" discover "opc.tcp://127.0.0.1:1" --timeout 3000

kill -0 "$server_pid" 2>/dev/null || fail "the server ended during the tests"
if [ "$failures" -ne 0 ]; then
    echo "--- server stderr (last lines):"
    tail -n 20 "$tmp/server.err"
    echo "client_cli: $failures failed"
    exit 1
fi
echo "client_cli: all passed"
exit 0
