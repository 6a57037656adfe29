//! Numba-exact typing, checked against answers generated from Numba itself
//! (`scripts/gen_typing_table.py` -> `tests/typing/numba_table.json`; no Python needed here).

use std::collections::BTreeSet;

use kernlint::analysis::types::Scalar;
use kernlint::analysis::typing::promote::{self, ArithOp};
use kernlint::analysis::typing::{ErrorKind, TypingRequest, function_types, type_function};
use kernlint::analysis::{RootDatabase, SourceFile};

fn table() -> serde_json::Value {
    let text = std::fs::read_to_string(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/tests/typing/numba_table.json"
    ))
    .unwrap();
    serde_json::from_str(&text).unwrap()
}

fn scalar(name: &str) -> Scalar {
    Scalar::from_name(name).unwrap_or_else(|| panic!("unknown scalar {name}"))
}

#[test]
fn operator_promotions_match_numba() {
    let table = table();
    let mut mismatches = Vec::new();
    for (key, expected) in table["operators"].as_object().unwrap() {
        let parts: Vec<&str> = key.split(' ').collect();
        let (a, op, b) = (scalar(parts[0]), parts[1], scalar(parts[2]));
        let kind = match op {
            "+" => ArithOp::Add,
            "/" => ArithOp::TrueDiv,
            "//" => ArithOp::FloorDiv,
            "**" => ArithOp::Pow,
            "&" => ArithOp::Bitwise,
            "<<" => ArithOp::Shift,
            other => panic!("unknown operator {other}"),
        };
        let got = promote::binary(kind, a, b).map(|s| s.to_string());
        let expected = expected.as_str().map(str::to_string);
        if got != expected {
            mismatches.push(format!("{key}: numba {expected:?}, kernlint {got:?}"));
        }
    }
    assert!(mismatches.is_empty(), "{}", mismatches.join("\n"));
}

#[test]
fn joins_match_numba() {
    let table = table();
    let mut mismatches = Vec::new();
    for (key, expected) in table["unify"].as_object().unwrap() {
        let (a, b) = key.split_once(" | ").unwrap();
        let got = promote::unify_scalar(scalar(a), scalar(b)).to_string();
        if Some(got.as_str()) != expected.as_str() {
            mismatches.push(format!("{key}: numba {expected}, kernlint {got}"));
        }
    }
    assert!(mismatches.is_empty(), "{}", mismatches.join("\n"));
}

#[test]
fn conversions_match_numba() {
    use kernlint::analysis::typing::overload::conversion;
    let table = table();
    let mut mismatches = Vec::new();
    for (key, expected) in table["conversions"].as_object().unwrap() {
        let (a, b) = key.split_once(" -> ").unwrap();
        let got = conversion(scalar(a), scalar(b)).map(|c| c.name());
        if got != expected.as_str() {
            mismatches.push(format!("{key}: numba {expected}, kernlint {got:?}"));
        }
    }
    assert!(mismatches.is_empty(), "{}", mismatches.join("\n"));
}

/// Builtins, `math` and CUDA intrinsics for every combination of argument types (scalars,
/// an int and a bool literal): the result type Numba's overload resolution gives, or a
/// typing error where Numba has none.
#[test]
fn calls_match_numba() {
    use kernlint::analysis::types::Type;
    use kernlint::analysis::typing::{ErrorKind, call_type};
    let table = table();
    let calls = table["calls"].as_object().unwrap();
    let mut mismatches = Vec::new();
    for (key, expected) in calls {
        let (path, args) = key.strip_suffix(')').unwrap().split_once('(').unwrap();
        let args: Vec<Type> = args
            .split(", ")
            .map(|a| match a {
                "literal_int" => Type::IntLiteral(1),
                "literal_bool" => Type::BoolLiteral(true),
                other => Type::Scalar(scalar(other)),
            })
            .collect();
        let got = call_type(path, &args);
        let ok = match (expected.as_str(), &got) {
            // Numba types `cuda.ffs` of any number but lowers only 32- and 64-bit integers
            // (compile_ptx: "No definition for lowering"): kernlint rejects the rest up front.
            (Some(_), Err((message, ErrorKind::Numba))) if path == "numba.cuda.ffs" => {
                message.contains("No definition for lowering") && !matches!(args[0], Type::Scalar(Scalar::I32 | Scalar::U32 | Scalar::I64 | Scalar::U64))
            }
            (Some(e), Ok(t)) => t.to_string() == e,
            (None, Err((_, kind))) => *kind != ErrorKind::Unmodeled,
            _ => false,
        };
        if !ok {
            mismatches.push(format!("{key}: numba {expected}, kernlint {got:?}"));
        }
    }
    let n = mismatches.len();
    mismatches.truncate(60);
    assert!(n == 0, "{n} of {} calls differ:\n{}", calls.len(), mismatches.join("\n"));
}

