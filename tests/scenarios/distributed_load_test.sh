#!/usr/bin/env bash
# Distributed load (docs/distributed-load.md): real `uactor agent` processes on 127.0.0.1 (port 0,
# each says its port), a real `uactor load --agents ...` coordinator with its child `uactor run`.
#
#   bash distributed_load_test.sh UACTOR_BINARY CASE
#
# CASE: runs            read and sub complete; the merged totals are the sums of the agents' rows
#       agent_killed    an agent killed mid-run is named, the exit is 1, the result partial, and the
#                       other agents stop (and take the next run)
#       coordinator_killed  the agents stop the load by themselves within a bound
#       agent_stalled   an agent that stops answering (SIGSTOP) is named and the run ends partial
#       coordinator_stalled  agents whose coordinator is silent stop after their silence limit
#       refusals        another version, an unreachable agent, a missing or wrong secret: a clear
#                       error before any load; the right secret runs
#       tls             agent and coordinator with certificates of one CA run; no TLS, or another
#                       CA's certificate, is refused
#       netns           three agents in network namespaces of their own (veth pairs on a bridge of
#                       the test), the child server on the bridge's address: a read run secured
#                       with SignAndEncrypt and a sub run complete and sum up; root only (77 elsewhere)
set -u
uactor="${1:?usage: distributed_load_test.sh UACTOR_BINARY CASE}"
case_name="${2:?usage: distributed_load_test.sh UACTOR_BINARY CASE}"
tmp="$(mktemp -d)"
pids=()
namespaces=()
bridge=""
cleanup() {
    for p in "${pids[@]}"; do kill -9 "$p" 2>/dev/null; done
    wait 2>/dev/null
    for ns in "${namespaces[@]}"; do ip netns del "$ns" 2>/dev/null; done  # takes its veth pair along
    [ -n "$bridge" ] && ip link del "$bridge" 2>/dev/null
    rm -rf "$tmp"
}
trap cleanup EXIT
fail() {
    echo "FAIL: $*"
    for f in "$tmp"/*.out "$tmp"/*.err; do [ -f "$f" ] && { echo "--- $f"; tail -n 30 "$f"; }; done
    exit 1
}

# start_agent NAME [ARGS...]: an agent on an ephemeral port of $agent_host, run through
# "${agent_wrap[@]}" (a network namespace); sets NAME_pid and NAME_addr.
agent_host=127.0.0.1
agent_wrap=()
start_agent() {
    local name=$1
    shift
    "${agent_wrap[@]}" "$uactor" agent --listen "$agent_host:0" "$@" >"$tmp/$name.out" 2>"$tmp/$name.err" </dev/null &
    local pid=$!
    pids+=("$pid")
    for _ in $(seq 100); do grep -q "^agent listening on" "$tmp/$name.out" && break; sleep 0.05; done
    local addr
    addr=$(sed -n 's/^agent listening on \([^ ]*\) .*/\1/p' "$tmp/$name.out")
    [ -n "$addr" ] || fail "agent $name did not start"
    printf -v "${name}_pid" %s "$pid"
    printf -v "${name}_addr" %s "$addr"
}

# check_sums FILE: the JSON line's totals are the sums of its agents' rows, percentiles from the merge.
check_sums() {
    python3 - "$1" <<'EOF' || fail "the merged totals are not the sums of the agents ($1)"
import json, sys
r = json.loads(open(sys.argv[1]).read().strip().splitlines()[-1])
d = r["distributed"]
agents = d["agents"]
assert d["partial"] is False, d
assert len(agents) == d["agents_count"] == 3, agents
assert all(a["state"] == "complete" for a in agents), agents
assert r["requests"] == sum(a["requests"] for a in agents), (r["requests"], agents)
assert r["errors"] == sum(a["errors"] for a in agents) == 0
assert d["latency_count"] == sum(a["latency_count"] for a in agents) == r["requests"]
assert r["sessions"] == sum(a["sessions"] for a in agents)
assert all(a["requests"] > 0 for a in agents), agents
rate = sum(a["requests_per_s"] for a in agents)
assert abs(r["requests_per_s"] - rate) <= 0.02 * rate + 1, (r["requests_per_s"], rate)
# The exact max survives the merge; the merged p99 lies within the agents' p99s.
assert abs(r["latency_max_us"] - max(a["latency_max_us"] for a in agents)) < 0.01
assert min(a["latency_p99_us"] for a in agents) - 0.01 <= r["latency_p99_us"] <= max(a["latency_p99_us"] for a in agents) + 0.01
assert r.get("server_cpu_us_per_req") is not None, "no server figures"
if "lost_changes" in r:
    assert r["lost_changes"] == 0, r
print("sums ok:", r["requests"], "=", "+".join(str(a["requests"]) for a in agents),
      "skew %.2f ms, collection %.0f ms" % (d["start_skew_ms"], d["collection_ms"]))
EOF
}

