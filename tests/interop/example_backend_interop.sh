#!/usr/bin/env bash
# node-opcua's client against examples/scada_backend (docs/embedding.md), the binary that
# tests/package/consumer_test.sh built against the installed package. Starts
#   SCADA_BACKEND --host 127.0.0.1 --port 0 --pki TMP --paused --pushes N --interval-ms 50
# (10,000 tags, the example's default; --machinery with node-opcua-nodesets' files), waits (at
# most 20 s) for its `listening on opc.tcp://...` line, runs node_scada_client.js against it (which
# starts the device, subscribes to 1,000 tags and counts every change, and finds the machine),
# stops the backend with SIGINT (exit 0 within 10 s), and compares the counts of both ends: the device's `pushed N batches` lines on the backend's stdout, and the
# client's `received C changes` line (C = N x 1,000, each tag's value the push's sequence number).
#
#   bash example_backend_interop.sh SCADA_BACKEND
#
# Exit 0 = every step passed, 77 (ctest's skip) when node or tests/interop/node_modules is
# missing (run `npm ci` in tests/interop; scripts/setup.sh does), 1 on any failure.
set -u

here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
if ! command -v node >/dev/null 2>&1; then
    echo "skipped: node not found"
    exit 77
fi
if [ ! -d "$here/node_modules" ]; then
    echo "skipped: $here/node_modules missing (npm ci)"
    exit 77
