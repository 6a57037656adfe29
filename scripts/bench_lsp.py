#!/usr/bin/env python3
"""Benchmark `kernlint server` as an editor uses it.

A 2,000-line file with 50 kernels; 200 `didChange` edits, each timed until its
`publishDiagnostics` arrives (p50/p99); hover latency (p50/p99); resident memory. Then a
workspace of 1,000 Python files that all launch one kernel: `textDocument/references`
reads every sibling file into the server, and memory is measured again.

Usage: scripts/bench_lsp.py [path/to/kernlint]   (default: target/release/kernlint)
Goals (issue 5): p50 < 10 ms, p99 < 50 ms, < 150 MB resident.
"""
import json
import os
import pathlib
import statistics
import subprocess
import sys
import tempfile
import threading
import queue
import time

BIN = sys.argv[1] if len(sys.argv) > 1 else "target/release/kernlint"
KERNELS = 50
EDITS = 200
HOVERS = 200
WORKSPACE_FILES = 1000


def kernel(k: int) -> list[str]:
    """One 40-line kernel: explicit signature, shared memory, a loop, atomics."""
    sig = '"void(float32[::1], float32[::1], float32, int32[::1])"'
    lines = [
        f"@cuda.jit({sig})",
        f"def kernel_{k}(out, x, a, counter):",
        "    tile = cuda.shared.array(256, float32)",
        "    i = cuda.grid(1)",
        "    t = cuda.threadIdx.x",
        "    n = x.size",
        "    acc = 0.0",
        "    if i < n:",
        "        tile[t] = x[i]",
        "    else:",
        "        tile[t] = 0.0",
        "    cuda.syncthreads()",
        "    s = 128",
        "    while s > 0:",
        "        if t < s:",
        "            tile[t] += tile[t + s]",
        "        cuda.syncthreads()",
        "        s //= 2",
        "    for j in range(4):",
        "        acc += a * j",
        "    scale = 1.0",
        "    if i < n:",
        "        v = a * x[i] + acc * scale",
        "        w = math.sqrt(abs(v))",
        "        out[i] = v + w",
        "    if t == 0:",
        "        cuda.atomic.add(counter, 0, 1)",
        "        out[cuda.blockIdx.x] = tile[0]",
        "    lane = cuda.laneid",
        "    if lane == 0:",
        "        m = cuda.atomic.max(counter, 1, i)",
        "    total = 0",
        "    for q in range(8):",
        "        total += q * 2",
        "    if i == 0:",
        "        counter[2] = total",
        "",
        "",
    ]
    return lines


def make_file() -> str:
    lines = ["import math", "", "import numpy as np", "from numba import cuda, float32", "", ""]
    for k in range(KERNELS):
        lines += kernel(k)
    lines += ["def launch_all(out, x, counter):"]
    for k in range(KERNELS):
        lines.append(f"    kernel_{k}[(x.size + 255) // 256, 256](out, x, 2.0, counter)")
    while len(lines) < 2000:
        lines.append(f"# padding line {len(lines)}")
    return "\n".join(lines) + "\n"


class Server:
    def __init__(self, cmd):
        self.proc = subprocess.Popen(cmd, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL)
        self.messages = queue.Queue()
        self.next_id = 1
        threading.Thread(target=self._read, daemon=True).start()

    def _read(self):
        out = self.proc.stdout
        while True:
            length = None
            while True:
                line = out.readline()
                if not line:
                    return
                line = line.strip()
                if not line:
                    break
                if line.lower().startswith(b"content-length:"):
                    length = int(line.split(b":")[1])
            body = out.read(length)
            self.messages.put((time.perf_counter(), json.loads(body)))

    def send(self, message):
        body = json.dumps(message).encode()
        self.proc.stdin.write(b"Content-Length: %d\r\n\r\n" % len(body) + body)
        self.proc.stdin.flush()

    def notify(self, method, params):
        self.send({"jsonrpc": "2.0", "method": method, "params": params})

    def wait(self, pred, timeout=30):
        deadline = time.perf_counter() + timeout
        while True:
            t, m = self.messages.get(timeout=max(0.01, deadline - time.perf_counter()))
            if m.get("method") in ("workspace/configuration", "client/registerCapability") and "id" in m:
                self.send({"jsonrpc": "2.0", "id": m["id"], "result": [None] if m["method"] == "workspace/configuration" else None})
                continue
            if pred(m):
                return t, m

    def request(self, method, params):
        rid = self.next_id
        self.next_id += 1
        t0 = time.perf_counter()
        self.send({"jsonrpc": "2.0", "id": rid, "method": method, "params": params})
        t1, m = self.wait(lambda m: m.get("id") == rid and "method" not in m)
        return t1 - t0, m

    def rss_mb(self):
        status = pathlib.Path(f"/proc/{self.proc.pid}/status").read_text()
        fields = dict(line.split(":", 1) for line in status.splitlines() if ":" in line)
        return int(fields["VmRSS"].split()[0]) / 1024, int(fields["VmHWM"].split()[0]) / 1024

    def close(self):
        try:
            self.request("shutdown", None)
            self.notify("exit", None)
            self.proc.wait(timeout=5)
        except Exception:
            self.proc.kill()


def pct(values, p):
    values = sorted(values)
    return values[min(len(values) - 1, int(round(p / 100 * (len(values) - 1))))] * 1000


