#!/usr/bin/env python3
"""Replay the kernel launches of numba-cuda's own test suite on kernlint's simulator.

numba-cuda's tests are hundreds of real kernels, each launched by its test with real data.
This script runs the suite under Numba's CUDA simulator (NUMBA_ENABLE_CUDASIM=1, no GPU) with
every kernel launch recorded: the kernel's file and qualified name, the grid, the block, the
dynamic shared memory, each argument before the launch and each array after it. Then it
replays each recorded launch with `kernlint run --device sim --sig SIG` (the signature is
Numba's `typeof` of the recorded arguments) and compares every array kernlint writes with the
one Numba's simulator left.

Usage (oracle venv):

    VENV/bin/python scripts/replay_numba_cuda_suite.py target/release/kernlint [WORK] [-k EXPR]

numba-cuda's test modules import pytest, filecheck, cffi and ml_dtypes: install them in the
venv first (`VENV/bin/pip install pytest filecheck cffi ml_dtypes`), or most modules fail to
import and the script stops with the modules it could not load.

Prints one line per launch that disagrees or that kernlint refused, then the counts:
`agree`, `disagree`, `sanitizer` (kernlint's sanitizer found undefined behaviour, such as a
read of uninitialised shared memory, so values are not compared), `refused` (kernlint's
error, by reason) and `skipped` (arguments the command line cannot carry: records, tuples,
objects; launches Numba refused). Numba's simulator computes float32
math in float64 and sums atomics in thread order, so floats agree within a tolerance
(relative 1e-5 for float32, 1e-12 for float64), integers exactly. Exit 1 on a disagreement.
"""
import collections, json, os, shutil, subprocess, sys

KL = os.path.abspath(sys.argv[1])
rest = sys.argv[2:]
keyword = None
if "-k" in rest:
    i = rest.index("-k")
    keyword = rest[i + 1]
    del rest[i:i + 2]
WORK = os.path.abspath(rest[0] if rest else os.path.join(os.environ.get("TMPDIR", "/tmp"), "kernlint-replay"))
CASES = os.path.join(WORK, "cases")
MAX_CASES_PER_KERNEL = 2
MAX_ELEMENTS = 1 << 20
MAX_THREADS = 1 << 16


