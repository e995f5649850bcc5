#!/usr/bin/env python3
"""The shell examples of docs/ that run `uactor ...` against the embedded default, run.

    python3 docs_examples_test.py UACTOR_BINARY SOURCE_DIR

An example is a fenced block right after the line `<!-- docs-example: uactor run -->` in a
docs/*.md file (the comment does not render). Two kinds:
- ```sh: each line that is not blank or a `# comment` is a command line, run by bash with
  pipefail and `$url` set to the server's endpoint; it must exit 0 within 30 s and print no line
  that is just `null` (a jq path that names nothing).
- ``` (a transcript): `$ COMMAND` lines and the output that follows each; the command is run as
  above and must print that output, timestamps aside (ISO 8601 times compare as any time).
In both, `opc.tcp://localhost:4840` stands for the server's endpoint.
The server: `uactor run --host 127.0.0.1 --port 0 --writer-interval 100` (the embedded default,
its writer faster so that `--count` examples end soon), its port read from `listening on`.
A fenced block that runs a client command (`uactor read|write|browse|call|subscribe|endpoints`)
against `$url` or localhost without the marker fails the test too: new examples get run.
Exit 0 when every example holds, 1 otherwise, 77 (skipped) without jq or bash.
"""
import glob
import os
import re
import shutil
import signal
import subprocess
import sys
import tempfile
import threading
import time

MARKER = "<!-- docs-example: uactor run -->"
DEFAULT_URL = "opc.tcp://localhost:4840"
CLIENT_COMMAND = re.compile(r"\buactor\s+(read|write|browse|call|subscribe|endpoints)\b")
TIME = re.compile(r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d+)?(Z|[+-]\d\d:\d\d)")

failures = 0


def fail(what):
    global failures
    failures += 1
    print(f"docs_examples: FAIL {what}")


def blocks(path):
    """(line number, info string, lines, marked) of each fenced block of a markdown file."""
    out, lines = [], open(path, encoding="utf-8").read().splitlines()
    i = 0
    while i < len(lines):
        if lines[i].startswith("```"):
            info, start, body = lines[i][3:].strip(), i + 1, []
            i += 1
            while i < len(lines) and not lines[i].startswith("```"):
                body.append(lines[i])
                i += 1
            marked = start >= 2 and lines[start - 2].strip() == MARKER
            out.append((start, info, body, marked))
        i += 1
    return out


def run_line(command, url, env, cwd):
    command = command.replace(DEFAULT_URL, url)
    try:
        return subprocess.run(["bash", "-o", "pipefail", "-c", command], env=dict(env, url=url), cwd=cwd,
                              capture_output=True, text=True, timeout=30)
    except subprocess.TimeoutExpired:
        return None


def main():
    if len(sys.argv) != 3:
        print(__doc__)
        return 2
    uactor, source = os.path.abspath(sys.argv[1]), os.path.abspath(sys.argv[2])
    for tool in ("jq", "bash"):
        if not shutil.which(tool):
            print(f"docs_examples: SKIP: no {tool} (scripts/setup.sh installs it)")
            return 77

    examples = []
    for path in sorted(glob.glob(os.path.join(source, "docs", "**", "*.md"), recursive=True)):
        rel = os.path.relpath(path, source)
        for line, info, body, marked in blocks(path):
            if marked:
                examples.append((f"{rel}:{line}", info, body))
            elif any(CLIENT_COMMAND.search(l) and ("$url" in l or "localhost" in l or "127.0.0.1" in l) for l in body):
                fail(f"{rel}:{line}: a block runs uactor against the embedded default without '{MARKER}' before it")
    if len(examples) < 2:
        fail(f"only {len(examples)} marked examples found in docs/: the marker changed?")

    tmp = tempfile.mkdtemp(prefix="uactor-docs-examples-")
    # The client's PATH finds this build's uactor first.
    bindir = os.path.join(tmp, "bin")
    os.makedirs(bindir)
    os.symlink(os.path.abspath(uactor), os.path.join(bindir, "uactor"))
    env = dict(os.environ, UACTOR_PKI=os.path.join(tmp, "pki"), PATH=bindir + os.pathsep + os.environ["PATH"])
    server = subprocess.Popen([uactor, "run", "--host", "127.0.0.1", "--port", "0", "--writer-interval", "100"],
                              cwd=tmp, env=env, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)
    url = None
    found = threading.Event()

    def read_stdout():
        nonlocal url
        for line in server.stdout:
            m = re.match(r"^listening on (opc\.tcp://\S+)", line)
            if m and not url:
                url = m.group(1)
                found.set()

    threading.Thread(target=read_stdout, daemon=True).start()
    try:
        if not found.wait(30):
            fail("uactor run did not say `listening on` within 30 s")
            return 1
        for where, info, body in examples:
            if info == "sh":
                for command in body:
                    if not command.strip() or command.lstrip().startswith("#"):
                        continue
                    r = run_line(command, url, env, tmp)
                    if r is None:
                        fail(f"{where}: `{command}` did not end within 30 s")
                    elif r.returncode != 0:
                        fail(f"{where}: `{command}` exited {r.returncode}: {r.stderr.strip()}")
                    elif any(l.strip() == "null" for l in r.stdout.splitlines()):
                        fail(f"{where}: `{command}` printed null: {r.stdout.strip()}")
                    else:
                        print(f"docs_examples: ok   {where}: {command}")
            else:
                steps, current = [], None
                for l in body:
                    if l.startswith("$ "):
                        current = (l[2:], [])
                        steps.append(current)
                    elif current is not None:
                        current[1].append(l)
                if not steps:
                    fail(f"{where}: a marked transcript without a `$ ` command line")
                for command, expected in steps:
                    r = run_line(command, url, env, tmp)
                    if r is None or r.returncode != 0:
                        fail(f"{where}: `{command}` failed: {r.stderr.strip() if r else 'timeout'}")
                        continue
                    norm = lambda lines: [TIME.sub("<time>", l.replace(DEFAULT_URL, url)) for l in lines]
                    got = norm(r.stdout.splitlines())
                    want = norm(expected)
                    if got != want:
                        fail(f"{where}: `{command}` printed\n  " + "\n  ".join(got) + "\nthe docs show\n  " +
                             "\n  ".join(want))
                    else:
                        print(f"docs_examples: ok   {where}: {command}")
    finally:
        server.send_signal(signal.SIGTERM)
        try:
            server.wait(timeout=15)
        except subprocess.TimeoutExpired:
            server.kill()
            server.wait()
        shutil.rmtree(tmp, ignore_errors=True)
    print(f"docs_examples: {len(examples)} examples, {'PASS' if failures == 0 else f'{failures} failed'}")
    return 0 if failures == 0 else 1


if __name__ == "__main__":
    sys.exit(main())
