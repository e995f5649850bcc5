#!/usr/bin/env bash
# Our client's subscriptions against a node-opcua server (tests/interop/node_server.js with
# --writer-interval 50): starts the server, waits for its `listening on` line, runs the hidden
# Catch2 tests "[interop-subscription]" and `uactor subscribe --count`, and stops the server
# whatever happens.
#
#   client_subscription_interop_test.sh UACTOR_TESTS UACTOR
#
# Exit 0 when everything passed, 77 (ctest's skip) without node, node_modules or node_server.js,
# 1 otherwise. Bounded in time: the server exits by itself after 150 s, each step has a timeout.
set -u

tests_bin="${1:?usage: client_subscription_interop_test.sh UACTOR_TESTS UACTOR}"
uactor_bin="${2:?usage: client_subscription_interop_test.sh UACTOR_TESTS UACTOR}"
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"

if ! command -v node >/dev/null 2>&1; then echo "skipped: node missing"; exit 77; fi
if [ ! -d "$here/node_modules" ]; then echo "skipped: node_modules missing"; exit 77; fi
if [ ! -f "$here/node_server.js" ]; then echo "skipped: node_server.js missing"; exit 77; fi

tmp="$(mktemp -d)"
server_pid=""
cleanup() {
    if [ -n "$server_pid" ]; then
        kill "$server_pid" 2>/dev/null
        for _ in 1 2 3 4 5; do kill -0 "$server_pid" 2>/dev/null || break; sleep 1; done
        kill -9 "$server_pid" 2>/dev/null
        wait "$server_pid" 2>/dev/null
    fi
    rm -rf "$tmp"
}
trap cleanup EXIT

coproc NODE_SERVER { exec node "$here/node_server.js" --port 0 --writer-interval 50 --max-seconds 150 2>"$tmp/server.err"; }
server_pid="$NODE_SERVER_PID"
line=""
if ! read -r -t 60 line <&"${NODE_SERVER[0]}"; then
    echo "client_subscription_interop: node_server.js did not say it listens within 60 s"
    cat "$tmp/server.err"
    exit 1
fi
case "$line" in
    "listening on "*) url="${line#listening on }" ;;
    *) echo "client_subscription_interop: unexpected first line: $line"; cat "$tmp/server.err"; exit 1 ;;
esac
echo "client_subscription_interop: node-opcua server at $url"

failures=0
UACTOR_INTEROP_ENDPOINT="$url" timeout 120 "$tests_bin" "[interop-subscription]"
rc=$?
if [ "$rc" -ne 0 ]; then
    echo "FAIL uactor_tests [interop-subscription]: exit $rc"
    failures=$((failures + 1))
fi

# The CLI: five changes of the counter, each on its own line, consecutive values.
out="$(timeout 30 "$uactor_bin" subscribe "$url" "ns=1;s=Demo.Dynamic.Counter" --count 5 --interval 50 --sampling 0 2>&1)"
rc=$?
lines="$(grep -c '^ns=1;s=Demo.Dynamic.Counter	UInt32 [0-9]*	Good' <<<"$out")"
if [ "$rc" -ne 0 ] || [ "$lines" -ne 5 ]; then
    echo "FAIL uactor subscribe --count 5: exit $rc, $lines change lines, output:"
    echo "$out"
    failures=$((failures + 1))
else
    echo "ok   uactor subscribe --count 5"
fi
out="$(timeout 30 "$uactor_bin" subscribe "$url" "ns=1;s=no.such.node" --seconds 0.5 2>&1)"
rc=$?
if [ "$rc" -ne 1 ] || ! grep -qF "BadNodeIdUnknown" <<<"$out"; then
    echo "FAIL uactor subscribe an unknown node: exit $rc (want 1), output:"
    echo "$out"
    failures=$((failures + 1))
else
    echo "ok   uactor subscribe an unknown node"
fi

if [ "$failures" -ne 0 ]; then
    echo "client_subscription_interop: $failures failed"
    exit 1
fi
echo "client_subscription_interop: all passed"
exit 0
