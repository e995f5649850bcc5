#!/usr/bin/env bash
# `uactor run --config` with [metrics] and SIGHUP (docs/configuration.md "Metrics" and
# "Reload"), against node-opcua's client:
# - /metrics parsed as Prometheus text moves by exactly the Reads node-opcua made; /health answers;
# - SIGHUP with a changed users file: the new user logs in, the removed one is refused, a session
#   opened before the reload goes on reading;
# - SIGHUP and the trust list: a client certificate (its own, SignAndEncrypt) refused at first is
#   let in after the reload that adds it to pki.trust, and refused again after the reload that
#   takes it out, while its session from between the two goes on;
# - SIGHUP with a broken plant file, then with a broken users file: every error logged, nothing
#   changes (the user of the last good reload still logs in).
#
#   bash config_reload_interop.sh UACTOR_BINARY
#
# Exit 0 = all passed, 77 without node or node_modules, 1 otherwise.
set -u
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
if ! command -v node >/dev/null 2>&1; then echo "skipped: node not found"; exit 77; fi
if [ ! -d "$here/node_modules" ]; then echo "skipped: $here/node_modules missing (npm ci)"; exit 77; fi
uactor="${1:?usage: config_reload_interop.sh UACTOR_BINARY}"
tmp="$(mktemp -d)"
server_pid=""
declare -A holds=()  # name -> pid of a node client holding a session (start_hold)
cleanup() {
    for p in "${holds[@]}"; do kill "$p" 2>/dev/null; done
    if [ -n "$server_pid" ]; then kill -TERM "$server_pid" 2>/dev/null; wait "$server_pid" 2>/dev/null; fi
    rm -rf "$tmp"
}
trap cleanup EXIT
failures=0
fail() { echo "FAIL $*"; failures=$((failures + 1)); }
pass() { echo "ok   $*"; }
# Waits (bounded) until the server's log has a line matching $1 after line $2.
wait_log() {
    for _ in $(seq 100); do
        tail -n "+$(($2 + 1))" "$tmp/server.err" | grep -q "$1" && return 0
        sleep 0.1
    done
    return 1
}
log_lines() { wc -l <"$tmp/server.err"; }

client_uri="urn:uactor:node-secure-client"
# `late`: a client whose certificate only a reload trusts (pki.trust), and a later one takes out.
if ! timeout -k 5 90 node "$here/security/make_certs.js" "$tmp/certs" "client=$client_uri" "late=urn:uactor:node-late-client" \
    >"$tmp/certs.out" 2>&1; then
    cat "$tmp/certs.out"; echo "config_reload_interop: FAIL: make_certs.js"; exit 1
fi
"$uactor" hash-password alice <<<'alice-pw' >"$tmp/users" || { echo "FAIL hash-password"; exit 1; }
cat >"$tmp/plant.toml" <<'EOF'
[server]
demo = false
users_file = "users"

[[server.endpoints]]
port = 0
security = ["all"]

[pki]
dir = "pki"

[metrics]
port = 0
EOF
# The plant file with `late` trusted, and without.
sed 's#^dir = "pki"$#dir = "pki"\ntrust = ["certs/late/cert.der"]#' "$tmp/plant.toml" >"$tmp/plant.trusting"
cp "$tmp/plant.toml" "$tmp/plant.untrusting"
"$uactor" run --config "$tmp/plant.toml" --host 127.0.0.1 --trust "$tmp/certs/client/cert.der" \
    >"$tmp/server.out" 2>"$tmp/server.err" </dev/null &
server_pid=$!
url="" metrics=""
for _ in $(seq 600); do
    url="$(sed -n 's#^listening on \(opc\.tcp://[^[:space:]]*\).*#\1#p' "$tmp/server.out" | head -n 1)"
    metrics="$(sed -n 's#^metrics on \(http://[^/]*\)/metrics#\1#p' "$tmp/server.out" | head -n 1)"
    [ -n "$url" ] && [ -n "$metrics" ] && break
    kill -0 "$server_pid" 2>/dev/null || break
    sleep 0.1
done
if [ -z "$url" ] || [ -z "$metrics" ]; then
    echo "config_reload_interop: FAIL: the server did not start"; cat "$tmp/server.out" "$tmp/server.err"; exit 1
fi
echo "config_reload_interop: serving $url, metrics at $metrics"

timeout -k 5 70 node "$here/node_metrics_check.js" "$metrics" "$url" 25 >"$tmp/metrics.out" 2>"$tmp/metrics.err"
status=$?
cat "$tmp/metrics.out"
[ "$status" -eq 0 ] || fail "node_metrics_check.js (exit $status): $(tail -n 5 "$tmp/metrics.err")"

