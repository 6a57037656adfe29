//! Kernels Numba rejects (numba-cuda 0.30.4, `cuda.compile_ptx(..., cc=(9, 0))`): kernlint
//! rejects each as a Numba error, at the line Numba's error is about, with a message that
//! names the construct. Array methods Numba rejects are in tests/array_methods.rs.

use kernlint::analysis::syntax::Lines;
use kernlint::analysis::typing::ErrorKind::{self, AtomicDtype, Covered, Numba, ShuffleDtype};
use kernlint::analysis::typing::type_function;
use kernlint::analysis::{RootDatabase, SourceFile};
use kernlint::lint::{Settings, check_file};

const HEADER: &str = "import numpy as np\nfrom numba import cuda\n\n";

/// (case, signature of `k`, line of the error counted from the first line after
/// [`HEADER`], kernlint's kind of error, a fragment of its message, the source after the
/// header). Numba rejects every case.
const NUMBA_REJECTS: &[(&str, &str, usize, ErrorKind, &str, &str)] = &[
    ("array_arith_scalar_assign", "void(float64[::1])", 3, Numba, "array expression", r#"
@cuda.jit
def k(o):
    o[0] = o + 1"#),
    ("atomic_2d_scalar_index", "void(int32[:, ::1])", 3, Numba, "1-D index", r#"
@cuda.jit
def k(o):
    cuda.atomic.add(o, 0, 1)"#),
    ("atomic_int8", "void(int8[::1])", 3, AtomicDtype, "int8", r#"
@cuda.jit
def k(o):
    cuda.atomic.add(o, 0, 1)"#),
    ("bitand_float", "void(float64[::1])", 3, Numba, "`&`", r#"
@cuda.jit
def k(o):
    o[0] = o[0] & 1"#),
    ("dev_kwargs_param", "void(float64[::1])", 7, Numba, "`**kwargs` parameter", r#"
@cuda.jit(device=True)
def d(a, **extra):
    return a

@cuda.jit
def k(o):
    o[0] = d(o[0])"#),
    // numba-cuda's fold_arguments takes keyword-only values from the positional arguments.
    ("dev_kwonly_param", "void(float64[::1])", 7, Numba, "keyword-only parameter `scale`", r#"
@cuda.jit(device=True)
def d(a, *rest, scale=2):
    return a * scale + len(rest)

@cuda.jit
def k(o):
    o[0] = d(o[0], 1.0, scale=3.0)"#),
    ("dev_star_args_mixed_loop", "void(float64[::1])", 10, Numba, "heterogeneous", r#"
@cuda.jit(device=True)
def d(*vals):
    s = 0
    for v in vals:
        s += v
    return s

@cuda.jit
def k(o):
    o[0] = d(o[0], 1)"#),
    ("dev_kwarg_unknown", "void(float64[::1])", 7, Numba, "unexpected keyword argument `c`", r#"
@cuda.jit(device=True)
def d(a, b=1):
    return a + b

@cuda.jit
def k(o):
    o[0] = d(1, c=2)"#),
    ("dev_mixed_returns", "void(float64[::1])", 9, Numba, "cannot unify return types", r#"
@cuda.jit(device=True)
def d(a):
    if a > 0:
        return (1, 2)
    return 1.5

@cuda.jit
def k(o):
    o[0] = d(o[0])[0]"#),
    ("dev_wrong_nargs", "void(float64[::1])", 7, Numba, "missing the argument `b`", r#"
@cuda.jit(device=True)
def d(a, b):
    return a + b

@cuda.jit
def k(o):
    o[0] = d(1)"#),
    ("exch_float", "void(float32[::1])", 3, AtomicDtype, "float32", r#"
@cuda.jit
def k(o):
    cuda.atomic.exch(o, 0, 1.0)"#),
    ("float_bit_count", "void(float64[::1])", 3, Numba, "unknown attribute `bit_count` of float64", r#"
@cuda.jit
def k(o):
    n = o[0].bit_count
    o[0] = 1"#),
    ("ffs_float", "void(uint32[::1], float64[::1])", 3, Numba, "cuda.ffs(float64)", r#"
@cuda.jit
def k(o, a):
    o[0] = cuda.ffs(a[0])"#),
    ("ffs_int8", "void(uint32[::1], int8[::1])", 3, Numba, "cuda.ffs(int8)", r#"
@cuda.jit
def k(o, a):
    o[0] = cuda.ffs(a[0])"#),
    ("ffs_uint16", "void(uint32[::1], uint16[::1])", 3, Numba, "cuda.ffs(uint16)", r#"
@cuda.jit
def k(o, a):
    o[0] = cuda.ffs(a[0])"#),
    ("ffs_bool", "void(uint32[::1], boolean[::1])", 3, Numba, "cuda.ffs(bool)", r#"
@cuda.jit
def k(o, a):
    o[0] = cuda.ffs(a[0])"#),
    ("ballot_bool_mask", "void(int32[::1], boolean[::1])", 3, Numba, "32- or 64-bit integer mask, not bool", r#"
@cuda.jit
def k(o, a):
    o[0] = cuda.ballot_sync(a[0], True)"#),
    ("ballot_float_mask", "void(int32[::1], float64[::1])", 3, Numba, "32- or 64-bit integer mask, not float64", r#"
@cuda.jit
def k(o, a):
    o[0] = cuda.ballot_sync(a[0], True)"#),
    ("ballot_int8_mask", "void(int32[::1], int8[::1])", 3, Numba, "32- or 64-bit integer mask, not int8", r#"
@cuda.jit
def k(o, a):
    o[0] = cuda.ballot_sync(a[0], True)"#),
    ("all_uint16_mask", "void(int32[::1], uint16[::1])", 3, Numba, "32- or 64-bit integer mask, not uint16", r#"
@cuda.jit
def k(o, a):
    o[0] = cuda.all_sync(a[0], True)"#),
    ("all_float_predicate", "void(int32[::1], float32[::1])", 3, Numba, "integer or boolean predicate, not float32", r#"
@cuda.jit
def k(o, a):
    o[0] = cuda.all_sync(0xffffffff, a[0])"#),
    ("ballot_float_predicate", "void(int32[::1], float32[::1])", 3, Numba, "integer or boolean predicate, not float32", r#"
@cuda.jit
def k(o, a):
    o[0] = cuda.ballot_sync(0xffffffff, a[0])"#),
    ("shfl_float_mask", "void(int32[::1], float32[::1])", 3, Numba, "integer mask, not float32", r#"
@cuda.jit
def k(o, a):
    o[0] = cuda.shfl_sync(a[0], 1, 0)"#),
    ("shfl_int8_mask", "void(int32[::1], int8[::1])", 3, Numba, "integer mask, not int8", r#"
@cuda.jit
def k(o, a):
    o[0] = cuda.shfl_down_sync(a[0], 1, 1)"#),
    ("shfl_bool_lane", "void(int32[::1], boolean[::1])", 3, Numba, "integer lane, not bool", r#"
@cuda.jit
def k(o, a):
    o[0] = cuda.shfl_sync(0xffffffff, 1, a[0])"#),
    ("shfl_uint16_lane", "void(int32[::1], uint16[::1])", 3, Numba, "integer lane, not uint16", r#"
@cuda.jit
def k(o, a):
    o[0] = cuda.shfl_xor_sync(0xffffffff, 1, a[0])"#),
    ("np_bitwise_uint64_int64", "void(int64[::1], uint64[::1], int64[::1])", 3, Numba, "np.bitwise_and has no loop for (uint64, int64)", r#"
@cuda.jit
def k(o, u, a):
    o[0] = np.bitwise_and(u[0], a[0])"#),
    ("np_round_scalar", "void(float64[::1])", 3, Numba, "cannot compile np.round", r#"
@cuda.jit
def k(o):
    o[0] = np.round(o[1]) + np.round(o[2], 1)"#),
    ("np_left_shift_uint64_literal", "void(int64[::1], uint64[::1])", 3, Numba, "np.left_shift has no loop for (uint64, int64)", r#"
@cuda.jit
def k(o, u):
    o[0] = np.left_shift(u[0], 3)"#),
    ("float_index", "void(float64[::1])", 3, Numba, "cannot index with float64", r#"
@cuda.jit
def k(o):
    o[0] = o[1.5]"#),
    ("int_unknown_attribute", "void(float64[::1])", 4, Numba, "unknown attribute `foo`", r#"
@cuda.jit
def k(o):
    x = 3
    y = x.foo
    o[0] = 1"#),
    ("shape_attribute", "void(float64[::1])", 3, Numba, "unknown attribute `x` of UniTuple(int64 x 1)", r#"
@cuda.jit
def k(o):
    y = o.shape.x
    o[0] = 1"#),
    ("tuple_times_float", "void(float64[::1])", 3, Numba, "a tuple repeats only by a constant integer", r#"
@cuda.jit
def k(o):
    t = (1, 2) * 1.5
    o[0] = 1"#),
    ("inc_int32", "void(int32[::1])", 3, AtomicDtype, "int32", r#"
@cuda.jit
def k(o):
    cuda.atomic.inc(o, 0, 5)"#),
    ("index_scalar", "void(float64[::1])", 5, Numba, "cannot index int64", r#"
@cuda.jit
def k(o):
    i = cuda.grid(1)
    x = 3
    o[0] = x[1]"#),
    ("len_scalar", "void(float64[::1])", 3, Numba, "len() of float64", r#"
@cuda.jit
def k(o):
    o[0] = len(o[0])"#),
    ("local_nonconst_shape", "void(float64[::1])", 4, Covered, "compile-time constant", r#"
@cuda.jit
def k(o):
    n = o.size
    a = cuda.local.array(n, np.float64)
    a[0] = 1
    o[0] = a[0]"#),
    ("np_unsupported", "void(float64[::1])", 3, Numba, "loop over the elements", r#"
@cuda.jit
def k(o):
    o[0] = np.linalg.norm(o)"#),
    ("return_value_kernel", "void(float64[::1])", 3, Covered, "cannot return a value", r#"
@cuda.jit
def k(o):
    return 1"#),
    ("selp_mixed", "void(float64[::1])", 3, Numba, "cuda.selp", r#"
@cuda.jit
def k(o):
    o[0] = cuda.selp(o[0] > 0, 1.0, np.int32(2))"#),
    ("set_attr", "void(float64[::1])", 3, Numba, "cannot set the attribute `shape`", r#"
@cuda.jit
def k(o):
    o.shape = (3,)"#),
    ("shared_nonconst", "void(float64[::1])", 3, Covered, "compile-time constant", r#"
@cuda.jit
def k(o):
    s = cuda.shared.array(o.size, np.float32)
    o[0] = s[0]"#),
    ("shfl_bool", "void(float64[::1])", 3, ShuffleDtype, "bool", r#"
@cuda.jit
def k(o):
    o[0] = cuda.shfl_sync(0xffffffff, True, 0)"#),
    ("str_plus_int", "void(float64[::1])", 3, Numba, "`+`", r#"
@cuda.jit
def k(o):
    s = 'a' + 1
    o[0] = 1"#),
    ("tuple_index_nonconst_hetero", "void(float64[::1])", 5, Numba, "non-constant index", r#"
@cuda.jit
def k(o):
    t = (1, 2.5)
    i = cuda.grid(1)
    o[0] = t[i]"#),
    ("tuple_setitem", "void(float64[::1])", 4, Numba, "cannot store into an item", r#"
@cuda.jit
def k(o):
    t = (1, 2)
    t[0] = 3
    o[0] = t[0]"#),
    ("aug_elem_array", "void(float64[::1])", 3, Numba, "`+=` for (float64, array", r#"
@cuda.jit
def k(o):
    o[0] += o"#),
    ("neg_tuple", "void(float64[::1])", 3, Numba, "unary operator `-`", r#"
@cuda.jit
def k(o):
    t = -(1, 2)
    o[0] = 1"#),
    ("neg_str", "void(float64[::1])", 3, Numba, "unary operator `-`", r#"
@cuda.jit
def k(o):
    t = -'a'
    o[0] = 1"#),
    ("tuple_minus_int", "void(float64[::1])", 3, Numba, "`-`", r#"
@cuda.jit
def k(o):
    t = (1, 2) - 1
    o[0] = 1"#),
    ("none_times_int", "void(float64[::1])", 4, Numba, "`*`", r#"
@cuda.jit
def k(o):
    t = None
    o[0] = t * 2"#),
    ("len_none", "void(float64[::1])", 3, Numba, "len() of", r#"
@cuda.jit
def k(o):
    o[0] = len(None)"#),
    ("index_range", "void(float64[::1])", 4, Numba, "cannot index range", r#"
@cuda.jit
def k(o):
    r = range(3)
    o[0] = r[1]"#),
    ("str_setitem", "void(float64[::1])", 4, Numba, "cannot store into an item", r#"
@cuda.jit
def k(o):
    t = 'ab'
    t[0] = 'c'
    o[0] = 1"#),
    ("array_neg_assign", "void(float64[::1])", 3, Numba, "array expression", r#"
@cuda.jit
def k(o):
    o[0] = -o"#),
    ("dev_array_or_float", "void(float64[::1])", 9, Numba, "cannot unify return types", r#"
@cuda.jit(device=True)
def d(a, o):
    if a > 0:
        return o
    return 1.5

@cuda.jit
def k(o):
    o[0] = d(o[0], o)[0]"#),
    ("unknown_method", "void(float64[::1])", 4, Numba, "unknown attribute `foo`", r#"
@cuda.jit
def k(o):
    i = cuda.grid(1)
    o[0] = o.foo()"#),
    ("abs_tuple", "void(float64[::1])", 3, Numba, "`abs` needs a number", r#"
@cuda.jit
def k(o):
    o[0] = abs((1, 2))[0]"#),
    ("round_tuple", "void(float64[::1])", 3, Numba, "`round` needs a number", r#"
@cuda.jit
def k(o):
    o[0] = round((1.0,))"#),
    ("int_tuple", "void(float64[::1])", 3, Numba, "`int` needs a number", r#"
@cuda.jit
def k(o):
    o[0] = int((1, 2))"#),
    ("float_tuple", "void(float64[::1])", 3, Numba, "`float` needs a number", r#"
@cuda.jit
def k(o):
    o[0] = float((1.0,))"#),
    ("complex_tuple", "void(float64[::1])", 3, Numba, "`complex` needs a number", r#"
@cuda.jit
def k(o):
    o[0] = complex((1, 2)).real"#),
    ("isnan_tuple", "void(float64[::1])", 3, Numba, "`np.isnan` needs a number", r#"
@cuda.jit
def k(o):
    o[0] = np.isnan((1.0, 2.0))"#),
    ("call_int", "void(float64[::1])", 4, Numba, "Literal[int](3) is not callable", r#"
@cuda.jit
def k(o):
    x = 3
    o[0] = x()"#),
    ("call_array", "void(float64[::1])", 3, Numba, "is not callable", r#"
@cuda.jit
def k(o):
    o[0] = o()"#),
    ("call_element", "void(float64[::1])", 3, Numba, "float64 is not callable", r#"
@cuda.jit
def k(o):
    o[0] = o[0](1)"#),
    ("local_bad_dtype_string", "void(float64[::1])", 3, Numba, "unknown dtype string 'flaot32'", r#"
@cuda.jit
def k(o):
    a = cuda.local.array(4, 'flaot32')
    o[0] = a[0]"#),
    ("not_array", "void(float64[::1])", 3, Numba, "no `not` for array", r#"
@cuda.jit
def k(o):
    o[0] = not o"#),
    ("bool_index", "void(float64[::1], boolean[::1])", 3, Numba, "cannot index with bool", r#"
@cuda.jit
def k(o, f):
    o[0] = o[f[0]]"#),
    ("complex_index", "void(float64[::1])", 3, Numba, "cannot index with complex128", r#"
@cuda.jit
def k(o):
    o[0] = o[1j]"#),
    ("iterate_int", "void(float64[::1])", 3, Numba, "a number is not iterable", r#"
@cuda.jit
def k(o):
    for x in 5:
        o[0] = x"#),
    ("unpack_int", "void(float64[::1])", 3, Numba, "cannot unpack int64", r#"
@cuda.jit
def k(o):
    p, q = 5
    o[0] = p"#),
    ("unpack_length", "void(float64[::1])", 3, Numba, "into 2 targets", r#"
@cuda.jit
def k(o):
    p, q = (1, 2, 3)
    o[0] = p"#),
    ("syncthreads_count_tuple", "void(float64[::1])", 3, Numba, "bad argument 1 to cuda.syncthreads_count", r#"
@cuda.jit
def k(o):
    o[0] = cuda.syncthreads_count((1,))"#),
    ("atomic_tuple_value", "void(float64[::1])", 3, Numba, "takes a number as its value", r#"
@cuda.jit
def k(o):
    cuda.atomic.add(o, 0, (1, 2))"#),
    ("neg_tuple", "void(float64[::1])", 3, Numba, "no unary operator `-`", r#"
@cuda.jit
def k(o):
    o[0] = (-(1, 2))[0]"#),
    ("array_truth_if", "void(int64[::1])", 3, Numba, "bool(array(int64, 1d, C))", r#"
@cuda.jit
def k(o):
    if o:
        o[0] = 1"#),
    ("array_truth_while", "void(int64[::1])", 3, Numba, "an array has no truth value", r#"
@cuda.jit
def k(o):
    while o:
        o[0] = 1"#),
    ("array_truth_bool", "void(int64[::1])", 3, Numba, "bool(array(int64, 1d, C))", r#"
@cuda.jit
def k(o):
    o[0] = bool(o)"#),
    ("array_truth_ternary", "void(int64[::1])", 3, Numba, "an array has no truth value", r#"
@cuda.jit
def k(o):
    o[0] = 1 if o else 2"#),
    ("array_truth_and", "void(int64[::1])", 3, Numba, "an array has no truth value", r#"
@cuda.jit
def k(o):
    o[0] = 1 if o and o[0] else 2"#),
    ("ballot_tuple", "void(int64[::1])", 3, Numba, "ballot_sync(mask, UniTuple(int64 x 2))", r#"
@cuda.jit
def k(o):
    o[0] = cuda.ballot_sync(0xffffffff, (1, 2))"#),
    ("any_sync_array", "void(int64[::1])", 3, Numba, "any_sync(mask, array(int64, 1d, C))", r#"
@cuda.jit
def k(o):
    o[0] = cuda.any_sync(0xffffffff, o)"#),
    ("order_none", "void(int64[::1])", 3, Numba, "lt(int64, none)", r#"
@cuda.jit
def k(o):
    o[0] = o[0] < None"#),
    ("scalar_ctor_array", "void(float64[::1])", 3, Numba, "float32(array(float64, 1d, C))", r#"
@cuda.jit
def k(o):
    o[0] = np.float32(o)"#),
    ("scalar_ctor_tuple", "void(int64[::1])", 3, Numba, "a scalar type converts one number", r#"
@cuda.jit
def k(o):
    o[0] = np.int32((1, 2))"#),
    ("tuple_eq_number", "void(int64[::1])", 3, Numba, "a tuple compares with tuples only", r#"
@cuda.jit
def k(o):
    o[0] = (1, 2) == 3"#),
    ("invert_float", "void(float64[::1])", 3, Numba, "no unary operator `~` for float64", r#"
@cuda.jit
def k(o):
    o[1] = ~o[0]"#),
    ("min_empty_tuple", "void(int64[::1])", 3, Numba, "min(Tuple())", r#"
@cuda.jit
def k(o):
    o[0] = min(())"#),
    ("np_bitwise_float", "void(float64[::1])", 3, Numba, "np.bitwise_and has no loop for float64", r#"
@cuda.jit
def k(o):
    o[1] = np.bitwise_and(o[0], 1)"#),
    ("tuple_repeat_variable", "void(int64[::1])", 3, Numba, "no tuple repetition", r#"
@cuda.jit
def k(o):
    t = (1, 2) * o[0]
    o[1] = t[0]"#),
    ("tuple_repeat_unfolded", "void(int64[::1])", 3, Numba, "no tuple repetition", r#"
@cuda.jit
def k(o):
    t = (o[0], 1) * 2
    o[1] = t[0]"#),
    ("tuple_augmented_add", "void(float64[::1])", 4, Numba, "in-place operators take no tuples", r#"
@cuda.jit
def k(o):
    t = (o[0],)
    t += (2.5, 1)
    o[1] = t[1]"#),
    ("sum_empty_tuple", "void(int64[::1])", 3, Numba, "an empty tuple", r#"
@cuda.jit
def k(o):
    o[0] = sum(())"#),
    // CPython folds no negative count: the repetition reaches Numba.
    ("tuple_repeat_negative", "void(int64[::1])", 3, Numba, "no tuple repetition", r#"
@cuda.jit
def k(o):
    t = (7,) * -1
    o[1] = len(t)"#),
    ("tuple_index_out_of_range", "void(int64[::1])", 4, Numba, "tuple index out of range", r#"
@cuda.jit
def k(o):
    t = (1, 2)
    o[0] = t[2]"#),
    // Numba casts an IntEnum member to integers only: its lowering fails for a float or
    // complex element, its typing for a bool one; an Enum member casts to nothing.
    ("int_enum_store_float", "void(float64[::1])", 6, Numba, "Cannot cast IntEnum<int64>(C) to float64", r#"
from enum import IntEnum
class C(IntEnum):
    A = 1
@cuda.jit
def k(o):
    o[0] = C.A"#),
    ("int_enum_store_complex", "void(complex64[::1])", 6, Numba, "Cannot cast IntEnum<int64>(C) to complex64", r#"
from enum import IntEnum
class C(IntEnum):
    A = 1
@cuda.jit
def k(o):
    o[0] = C.A"#),
    ("int_enum_store_bool", "void(bool[::1])", 6, Numba, "setitem", r#"
from enum import IntEnum
class C(IntEnum):
    A = 1
@cuda.jit
def k(o):
    o[0] = C.A"#),
    ("enum_store_int", "void(int64[::1])", 6, Numba, "setitem", r#"
from enum import Enum
class C(Enum):
    A = 1
@cuda.jit
def k(o):
    o[0] = C.A"#),
    ("record_field_misaligned", "void(Record(a[type=int8;offset=0],b[type=float64;offset=1];9;False)[:], float64[::1])", 3, Numba,
     "Record(a[type=int8;offset=0],b[type=float64;offset=1];9;False).b of type float64 is not aligned", r#"
@cuda.jit
def k(p, o):
    o[0] = p[0].b + p[0].a"#),
    ("record_field_misaligned_store", "void(Record(a[type=int8;offset=0],b[type=float32;offset=1];5;False)[:], float64[::1])", 3, Numba,
     "of type float32 is not aligned", r#"
@cuda.jit
def k(p, o):
    p[0]["b"] = 1.5"#),
    // Numba finds definitions in bytecode order: a read with no store before it fails, even
    // where a loop's earlier iteration would have stored it.
    ("read_before_store_in_loop", "void(int64[::1], int64)", 5, Numba, "NotDefinedError: Variable 'v' is not defined", r#"
@cuda.jit
def k(out, n):
    for i in range(n):
        if i > 0:
            out[0] = v
        v = i"#),
    ("read_before_store_in_while", "void(int64[::1], int64)", 5, Numba, "read before any assignment to it", r#"
@cuda.jit
def k(out, n):
    while n > 0:
        if n < 3:
            out[0] = v
        n -= 1
        v = n"#),
    ("read_in_own_assignment", "void(int64[::1], int64)", 3, Numba, "Variable 's' is not defined", r#"
@cuda.jit
def k(out, n):
    s = s + n
    out[0] = s"#),
];

#[test]
fn what_numba_rejects_is_a_numba_error_at_its_line() {
    let mut wrong = Vec::new();
    for &(name, sig, line, kind, fragment, body) in NUMBA_REJECTS {
        let source = format!("{HEADER}{}\n", body.trim_start_matches('\n'));
        let db = RootDatabase::default();
        let file = SourceFile::new(&db, "k.py".into(), source.clone());
        match type_function(&db, file, "k", Some(sig)) {
            Ok(_) => wrong.push(format!("{name}: typed, but Numba rejects it")),
            Err(e) => {
                let at = usize::from(e.file_range().start());
                let got = source[..at].matches('\n').count() + 1 - HEADER.matches('\n').count();
                if e.kind != kind || got != line || !e.message.contains(fragment) {
                    wrong.push(format!("{name}: {:?} at line {got} (expected {kind:?} at {line}): {}", e.kind, e.message));
                }
            }
        }
    }
    assert!(wrong.is_empty(), "{}", wrong.join("\n"));
}

/// Rejected constructs rules without types report: (case, line counted as in
/// [`NUMBA_REJECTS`], the source after the header).
const REJECTED_UNTYPED: &[(&str, usize, &str)] = &[
    ("print_end", 3, "@cuda.jit\ndef k(o):\n    print(1, end='')"),
    ("print_file", 3, "@cuda.jit\ndef k(o):\n    print(1, file=None)"),
    ("syncthreads_arg", 3, "@cuda.jit\ndef k(o):\n    cuda.syncthreads(1)"),
    ("local_float_shape", 3, "@cuda.jit\ndef k(o):\n    a = cuda.local.array(4.0, np.float64)\n    a[0] = 1\n    o[0] = a[0]"),
    ("try_except", 3, "@cuda.jit\ndef k(o):\n    try:\n        o[0] = 1\n    except Exception:\n        o[0] = 2"),
    ("with_open", 3, "@cuda.jit\ndef k(o):\n    with open('x') as f:\n        o[0] = 1"),
    ("yield", 3, "@cuda.jit\ndef k(o):\n    yield 1"),
    ("class_def", 3, "@cuda.jit\ndef k(o):\n    class A:\n        pass\n    o[0] = 1"),
    ("global_write", 4, "@cuda.jit\ndef k(o):\n    global G\n    G = 1\n    o[0] = 1"),
    ("del", 4, "@cuda.jit\ndef k(o):\n    x = 1\n    del x\n    o[0] = 1"),
];

/// The rules that report code Numba rejects.
const REJECTION_RULES: &[&str] = &["KL101", "KL102", "KL103", "KL107", "KL108", "KL110"];

#[test]
fn check_reports_every_rejected_kernel_at_its_line() {
    let typed = NUMBA_REJECTS.iter().map(|&(name, sig, line, _, _, body)| {
        let body = body.trim_start_matches('\n');
        // Typed for its signature, as `type_function` is above.
        (name, line, body.replacen("@cuda.jit\ndef k(", &format!("@cuda.jit(\"{sig}\")\ndef k("), 1))
    });
    let untyped = REJECTED_UNTYPED.iter().map(|&(name, line, body)| (name, line, body.to_string()));
    let mut missing = Vec::new();
    for (name, line, body) in typed.chain(untyped) {
        let source = format!("{HEADER}{body}\n");
        let db = RootDatabase::default();
        let file = SourceFile::new(&db, "k.py".into(), source.clone());
        let lines = Lines::new(&source);
        let found: Vec<(usize, &str)> = check_file(&db, file, &Settings::default())
            .into_iter()
            .map(|d| (lines.line_of(d.range.start()) + 1 - HEADER.matches('\n').count(), d.code))
            .collect();
        if !found.iter().any(|&(l, code)| l == line && REJECTION_RULES.contains(&code)) {
            missing.push(format!("{name}: no rejection finding on line {line}, found {found:?}"));
        }
    }
    assert!(missing.is_empty(), "{}", missing.join("\n"));
}

/// Kernels Numba compiles (`cuda.compile_ptx`) next to the rejections above: the typing
/// rules report none of them (kernlint may not implement them yet).
const NUMBA_COMPILES: &[(&str, &str, &str)] = &[
    ("record_fields", "void(Record(x[type=float32;offset=0],y[type=float32;offset=4],id[type=int32;offset=8];12;False)[:], float32, float32[::1])", "@cuda.jit\ndef k(p, dx, out):\n    i = cuda.grid(1)\n    p[i].x += dx\n    p[i][\"y\"] = p[i].y * 2\n    r = p[i]\n    r.id = 3\n    out[i] = p[i].id + p[i].x + r[0]"),
    ("np_nanvar", "void(float64[::1])", "@cuda.jit\ndef k(o):\n    o[0] = np.nanvar(o) + np.nanstd(o)"),
    ("np_trace", "void(float64[:, ::1])", "@cuda.jit\ndef k(o):\n    o[0, 0] = np.trace(o)"),
    ("int_enum_store_int32", "void(int32[::1])", "from enum import IntEnum\nclass C(IntEnum):\n    A = 1\n@cuda.jit\ndef k(o):\n    o[0] = C.A"),
    ("tuple_repeat_folded", "void(int64[::1])", "@cuda.jit\ndef k(o):\n    t = (1, 2) * 2\n    o[0] = t[3]"),
    ("float_tuple_repeat_folded", "void(float64[::1])", "@cuda.jit\ndef k(o):\n    t = (1.5, 2.5) * 2\n    o[0] = t[3]"),
    ("tuple_truth", "void(int64[::1])", "@cuda.jit\ndef k(o):\n    if (o[0], 1):\n        o[0] = 1"),
    ("ffs_int32_uint64", "void(uint32[::1], int32[::1], uint64[::1])", "@cuda.jit\ndef k(o, a, b):\n    o[0] = cuda.ffs(a[0]) + cuda.ffs(b[0]) + cuda.ffs(1)"),
    ("warp_wide_masks", "void(int32[::1], uint32[::1], int64[::1])", "@cuda.jit\ndef k(o, m, l):\n    o[0] = cuda.ballot_sync(m[0], l[0]) + cuda.shfl_sync(l[0], 1, m[0]) + cuda.all_sync(0xffffffff, 1)"),
    ("np_integer_ufuncs", "void(int64[::1], uint64[::1], int64[::1])", "@cuda.jit\ndef k(o, u, a):\n    o[0] = np.bitwise_and(u[0], u[1]) + np.invert(a[0] > 0) + np.right_shift(a[0], 2) + np.bitwise_not(a[1])"),
    ("np_ufunc_out_array", "void(float64[:, ::1], float64[::1], float64[::1])", "@cuda.jit\ndef k(o, a, b):\n    np.sin(a, o[0])\n    np.maximum(a, b, o[1])\n    np.arctan2(a, b, o[2])"),
    ("operator_functions", "void(float64[::1], int32[::1])", "import operator\n@cuda.jit\ndef k(o, a):\n    o[0] = operator.add(o[1], a[0]) + operator.lt(a[1], 2) + operator.floordiv(a[0], 3)"),
    ("match_statement", "void(int64[::1])", "@cuda.jit\ndef k(o):\n    match o[0]:\n        case 1 | 2:\n            o[1] = 10\n        case _:\n            o[1] = -1"),
    ("compare_none_eq", "void(int64[::1])", "@cuda.jit\ndef k(o):\n    o[0] = o[0] == None"),
    // Stored earlier in the function, on a path that returns: Numba compiles the read (its
    // value is undefined where it runs), as numba-cuda's test_ssa `test_unhandled_undefined`.
    ("store_on_an_earlier_path", "void(int64[::1], int64)", "@cuda.jit\ndef k(out, c):\n    if c > 0:\n        v = 1\n        return\n    else:\n        out[0] = v"),
];

#[test]
fn what_numba_compiles_is_no_rejection() {
    let mut wrong = Vec::new();
    for &(name, sig, body) in NUMBA_COMPILES {
        let body = body.replacen("@cuda.jit\ndef k(", &format!("@cuda.jit(\"{sig}\")\ndef k("), 1);
        let db = RootDatabase::default();
        let file = SourceFile::new(&db, "k.py".into(), format!("{HEADER}{body}\n"));
        let found: Vec<&str> = check_file(&db, file, &Settings::default()).into_iter().map(|d| d.code).filter(|c| REJECTION_RULES.contains(c)).collect();
        if !found.is_empty() {
            wrong.push(format!("{name}: {found:?}"));
        }
    }
    assert!(wrong.is_empty(), "{}", wrong.join("\n"));
}

/// A `match` statement on a number types as the `if`/`elif` chain it runs as; a sequence
/// pattern is Numba's `UnsupportedBytecodeError` (MATCH_SEQUENCE), reported at the pattern.
#[test]
fn match_statement_types_and_a_sequence_pattern_is_numbas_error() {
    let body = "@cuda.jit\ndef k(o):\n    match o[0]:\n        case 1:\n            o[1] = 10\n";
    let db = RootDatabase::default();
    let file = SourceFile::new(&db, "k.py".into(), format!("{HEADER}{body}"));
    type_function(&db, file, "k", Some("void(int64[::1])")).unwrap_or_else(|e| panic!("{}", e.message));
    let body = "@cuda.jit\ndef k(o):\n    match o[0]:\n        case (1, 2):\n            o[1] = 10\n";
    let file = SourceFile::new(&db, "k2.py".into(), format!("{HEADER}{body}"));
    let e = type_function(&db, file, "k", Some("void(int64[::1])")).expect_err("Numba rejects a sequence pattern");
    assert_eq!(e.kind, ErrorKind::Numba, "{}", e.message);
    assert!(e.message.contains("MATCH_SEQUENCE"), "{}", e.message);
}
