#!/usr/bin/env bash
# The embedded default round-trips (docs/configuration.md): `uactor config default > f.toml; uactor run --config
# f.toml` serves what `uactor run` serves. Both run side by side (port 0); node-opcua browses the
# address space below Objects in each (every reference, and the Values of what no writer or clock
# changes) and the two listings must be equal.
#
#   bash config_default_roundtrip.sh UACTOR_BINARY
#
# Exit 0 = equal, 77 (ctest's skip) without node or node_modules, 1 otherwise.
set -u
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
if ! command -v node >/dev/null 2>&1; then echo "skipped: node not found"; exit 77; fi
if [ ! -d "$here/node_modules" ]; then echo "skipped: $here/node_modules missing (npm ci)"; exit 77; fi
uactor="${1:?usage: config_default_roundtrip.sh UACTOR_BINARY}"
tmp="$(mktemp -d)"
pids=()
cleanup() {
    for p in "${pids[@]}"; do kill -TERM "$p" 2>/dev/null; done
    for p in "${pids[@]}"; do wait "$p" 2>/dev/null; done
    rm -rf "$tmp"
}
trap cleanup EXIT

start() {  # start NAME ARGS...: runs `uactor run ARGS`, sets url_NAME from its `listening on` line
    local name="$1"
    shift
    "$uactor" run --host 127.0.0.1 --port 0 --pki "$tmp/pki-$name" "$@" >"$tmp/$name.out" 2>"$tmp/$name.err" </dev/null &
    pids+=($!)
    local url=""
    for _ in $(seq 300); do
        url="$(sed -n 's#^listening on \(opc\.tcp://[^[:space:]]*\).*#\1#p' "$tmp/$name.out" | head -n 1)"
        [ -n "$url" ] && break
        sleep 0.1
    done
    if [ -z "$url" ]; then echo "config_default_roundtrip: FAIL: $name did not listen"; cat "$tmp/$name.out" "$tmp/$name.err"; exit 1; fi
    eval "url_$name=\$url"
}

"$uactor" config default >"$tmp/f.toml" || { echo "config_default_roundtrip: FAIL: config default"; exit 1; }
start builtin
start fromfile --config "$tmp/f.toml"
echo "config_default_roundtrip: uactor run at $url_builtin, uactor run --config f.toml at $url_fromfile"
for name in builtin fromfile; do
    eval "url=\$url_$name"
    if ! timeout -k 5 120 node "$here/node_config_check.js" tree "$url" >"$tmp/$name.tree" 2>"$tmp/$name.node.err"; then
        echo "config_default_roundtrip: FAIL: browsing $name: $(tail -n 3 "$tmp/$name.tree") $(tail -n 5 "$tmp/$name.node.err")"
        exit 1
    fi
done
# Each server has a PKI of its own: its certificate's CertificateExpirationAlarmType condition is
# named by the thumbprint and holds the certificate (docs/decisions/0081), so those lines differ.
for name in builtin fromfile; do grep -v 's=Server\.Certificates\.' "$tmp/$name.tree" >"$tmp/$name.cut"; mv "$tmp/$name.cut" "$tmp/$name.tree"; done
lines="$(wc -l <"$tmp/builtin.tree")"
if [ "$lines" -lt 100 ]; then echo "config_default_roundtrip: FAIL: only $lines lines browsed"; exit 1; fi
if ! diff "$tmp/builtin.tree" "$tmp/fromfile.tree" >"$tmp/diff"; then
    echo "config_default_roundtrip: FAIL: the servers differ:"
    head -n 40 "$tmp/diff"
    exit 1
fi
echo "config_default_roundtrip: PASS ($lines references and values, the same in both)"
