#!/usr/bin/env bash
# PubSub UADP over UDP (Part 14 §7.2.4, §7.3.2; docs/pubsub.md) between real `uactor run` processes:
# one publishes the demo's Demo.Dynamic.* as UADP datagrams, subscribers (other processes) write
# them into FromUdp.*, which `uactor read` checks (values Good and moving, the same PublisherId and
# WriterGroupId filters as the plant file has); then the publisher is stopped and the subscribers'
# targets turn BadNoCommunication after MessageReceiveTimeout.
#
#   pubsub_udp.sh unicast UACTOR SRC     127.0.0.1 and a free UDP port: one subscriber
#   pubsub_udp.sh multicast UACTOR SRC   in a network namespace the script creates (root only: lo
#                                         up with multicast on and a route for 224.0.0.0/4), group
#                                         239.255.40.41, two subscribers that both get every value
# Exit 0 = passed; 77 (ctest's skip) for multicast when not root or without network namespaces.
set -u
mode="${1:?usage: pubsub_udp.sh unicast|multicast UACTOR SRC}"
uactor="${2:?}"
src="${3:?}"
tmp="$(mktemp -d)"
ns=""
pids=()
failures=0
fail() { echo "FAIL $*"; failures=$((failures + 1)); }
cleanup() {
    for p in "${pids[@]}"; do kill -KILL "$p" 2>/dev/null; done
    wait 2>/dev/null
    [ -n "$ns" ] && ip netns delete "$ns" 2>/dev/null
    rm -rf "$tmp"
}
trap cleanup EXIT

# Inside the namespace for multicast; here otherwise.
in_ns() { if [ -n "$ns" ]; then ip netns exec "$ns" "$@"; else "$@"; fi; }

if [ "$mode" = multicast ]; then
    if [ "$(id -u)" -ne 0 ]; then echo "pubsub_udp: multicast needs root for a network namespace: skipped"; exit 77; fi
    ns="uactor-udp-$$"
    if ! ip netns add "$ns" 2>"$tmp/netns.err"; then
        echo "pubsub_udp: no network namespace ($(cat "$tmp/netns.err")): skipped"
        ns=""
        exit 77
    fi
    ip netns exec "$ns" ip link set lo up &&
        ip netns exec "$ns" ip link set lo multicast on &&
        ip netns exec "$ns" ip route add 224.0.0.0/4 dev lo || { echo "FAIL setting up lo in $ns"; exit 1; }
    host=239.255.40.41
    port=4841  # the namespace is ours alone
    extra='multicast_interface = "127.0.0.1"
multicast_ttl = 1'
    subscribers=2
else
    host=127.0.0.1
    port="$(python3 -c 'import socket; s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')"
    extra=''
    subscribers=1
fi
echo "pubsub_udp: $mode, opc.udp://$host:$port"

cat >"$tmp/pub.toml" <<EOF
[server]
demo = true
demo_writer_interval_ms = 100

[[server.endpoints]]
port = 0
security = ["none"]

[pubsub]

[[pubsub.connections]]
name = "udp"
url = "opc.udp://$host:$port"
publisher_id = 1001
publisher_id_type = "uint16"
$extra

[[pubsub.connections.writer_groups]]
name = "DynamicUadp"
id = 2
publishing_interval_ms = 100
keep_alive_ms = 1000

[[pubsub.connections.writer_groups.writers]]
name = "DemoUadp"
id = 11
key_frame_count = 10
encoding = "raw"
variables = ["ns=1;s=Demo.Dynamic.Counter", "ns=1;s=Demo.Dynamic.Sine", "ns=1;s=Demo.Dynamic.Time"]

[metrics]
port = 0
EOF

cat >"$tmp/sub.toml" <<EOF
[server]

[[server.endpoints]]
port = 0
security = ["none"]

[[namespaces]]
uri = "urn:example:pubsub"

[[objects]]
id = "ns=2;s=FromUdp"

[[variables]]
id = "ns=2;s=FromUdp.Counter"
parent = "ns=2;s=FromUdp"
type = "UInt32"

[[variables]]
id = "ns=2;s=FromUdp.Sine"
parent = "ns=2;s=FromUdp"
type = "Double"

[[variables]]
id = "ns=2;s=FromUdp.Time"
parent = "ns=2;s=FromUdp"
type = "DateTime"

[pubsub]

[[pubsub.connections]]
name = "udp"
url = "opc.udp://$host:$port"
$extra

[[pubsub.connections.readers]]
name = "BackUdp"
publisher_id = 1001
writer_group_id = 2
writer_id = 11
message_receive_timeout_ms = 2000
fields = ["Counter", "Sine", "Time"]

[[pubsub.connections.readers.targets]]
field = "Counter"
node = "ns=2;s=FromUdp.Counter"

[[pubsub.connections.readers.targets]]
field = "Sine"
node = "ns=2;s=FromUdp.Sine"

[[pubsub.connections.readers.targets]]
field = "Time"
node = "ns=2;s=FromUdp.Time"

[metrics]
port = 0
EOF

