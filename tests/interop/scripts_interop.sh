#!/usr/bin/env bash
# examples/config/scripts.toml served by `uactor run` (scripts out of process, two `uactor worker`
# shards) to node-opcua's client, which subscribes to a virtual tag and an alarm Boolean while it
# writes their inputs (node_scripts.js). Then a worker is killed with SIGKILL from outside and the
# tag must follow its inputs again. With RUNNER `shadow` (docs/decisions/0043) the same file runs in
# shadow mode: the client sees the in-process values, the two killed-and-restarted workers are the
# shadow's, and /metrics must show runs compared and no mismatch.
#
#   bash scripts_interop.sh UACTOR_BINARY SOURCE_DIR [RUNNER]
#
# Exit 0 = all passed, 77 without node or node_modules, 1 otherwise.
set -u
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
if ! command -v node >/dev/null 2>&1; then echo "skipped: node not found"; exit 77; fi
if [ ! -d "$here/node_modules" ]; then echo "skipped: $here/node_modules missing (npm ci)"; exit 77; fi
uactor="${1:?usage: scripts_interop.sh UACTOR_BINARY SOURCE_DIR}"
src="${2:?usage: scripts_interop.sh UACTOR_BINARY SOURCE_DIR}"
runner="${3:-out_of_process}"
tmp="$(mktemp -d)"
server_pid=""
cleanup() {
    if [ -n "$server_pid" ]; then kill -TERM "$server_pid" 2>/dev/null; wait "$server_pid" 2>/dev/null; fi
    rm -rf "$tmp"
}
trap cleanup EXIT

sed -e 's/^port = [0-9]*/port = 0/' -e "s/^runner = \"out_of_process\"/runner = \"$runner\"/" \
    "$src/examples/config/scripts.toml" >"$tmp/scripts.toml"
grep -q "^runner = \"$runner\"" "$tmp/scripts.toml" || { echo "scripts_interop: FAIL: no runner line to set"; exit 1; }
if [ "$runner" = shadow ]; then printf '\n[metrics]\nport = 0\n' >>"$tmp/scripts.toml"; fi
"$uactor" run --config "$tmp/scripts.toml" --host 127.0.0.1 >"$tmp/server.out" 2>"$tmp/server.err" </dev/null &
server_pid=$!
url=""
for _ in $(seq 600); do
    url="$(sed -n 's#^listening on \(opc\.tcp://[^[:space:]]*\).*#\1#p' "$tmp/server.out" | head -n 1)"
    [ -n "$url" ] && break
    kill -0 "$server_pid" 2>/dev/null || break
    sleep 0.1
done
if [ -z "$url" ]; then echo "scripts_interop: FAIL: the server did not listen"; cat "$tmp/server.out" "$tmp/server.err"; exit 1; fi
workers() { pgrep -P "$server_pid" -f "worker --fd" | sort; }
for _ in $(seq 100); do [ "$(workers | wc -l)" -eq 2 ] && break; sleep 0.1; done
echo "scripts_interop: serving at $url, workers $(workers | tr '\n' ' ')"
for w in $(workers); do echo "scripts_interop: worker $w RSS $(awk '/VmRSS/ {print $2 " " $3}' "/proc/$w/status")"; done

failures=0
timeout -k 5 90 node "$here/node_scripts.js" "$url" >"$tmp/client.out" 2>"$tmp/client.err"
status=$?
cat "$tmp/client.out"
[ "$status" -eq 0 ] || { echo "FAIL node_scripts.js (exit $status): $(tail -n 5 "$tmp/client.err")"; failures=$((failures + 1)); }

# Shadow mode: before any worker is killed (a calculation's state starts afresh in a restarted
# shadow worker and mismatches after, as documented), every run compared so far agreed.
if [ "$runner" = shadow ]; then
    metrics="$(sed -n 's#^metrics on \(http://[^/]*\)/metrics#\1#p' "$tmp/server.out" | head -n 1)"
    page="$(node -e "require('http').get(process.argv[1], r => { let d = ''; r.on('data', c => d += c); r.on('end', () => process.stdout.write(d)); })" "$metrics/metrics" 2>/dev/null || true)"
    value() { echo "$page" | sed -n "s/^$1{[^}]*} \([0-9.e+]*\)\$/\1/p" | head -n 1; }
    compared="$(value uactor_script_shadow_compared_total)"
    mismatches="$(value uactor_script_shadow_mismatches_total)"
    if [ -n "$compared" ] && [ "${compared%.*}" -gt 0 ] 2>/dev/null && [ "$mismatches" = 0 ]; then
        echo "ok   shadow: $compared runs compared, $mismatches mismatches"
    else
        echo "FAIL shadow metrics: compared '$compared' mismatches '$mismatches'"; failures=$((failures + 1))
    fi
fi

# A worker killed from outside: the supervisor restarts it, the values follow their inputs again.
victim="$(workers | head -n 1)"
kill -KILL "$victim"
for _ in $(seq 100); do
    now="$(workers)"
    [ "$(echo "$now" | wc -l)" -eq 2 ] && ! echo "$now" | grep -qx "$victim" && break
    sleep 0.1
done
if [ "$(workers | wc -l)" -ne 2 ] || workers | grep -qx "$victim"; then
    echo "FAIL restart: workers now $(workers | tr '\n' ' ')"; failures=$((failures + 1))
else
    echo "ok   restart (worker $victim killed, workers now $(workers | tr '\n' ' '))"
    timeout -k 5 90 node "$here/node_scripts.js" "$url" >"$tmp/client2.out" 2>"$tmp/client2.err"
    status=$?
    cat "$tmp/client2.out"
    [ "$status" -eq 0 ] || { echo "FAIL node_scripts.js after the restart (exit $status)"; failures=$((failures + 1)); }
fi
grep -E "scripts:" "$tmp/server.err" | head -n 5
if [ "$failures" -ne 0 ]; then echo "scripts_interop: $failures failure(s)"; tail -n 20 "$tmp/server.err"; exit 1; fi
echo "scripts_interop: all passed"
