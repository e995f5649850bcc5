#!/usr/bin/env bash
# node-opcua's client against events raised through the embedding API (docs/events.md): runs the hidden
# uactor_tests cases tagged [interop-events] (tests/interop/events_interop_test.cpp), which start a
# server and tests/interop/node_events.js themselves.
#
#   bash events_interop.sh UACTOR_TESTS
#
# Exit 0 = passed, 77 (ctest's skip) when node or tests/interop/node_modules is missing, 1 otherwise.
set -u
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
tests_bin="${1:?usage: events_interop.sh UACTOR_TESTS}"
if ! command -v node >/dev/null 2>&1; then
    echo "skipped: node not found"
    exit 77
fi
if [ ! -d "$here/node_modules" ]; then
    echo "skipped: $here/node_modules missing (npm ci)"
    exit 77
fi
timeout -k 5 90 "$tests_bin" "[interop-events]"
rc=$?
if [ "$rc" -ne 0 ]; then
    echo "events_interop: FAIL: uactor_tests [interop-events] exited $rc"
    exit 1
fi
echo "events_interop: PASS"
