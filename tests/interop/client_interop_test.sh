#!/usr/bin/env bash
# Our client against a node-opcua server (tests/interop/node_server.js, docs/demo-namespace.md):
# starts the server, waits for its `listening on` line, runs the hidden Catch2 test
# "[interop-client]" (client API: GetEndpoints, browse, read, write, call, close) and the
# `uactor read|write|browse|call` commands against it, and stops the server whatever happens.
#
#   client_interop_test.sh UACTOR_TESTS UACTOR
#
# Exit 0 when everything passed, 77 (ctest's skip) without node, node_modules or node_server.js,
# 1 otherwise. Bounded in time: the server exits by itself after 150 s, each step has a timeout.
set -u

tests_bin="${1:?usage: client_interop_test.sh UACTOR_TESTS UACTOR}"
uactor_bin="${2:?usage: client_interop_test.sh UACTOR_TESTS UACTOR}"
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"

# shellcheck source=node_server_lib.sh
source "$here/node_server_lib.sh"
start_node_server client_interop

failures=0
check() {  # check NAME EXPECTED_RC EXPECTED_TEXT COMMAND...
    local name="$1" want_rc="$2" want_text="$3"
    shift 3
    local out rc
    out="$(timeout 60 "$@" 2>&1)"
    rc=$?
    if [ "$rc" -ne "$want_rc" ] || ! grep -qF -- "$want_text" <<<"$out"; then
        echo "FAIL $name: exit $rc (want $want_rc), output:"
        echo "$out"
        echo "(wanted a line with: $want_text)"
        failures=$((failures + 1))
    else
        echo "ok   $name"
    fi
}

# The client API, every demo variable checked by type and value.
UACTOR_INTEROP_ENDPOINT="$url" timeout 120 "$tests_bin" "[interop-client]"
rc=$?
if [ "$rc" -ne 0 ]; then
    echo "FAIL uactor_tests [interop-client]: exit $rc"
    failures=$((failures + 1))
fi

# The CLI, as a person would use it.
check "read the.answer" 0 "ns=1;s=the.answer	Int32 43	Good" "$uactor_bin" read "$url" "ns=1;s=the.answer"
check "read an unknown node" 1 "BadNodeIdUnknown" "$uactor_bin" read "$url" "ns=1;s=no.such.node"
check "browse Objects" 0 "1:Demo	ns=1;s=Demo	Object" "$uactor_bin" browse "$url"
check "browse Root" 0 "0:Objects	i=85	Object" "$uactor_bin" browse "$url" "i=84"
check "write a scalar" 0 "Good" "$uactor_bin" write "$url" "ns=1;s=Demo.Static.Scalar.UInt16" 4242
check "read it back" 0 "UInt16 4242	Good" "$uactor_bin" read "$url" "ns=1;s=Demo.Static.Scalar.UInt16"
check "write an array" 0 "Good" "$uactor_bin" write "$url" "ns=1;s=Demo.Static.Array.Int16" "[1, -2, 3]"
check "read it back" 0 "Int16[] [1, -2, 3]	Good" "$uactor_bin" read "$url" "ns=1;s=Demo.Static.Array.Int16"
check "write a read-only node" 1 "BadNotWritable" "$uactor_bin" write "$url" "ns=1;s=the.answer" 1
check "write a value of the wrong type" 2 "is not a Int32" "$uactor_bin" write "$url" "ns=1;s=Demo.Static.Scalar.Int32" abc
check "call Add" 0 "Double 3.75" "$uactor_bin" call "$url" "ns=1;s=Demo.Methods" "ns=1;s=Demo.Methods.Add" 1.5 2.25
check "call HelloWorld" 0 'String "Hello uactor"' "$uactor_bin" call "$url" "ns=1;i=1000" "ns=1;i=62541" uactor
check "call with an argument missing" 1 "BadArgumentsMissing" "$uactor_bin" call "$url" "ns=1;s=Demo.Methods" "ns=1;s=Demo.Methods.Add" 1.5

if [ "$failures" -ne 0 ]; then
    echo "client_interop: $failures failed"
    exit 1
fi
echo "client_interop: all passed"
exit 0
