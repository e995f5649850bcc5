#!/usr/bin/env bash
# The host-name-sensitive tests where the host name resolves to 127.0.1.1, as in the /etc/hosts
# every Debian installation writes: a loopback-bound endpoint must advertise a URL that
# reaches it there too, not only on machines that map the host name to 127.0.0.1.
#
#   hosts_127_0_1_1.sh UACTOR_BINARY UACTOR_RUNTIME_TESTS
#
# Runs itself again in a mount namespace of its own (unshare --mount, util-linux) with a temporary
# /etc/hosts bind-mounted over the machine's (only that namespace sees it), checks the host name
# resolves to 127.0.1.1 there, and runs inside it:
# - tests/runtime/health_during_start_test.py (a plant on 127.0.0.1 without host_name: /metrics'
#   URLs reach the endpoints, `uactor read` reads);
# - uactor_runtime_tests "[advertised]" (GetEndpoints of a server on 127.0.0.1 names a URL a client
#   following it reaches; the advertising decision).
# Needs root (mount namespaces, mount --bind), as in CI; without it exit 77 (ctest: skipped).
# Exit 0 when all pass, 1 otherwise.
set -uo pipefail

here="$(cd "$(dirname "$0")" && pwd)"

if [ "${1:-}" != "--inside" ]; then
    [ $# -eq 2 ] || { echo "usage: $0 UACTOR_BINARY UACTOR_RUNTIME_TESTS" >&2; exit 2; }
    if [ "$(id -u)" -ne 0 ] || ! command -v unshare >/dev/null || ! unshare --mount true 2>/dev/null; then
        echo "hosts_127_0_1_1: SKIP: needs root and unshare --mount (CI runs it as root)"
        exit 77
    fi
    exec unshare --mount bash "$0" --inside "$(realpath "$1")" "$(realpath "$2")"
fi

uactor="$2"
runtime_tests="$3"
tmp="$(mktemp -d)"
trap 'umount /etc/hosts 2>/dev/null; rm -rf "$tmp"' EXIT
name="$(hostname)"
printf '127.0.0.1\tlocalhost\n127.0.1.1\t%s\n' "$name" >"$tmp/hosts"  # Debian's (IPv6 lines left out)
mount --bind "$tmp/hosts" /etc/hosts || { echo "hosts_127_0_1_1: FAIL: cannot bind-mount /etc/hosts"; exit 1; }
resolved="$(getent ahostsv4 "$name" | awk 'NR == 1 { print $1 }')"
if [ "$resolved" != "127.0.1.1" ]; then
    echo "hosts_127_0_1_1: FAIL: $name resolves to '$resolved' in the namespace, not 127.0.1.1 (nsswitch.conf: $(grep '^hosts' /etc/nsswitch.conf))"
    exit 1
fi
echo "hosts_127_0_1_1: $name resolves to 127.0.1.1 here"

failures=0
run() {  # run WHAT COMMAND...
    local what="$1"
    shift
    echo "---- $what"
    if "$@"; then echo "ok   $what"; else echo "FAIL $what (exit $?)"; failures=$((failures + 1)); fi
}
run "health_during_start" timeout 300 python3 "$here/health_during_start_test.py" "$uactor"
run "[advertised]: GetEndpoints of a loopback-bound server, the advertising decision" \
    timeout 300 "$runtime_tests" "[advertised]" -w NoTests
echo "hosts_127_0_1_1: $([ "$failures" -eq 0 ] && echo PASS || echo "$failures failed")"
[ "$failures" -eq 0 ]
