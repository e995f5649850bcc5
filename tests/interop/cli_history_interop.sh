#!/usr/bin/env bash
# Our client reads history from node-opcua's server (issue 31): `uactor history` against
# tests/interop/node_history_server.js, whose ns=1;s=History.Ramp holds value i at
# 2026-01-01T00:00:00Z + i s (i = 0..99). Every value and timestamp is checked exactly (jq):
#   - raw (Part 11 §6.5.3), the whole range in one response (numValuesPerNode 0);
#   - raw in pages of 7 through continuation points (Part 4 §7.9: --page 7, 15 HistoryReads);
#   - raw backwards (startTime after endTime: latest first), and --max 5 (the rest released);
#   - processed (Part 11 §6.5.4, Part 13): Average and Maximum over 10 s intervals.
# The ranges end between two values: node-opcua includes a value at endTime, ours does not
# (docs/history.md "HistoryRead").
#   bash cli_history_interop.sh UACTOR_BINARY
# Exit 0 = passed, 77 (ctest's skip) without node, node_modules or jq, 1 on any failure. The
# node-opcua server is stopped on exit whatever happens (node_server_lib.sh's trap).
set -u
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
uactor="${1:?usage: cli_history_interop.sh UACTOR_BINARY}"
if ! command -v jq >/dev/null 2>&1; then echo "skipped: jq missing"; exit 77; fi
NODE_SERVER_JS=node_history_server.js
# shellcheck source=node_server_lib.sh
source "$here/node_server_lib.sh"
start_node_server cli_history_interop --values 100

node_id="ns=1;s=History.Ramp"
t0=1767225600  # 2026-01-01T00:00:00Z
failures=0

# run_history NAME ARGS...: `uactor history URL NODE ARGS... --json`, bounded; its lines in $tmp/NAME.json.
run_history() {
    local name="$1"
    shift
    if ! timeout -k 5 60 "$uactor" history "$url" "$node_id" --timeout 20000 --json "$@" >"$tmp/$name.json" 2>"$tmp/$name.err"; then
        echo "cli_history_interop: FAIL: $name: uactor history exited with $?"
        tail -n 5 "$tmp/$name.err"
        failures=$((failures + 1))
        return 1
    fi
}

# expect NAME JQ_PROGRAM: the lines of NAME, slurped into an array, make JQ_PROGRAM true.
expect() {
    local name="$1" program="$2"
    if jq -e -s --argjson t0 "$t0" "$program" "$tmp/$name.json" >/dev/null; then
        echo "cli_history_interop: ok $name ($(wc -l <"$tmp/$name.json") values)"
    else
        echo "cli_history_interop: FAIL: $name: not as expected: $program"
        head -n 3 "$tmp/$name.json"
        failures=$((failures + 1))
    fi
}

# The ramp from FIRST, COUNT values, one second apart, DIRECTION 1 (forwards) or -1 (backwards);
# raw values keep both timestamps, status Good (0).
ramp='def ramp($first; $count; $dir):
        length == $count and
        (to_entries | all(.key as $k | .value as $v | ($first + $dir * $k) as $i |
            $v.node == "ns=1;s=History.Ramp" and $v.value.type == "Double" and $v.value.value == $i and
            $v.statusCode == 0 and $v.sourceTimestamp == ($t0 + $i | todate) and
            $v.serverTimestamp == $v.sourceTimestamp));'

run_history raw --start 2026-01-01T00:00:00Z --end 2026-01-01T00:01:39.5Z && expect raw "$ramp ramp(0; 100; 1)"
run_history paged --start 2026-01-01T00:00:00Z --end 2026-01-01T00:01:39.5Z --page 7 && expect paged "$ramp ramp(0; 100; 1)"
run_history backwards --start 2026-01-01T00:00:29.5Z --end 2026-01-01T00:00:19.5Z --page 4 && expect backwards "$ramp ramp(29; 10; -1)"
run_history max --start 2026-01-01T00:00:10Z --end 2026-01-01T00:01:39.5Z --max 5 && expect max "$ramp ramp(10; 5; 1)"

# Part 13 Average: the mean of an interval's raw values, 4.5 + 10 k for values 10k..10k+9, Good
# with the Calculated bit (HistorianBits 1), the interval's start as SourceTimestamp. Maximum
# 9 + 10 k, Good; node-opcua 2.186 stamps it with the interval's start and the Raw bits (0) where
# Part 13 asks for the maximum's own time, so only value and severity are checked for it.
intervals='def intervals(f; exact):
        length == 10 and
        (to_entries | all(.key as $k | .value as $v |
            $v.value.value == ($k | f) and $v.status == "Good" and
            ((exact | not) or ($v.statusCode == 1 and $v.sourceTimestamp == ($t0 + 10 * $k | todate)))));'
run_history average --start 2026-01-01T00:00:00Z --end 2026-01-01T00:01:40Z --aggregate Average --interval 10000 &&
    expect average "$intervals intervals(4.5 + 10 * .; true)"
run_history maximum --start 2026-01-01T00:00:00Z --end 2026-01-01T00:01:40Z --aggregate Maximum --interval 10000 &&
    expect maximum "$intervals intervals(9 + 10 * .; false)"

if [ "$failures" -ne 0 ]; then
    echo "cli_history_interop: FAIL ($failures checks)"
    echo "--- node-opcua server stderr (last lines):"
    tail -n 20 "$tmp/server.err"
    exit 1
fi
echo "cli_history_interop: PASS"
exit 0