case "$case_name" in
runs)
    start_agent a1
    start_agent a2
    start_agent a3
    agents="$a1_addr,$a2_addr,$a3_addr"
    "$uactor" load --agents "$agents" --scenario read --sessions 6 --nodes 1 --inflight 2 --warmup 0.3 --duration 1 \
        --json >"$tmp/read.out" 2>"$tmp/read.err" || fail "the read run exited $?"
    check_sums "$tmp/read.out"
    # 3 sessions x 2 subscriptions x 10 items = 60 items on 60 distinct variables: every change must
    # reach every item of every agent (each agent's share monitors the variables after the others').
    "$uactor" load --agents "$agents" --scenario sub --sessions 3 --subs 2 --nodes 10 --variables 60 --pub 100 \
        --write-interval 100 --warmup 0.5 --duration 1 --json >"$tmp/sub.out" 2>"$tmp/sub.err" ||
        fail "the sub run exited $?"
    check_sums "$tmp/sub.out"
    # The text block: a row per agent and the total.
    "$uactor" load --agents "$agents" --scenario read --sessions 3 --nodes 1 --warmup 0.2 --duration 0.5 \
        >"$tmp/text.out" 2>"$tmp/text.err" || fail "the text run exited $?"
    for a in "$a1_addr" "$a2_addr" "$a3_addr" total "distributed over 3 agents"; do
        grep -q "$a" "$tmp/text.out" || fail "no row '$a' in the result block"
    done
    ;;
agent_killed)
    start_agent a1
    start_agent a2
    start_agent a3
    "$uactor" load --agents "$a1_addr,$a2_addr,$a3_addr" --scenario read --sessions 3 --nodes 1 --warmup 0.5 \
        --duration 30 --json >"$tmp/run.out" 2>"$tmp/run.err" &
    coordinator=$!
    pids+=("$coordinator")
    for _ in $(seq 100); do grep -q "x 1 sessions" "$tmp/a2.err" && break; sleep 0.05; done
    sleep 1.5
    kill -9 "$a2_pid"
    # Bounded: the coordinator must end long before its 30 s window would.
    for _ in $(seq 150); do kill -0 "$coordinator" 2>/dev/null || break; sleep 0.1; done
    kill -0 "$coordinator" 2>/dev/null && fail "the coordinator still runs 15 s after the agent died"
    wait "$coordinator"
    rc=$?
    [ "$rc" -eq 1 ] || fail "the coordinator exited $rc, not 1"
    grep -q "agent $a2_addr lost" "$tmp/run.err" || fail "the coordinator did not name the lost agent"
    python3 - "$tmp/run.out" "$a2_addr" <<'EOF' || fail "the result is not marked partial with the agent lost"
import json, sys
r = json.loads(open(sys.argv[1]).read().strip().splitlines()[-1])
d = r["distributed"]
assert d["partial"] is True
states = {a["agent"]: a["state"] for a in d["agents"]}
assert states[sys.argv[2]] == "lost", states
assert sorted(s for a, s in states.items() if a != sys.argv[2]) == ["stopped early", "stopped early"], states
assert r["requests"] == sum(a["requests"] for a in d["agents"])
EOF
    # The others stopped their load and take the next run.
    "$uactor" load --agents "$a1_addr,$a3_addr" --scenario read --sessions 2 --nodes 1 --warmup 0.2 --duration 0.5 \
        >"$tmp/next.out" 2>"$tmp/next.err" || fail "the surviving agents did not take the next run"
    ;;
