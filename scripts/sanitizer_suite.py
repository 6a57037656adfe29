#!/usr/bin/env python3
"""The sanitizer suite (tests/sanitizer/*.py) against `kernlint run` and Numba's CUDA simulator.

Every kernel there has a `# kernlint: run` comment. A kernel named `*_ok` must run without a
finding and give the outputs Numba's simulator gives for the same inputs; any other kernel
plants one bug, whose line carries `# BUG: KIND...` (in the kernel or in a device function it
calls): the run must report a finding of one of those kinds on that line (or a race whose
other access is there). Findings on lines
marked `# ALSO: KIND...` are the same bug seen from its other access; any other finding is
counted as extra. `# MISSED: KIND (why)` marks a bug the simulator is known not to report. Run with the oracle venv's python (numba, numpy):

usage: ~/.cache/kernlint-oracle/bin/python scripts/sanitizer_suite.py [KERNEL_FILTER]
"""
import ast, os, re, subprocess, sys, tempfile, time

os.environ["NUMBA_ENABLE_CUDASIM"] = "1"
import numpy as np  # noqa: E402

ROOT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..")
SUITE = os.path.join(ROOT, "tests", "sanitizer")
KERNLINT = os.environ.get("KERNLINT", os.path.join(ROOT, "target", "release", "kernlint"))
FINDING = re.compile(r"^(.*?):(\d+):(\d+): sanitizer\[([a-z-]+)\]: (.*)$")
MARK = re.compile(r"#\s*(BUG|ALSO|MISSED):\s*([a-z\- ]+)")


def cases(path):
    text = open(path).read()
    lines = text.splitlines()
    tree = ast.parse(text)
    marks = {}  # function name -> [(line, BUG|ALSO, kinds)]
    kernels = []
    for node in tree.body:
        if not isinstance(node, ast.FunctionDef):
            continue
        marks[node.name] = []
        for ln in range(node.lineno, node.end_lineno + 1):
            m = MARK.search(lines[ln - 1])
            if m:
                marks[node.name].append((ln, m.group(1), m.group(2).split()))
        device = any(isinstance(d, ast.Call) and any(k.arg == "device" for k in d.keywords) for d in node.decorator_list)
        if device:
            continue
        first = min([d.lineno for d in node.decorator_list] + [node.lineno])
        comment = lines[first - 2]
        m = re.match(r"#\s*kernlint: run (.*)", comment.strip())
        if not m:
            continue
        spec = dict(kv.split("=", 1) for kv in m.group(1).split())
        calls = {c.func.id for c in ast.walk(node) if isinstance(c, ast.Call) and isinstance(c.func, ast.Name)}
        kernels.append({
            "file": path, "name": node.name, "grid": spec["grid"], "block": spec["block"],
            "shared": int(spec.get("shared", 0)), "args": spec["args"].split(","),
            "calls": calls,
        })
    for k in kernels:
        k["marks"] = marks[k["name"]] + [m for c in k["calls"] if c in marks for m in marks[c]]
    return kernels


def split_args(args):
    # `rand:float32[40,40]` holds commas: rejoin the pieces of a shape.
    out, cur = [], ""
    for piece in args:
        cur = f"{cur},{piece}" if cur else piece
        if cur.count("[") == cur.count("]"):
            out.append(cur)
            cur = ""
    return out


def make_input(spec, rng):
    m = re.match(r"(\w+):(\w+)\[([\d,]+)\]$", spec)
    if not m:
        return int(spec) if re.match(r"-?\d+$", spec) else float(spec)
    kind, dtype, shape = m.group(1), np.dtype(m.group(2)), tuple(int(s) for s in m.group(3).split(","))
    if kind in ("zeros", "empty"):
        return np.zeros(shape, dtype)
    if kind == "ones":
        return np.ones(shape, dtype)
    if kind == "arange":
        return np.arange(np.prod(shape)).reshape(shape).astype(dtype)
    if kind == "rand":
        return rng.random(shape).astype(dtype)
    if kind == "randint":
        return rng.integers(0, 100, shape).astype(dtype)
    raise ValueError(spec)


def run_kernlint(case, inputs, folder):
    paths = []
    for n, v in enumerate(inputs):
        if isinstance(v, np.ndarray):
            p = os.path.join(folder, f"in{n}.npy")
            np.save(p, v)
            paths.append(p)
        else:
            paths.append(str(v))
    cmd = ["timeout", "60", KERNLINT, "run", f"{case['file']}::{case['name']}", "--device", "sim",
           "--grid", case["grid"], "--block", case["block"], "--shared-mem", str(case["shared"]),
           "--out", os.path.join(folder, "out")] + paths
    t0 = time.time()
    p = subprocess.run(cmd, capture_output=True, text=True)
    wall = time.time() - t0
    findings = []
    for line in (p.stdout + p.stderr).splitlines():
        m = FINDING.match(line)
        if m:
            findings.append((int(m.group(2)), m.group(4), m.group(5)))
    return p, findings, wall


