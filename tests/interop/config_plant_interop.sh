#!/usr/bin/env bash
# examples/config/plant.toml served (docs/configuration.md): its None endpoint takes anonymous sessions and shows
# 10,000 tags whose writers' changes reach a subscription; its SignAndEncrypt endpoint takes the
# file's two users over Basic256Sha256 and Aes256_Sha256_RsaPss and refuses None, Sign, anonymous
# and a wrong password. Both are endpoints of one server (docs/decisions/0033): a value written
# through one is read through the other, GetEndpoints through either lists both, and an anonymous
# token sent to the engineering endpoint anyway is refused by the server there.
#
#   bash config_plant_interop.sh UACTOR_BINARY SOURCE_DIR
#
# The file is copied with its ports set to 0 (ctest runs tests in parallel); its pki.dir is then
# beside the copy. Exit 0 = all passed, 77 without node or node_modules, 1 otherwise.
set -u
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
if ! command -v node >/dev/null 2>&1; then echo "skipped: node not found"; exit 77; fi
if [ ! -d "$here/node_modules" ]; then echo "skipped: $here/node_modules missing (npm ci)"; exit 77; fi
uactor="${1:?usage: config_plant_interop.sh UACTOR_BINARY SOURCE_DIR}"
src="${2:?usage: config_plant_interop.sh UACTOR_BINARY SOURCE_DIR}"
tmp="$(mktemp -d)"
server_pid=""
cleanup() {
    if [ -n "$server_pid" ]; then kill -TERM "$server_pid" 2>/dev/null; wait "$server_pid" 2>/dev/null; fi
    rm -rf "$tmp"
}
trap cleanup EXIT
failures=0
fail() { echo "FAIL $*"; failures=$((failures + 1)); }
pass() { echo "ok   $*"; }

client_uri="urn:uactor:node-secure-client"
if ! timeout -k 5 90 node "$here/security/make_certs.js" "$tmp/certs" "client=$client_uri" >"$tmp/certs.out" 2>&1; then
    cat "$tmp/certs.out"; echo "config_plant_interop: FAIL: make_certs.js"; exit 1
fi
sed 's/^port = [0-9]*/port = 0/' "$src/examples/config/plant.toml" >"$tmp/plant.toml"
start=$(date +%s%N)
"$uactor" run --config "$tmp/plant.toml" --host 127.0.0.1 --trust "$tmp/certs/client/cert.der" \
    >"$tmp/server.out" 2>"$tmp/server.err" </dev/null &
server_pid=$!
urls=()
for _ in $(seq 600); do
    mapfile -t urls < <(sed -n 's#^listening on \(opc\.tcp://[^[:space:]]*\).*#\1#p' "$tmp/server.out")
    [ "${#urls[@]}" -ge 2 ] && break
    kill -0 "$server_pid" 2>/dev/null || break
    sleep 0.1
done
if [ "${#urls[@]}" -lt 2 ]; then
    echo "config_plant_interop: FAIL: two endpoints did not listen"; cat "$tmp/server.out" "$tmp/server.err"; exit 1
fi
rss="$(awk '/VmRSS/ {print $2 " " $3}' "/proc/$server_pid/status")"
echo "config_plant_interop: started from plant.toml in $(( ($(date +%s%N) - start) / 1000000 )) ms, RSS $rss;" \
     "None at ${urls[0]}, SignAndEncrypt at ${urls[1]}"

timeout -k 5 100 node "$here/node_config_check.js" plant "${urls[0]}" >"$tmp/plant.out" 2>"$tmp/plant.err"
status=$?
cat "$tmp/plant.out"
[ "$status" -eq 0 ] || fail "node_config_check.js plant (exit $status): $(tail -n 5 "$tmp/plant.err")"

