#!/usr/bin/env bash
# node-opcua's client reads raw history from `uactor run` (the embedded default historizes
# Demo.Dynamic.* into uactor-history.sqlite in the working folder): server_interop.sh with
# node_history.js, run in a folder of its own so that the file is fresh and goes afterwards.
#   bash history_interop.sh UACTOR_BINARY
set -u
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
cd "$work" || exit 1
bash "$here/server_interop.sh" "$1" node_history.js
status=$?
[ "$status" -eq 0 ] && { [ -s uactor-history.sqlite ] || { echo "history_interop: FAIL: no uactor-history.sqlite"; exit 1; }; }
exit "$status"
