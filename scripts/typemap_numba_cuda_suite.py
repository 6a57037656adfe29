#!/usr/bin/env python3
"""Numba's own types for the kernels of numba-cuda's test suite versus kernlint's.

Run scripts/type_numba_cuda_suite.sh first (it writes typing.jsonl), then, in the oracle venv
(`bash ../shared/tools/oracle-env.sh`; needs pytest and filecheck installed there, which the
test modules import):

    VENV/bin/python scripts/typemap_numba_cuda_suite.py target/release/kernlint [WORK]

For every module-level function kernlint typed, Numba compiles it (no GPU: the oracle's CPU
shims) for the signature kernlint used, and every variable's set of types must agree.
Prints each disagreement and `agree N disagree M skipped K`; exits 1 on a disagreement.
"""
import collections, json, os, re, subprocess, sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.environ.get("KERNLINT_CORPUS", os.path.join(ROOT, "..", "shared", "kernels")))
import oracle  # noqa: E402

oracle.install_cpu_compile_shims((9, 0))
KL = sys.argv[1]
WORK = sys.argv[2] if len(sys.argv) > 2 else os.path.join(os.environ.get("TMPDIR", "/tmp"), "kernlint-numba-cuda")
rows = [json.loads(l) for l in open(os.path.join(WORK, "typing.jsonl"))]
def norm(t):
    s = str(t)
    if s.startswith("Literal[int]"): return "int64"
    if s.startswith("Literal[bool]"): return "bool"
    if s.startswith("Literal[float]"): return "float64"
    return s
from numba.cuda import types as T
def parse_type(t):
    t = t.strip()
    m = re.fullmatch(r"array\((\w+), (\d)d, ([CFA])\)", t)
    if m: return T.Array(getattr(T, m.group(1) if m.group(1) != "bool" else "boolean"), int(m.group(2)), m.group(3))
    m = re.fullmatch(r"UniTuple\((\w+) x (\d+)\)", t)
    if m: return T.UniTuple(getattr(T, m.group(1)), int(m.group(2)))
    return getattr(T, "boolean" if t == "bool" else t)
def parse_args(sig):
    inner = sig[1:sig.rindex(") ->")]
    parts, depth, cur = [], 0, ""
    for ch in inner:
        if ch == "," and depth == 0: parts.append(cur); cur = ""; continue
        depth += ch in "(["; depth -= ch in ")]"; cur += ch
    if cur.strip(): parts.append(cur)
    return [parse_type(p) for p in parts if p.strip()]
mods = {}
agree = disagree = skipped = 0
for r in rows:
    if r["outcome"] != "typed" or "<locals>" in r["function"] or "." in r["function"]:
        continue
    f = r["file"]
    if f not in mods:
        try:
            src = open(f).read()
            # The kernels: everything before the first test class (whose decorators need a GPU).
            cut = re.search(r"^(@[^\n]*\n(?:[ )][^\n]*\n)*)*class ", src, re.M)
            src = src[:cut.start()] if cut else src
            src = re.sub(r"^from \.", "from numba.cuda.tests.cudapy.", src, flags=re.M)
            import types as _t
            m = _t.ModuleType("m%d" % len(mods)); m.__file__ = f
            exec(compile(src, f, "exec"), m.__dict__); mods[f] = m
        except Exception as e:
            mods[f] = None; print("import failed", f.split('/')[-1], type(e).__name__, str(e)[:100])
    m = mods[f]
    disp = getattr(m, r["function"], None) if m else None
    out = subprocess.run([KL, "types", f"{f}::{r['function']}", "--format", "json"], capture_output=True, text=True)
    try:
        ours_all = json.loads(out.stdout)
        args = parse_args(ours_all["signature"])
        from numba.cuda.compiler import compile_cuda
        cres = compile_cuda(getattr(disp, "py_func", disp), None, tuple(args), cc=(9, 0))
    except Exception as e:
        print("skip", f.split('/')[-1], r["function"], type(e).__name__, str(e)[:150].replace("\n", " ")); skipped += 1; continue
    numba_vars = collections.defaultdict(set)
    for v, t in cres.type_annotation.typemap.items():
        if v.startswith("$") or v.startswith("arg."): continue
        numba_vars[re.sub(r"\.\d+$", "", v)].add(norm(t))
    out = subprocess.run([KL, "types", f"{f}::{r['function']}", "--format", "json"], capture_output=True, text=True)
    try:
        ours = json.loads(out.stdout)["variables"]
    except Exception:
        print("ours failed", r["function"], out.stderr[:200]); disagree += 1; continue
    ours = {k: set(v if isinstance(v, list) else [v]) for k, v in ours.items()}
    diffs = [(k, sorted(numba_vars.get(k, [])), sorted(ours.get(k, []))) for k in set(numba_vars) | set(ours) if numba_vars.get(k, set()) != ours.get(k, set())]
    if diffs:
        disagree += 1; print("DIFF", f.split('/')[-1], r["function"], diffs[:4])
    else:
        agree += 1
print(f"agree {agree} disagree {disagree} skipped {skipped}")
sys.exit(1 if disagree else 0)
