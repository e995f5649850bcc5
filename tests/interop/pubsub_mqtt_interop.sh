#!/usr/bin/env bash
# examples/config/pubsub.toml served by `uactor run` against a mosquitto broker this script starts
# on a free 127.0.0.1 port (docs/pubsub.md): the `mqtt` npm package checks the JSON messages field by
# field and node-opcua reads the dataset the server subscribed back (node_pubsub_check.js); then the
# broker is stopped and the subscribed variables turn BadNoCommunication.
#
#   bash pubsub_mqtt_interop.sh UACTOR_BINARY SOURCE_DIR
#
# Exit 0 = all passed; 77 (ctest's skip) without node, node_modules (with mqtt), Node 20.19 or newer
# (node-opcua 2.18x is ES modules; scripts/setup.sh leaves node_modules out below it), or mosquitto;
# 1 otherwise.
set -u
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
if ! command -v node >/dev/null 2>&1; then echo "skipped: node not found"; exit 77; fi
if ! node -e 'const [a, b] = process.versions.node.split(".").map(Number); process.exit(a > 22 || (a === 22 && b >= 12) || (a === 20 && b >= 19) ? 0 : 1)'; then
    echo "skipped: Node $(node --version) cannot load node-opcua 2.18x (20.19 or newer)"; exit 77
fi
if [ ! -d "$here/node_modules/mqtt" ]; then echo "skipped: $here/node_modules/mqtt missing (npm ci)"; exit 77; fi
mosquitto="${UACTOR_MOSQUITTO:-/usr/sbin/mosquitto}"
if [ ! -x "$mosquitto" ]; then echo "skipped: no mosquitto broker ($mosquitto)"; exit 77; fi
uactor="${1:?usage: pubsub_mqtt_interop.sh UACTOR_BINARY SOURCE_DIR}"
src="${2:?usage: pubsub_mqtt_interop.sh UACTOR_BINARY SOURCE_DIR}"

tmp="$(mktemp -d)"
server_pid="" broker_pid=""
cleanup() {
    [ -n "$server_pid" ] && { kill -TERM "$server_pid" 2>/dev/null; wait "$server_pid" 2>/dev/null; }
    [ -n "$broker_pid" ] && { kill -TERM "$broker_pid" 2>/dev/null; wait "$broker_pid" 2>/dev/null; }
    rm -rf "$tmp"
}
trap cleanup EXIT

# A free port: bind port 0, read it, close; the broker then binds it (retried if taken meanwhile).
port=""
for _ in 1 2 3 4 5; do
    port="$(python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')"
    printf 'listener %s 127.0.0.1\nallow_anonymous true\npersistence false\nlog_dest stderr\n' "$port" >"$tmp/mosquitto.conf"
    "$mosquitto" -c "$tmp/mosquitto.conf" >/dev/null 2>"$tmp/mosquitto.log" &
    broker_pid=$!
    for _ in $(seq 50); do
        (exec 3<>"/dev/tcp/127.0.0.1/$port") 2>/dev/null && break
        kill -0 "$broker_pid" 2>/dev/null || break
        sleep 0.1
    done
    kill -0 "$broker_pid" 2>/dev/null && break
    wait "$broker_pid" 2>/dev/null
    broker_pid=""
done
[ -n "$broker_pid" ] || { echo "pubsub_mqtt_interop: FAIL: mosquitto did not start"; cat "$tmp/mosquitto.log"; exit 1; }
echo "pubsub_mqtt_interop: mosquitto on 127.0.0.1:$port"

# The example's UADP-over-UDP part (docs/pubsub.md) on a free UDP port of its own: it counts in the
# metrics below as one more connection up.
udp_port="$(python3 -c 'import socket; s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')"
sed -e 's/^port = [0-9]*/port = 0/' -e "s#mqtt://127.0.0.1:1883#mqtt://127.0.0.1:$port#" \
    -e "s#opc.udp://127.0.0.1:4841#opc.udp://127.0.0.1:$udp_port#" \
    "$src/examples/config/pubsub.toml" >"$tmp/pubsub.toml"
printf '\n[metrics]\nport = 0\n' >>"$tmp/pubsub.toml"
"$uactor" run --config "$tmp/pubsub.toml" --host 127.0.0.1 >"$tmp/server.out" 2>"$tmp/server.err" </dev/null &
server_pid=$!
url=""
for _ in $(seq 300); do
    url="$(sed -n 's#^listening on \(opc\.tcp://[^[:space:]]*\).*#\1#p' "$tmp/server.out" | head -n 1)"
    [ -n "$url" ] && break
    kill -0 "$server_pid" 2>/dev/null || break
    sleep 0.1