/// Module constants computed with calls (`math.sqrt`, `float()`, `round`, `np.finfo`, ...)
/// fold to the values CPython computes at import time, bit for bit.
#[test]
fn module_constants_match_cpython() {
    use kernlint::analysis::scope::{Binding, ConstValue, module_scope};
    let table = table();
    let path = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/typing/kernels.py");
    let db = RootDatabase::default();
    let file = SourceFile::new(&db, path.into(), std::fs::read_to_string(path).unwrap());
    let scope = module_scope(&db, file);
    let mut mismatches = Vec::new();
    for (name, expected) in table["constants"].as_object().unwrap() {
        let kind = expected["type"].as_str().unwrap();
        let got = match scope.get(name) {
            Some(Binding::Const(c)) => c.clone(),
            other => {
                mismatches.push(format!("{name}: not folded ({other:?})"));
                continue;
            }
        };
        let bits = expected["bits"].as_u64();
        let value = expected["value"].as_str();
        let ok = match (kind, &got) {
            ("int", ConstValue::Int(v)) => Some(v.to_string().as_str()) == value,
            ("bool", ConstValue::Bool(b)) => Some(if *b { "True" } else { "False" }) == value,
            ("float", ConstValue::Float(f)) => Some(f.to_bits()) == bits,
            (_, ConstValue::NumpyScalar(s, v)) if s.to_string() == kind => match (&**v, *s) {
                (ConstValue::Float(f), Scalar::F32) => Some((*f as f32 as f64).to_bits()) == bits,
                (ConstValue::Float(f), Scalar::F64) => Some(f.to_bits()) == bits,
                (ConstValue::Int(i), s) if s.is_int() => Some(i.to_string().as_str()) == value,
                _ => false,
            },
            _ => false,
        };
        if !ok {
            mismatches.push(format!("{name}: CPython {expected}, kernlint {got:?}"));
        }
    }
    assert!(mismatches.is_empty(), "{}", mismatches.join("\n"));
}

#[test]
fn fixture_kernels_match_numba() {
    let table = table();
    let path = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/typing/kernels.py");
    let text = std::fs::read_to_string(path).unwrap();
    let db = RootDatabase::default();
    let file = SourceFile::new(&db, path.into(), text);
    let mut mismatches = Vec::new();
    for (name, case) in table["kernels"].as_object().unwrap() {
        let sig = case["sig"].as_str().unwrap();
        let types = match type_function(&db, file, name, Some(sig)) {
            Ok(t) => t,
            Err(e) => {
                mismatches.push(format!("{name}: {}", e.message));
                continue;
            }
        };
        for (var, expected) in case["variables"].as_object().unwrap() {
            let expected: BTreeSet<String> = expected
                .as_array()
                .unwrap()
                .iter()
                .map(|v| v.as_str().unwrap().to_string())
                .collect();
            let got = types.typemap.get(var).cloned().unwrap_or_default();
            if got != expected {
                mismatches.push(format!(
                    "{name}.{var}: numba {expected:?}, kernlint {got:?}"
                ));
            }
        }
        for var in types.typemap.keys() {
            if case["variables"].get(var).is_none() {
                mismatches.push(format!("{name}.{var}: not a Numba variable"));
            }
        }
    }
    assert!(mismatches.is_empty(), "{}", mismatches.join("\n"));
}

#[test]
fn decorator_signature_and_errors() {
    let db = RootDatabase::default();
    let src = "from numba import cuda\n\n@cuda.jit('void(float32[::1], int32)')\ndef k(a, n):\n    x = a[0] & n\n\n@cuda.jit\ndef plain(a):\n    a[0] = 1\n";
    let file = SourceFile::new(&db, "t.py".into(), src.to_string());
    let err = type_function(&db, file, "k", None).unwrap_err();
    assert!(
        err.message.contains("no implementation of `&`"),
        "{}",
        err.message
    );
    assert_eq!(&src[err.file_range()], "a[0] & n");
    let err = type_function(&db, file, "plain", None).unwrap_err();
    assert_eq!(err.message, "no signature: pass --sig");
    let err = type_function(&db, file, "missing", Some("void(int32)")).unwrap_err();
    assert!(
        err.message
            .contains("no kernel or device function named `missing`")
    );
    let err = type_function(&db, file, "plain", Some("void(float32[::1]")).unwrap_err();
    assert!(err.message.contains("invalid signature"), "{}", err.message);
    let ok = type_function(&db, file, "plain", Some("void(int32[::1])")).unwrap();
    assert_eq!(ok.ret.to_string(), "none");
    assert!(
        ok.expressions
            .values()
            .any(|t| t.to_string() == "array(int32, 1d, C)")
    );
}

