#!/usr/bin/env python3
"""Kernel cases on a GPU against the simulator and Numba (not a test: run it where a GPU is).

Cases: every recorded case of tests/kernels/reference (scripts/record_kernel_references.py
wrote them, with Numba's outputs), and with `--oracle DIR` every case directory that
`oracle.py reference DIR --manifest M` prepared (inputs only: for tests/realworld, say).
For each: `kernlint run --device gpu` and `kernlint run --device sim` from the same inputs,
then

  - the GPU's outputs against Numba's recorded ones, within the case's tolerance (as
    tests/kernel_corpus.rs checks the simulator's), where the case has them, and
  - the GPU's outputs against the simulator's, bit for bit (NaNs equal whatever their
    payload): the simulator claims to compute what the GPU computes.

Then, where numba-cuda can run on the GPU, Numba's compiled kernel on the GPU for every
`--oracle` case and every recorded case that failed either check, compared bit for bit with
our GPU run and our simulator, first differing items shown (the recorded outputs come from
Numba's simulator or a Python reference, which a racy or undefined case can contradict).

Prints one line per case with a problem, then the totals. Exit status 1 when a case fails
against Numba's recorded outputs or a run fails.

Usage: scripts/gpu_corpus.py KERNLINT_BINARY [--oracle DIR]... [--jobs J] [--only SUBSTRING] [--work DIR]
Env:   DEVICE (default gpu): DEVICE=sim checks the script's plumbing where no GPU is.
       NUMBA_FMA=0: Numba's kernels compiled without FMA contraction (NVVM's default is on).
       SHOW (default 4): differing items shown per output.
"""
import argparse
import ast
import concurrent.futures as cf
import glob
import json
import multiprocessing
import os
import subprocess
import sys
import tempfile

import numpy as np

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
KERNELS = os.path.join(ROOT, "tests", "kernels")
DEVICE = os.environ.get("DEVICE", "gpu")


def recorded_case(case_json, work_root):
    """A case of tests/kernels/reference, its constant arrays written out as .npy files."""
    case_dir = os.path.dirname(case_json)
    c = json.load(open(case_json))
    tag = os.path.relpath(case_dir, os.path.join(KERNELS, "reference"))
    work = os.path.join(work_root, tag.replace(os.sep, "__"))
    os.makedirs(work, exist_ok=True)
    args = []
    for i, a in enumerate(c["args"]):
        if "scalar" in a:
            args.append(("scalar", a["scalar"]))
        elif "npy" in a:
            args.append(("array", os.path.join(case_dir, a["npy"])))
        else:
            item = np.frombuffer(bytes.fromhex(a["fill"]), dtype=np.dtype(a["descr"]))
            path = os.path.join(work, f"arg{i}.npy")
            np.save(path, np.full(a["shape"], item[0], dtype=item.dtype, order="F" if a["fortran_order"] else "C"))
            args.append(("array", path))
    outputs = [(o["arg"], c["args"][o["arg"]]["name"], os.path.join(case_dir, o["npy"]), o["tol"]) for o in c["outputs"]]
    return {"tag": tag, "work": work, "file": os.path.join(KERNELS, c["file"]), "kernel": c["kernel"], "sig": c["sig"],
            "grid": c["grid"], "block": c["block"], "shared_mem": c["shared_mem"], "args": args, "outputs": outputs,
            "numba_gpu": False}


def oracle_case(case_json, work_root):
    """A case directory prepared by `oracle.py reference`: inputs, no recorded outputs."""
    c = json.load(open(case_json))
    tag = os.path.join(os.path.basename(os.path.dirname(os.path.dirname(case_json))), c["name"])
    work = os.path.join(work_root, tag.replace(os.sep, "__"))
    os.makedirs(work, exist_ok=True)
    args = [("array", a["path"]) if a["kind"] == "array" else ("scalar", a["literal"]) for a in c["args"]]
    outputs = [(i, c["args"][i]["name"], None, None) for i in c["outputs"]]
    return {"tag": tag, "work": work, "file": c["file"], "kernel": c["kernel"], "sig": c["sig"], "grid": c["grid"],
            "block": c["block"], "shared_mem": c["shared_mem"], "args": args, "outputs": outputs, "numba_gpu": True}


def run(binary, case, device, out, timeout):
    cmd = [binary, "run", f"{case['file']}::{case['kernel']}", "--sig", case["sig"],
           "--grid", ",".join(map(str, case["grid"])), "--block", ",".join(map(str, case["block"])),
           "--shared-mem", str(case["shared_mem"]), "--device", device, "--out", out, *(v for _, v in case["args"])]
    try:
        p = subprocess.run(cmd, capture_output=True, text=True, timeout=timeout)
    except subprocess.TimeoutExpired:
        return f"timed out after {timeout} s"
    # The simulator exits 1 when its sanitizer reports something; its outputs are still written.
    if p.returncode != 0 and not (device == "sim" and p.returncode == 1 and os.path.isdir(out)):
        tail = (p.stdout + p.stderr).strip().splitlines()
        return f"rc={p.returncode}: {tail[-1] if tail else ''}"[:200]
    return None


