#!/usr/bin/env bash
# Our client's Acknowledge, Confirm, AddComment and ConditionRefresh helpers against node-opcua's
# own Part 9 alarm (tests/interop/node_server.js --alarms): starts the server, runs the hidden
# Catch2 test "[interop-alarms]" with UACTOR_INTEROP_ENDPOINT set, stops the server.
#
#   client_alarms_interop.sh UACTOR_TESTS
#
# Exit 0 when it passed, 77 (ctest's skip) without node, node_modules or node_server.js, 1
# otherwise. Bounded: the server exits by itself after 150 s, the test run has a timeout.
set -u

tests_bin="${1:?usage: client_alarms_interop.sh UACTOR_TESTS}"
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"

# shellcheck source=node_server_lib.sh
source "$here/node_server_lib.sh"
start_node_server client_alarms_interop --alarms

UACTOR_INTEROP_ENDPOINT="$url" timeout 90 "$tests_bin" "[interop-alarms]"
rc=$?
if [ "$rc" -ne 0 ]; then
    echo "FAIL uactor_tests [interop-alarms]: exit $rc"
    echo "--- node_server.js stderr (last 30 lines)"
    tail -30 "$tmp/server.err"
    exit 1
fi
echo "client_alarms_interop: passed"
exit 0