coordinator_killed)
    start_agent a1 --silence-limit 2000
    start_agent a2 --silence-limit 2000
    start_agent a3 --silence-limit 2000
    # A server of its own, which outlives the coordinator: the load on it must stop all the same.
    port="$(python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')"
    "$uactor" run --port "$port" --host 127.0.0.1 --security none >"$tmp/server.out" 2>"$tmp/server.err" </dev/null &
    pids+=("$!")
    for _ in $(seq 100); do grep -q "^listening on" "$tmp/server.out" && break; sleep 0.1; done
    "$uactor" load --agents "$a1_addr,$a2_addr,$a3_addr" --endpoint "opc.tcp://127.0.0.1:$port" --scenario read \
        --sessions 3 --nodes 1 --warmup 0.5 --duration 30 >"$tmp/run.out" 2>"$tmp/run.err" &
    coordinator=$!
    pids+=("$coordinator")
    for _ in $(seq 100); do grep -q "x 1 sessions" "$tmp/a3.err" && break; sleep 0.05; done
    sleep 1.5
    grep -q "x 1 sessions" "$tmp/a3.err" || fail "the run did not start"
    kill -9 "$coordinator"
    killed_at=$(date +%s.%N)
    # Every agent stops its load and closes its sessions within 5 s (the down message at once; the
    # silence limit if the connection hung instead).
    for a in a1 a2 a3; do
        for _ in $(seq 100); do grep -q "run done" "$tmp/$a.err" && break; sleep 0.05; done
        grep -q "stopping its load" "$tmp/$a.err" || fail "agent $a did not stop the load by itself"
        grep -q "run done" "$tmp/$a.err" || fail "agent $a did not close its sessions"
    done
    took=$(python3 -c "import time; print('%.2f' % (time.time() - $killed_at))")
    python3 -c "import sys; sys.exit(0 if $took < 5 else 1)" || fail "the agents took ${took} s to stop"
    echo "agents stopped ${took} s after the coordinator was killed"
    ;;
refusals)
    start_agent old --report-version 0.0.0-other
    "$uactor" load --agents "$old_addr" --scenario read --sessions 1 --warmup 0 --duration 1 >"$tmp/v.out" 2>"$tmp/v.err"
    [ $? -eq 1 ] || fail "a version mismatch did not exit 1"
    grep -q "runs version '0.0.0-other'" "$tmp/v.err" || fail "the version mismatch is not named"
    grep -q "listening on" "$tmp/v.err" && fail "a server started despite the mismatch"
    free_port="$(python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')"
    "$uactor" load --agents "127.0.0.1:$free_port" --scenario read --sessions 1 --duration 1 >"$tmp/u.out" 2>"$tmp/u.err"
    [ $? -eq 1 ] || fail "an unreachable agent did not exit 1"
    grep -q "agent 127.0.0.1:$free_port is unreachable" "$tmp/u.err" || fail "the unreachable agent is not named"
    printf 'a shared secret of this test, long enough\n' >"$tmp/secret"
    printf 'another secret, just as long as the first\n' >"$tmp/other"
    chmod 600 "$tmp/secret" "$tmp/other"
    start_agent guarded --secret-file "$tmp/secret"
    "$uactor" load --agents "$guarded_addr" --scenario read --sessions 1 --duration 1 >"$tmp/s1.out" 2>"$tmp/s1.err"
    [ $? -eq 1 ] && grep -q "requires a shared secret" "$tmp/s1.err" || fail "no secret: not refused clearly"
    "$uactor" load --agents "$guarded_addr" --agent-secret-file "$tmp/other" --scenario read --sessions 1 --duration 1 \
        >"$tmp/s2.out" 2>"$tmp/s2.err"
    [ $? -eq 1 ] && grep -q "does not know the shared secret" "$tmp/s2.err" || fail "a wrong secret: not refused clearly"
    "$uactor" load --agents "$guarded_addr" --agent-secret-file "$tmp/secret" --scenario read --sessions 1 --nodes 1 \
        --warmup 0.2 --duration 0.5 >"$tmp/s3.out" 2>"$tmp/s3.err" || fail "the right secret did not run"
    ;;
