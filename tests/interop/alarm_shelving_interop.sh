#!/usr/bin/env bash
# Conditions as nodes and shelving (docs/decisions/0053) served by `uactor run --config`: a discrete
# alarm on a Boolean the client writes, MaxTimeShelved 60 s; node-opcua's client
# (node_alarm_shelving.js) browses the condition, reads and subscribes to its Variables, shelves it
# (timed and one-shot), unshelves it, sees the server unshelve it by itself, acknowledges it; then
# `uactor alarms` lists, shelves, unshelves and acknowledges the same condition.
#
#   bash alarm_shelving_interop.sh UACTOR_BINARY
#
# Exit 0 = all passed, 77 without node or node_modules, 1 otherwise.
set -u
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
if ! command -v node >/dev/null 2>&1; then echo "skipped: node not found"; exit 77; fi
if [ ! -d "$here/node_modules" ]; then echo "skipped: $here/node_modules missing (npm ci)"; exit 77; fi
uactor="${1:?usage: alarm_shelving_interop.sh UACTOR_BINARY}"
tmp="$(mktemp -d)"
server_pid=""
cleanup() {
    if [ -n "$server_pid" ]; then kill -TERM "$server_pid" 2>/dev/null; wait "$server_pid" 2>/dev/null; fi
    rm -rf "$tmp"
}
trap cleanup EXIT

cat >"$tmp/plant.toml" <<'TOML'
[server]
demo = false

[[server.endpoints]]
port = 0                               # any free port (parallel ctest), read back below
security = ["none"]

[[namespaces]]
uri = "urn:test:shelving"             # ns=2

[[objects]]
id = "ns=2;s=Pump"

[[variables]]
id = "ns=2;s=Pump.Trip"
parent = "ns=2;s=Pump"
type = "Boolean"
access = "read_write"

[[discrete_alarms]]
id = "ns=2;s=Pump.Trip.Alarm"
input = "ns=2;s=Pump.Trip"
name = "PumpTripAlarm"
severity = 800
max_time_shelved_ms = 60000
TOML

if ! "$uactor" check-config "$tmp/plant.toml" >"$tmp/check.out" 2>&1; then
    echo "alarm_shelving_interop: FAIL: check-config"; cat "$tmp/check.out"; exit 1
fi
"$uactor" run --config "$tmp/plant.toml" --host 127.0.0.1 >"$tmp/server.out" 2>"$tmp/server.err" </dev/null &
server_pid=$!
url=""
for _ in $(seq 300); do
    url="$(sed -n 's#^listening on \(opc\.tcp://[^[:space:]]*\).*#\1#p' "$tmp/server.out" | head -n 1)"
    [ -n "$url" ] && break
    kill -0 "$server_pid" 2>/dev/null || break
    sleep 0.1
done
if [ -z "$url" ]; then echo "alarm_shelving_interop: FAIL: the server did not listen"; cat "$tmp/server.out" "$tmp/server.err"; exit 1; fi
echo "alarm_shelving_interop: serving at $url"

timeout -k 5 60 node "$here/node_alarm_shelving.js" "$url" --timeout 45 >"$tmp/client.out" 2>"$tmp/client.err"
status=$?
cat "$tmp/client.out"
if [ "$status" -ne 0 ] || ! grep -qx done "$tmp/client.out"; then
    echo "alarm_shelving_interop: FAIL (node exit $status)"; tail -n 20 "$tmp/client.err"; tail -n 20 "$tmp/server.err"; exit 1
fi
echo "alarm_shelving_interop: node-opcua's client passed"

# Our command line on the same condition: list, shelve, list, unshelve, ack (already acknowledged).
cond="ns=2;s=Pump.Trip.Alarm"
cli() { "$uactor" alarms "$url" "$@" 2>>"$tmp/cli.err"; }
status_of() { local out; out="$(cli "$@")"; echo "${out%% *}"; }  # "Good (0x00000000)" -> Good
line="$(cli list)"
echo "alarms list: $line"
case "$line" in
    "$cond"$'\t'PumpTripAlarm$'\t'Active$'\t'Acknowledged$'\t'Unshelved$'\t'800$'\t'*) ;;
    *) echo "alarm_shelving_interop: FAIL: uactor alarms list"; cat "$tmp/cli.err"; exit 1 ;;
esac
[ "$(status_of shelve "$cond" --for 30)" = "Good" ] || { echo "alarm_shelving_interop: FAIL: uactor alarms shelve --for"; exit 1; }
cli list | grep -q $'\tTimedShelved\t' || { echo "alarm_shelving_interop: FAIL: list after shelve"; exit 1; }
[ "$(status_of unshelve "$cond" --comment back)" = "Good" ] || { echo "alarm_shelving_interop: FAIL: uactor alarms unshelve"; exit 1; }
[ "$(status_of shelve "$cond" --one-shot)" = "Good" ] || { echo "alarm_shelving_interop: FAIL: uactor alarms shelve --one-shot"; exit 1; }
cli list | grep -q $'\tOneShotShelved\t' || { echo "alarm_shelving_interop: FAIL: list after one-shot"; exit 1; }
out="$(cli ack "$cond" --comment again)"; rc=$?
if [ "$rc" -ne 1 ] || [ "${out%% *}" != "BadConditionBranchAlreadyAcked" ]; then
    echo "alarm_shelving_interop: FAIL: ack of an acknowledged state: exit $rc, $out"; exit 1
fi
echo "alarm_shelving_interop: uactor alarms list, shelve --for, unshelve, shelve --one-shot, ack passed"
echo "alarm_shelving_interop: all passed"
