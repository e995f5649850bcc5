#!/usr/bin/env python3
"""What `uactor run` says about itself is what it does, end to end.

    python3 server_says_test.py UACTOR_BINARY SOURCE_DIR CASE

CASE is one of:
- banner: the start banner's `user tokens` of each endpoint are the token types GetEndpoints
  (`uactor endpoints --json`) offers: without users Anonymous and Certificate only, with --user
  UserName too; and its `namespaces` line lists the NamespaceArray (i=2255) the server serves,
  examples/config/alarms.toml's urn:example:alarms at 2 included.
- reload: a users file that no longer parses, after SIGHUP, logs the line docs/configuration.md
  promises ("reload refused: the file has errors"), with the file's error after it.
Servers listen on 127.0.0.1, port 0 (the port is read from `listening on`); every wait is bounded.
Exit 0 when all holds, 1 otherwise.
"""
import json
import os
import re
import shutil
import signal
import subprocess
import sys
import tempfile
import threading
import time

failures = 0


def check(ok, what, detail=""):
    global failures
    if ok:
        print(f"server_says: ok   {what}")
    else:
        failures += 1
        print(f"server_says: FAIL {what}{': ' + detail if detail else ''}")


class server:
    """`uactor run ARGS` in `tmp`, its stdout and stderr collected by threads."""

    def __init__(self, uactor, tmp, args):
        env = dict(os.environ, UACTOR_PKI=os.path.join(tmp, "pki"))
        self.proc = subprocess.Popen([uactor, "run", *args], cwd=tmp, env=env, stdout=subprocess.PIPE,
                                     stderr=subprocess.PIPE, text=True)
        self.out, self.err = [], []
        self.lock = threading.Lock()
        for stream, lines in ((self.proc.stdout, self.out), (self.proc.stderr, self.err)):
            threading.Thread(target=self._read, args=(stream, lines), daemon=True).start()

    def _read(self, stream, lines):
        for line in stream:
            with self.lock:
                lines.append(line.rstrip("\n"))

    def wait_for(self, lines, pattern, after=0, seconds=20):
        deadline = time.monotonic() + seconds
        while time.monotonic() < deadline:
            with self.lock:
                for line in lines[after:]:
                    m = re.search(pattern, line)
                    if m:
                        return m
            if self.proc.poll() is not None:
                time.sleep(0.2)  # let the readers take the last lines
                with self.lock:
                    return next((re.search(pattern, l) for l in lines[after:] if re.search(pattern, l)), None)
            time.sleep(0.05)
        return None

    def url(self):
        m = self.wait_for(self.out, r"^listening on (opc\.tcp://\S+)")
        return m.group(1) if m else None

    def stop(self):
        if self.proc.poll() is None:
            self.proc.send_signal(signal.SIGTERM)
            try:
                self.proc.wait(timeout=15)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait()


def client(uactor, tmp, *args):
    env = dict(os.environ, UACTOR_PKI=os.path.join(tmp, "client-pki"))
    return subprocess.run([uactor, *args], cwd=tmp, env=env, capture_output=True, text=True, timeout=30)


TOKEN_NAMES = {"anonymous": "Anonymous", "username": "UserName", "x509": "Certificate"}


def banner_tokens(srv):
    """The token types of the banner's endpoint lines, as GetEndpoints names them."""
    found = set()
    with srv.lock:
        for line in srv.out:
            m = re.match(r"^endpoint .*; user tokens ([^)]*)\)$", line)
            if m:
                found |= {TOKEN_NAMES.get(t.strip(), t.strip()) for t in m.group(1).split(",") if t.strip() != "none"}
    return found


def offered_tokens(uactor, tmp, url):
    r = client(uactor, tmp, "endpoints", url, "--json")
    if r.returncode != 0:
        return None, r.stderr
    found = set()
    for line in r.stdout.splitlines():
        for t in json.loads(line).get("userTokens", []):
            found.add(t["type"])
    return found, ""


