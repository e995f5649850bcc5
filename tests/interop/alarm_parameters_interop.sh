#!/usr/bin/env bash
# The alarm parameters of Part 9 §5.8.2 (1.05) served by `uactor run --config` (docs/decisions/0065):
# a discrete alarm on a Boolean the client writes, with on_delay_ms, off_delay_ms, re_alarm_time_ms
# and re_alarm_max_count; node-opcua's client (node_alarm_parameters.js) reads the condition's
# OnDelay, OffDelay, ReAlarmTime and ReAlarmRepeatCount, and sees the delays and the re-alarm in
# the events, and the audit event of its Acknowledge.
#
#   bash alarm_parameters_interop.sh UACTOR_BINARY
#
# Exit 0 = all passed, 77 without node or node_modules, 1 otherwise.
set -u
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
if ! command -v node >/dev/null 2>&1; then echo "skipped: node not found"; exit 77; fi
if [ ! -d "$here/node_modules" ]; then echo "skipped: $here/node_modules missing (npm ci)"; exit 77; fi
uactor="${1:?usage: alarm_parameters_interop.sh UACTOR_BINARY}"
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
audit_events = true                    # the Part 9 methods' audit events (Part 9 §5.10)

[[server.endpoints]]
port = 0                               # any free port (parallel ctest), read back below
security = ["none"]

[[namespaces]]
uri = "urn:test:alarm-parameters"      # ns=2

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
on_delay_ms = 1500
off_delay_ms = 1500
re_alarm_time_ms = 2000
re_alarm_max_count = 1
TOML

if ! "$uactor" check-config "$tmp/plant.toml" >"$tmp/check.out" 2>&1; then
    echo "alarm_parameters_interop: FAIL: check-config"; cat "$tmp/check.out"; exit 1
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
if [ -z "$url" ]; then echo "alarm_parameters_interop: FAIL: the server did not listen"; cat "$tmp/server.out" "$tmp/server.err"; exit 1; fi
echo "alarm_parameters_interop: serving at $url"

timeout -k 5 60 node "$here/node_alarm_parameters.js" "$url" --timeout 45 >"$tmp/client.out" 2>"$tmp/client.err"
status=$?
cat "$tmp/client.out"
if [ "$status" -ne 0 ] || ! grep -qx done "$tmp/client.out"; then
    echo "alarm_parameters_interop: FAIL (node exit $status)"; tail -n 20 "$tmp/client.err"; tail -n 20 "$tmp/server.err"; exit 1
fi
echo "alarm_parameters_interop: all passed"
