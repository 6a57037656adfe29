//! Kernel discovery over every form real code uses.

use kernlint::analysis::kernels::{FunctionKind, file_gpu_functions};
use kernlint::analysis::{RootDatabase, SourceFile};

const SOURCE: &str = r#"
import numba
import numpy as np
from numba import cuda as nb_cuda, vectorize, guvectorize, void, float32, int32
from numba.cuda import jit
import numba.cuda

@nb_cuda.jit
def plain(a): pass

@nb_cuda.jit("void(float32[:, ::1], int64)", fastmath=True, lineinfo=True, max_registers=32)
def with_sig(a, n): pass

@jit(["void(float32[::1])", "void(float64[::1])"], debug=True, opt=False)
def with_list(a): pass

@numba.cuda.jit(void(float32[:], int32), cache=True, inline="always")
def type_objects(a, n): pass

@nb_cuda.jit(device=True)
def dev(x):
    return x

@vectorize(["float32(float32)"], target="cuda")
def vec(x):
    return x

@vectorize(["float32(float32)"])
def cpu_vec(x):
    return x

@guvectorize(["void(float32[:], float32[:])"], "(n)->(n)", target="cuda")
def guvec(a, out): pass

@nb_cuda.reduce
def add(a, b):
    return a + b

def helper(x):
    return x * 2

helper_gpu = nb_cuda.jit(helper, device=True)

def body(a): pass

compiled = nb_cuda.jit("void(int32[:])")(body)

def factory(n):
    @nb_cuda.jit
    def inner(a):
        a[0] = n
    return inner

class Ops:
    @staticmethod
    @nb_cuda.jit
    def method_kernel(a): pass

def not_a_kernel(a): pass
"#;

#[test]
fn finds_every_form_with_its_kind_signatures_and_options() {
    let db = RootDatabase::default();
    let file = SourceFile::new(&db, "k.py".into(), SOURCE.to_string());
    let found = file_gpu_functions(&db, file);
    let get = |qualname: &str| {
        found.iter().find(|(_, f)| f.qualname == qualname).map(|(_, f)| *f).unwrap_or_else(|| panic!("{qualname} not found"))
    };
    let kinds: Vec<(&str, FunctionKind)> = found.iter().map(|(_, f)| (f.qualname.as_str(), f.spec.kind)).collect();
    assert_eq!(
        kinds,
        vec![
            ("plain", FunctionKind::Kernel),
            ("with_sig", FunctionKind::Kernel),
            ("with_list", FunctionKind::Kernel),
            ("type_objects", FunctionKind::Kernel),
            ("dev", FunctionKind::DeviceFunction),
            ("vec", FunctionKind::Ufunc),
            ("guvec", FunctionKind::GeneralizedUfunc),
            ("add", FunctionKind::Reduction),
            ("helper", FunctionKind::DeviceFunction),
            ("body", FunctionKind::Kernel),
            ("factory.<locals>.inner", FunctionKind::Kernel),
            ("Ops.method_kernel", FunctionKind::Kernel),
        ]
    );

    let with_sig = get("with_sig");
    let sig = with_sig.spec.signatures[0].as_ref().unwrap();
    assert_eq!(sig.to_string(), "(array(float32, 2d, C), int64) -> none");
    assert_eq!(with_sig.spec.options.fastmath, Some(true));
    assert_eq!(with_sig.spec.options.lineinfo, Some(true));
    assert_eq!(with_sig.spec.options.max_registers, Some(32));

    let with_list = get("with_list");
    assert_eq!(with_list.spec.signatures.len(), 2);
    assert_eq!(with_list.spec.options.debug, Some(true));
    assert_eq!(with_list.spec.options.opt, Some(false));

    let objects = get("type_objects");
    assert_eq!(objects.spec.signatures[0].as_ref().unwrap().to_string(), "(array(float32, 1d, A), int32) -> none");
    assert_eq!(objects.spec.options.cache, Some(true));
    assert_eq!(objects.spec.options.inline.as_deref(), Some("always"));

    assert_eq!(get("body").spec.signatures.len(), 1);
}

#[test]
fn a_bad_signature_is_an_error_with_its_location() {
    let db = RootDatabase::default();
    let text = "from numba import cuda\n\n@cuda.jit(\"void(flaot32[:])\")\ndef k(a): pass\n";
    let file = SourceFile::new(&db, "k.py".into(), text.to_string());
    let found = file_gpu_functions(&db, file);
    let (item, function) = found[0];
    let err = function.spec.signatures[0].as_ref().unwrap_err();
    assert!(err.message.contains("flaot32"), "{}", err.message);
    let range = item.to_file(err.range);
    assert_eq!(&text[range], "flaot32");
}

