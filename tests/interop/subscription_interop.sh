#!/usr/bin/env bash
# node-opcua's subscriptions against our server: node_subscribe.js (monitored items: every change
# in order, deadband, queue overflow) against `UACTOR_BINARY run --writer-interval 50`, with the
# start, the endpoint line, the SIGINT stop and the exit checks of server_interop.sh.
#
#   bash subscription_interop.sh UACTOR_BINARY
#
# Exit 0 = every step passed, 77 (ctest's skip) when node or tests/interop/node_modules is
# missing, 1 on any failure.
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
if [ $# -ne 1 ]; then
    echo "usage: subscription_interop.sh UACTOR_BINARY" >&2
    exit 1
fi
exec bash "$here/server_interop.sh" "$1" node_subscribe.js --writer-interval 50
