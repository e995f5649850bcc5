#!/usr/bin/env bash
# A browser reaches our opc.wss endpoint (Part 6 §7.5.2, docs/wss.md): headless Chromium loads a
# page (file:, so its Origin is "null", allowed with --wss-allow-origin null) that opens a
# WebSocket with the opcua+uacp subprotocol to `uactor run --wss-port 0`, sends a Hello in one
# binary frame and reads the Acknowledge; the page reports what it got to a small HTTP receiver
# of the test's own. The server's certificate is the application's (self-signed):
# --ignore-certificate-errors.
#
#   bash wss_browser.sh UACTOR_BINARY
#
# Exit 0 = passed, 77 without chromium.
set -u
browser=$(command -v chromium || command -v chromium-browser || true)
if [ -z "$browser" ]; then echo "skipped: chromium not found (scripts/setup.sh installs it)"; exit 77; fi
uactor="${1:?usage: wss_browser.sh UACTOR_BINARY}"
tmp="$(mktemp -d)"
server_pid=""
cleanup() {
    if [ -n "$server_pid" ]; then kill -TERM "$server_pid" 2>/dev/null; wait "$server_pid" 2>/dev/null; fi
    rm -rf "$tmp"
}
trap cleanup EXIT

(cd "$tmp" && UACTOR_PKI="$tmp/pki" exec "$uactor" run --port 0 --wss-port 0 --host 127.0.0.1 --security none \
    --wss-allow-origin null >"$tmp/server.out" 2>"$tmp/server.err" </dev/null) &
server_pid=$!
url=""
for _ in $(seq 600); do
    url=$(sed -n 's#^listening on opc\.wss://\([^[:space:]]*\).*#wss://\1#p' "$tmp/server.out" | head -n 1)
    [ -n "$url" ] && break
    kill -0 "$server_pid" 2>/dev/null || break
    sleep 0.1
done
if [ -z "$url" ]; then echo "wss_browser: FAIL: no opc.wss endpoint listened"; cat "$tmp/server.out" "$tmp/server.err"; exit 1; fi

# The page reports to a one-shot HTTP receiver of the test's own (the browser runs until killed).
cat >"$tmp/receiver.py" <<'PY'
import http.server, sys, urllib.parse
out = sys.argv[1]
class Receiver(http.server.BaseHTTPRequestHandler):
    def do_GET(self):
        with open(out, "a") as f:
            f.write(urllib.parse.unquote(urllib.parse.urlparse(self.path).query) + "\n")
        self.send_response(204)
        self.end_headers()
    def log_message(self, *args):
        pass
server = http.server.HTTPServer(("127.0.0.1", 0), Receiver)
print(server.server_address[1], flush=True)
server.serve_forever()
PY
python3 "$tmp/receiver.py" "$tmp/result.txt" >"$tmp/receiver.port" &
receiver_pid=$!
browser_pid=""
trap 'kill "$receiver_pid" 2>/dev/null; [ -n "$browser_pid" ] && kill "$browser_pid" 2>/dev/null; cleanup' EXIT
rport=""
for _ in $(seq 100); do rport=$(cat "$tmp/receiver.port" 2>/dev/null); [ -n "$rport" ] && break; sleep 0.1; done
[ -n "$rport" ] || { echo "wss_browser: FAIL: the receiver did not start"; exit 1; }

cat >"$tmp/page.html" <<HTML
<!doctype html>
<html><head><title>opc.wss</title></head><body>
<script>
const report = (s) => fetch("http://127.0.0.1:$rport/?" + encodeURIComponent(s), {mode: "no-cors"});
// Part 6 §7.1.2.3: "HEL" "F", MessageSize, ProtocolVersion 0, ReceiveBufferSize, SendBufferSize,
// MaxMessageSize, MaxChunkCount, EndpointUrl (Int32 length, UTF-8).
function hello(url) {
  const u = new TextEncoder().encode(url);
  const b = new ArrayBuffer(32 + u.length), v = new DataView(b);
  [0x48, 0x45, 0x4c, 0x46].forEach((c, i) => v.setUint8(i, c));
  v.setUint32(4, b.byteLength, true);
  v.setUint32(8, 0, true);
  v.setUint32(12, 65535, true);
  v.setUint32(16, 65535, true);
  v.setUint32(20, 0, true);
  v.setUint32(24, 0, true);
  v.setInt32(28, u.length, true);
  new Uint8Array(b, 32).set(u);
  return b;
}
try {
  const ws = new WebSocket("$url", "opcua+uacp");
  ws.binaryType = "arraybuffer";
  ws.onopen = () => ws.send(hello("opc.wss://127.0.0.1/"));
  ws.onmessage = (e) => {
    const v = new DataView(e.data);
    const type = String.fromCharCode(v.getUint8(0), v.getUint8(1), v.getUint8(2), v.getUint8(3));
    report("got " + type + " size " + v.getUint32(4, true) + " protocol " + ws.protocol);
    ws.close(1000);
  };
  ws.onerror = () => report("error");
} catch (e) { report("exception " + e); }
</script></body></html>
HTML
"$browser" --headless --no-sandbox --disable-gpu --ignore-certificate-errors --user-data-dir="$tmp/profile" \
    "file://$tmp/page.html" >"$tmp/browser.out" 2>"$tmp/browser.err" &
browser_pid=$!
got=""
for _ in $(seq 600); do
    got=$(head -n 1 "$tmp/result.txt" 2>/dev/null)
    [ -n "$got" ] && break
    kill -0 "$browser_pid" 2>/dev/null || break
    sleep 0.1
done
echo "the page says: $got"
case "$got" in
    "got ACKF size 28 protocol opcua+uacp") echo "wss_browser: PASS" ;;
    *) grep -v dbus "$tmp/browser.err" | tail -n 20; tail -n 20 "$tmp/server.err"; echo "wss_browser: FAIL"; exit 1 ;;
esac