#[test]
fn a_decorator_held_by_a_name_declares_what_it_was_made_with() {
    // diffct's `_FASTMATH_DECORATOR = cuda.jit(cache=True, fastmath=True)`, applied as `@NAME`.
    let db = RootDatabase::default();
    let text = "\
from numba import cuda

FAST = cuda.jit(cache=True, fastmath=True)
DEVICE = cuda.jit(device=True)
SIGNED = cuda.jit(\"void(float32[::1])\")

@FAST
def k(a):
    a[0] = 1.0

@DEVICE
def d(x):
    return x

@SIGNED
def s(a):
    a[0] = d(2.0)
";
    let file = SourceFile::new(&db, "k.py".into(), text.to_string());
    let found = file_gpu_functions(&db, file);
    let by_name = |n: &str| found.iter().find(|(_, f)| f.name == n).map(|(_, f)| f).unwrap_or_else(|| panic!("{n} not found"));
    assert_eq!(by_name("k").spec.kind, FunctionKind::Kernel);
    assert_eq!(by_name("k").spec.options.fastmath, Some(true));
    assert_eq!(by_name("k").spec.options.cache, Some(true));
    assert_eq!(by_name("d").spec.kind, FunctionKind::DeviceFunction);
    assert_eq!(by_name("s").spec.signatures.len(), 1);
}

#[test]
fn a_jit_call_inside_a_larger_expression_compiles_its_function() {
    // A solver class that builds its kernels in a method, as values of a dict, from a
    // signature string it assembles: each wrapped module-level `def` is a GPU function.
    let db = RootDatabase::default();
    let text = "\
import numpy as np
from numba import cuda

def scale(a, s):
    i = cuda.grid(1)
    if i < a.shape[0]:
        a[i] *= s

def fill(a):
    t = np.zeros(4)
    a[0] = t[0]

def halve(x):
    return x / 2

def host_only(a):
    return a

class Solver:
    def __init__(self, dtype):
        self.kernels = {
            'scale': cuda.jit('void(' + dtype + '[:], ' + dtype + ')', fastmath=True)(scale),
        }
        self.fill = cuda.jit(fill)
        register(cuda.jit(device=True)(halve))

def register(f):
    return f
";
    let file = SourceFile::new(&db, "k.py".into(), text.to_string());
    let found = file_gpu_functions(&db, file);
    let kinds: Vec<(&str, FunctionKind)> = found.iter().map(|(_, f)| (f.qualname.as_str(), f.spec.kind)).collect();
    assert_eq!(
        kinds,
        vec![("scale", FunctionKind::Kernel), ("fill", FunctionKind::Kernel), ("halve", FunctionKind::DeviceFunction)]
    );
    let scale = found.iter().find(|(_, f)| f.name == "scale").unwrap().1;
    assert_eq!(scale.spec.options.fastmath, Some(true));
    // The assembled signature cannot be read, but the kernel is still linted.
    let settings = kernlint::lint::Settings { select: vec!["KL104".into()], ignore: vec![] };
    let found: Vec<&str> = kernlint::lint::check_file(&db, file, &settings).iter().map(|d| &text[d.range]).collect();
    assert_eq!(found, ["np.zeros(4)"]);
}

#[test]
fn a_launcher_returned_by_a_factory_and_a_method_wrapped_through_self_are_found() {
    // `return cuda.jit(...)(f)[grid, block]` hands back a configured launcher; a class
    // compiles its own static method through `self`.
    let db = RootDatabase::default();
    let text = "\
import numpy as np
from numba import cuda

def make(blocks, threads):
    def step(a):
        i = cuda.grid(1)
        a[i] += np.zeros(1)[0]
    return cuda.jit(device=0)(step)[blocks, threads]

def cuda_kernel(a):
    return a

class Sim:
    @staticmethod
    def cuda_kernel(a):
        i = cuda.grid(1)
        if i < a.size:
            a[i] = 2.0

    def __init__(self):
        self._kernel = cuda.jit('void(float32[:])')(self.cuda_kernel)
";
    let file = SourceFile::new(&db, "k.py".into(), text.to_string());
    let found = file_gpu_functions(&db, file);
    let kinds: Vec<(&str, FunctionKind, usize)> = found.iter().map(|(_, f)| (f.qualname.as_str(), f.spec.kind, f.spec.signatures.len())).collect();
    // The module-level `cuda_kernel` of the same name is host code, left alone.
    assert_eq!(kinds, vec![("make.<locals>.step", FunctionKind::Kernel, 0), ("Sim.cuda_kernel", FunctionKind::Kernel, 1)]);
    let settings = kernlint::lint::Settings { select: vec!["KL104".into()], ignore: vec![] };
    let found: Vec<&str> = kernlint::lint::check_file(&db, file, &settings).iter().map(|d| &text[d.range]).collect();
    assert_eq!(found, ["np.zeros(1)"]);
}