fi
if [ $# -ne 1 ]; then
    echo "usage: example_backend_interop.sh SCADA_BACKEND" >&2
    exit 1
fi
if [ ! -x "$1" ]; then
    echo "example_backend_interop: FAIL: $1 is not an executable (package.consumer_builds_against_install builds it)"
    exit 1
fi

tags=10000
pushes=30
interval_ms=50
slow_ms=50
monitored=1000

tmp="$(mktemp -d)"
server_pid=""
cleanup() {
    if [ -n "$server_pid" ]; then
        kill -KILL -- "-$server_pid" 2>/dev/null
        wait "$server_pid" 2>/dev/null
    fi
    rm -rf "$tmp"
}
trap cleanup EXIT
trap 'echo "example_backend_interop: interrupted"; exit 1' INT TERM

show_server_output() {
    echo "--- backend stdout (last 40 lines):"
    tail -n 40 "$tmp/server.out"
    echo "--- backend stderr (last 40 lines):"
    tail -n 40 "$tmp/server.err"
    echo "---"
}
failed() {
    echo "example_backend_interop: FAIL: $*"
    show_server_output
    exit 1
}

# Job control on: the backend gets its own process group and SIGINT is not ignored in it.
set -m
server_cmd=("$1" --host 127.0.0.1 --port 0 --pki "$tmp/pki" --paused --pushes "$pushes"
            --interval-ms "$interval_ms" --slow-ms "$slow_ms" --tags "$tags")
# The Machinery machine (machine.cpp) from node-opcua-nodesets' DI, IA and Machinery files.
nodesets="$here/node_modules/node-opcua-nodesets/nodesets"
machinery=()
if [ -f "$nodesets/Opc.Ua.Machinery.NodeSet2.xml" ]; then
    server_cmd+=(--machinery "$nodesets")
    machinery=(--machinery)
fi
echo "example_backend_interop: starting ${server_cmd[*]}"
: >"$tmp/server.out"  # there before the loop below reads it
"${server_cmd[@]}" >"$tmp/server.out" 2>"$tmp/server.err" </dev/null &
server_pid=$!
set +m

endpoint=""
deadline=$((SECONDS + 21))
while [ "$SECONDS" -lt "$deadline" ]; do
    endpoint="$(sed -n 's#^listening on \(opc\.tcp://[^[:space:]]*\).*#\1#p' "$tmp/server.out" | head -n 1)"
    [ -n "$endpoint" ] && break
    if ! kill -0 "$server_pid" 2>/dev/null; then
        wait "$server_pid"
        failed "the backend exited with status $? before it printed 'listening on opc.tcp://...'"
    fi
    sleep 0.1
done
[ -n "$endpoint" ] || failed "no 'listening on opc.tcp://...' line on the backend's stdout within 20 s"
echo "example_backend_interop: backend pid $server_pid listens on $endpoint"

client_status=0
timeout -k 5 110 node "$here/node_scada_client.js" "$endpoint" --tags "$tags" --pushes "$pushes" \
    --interval-ms "$interval_ms" --slow-ms "$slow_ms" --timeout 100 "${machinery[@]}" >"$tmp/client.out" 2>"$tmp/client.err" \
    || client_status=$?
cat "$tmp/client.out"
if [ "$client_status" -ne 0 ]; then
    echo "--- node_scada_client.js stderr (last lines):"
    tail -n 20 "$tmp/client.err"
fi

# SIGINT: the backend's sigwait takes it, stops the device and the runtime, exits 0.
stop_status=0
if ! kill -0 "$server_pid" 2>/dev/null; then
    wait "$server_pid"
    echo "example_backend_interop: FAIL: the backend exited by itself (status $?) before SIGINT"
    stop_status=1
else
    kill -INT "$server_pid"
    deadline=$((SECONDS + 11))
    while [ "$SECONDS" -lt "$deadline" ]; do
        kill -0 "$server_pid" 2>/dev/null || break
        sleep 0.1
    done
    if kill -0 "$server_pid" 2>/dev/null; then
        echo "example_backend_interop: FAIL: the backend still runs 10 s after SIGINT"
        stop_status=1
    else
        wait "$server_pid"
        code=$?
        server_pid=""
        if [ "$code" -ne 0 ]; then
            echo "example_backend_interop: FAIL: the backend exited with status $code after SIGINT, expected 0"
            stop_status=1
        else
            echo "example_backend_interop: ok the backend exited with status 0 after SIGINT"
        fi
    fi
fi

# Both ends: what the device says it pushed, what the client says it received.
count_status=0
want_values=$((pushes * tags))
if ! grep -qx "device: pushed $pushes batches of $tags tags ($want_values values), paused" "$tmp/server.out"; then
    echo "example_backend_interop: FAIL: the backend did not report 'device: pushed $pushes batches of $tags tags ($want_values values), paused'"
    count_status=1
fi
if ! grep -q "^device: pushed $pushes batches, $want_values values in all" "$tmp/server.out"; then
    echo "example_backend_interop: FAIL: the backend's final count is not $pushes batches, $want_values values:" \
         "$(grep '^device: pushed' "$tmp/server.out" | tail -n 1)"
    count_status=1
fi
received="$(sed -n 's/^received \([0-9]*\) changes on \([0-9]*\) items.*/\1 \2/p' "$tmp/client.out")"
if [ "$received" != "$((pushes * monitored)) $monitored" ]; then
    echo "example_backend_interop: FAIL: the client received '${received:-nothing}' (changes items)," \
         "expected $((pushes * monitored)) $monitored: $pushes pushes x $monitored monitored tags"
    count_status=1
else
    echo "example_backend_interop: ok device pushed $pushes batches ($want_values values), the client received $((pushes * monitored)) changes of its $monitored tags"
fi
# The backend saw the Writes and Calls the client made, as callbacks.
for line in 'setpoint ns=[0-9]*;s=Plant.Setpoint3 = 42.5 by anonymous: accepted' \
            'setpoint ns=[0-9]*;s=Plant.Setpoint3 = 150 by anonymous: Bad_OutOfRange' \
            'pump: started at 1500 rpm by anonymous' 'pump: StartPump(5000) by anonymous: Bad_OutOfRange' \
            'device: started by anonymous'; do
    if ! grep -q "^$line\$" "$tmp/server.out"; then
        echo "example_backend_interop: FAIL: no '$line' on the backend's stdout"
        count_status=1
    fi
done

if [ "$client_status" -ne 0 ] || [ "$stop_status" -ne 0 ] || [ "$count_status" -ne 0 ]; then
    [ "$client_status" -ne 0 ] && echo "example_backend_interop: FAIL: node_scada_client.js exited with status $client_status"
    show_server_output
    exit 1
fi
echo "example_backend_interop: PASS"
exit 0