def within(ours, numba, tol):
    if ours.shape != numba.shape or ours.dtype != numba.dtype:
        return f"shape/dtype {ours.shape} {ours.dtype} vs {numba.shape} {numba.dtype}"
    if ours.dtype.names:  # a record array: each field within the tolerance
        problems = [f"field {f}: {p}" for f in ours.dtype.names if (p := within(ours[f], numba[f], tol))]
        return "; ".join(problems) or None
    if tol == "exact":
        if ours.dtype.kind in "fc":
            same = (ours == numba) | (np.isnan(ours) & np.isnan(numba))
        else:
            same = ours == numba
        bad = int(np.size(same) - np.count_nonzero(same))
        return f"{bad} items differ (exact)" if bad else None
    rtol, atol, frac = tol.get("rtol", 0.0), tol.get("atol", 0.0), tol.get("mismatch_frac", 0.0)
    close = np.isclose(ours, numba, rtol=rtol, atol=atol, equal_nan=True)
    bad = int(np.size(close) - np.count_nonzero(close))
    return f"{bad} items beyond rtol={rtol} atol={atol}" if bad > frac * np.size(close) else None


def bits_equal(a, b):
    if a.shape != b.shape or a.dtype != b.dtype:
        return False
    if a.dtype.names:
        return all(bits_equal(a[f], b[f]) for f in a.dtype.names)
    a, b = np.ascontiguousarray(a).reshape(-1), np.ascontiguousarray(b).reshape(-1)
    if a.dtype.kind == "c":
        a, b = a.view(a.real.dtype), b.view(b.real.dtype)
    if a.dtype.kind == "f":
        bits = f"u{a.dtype.itemsize}"
        return bool(np.all((a.view(bits) == b.view(bits)) | (np.isnan(a) & np.isnan(b))))
    return bool(np.array_equal(a.view(np.uint8), b.view(np.uint8)))


def check(binary, case, timeout):
    res = {"case": case["tag"], "numba": None, "sim": None, "error": None}
    outs = {}
    for role, device in (("gpu", DEVICE), ("sim", "sim")):
        out = os.path.join(case["work"], role)
        err = run(binary, case, device, out, timeout)
        if err:
            if role == "gpu":
                res["error"] = f"{device}: {err}"
                return res
            res["sim"] = f"sim: {err}"
        outs[role] = out
    numba_bad, sim_diff = [], []
    for _, name, ref, tol in case["outputs"]:
        gpu = np.load(os.path.join(outs["gpu"], f"{name}.npy"))
        if ref is not None and (problem := within(gpu, np.load(ref), tol)):
            numba_bad.append(f"{name}: {problem}")
        if res["sim"] is None and not bits_equal(gpu, np.load(os.path.join(outs["sim"], f"{name}.npy"))):
            sim_diff.append(name)
    res["numba"] = "; ".join(numba_bad) or None
    if res["sim"] is None and sim_diff:
        res["sim"] = f"differs from the simulator in {', '.join(sim_diff)}"
    return res


def guarded(binary, case, timeout):
    try:
        return check(binary, case, timeout)
    except Exception as e:  # noqa: BLE001  (one broken case must not hide the others' results)
        return {"case": case["tag"], "numba": None, "sim": None, "error": f"script: {type(e).__name__}: {e}"[:200]}


def show(a, k):
    v = a.reshape(-1)[k]
    if a.dtype.kind in "fc":
        return f"{v!r} ({np.ascontiguousarray(a).reshape(-1)[k:k + 1].view(np.uint8).tobytes()[::-1].hex()})"
    return repr(v.item() if hasattr(v, "item") else v)


def no_contraction():
    """NVVM without `-fma=1`, its default (so Numba's kernels contract `a * b + c` into an
    FMA where kernlint rounds twice): shows which differences that default makes."""
    from numba.cuda.cudadrv import nvvm
    if getattr(nvvm, "_kernlint_no_fma", False):
        return
    compile_ir = nvvm.compile_ir

    def without_fma(llvmir, **options):
        if not options.get("fastmath"):
            options["fma"] = False
        return compile_ir(llvmir, **options)

    nvvm.compile_ir = without_fma
    nvvm._kernlint_no_fma = True