def initialize(server, root):
    server.request("initialize", {"processId": os.getpid(), "rootUri": root.as_uri(), "capabilities": {
        "workspace": {"configuration": True}, "textDocument": {"hover": {"contentFormat": ["markdown"]}}}})
    server.notify("initialized", {})


def main():
    if not os.access(BIN, os.X_OK):
        sys.exit(f"no kernlint binary at {BIN}: cargo build --release")
    text = make_file()
    lines = text.splitlines()
    assert len(lines) == 2000, len(lines)
    with tempfile.TemporaryDirectory() as tmp:
        root = pathlib.Path(tmp)
        path = root / "kernels.py"
        path.write_text(text)
        uri = path.as_uri()
        server = Server([BIN, "server"])
        initialize(server, root)
        t0 = time.perf_counter()
        server.notify("textDocument/didOpen", {"textDocument": {"uri": uri, "languageId": "python", "version": 1, "text": text}})
        t_open, first = server.wait(lambda m: m.get("method") == "textDocument/publishDiagnostics" and m["params"]["version"] == 1)
        open_ms = (t_open - t0) * 1000
        findings = len(first["params"]["diagnostics"])

        # 200 edits: flip `scale = 1.0` <-> `scale = 2.0` in kernel k (line of that kernel).
        scale_lines = [i for i, l in enumerate(lines) if l == "    scale = 1.0"]
        change = []
        version = 1
        for e in range(EDITS):
            line = scale_lines[e % len(scale_lines)]
            version += 1
            digit = "2" if (e // len(scale_lines)) % 2 == 0 else "1"
            t0 = time.perf_counter()
            server.notify("textDocument/didChange", {"textDocument": {"uri": uri, "version": version}, "contentChanges": [
                {"range": {"start": {"line": line, "character": 12}, "end": {"line": line, "character": 13}}, "text": digit}]})
            t1, _ = server.wait(lambda m, v=version: m.get("method") == "textDocument/publishDiagnostics" and m["params"]["version"] == v)
            change.append(t1 - t0)

        # Hovers over typed variables of different kernels, with and without a preceding edit.
        v_lines = [i for i, l in enumerate(lines) if l.startswith("        v = a * x[i]")]
        hovers = []
        for h in range(HOVERS):
            line = v_lines[(h * 7) % len(v_lines)]
            dt, m = server.request("textDocument/hover", {"textDocument": {"uri": uri}, "position": {"line": line, "character": 8}})
            assert "(variable) v: float64" in m["result"]["contents"]["value"], m
            hovers.append(dt)
        cold = []
        for h in range(20):
            version += 1
            line = scale_lines[h % len(scale_lines)]
            server.notify("textDocument/didChange", {"textDocument": {"uri": uri, "version": version}, "contentChanges": [
                {"range": {"start": {"line": line, "character": 12}, "end": {"line": line, "character": 13}}, "text": str(h % 9 + 1)}]})
            dt, m = server.request("textDocument/hover", {"textDocument": {"uri": uri}, "position": {"line": line + 2, "character": 8}})
            if m.get("result"):
                cold.append(dt)
        rss, hwm = server.rss_mb()

        # A workspace of 1,000 files that all launch kernel_0; references reads them all.
        for n in range(WORKSPACE_FILES):
            (root / f"user_{n:04}.py").write_text(
                "import numpy as np\nfrom kernels import kernel_0\n\n\n"
                f"def run_{n}(out, x, counter):\n    kernel_0[{n % 64 + 1}, 256](out, x, 1.0, counter)\n"
                + "".join(f"    y{j} = np.zeros({j + 1})\n" for j in range(30)))
        t0 = time.perf_counter()
        dt, m = server.request("textDocument/references", {"textDocument": {"uri": uri}, "position": {"line": 7, "character": 4},
                                                           "context": {"includeDeclaration": False}})
        refs = len(m["result"] or [])
        dt2, _ = server.request("textDocument/references", {"textDocument": {"uri": uri}, "position": {"line": 7, "character": 4},
                                                            "context": {"includeDeclaration": False}})
        ws_rss, ws_hwm = server.rss_mb()
        server.close()

    print(f"kernlint server benchmark ({BIN})")
    print(f"  file: {len(lines)} lines, {KERNELS} kernels, {findings} findings; open -> diagnostics {open_ms:.1f} ms")
    print(f"  didChange -> publishDiagnostics over {EDITS} edits: p50 {pct(change, 50):.2f} ms, p99 {pct(change, 99):.2f} ms, max {max(change) * 1000:.2f} ms")
    print(f"  hover (typed variable) over {HOVERS}: p50 {pct(hovers, 50):.2f} ms, p99 {pct(hovers, 99):.2f} ms")
    if cold:
        print(f"  hover right after an edit over {len(cold)}: p50 {pct(cold, 50):.2f} ms, p99 {pct(cold, 99):.2f} ms")
    print(f"  memory after edits and hovers: {rss:.1f} MB resident (peak {hwm:.1f} MB)")
    print(f"  workspace of {WORKSPACE_FILES} files: references found {refs} launch sites in {dt * 1000:.0f} ms "
          f"(again {dt2 * 1000:.0f} ms); {ws_rss:.1f} MB resident (peak {ws_hwm:.1f} MB)")
    ok = pct(change, 50) < 10 and pct(change, 99) < 50 and ws_hwm < 150
    print("  goals (p50 < 10 ms, p99 < 50 ms, < 150 MB):", "met" if ok else "NOT met")


if __name__ == "__main__":
    main()
