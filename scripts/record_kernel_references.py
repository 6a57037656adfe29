#!/usr/bin/env python3
"""Record Numba's answers for our kernel corpus (tests/kernels/manifest_*.toml) under
tests/kernels/reference/, for tests/kernel_corpus.rs to check kernlint against without Numba.

Run it with the oracle venv (numba-cuda with NVVM; no GPU needed):
  /root/.cache/kernlint-oracle/bin/python scripts/record_kernel_references.py [MANIFEST ...]
With no MANIFEST it records every tests/kernels/manifest_*.toml (and drops the references of
manifests that no longer exist). Env: KERNLINT_SHARED (default ../shared), JOBS (default 2).

For each manifest M it runs `oracle.py reference` (inputs, and Numba's outputs from the
simulator or the case's `ref` function, as its `oracle` says) and `typemap.py numba`, then
writes, per case, reference/M/CASE/:
  case.json   the launch (kernel file relative to tests/kernels, kernel, signature, grid,
              block, shared memory), each argument (an .npy input or a scalar literal),
              each output's file and tolerance, and Numba's type of every variable
  argI.npy    the initial contents of array argument I (in case.json instead when all
              its items are the same)
  outI.npy    Numba's final contents of output argument I
A case Numba cannot run or type is an error: fix the case rather than record it.
"""
import json, os, shutil, subprocess, sys, tempfile

import numpy as np

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
KERNELS = os.path.join(ROOT, "tests", "kernels")
REFERENCE = os.path.join(KERNELS, "reference")
SHARED = os.environ.get("KERNLINT_SHARED", os.path.join(ROOT, "..", "shared"))


def run(cmd):
    """`cmd`'s standard output; its output's end, and exit, when it fails."""
    p = subprocess.run(cmd, capture_output=True, text=True)
    if p.returncode != 0:
        sys.exit(f"{' '.join(cmd[1:])} failed:\n" + (p.stdout + p.stderr)[-3000:])
    return p.stdout


def array_arg(a, case_dir):
    """An array argument: its .npy, or (when every item is the same, as the outputs' zeros
    are) its dtype, shape, order and one item's bytes in hex, to keep the references small."""
    arr = np.load(a["path"], allow_pickle=False)
    if arr.size and arr.dtype.names is None:
        items = np.ascontiguousarray(arr).reshape(-1).view(np.uint8).reshape(arr.size, -1)
        if (items == items[0]).all():
            return {"name": a["name"], "descr": np.lib.format.dtype_to_descr(arr.dtype), "shape": list(arr.shape),
                    "fortran_order": bool(np.isfortran(arr)) and arr.ndim > 1, "fill": items[0].tobytes().hex()}
    shutil.copyfile(a["path"], os.path.join(case_dir, f"arg{a['index']}.npy"))
    return {"name": a["name"], "npy": f"arg{a['index']}.npy"}


def compact_json(case):
    """One line per key, and per item of a list or an object: small diffs when a case changes."""
    def item(v):
        return json.dumps(v, separators=(", ", ": "))
    lines = []
    for k, v in case.items():
        if isinstance(v, list) and v and isinstance(v[0], dict):
            lines.append(f' "{k}": [\n' + ",\n".join(f"  {item(x)}" for x in v) + "\n ]")
        elif isinstance(v, dict) and v:
            lines.append(f' "{k}": {{\n' + ",\n".join(f"  {item(n)}: {item(t)}" for n, t in v.items()) + "\n }")
        else:
            lines.append(f" {item(k)}: {item(v)}")
    return "{\n" + ",\n".join(lines) + "\n}\n"


def record(manifest, tmp):
    stem = os.path.splitext(os.path.basename(manifest))[0]
    out = os.path.join(tmp, stem)
    oracle = os.path.join(SHARED, "kernels", "oracle.py")
    typemap = os.path.join(SHARED, "kernels", "typemap.py")
    # No Numba PTX (--no-compile): the test assembles kernlint's own PTX.
    run([sys.executable, oracle, "reference", out, "--manifest", manifest, "--no-gpu", "--no-compile",
         "--cc", "90", "--jobs", os.environ.get("JOBS", "2")])
    types = json.loads(run([sys.executable, typemap, "numba", "--manifest", manifest]))
    dest = os.path.join(REFERENCE, stem)
    shutil.rmtree(dest, ignore_errors=True)
    with open(os.path.join(out, "results.json")) as f:
        names = [r["name"] for r in json.load(f)["cases"]]
    for name in names:
        if name not in types:
            sys.exit(f"{stem}/{name}: Numba could not type it (see typemap.py numba --manifest {manifest})")
        with open(os.path.join(out, name, "case.json")) as f:
            cj = json.load(f)
        case_dir = os.path.join(dest, name)
        os.makedirs(case_dir)
        args = []
        for a in cj["args"]:
            if a["kind"] == "array":
                args.append(array_arg(a, case_dir))
            else:
                args.append({"name": a["name"], "scalar": a["literal"]})
        outputs = []
        for i in cj["outputs"]:
            arg = cj["args"][i]["name"]
            shutil.copyfile(os.path.join(out, name, "ref", f"arg{i}.npy"), os.path.join(case_dir, f"out{i}.npy"))
            outputs.append({"arg": i, "npy": f"out{i}.npy", "tol": cj["tol_by_output"].get(arg, cj["tol"])})
        case = {
            "name": name,
            "file": os.path.relpath(cj["file"], KERNELS),
            "kernel": cj["kernel"],
            "sig": cj["sig"],
            "grid": cj["grid"],
            "block": cj["block"],
            "shared_mem": cj["shared_mem"],
            "oracle": cj["oracle"],
            "args": args,
            "outputs": outputs,
            "typemap": dict(sorted(types[name].items())),
        }
        with open(os.path.join(case_dir, "case.json"), "w") as f:
            f.write(compact_json(case))
    print(f"{stem}: {len(names)} cases")


def main():
    manifests = sys.argv[1:]
    if not manifests:
        manifests = sorted(os.path.join(KERNELS, m) for m in os.listdir(KERNELS)
                           if m.startswith("manifest_") and m.endswith(".toml"))
        stems = {os.path.splitext(os.path.basename(m))[0] for m in manifests}
        for old in os.listdir(REFERENCE) if os.path.isdir(REFERENCE) else []:
            if old not in stems:
                shutil.rmtree(os.path.join(REFERENCE, old))
    with tempfile.TemporaryDirectory(prefix="kernlint-reference-") as tmp:
        for m in manifests:
            record(os.path.abspath(m), tmp)


if __name__ == "__main__":
    main()