def numba_on_gpu(case):
    """Numba's compiled kernel on the GPU from the case's inputs, compared bit for bit with
    our two runs: (all equal, report lines)."""
    import importlib.util
    from numba import cuda
    if os.environ.get("NUMBA_FMA") == "0":
        no_contraction()
    try:
        spec = importlib.util.spec_from_file_location(f"kcase_{abs(hash(case['tag']))}", case["file"])
        mod = importlib.util.module_from_spec(spec)
        sys.path.insert(0, os.path.dirname(case["file"]))
        spec.loader.exec_module(mod)
        fn = getattr(mod, case["kernel"])
        kern = cuda.jit(case["sig"])(getattr(fn, "py_func", fn))
        host = [np.load(v) if kind == "array" else ast.literal_eval(v) for kind, v in case["args"]]
        dev = [cuda.to_device(h) if isinstance(h, np.ndarray) else h for h in host]
        kern[tuple(case["grid"]), tuple(case["block"]), 0, case["shared_mem"]](*dev)
        cuda.synchronize()
    except Exception as e:  # noqa: BLE001
        return None, [f"  numba on the GPU: {type(e).__name__}: {' '.join(str(e).split())[:200]}"]
    lines, all_equal = [], True
    for arg, name, _, _ in case["outputs"]:
        numba = dev[arg].copy_to_host()
        ours = {}
        for role in ("gpu", "sim"):
            path = os.path.join(case["work"], role, f"{name}.npy")
            if os.path.exists(path):
                ours[role] = np.load(path)
        equal = {role: bits_equal(v, numba) for role, v in ours.items()}
        all_equal &= all(equal.values())
        if all(equal.values()):
            continue
        lines.append(f"  {name}: " + ", ".join(f"{role} {'==' if e else '!='} numba-gpu" for role, e in equal.items()))
        flat = [np.ascontiguousarray(v).reshape(-1) for v in ours.values()] + [np.ascontiguousarray(numba).reshape(-1)]
        shown = 0
        for k in range(flat[-1].size):
            if all(bits_equal(flat[0][k:k + 1], f[k:k + 1]) for f in flat[1:]):
                continue
            lines.append(f"    {[int(i) for i in np.unravel_index(k, numba.shape)]} " + " / ".join(show(f, k) for f in flat))
            shown += 1
            if shown == int(os.environ.get("SHOW", "4")):
                break
    return all_equal, lines


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("kernlint")
    ap.add_argument("--oracle", action="append", default=[])
    ap.add_argument("--jobs", type=int, default=os.cpu_count() or 4)
    ap.add_argument("--numba-jobs", type=int, default=8)
    ap.add_argument("--only")
    ap.add_argument("--timeout", type=float, default=300)
    ap.add_argument("--work", default=os.path.join(tempfile.gettempdir(), "kernlint-gpu-corpus"))
    a = ap.parse_args()
    binary = os.path.abspath(a.kernlint)
    cases = [recorded_case(c, a.work) for c in sorted(glob.glob(os.path.join(KERNELS, "reference", "*", "*", "case.json")))]
    for d in a.oracle:
        cases += [oracle_case(c, a.work) for c in sorted(glob.glob(os.path.join(d, "*", "case.json")))]
    cases = [c for c in cases if not a.only or a.only in c["tag"]]
    with cf.ThreadPoolExecutor(a.jobs) as pool:
        results = list(pool.map(lambda c: guarded(binary, c, a.timeout), cases))
    for r in results:
        problems = [p for p in (r["error"], r["numba"] and f"vs Numba: {r['numba']}", r["sim"]) if p]
        if problems:
            print(f"{r['case']:60} {' | '.join(problems)}")
    errors = [r for r in results if r["error"]]
    vs_numba = [r for r in results if not r["error"] and r["numba"]]
    vs_sim = [r for r in results if not r["error"] and r["sim"]]
    ran = len(results) - len(errors)
    recorded = sum(1 for c, r in zip(cases, results) if not r["error"] and not c["numba_gpu"])
    print(f"\n{len(results)} cases: {len(errors)} failed to run on the GPU; of the {ran} that ran, "
          f"{ran - len(vs_sim)} equal the simulator's outputs bit for bit, and {recorded - len(vs_numba)} "
          f"of the {recorded} with recorded Numba outputs agree with them")
    try:
        from numba import cuda
        numba_ok = cuda.is_available()
    except Exception:  # noqa: BLE001  (no numba-cuda: nothing to compare with)
        numba_ok = False
    again = [c for c, r in zip(cases, results) if not r["error"] and (c["numba_gpu"] or r["numba"] or r["sim"])]
    if numba_ok and again:
        print(f"\nNumba's compiled kernels on the GPU, bit for bit (first differing items: ours-gpu / ours-sim / numba-gpu)")
        # Spawned, not forked: this process has initialised CUDA.
        with cf.ProcessPoolExecutor(a.numba_jobs, mp_context=multiprocessing.get_context("spawn")) as pool:
            verdicts = list(pool.map(numba_on_gpu, again))
        same = failed = 0
        for c, (equal, lines) in zip(again, verdicts):
            same += equal is True
            failed += equal is None
            if lines:
                print(c["tag"] + "\n" + "\n".join(lines))
        print(f"\n{len(again)} cases with Numba on the GPU: {same} equal both our runs bit for bit, "
              f"{len(again) - same - failed} differ, {failed} Numba could not run")
    return 1 if errors or vs_numba else 0


if __name__ == "__main__":
    sys.exit(main())
