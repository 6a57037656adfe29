#!/usr/bin/env python3
"""Random valid kernels (tests/support/kernel_gen.rs) against Numba itself.

Run with the oracle venv (no GPU needed):

  /root/.cache/kernlint-oracle/bin/python scripts/random_kernels_numba.py \
      [--count 300] [--seed 0] [--typing 150] [--sim 25] [--corpus DIR] [--kernlint BIN]

1. Writes COUNT kernels with `cargo test --test random_kernels -- --ignored write_corpus`
   (or reads an existing --corpus DIR holding manifest.json).
2. Typing: for the first TYPING kernels, Numba's typemap (numba.cuda.compiler.compile_cuda
   with the corpus harness's CPU-compile shims; SSA versions folded, literal types counted
   as their base type, as scripts/gen_typing_table.py does) against
   `kernlint types FILE::k --sig SIG --format json`. A kernel Numba cannot type is a
   generator bug, listed separately.
3. Values: for the first SIM kernels, Numba's CUDA simulator (NUMBA_ENABLE_CUDASIM=1, in a
   subprocess) against `kernlint run --device sim`, every array compared with a tolerance.
   The CUDA simulator runs NumPy semantics (float32 * 0.5 stays float32, int32 + int32 wraps
   at 32 bits, Python's max() keeps NaN), so a value disagreement is a lead to examine, not
   by itself a kernlint bug.

Prints agree/disagree counts and each disagreement; exits 1 on any typing disagreement.
"""
import argparse, json, math, os, re, shlex, subprocess, sys, tempfile, traceback, warnings

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
ORACLE_DIR = os.environ.get("KERNLINT_CORPUS", os.path.join(ROOT, "..", "shared", "kernels"))

# Types are compared as gen_typing_table.py folds them (literal types as their base type).
from gen_typing_table import normalize  # noqa: E402  (a sibling script)


def write_corpus(dirname, count, seed):
    env = dict(os.environ, KERNLINT_CORPUS_DIR=dirname, KERNLINT_RANDOM_KERNELS=str(count),
               KERNLINT_RANDOM_SEED=str(seed))
    subprocess.run(["cargo", "test", "-q", "--test", "random_kernels", "--", "--ignored", "write_corpus"],
                   cwd=ROOT, env=env, check=True, stdout=subprocess.DEVNULL)


def import_module(path):
    import importlib.util
    name = "rk_" + re.sub(r"\W", "_", os.path.splitext(os.path.basename(path))[0])
    spec = importlib.util.spec_from_file_location(name, path)
    mod = importlib.util.module_from_spec(spec)
    sys.modules[name] = mod
    spec.loader.exec_module(mod)
    return mod


def numba_types(path, kernel, sig):
    import oracle
    from numba.cuda.compiler import compile_cuda
    mod = import_module(path)
    pyfunc = oracle.py_func_of(getattr(mod, kernel))
    args, _ = oracle.parse_sig(sig)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        cres = compile_cuda(pyfunc, None, tuple(args), cc=(9, 0))
    out = {}
    for var, ty in cres.type_annotation.typemap.items():
        if var.startswith("$") or var.startswith("arg."):
            continue
        out.setdefault(re.sub(r"(\.\d+)+$", "", var), set()).add(normalize(ty))
    return {k: sorted(v) for k, v in out.items()}


def kernlint_types(binary, path, kernel, sig):
    r = subprocess.run([binary, "types", f"{path}::{kernel}", "--sig", sig, "--format", "json"],
                       capture_output=True, text=True)
    if r.returncode != 0:
        return None, (r.stderr or r.stdout).strip()
    # Versions folded as Numba's are (`types` lists a reassigned variable's `n.1`, ...).
    out = {}
    for k, v in json.loads(r.stdout)["variables"].items():
        out.setdefault(re.sub(r"(\.\d+)+$", "", k), set()).update(v if isinstance(v, list) else [v])
    return {k: sorted(v) for k, v in out.items()}, None


