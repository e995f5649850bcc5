#!/usr/bin/env bash
# Conditions as nodes and shelving (docs/decisions/0053) served by `uactor run --config`: a discrete
# alarm on a Boolean the client writes, MaxTimeShelved 60 s; node-opcua's client
# (node_alarm_shelving.js) browses the condition, reads and subscribes to its Variables, shelves it
# (timed and one-shot), unshelves it, sees the server unshelve it by itself, acknowledges it,
# suppresses it and takes it out of service, makes branches and acknowledges one by its EventId
# (docs/decisions/0061); then `uactor alarms` lists (ConditionRefresh: the trunk and its branches),
# shelves, unshelves, acknowledges, confirms, comments, suppresses and takes out of service the same
# condition, and confirms a branch by the EventId `list` printed.
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

# Our command line on the same condition. `list` (ConditionRefresh): the trunk (BranchId "-", the
# 11th column) active and unacknowledged after node's branches, and the branches node left.
cond="ns=2;s=Pump.Trip.Alarm"
cli() { "$uactor" alarms "$url" "$@" 2>>"$tmp/cli.err"; }
status_of() { local out; out="$(cli "$@")"; echo "${out%% *}"; }  # "Good (0x00000000)" -> Good
trunk() { cli list | awk -F'\t' '$11 == "-"'; }
fail_cli() { echo "alarm_shelving_interop: FAIL: $1"; cat "$tmp/cli.err"; exit 1; }
cli list >"$tmp/list.out" || fail_cli "uactor alarms list"
cat "$tmp/list.out" | sed 's/^/alarms list: /'
case "$(awk -F'\t' '$11 == "-"' "$tmp/list.out")" in
    "$cond"$'\t'PumpTripAlarm$'\t'Active$'\t'Unacknowledged$'\t'Unshelved$'\t'800$'\t'*) ;;
    *) fail_cli "uactor alarms list: the trunk" ;;
esac
[ "$(awk -F'\t' '$1 == "'"$cond"'" && $11 != "-"' "$tmp/list.out" | wc -l)" -ge 2 ] || fail_cli "uactor alarms list: the branches"
[ "$(status_of shelve "$cond" --for 30)" = "Good" ] || fail_cli "uactor alarms shelve --for"
trunk | grep -q $'\tTimedShelved\t' || fail_cli "list after shelve"
[ "$(status_of unshelve "$cond" --comment back)" = "Good" ] || fail_cli "uactor alarms unshelve"
[ "$(status_of shelve "$cond" --one-shot)" = "Good" ] || fail_cli "uactor alarms shelve --one-shot"
trunk | grep -q $'\tOneShotShelved\t' || fail_cli "list after one-shot"
[ "$(status_of unshelve "$cond")" = "Good" ] || fail_cli "uactor alarms unshelve"
echo "alarm_shelving_interop: uactor alarms list, shelve --for, unshelve, shelve --one-shot passed"
# Acknowledge, Confirm and AddComment of the trunk (its EventId read from the condition's node).
[ "$(status_of ack "$cond" --comment seen)" = "Good" ] || fail_cli "uactor alarms ack"
out="$(cli ack "$cond" --comment again)"; rc=$?
[ "$rc" -eq 1 ] && [ "${out%% *}" = "BadConditionBranchAlreadyAcked" ] || fail_cli "ack of an acknowledged state: exit $rc, $out"
[ "$(status_of confirm "$cond" --comment done)" = "Good" ] || fail_cli "uactor alarms confirm"
[ "$(status_of comment "$cond" --comment "a note")" = "Good" ] || fail_cli "uactor alarms comment"
trunk | grep -q $'\tAcknowledged\tUnshelved\t800\tConfirmed\t' || fail_cli "list after ack and confirm"
echo "alarm_shelving_interop: uactor alarms ack, confirm, comment passed"
# A branch by the EventId list prints (the 12th column): node acknowledged one, we confirm it.
branch="$(cli list | awk -F'\t' '$11 != "-" && $4 == "Acknowledged" && $7 == "Unconfirmed"' | head -n 1)"
[ -n "$branch" ] || fail_cli "no acknowledged, unconfirmed branch in the list"
branch_id="$(printf '%s' "$branch" | cut -f11)"; event_id="$(printf '%s' "$branch" | cut -f12)"
[ "$(status_of confirm "$cond" --event-id "$event_id" --comment "branch done")" = "Good" ] || fail_cli "confirm --event-id of a branch"
cli list | grep -qF "$branch_id" && fail_cli "the confirmed branch $branch_id is still listed"
echo "alarm_shelving_interop: uactor alarms confirm --event-id of branch $branch_id passed"
# Suppression and out of service (the 8th and 9th columns).
[ "$(status_of suppress "$cond" --comment "pump stopped")" = "Good" ] || fail_cli "uactor alarms suppress"
trunk | grep -q $'\tSuppressed\tIn Service\t' || fail_cli "list after suppress"
[ "$(status_of unsuppress "$cond")" = "Good" ] || fail_cli "uactor alarms unsuppress"
[ "$(status_of out-of-service "$cond")" = "Good" ] || fail_cli "uactor alarms out-of-service"
trunk | grep -q $'\tUnsuppressed\tOut of Service\t' || fail_cli "list after out-of-service"
[ "$(status_of in-service "$cond" --comment back)" = "Good" ] || fail_cli "uactor alarms in-service"
trunk | grep -q $'\tUnsuppressed\tIn Service\t' || fail_cli "list after in-service"
echo "alarm_shelving_interop: uactor alarms suppress, unsuppress, out-of-service, in-service passed"
echo "alarm_shelving_interop: all passed"