def numba_outputs(case, inputs):
    import importlib.util
    spec = importlib.util.spec_from_file_location(os.path.basename(case["file"])[:-3], case["file"])
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    if case["name"] in getattr(mod, "REFERENCE", {}):
        return mod.REFERENCE[case["name"]](*inputs)
    kernel = getattr(mod, case["name"])
    grid = tuple(int(g) for g in case["grid"].split(","))
    block = tuple(int(b) for b in case["block"].split(","))
    args = [v.copy() if isinstance(v, np.ndarray) else v for v in inputs]
    kernel[grid, block, 0, case["shared"]](*args)
    return args


def main():
    only = sys.argv[1] if len(sys.argv) > 1 else ""
    rows = []
    for fname in sorted(os.listdir(SUITE)):
        if not fname.endswith(".py"):
            continue
        for case in cases(os.path.join(SUITE, fname)):
            if only not in case["name"]:
                continue
            case["args"] = split_args(case["args"])
            rng = np.random.default_rng(7)
            inputs = [make_input(a, rng) for a in case["args"]]
            with tempfile.TemporaryDirectory() as folder:
                p, findings, wall = run_kernlint(case, inputs, folder)
                ok_kernel = case["name"].endswith("_ok")
                verdict, notes = "", []
                if p.returncode not in (0, 1):
                    verdict = f"ERROR rc={p.returncode}"
                    notes.append(p.stderr.strip()[-400:])
                elif ok_kernel:
                    verdict = "clean" if not findings else "FALSE"
                    try:
                        ref = numba_outputs(case, inputs)
                        for n, v in enumerate(ref):
                            if not isinstance(v, np.ndarray):
                                continue
                            ours = np.load(os.path.join(folder, "out", f"{case_param(case, n)}.npy"))
                            tol = dict(rtol=1e-5, atol=1e-6) if v.dtype.kind == "f" else dict(rtol=0, atol=0)
                            if not np.allclose(ours, v, **tol):
                                bad = np.argwhere(~np.isclose(ours, v, **tol))
                                verdict += " OUTPUT-DIFF"
                                notes.append(f"arg {n}: {len(bad)} differ, first {tuple(bad[0])}: ours {ours[tuple(bad[0])]} numba {v[tuple(bad[0])]}")
                        verdict += " =numba" if "DIFF" not in verdict else ""
                    except Exception as e:  # noqa: BLE001
                        verdict += " (numba sim: " + f"{type(e).__name__}: {e}"[:150] + ")"
                else:
                    bug = [(ln, kinds) for ln, what, kinds in case["marks"] if what == "BUG"]
                    also = {ln: kinds for ln, what, kinds in case["marks"]}
                    # A race is reported at its second access: the other access names the bug's line.
                    caught = any(kind in kinds and (ln == bl or f":{bl}:" in msg)
                                 for ln, kind, msg in findings for bl, kinds in bug)
                    extra = [(ln, kind) for ln, kind, _ in findings if kind not in also.get(ln, [])]
                    known = any(what == "MISSED" for _, what, _ in case["marks"])
                    verdict = ("caught" if caught else "known miss" if known else "MISSED") + (f" +extra {extra}" if extra else "")
                rows.append((case["name"], verdict, wall, findings, notes))
                print(f"{case['name']:28} {wall*1000:7.0f} ms  {verdict}", flush=True)
                for ln, kind, msg in findings[:4]:
                    print(f"      {ln}: [{kind}] {msg[:300]}")
                if len(findings) > 4:
                    print(f"      ... {len(findings) - 4} more")
                for n in notes:
                    print("      " + n)
    bad = [r for r in rows if not (r[1].startswith(("caught", "known miss")) and "extra" not in r[1]) and not r[1].startswith("clean =numba")]
    print(f"\n{len(rows)} kernels, {len(bad)} not as expected")
    return 1 if bad else 0


def case_param(case, n):
    tree = ast.parse(open(case["file"]).read())
    fn = next(f for f in tree.body if isinstance(f, ast.FunctionDef) and f.name == case["name"])
    return fn.args.args[n].arg


if __name__ == "__main__":
    sys.exit(main())