def case_banner(uactor, source):
    tmp = tempfile.mkdtemp(prefix="uactor-server-says-")
    try:
        for label, extra, expected in (("without users", [], {"Anonymous", "Certificate"}),
                                       ("with --user", ["--user", "anna:secret-pw"],
                                        {"Anonymous", "UserName", "Certificate"})):
            srv = server(uactor, tmp, ["--host", "127.0.0.1", "--port", "0", *extra])
            try:
                url = srv.url()
                check(url is not None, f"{label}: the server listens", "\n".join(srv.err[-5:]))
                if not url:
                    continue
                offered, err = offered_tokens(uactor, tmp, url)
                said = banner_tokens(srv)
                check(offered == expected, f"{label}: GetEndpoints offers {sorted(expected)}", f"{offered} {err}")
                check(said == offered, f"{label}: the banner's user tokens are GetEndpoints' {sorted(offered or [])}",
                      f"the banner says {sorted(said)}")
            finally:
                srv.stop()

        plant = os.path.join(source, "examples", "config", "alarms.toml")
        srv = server(uactor, tmp, ["--config", plant, "--host", "127.0.0.1", "--port", "0"])
        try:
            url = srv.url()
            check(url is not None, "alarms.toml: the server listens", "\n".join(srv.err[-5:]))
            if url:
                m = srv.wait_for(srv.out, r"^namespaces\s+(.*)$", seconds=1)
                said = m.group(1) if m else ""
                r = client(uactor, tmp, "read", url, "i=2255", "--json")
                array = json.loads(r.stdout.splitlines()[0])["value"]["value"] if r.returncode == 0 else None
                expected = ", ".join(f"{i} {uri}" for i, uri in enumerate(array or []))
                check(array is not None and "urn:example:alarms" in array, "alarms.toml: NamespaceArray has urn:example:alarms",
                      f"{array} {r.stderr}")
                check(said == expected, "alarms.toml: the banner's namespaces are the NamespaceArray",
                      f"banner '{said}', NamespaceArray '{expected}'")
                check("2 urn:example:alarms" in said, "alarms.toml: the banner names urn:example:alarms at 2", said)
        finally:
            srv.stop()
    finally:
        shutil.rmtree(tmp, ignore_errors=True)


def case_reload(uactor, source):
    tmp = tempfile.mkdtemp(prefix="uactor-server-says-")
    try:
        users = os.path.join(tmp, "users")
        h = subprocess.run([uactor, "hash-password", "bob"], input="bob-pw\n", capture_output=True, text=True, timeout=30)
        check(h.returncode == 0, "hash-password", h.stderr)
        with open(users, "w") as f:
            f.write(h.stdout)
        srv = server(uactor, tmp, ["--host", "127.0.0.1", "--port", "0", "--users", users])
        try:
            url = srv.url()
            check(url is not None, "the server listens", "\n".join(srv.err[-5:]))
            if not url:
                return
            with open(users, "a") as f:
                f.write("not a users line\n")
            with srv.lock:
                mark = len(srv.err)
            srv.proc.send_signal(signal.SIGHUP)
            m = srv.wait_for(srv.err, r"reload refused.*", after=mark)
            line = m.group(0) if m else ""
            check(bool(m), "SIGHUP with a broken users file logs a refusal", "\n".join(srv.err[mark:]))
            # docs/configuration.md "Reload": what an operator greps for, then the detail.
            check(line.startswith("reload refused: the file has errors"),
                  "the refusal starts as docs/configuration.md says", line)
            check("line 2" in line and "no ':'" in line, "the refusal names the file's error and its line", line)
            check(srv.proc.poll() is None, "the server still runs")
        finally:
            srv.stop()
    finally:
        shutil.rmtree(tmp, ignore_errors=True)


def main():
    if len(sys.argv) != 4 or sys.argv[3] not in ("banner", "reload"):
        print(__doc__)
        return 2
    uactor, source, case = os.path.abspath(sys.argv[1]), os.path.abspath(sys.argv[2]), sys.argv[3]
    {"banner": case_banner, "reload": case_reload}[case](uactor, source)
    print(f"server_says: {case}: {'PASS' if failures == 0 else f'{failures} failed'}")
    return 0 if failures == 0 else 1


if __name__ == "__main__":
    sys.exit(main())