def typing_check(binary, corpus, cases):
    sys.path.insert(0, ORACLE_DIR)
    import oracle
    oracle.install_cpu_compile_shims((9, 0))
    agree, disagree, numba_rejects = 0, [], []
    for c in cases:
        path = os.path.join(corpus, c["file"])
        try:
            ref = numba_types(path, c["kernel"], c["sig"])
        except Exception as e:  # the generator made a kernel Numba rejects
            first = next((l for l in str(e).splitlines() if l.strip()), "")
            numba_rejects.append((c["seed"], f"{type(e).__name__}: {first[:300]}"))
            continue
        got, err = kernlint_types(binary, path, c["kernel"], c["sig"])
        if got is None:
            disagree.append((c["seed"], [f"kernlint could not type it: {err}"]))
            continue
        diffs = []
        for var in sorted(set(ref) | set(got)):
            if ref.get(var) != got.get(var):
                diffs.append(f"{var}: numba {ref.get(var)}, kernlint {got.get(var)}")
        if diffs:
            disagree.append((c["seed"], diffs))
        else:
            agree += 1
    print(f"\ntyping: {agree} agree, {len(disagree)} disagree, {len(numba_rejects)} rejected by Numba (generator bugs)")
    for seed, diffs in disagree:
        print(f"  k{seed}.py:")
        for d in diffs:
            print(f"    {d}")
    for seed, e in numba_rejects:
        print(f"  k{seed}.py: Numba rejects it: {e}")
    return len(disagree) + len(numba_rejects)


# --- values ---------------------------------------------------------------------------

def make_args(c):
    import numpy as np
    out = []
    for a in c["args"]:
        if a["kind"] == "array":
            out.append(np.array(a["values"], dtype=a["dtype"]).reshape(a["shape"]))
        else:
            out.append(np.dtype(a["dtype"]).type(float(a["value"]) if "float" in a["dtype"] else int(a["value"])))
    return out


def sim_worker(corpus, seeds, outdir):
    """In a NUMBA_ENABLE_CUDASIM=1 process: run each kernel, save its arrays."""
    import numpy as np
    with open(os.path.join(corpus, "manifest.json")) as f:
        cases = {c["seed"]: c for c in json.load(f)}
    warnings.simplefilter("ignore")
    np.seterr(all="ignore")
    for seed in seeds:
        c = cases[seed]
        try:
            mod = import_module(os.path.join(corpus, c["file"]))
            args = make_args(c)
            grid = tuple(c["grid"][:2]) if c["grid"][1] > 1 or c["block"][1] > 1 else c["grid"][0]
            block = tuple(c["block"][:2]) if c["grid"][1] > 1 or c["block"][1] > 1 else c["block"][0]
            getattr(mod, c["kernel"])[grid, block](*args)
            for i, a in enumerate(args):
                if isinstance(a, np.ndarray):
                    np.save(os.path.join(outdir, f"k{seed}_{i}.npy"), a)
        except Exception as e:
            with open(os.path.join(outdir, f"k{seed}.error"), "w") as f:
                f.write(f"{type(e).__name__}: {e}\n{traceback.format_exc()[-1500:]}")