/// `cuda.jit(func_or_sig=...)` names cuda.jit's first parameter: the keyword is the signature,
/// a full one for a kernel or an argument-only one for a device function (from a ray tracer in
/// /work/realworld17, rt_tuples.py).
#[test]
fn func_or_sig_keyword_is_the_signature() {
    let db = RootDatabase::default();
    let src = "from numba import cuda\n\n@cuda.jit(func_or_sig='float32[:], float32', device=True)\ndef mul(v, s):\n    return v[0] * s, v[1] * s\n\n@cuda.jit(func_or_sig=\"void(float32[:, :], int64)\", device=False)\ndef fill(out, n):\n    i = cuda.grid(1)\n    if i < n:\n        out[i, 0], out[i, 1] = mul(out[i], 2.0)\n";
    let file = SourceFile::new(&db, "t.py".into(), src.to_string());
    let kernel = type_function(&db, file, "fill", None).unwrap();
    assert_eq!(kernel.ret.to_string(), "none");
    assert_eq!(kernel.variables["n"].iter().collect::<Vec<_>>(), ["int64"]);
    // Numba: compile_cuda(mul, None, (float32[:], float32)) returns UniTuple(float32 x 2).
    let device = type_function(&db, file, "mul", None).unwrap();
    assert_eq!(device.ret.to_string(), "UniTuple(float32 x 2)");
}

/// Enum members as Numba types them (`IntEnum<int64>(Color)`, `Enum<int64>(Shape)`), also
/// in a device function given one; Numba's rejections (the class as a value, `.name`, an
/// Enum member ordered or compared with another class's) at the use; a class kernlint does
/// not model (a Flag, mixed values, which Numba cannot type either) refused naming it.
#[test]
fn enum_members_type_as_numba() {
    let db = RootDatabase::default();
    let src = "from enum import IntEnum, IntFlag\nimport enum\nfrom numba import cuda\n\nclass Color(IntEnum):\n    RED = 1\n    BLUE = -5\n\nclass Shape(enum.Enum):\n    SQ = 3\n\nclass F(IntFlag):\n    A = 1\n\nclass G(enum.Enum):\n    X = 1.5\n    Y = 2\n\nclass H(enum.Enum):\n    X = 1.5\n    Y = -2.25\n\n@cuda.jit(device=True)\ndef d(s):\n    return s.value\n\n@cuda.jit\ndef k(o):\n    c = Color.RED\n    s = Shape.SQ\n    x = c * 2 + Color.BLUE\n    y = d(s) + (s == Shape.SQ) + (o[0] < c)\n    o[0] = x + y + -c\n\n@cuda.jit\ndef n(o):\n    o[0] = len(Color)\n\n@cuda.jit\ndef m(o):\n    o[0] = Color.RED.name\n\n@cuda.jit\ndef e(o):\n    o[0] = Color.RED == Shape.SQ\n\n@cuda.jit\ndef l(o):\n    o[0] = Shape.SQ < Shape.SQ\n\n@cuda.jit\ndef f(o):\n    o[0] = F.A\n\n@cuda.jit\ndef g(o):\n    o[0] = G.X.value\n\n@cuda.jit\ndef fe(o):\n    h = H.Y\n    v = h.value\n    o[0] = v + (h == H.X) + (h != H.Y)\n\n@cuda.jit\ndef hs(o):\n    o[0] = H.X\n";
    let file = SourceFile::new(&db, "t.py".into(), src.to_string());
    let k = type_function(&db, file, "k", Some("void(int64[::1])")).unwrap();
    for (var, ty) in [("c", "IntEnum<int64>(Color)"), ("s", "Enum<int64>(Shape)"), ("x", "int64"), ("y", "int64")] {
        assert_eq!(k.variables[var].iter().collect::<Vec<_>>(), [ty], "{var}");
    }
    // An Enum of floats is Numba's `Enum<float64>`.
    let fe = type_function(&db, file, "fe", Some("void(float64[::1])")).unwrap();
    for (var, ty) in [("h", "Enum<float64>(H)"), ("v", "float64")] {
        assert_eq!(fe.variables[var].iter().collect::<Vec<_>>(), [ty], "{var}");
    }
    let err = type_function(&db, file, "hs", Some("void(float64[::1])")).unwrap_err();
    assert!(err.message.contains("setitem") && err.kind == ErrorKind::Numba, "{}", err.message);
    for (kernel, message, at) in [
        ("n", "Enum class `Color` itself", "Color"),
        ("m", "unknown attribute `name`", "Color.RED.name"),
        ("e", "eq(IntEnum<int64>(Color), Enum<int64>(Shape))", "Color.RED == Shape.SQ"),
        ("l", "lt(Enum<int64>(Shape), Enum<int64>(Shape))", "Shape.SQ < Shape.SQ"),
        ("f", "does not support the Enum class `F`", "F"),
        ("g", "does not support the Enum class `G`", "G"),
    ] {
        let err = type_function(&db, file, kernel, Some("void(int64[::1])")).unwrap_err();
        assert!(err.message.contains(message), "{kernel}: {}", err.message);
        assert_eq!(&src[err.file_range()], at, "{kernel}");
    }
}

