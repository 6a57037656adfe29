#!/usr/bin/env python3
"""Regenerates tests/typing/numba_table.json from Numba itself (run with the oracle venv:
`bash ../shared/tools/oracle-env.sh`, then `VENV/bin/python3 scripts/gen_typing_table.py`).

The table holds Numba's answers that tests/typing.rs checks kernlint against without Python:
  operators: result type of `a OP b` for every pair of scalar types (CUDA typing context);
  unify:     the type of a join of two scalar types;
  kernels:   the folded variable types (as typemap.py counts them) of every fixture kernel
             in tests/typing/kernels.py, for its signature in SIGS.
"""
import importlib.util, json, operator, os, re, sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
KERNELS = os.path.join(ROOT, "tests", "typing", "kernels.py")
OUT = os.path.join(ROOT, "tests", "typing", "numba_table.json")
ORACLE_DIR = os.environ.get("KERNLINT_CORPUS", os.path.join(ROOT, "..", "shared", "kernels"))


def normalize(t):
    s = str(t)
    if s.startswith("Literal[int]"):
        return "int64"
    if s.startswith("Literal[bool]"):
        return "bool"
    if s.startswith("Literal[float]"):
        return "float64"
    return s


def main():
    sys.path.insert(0, ORACLE_DIR)
    import oracle  # CPU-compile shims (no GPU needed)
    oracle.install_cpu_compile_shims((9, 0))
    from numba.cuda import types
    from numba.cuda.compiler import compile_cuda
    from numba.cuda.descriptor import cuda_target
    from numba.cuda.core.sigutils import normalize_signature  # noqa: F401  (import check)

    tc = cuda_target.typing_context
    tc.refresh()
    names = ["bool", "int8", "int16", "int32", "int64", "uint8", "uint16", "uint32", "uint64",
             "float16", "float32", "float64"]
    tys = {n: getattr(types, "boolean" if n == "bool" else n) for n in names}
    ops = {"+": operator.add, "/": operator.truediv, "//": operator.floordiv, "**": operator.pow,
           "&": operator.and_, "<<": operator.lshift}
    operators = {}
    for sym, op in ops.items():
        for a in names:
            for b in names:
                try:
                    sig = tc.resolve_function_type(op, (tys[a], tys[b]), {})
                    res = str(sig.return_type) if sig is not None else None
                except Exception:
                    res = None
                operators[f"{a} {sym} {b}"] = res
    unify = {}
    for a in names:
        for b in names:
            u = tc.unify_types(tys[a], tys[b])
            unify[f"{a} | {b}"] = str(u) if u is not None else None

    spec = importlib.util.spec_from_file_location("typing_fixtures", KERNELS)
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    kernels = {}
    for name, sig in mod.SIGS.items():
        args, _ = oracle.parse_sig(sig)
        cres = compile_cuda(oracle.py_func_of(getattr(mod, name)), None, tuple(args), cc=(9, 0))
        out = {}
        for var, ty in cres.type_annotation.typemap.items():
            if var.startswith("$") or var.startswith("arg."):
                continue
            out.setdefault(re.sub(r"\.\d+$", "", var), set()).add(normalize(ty))
        kernels[name] = {"sig": sig, "variables": {k: sorted(v) for k, v in sorted(out.items())}}

    with open(OUT, "w") as f:
        json.dump({"operators": operators, "unify": unify, "kernels": kernels}, f, indent=1, sort_keys=True)
        f.write("\n")
    print(f"wrote {OUT}: {len(operators)} operator pairs, {len(unify)} joins, {len(kernels)} kernels")


if __name__ == "__main__":
    main()
