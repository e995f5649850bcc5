#!/usr/bin/env bash
# The gateway (docs/gateway.md):
#   bash mirror_interop.sh UACTOR_BINARY
# - `uactor run --mirror` refuses malformed flags (exit 2) and an unreachable remote (exit 1), each
#   with a message naming the flag or the mirror and endpoint, and never says `listening on`;
# - then node_mirror_check.js: node_server.js as the remote, two `uactor run` gateways (--mirror and
#   [[mirrors]]) checked with node-opcua's client, the remote killed (SIGKILL) and restarted.
#   bash mirror_interop.sh UACTOR_BINARY --subtrees
# - node_mirror_subtree_check.js alone: a subtree mirrored, followed through ModelChangeEvents.
# Exit 0 = every step passed, 77 (ctest's skip) without node or tests/interop/node_modules, 1 otherwise.
set -u
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
if [ $# -lt 1 ] || [ ! -x "$1" ]; then echo "usage: mirror_interop.sh UACTOR_BINARY" >&2; exit 1; fi
uactor="$1"
if [ "${2:-}" = "--subtrees" ]; then
    if ! command -v node >/dev/null 2>&1; then echo "skipped: node not found"; exit 77; fi
    if [ ! -d "$here/node_modules" ]; then echo "skipped: $here/node_modules missing (npm ci)"; exit 77; fi
    exec node "$here/node_mirror_subtree_check.js" "$uactor"
fi
tmp="$(mktemp -d)"
trap 'rm -rf "$tmp"' EXIT
failures=0

# expect_refusal NAME STATUS TEXT ARGS...: `uactor run ARGS...` exits STATUS, stderr holds TEXT.
expect_refusal() {
    local name="$1" want="$2" text="$3"
    shift 3
    (cd "$tmp" && timeout -k 2 20 "$uactor" run --host 127.0.0.1 --port 0 --security none "$@" >"$tmp/out" 2>"$tmp/err")
    local status=$?
    if [ "$status" -eq "$want" ] && grep -qF -- "$text" "$tmp/err" && ! grep -q "listening on" "$tmp/out"; then
        echo "ok - $name"
    else
        echo "not ok - $name: exit $status (want $want), stderr: $(tail -n 5 "$tmp/err")"
        failures=$((failures + 1))
    fi
}
expect_refusal "--mirror without a NodeId" 2 "--mirror opc.tcp://127.0.0.1:1: no NodeId after the endpoint" \
    --mirror opc.tcp://127.0.0.1:1
expect_refusal "--mirror with a bad NodeId" 2 '"ns=1;x=y" is not a NodeId' --mirror 'opc.tcp://127.0.0.1:1,ns=1;x=y'
expect_refusal "--mirror with a bad endpoint" 2 '"http://x" is not an opc.tcp://host:port endpoint' --mirror 'http://x,i=2258'
expect_refusal "--mirror of an unreachable remote refuses the start" 1 \
    "uactor: mirror mirror1: cannot connect to opc.tcp://127.0.0.1:1: " --mirror 'opc.tcp://127.0.0.1:1,i=2258'

[ "$failures" -eq 0 ] || exit 1
if ! command -v node >/dev/null 2>&1; then echo "skipped: node not found"; exit 77; fi
if [ ! -d "$here/node_modules" ]; then echo "skipped: $here/node_modules missing (npm ci)"; exit 77; fi
node "$here/node_mirror_check.js" "$uactor" || failures=$((failures + 1))
[ "$failures" -eq 0 ]