#[test]
fn salsa_query_is_reused() {
    let db = RootDatabase::default();
    let src = "from numba import cuda\n\n@cuda.jit\ndef k(a, n):\n    acc = 0\n    for i in range(n):\n        acc += a[i]\n    a[0] = acc\n";
    let file = SourceFile::new(&db, "q.py".into(), src.to_string());
    let request = TypingRequest::new(
        &db,
        "k".to_string(),
        Some("void(float32[::1], int32)".to_string()),
    );
    let first = function_types(&db, file, request).as_ref().unwrap();
    let acc: Vec<&str> = first.variables["acc"].iter().map(String::as_str).collect();
    assert_eq!(acc, ["float64", "int64"]);
    assert_eq!(
        first.variables["i"].iter().next().map(String::as_str),
        Some("int32")
    );
    let again = function_types(&db, file, request).as_ref().unwrap();
    assert!(std::ptr::eq(first, again));
}

/// A device function imported from another workspace module is typed there, with that
/// module's names, for the caller's argument types.
#[test]
fn device_functions_from_sibling_modules() {
    use salsa::Setter;
    let mut db = kernlint::analysis::RootDatabase::default();
    let helpers = SourceFile::new(
        &db,
        "helpers.py".into(),
        "import math\nfrom numba import cuda\n\n@cuda.jit(device=True)\ndef norm2(x, y):\n    return math.sqrt(x * x + y * y)\n".into(),
    );
    let main = "from numba import cuda\nfrom helpers import norm2\nfrom helpers import *\n\n@cuda.jit(\"void(float32[::1], float64[::1])\")\ndef k(out, x):\n    i = cuda.grid(1)\n    a = norm2(out[i], out[i])\n    b = norm2(x[i], 1.0)\n";
    let file = SourceFile::new(&db, "main.py".into(), main.into());
    let ws = db.workspace_input();
    ws.set_modules(&mut db).to([("helpers.py".into(), helpers)].into());
    let types = type_function(&db, file, "k", None).unwrap();
    assert_eq!(types.variables["a"].iter().collect::<Vec<_>>(), ["float32"]);
    assert_eq!(types.variables["b"].iter().collect::<Vec<_>>(), ["float64"]);
}