def values_check(binary, corpus, cases):
    import numpy as np
    work = tempfile.mkdtemp(prefix="rk-sim-")
    seeds = [c["seed"] for c in cases]
    env = dict(os.environ, NUMBA_ENABLE_CUDASIM="1")
    subprocess.run([sys.executable, os.path.abspath(__file__), "--sim-worker", corpus, work,
                    ",".join(map(str, seeds))], env=env, check=True)
    agree, disagree, skipped = 0, [], []
    for c in cases:
        seed = c["seed"]
        err = os.path.join(work, f"k{seed}.error")
        if os.path.exists(err):
            skipped.append((seed, "Numba's simulator failed: " + open(err).read().splitlines()[0][:300]))
            continue
        kdir = os.path.join(work, f"kl{seed}")
        os.makedirs(kdir)
        argv = []
        params = re.search(r"def k\((.*?)\):", open(os.path.join(corpus, c["file"])).read()).group(1).split(", ")
        for i, (a, v) in enumerate(zip(c["args"], make_args(c))):
            if a["kind"] == "array":
                p = os.path.join(kdir, f"in{i}.npy")
                np.save(p, v)
                argv.append(p)
            else:
                argv.append(a["value"])
        dims = lambda d: ",".join(map(str, d[:2])) if d[1] > 1 else str(d[0])
        cmd = [binary, "run", f"{os.path.join(corpus, c['file'])}::{c['kernel']}", "--sig", c["sig"],
               "--grid", dims(c["grid"]), "--block", dims(c["block"]), "--device", "sim", "--out", kdir] + argv
        r = subprocess.run(cmd, capture_output=True, text=True)
        if r.returncode != 0:
            disagree.append((seed, [f"kernlint run failed ({r.returncode}): {(r.stderr or r.stdout).strip()[:500]}"]))
            continue
        diffs = []
        for i, a in enumerate(c["args"]):
            if a["kind"] != "array":
                continue
            ref = np.load(os.path.join(work, f"k{seed}_{i}.npy"))
            got = np.load(os.path.join(kdir, f"{params[i]}.npy"))
            if ref.dtype.kind == "f":
                close = np.isclose(got, ref, rtol=1e-4, atol=1e-5, equal_nan=True)
            else:
                close = got == ref
            if not close.all():
                bad = np.argwhere(~close)
                idx = tuple(bad[0])
                diffs.append(f"{params[i]} ({ref.dtype}): {len(bad)} of {ref.size} elements differ; "
                             f"first at {idx}: numba-sim {ref[idx]!r}, kernlint {got[idx]!r}")
        if diffs:
            disagree.append((seed, diffs))
        else:
            agree += 1
    print(f"\nvalues (Numba's CUDA simulator vs kernlint run --device sim): {agree} agree, "
          f"{len(disagree)} disagree, {len(skipped)} not run")
    for seed, diffs in disagree:
        print(f"  k{seed}.py:")
        for d in diffs:
            print(f"    {d}")
    for seed, why in skipped:
        print(f"  k{seed}.py: {why}")
    return len(disagree)


def main():
    if len(sys.argv) > 1 and sys.argv[1] == "--sim-worker":
        sim_worker(sys.argv[2], [int(s) for s in sys.argv[4].split(",") if s], sys.argv[3])
        return 0
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--count", type=int, default=300, help="kernels to generate")
    ap.add_argument("--seed", type=int, default=0, help="first seed")
    ap.add_argument("--typing", type=int, default=150, help="kernels to type with Numba")
    ap.add_argument("--sim", type=int, default=25, help="kernels to run on Numba's CUDA simulator")
    ap.add_argument("--corpus", help="an existing corpus (manifest.json) instead of generating one")
    ap.add_argument("--kernlint", default=os.path.join(ROOT, "target", "debug", "kernlint"))
    ap.add_argument("--only", default="", help="comma-separated seeds")
    a = ap.parse_args()
    corpus = a.corpus
    if corpus is None:
        corpus = tempfile.mkdtemp(prefix="rk-corpus-")
        write_corpus(corpus, a.count, a.seed)
        print(f"corpus: {corpus}")
    with open(os.path.join(corpus, "manifest.json")) as f:
        cases = json.load(f)
    if a.only:
        only = {int(s) for s in a.only.split(",")}
        cases = [c for c in cases if c["seed"] in only]
    if not os.path.exists(a.kernlint):
        subprocess.run(["cargo", "build", "-q"], cwd=ROOT, check=True)
    failures = 0
    if a.typing:
        failures += typing_check(a.kernlint, corpus, cases[: a.typing])
    if a.sim:
        values_check(a.kernlint, corpus, cases[: a.sim])
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