# start NAME CONFIG: runs `uactor run`, waits for its endpoint URL (into url_NAME) and metrics URL.
start() {
    local name=$1 config=$2
    # Started directly (`ip netns exec` execs it): $! is uactor's own PID, which SIGINT stops.
    if [ -n "$ns" ]; then
        ip netns exec "$ns" "$uactor" run --config "$config" --host 127.0.0.1 >"$tmp/$name.out" 2>"$tmp/$name.err" </dev/null &
    else
        "$uactor" run --config "$config" --host 127.0.0.1 >"$tmp/$name.out" 2>"$tmp/$name.err" </dev/null &
    fi
    pids+=($!)
    eval "pid_$name=$!"
    local u=""
    for _ in $(seq 200); do
        u="$(sed -n 's#^listening on \(opc\.tcp://[^[:space:]]*\).*#\1#p' "$tmp/$name.out" | head -n 1)"
        [ -n "$u" ] && break
        sleep 0.1
    done
    [ -n "$u" ] || { fail "$name: uactor run did not start"; tail -n 20 "$tmp/$name.err"; exit 1; }
    eval "url_$name='$u'"
    eval "metrics_$name='$(sed -n 's#^metrics on \(http://[^[:space:]]*\).*#\1#p' "$tmp/$name.out" | head -n 1)'"
}

# read_counter URL: "STATUS VALUE" of FromUdp.Counter.
read_counter() {
    in_ns "$uactor" read "$1" "ns=2;s=FromUdp.Counter" --json 2>/dev/null |
        python3 -c 'import json,sys; o=json.loads(sys.stdin.readline()); v=o.get("value") or {}; print(o["status"], v.get("value", "-"))'
}

metric() {
    in_ns python3 - "$1" "$2" <<'PY'
import sys, urllib.request
text = urllib.request.urlopen(sys.argv[1], timeout=5).read().decode()
print(sum(int(float(l.split()[-1])) for l in text.splitlines() if l.startswith(sys.argv[2] + " ") or l.startswith(sys.argv[2] + "{")))
PY
}

for i in $(seq "$subscribers"); do start "sub$i" "$tmp/sub.toml"; done
start pub "$tmp/pub.toml"

# Each subscriber's FromUdp.Counter: Good, and moving with the publisher's counter.
for i in $(seq "$subscribers"); do
    eval "u=\$url_sub$i"
    first=""
    for _ in $(seq 50); do
        first="$(read_counter "$u")"
        case "$first" in Good\ [0-9]*) [ "${first#Good }" -gt 0 ] && break ;; esac
        sleep 0.1
    done
    sleep 1
    second="$(read_counter "$u")"
    if [ "${first%% *}" = Good ] && [ "${second%% *}" = Good ] && [ "${second#Good }" -gt "${first#Good }" ]; then
        echo "ok   subscriber $i: FromUdp.Counter Good and moving (${first#Good } then ${second#Good })"
    else
        fail "subscriber $i: FromUdp.Counter read '$first' then '$second'"
        tail -n 20 "$tmp/sub$i.err"
    fi
    eval "m=\$metrics_sub$i"
    received="$(metric "$m" uactor_pubsub_values_received_total)" errors="$(metric "$m" uactor_pubsub_decode_errors_total)"
    gaps="$(metric "$m" uactor_pubsub_sequence_gaps_total)"
    if [ "$received" -gt 10 ] && [ "$errors" -eq 0 ]; then
        echo "ok   subscriber $i /metrics: $received values received, $errors decode errors, $gaps sequence gaps"
    else
        fail "subscriber $i /metrics: received $received, decode errors $errors"
    fi
done
sent="$(metric "$metrics_pub" uactor_pubsub_values_sent_total)" dropped="$(metric "$metrics_pub" uactor_pubsub_messages_dropped_total)"
if [ "$sent" -gt 10 ] && [ "$dropped" -eq 0 ]; then
    echo "ok   publisher /metrics: $sent values sent, none dropped"
else
    fail "publisher /metrics: sent $sent, dropped $dropped"
fi

# The publisher stops: MessageReceiveTimeout (2 s) passes, the targets go BadNoCommunication.
kill -INT "$pid_pub"
wait "$pid_pub" 2>/dev/null
sleep 3
for i in $(seq "$subscribers"); do
    eval "u=\$url_sub$i"
    got="$(read_counter "$u")"
    if [ "${got%% *}" = BadNoCommunication ]; then
        echo "ok   subscriber $i: FromUdp.Counter BadNoCommunication once the publisher is gone"
    else
        fail "subscriber $i: FromUdp.Counter '$got' after the publisher stopped"
    fi
done
for i in $(seq "$subscribers"); do
    eval "p=\$pid_sub$i"
    kill -INT "$p"
    wait "$p"
    rc=$?
    [ "$rc" -eq 0 ] || fail "subscriber $i exited $rc"
done
pids=()
[ "$failures" -eq 0 ] && { echo "pubsub_udp $mode: passed"; exit 0; }
echo "pubsub_udp $mode: $failures failure(s)"
exit 1