done
if [ -z "$url" ]; then echo "pubsub_mqtt_interop: FAIL: uactor run did not listen"; cat "$tmp/server.out" "$tmp/server.err"; exit 1; fi

metrics="$(sed -n 's#^metrics on \(http://[^[:space:]]*\).*#\1#p' "$tmp/server.out" | head -n 1)"
# metric NAME: its value in /metrics (the sum over the endpoint label's samples).
metric() {
    python3 - "$metrics" "$1" <<'EOP'
import sys, urllib.request
text = urllib.request.urlopen(sys.argv[1], timeout=10).read().decode()
print(int(sum(float(l.split()[-1]) for l in text.splitlines() if l.startswith(sys.argv[2] + "{") or l.startswith(sys.argv[2] + " "))))
EOP
}
failures=0
fail() { echo "FAIL $*"; failures=$((failures + 1)); }
timeout -k 5 90 node "$here/node_pubsub_check.js" "mqtt://127.0.0.1:$port" "$url" --seconds 8
[ $? -eq 0 ] || { failures=$((failures + 1)); tail -n 30 "$tmp/server.err"; }
# The PublishSubscribe Object (Part 14 §9.1) as node-opcua browses and reads it.
timeout -k 5 60 node "$here/node_pubsub_object.js" "$url" up
[ $? -eq 0 ] || { failures=$((failures + 1)); tail -n 30 "$tmp/server.err"; }
if [ -z "$metrics" ]; then
    fail "uactor run did not print its metrics URL"
else
    sent="$(metric uactor_pubsub_messages_sent_total)" values="$(metric uactor_pubsub_values_sent_total)"
    up="$(metric uactor_pubsub_connections_up)" received="$(metric uactor_pubsub_values_received_total)"
    if [ "$sent" -gt 10 ] && [ "$values" -gt 30 ] && [ "$up" -eq 2 ] && [ "$received" -gt 30 ]; then
        echo "ok   /metrics: $sent NetworkMessages and $values values sent, $received values received, 2 connections up (MQTT, UDP)"
    else
        fail "/metrics: sent $sent, values $values, up $up, received $received"
    fi
fi

# The broker goes: the reader's MessageReceiveTimeout (3 s) passes.
kill -TERM "$broker_pid" 2>/dev/null; wait "$broker_pid" 2>/dev/null; broker_pid=""
sleep 4
timeout -k 5 60 node "$here/node_pubsub_check.js" --silent "$url"
[ $? -eq 0 ] || { failures=$((failures + 1)); tail -n 30 "$tmp/server.err"; }
timeout -k 5 60 node "$here/node_pubsub_object.js" "$url" down
[ $? -eq 0 ] || { failures=$((failures + 1)); tail -n 30 "$tmp/server.err"; }
grep -q "lost the broker" "$tmp/server.err" || fail "the server did not log the broker's loss"
if [ -n "$metrics" ]; then
    up="$(metric uactor_pubsub_connections_up)" queued="$(metric uactor_pubsub_queue_depth)"
    timeouts="$(metric uactor_pubsub_reader_timeouts_total)"
    if [ "$up" -eq 1 ] && [ "$queued" -ge 4 ] && [ "$timeouts" -ge 1 ]; then
        echo "ok   /metrics without the broker: 1 connection up (UDP), $queued NetworkMessages queued, $timeouts reader timeout(s)"
    else
        fail "/metrics without the broker: up $up, queued $queued, reader timeouts $timeouts"
    fi
fi

kill -INT "$server_pid" 2>/dev/null
for _ in $(seq 100); do kill -0 "$server_pid" 2>/dev/null || break; sleep 0.1; done
if kill -0 "$server_pid" 2>/dev/null; then
    fail "uactor run did not stop within 10 s of SIGINT"
else
    # Its exit status: 0, also under ASan/LSan (a leak at the end is a non-zero exit).
    wait "$server_pid"
    rc=$?
    server_pid=""
    if [ "$rc" -eq 0 ]; then echo "ok   uactor run stopped on SIGINT with status 0"; else fail "uactor run exited $rc"; tail -n 40 "$tmp/server.err"; fi
fi
[ "$failures" -eq 0 ] && { echo "pubsub_mqtt_interop: passed"; exit 0; }
echo "pubsub_mqtt_interop: $failures failures"
exit 1