def record():
    """Run the suite under the simulator with launches recorded into CASES (a child process)."""
    import numpy as np
    from numba import typeof
    from numba.core import types as numba_types
    from numba.cuda.simulator import kernel as simkernel
    import inspect

    counts = collections.Counter()
    original_call = simkernel.FakeCUDAKernel.__call__

    def host(arg):
        if hasattr(arg, "copy_to_host") and not isinstance(arg, np.ndarray):
            return arg.copy_to_host()
        return arg

    def signature_type(value):
        t = typeof(value)
        if isinstance(value, np.ndarray):
            if value.dtype.fields is not None or value.dtype.kind not in "biufc" or value.ndim == 0:
                return None
            axes = [":"] * value.ndim
            if t.layout == "C":
                axes[-1] = "::1"
            elif t.layout == "F":
                axes[0] = "::1"
            return f"{t.dtype}[{', '.join(axes)}]"
        if isinstance(value, (bool, np.bool_)):
            return "boolean"
        if isinstance(value, (int, float, complex, np.integer, np.floating, np.complexfloating)):
            return str(t)
        # A plain tuple of scalars (kernlint run takes it as Python writes it); typeof makes a
        # homogeneous one a UniTuple.
        if type(value) is tuple:
            items = [signature_type(v) for v in value]
            if any(i is None or i.endswith("]") for i in items):
                return None
            if isinstance(t, numba_types.UniTuple):
                return f"UniTuple({items[0]}, {len(items)})"
            return f"Tuple(({', '.join(items)}{',' if len(items) == 1 else ''}))"
        return None

    def literal(value):
        if type(value) is tuple:
            return f"({', '.join(literal(v) for v in value)}{',' if len(value) == 1 else ''})"
        if isinstance(value, (bool, np.bool_)):
            return "True" if value else "False"
        if isinstance(value, (complex, np.complexfloating)):
            return repr(complex(value))
        if isinstance(value, (float, np.floating)):
            return repr(float(value))
        return str(int(value))

    def recording_call(self, *args):
        if self._device or simkernel._kernel_context:
            return original_call(self, *args)
        try:
            source = inspect.getsourcefile(self.fn)
            name = self.fn.__qualname__
        except TypeError:
            source = None
        if source is None:  # code made by exec: no file to name
            return original_call(self, *args)
        key = (source, name)
        grid, block = simkernel.normalize_kernel_dimensions(self.grid_dim, self.block_dim)
        threads = int(np.prod(tuple(grid))) * int(np.prod(tuple(block)))
        inputs = [host(a) for a in args]
        arrays = [a for a in inputs if isinstance(a, np.ndarray)]
        fits = threads <= MAX_THREADS and all(a.size <= MAX_ELEMENTS for a in arrays)
        if counts[key] >= MAX_CASES_PER_KERNEL or not fits:
            return original_call(self, *args)
        counts[key] += 1
        case = os.path.join(CASES, f"{len(os.listdir(CASES)):05d}")
        os.makedirs(case)
        sig, cli_args, skip = [], [], None
        for i, value in enumerate(inputs):
            t = signature_type(value)
            if t is None:
                skip = f"argument {i}: {type(value).__name__} {typeof(value) if _typeable(value) else ''}".strip()
                break
            sig.append(t)
            if isinstance(value, np.ndarray):
                np.save(os.path.join(case, f"in{i}.npy"), np.ascontiguousarray(value) if t.endswith("::1]") and value.ndim == 1 else value)
                cli_args.append(os.path.join(case, f"in{i}.npy"))
            else:
                cli_args.append(literal(value))
        params = list(inspect.signature(self.fn).parameters)
        declared = getattr(self, "kernlint_signature", None)
        meta = {"file": source, "kernel": name, "params": params, "grid": list(grid), "block": list(block),
                "shared": int(self.dynshared_size or 0), "sig": declared or f"void({', '.join(sig)})",
                "args": cli_args, "skip": skip}
        error = None
        try:
            result = original_call(self, *args)
        except BaseException as e:  # a launch the test expects to fail
            error = f"{type(e).__name__}: {e}"
            raise
        finally:
            meta["numba_error"] = error
            if error is None and skip is None:
                for i, (before, after) in enumerate(zip(inputs, args)):
                    if isinstance(before, np.ndarray):
                        np.save(os.path.join(case, f"out{i}.npy"), host(after))
            with open(os.path.join(case, "case.json"), "w") as f:
                json.dump(meta, f)
        return result

    def _typeable(value):
        try:
            typeof(value)
            return True
        except Exception:
            return False

    simkernel.FakeCUDAKernel.__call__ = recording_call

    # The simulator ignores signatures: keep a string one on the kernel, for the replay's --sig
    # (a typeof of the arguments would type `cuda.jit("void(int32[:], uint32)")`'s 1 as int64).
    from numba.cuda.simulator import api as simapi
    original_jit = simapi.jit

    def signature_keeping_jit(func_or_sig=None, *args, **kwargs):
        made = original_jit(func_or_sig, *args, **kwargs)
        if not isinstance(func_or_sig, str):
            return made

        def wrapper(fn):
            kernel = made(fn)
            kernel.kernlint_signature = func_or_sig
            return kernel
        return wrapper

    for module in list(sys.modules.values()):
        if getattr(module, "jit", None) is original_jit:
            module.jit = signature_keeping_jit
    import importlib, unittest
    import numba.cuda.tests.cudapy as cudapy
    loader = unittest.TestLoader()
    if keyword:
        loader.testNamePatterns = [f"*{keyword}*"]
    suite = unittest.TestSuite()
    missing = collections.Counter()
    for module in sorted(os.listdir(os.path.dirname(cudapy.__file__))):
        if module.startswith("test_") and module.endswith(".py"):
            try:
                imported = importlib.import_module(f"numba.cuda.tests.cudapy.{module[:-3]}")
            except (Exception, BaseException) as e:  # SkipTest, pytest's Skipped, missing modules
                if isinstance(e, KeyboardInterrupt):
                    raise
                if isinstance(e, ModuleNotFoundError):
                    missing[e.name] += 1
                continue
            suite.addTests(loader.loadTestsFromModule(imported))
    if sum(missing.values()) > 10:
        sys.exit("test modules could not be imported for want of: "
                 + ", ".join(f"{name} ({n} modules)" for name, n in missing.most_common())
                 + "; install them in this venv")
    unittest.TextTestRunner(stream=sys.stdout, verbosity=1).run(suite)