#[test]
fn isinstance_ord_and_numpy_array_functions_type_as_numba() {
    let db = RootDatabase::default();
    let src = "import numpy as np\nfrom numba import cuda\n\n@cuda.jit\ndef k(o, a, m):\n    t = isinstance(a[0], float)\n    u = isinstance(a[0], (int, np.float32))\n    v = isinstance(True, int)\n    w = isinstance(1, int)\n    c = ord('a')\n    b = np.asarray(m)\n    r = np.average(m)\n    o[0] = t + u + v + w + c + b[0, 0] + r\n\n@cuda.jit\ndef ch(o, a, m):\n    o[0] = chr(97)\n\n@cuda.jit\ndef o2(o, a, m):\n    o[0] = ord('ab')\n\n@cuda.jit\ndef wt(o, a, m):\n    o[0] = np.average(a, weights=a)\n\n@cuda.jit\ndef tr(o, a, m):\n    o[0] = np.trace(m)\n\n@cuda.jit\ndef cls(o, a, m):\n    o[0] = isinstance(a[0], str)\n";
    let file = SourceFile::new(&db, "t.py".into(), src.to_string());
    let sig = "void(float64[::1], float64[::1], int32[:, ::1])";
    let k = type_function(&db, file, "k", Some(sig)).unwrap();
    // Numba's answers (compile_cuda typemap; the folded values are checked by running
    // tests/kernels/sem9_builtins.py).
    for (var, ty) in [
        ("t", "bool"),
        ("u", "bool"),
        ("v", "bool"),
        ("w", "bool"),
        ("c", "int64"),
        ("b", "array(int32, 2d, C)"),
        ("r", "float64"),
    ] {
        assert_eq!(k.variables[var].iter().collect::<Vec<_>>(), [ty], "{var}");
    }
    for (kernel, kind, message, at) in [
        ("ch", ErrorKind::Numba, "chr()", "chr(97)"),
        ("o2", ErrorKind::Numba, "expected a character", "ord('ab')"),
        ("wt", ErrorKind::Numba, "without weights", "np.average(a, weights=a)"),
        ("tr", ErrorKind::Numba, "only supported on float and complex arrays", "np.trace(m)"),
        ("cls", ErrorKind::Unmodeled, "isinstance() with the classes", "str"),
    ] {
        let err = type_function(&db, file, kernel, Some(sig)).unwrap_err();
        assert_eq!(err.kind, kind, "{kernel}: {}", err.message);
        assert!(err.message.contains(message), "{kernel}: {}", err.message);
        assert_eq!(&src[err.file_range()], at, "{kernel}");
    }
}

#[test]
fn np_trace_types_as_numbas_matrix_trace_impl() {
    let db = RootDatabase::default();
    let src = "import numpy as np\nfrom numba import cuda\n\n@cuda.jit\ndef k(o, f, d, c, v):\n    t = np.trace(f)\n    u = np.trace(d, 1)\n    w = np.trace(c, offset=-1)\n    o[0] = t + u + w.real\n\n@cuda.jit\ndef one_d(o, f, d, c, v):\n    o[0] = np.trace(v)\n\n@cuda.jit\ndef float_offset(o, f, d, c, v):\n    o[0] = np.trace(d, 1.5)\n\n@cuda.jit\ndef inf(o, f, d, c, v):\n    o[0] = np.isinf(o[0])\n\n@cuda.jit\ndef fin(o, f, d, c, v):\n    o[0] = np.isfinite(c[0, 0])\n";
    let file = SourceFile::new(&db, "t.py".into(), src.to_string());
    let sig = "void(float64[::1], float32[:, ::1], float64[:, :], complex64[:, ::1], float64[::1])";
    let k = type_function(&db, file, "k", Some(sig)).unwrap();
    // Numba's answers: `ret = 0; ret += a[i, i]` unifies int64 with the dtype.
    for (var, ty) in [("t", "float64"), ("u", "float64"), ("w", "complex128")] {
        assert_eq!(k.variables[var].iter().collect::<Vec<_>>(), [ty], "{var}");
    }
    // numba-cuda has no np.isinf/np.isfinite (`KeyError: <ufunc 'isinf'>`).
    for (kernel, message, at) in [
        ("one_d", "only supported on 2-D arrays", "np.trace(v)"),
        ("float_offset", "integer argument expected", "np.trace(d, 1.5)"),
        ("inf", "no np.isinf", "np.isinf(o[0])"),
        ("fin", "no np.isfinite", "np.isfinite(c[0, 0])"),
    ] {
        let err = type_function(&db, file, kernel, Some(sig)).unwrap_err();
        assert_eq!(err.kind, ErrorKind::Numba, "{kernel}: {}", err.message);
        assert!(err.message.contains(message), "{kernel}: {}", err.message);
        assert_eq!(&src[err.file_range()], at, "{kernel}");
    }
}

