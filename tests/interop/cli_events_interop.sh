#!/usr/bin/env bash
# `uactor subscribe --events` (docs/cli.md) against node-opcua servers raising an event every 100 ms
# from the Server object (node_server.js / node_secure_server.js --events: "minor event N" with
# Severity 300 and "major event N" with Severity 800 in turn):
# - over None (node_server.js): the default fields in text, --json parsed (python3), --select with
#   a nested path from --select-type, --min-severity, --event-type and --where as where clauses, a select
#   clause the server refuses (exit 1, named), no event lost between publishes, usage errors (exit 2);
# - over SignAndEncrypt with a UserName (node_secure_server.js), text and --json.
#
#   cli_events_interop.sh UACTOR
#
# Exit 0 when everything passed, 77 (ctest's skip) without node, node_modules or python3, 1
# otherwise. Bounded: the servers exit by themselves after 120 s, each command has a timeout.
set -u
uactor="${1:?usage: cli_events_interop.sh UACTOR}"
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
if ! command -v node >/dev/null 2>&1; then echo "skipped: node missing"; exit 77; fi
if [ ! -d "$here/node_modules" ]; then echo "skipped: node_modules missing"; exit 77; fi
if ! command -v python3 >/dev/null 2>&1; then echo "skipped: python3 missing"; exit 77; fi
tmp="$(mktemp -d)"
pids=()
cleanup() {
    for pid in "${pids[@]}"; do
        kill "$pid" 2>/dev/null
        for _ in 1 2 3 4 5 6 7 8 9 10; do kill -0 "$pid" 2>/dev/null || break; sleep 0.5; done
        kill -9 "$pid" 2>/dev/null
        wait "$pid" 2>/dev/null
    done
    if [ -n "${UACTOR_KEEP_TMP:-}" ]; then echo "cli_events_interop: kept $tmp"; else rm -rf "$tmp"; fi
}
trap cleanup EXIT
die() { echo "cli_events_interop: FAIL: $*" >&2; tail -n 30 "$tmp"/*.err >&2 2>/dev/null; exit 1; }
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
# check NAME PYTHON: PYTHON asserts over `lines` (stdout's lines; JSON objects with --json).
check() {
    if python3 - "$tmp/out" "$2" <<'PY'; then pass "$1"; else fail "$1: $(head -c 2000 "$tmp/out")"; fi
import json, sys
raw = [l.rstrip("\n") for l in open(sys.argv[1], encoding="utf-8") if l.strip()]
try:
    lines = [json.loads(l) for l in raw]
except ValueError:
    lines = raw
exec(sys.argv[2])
PY
}
# start NAME SCRIPT ARGS...: a node-opcua server in the background (both start at once: node-opcua
# takes seconds to load its nodeset). listening NAME: its URL once it says it listens.
start() {
    local name="$1"
    shift
    node "$@" >"$tmp/$name.out" 2>"$tmp/$name.err" &
    pids+=("$!")
    echo "$!" >"$tmp/$name.pid"
}
listening() {
    local name="$1" line=""
    for _ in $(seq 1 180); do
        line="$(head -n 1 "$tmp/$name.out")"
        [ -n "$line" ] && break
        kill -0 "$(cat "$tmp/$name.pid")" 2>/dev/null || die "$name ended"
        sleep 0.5
    done
    case "$line" in
        "listening on "*) echo "${line#listening on }" ;;
        *) die "$name did not say it listens within 90 s: '$line'" ;;
    esac
}

pki="$tmp/pki"
host="$(hostname)"
timeout 60 "$uactor" certs create --pki "$pki" --name uactor-client --uri "urn:$host:uactor:client" \
    >"$tmp/create.out" 2>&1 || { cat "$tmp/create.out"; die "uactor certs create"; }
start node_server "$here/node_server.js" --events 100 --max-seconds 120
start node_secure_server "$here/node_secure_server.js" --pki "$tmp/node" --trust "$pki/own/certs/uactor-client.der" \
    --events 100 --max-seconds 120

# ---- None
url="$(listening node_server)" || exit 1
echo "cli_events_interop: node_server.js at $url"
run "text: four events, the default fields" 0 "$uactor" subscribe "$url" --events --count 4 --interval 50 &&
    check "text: one line per event, Time in ISO 8601, Message as LocalizedText" "
assert len(lines) == 4, lines
for l in lines:
    cols = l.split('\t')
    assert cols[0] == 'ns=0;i=2253' or cols[0] == 'i=2253', cols
    keys = [c.split('=', 1)[0] for c in cols[1:]]
    assert keys == ['Time', 'SourceName', 'EventType', 'Severity', 'Message'], keys
    f = dict(c.split('=', 1) for c in cols[1:])
    assert f['Time'].endswith('Z') and f['Time'][4] == '-' and 'T' in f['Time'], f
    assert f['SourceName'] == '\"uactor-interop\"', f
    assert f['Severity'] in ('300', '800'), f
    assert f['Message'].startswith('en \"') and 'event ' in f['Message'], f
"
run "--json: three events" 0 "$uactor" subscribe "$url" --events --count 3 --interval 50 --json &&
    check "--json: one object per event, fields by path" "
assert len(lines) == 3 and all(isinstance(l, dict) for l in lines), lines
for l in lines:
    f = l['fields']
    assert list(f) == ['Time', 'SourceName', 'EventType', 'Severity', 'Message'], f
    assert f['Time']['type'] == 'DateTime' and f['Time']['value'].endswith('Z'), f
    assert f['Severity']['type'] == 'UInt16' and f['Severity']['value'] in (300, 800), f
    assert f['Message']['type'] == 'LocalizedText' and f['Message']['value']['text'].split()[1] == 'event', f
    assert f['EventType'] == {'type': 'NodeId', 'value': 'i=2041'} or f['EventType']['value'].endswith('i=2041'), f
"
run "--min-severity 500: only the major ones" 0 "$uactor" subscribe "$url" --events --min-severity 500 --count 3 --interval 50 --json &&
    check "--min-severity 500: Severity 800 each" "
assert len(lines) == 3, lines
assert all(l['fields']['Severity']['value'] == 800 and l['fields']['Message']['value']['text'].startswith('major') for l in lines), lines
"
run "--select-type AlarmConditionType with a nested path, --event-type BaseEventType" 0 "$uactor" subscribe "$url" --events \
    --select-type i=2915 --select "Message, Severity,ActiveState/Id" --event-type i=2041 --count 2 --interval 50 --json &&
    check "--select: those fields in that order, a field the event lacks null" "
assert len(lines) == 2, lines
for l in lines:
    assert list(l['fields']) == ['Message', 'Severity', 'ActiveState/Id'], l
    assert l['fields']['ActiveState/Id'] is None and l['fields']['Severity']['value'] in (300, 800), l
"
# node-opcua checks select clauses (BadNoMatch for a path its type lacks) but never where clauses
# (an OfType of a non-event type is accepted and matches nothing); our server refuses both
# (tests/runtime/client_events_test.cpp).
expect "a select clause the server refuses: named, exit 1" 1 "refused --select NoSuchField (select clause 1): BadNoMatch" \
    "$uactor" subscribe "$url" --events --select Message,NoSuchField --seconds 5
run "--queue default: no event lost between publishes" 0 "$uactor" subscribe "$url" --events --select Message --count 8 --interval 400 &&
    check "consecutive events" "
n = [int(l.split('event ')[1].rstrip('\"')) for l in lines]
assert n == list(range(n[0], n[0] + 8)), n
"
run "--where twice, ANDed: Severity > 500 and SourceName ==" 0 "$uactor" subscribe "$url" --events --select Severity,SourceName \
    --where 'Severity > 500' --where 'SourceName == uactor-interop' --count 3 --interval 50 --json &&
    check "--where: Severity 800 each" "
assert len(lines) == 3, lines
assert all(l['fields']['Severity']['value'] == 800 and l['fields']['SourceName']['value'] == 'uactor-interop' for l in lines), lines
"
run "--where != (Not over Equals)" 0 "$uactor" subscribe "$url" --events --select Severity --where 'Severity != 800' \
    --count 3 --interval 50 --json &&
    check "--where !=: Severity 300 each" "assert len(lines) == 3 and all(l['fields']['Severity']['value'] == 300 for l in lines), lines"
# node-opcua 2.163 checks no where clause: a field its type lacks is accepted (our server refuses it,
# BadBrowseNameInvalid: tests/runtime/client_events_test.cpp) and matches nothing; Like it does not
# evaluate at all (false: no event passes).
run "--where on a field the events lack: accepted by node-opcua" 0 "$uactor" subscribe "$url" --events \
    --select-type i=2915 --where 'NoSuchField == 1' --seconds 1 &&
    check "--where NoSuchField: nothing refused, no event" "assert lines == [], lines"
expect "a malformed --where: exit 2" 2 "--where 'Severity 500': no operator" "$uactor" subscribe "$url" --events --where "Severity 500"
expect "--where without --events: exit 2" 2 "need --events" "$uactor" subscribe "$url" "i=2258" --where 'Severity > 1'
expect "--min-severity without --events: exit 2" 2 "need --events" "$uactor" subscribe "$url" "i=2258" --min-severity 10
expect "--events with --deadband: exit 2" 2 "not --events" "$uactor" subscribe "$url" --events --deadband 1 --deadband-type absolute
expect "--select with an empty path: exit 2" 2 "--select" "$uactor" subscribe "$url" --events --select "Time,,Message"
expect "--min-severity 0: exit 2" 2 "min-severity" "$uactor" subscribe "$url" --events --min-severity 0

# ---- SignAndEncrypt, UserName
url="$(listening node_secure_server)" || exit 1
echo "cli_events_interop: node_secure_server.js at $url"
printf 'password\n' >"$tmp/password"
u=(--security encrypt --pki "$pki" --user user1 --password-file "$tmp/password" --accept-server-certificate)
run "encrypt, user1: text" 0 "$uactor" subscribe "$url" --events --count 2 --interval 50 --min-severity 500 "${u[@]}" &&
    check "encrypt: two major events" "
assert len(lines) == 2 and all('Severity=800' in l and 'Message=en \"major event' in l for l in lines), lines
"
run "encrypt, user1: --json" 0 "$uactor" subscribe "$url" --events --count 2 --interval 50 "${u[@]}" --json &&
    check "encrypt: --json" "assert len(lines) == 2 and all(l['fields']['SourceName']['value'] == 'uactor-interop' for l in lines), lines"

for pid in "${pids[@]}"; do kill -0 "$pid" 2>/dev/null || fail "a node-opcua server ended during the tests"; done
if [ "$failures" -ne 0 ]; then
    echo "--- node-opcua stderr (last lines):"
    tail -n 20 "$tmp"/*.err
    echo "cli_events_interop: $failures failed"
    exit 1
fi
echo "cli_events_interop: all passed"
exit 0
