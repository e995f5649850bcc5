#!/usr/bin/env bash
# examples/config/alarms.toml served by `uactor run` (docs/decisions/0031): a ramp writer drives the
# file's limit alarm through its four limits, a script alarm's Boolean output drives its off-normal
# alarm; node-opcua's client (node_plant_alarms.js) subscribes to the Server object's and the Tank
# area's events, checks the states and their fields, acknowledges and confirms, writes a variable
# (an audit event) and calls ConditionRefresh; then `uactor alarms list` sees every kind of the file
# (limit, non-exclusive limit, off-normal, discrete, deviation, rate of change) come, and the pump's
# pressure alarm suppressed and unsuppressed by its `suppressed_by` Variable; node_alarm_metrics.js
# reads the alarm groups and AlarmMetrics (Part 9 §8) and calls Reset.
#
#   bash alarms_config_interop.sh UACTOR_BINARY SOURCE_DIR
#
# Exit 0 = all passed, 77 without node or node_modules, 1 otherwise.
set -u
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
if ! command -v node >/dev/null 2>&1; then echo "skipped: node not found"; exit 77; fi
if [ ! -d "$here/node_modules" ]; then echo "skipped: $here/node_modules missing (npm ci)"; exit 77; fi
uactor="${1:?usage: alarms_config_interop.sh UACTOR_BINARY SOURCE_DIR}"
src="${2:?usage: alarms_config_interop.sh UACTOR_BINARY SOURCE_DIR}"
tmp="$(mktemp -d)"
server_pid=""
cleanup() {
    if [ -n "$server_pid" ]; then kill -TERM "$server_pid" 2>/dev/null; wait "$server_pid" 2>/dev/null; fi
    rm -rf "$tmp"
}
trap cleanup EXIT

# Port 0: any free port (parallel ctest), read back from the `listening on` line.
sed 's/^port = [0-9]*/port = 0/' "$src/examples/config/alarms.toml" >"$tmp/alarms.toml"
if ! "$uactor" check-config "$tmp/alarms.toml" >"$tmp/check.out" 2>&1 || ! grep -q "7 writer(s), 8 alarm(s)" "$tmp/check.out"; then
    echo "alarms_config_interop: FAIL: check-config"; cat "$tmp/check.out"; exit 1
fi
echo "alarms_config_interop: $(cat "$tmp/check.out")"
"$uactor" run --config "$tmp/alarms.toml" --host 127.0.0.1 >"$tmp/server.out" 2>"$tmp/server.err" </dev/null &
server_pid=$!
url=""
for _ in $(seq 300); do
    url="$(sed -n 's#^listening on \(opc\.tcp://[^[:space:]]*\).*#\1#p' "$tmp/server.out" | head -n 1)"
    [ -n "$url" ] && break
    kill -0 "$server_pid" 2>/dev/null || break
    sleep 0.1
done
if [ -z "$url" ]; then echo "alarms_config_interop: FAIL: the server did not listen"; cat "$tmp/server.out" "$tmp/server.err"; exit 1; fi
echo "alarms_config_interop: serving at $url"

timeout -k 5 40 node "$here/node_plant_alarms.js" "$url" --timeout 30 >"$tmp/client.out" 2>"$tmp/client.err"
status=$?
cat "$tmp/client.out"
if [ "$status" -ne 0 ] || ! grep -qx done "$tmp/client.out"; then
    echo "alarms_config_interop: FAIL (node exit $status)"; tail -n 20 "$tmp/client.err"; tail -n 20 "$tmp/server.err"; exit 1
fi
# Alarm groups and metrics (Part 9 §8), the deviation and rate-of-change alarms' properties, read by
# node-opcua's client (node_alarm_metrics.js).
timeout -k 5 40 node "$here/node_alarm_metrics.js" "$url" --timeout 30 >"$tmp/metrics.out" 2>"$tmp/metrics.err"
status=$?
cat "$tmp/metrics.out"
if [ "$status" -ne 0 ] || ! grep -qx done "$tmp/metrics.out"; then
    echo "alarms_config_interop: FAIL: alarm metrics (node exit $status)"; tail -n 20 "$tmp/metrics.err"; exit 1
fi
# Every kind the file defines comes and goes by itself: `uactor alarms list` (ConditionRefresh)
# shows each of them, retained, within a few cycles of its writer.
for cond in Tank.Level.Alarm Tank.Overfill.Alarm Pump.Trip.Alarm Pump.Pressure.Alarm Tank.Level.Deviation Tank.Level.Rate \
    Pump.Overload.Trip Valve.Position.Discrepancy; do
    found=""
    for _ in $(seq 40); do
        if "$uactor" alarms "$url" list 2>>"$tmp/cli.err" | grep -q "^ns=2;s=$cond"$'\t'; then found=1; break; fi
        sleep 0.5
    done
    [ -n "$found" ] || { echo "alarms_config_interop: FAIL: uactor alarms list never showed $cond"; cat "$tmp/cli.err"; exit 1; }
done
# The pressure alarm is suppressed while the pump is stopped (suppressed_by): both states come.
for state in Suppressed Unsuppressed; do
    found=""
    for _ in $(seq 60); do
        if "$uactor" alarms "$url" list 2>>"$tmp/cli.err" | awk -F'\t' -v s="$state" '$1 == "ns=2;s=Pump.Pressure.Alarm" && $11 == "-" && $8 == s' | grep -q .; then
            found=1; break
        fi
        sleep 0.5
    done
    [ -n "$found" ] || { echo "alarms_config_interop: FAIL: Pump.Pressure.Alarm never $state"; exit 1; }
done
echo "alarms_config_interop: uactor alarms list shows every kind, and the suppression by Pump.Stopped come and go"
echo "alarms_config_interop: all passed"