agent_stalled)
    # Cut off rather than dead (SIGSTOP: the connection stays open, nothing answers): the coordinator's
    # progress poll names it after 2 s, the others stop, the result is partial.
    start_agent a1
    start_agent a2
    start_agent a3
    "$uactor" load --agents "$a1_addr,$a2_addr,$a3_addr" --scenario read --sessions 3 --nodes 1 --warmup 0.5 \
        --duration 30 --json >"$tmp/run.out" 2>"$tmp/run.err" &
    coordinator=$!
    pids+=("$coordinator")
    for _ in $(seq 100); do grep -q "x 1 sessions" "$tmp/a2.err" && break; sleep 0.05; done
    sleep 1.5
    kill -STOP "$a2_pid"
    for _ in $(seq 150); do kill -0 "$coordinator" 2>/dev/null || break; sleep 0.1; done
    kill -0 "$coordinator" 2>/dev/null && fail "the coordinator still runs 15 s after the agent stalled"
    wait "$coordinator"
    rc=$?
    kill -9 "$a2_pid"
    [ "$rc" -eq 1 ] || fail "the coordinator exited $rc, not 1"
    grep -q "agent $a2_addr lost .*progress poll" "$tmp/run.err" || fail "the coordinator did not name the stalled agent"
    grep -q '"partial":true' "$tmp/run.out" || fail "the result is not marked partial"
    for a in a1 a3; do grep -q "run done" "$tmp/$a.err" || fail "agent $a did not stop"; done
    ;;
coordinator_stalled)
    # A coordinator that stops answering without closing its connections: the agents stop the load
    # after their silence limit (1 s here).
    start_agent a1 --silence-limit 1000
    start_agent a2 --silence-limit 1000
    port="$(python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')"
    "$uactor" run --port "$port" --host 127.0.0.1 --security none >"$tmp/server.out" 2>"$tmp/server.err" </dev/null &
    pids+=("$!")
    for _ in $(seq 100); do grep -q "^listening on" "$tmp/server.out" && break; sleep 0.1; done
    "$uactor" load --agents "$a1_addr,$a2_addr" --endpoint "opc.tcp://127.0.0.1:$port" --scenario read \
        --sessions 2 --nodes 1 --warmup 0.5 --duration 30 >"$tmp/run.out" 2>"$tmp/run.err" &
    coordinator=$!
    pids+=("$coordinator")
    for _ in $(seq 100); do grep -q "x 1 sessions" "$tmp/a2.err" && break; sleep 0.05; done
    sleep 1.5
    kill -STOP "$coordinator"
    for a in a1 a2; do
        for _ in $(seq 100); do grep -q "run done" "$tmp/$a.err" && break; sleep 0.05; done
        grep -q "no word from the coordinator for 1000 ms: stopping its load" "$tmp/$a.err" ||
            fail "agent $a did not stop on the coordinator's silence"
        grep -q "run done" "$tmp/$a.err" || fail "agent $a did not close its sessions"
    done
    kill -9 "$coordinator"
    ;;
