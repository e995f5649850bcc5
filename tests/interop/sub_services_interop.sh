#!/usr/bin/env bash
# node-opcua's low-level session calls against our server: node_sub_services.js (ModifySubscription,
# SetPublishingMode, ModifyMonitoredItems, SetMonitoringMode, SetTriggering, Republish,
# TransferSubscriptions) against `UACTOR_BINARY run --writer-interval 50`, with the start, the
# endpoint line, the SIGINT stop and the exit checks of server_interop.sh.
#
#   bash sub_services_interop.sh UACTOR_BINARY
#
# Exit 0 = every step passed, 77 (ctest's skip) when node or tests/interop/node_modules is
# missing, 1 on any failure.
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
if [ $# -ne 1 ]; then
    echo "usage: sub_services_interop.sh UACTOR_BINARY" >&2
    exit 1
fi
exec bash "$here/server_interop.sh" "$1" node_sub_services.js --writer-interval 50
