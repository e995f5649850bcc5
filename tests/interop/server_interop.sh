#!/usr/bin/env bash
# node-opcua's client against our server: starts `UACTOR_BINARY run --host 127.0.0.1 --port 0
# [SERVER_ARGS...]`, waits (at most 20 s) for its `listening on opc.tcp://HOST:PORT` line on
# stdout, runs CLIENT_JS (default node_client.js, in this folder) against that endpoint, then
# stops the server with SIGINT (what Ctrl-C sends) and checks that it exits within 10 s with
# status 0. subscription_interop.sh runs node_subscribe.js this way.
#
#   bash server_interop.sh UACTOR_BINARY [CLIENT_JS [SERVER_ARGS...]]
#   UACTOR_INTEROP_SERVER_CMD="node tests/interop/node_server.js" bash server_interop.sh
#
# UACTOR_INTEROP_SERVER_CMD, when set, is the server command instead (word-split, run as is):
# the driver's own check against node-opcua's server.
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

if [ -n "${UACTOR_INTEROP_SERVER_CMD:-}" ]; then
    # shellcheck disable=SC2206 # word splitting is the point
    server_cmd=(${UACTOR_INTEROP_SERVER_CMD})
else
    if [ $# -lt 1 ]; then
        echo "usage: server_interop.sh UACTOR_BINARY [CLIENT_JS [SERVER_ARGS...]]" >&2
        exit 1
    fi
    if [ ! -x "$1" ]; then
        echo "server_interop: $1 is not an executable" >&2
        exit 1
    fi
    server_cmd=("$1" run --host 127.0.0.1 --port 0 "${@:3}")
fi
client_js="${2:-node_client.js}"

tmp="$(mktemp -d)"
server_pid=""
cleanup() {
    if [ -n "$server_pid" ]; then
        # The server's own process group (set -m below): whatever it started goes too.
        kill -KILL -- "-$server_pid" 2>/dev/null
        wait "$server_pid" 2>/dev/null
    fi
    rm -rf "$tmp"
}
trap cleanup EXIT
trap 'echo "server_interop: interrupted"; exit 1' INT TERM

show_server_output() {
    echo "--- server stdout:"
    tail -n 40 "$tmp/server.out"
    echo "--- server stderr:"
    tail -n 40 "$tmp/server.err"
    echo "---"
}

failed() {
    echo "server_interop: FAIL: $*"
    show_server_output
    exit 1
}

# Job control on: the server gets its own process group and, unlike a background command of a
# non-interactive shell, does not start with SIGINT ignored, so SIGINT tests its handler.
set -m
echo "server_interop: starting ${server_cmd[*]}"
"${server_cmd[@]}" >"$tmp/server.out" 2>"$tmp/server.err" </dev/null &
server_pid=$!
set +m

endpoint=""
deadline=$((SECONDS + 21))  # whole seconds: at least 20 s
while [ "$SECONDS" -lt "$deadline" ]; do
    endpoint="$(sed -n 's#^listening on \(opc\.tcp://[^[:space:]]*\).*#\1#p' "$tmp/server.out" | head -n 1)"
    [ -n "$endpoint" ] && break
    if ! kill -0 "$server_pid" 2>/dev/null; then
        wait "$server_pid"
        failed "the server exited with status $? before it printed 'listening on opc.tcp://...'"
    fi
    sleep 0.1
done
if [ -z "$endpoint" ]; then
    failed "no 'listening on opc.tcp://...' line on the server's stdout within 20 s"
fi
echo "server_interop: server pid $server_pid listens on $endpoint"

# The client script bounds itself (60 s); timeout(1) bounds it in case node itself hangs.
client_status=0
timeout -k 5 75 node "$here/$client_js" "$endpoint" --timeout 60 2>"$tmp/client.err" || client_status=$?
if [ "$client_status" -ne 0 ]; then
    echo "--- $client_js stderr (last lines):"
    tail -n 20 "$tmp/client.err"
fi

# Ctrl-C stops the server cleanly: SIGINT, exit within 10 s, status 0.
# (20 + 80 + 11 s at most in all: under the 120 s ctest TIMEOUT.)
stop_status=0
if ! kill -0 "$server_pid" 2>/dev/null; then
    wait "$server_pid"
    echo "server_interop: FAIL: the server exited by itself (status $?) before SIGINT"
    stop_status=1
else
    kill -INT "$server_pid"
    deadline=$((SECONDS + 11))  # at least 10 s
    while [ "$SECONDS" -lt "$deadline" ]; do
        kill -0 "$server_pid" 2>/dev/null || break
        sleep 0.1
    done
    if kill -0 "$server_pid" 2>/dev/null; then
        echo "server_interop: FAIL: the server still runs 10 s after SIGINT"
        stop_status=1
    else
        wait "$server_pid"
        code=$?
        if [ "$code" -ne 0 ]; then
            if [ "$code" -eq 130 ]; then
                echo "server_interop: FAIL: SIGINT killed the server (status 130): no clean shutdown on Ctrl-C"
            else
                echo "server_interop: FAIL: the server exited with status $code after SIGINT, expected 0"
            fi
            stop_status=1
        else
            echo "server_interop: ok the server exited with status 0 after SIGINT"
        fi
    fi
fi

if [ "$client_status" -ne 0 ] || [ "$stop_status" -ne 0 ]; then
    [ "$client_status" -ne 0 ] && echo "server_interop: FAIL: $client_js exited with status $client_status"
    show_server_output
    exit 1
fi
echo "server_interop: PASS"
exit 0