node_pki="$tmp/node-pki"
mkdir -p "$node_pki/trusted/certs"
cp "$tmp"/pki/own/certs/*.der "$node_pki/trusted/certs/"
c="--cert $tmp/certs/client/cert.pem --key $tmp/certs/client/key.pem"
e1="--endpoint ${urls[0]}" e2="--endpoint ${urls[1]}"
# The refusals node-opcua makes from what GetEndpoints advertises (no Sign endpoint, no anonymous
# token policy) are named by its messages (one word each: the batch file has no quoting). GetEndpoints
# lists both endpoints of the server, so a policy or mode that only the other endpoint offers is
# tried and refused by the server: the OPN with Bad_SecurityPolicyRejected (Part 6 §6.7.4), a None
# session on the engineering endpoint with Bad_SecurityPolicyRejected; the wrong password and the
# anonymous token made to be sent are the server's refusals too. The wrong password comes last: after
# it the login guard backs the user name off for a while ([security.login], docs/security.md).
cat >"$tmp/batch.txt" <<EOB
floor-none-anonymous        $e1 --policy None --mode None
floor-no-encryption-offered $e1 --policy Basic256Sha256 --mode SignAndEncrypt $c --expect-fail BadSecurityPolicyRejected --expect-step connect
eng-operator-basic256sha256 $e2 --policy Basic256Sha256 --mode SignAndEncrypt $c --user operator --password operator-pw
eng-engineer-aes256         $e2 --policy Aes256_Sha256_RsaPss --mode SignAndEncrypt $c --user engineer --password engineer-pw
eng-refuses-none            $e2 --policy None --mode None --expect-fail BadSecurityPolicyRejected --expect-step session
eng-refuses-sign            $e2 --policy Basic256Sha256 --mode Sign $c --user operator --password operator-pw --expect-fail matching --expect-step connect
eng-refuses-anonymous       $e2 --policy Basic256Sha256 --mode SignAndEncrypt $c --expect-fail ANONYMOUS --expect-step session
floor-writes-setpoint       $e1 --policy None --mode None --write-double ns=2;s=Plant.Line1.Setpoint 61.25
eng-reads-floor-write       $e2 --policy Basic256Sha256 --mode SignAndEncrypt $c --user operator --password operator-pw --expect-double ns=2;s=Plant.Line1.Setpoint 61.25
eng-writes-setpoint         $e2 --policy Aes256_Sha256_RsaPss --mode SignAndEncrypt $c --user engineer --password engineer-pw --write-double ns=2;s=Plant.Line1.Setpoint 17.5
floor-reads-eng-write       $e1 --policy None --mode None --expect-double ns=2;s=Plant.Line1.Setpoint 17.5
floor-lists-both-endpoints  $e1 --policy None --mode None --expect-endpoints ${urls[0]},${urls[1]}
eng-lists-both-endpoints    $e2 --policy Basic256Sha256 --mode SignAndEncrypt $c --user operator --password operator-pw --expect-endpoints ${urls[0]},${urls[1]}
eng-server-refuses-anonymous $e2 --policy Basic256Sha256 --mode SignAndEncrypt $c --pretend-anonymous-policy anonymous --expect-fail BadIdentityTokenRejected --expect-step session
eng-refuses-wrong-password  $e2 --policy Basic256Sha256 --mode SignAndEncrypt $c --user operator --password wrong --expect-fail BadUserAccessDenied --expect-step session
EOB
timeout -k 5 150 node "$here/node_secure_client.js" --pki "$node_pki" --timeout 30 --session-only --batch "$tmp/batch.txt" \
    >"$tmp/client.out" 2>"$tmp/client.err"
while read -r name _; do
    [ -z "$name" ] && continue
    if grep -qE "^case $name: ok (all steps|failed as expected)" "$tmp/client.out"; then pass "$name"
    else fail "$name: $(grep "^case $name" "$tmp/client.out" | tail -n 2)"; fi
done <"$tmp/batch.txt"

if [ "$failures" -ne 0 ]; then
    tail -n 20 "$tmp/server.err"
    echo "config_plant_interop: $failures failed"; exit 1
fi
echo "config_plant_interop: PASS"
