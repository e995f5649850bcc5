#!/usr/bin/env bash
# `uactor subscribe --reconnect` (docs/cli.md) across a server killed with SIGKILL and started again
# on the same port: the command prints the connection events, the values go on after the restart,
# and the exit status is 1 (the restart lost the server's queues: data lost).
#
#   bash cli_reconnect_test.sh UACTOR_BINARY
set -u
uactor="${1:?usage: cli_reconnect_test.sh UACTOR_BINARY}"
tmp="$(mktemp -d)"
server_pid="" sub_pid=""
cleanup() {
    [ -n "$sub_pid" ] && kill "$sub_pid" 2>/dev/null
    [ -n "$server_pid" ] && kill -9 "$server_pid" 2>/dev/null
    wait 2>/dev/null
    rm -rf "$tmp"
}
trap cleanup EXIT
fail() { echo "FAIL $*"; echo "--- subscribe stdout"; cat "$tmp/sub.out"; echo "--- stderr"; cat "$tmp/sub.err"; exit 1; }

port="$(python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')"
start_server() {
    "$uactor" run --port "$port" --host 127.0.0.1 --security none --writer-interval 100 \
        >"$tmp/server.out" 2>"$tmp/server.err" </dev/null &
    server_pid=$!
    for _ in $(seq 100); do grep -q "^listening on" "$tmp/server.out" && return 0; sleep 0.1; done
    fail "the server did not start: $(cat "$tmp/server.err")"
}
start_server
"$uactor" subscribe --reconnect --seconds 12 --interval 100 "opc.tcp://127.0.0.1:$port" "ns=1;s=Demo.Dynamic.Counter" \
    >"$tmp/sub.out" 2>"$tmp/sub.err" &
sub_pid=$!
for _ in $(seq 100); do [ "$(wc -l <"$tmp/sub.out")" -ge 5 ] && break; sleep 0.1; done
[ "$(wc -l <"$tmp/sub.out")" -ge 5 ] || fail "no values before the kill"
kill -9 "$server_pid"
wait "$server_pid" 2>/dev/null
sleep 1
before=$(wc -l <"$tmp/sub.out")
start_server
for _ in $(seq 100); do grep -q "reconnected" "$tmp/sub.err" && break; sleep 0.1; done
grep -q "connection lost" "$tmp/sub.err" || fail "no 'connection lost' line"
grep -q "reconnected, subscriptions recreated" "$tmp/sub.err" || fail "no 'reconnected, subscriptions recreated' line"
for _ in $(seq 100); do [ "$(wc -l <"$tmp/sub.out")" -ge $((before + 5)) ] && break; sleep 0.1; done
[ "$(wc -l <"$tmp/sub.out")" -ge $((before + 5)) ] || fail "no values after the restart"
wait "$sub_pid"
status=$?
sub_pid=""
[ "$status" -eq 1 ] || fail "exit status $status, expected 1 (data lost at the restart)"
echo "cli_reconnect: PASS ($before values before the kill, $(wc -l <"$tmp/sub.out") in all; $(grep -c . "$tmp/sub.err") event lines)"
