#!/usr/bin/env python3
"""Benchmark (not a test): kernlint's simulator against Numba's CUDA simulator on the
corpus. Reads the reference directory written by `oracle.py reference` (Numba's simulator
launch time per case, `sim_s`), runs the same launch with `kernlint run --repeat 3` and
prints per case and overall our speed as a ratio (same kernel and launch, so the ratio of
times is the ratio of thread-steps per second). Goal: at least 1000x.

usage: scripts/bench_sim.py REFDIR [path/to/kernlint]
"""
import json, math, os, re, shlex, subprocess, sys

ref = sys.argv[1]
kernlint = sys.argv[2] if len(sys.argv) > 2 else os.path.join(os.path.dirname(__file__), "..", "target", "release", "kernlint")
ratios = []
print(f"{'case':24} {'numba sim s':>12} {'kernlint s':>12} {'ratio':>10}")
for name in sorted(os.listdir(ref)):
    rec_path = os.path.join(ref, name, "record.json")
    if not os.path.exists(rec_path):
        continue
    rec = json.load(open(rec_path))
    sim = rec.get("sim") or {}
    if not sim.get("ok"):
        continue
    case = json.load(open(os.path.join(ref, name, "case.json")))
    args = []
    for a in case["args"]:
        if a["kind"] == "array":
            args.append(os.path.join(ref, name, "in", f"arg{a['index']}.npy"))
        else:
            args.append(a["literal"])
    cmd = [kernlint, "run", f"{case['file']}::{case['kernel']}", "--sig", case["sig"],
           "--grid", ",".join(map(str, case["grid"])), "--block", ",".join(map(str, case["block"])),
           "--shared-mem", str(case.get("shared_mem", 0)), "--device", "sim", "--repeat", "3"] + args
    out = subprocess.run(cmd, capture_output=True, text=True).stdout
    m = re.search(r"time: ([0-9.]+) ms", out)
    if not m:
        print(f"{name:24} kernlint failed: {shlex.join(cmd)}")
        continue
    ours = float(m.group(1)) / 1e3
    ratio = sim["sim_s"] / max(ours, 1e-9)
    ratios.append(ratio)
    print(f"{name:24} {sim['sim_s']:12.4f} {ours:12.6f} {ratio:10.0f}x")
if ratios:
    geo = math.exp(sum(math.log(r) for r in ratios) / len(ratios))
    print(f"\n{len(ratios)} cases: geometric mean {geo:.0f}x, min {min(ratios):.0f}x (goal >= 1000x)")
