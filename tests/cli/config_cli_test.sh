#!/usr/bin/env bash
# The plant file on the command line (docs/configuration.md):
#   bash config_cli_test.sh UACTOR_BINARY SOURCE_DIR
# - `uactor config default` prints runtime/config/default.toml, which check-config accepts;
# - examples/config/plant.toml checks (time and memory reported);
# - every bad file of the catalogue: check-config and `run --config` exit 2 with its messages, and
#   `run` opens no port (strace: no listen(); the port check's probe binds and closes), prints nothing
#   on stdout (no banner, no `listening on`) and writes nothing (no certificate store appears next to
#   the files);
# - a plant started from `uactor config default` (demo = true): a parent that names no node and a
#   NodeId the demo already has are refused at their line by check-config and by run;
# - a --port flag overrides the file (a taken port in the file is then not an error);
# - `uactor hash-password` makes a hash that [[users]] accepts.
set -u
uactor="${1:?usage: config_cli_test.sh UACTOR SOURCE_DIR}"
src="${2:?usage: config_cli_test.sh UACTOR SOURCE_DIR}"
tmp="$(mktemp -d)"
pids=()
cleanup() {
    for p in "${pids[@]}"; do kill "$p" 2>/dev/null; wait "$p" 2>/dev/null; done
    rm -rf "$tmp"
}
trap cleanup EXIT
failures=0
fail() { echo "FAIL $*"; failures=$((failures + 1)); }
pass() { echo "ok   $*"; }

"$uactor" config default >"$tmp/default.toml"
if cmp -s "$tmp/default.toml" "$src/runtime/config/default.toml"; then pass "config default prints runtime/config/default.toml"
else fail "config default differs from runtime/config/default.toml"; fi
if "$uactor" check-config "$tmp/default.toml" >"$tmp/out" 2>&1; then pass "check-config accepts the default"
else fail "check-config refuses the default: $(cat "$tmp/out")"; fi

plant="$src/examples/config/plant.toml"
if [ -x /usr/bin/time ]; then
    /usr/bin/time -f "check-config plant.toml: %e s, %M KB max RSS" "$uactor" check-config "$plant" >"$tmp/out" 2>"$tmp/time"
    status=$?
    cat "$tmp/time"
else
    "$uactor" check-config "$plant" >"$tmp/out" 2>&1
    status=$?
fi
if [ "$status" -eq 0 ] && grep -q "10007 node(s), 3 writer(s)" "$tmp/out"; then pass "examples/config/plant.toml checks: $(cat "$tmp/out")"
else fail "examples/config/plant.toml: status $status: $(cat "$tmp/out")"; fi

# strace, if this machine lets us trace: the proof that nothing was bound.
tracer=()
if command -v strace >/dev/null 2>&1 && strace -f -o /dev/null true 2>/dev/null; then tracer=(strace -f -qq -e trace=bind,listen -o "$tmp/trace"); fi

