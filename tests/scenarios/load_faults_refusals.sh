#!/bin/bash
# `uactor load --faults` refuses bad values and combinations it cannot honour: exit status 2 and a
# message on stderr naming the bad part; and a run in which no fault fell is not a result (exit 1)
# (docs/load-faults.md). Usage: load_faults_refusals.sh UACTOR
set -u
uactor=$1
failures=0
expect() {  # expect "what stderr must contain" args...
  expect_rc 2 "$@"
}
expect_rc() {  # expect_rc STATUS "what stderr must contain" args...
  local want_rc=$1 want=$2
  shift 2
  local err rc
  err=$(timeout 30 "$uactor" load "$@" 2>&1 >/dev/null)
  rc=$?
  # A failed run keeps its child's log for people; not this one's.
  local log
  log=$(sed -n 's/.*the child.s stderr: \(\/tmp\/uactor-load-[0-9]*\.child\.log\).*/\1/p' <<<"$err")
  [ -n "$log" ] && rm -f "$log"
  if [ "$rc" -ne "$want_rc" ] || [[ "$err" != *"$want"* ]]; then
    echo "FAIL: uactor load $* -> exit $rc, stderr: $err (wanted exit $want_rc and: $want)"
    failures=$((failures + 1))
  else
    echo "ok: uactor load $* -> $err"
  fi
}
sub=(--scenario sub --sessions 1 --duration 0.5 --warmup 0)
expect "--faults cut:abc: 'abc' is not a duration" "${sub[@]}" --faults cut:abc
expect "--faults drop:2s: unknown fault 'drop' (cut or stall)" "${sub[@]}" --faults drop:2s
expect "--faults cut:0s: '0s' is not positive" "${sub[@]}" --faults cut:0s
expect "--faults stall:-3s: '-3s' is not positive" "${sub[@]}" --faults cut:2s,stall:-3s
expect "--faults cut:2: '2' has no unit" "${sub[@]}" --faults cut:2
expect "--faults cut:2s:sideways: 'sideways' is not a cut's variant" "${sub[@]}" --faults cut:2s:sideways
expect "not yet: --faults outside --scenario sub" --scenario read --duration 0.5 --faults cut:1s
expect "not yet: --faults with --agents" "${sub[@]}" --faults cut:1s --agents 127.0.0.1:1
expect "not yet: --faults with --endpoint" "${sub[@]}" --faults cut:1s --endpoint opc.tcp://127.0.0.1:1
expect_rc 1 "--faults cut:5s:rst:both: no fault fell in the 1.0 s window" --scenario sub --sessions 1 --subs 1 \
  --nodes 2 --warmup 0.2 --duration 1 --faults cut:5s
[ "$failures" -eq 0 ]