node_pki="$tmp/node-pki"
mkdir -p "$node_pki/trusted/certs"
cp "$tmp"/pki/own/certs/*.der "$node_pki/trusted/certs/"
secure="--endpoint $url --policy Basic256Sha256 --mode SignAndEncrypt --cert $tmp/certs/client/cert.pem --key $tmp/certs/client/key.pem"
late="--endpoint $url --policy Basic256Sha256 --mode SignAndEncrypt --cert $tmp/certs/late/cert.pem --key $tmp/certs/late/key.pem"
# Runs the batch file $1 (one case a line) and checks each case's verdict.
run_batch() {
    timeout -k 5 150 node "$here/node_secure_client.js" --pki "$node_pki" --timeout 30 --session-only --batch "$1" \
        >"$1.out" 2>"$1.err"
    while read -r name _; do
        [ -z "$name" ] && continue
        if grep -qE "^case $name: ok (all steps|failed as expected)" "$1.out"; then pass "$name"
        else fail "$name: $(grep "^case $name" "$1.out" | tail -n 2)"; fi
    done <"$1"
}

cat >"$tmp/before.txt" <<EOB
before-alice-logs-in  $secure --user alice --password alice-pw
before-bob-refused    $secure --user bob --password bob-pw --expect-fail BadUserAccessDenied --expect-step session
before-late-refused   $late --user alice --password alice-pw --expect-fail BadSecurityChecksFailed --expect-step connect
EOB
run_batch "$tmp/before.txt"

# Opens a session as NAME ($1) with the client arguments after it, and holds it (reading
# ServerState) until end_hold NAME.
start_hold() {
    local name="$1"
    shift
    timeout -k 5 250 node "$here/node_secure_client.js" --pki "$node_pki" --timeout 240 --session-only "$@" \
        --hold-until "$tmp/release-$name" >"$tmp/hold-$name.out" 2>"$tmp/hold-$name.err" &
    holds[$name]=$!
    for _ in $(seq 600); do grep -q "ok read ServerState" "$tmp/hold-$name.out" && break; sleep 0.1; done
    grep -q "ok read ServerState" "$tmp/hold-$name.out" || fail "$name's held session did not start: $(tail -n 3 "$tmp/hold-$name.out")"
}
# Lets NAME's ($1) session end and checks that it went on all along (since $2).
end_hold() {
    touch "$tmp/release-$1"
    wait "${holds[$1]}"
    local status=$?
    unset "holds[$1]"
    if [ "$status" -eq 0 ] && grep -q "ok held the session" "$tmp/hold-$1.out"; then
        pass "$1's session from $2 went on: $(grep -o 'held the session for [0-9]* reads' "$tmp/hold-$1.out")"
    else
        fail "$1's held session (exit $status): $(tail -n 3 "$tmp/hold-$1.out")"
    fi
}

# A session of alice's, opened before the reload, held through it.
start_hold alice $secure --user alice --password alice-pw

"$uactor" hash-password bob <<<'bob-pw' >"$tmp/users"
cp "$tmp/plant.trusting" "$tmp/plant.toml"
mark=$(log_lines)
kill -HUP "$server_pid"
if wait_log "reload: 1 user(s)" "$mark"; then pass "SIGHUP reloaded the users file"
else fail "no reload line after SIGHUP: $(tail -n 5 "$tmp/server.err")"; fi
cat >"$tmp/after.txt" <<EOB
after-bob-logs-in     $secure --user bob --password bob-pw
after-alice-refused   $secure --user alice --password alice-pw --expect-fail BadUserAccessDenied --expect-step session
after-late-gets-in    $late --user bob --password bob-pw
EOB
run_batch "$tmp/after.txt"

# A session of late's, held through the reload that stops trusting it.
start_hold late $late --user bob --password bob-pw
end_hold alice "before the reload"

# A broken plant file: every error logged, nothing changes.
printf '[server]\nport = "x"\nbogus_key = 1\n' >"$tmp/plant.toml"
mark=$(log_lines)
kill -HUP "$server_pid"
if wait_log "reload refused: the file has errors" "$mark" && tail -n "+$((mark + 1))" "$tmp/server.err" | grep -q "bogus_key"; then
    pass "a broken plant file is refused with its errors"
else
    fail "broken plant file: $(tail -n 5 "$tmp/server.err")"
fi
cp "$tmp/plant.trusting" "$tmp/plant.toml"
# A users file with a line that is not USER:HASH.
echo "not a users line" >>"$tmp/users"
mark=$(log_lines)
kill -HUP "$server_pid"
if wait_log "reload refused: the file has errors" "$mark" &&
   tail -n "+$((mark + 1))" "$tmp/server.err" | grep -q "users: line [0-9]*: no ':' between the user name and the hash"; then
    pass "a broken users file is refused with its error and its line"
else
    fail "broken users file: $(tail -n 5 "$tmp/server.err")"
fi
cat >"$tmp/still.txt" <<EOB
still-bob-logs-in     $secure --user bob --password bob-pw
EOB
run_batch "$tmp/still.txt"

# late out of pki.trust (and the users file good again): refused from its next connection on.
"$uactor" hash-password bob <<<'bob-pw' >"$tmp/users"
cp "$tmp/plant.untrusting" "$tmp/plant.toml"
mark=$(log_lines)
kill -HUP "$server_pid"
if wait_log "reload: 1 user(s), 1 certificate(s) trusted, 1 no longer" "$mark"; then pass "SIGHUP took late's certificate out of the trust list"
else fail "no reload line for the trust list: $(tail -n 5 "$tmp/server.err")"; fi
cat >"$tmp/untrusted.txt" <<EOB
untrusted-late-refused $late --user bob --password bob-pw --expect-fail BadSecurityChecksFailed --expect-step connect
untrusted-bob-logs-in  $secure --user bob --password bob-pw
EOB
run_batch "$tmp/untrusted.txt"
end_hold late "before its trust was taken"
kill -0 "$server_pid" 2>/dev/null && pass "the server still runs" || fail "the server ended"

if [ "$failures" -ne 0 ]; then
    tail -n 20 "$tmp/server.err"
    echo "config_reload_interop: $failures failed"; exit 1
fi
echo "config_reload_interop: PASS"
