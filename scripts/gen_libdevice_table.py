#!/usr/bin/env python3
"""Regenerates tests/libdevice/numba_types.json from Numba itself (run with the oracle venv:
`bash ../shared/tools/oracle-env.sh`, then `VENV/bin/python3 scripts/gen_libdevice_table.py`).

The table holds, for every fixture kernel of tests/libdevice/kernels.py and its signature in
SIGS, the folded variable types (as scripts/gen_typing_table.py counts them), which
tests/libdevice.rs checks kernlint against without Python. No GPU is needed: the kernels
call no device functions, so `compile_cuda` with a compute capability is enough.
"""
import importlib.util, json, os, re, sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
KERNELS = os.path.join(ROOT, "tests", "libdevice", "kernels.py")
OUT = os.path.join(ROOT, "tests", "libdevice", "numba_types.json")

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from gen_typing_table import normalize  # noqa: E402


def main():
    import warnings
    warnings.simplefilter("ignore")
    from numba.cuda import types
    from numba.cuda.compiler import compile_cuda

    spec = importlib.util.spec_from_file_location("libdevice_fixtures", KERNELS)
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    namespace = {n: getattr(types, n) for n in dir(types) if not n.startswith("_")}
    kernels = {}
    for name, sig in mod.SIGS.items():
        argtypes = eval(sig, {"__builtins__": {}}, namespace).args
        pyfunc = getattr(mod, name).py_func
        cres = compile_cuda(pyfunc, None, tuple(argtypes), cc=(9, 0))
        out = {}
        for var, ty in cres.type_annotation.typemap.items():
            if var.startswith("$") or var.startswith("arg."):
                continue
            out.setdefault(re.sub(r"\.\d+$", "", var), set()).add(normalize(ty))
        kernels[name] = {"sig": sig, "variables": {k: sorted(v) for k, v in sorted(out.items())}}

    with open(OUT, "w") as f:
        json.dump({"kernels": kernels}, f, indent=1, sort_keys=True)
        f.write("\n")
    print(f"wrote {OUT}: {len(kernels)} kernels")


if __name__ == "__main__":
    main()
