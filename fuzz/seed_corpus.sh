#!/usr/bin/env bash
# Seed corpora for the fuzz targets (fuzz/corpus/TARGET, git-ignored): the Python files of
# tests/ and examples/ and the shared kernel corpus (../shared/kernels) for the Python
# targets, files over 6 KB also split into their top-level statements (imports kept);
# hand-written framed messages for lsp_decode. Safe to rerun: it only adds files.
set -euo pipefail
fuzz=$(cd "$(dirname "$0")" && pwd)
repo=$(dirname "$fuzz")
shared=${KERNLINT_SHARED:-$repo/../shared}
python_targets=(analyse type_lower compile_ptx simulate)
seeds=$(mktemp -d)
trap 'rm -rf "$seeds"' EXIT

{
  find "$repo/tests" -name '*.py' -not -path '*/snapshots/*' -not -path '*/clients/*'
  find "$repo/examples" -name '*.py'
  if [ -d "$shared/kernels" ]; then find "$shared/kernels" -maxdepth 1 -name '*.py'; fi
} 2>/dev/null | sort > "$seeds/list"

n=0
while IFS= read -r f; do
  n=$((n + 1))
  cp "$f" "$seeds/file$n.py"
done < "$seeds/list"

# Big files: also one seed per top-level statement, with the file's imports on top, so the
# fuzzer mutates one kernel at a time.
if command -v python3 >/dev/null 2>&1; then
  python3 - "$seeds" <<'PY'
import ast, pathlib, sys
out = pathlib.Path(sys.argv[1])
for path in sorted(out.glob("file*.py")):
    text = path.read_text(errors="replace")
    if len(text) <= 6000:
        continue
    try:
        tree = ast.parse(text)
    except SyntaxError:
        continue
    lines = text.splitlines(keepends=True)
    header = "".join("".join(lines[s.lineno - 1:s.end_lineno]) for s in tree.body
                     if isinstance(s, (ast.Import, ast.ImportFrom)))
    for i, stmt in enumerate(tree.body):
        if isinstance(stmt, (ast.Import, ast.ImportFrom)):
            continue
        first = min([stmt.lineno] + [d.lineno for d in getattr(stmt, "decorator_list", [])])
        body = "".join(lines[first - 1:stmt.end_lineno])
        if "cuda" in body or "def " in body:
            (out / f"{path.stem}_{i}.py").write_text(header + "\n" + body)
PY
fi

for t in "${python_targets[@]}"; do
  mkdir -p "$fuzz/corpus/$t"
  cp "$seeds"/*.py "$fuzz/corpus/$t/" 2>/dev/null || true
done

# lsp_decode: framed JSON-RPC as editors send it, and the malformed kinds the guard answers.
lsp="$fuzz/corpus/lsp_decode"
mkdir -p "$lsp"
frame() { printf 'Content-Length: %d\r\n\r\n%s' "${#1}" "$1"; }
init='{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"capabilities":{}}}'
open='{"jsonrpc":"2.0","method":"textDocument/didOpen","params":{"textDocument":{"uri":"file:///k.py","languageId":"python","version":1,"text":"from numba import cuda\n@cuda.jit\ndef k(a):\n    a[cuda.grid(1)] = 1\n"}}}'
hover='{"jsonrpc":"2.0","id":"h","method":"textDocument/hover","params":{"textDocument":{"uri":"file:///k.py"},"position":{"line":3,"character":6}}}'
response='{"jsonrpc":"2.0","id":7,"result":null}'
frame "$init" > "$lsp/initialize"
{ frame "$init"; frame "$open"; frame "$hover"; frame '{"jsonrpc":"2.0","method":"exit"}'; } > "$lsp/session"
frame "$response" > "$lsp/response"
frame '{not json' > "$lsp/bad_json"
frame '{"id":1,"method":"x"}' > "$lsp/no_version"
frame '{"jsonrpc":"2.0","id":1.5,"method":"x"}' > "$lsp/float_id"
printf 'Content-Type: application/vscode-jsonrpc; charset=utf-8\r\nContent-Length: %d\r\n\r\n%s' "${#init}" "$init" > "$lsp/two_headers"
printf 'Content-Length: abc\r\n\r\n%s' "$init" > "$lsp/bad_length"
printf '\r\n\r\ncontent-length:%d\n\n%s' "${#response}" "$response" > "$lsp/lowercase_lf"
printf 'Content-Length: 999999\r\n\r\n{"jsonrpc"' > "$lsp/truncated"
echo "seeded $n Python files (plus splits) into ${python_targets[*]}, and lsp_decode"