def replay():
    import numpy as np
    tallies = collections.Counter()
    refusals = collections.Counter()
    disagreements = 0
    for case in sorted(os.listdir(CASES)):
        path = os.path.join(CASES, case)
        try:
            meta = json.load(open(os.path.join(path, "case.json")))
        except (OSError, ValueError):
            continue
        if not meta.get("file"):
            continue
        label = f"{os.path.relpath(meta['file'], os.path.dirname(os.path.dirname(meta['file'])))}::{meta['kernel']}"
        if meta["skip"] or meta["numba_error"]:
            tallies["skipped"] += 1
            continue
        out = os.path.join(path, "kernlint")
        shutil.rmtree(out, ignore_errors=True)
        command = [KL, "run", f"{meta['file']}::{meta['kernel']}", "--device", "sim", "--sig", meta["sig"],
                   "--grid", ",".join(map(str, meta["grid"])), "--block", ",".join(map(str, meta["block"])),
                   "--shared-mem", str(meta["shared"]), "--out", out, *meta["args"]]
        try:
            done = subprocess.run(command, capture_output=True, text=True, timeout=120)
        except subprocess.TimeoutExpired:
            tallies["refused"] += 1
            refusals["timeout"] += 1
            print(f"TIMEOUT {label} ({case})")
            continue
        if done.returncode not in (0, 1) or not os.path.isdir(out):
            tallies["refused"] += 1
            message = (done.stderr.strip().splitlines() or ["?"])[-1]
            reason = message.split("`")[0].split(":")[-1].strip()[:70] if "`" in message else message[-70:]
            refusals[reason] += 1
            print(f"REFUSED {label} ({case}): {message[:300]}")
            continue
        if done.returncode == 1:
            # The sanitizer found undefined behaviour (an uninitialised read, a race): the
            # values Numba's simulator left are one outcome of many.
            tallies["sanitizer"] += 1
            finding = next((l for l in done.stdout.splitlines() if "sanitizer[" in l), "?")
            print(f"SANITIZER {label} ({case}): {finding.split('sanitizer', 1)[-1][:200]}")
            continue
        bad = []
        for i, param in enumerate(meta["params"]):
            expected_path = os.path.join(path, f"out{i}.npy")
            if not os.path.exists(expected_path):
                continue
            expected = np.load(expected_path)
            try:
                got = np.load(os.path.join(out, f"{param}.npy"))
            except OSError:
                bad.append(f"`{param}`: kernlint wrote no {param}.npy")
                continue
            if got.shape != expected.shape or got.dtype != expected.dtype:
                bad.append(f"`{param}`: kernlint wrote {got.dtype}{list(got.shape)}, Numba {expected.dtype}{list(expected.shape)}")
                continue
            if expected.dtype.kind in "fc":
                single = expected.dtype in (np.float16, np.float32, np.complex64)
                rtol = 1e-5 if single else 1e-12
                ok = np.allclose(got, expected, rtol=rtol, atol=rtol, equal_nan=True)
            else:
                ok = np.array_equal(got, expected)
            if not ok:
                diff = np.argwhere(~np.isclose(got, expected, equal_nan=True)) if expected.dtype.kind in "fc" else np.argwhere(got != expected)
                first = tuple(diff[0]) if len(diff) else ()
                bad.append(f"`{param}`: {len(diff)} elements differ, first at {first}: ours {got[first] if first else '?'} numba {expected[first] if first else '?'}")
        if bad:
            tallies["disagree"] += 1
            disagreements += 1
            print(f"DISAGREE {label} ({case}) grid {meta['grid']} block {meta['block']}: {'; '.join(bad)}")
        else:
            tallies["agree"] += 1
    print(" ".join(f"{k} {tallies[k]}" for k in ("agree", "disagree", "sanitizer", "refused", "skipped")))
    for reason, n in refusals.most_common(15):
        print(f"  {n:4d} refused: {reason}")
    return 1 if disagreements else 0


if __name__ == "__main__":
    if os.environ.get("KERNLINT_REPLAY_RECORD"):
        record()
        sys.exit(0)
    if not os.environ.get("KERNLINT_REPLAY_ONLY"):
        shutil.rmtree(CASES, ignore_errors=True)
        os.makedirs(CASES)
        env = dict(os.environ, NUMBA_ENABLE_CUDASIM="1", KERNLINT_REPLAY_RECORD="1")
        log = os.path.join(WORK, "pytest.log")
        child = subprocess.run([sys.executable, __file__, *sys.argv[1:]], env=env, cwd=WORK,
                               stdout=open(log, "w"), stderr=subprocess.STDOUT)
        if child.returncode != 0:
            sys.exit(f"recording the launches failed: see the end of {log}")
    sys.exit(replay())
