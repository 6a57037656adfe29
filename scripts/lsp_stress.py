#!/usr/bin/env python3
"""Drive `kernlint server` over every Python file in a folder, the folder being the workspace.

    python3 scripts/lsp_stress.py target/release/kernlint DIR

Each file is opened, then asked hover and definition at 60 random identifiers, references,
completion, signature help and code actions at 15, inlay hints, document symbols and code
lenses; then it is edited into a broken state (an unclosed `(` and a stray decorator in the
middle) and asked all of it again. Prints the request counts, every error answer (except
"not available"; a PTX request for a kernel with no signature is answered with why, an
error the editor shows), grouped by message, every answer slower than 0.5 s, and the server's exit status: it must
answer everything and exit 0."""
import urllib.parse, json, os, subprocess, sys, time, threading, queue, re, random
BIN, DIR = sys.argv[1], sys.argv[2]
p = subprocess.Popen([BIN, "server"], stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=open("/tmp/lead/lspw/stderr.log", "w"))
q = queue.Queue()
def reader():
    f = p.stdout
    while True:
        h = {}
        while True:
            line = f.readline()
            if not line: q.put(None); return
            line = line.decode().strip()
            if not line: break
            k, v = line.split(":", 1); h[k.lower()] = v.strip()
        body = f.read(int(h["content-length"]))
        q.put(json.loads(body))
threading.Thread(target=reader, daemon=True).start()
nid = [0]
def send(msg):
    b = json.dumps(msg).encode()
    p.stdin.write(b"Content-Length: %d\r\n\r\n" % len(b) + b); p.stdin.flush()
def request(method, params, timeout=30):
    nid[0] += 1; i = nid[0]
    send({"jsonrpc": "2.0", "id": i, "method": method, "params": params})
    t0 = time.time()
    while True:
        m = q.get(timeout=timeout)
        if m is None: raise SystemExit("server died during %s" % method)
        if m.get("id") == i and "method" not in m:
            return m, time.time() - t0
        if "method" in m and "id" in m:  # server request
            send({"jsonrpc": "2.0", "id": m["id"], "result": None})
def notify(method, params): send({"jsonrpc": "2.0", "method": method, "params": params})
request("initialize", {"processId": None, "rootUri": "file://" + DIR, "capabilities": {}})
notify("initialized", {})
slow = []; errors = []; counts = {}
def ask(method, params):
    r, dt = request(method, params)
    counts[method] = counts.get(method, 0) + 1
    if "error" in r and r["error"].get("code") != -32803:
        errors.append((method, params.get("textDocument", params).get("uri", ""), params.get("position"), r["error"]))
    if dt > 0.5: slow.append((method, dt, params.get("textDocument", {}).get("uri", params.get("uri")), params.get("position")))
    return r.get("result")
files = sorted(f for f in os.listdir(DIR) if f.endswith(".py"))
t_all = time.time()
for n, name in enumerate(files):
    path = os.path.join(DIR, name); uri = "file://" + urllib.parse.quote(path)
    text = open(path, encoding="utf-8", errors="replace").read()
    for version, body in enumerate([text, None]):
        if version == 0:
            notify("textDocument/didOpen", {"textDocument": {"uri": uri, "languageId": "python", "version": 1, "text": text}})
        else:
            lines = text.split("\n"); mid = len(lines) // 2
            lines[mid:mid + 1] = ["    x = (", "@cuda.jit"]
            body = "\n".join(lines)
            notify("textDocument/didChange", {"textDocument": {"uri": uri, "version": 2}, "contentChanges": [{"text": body}]})
        body = body or text
        lines = body.split("\n")
        rnd = random.Random(n)
        positions = []
        for li, l in enumerate(lines):
            for m in re.finditer(r"[A-Za-z_][A-Za-z_0-9]*", l):
                positions.append((li, m.start() + 1))
        rnd.shuffle(positions)
        for (li, ch) in positions[:60]:
            pos = {"line": li, "character": ch}; td = {"uri": uri}
            ask("textDocument/hover", {"textDocument": td, "position": pos})
            ask("textDocument/definition", {"textDocument": td, "position": pos})
        for (li, ch) in positions[:15]:
            pos = {"line": li, "character": ch}; td = {"uri": uri}
            ask("textDocument/references", {"textDocument": td, "position": pos, "context": {"includeDeclaration": True}})
            ask("textDocument/completion", {"textDocument": td, "position": pos})
            ask("textDocument/signatureHelp", {"textDocument": td, "position": pos})
            ask("textDocument/codeAction", {"textDocument": td, "range": {"start": pos, "end": pos}, "context": {"diagnostics": []}})
        full = {"start": {"line": 0, "character": 0}, "end": {"line": len(lines), "character": 0}}
        ask("textDocument/inlayHint", {"textDocument": {"uri": uri}, "range": full})
        ask("textDocument/documentSymbol", {"textDocument": {"uri": uri}})
        lenses = ask("textDocument/codeLens", {"textDocument": {"uri": uri}}) or []
        kernels = {tuple(l["command"]["arguments"][:2]) for l in lenses if l.get("command", {}).get("command") == "kernlint.showPtx"}
        for (u, k) in sorted(kernels)[:6]:
            ask("kernlint/ptx", {"uri": u, "kernel": k})
    notify("textDocument/didClose", {"textDocument": {"uri": uri}})
print("files", len(files), "seconds", round(time.time() - t_all, 1))
print("requests", counts)
print("errors", len(errors))
import collections
for k,v in collections.Counter((e[0], e[3].get("code"), re.sub(r"\d+", "N", re.sub(r"`[^`]*`", "`_`", e[3].get("message", "")))[:110]) for e in errors).most_common(30): print("  ", v, k)
print("slow(>0.5s)", len(slow))
for s in sorted(slow, key=lambda s: -s[1])[:20]: print("  ", s)
request("shutdown", None); notify("exit", None)
print("server rc", p.wait(timeout=10))
