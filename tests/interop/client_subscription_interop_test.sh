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

# shellcheck source=node_server_lib.sh
source "$here/node_server_lib.sh"
start_node_server client_subscription_interop --writer-interval 50

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
