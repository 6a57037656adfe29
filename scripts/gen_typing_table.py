#!/usr/bin/env python3
"""Regenerates tests/typing/numba_table.json from Numba itself (run with the oracle venv:
`bash ../shared/tools/oracle-env.sh`, then `VENV/bin/python3 scripts/gen_typing_table.py`).

The table holds Numba's answers that tests/typing.rs checks kernlint against without Python:
  operators: result type of `a OP b` for every pair of scalar types (CUDA typing context);
  unify:     the type of a join of two scalar types;
  conversions: Numba's conversion kind (typing context `can_convert`) between scalar types,
             the ratings its overload resolution ranks the cases of a ConcreteTemplate by;
  calls:     the result type of `range`, `abs`, `round`, `divmod`, `min`, `math.*`,
             `cuda.cbrt`, `cuda.fma`, `cuda.selp`, ... for every combination of argument
             types (scalars, an int literal and a bool literal), null where Numba rejects it;
  constants: the values CPython gives the module constants listed in CONSTANTS of
             tests/typing/kernels.py (computed with calls: math.sqrt, float(), np.finfo, ...);
  kernels:   the folded variable types (as typemap.py counts them) of every fixture kernel
             in tests/typing/kernels.py, for its signature in SIGS.
"""
import importlib.util, itertools, json, math, operator, os, re, struct, sys

import numpy as np

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


# The functions of the "calls" table: (key, the function or the name of a `numba.cuda`
# attribute, the numbers of arguments tried). Keys are kernlint's qualified paths.
MATH_UNARY = ["acos", "acosh", "asin", "asinh", "atan", "atanh", "cosh", "degrees", "erf", "erfc",
              "expm1", "gamma", "lgamma", "log1p", "radians", "sinh", "tanh", "tan", "sin", "cos",
              "ceil", "floor", "sqrt", "log", "log2", "log10", "exp", "exp2", "fabs", "trunc",
              "isinf", "isnan", "isfinite", "frexp", "modf"]
MATH_BINARY = ["atan2", "hypot", "copysign", "fmod", "nextafter", "remainder", "pow", "ldexp"]
CALLS = (
    [("builtins.range", range, (1, 2, 3)), ("builtins.abs", abs, (1,)), ("builtins.round", round, (1, 2)),
     ("builtins.divmod", divmod, (2,)), ("builtins.pow", pow, (2,)), ("builtins.min", min, (2,)),
     ("builtins.max", max, (2,)), ("builtins.int", int, (1,)), ("builtins.float", float, (1,)),
     ("builtins.bool", bool, (1,))]
    + [(f"math.{n}", getattr(math, n), (1,)) for n in MATH_UNARY]
    + [(f"math.{n}", getattr(math, n), (2,)) for n in MATH_BINARY]
    + [(f"numba.cuda.{n}", n, (1,)) for n in ("cbrt", "brev", "popc", "clz", "ffs")]
    + [(f"numba.cuda.{n}", n, (3,)) for n in ("fma", "selp")]
)


def calls_table(tc, tys):
    """Numba's result type of each call in CALLS for every combination of argument types,
    resolved as a kernel's call is (inside the CUDA target, so that CPU-only overloads of
    numba.core fail as they do in a kernel)."""
    from numba import cuda
    from numba.cuda import types, utils
    domain = dict(tys)
    domain["literal_int"] = types.literal(1)
    domain["literal_bool"] = types.literal(True)
    cuda_module = tc.resolve_value_type(cuda)
    out = {}
    with utils.numba_target_override():
        for key, fn, arities in CALLS:
            fnty = tc.resolve_getattr(cuda_module, fn) if isinstance(fn, str) else tc.resolve_value_type(fn)
            for n in arities:
                for combo in itertools.product(domain, repeat=n):
                    try:
                        sig = tc.resolve_function_type(fnty, tuple(domain[a] for a in combo), {})
                    except Exception:
                        sig = None
                    out[f"{key}({', '.join(combo)})"] = None if sig is None else str(sig.return_type)
    return out


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

    conversions = {}
    for a in names + ["complex64", "complex128"]:
        for b in names + ["complex64", "complex128"]:
            conv = tc.can_convert(getattr(types, "boolean" if a == "bool" else a),
                                  getattr(types, "boolean" if b == "bool" else b))
            conversions[f"{a} -> {b}"] = conv.name if conv is not None else None
    calls = calls_table(tc, tys)

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

    # The values of the module constants in CONSTANTS, as CPython computes them at import:
    # a float (float64 or a NumPy float scalar) by its bits, an int or bool in decimal.
    constants = {}
    for name in getattr(mod, "CONSTANTS", []):
        v = getattr(mod, name)
        if isinstance(v, (bool, np.bool_)):
            constants[name] = {"type": "bool", "value": str(bool(v))}
        elif isinstance(v, (int, np.integer)):
            constants[name] = {"type": "int" if isinstance(v, int) else str(v.dtype), "value": str(int(v))}
        else:
            kind = "float" if isinstance(v, float) and not isinstance(v, np.floating) else str(v.dtype)
            constants[name] = {"type": kind, "bits": struct.unpack("<Q", struct.pack("<d", float(v)))[0]}

    with open(OUT, "w") as f:
        json.dump({"operators": operators, "unify": unify, "conversions": conversions, "calls": calls,
                   "constants": constants, "kernels": kernels}, f, indent=1, sort_keys=True)
        f.write("\n")
    print(f"wrote {OUT}: {len(operators)} operator pairs, {len(unify)} joins, "
          f"{len(conversions)} conversions, {len(calls)} calls, {len(kernels)} kernels")


if __name__ == "__main__":
    main()