bad="$src/tests/runtime/config_bad"
# Every file of the catalogue (35-port-in-use below, with a port held for it). The errors a file
# expects, and no others but a port check's: a file without a port of its own asks for 4840,
# which something else on this machine may hold.
find "$bad" | sort >"$tmp/tree.before"
errors_of() { grep -v '^uactor: ' "$1" | grep -v ' cannot be bound on '; }
checked=0
for f in "$bad"/*.toml; do
    name="$(basename "$f" .toml)"
    grep -q '{port}' "$f" && continue
    expected="$(sed -n 's/^# expect: //p' "$f" | sed "s#{file}#$f#g; s#{dir}#$bad#g" | sed "s#^#$f:#")"

    "$uactor" check-config "$f" >"$tmp/out" 2>"$tmp/err"
    status=$?
    if [ "$status" -ne 2 ] || [ "$(errors_of "$tmp/err")" != "$expected" ]; then
        fail "check-config $name: exit $status, stderr: $(cat "$tmp/err") (expected: $expected)"
    fi

    rm -f "$tmp/trace"
    # LeakSanitizer cannot run under ptrace: off for the traced run (the sanitizer build's CI stage).
    ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}detect_leaks=0" timeout -k 2 20 "${tracer[@]}" "$uactor" run --config "$f" >"$tmp/out" 2>"$tmp/err"
    status=$?
    if [ "$status" -ne 2 ] || [ "$(errors_of "$tmp/err")" != "$expected" ]; then fail "run --config $name: exit $status, stderr: $(cat "$tmp/err")"
    elif [ -s "$tmp/out" ]; then fail "run --config $name: it printed before refusing: $(head -3 "$tmp/out")"
    elif [ -f "$tmp/trace" ] && grep -qE "(^|[^a-z])listen\(" "$tmp/trace"; then fail "run --config $name: a socket listened: $(grep -E 'listen' "$tmp/trace" | head -3)"
    else checked=$((checked + 1)); fi
done
find "$bad" | sort >"$tmp/tree.after"
if [ "$checked" -ge 50 ]; then pass "check-config and run --config: $checked bad files, each exit 2 with exactly its errors, nothing started${tracer:+ (strace: no listen; a bind only for the port check, released at once)}"
else fail "only $checked bad files passed"; fi
if cmp -s "$tmp/tree.before" "$tmp/tree.after"; then pass "the bad files' runs wrote nothing next to them (no certificate store made)"
else fail "files appeared next to the bad files: $(diff "$tmp/tree.before" "$tmp/tree.after" | head -5)"; fi

# A plant started from the default (demo = true), as a new user starts one: a variable whose parent
# names no node, a folder with a NodeId the demo has. Refused by check-config and by run alike, at
# the line and column the default's length puts them on, before run prints its banner.
lines="$(wc -l <"$tmp/default.toml")"
# The default's own variables (the demo alarms' inputs) come first: the appended one is after them.
own_variables="$(grep -c '^\[\[variables\]\]' "$tmp/default.toml")"
cp "$tmp/default.toml" "$tmp/dangling.toml"
printf '\n[[variables]]\nid = "ns=1;s=X"\nparent = "ns=1;s=Nope"\n' >>"$tmp/dangling.toml"
cp "$tmp/default.toml" "$tmp/collision.toml"
printf '\n[[folders]]\nid = "ns=1;s=Demo"\n' >>"$tmp/collision.toml"
for case in \
    "dangling:$((lines + 4)):10: variables[$own_variables].parent: ns=1;s=Nope is not a node of this file (folders, objects, variables)" \
    "collision:$((lines + 3)):6: folders[0].id: ns=1;s=Demo is already a node of the server's demo or load namespace (server.demo, server.load_variables)"; do
    name="${case%%:*}"
    expected="$tmp/$name.toml:${case#*:}"
    "$uactor" check-config "$tmp/$name.toml" >"$tmp/out" 2>"$tmp/err"
    status=$?
    if [ "$status" -eq 2 ] && [ "$(errors_of "$tmp/err")" = "$expected" ]; then pass "check-config of the default with a $name node: exit 2, $expected"
    else fail "check-config of the default with a $name node: exit $status: $(cat "$tmp/err")"; fi
    "$uactor" run --config "$tmp/$name.toml" --pki "$tmp/pki-$name" >"$tmp/out" 2>"$tmp/err"
    status=$?
    if [ "$status" -eq 2 ] && [ "$(errors_of "$tmp/err")" = "$expected" ] && [ ! -s "$tmp/out" ] && [ ! -e "$tmp/pki-$name" ]
    then pass "run --config of the default with a $name node: exit 2 before its banner, the same error"
    else fail "run --config of the default with a $name node: exit $status: $(cat "$tmp/out" "$tmp/err")"; fi
done

# A port in use: held by another process; the error names it, and --port replaces it.
python3 - "$tmp/held" <<'PY' &
import socket, sys, time
s = socket.socket(); s.bind(("127.0.0.1", 0)); s.listen(1)
open(sys.argv[1], "w").write(str(s.getsockname()[1]))
time.sleep(60)
PY
pids+=($!)
for _ in $(seq 50); do [ -s "$tmp/held" ] && break; sleep 0.1; done
port="$(cat "$tmp/held")"
sed "s/{port}/$port/" "$bad/35-port-in-use.toml" >"$tmp/taken.toml"
"$uactor" run --config "$tmp/taken.toml" >"$tmp/out" 2>"$tmp/err"
status=$?
if [ "$status" -eq 2 ] && grep -q "^$tmp/taken.toml:4:8: server.endpoints\[0\].port: $port cannot be bound on 127.0.0.1: Address already in use$" "$tmp/err"
then pass "run --config: a port in use is an error before anything starts"
else fail "run --config with a taken port: exit $status: $(cat "$tmp/err")"; fi
"$uactor" run --config "$tmp/taken.toml" --port 0 --security none --pki "$tmp/pki" >"$tmp/out" 2>"$tmp/err" &
pids+=($!)
for _ in $(seq 100); do grep -q "listening on" "$tmp/out" && break; sleep 0.1; done
if grep -q "^listening on opc.tcp://" "$tmp/out" && ! grep -q "^listening on .*:$port\$" "$tmp/out"; then pass "--port overrides the file's port"
else fail "--port 0 over the file: $(cat "$tmp/out" "$tmp/err")"; fi

# --nodeset: checked with the file (a broken one: exit 2, its line, nothing started), loaded before
# the server opens, and the plant's nodes may hang below its nodes (small.NodeSet2.xml's namespace
# gets index 2: the file declares none).
small="$src/tests/fuzz/nodeset_seeds/small.NodeSet2.xml"
printf '[server]\ndemo = false\n[[variables]]\nid = "ns=2;s=Pump1.Flow"\nparent = "ns=2;s=Pump1"\ntype = "Double"\nvalue = 2.5\n' \
    >"$tmp/below.toml"
broken="$bad/nodesets/unknown-alias.NodeSet2.xml"
"$uactor" run --config "$tmp/below.toml" --nodeset "$small" --nodeset "$broken" --port 0 >"$tmp/out" 2>"$tmp/err"
status=$?
if [ "$status" -eq 2 ] && grep -q "^--nodeset $broken: the NodeSet is refused: $broken:7: ns=1;i=2: unknown alias 'Int32'$" "$tmp/err" &&
    ! grep -q "listening on" "$tmp/out"
then pass "run --nodeset BROKEN: exit 2 before anything starts, the file's line"
else fail "run --nodeset BROKEN: exit $status: $(cat "$tmp/out" "$tmp/err")"; fi
if ! "$uactor" check-config "$tmp/below.toml" >/dev/null 2>&1; then pass "without --nodeset, the plant's parent in its namespace is refused"
else fail "check-config below.toml (no NodeSet) accepted a parent in an undeclared namespace"; fi
"$uactor" run --config "$tmp/below.toml" --nodeset "$small" --port 0 --host 127.0.0.1 --security none --pki "$tmp/pki" \
    >"$tmp/out" 2>"$tmp/err" &
pids+=($!)
for _ in $(seq 100); do grep -q "listening on" "$tmp/out" && break; sleep 0.1; done
url="$(sed -n 's#^listening on \(opc\.tcp://[^[:space:]]*\).*#\1#p' "$tmp/out" | head -n 1)"
if [ -n "$url" ] && "$uactor" read "$url" "ns=2;s=Pump1.Flow" "ns=2;i=1001" >"$tmp/read" 2>&1 &&
    grep -q "Double 2.5" "$tmp/read" && grep -q "Int32 42" "$tmp/read"
then pass "run --config --nodeset: the plant's variable below the NodeSet's Pump1, and the NodeSet's values"
else fail "run --config --nodeset: $(cat "$tmp/out" "$tmp/err" "$tmp/read" 2>/dev/null)"; fi

line="$(echo "s3cret" | "$uactor" hash-password operator)"
printf '[[users]]\nname = "%s"\nhash = "%s"\n' "${line%%:*}" "${line#*:}" >"$tmp/users.toml"
if [[ "$line" == operator:pbkdf2-sha256\$* ]] && "$uactor" check-config "$tmp/users.toml" >/dev/null 2>&1
then pass "hash-password makes a hash that [[users]] accepts"
else fail "hash-password: $line"; fi

# --redundancy without the set's URIs is refused before anything starts (docs/decisions/0041).
"$uactor" run --port 0 --host 127.0.0.1 --redundancy warm >"$tmp/out" 2>"$tmp/err"
status=$?
if [ "$status" -eq 2 ] && grep -q "needs --redundant-server" "$tmp/err" && ! grep -q "listening on" "$tmp/out"
then pass "run --redundancy warm without --redundant-server: exit 2, nothing started"
else fail "run --redundancy warm without --redundant-server: exit $status: $(cat "$tmp/err")"; fi

if [ "$failures" -ne 0 ]; then echo "config_cli_test: $failures failed"; exit 1; fi
echo "config_cli_test: PASS"