#[test]
fn record_fields_type_as_numba() {
    let db = RootDatabase::default();
    let src = "from numba import cuda\n\n@cuda.jit\ndef k(p, out):\n    i = cuda.grid(1)\n    a = p[i][\"y\"]\n    b = p[i][2]\n    c = p[i].id + p[i].x\n    r = p[i]\n    r[\"x\"] = 2\n    p[i].y += a\n    out[0] = a + b + c\n\n@cuda.jit\ndef missing(p, out):\n    out[0] = p[0][\"z\"]\n";
    let file = SourceFile::new(&db, "t.py".into(), src.to_string());
    // The signature as Numba prints `from_dtype(particle)[:]`.
    let particle = "Record(x[type=float32;offset=0],y[type=float32;offset=4],id[type=int32;offset=8];12;False)";
    let sig = format!("void({particle}[:], float64[:])");
    let k = type_function(&db, file, "k", Some(&sig)).unwrap();
    // Numba's answers (compile_cuda typemap).
    for (var, ty) in [("a", "float32"), ("b", "int32"), ("c", "float64"), ("r", particle)] {
        assert_eq!(k.variables[var].iter().collect::<Vec<_>>(), [ty], "{var}");
    }
    let err = type_function(&db, file, "missing", Some(&sig)).unwrap_err();
    assert!(err.message.contains("has no such field"), "{}", err.message);
    assert_eq!(&src[err.file_range()], "p[0][\"z\"]");
}

/// Each pass of a loop's fixpoint starts from the state the first started from (an undo log
/// takes back what a pass recorded, where the whole state was copied per pass): what a pass
/// typed at a header's first guess (`x = acc` at int64, in the inner loop of two) is not left
/// among the types.
#[test]
fn a_fixpoint_pass_leaves_no_types_of_an_earlier_pass() {
    let db = RootDatabase::default();
    let src = "from numba import cuda\n\n@cuda.jit\ndef k(out, n):\n    acc = 0\n    x = 0.0\n    for i in range(n):\n        for j in range(n):\n            x = acc\n            acc = acc + 0.5\n        out[i] = x\n";
    let file = SourceFile::new(&db, "t.py".into(), src.to_string());
    let k = type_function(&db, file, "k", Some("void(float64[:], int64)")).unwrap();
    for (var, types) in [("x", &["float64"][..]), ("acc", &["float64", "int64"][..]), ("i", &["int64"][..]), ("j", &["int64"][..])] {
        assert_eq!(k.variables[var].iter().collect::<Vec<_>>(), types, "{var}");
    }
}

/// A `while` whose first test Numba decides after SSA (`i = 0; while i < 5:`) has its phi at
/// the start of the `else`; a store in that `else` starts a new version after it. Numba's
/// typemap (numba-cuda 0.30.4): `i`, `i.1` ... `i.4`, all `i` once folded; kernlint named
/// the phi after the `else`'s store (`i.1`).
#[test]
fn a_store_in_a_while_else_comes_after_the_loops_phi() {
    let db = RootDatabase::default();
    let src = "from numba import cuda\n\n@cuda.jit\ndef k(out, x):\n    i = 0\n    while i < 5:\n        i += 1\n    else:\n        i += 100\n    out[0] = i\n\n@cuda.jit\ndef f(out, x):\n    i = 0\n    k = 1\n    while i < 5:\n        i += 1\n        if x[i] > 100:\n            break\n    else:\n        k = i\n    out[0] = i + k\n";
    let file = SourceFile::new(&db, "t.py".into(), src.to_string());
    for kernel in ["k", "f"] {
        let k = type_function(&db, file, kernel, Some("void(float64[::1], float64[::1])")).unwrap();
        let names: Vec<&String> = k.variables.keys().collect();
        assert!(names.iter().all(|n| !n.contains('.')), "{kernel}: {names:?}");
        assert_eq!(k.variables["i"].iter().collect::<Vec<_>>(), ["int64"], "{kernel}");
    }
}

/// CPython folds `True ^ False` into the constant `True` (`bool`'s own `&`, `|`, `^` give a
/// bool), which Numba types `Literal[bool](True)`; `True + True` folds into the int 2.
#[test]
fn bitwise_operators_on_bool_constants_fold_to_a_bool() {
    let db = RootDatabase::default();
    let src = "from numba import cuda\n\n@cuda.jit\ndef k(out, x):\n    e = True ^ False\n    f = True & True\n    g = False | True\n    h = True + True\n    i = True & 1\n    out[0] = e + f + g + h + i\n";
    let file = SourceFile::new(&db, "t.py".into(), src.to_string());
    let k = type_function(&db, file, "k", Some("void(float64[::1], float64[::1])")).unwrap();
    // Numba's typemap (numba-cuda 0.30.4), literals counted as their base type.
    for (var, ty) in [("e", "bool"), ("f", "bool"), ("g", "bool"), ("h", "int64"), ("i", "int64")] {
        assert_eq!(k.variables[var].iter().collect::<Vec<_>>(), [ty], "{var}");
    }
}
