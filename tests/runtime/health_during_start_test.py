#!/usr/bin/env python3
"""/health while `uactor run --config` starts (docs/configuration.md "Metrics"), end to end.

    python3 health_during_start_test.py UACTOR_BINARY

A plant slow to start (two endpoints, TAGS generated variables: the address space is built after
the HTTP listener opened) is probed from its `metrics on` line on, bounded in count and time:
- /health/live answers 200 at every probe, during the start and after it;
- /health/ready answers 503, then 200 from some probe on and never 503 again; at least one 503
  was seen (the probes began before the start ended: the plant is big enough);
- once ready said 200: /metrics names both endpoints and each accepts a TCP connection on the
  address the plant made it listen on, and the last generated variable reads (`uactor read` there):
  every endpoint listens, the address space is loaded;
- each URL /metrics names (what the endpoint advertises) reaches its endpoint too: the plant sets
  no host_name, so a loopback endpoint advertises its address, not the host name
  (hosts_127_0_1_1.sh runs this where the host name resolves to 127.0.1.1, as on a standard Debian).
No timing is asserted: only the order of the answers. Exit 0 when all holds, 1 otherwise.
"""
import http.client
import os
import re
import shutil
import socket
import subprocess
import sys
import tempfile
import threading
import time

TAGS = 20_000
LISTEN = "127.0.0.1"  # every endpoint's listen_address below
PLANT = f"""
[server]
demo = false

[[server.endpoints]]
listen_address = "{LISTEN}"
port = 0
security = ["none"]
user_tokens = ["anonymous"]

[[server.endpoints]]
listen_address = "{LISTEN}"
port = 0
security = ["none"]
user_tokens = ["anonymous"]

[metrics]
port = 0

[[namespaces]]
uri = "urn:uactor:test:slow-start"

[[folders]]
id = "ns=2;s=Big"

[[variables]]
id = "ns=2;s=Big.Tag{{i}}"
parent = "ns=2;s=Big"
count = {TAGS}
start = 1
type = "Double"
"""

failures = 0


def check(ok, what):
    global failures
    print(("ok   " if ok else "FAIL ") + what, flush=True)
    if not ok:
        failures += 1


def main():
    uactor = os.path.abspath(sys.argv[1])
    tmp = tempfile.mkdtemp()
    with open(f"{tmp}/plant.toml", "w") as f:
        f.write(PLANT)
    lines = []
    server = subprocess.Popen([uactor, "run", "--config", f"{tmp}/plant.toml"], stdout=subprocess.PIPE,
                              stderr=open(f"{tmp}/server.err", "w"), stdin=subprocess.DEVNULL, text=True, cwd=tmp)
    reader = threading.Thread(target=lambda: lines.extend(iter(server.stdout.readline, "")), daemon=True)
    reader.start()
    try:
        run(uactor, server, lines)
    finally:
        server.terminate()
        try:
            server.wait(30)
        except subprocess.TimeoutExpired:
            server.kill()
        shutil.rmtree(tmp, ignore_errors=True)
    print("health_during_start: " + ("PASS" if failures == 0 else f"{failures} failed"))
    return 0 if failures == 0 else 1


def wait_for(pred, seconds):
    """Polls pred() (bounded: at most `seconds`, 20 ms apart); its last value."""
    end = time.monotonic() + seconds
    while True:
        v = pred()
        if v or time.monotonic() > end:
            return v
        time.sleep(0.02)


def run(uactor, server, lines):
    def metrics_line():
        return next((m for m in (re.match(r"metrics on http://([^:/]+):(\d+)/metrics", l) for l in lines) if m), None)

    m = wait_for(lambda: metrics_line() or server.poll() is not None and "exited", 120)
    if not m or m == "exited":
        check(False, f"the HTTP listener did not open: {''.join(lines)}")
        return
    host, port = m.group(1), int(m.group(2))

    def get(path):
        c = http.client.HTTPConnection(host, port, timeout=30)
        try:
            c.request("GET", path)
            r = c.getresponse()
            return r.status, r.read().decode()
        finally:
            c.close()

    probes = []  # (live, ready) in order
    for _ in range(20_000):
        probes.append((get("/health/live")[0], get("/health/ready")[0]))
        if probes[-1][1] == 200 or server.poll() is not None:
            break
        time.sleep(0.005)
    # Ready now: what it promises must hold already.
    _, text = get("/metrics")
    urls = sorted(set(re.findall(r'uactor_endpoint_connections_open\{endpoint="(opc\.tcp://[^"]+)"\}', text)))
    listening, reachable = [], []
    ports = [int(re.match(r"opc\.tcp://([^:/]+):(\d+)", url).group(2)) for url in urls]
    for url, p in zip(urls, ports):
        try:
            socket.create_connection((LISTEN, p), timeout=10).close()
            listening.append(url)
        except OSError as e:
            print(f"     {LISTEN}:{p}: {e}")
        h = re.match(r"opc\.tcp://([^:/]+):", url).group(1)
        try:
            socket.create_connection((h, p), timeout=10).close()
            reachable.append(url)
        except OSError as e:
            print(f"     {url} (as advertised): {e}")
    read = subprocess.run([uactor, "read", f"opc.tcp://{LISTEN}:{ports[0] if ports else 1}", f"ns=2;s=Big.Tag{TAGS}"],
                          capture_output=True, text=True, timeout=60)
    for _ in range(5):  # and after
        probes.append((get("/health/live")[0], get("/health/ready")[0]))

    live = [p[0] for p in probes]
    ready = [p[1] for p in probes]
    first_ok = ready.index(200) if 200 in ready else len(ready)
    check(all(s == 200 for s in live), f"/health/live answered 200 at each of {len(live)} probes")
    check(first_ok < len(ready) and all(s == 503 for s in ready[:first_ok]) and all(s == 200 for s in ready[first_ok:]),
          f"/health/ready: 503 at {first_ok} probe(s), then 200 at {len(ready) - first_ok}, never back to 503 "
          f"({''.join('.' if s == 503 else 'R' if s == 200 else '?' for s in ready[:60])})")
    check(first_ok > 0, "the probes began while the server was starting (at least one 503)")
    check(len(urls) == 2 and listening == urls, f"once ready, both endpoints listen on {LISTEN}: {listening} of {urls}")
    check(len(urls) == 2 and reachable == urls, f"each advertised URL reaches its endpoint: {reachable} of {urls}")
    check(read.returncode == 0 and "Good" in read.stdout,
          f"once ready, ns=2;s=Big.Tag{TAGS} reads: exit {read.returncode} {read.stdout.strip()} {read.stderr.strip()}")


if __name__ == "__main__":
    sys.exit(main())