tls)
    # A CA of this test, an agent's and a coordinator's certificate from it, and a stranger's from another.
    mkcert() {  # mkcert NAME CA
        openssl req -newkey ec -pkeyopt ec_paramgen_curve:prime256v1 -nodes -keyout "$tmp/$1.key" -out "$tmp/$1.csr" -subj "/CN=$1" 2>/dev/null &&
            openssl x509 -req -in "$tmp/$1.csr" -CA "$tmp/$2.pem" -CAkey "$tmp/$2.key" -CAcreateserial \
                -out "$tmp/$1.pem" -days 1 2>/dev/null
    }
    for ca in ca other_ca; do
        openssl req -x509 -newkey ec -pkeyopt ec_paramgen_curve:prime256v1 -nodes -keyout "$tmp/$ca.key" -out "$tmp/$ca.pem" -days 1 \
            -subj "/CN=uactor test $ca" 2>/dev/null || fail "openssl could not make the CA"
    done
    mkcert agent ca && mkcert coordinator ca && mkcert stranger other_ca || fail "openssl could not make the certificates"
    start_agent tls --cert "$tmp/agent.pem" --key "$tmp/agent.key" --cafile "$tmp/ca.pem"
    grep -q "(.*, TLS," "$tmp/tls.out" || fail "the agent does not say TLS"
    "$uactor" load --agents "$tls_addr" --agent-cert "$tmp/coordinator.pem" --agent-key "$tmp/coordinator.key" \
        --agent-cafile "$tmp/ca.pem" --scenario read --sessions 2 --nodes 1 --warmup 0.2 --duration 0.5 \
        >"$tmp/t1.out" 2>"$tmp/t1.err" || fail "the TLS run with the CA's certificates failed"
    timeout 20 "$uactor" load --agents "$tls_addr" --scenario read --sessions 1 --duration 0.5 >"$tmp/t2.out" 2>"$tmp/t2.err"
    [ $? -eq 1 ] && grep -q "agent $tls_addr is unreachable" "$tmp/t2.err" || fail "a coordinator without TLS was not refused"
    timeout 20 "$uactor" load --agents "$tls_addr" --agent-cert "$tmp/stranger.pem" --agent-key "$tmp/stranger.key" \
        --agent-cafile "$tmp/other_ca.pem" --scenario read --sessions 1 --duration 0.5 >"$tmp/t3.out" 2>"$tmp/t3.err"
    [ $? -eq 1 ] && grep -q "agent $tls_addr is unreachable" "$tmp/t3.err" || fail "a certificate of another CA was not refused"
    ;;
netns)
    [ "$(id -u)" -eq 0 ] && command -v ip >/dev/null || { echo "SKIP: network namespaces need root and ip"; exit 77; }
    # Names and a /24 of this run (interface names stay under 16 characters).
    subnet="10.231.$(($$ % 250))"
    bridge="uab$$"
    ip link add "$bridge" type bridge 2>"$tmp/ip.err" || { echo "SKIP: cannot create a bridge: $(cat "$tmp/ip.err")"; bridge=""; exit 77; }
    ip addr add "$subnet.1/24" dev "$bridge" && ip link set "$bridge" up || fail "cannot address the bridge"
    for k in 1 2 3; do
        ns="uactor-$$-$k"
        ip netns add "$ns" || fail "cannot create the namespace $ns"
        namespaces+=("$ns")
        ip link add "uah$$$k" type veth peer name "uan$$$k" &&
            ip link set "uan$$$k" netns "$ns" &&
            ip link set "uah$$$k" master "$bridge" && ip link set "uah$$$k" up &&
            ip netns exec "$ns" ip addr add "$subnet.1$k/24" dev "uan$$$k" &&
            ip netns exec "$ns" ip link set "uan$$$k" up &&
            ip netns exec "$ns" ip link set lo up || fail "cannot wire the namespace $ns"
        agent_wrap=(ip netns exec "$ns")
        agent_host="$subnet.1$k"
        start_agent "a$k"
    done
    [ "$a1_addr" = "$subnet.11:${a1_addr##*:}" ] || fail "agent a1 listens on $a1_addr, not in its namespace"
    agents="$a1_addr,$a2_addr,$a3_addr"
    # Secured: the child's certificate names the bridge's address, which the agents' sessions check.
    "$uactor" load --agents "$agents" --child-host "$subnet.1" --security encrypt --scenario read --sessions 6 \
        --nodes 1 --inflight 2 --warmup 0.3 --duration 1 --json >"$tmp/read.out" 2>"$tmp/read.err" ||
        fail "the secured read run over the namespaces exited $?"
    grep -q "opc.tcp://$subnet.1:" "$tmp/read.out" || fail "the child did not listen on the bridge's address"
    check_sums "$tmp/read.out"
    "$uactor" load --agents "$agents" --child-host "$subnet.1" --scenario sub --sessions 3 --subs 2 --nodes 10 \
        --variables 60 --pub 100 --write-interval 100 --warmup 0.5 --duration 1 --json >"$tmp/sub.out" 2>"$tmp/sub.err" ||
        fail "the sub run over the namespaces exited $?"
    check_sums "$tmp/sub.out"
    ;;
*)
    fail "unknown case $case_name"
    ;;
esac
echo "PASS $case_name"
