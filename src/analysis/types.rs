//! Numba's types, as plain data.
//!
//! Every type prints exactly as Numba's `str(type)` does (numba-cuda 0.30.4), so typing
//! results can be compared with Numba's `typemap` and shown to users in the spelling they
//! see in Numba's own error messages.

use std::fmt;

/// A Numba scalar (number or boolean) type.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, serde::Serialize)]
pub enum Scalar {
    Bool,
    I8,
    I16,
    I32,
    I64,
    U8,
    U16,
    U32,
    U64,
    F16,
    BF16,
    F32,
    F64,
    C64,
    C128,
}

/// The scalar names of the `numba.cuda.types` namespace, which is what a signature string
/// is evaluated against (numba-cuda 0.30.4 with NumPy 2 on a 64-bit Linux host, where
/// `intp`, `int_`, `long_` and `ssize_t` are 64 bits wide and `intc` is 32).
///
/// `float_` is missing on purpose: Numba defines it (as float32!) only with NumPy 1.
const NUMBA_SCALAR_NAMES: &[(&str, Scalar)] = &[
    ("bool", Scalar::Bool),
    ("boolean", Scalar::Bool),
    ("bool_", Scalar::Bool),
    ("b1", Scalar::Bool),
    ("c_bool", Scalar::Bool),
    ("py_bool", Scalar::Bool),
    ("np_bool_", Scalar::Bool),
    ("int8", Scalar::I8),
    ("i1", Scalar::I8),
    ("char", Scalar::I8),
    ("c_int8", Scalar::I8),
    ("np_int8", Scalar::I8),
    ("np_char", Scalar::I8),
    ("int16", Scalar::I16),
    ("i2", Scalar::I16),
    ("short", Scalar::I16),
    ("c_int16", Scalar::I16),
    ("np_int16", Scalar::I16),
    ("np_short", Scalar::I16),
    ("int32", Scalar::I32),
    ("i4", Scalar::I32),
    ("intc", Scalar::I32),
    ("c_int32", Scalar::I32),
    ("np_int32", Scalar::I32),
    ("np_intc", Scalar::I32),
    ("int64", Scalar::I64),
    ("i8", Scalar::I64),
    ("intp", Scalar::I64),
    ("int_", Scalar::I64),
    ("long_", Scalar::I64),
    ("longlong", Scalar::I64),
    ("ssize_t", Scalar::I64),
    ("c_int64", Scalar::I64),
    ("c_intp", Scalar::I64),
    ("py_int", Scalar::I64),
    ("np_int64", Scalar::I64),
    ("np_intp", Scalar::I64),
    ("np_int_", Scalar::I64),
    ("np_long", Scalar::I64),
    ("np_longlong", Scalar::I64),
    ("uint8", Scalar::U8),
    ("u1", Scalar::U8),
    ("byte", Scalar::U8),
    ("uchar", Scalar::U8),
    ("c_uint8", Scalar::U8),
    ("np_uint8", Scalar::U8),
    ("np_uchar", Scalar::U8),
    ("uint16", Scalar::U16),
    ("u2", Scalar::U16),
    ("ushort", Scalar::U16),
    ("c_uint16", Scalar::U16),
    ("np_uint16", Scalar::U16),
    ("np_ushort", Scalar::U16),
    ("uint32", Scalar::U32),
    ("u4", Scalar::U32),
    ("uintc", Scalar::U32),
    ("c_uint32", Scalar::U32),
    ("np_uint32", Scalar::U32),
    ("np_uintc", Scalar::U32),
    ("uint64", Scalar::U64),
    ("u8", Scalar::U64),
    ("uintp", Scalar::U64),
    ("uint", Scalar::U64),
    ("ulong", Scalar::U64),
    ("ulonglong", Scalar::U64),
    ("size_t", Scalar::U64),
    ("c_uint64", Scalar::U64),
    ("c_uintp", Scalar::U64),
    ("np_uint64", Scalar::U64),
    ("np_uintp", Scalar::U64),
    ("np_uint", Scalar::U64),
    ("np_ulong", Scalar::U64),
    ("np_ulonglong", Scalar::U64),
    ("float16", Scalar::F16),
    ("f2", Scalar::F16),
    ("c_float16", Scalar::F16),
    ("np_float16", Scalar::F16),
    ("bfloat16", Scalar::BF16),
    ("float32", Scalar::F32),
    ("f4", Scalar::F32),
    ("c_float32", Scalar::F32),
    ("np_float32", Scalar::F32),
    ("np_float_", Scalar::F32),
    ("float64", Scalar::F64),
    ("f8", Scalar::F64),
    ("double", Scalar::F64),
    ("c_float64", Scalar::F64),
    ("py_float", Scalar::F64),
    ("np_float64", Scalar::F64),
    ("np_double", Scalar::F64),
    ("complex64", Scalar::C64),
    ("c8", Scalar::C64),
    ("np_complex64", Scalar::C64),
    ("complex128", Scalar::C128),
    ("c16", Scalar::C128),
    ("py_complex", Scalar::C128),
    ("np_complex128", Scalar::C128),
];

/// The scalar type attributes of the `numpy` module (NumPy 2, 64-bit Linux).
///
/// Kept apart from [`NUMBA_SCALAR_NAMES`] because the two namespaces disagree: `np.byte` is
/// int8 while Numba's `byte` is uint8.
const NUMPY_SCALAR_NAMES: &[(&str, Scalar)] = &[
    ("bool", Scalar::Bool),
    ("bool_", Scalar::Bool),
    ("int8", Scalar::I8),
    ("byte", Scalar::I8),
    ("int16", Scalar::I16),
    ("short", Scalar::I16),
    ("int32", Scalar::I32),
    ("intc", Scalar::I32),
    ("int64", Scalar::I64),
    ("intp", Scalar::I64),
    ("int_", Scalar::I64),
    ("long", Scalar::I64),
    ("longlong", Scalar::I64),
    ("uint8", Scalar::U8),
    ("ubyte", Scalar::U8),
    ("uint16", Scalar::U16),
    ("ushort", Scalar::U16),
    ("uint32", Scalar::U32),
    ("uintc", Scalar::U32),
    ("uint64", Scalar::U64),
    ("uintp", Scalar::U64),
    ("uint", Scalar::U64),
    ("ulong", Scalar::U64),
    ("ulonglong", Scalar::U64),
    ("float16", Scalar::F16),
    ("half", Scalar::F16),
    ("float32", Scalar::F32),
    ("single", Scalar::F32),
    ("float64", Scalar::F64),
    ("double", Scalar::F64),
    ("complex64", Scalar::C64),
    ("csingle", Scalar::C64),
    ("complex128", Scalar::C128),
    ("cdouble", Scalar::C128),
];

impl Scalar {
    /// Every scalar type, in declaration order.
    pub const ALL: [Scalar; 15] = [
        Scalar::Bool,
        Scalar::I8,
        Scalar::I16,
        Scalar::I32,
        Scalar::I64,
        Scalar::U8,
        Scalar::U16,
        Scalar::U32,
        Scalar::U64,
        Scalar::F16,
        Scalar::BF16,
        Scalar::F32,
        Scalar::F64,
        Scalar::C64,
        Scalar::C128,
    ];

    /// The name Numba prints for this type (`str(numba_type)`).
    ///
    /// bfloat16 prints as `__nv_bfloat16`: numba-cuda names the type after the CUDA C type.
    pub fn name(self) -> &'static str {
        match self {
            Scalar::Bool => "bool",
            Scalar::I8 => "int8",
            Scalar::I16 => "int16",
            Scalar::I32 => "int32",
            Scalar::I64 => "int64",
            Scalar::U8 => "uint8",
            Scalar::U16 => "uint16",
            Scalar::U32 => "uint32",
            Scalar::U64 => "uint64",
            Scalar::F16 => "float16",
            Scalar::BF16 => "__nv_bfloat16",
            Scalar::F32 => "float32",
            Scalar::F64 => "float64",
            Scalar::C64 => "complex64",
            Scalar::C128 => "complex128",
        }
    }

    /// The scalar a name of the Numba types namespace denotes: what a bare name means in a
    /// signature string, and the attribute in `numba.X`, `numba.types.X`, `numba.cuda.X`.
    /// Accepts every alias Numba defines (`boolean`, `b1`, `i4`, `intp`, `f8`, `double`,
    /// `c16`, `np_float32`, ...).
    pub fn from_name(name: &str) -> Option<Scalar> {
        lookup(NUMBA_SCALAR_NAMES, name)
    }

    /// The scalar a `numpy.X` attribute denotes (`np.float32`, `np.bool_`, `np.half`,
    /// `np.intp`, ...). Differs from [`Scalar::from_name`] for `byte` (int8 in NumPy).
    pub fn from_numpy_name(name: &str) -> Option<Scalar> {
        lookup(NUMPY_SCALAR_NAMES, name)
    }

    /// Width in bits; `bool` is stored in one byte, so it counts 8.
    pub fn bits(self) -> u32 {
        match self {
            Scalar::Bool | Scalar::I8 | Scalar::U8 => 8,
            Scalar::I16 | Scalar::U16 | Scalar::F16 | Scalar::BF16 => 16,
            Scalar::I32 | Scalar::U32 | Scalar::F32 => 32,
            Scalar::I64 | Scalar::U64 | Scalar::F64 | Scalar::C64 => 64,
            Scalar::C128 => 128,
        }
    }

    /// `i` wrapped to the width and signedness of this integer type.
    pub fn wrap_int(self, i: i128) -> i128 {
        let bits = self.bits();
        let m = i.rem_euclid(1i128 << bits);
        if self.is_signed() && m >= 1i128 << (bits - 1) { m - (1i128 << bits) } else { m }
    }

    /// Size in bytes, as in an array element.
    pub fn itemsize(self) -> u32 {
        self.bits() / 8
    }

    /// Natural alignment in bytes, as in a NumPy `align=True` record: a complex number
    /// aligns as its parts.
    pub fn alignment(self) -> u32 {
        if self.is_complex() { self.itemsize() / 2 } else { self.itemsize() }
    }

    /// A signed integer type (`int8` .. `int64`).
    pub fn is_signed(self) -> bool {
        matches!(self, Scalar::I8 | Scalar::I16 | Scalar::I32 | Scalar::I64)
    }

    /// An unsigned integer type (`uint8` .. `uint64`).
    pub fn is_unsigned_int(self) -> bool {
        matches!(self, Scalar::U8 | Scalar::U16 | Scalar::U32 | Scalar::U64)
    }

    /// An integer type, signed or not. `bool` is not one here, although Numba's arithmetic
    /// treats it as an integer operand.
    pub fn is_int(self) -> bool {
        self.is_signed() || self.is_unsigned_int()
    }

    /// A real floating-point type (`float16`, `bfloat16`, `float32`, `float64`).
    pub fn is_float(self) -> bool {
        matches!(self, Scalar::F16 | Scalar::BF16 | Scalar::F32 | Scalar::F64)
    }

    /// A complex type (`complex64`, `complex128`).
    pub fn is_complex(self) -> bool {
        matches!(self, Scalar::C64 | Scalar::C128)
    }
}

fn lookup(table: &[(&str, Scalar)], name: &str) -> Option<Scalar> {
    table.iter().find(|(n, _)| *n == name).map(|&(_, s)| s)
}

impl fmt::Display for Scalar {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// Memory layout of an array type.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, serde::Serialize)]
pub enum Layout {
    /// C-contiguous (row major): addressed from the shape alone, strides are ignored.
    C,
    /// Fortran-contiguous (column major).
    F,
    /// Any strides: every index is multiplied by its byte stride.
    A,
}

impl fmt::Display for Layout {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Layout::C => "C",
            Layout::F => "F",
            Layout::A => "A",
        })
    }
}

/// One field of a [`Record`].
#[derive(Clone, Debug, PartialEq, Eq, Hash, serde::Serialize)]
pub struct RecordField {
    pub name: String,
    /// The type of the field, or of each element of an array field: a [`Type::Scalar`], or
    /// a [`Type::Record`] nested in this one.
    pub ty: Type,
    /// Byte offset from the start of the record.
    pub offset: u32,
    /// The extents of an array field (Numba's `NestedArray`, C-contiguous in the record's
    /// bytes); empty for a scalar field.
    pub shape: Vec<u32>,
}

/// A structured scalar (a NumPy structured dtype), such as the xoroshiro128+ RNG state.
///
/// Fields are scalars, arrays of scalars, or records.
#[derive(Clone, Debug, PartialEq, Eq, Hash, serde::Serialize)]
pub struct Record {
    /// Fields in increasing offset order (Numba sorts them by offset, then name).
    pub fields: Vec<RecordField>,
    /// Size in bytes, padding included.
    pub size: u32,
    /// Whether the fields sit at their natural (C ABI) alignment.
    pub aligned: bool,
}

impl RecordField {
    /// Whether the field sits off its type's natural alignment, where Numba refuses to load
    /// or store it.
    pub fn misaligned(&self) -> bool {
        // A nested record is bytes to Numba (`[N x i8]`): never off its alignment.
        matches!(&self.ty, Type::Scalar(s) if !self.offset.is_multiple_of(s.alignment()))
    }

    /// Bytes one item of the field (the field, or an element of an array field) takes.
    pub fn item_size(&self) -> u32 {
        match &self.ty {
            Type::Scalar(s) => s.itemsize(),
            Type::Record(r) => r.size,
            _ => 0,
        }
    }

    /// Bytes the field takes in the record.
    pub fn size(&self) -> u32 {
        self.shape.iter().product::<u32>() * self.item_size()
    }

    /// The field's scalar type, or each element's of an array field; `None` for a record.
    pub fn scalar(&self) -> Option<Scalar> {
        self.ty.as_scalar()
    }

    /// The type Numba prints for the field: its scalar, or `nestedarray(float32, (3,))`.
    pub fn type_name(&self) -> String {
        match &self.shape[..] {
            [] => self.ty.to_string(),
            [n] => format!("nestedarray({}, ({n},))", self.ty),
            shape => format!("nestedarray({}, ({}))", self.ty, shape.iter().map(u32::to_string).collect::<Vec<_>>().join(", ")),
        }
    }
}

impl Record {
    /// The field called `name`.
    pub fn field(&self, name: &str) -> Option<&RecordField> {
        self.fields.iter().find(|f| f.name == name)
    }

    /// NumPy's alignment of the dtype as a field of another: its strictest field's for an
    /// aligned struct, 1 for a packed one.
    pub fn alignment(&self) -> u32 {
        if !self.aligned {
            return 1;
        }
        self.fields.iter().map(|f| f.ty.field_alignment()).max().unwrap_or(1)
    }
}

impl fmt::Display for Record {
    /// `Record(s0[type=uint64;offset=0],s1[type=uint64;offset=8];16;True)`.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("Record(")?;
        for (i, field) in self.fields.iter().enumerate() {
            if i > 0 {
                f.write_str(",")?;
            }
            write!(f, "{}[type={};offset={}]", field.name, field.type_name(), field.offset)?;
        }
        write!(f, ";{};{})", self.size, py_bool(self.aligned))
    }
}

/// A Numba type, as far as kernlint models them.
#[derive(Clone, Debug, PartialEq, Eq, Hash, serde::Serialize)]
pub enum Type {
    Scalar(Scalar),
    /// An array; `dtype` is a [`Type::Scalar`] or a [`Type::Record`].
    Array {
        dtype: Box<Type>,
        ndim: u8,
        layout: Layout,
        readonly: bool,
    },
    /// A tuple whose elements all have one type. Numba always uses this form for such
    /// tuples (see [`Type::tuple`]).
    UniTuple(Box<Type>, usize),
    /// A tuple of differing element types.
    Tuple(Vec<Type>),
    /// An instance of a `collections.namedtuple` or `typing.NamedTuple` class: the class's
    /// name, its fields and the members' types. Numba prints it as the class over the
    /// members (`Params(float64 x 2)`, `Params(int64, float64)`); the IR computes it as the
    /// plain tuple ([`Type::unnamed`]).
    NamedTuple { class: String, fields: Vec<String>, items: Vec<Type> },
    Record(Record),
    /// A member of an `Enum` (`int` false) or `IntEnum` class of integer values (`value`
    /// int64), or of an `Enum` of floats (float64), by the class's name: Numba's
    /// `Enum<int64>(Color)`. The IR carries it as its value.
    Enum { class: String, int: bool, value: Scalar },
    /// Python `None`, and the "void" return type of kernels.
    None,
    /// An integer constant the typing keeps track of (`Literal[int](3)`); behaves as int64,
    /// or uint64 above `i64::MAX`.
    IntLiteral(i128),
    BoolLiteral(bool),
    StrLiteral(String),
    /// A value that may be `None` (Numba's `OptionalType`).
    Optional(Box<Type>),
    /// The object `range(...)` returns, by the type of its bounds (`range_state_int64`).
    Range(Scalar),
    /// A CUDA vector type (`float32x4`, numba-cuda's `vector_types.py`): a struct of 1 to 4
    /// members `x y z w` of its base type, which the IR computes as a tuple of them.
    Vector(Scalar, u8),
    /// A compile-time object passed to a device function (Numba's `NumberClass`, `Function`
    /// and `Dispatcher` types): the callee is specialised for it, and the IR carries it as an
    /// empty value.
    Object(Object),
    /// The analysis could not tell.
    Unknown,
}

/// What a [`Type::Object`] is.
#[derive(Clone, Debug, PartialEq, Eq, Hash, serde::Serialize)]
pub enum Object {
    /// A module-level object by its path: a scalar type (`numba.cuda.uint32`), an intrinsic
    /// (`numba.cuda.atomic.add`), a builtin (`builtins.int`).
    Path(String),
    /// A GPU function, by the name the caller's module calls it.
    Device(String),
}

impl Type {
    /// A mutable array of `dtype`.
    pub fn array(dtype: Type, ndim: u8, layout: Layout) -> Type {
        Type::Array { dtype: Box::new(dtype), ndim, layout, readonly: false }
    }

    /// A tuple of `elems`, in Numba's canonical form: a non-empty tuple whose elements are
    /// all equal is a [`Type::UniTuple`], anything else a [`Type::Tuple`].
    pub fn tuple(elems: Vec<Type>) -> Type {
        match elems.first() {
            Some(first) if elems.iter().all(|t| t == first) => Type::UniTuple(Box::new(first.clone()), elems.len()),
            _ => Type::Tuple(elems),
        }
    }

    /// A named tuple as the plain tuple of its members (what indexing, unpacking and the IR
    /// see); any other type as it is.
    pub fn unnamed(&self) -> Type {
        match self {
            Type::NamedTuple { items, .. } => Type::tuple(items.clone()),
            other => other.clone(),
        }
    }

    /// The element type of `numba.cuda.random` state arrays (`xoroshiro128p_type`):
    /// the aligned NumPy dtype `[('s0', uint64), ('s1', uint64)]`.
    pub fn xoroshiro128p_state() -> Type {
        let field = |name: &str, offset| RecordField { name: name.to_string(), ty: Type::Scalar(Scalar::U64), offset, shape: Vec::new() };
        Type::Record(Record { fields: vec![field("s0", 0), field("s1", 8)], size: 16, aligned: true })
    }

    /// The CUDA vector type a `numba.cuda` attribute names: `float32x4`, or one of the C
    /// aliases numba-cuda's `stubs.py` defines (`float4`, `int2`, `ulonglong3`, ...; `long`
    /// is 64 bits wide on a 64-bit Linux host).
    pub fn cuda_vector(name: &str) -> Option<Type> {
        const BASES: &[(&str, Scalar)] = &[
            ("int8x", Scalar::I8),
            ("int16x", Scalar::I16),
            ("int32x", Scalar::I32),
            ("int64x", Scalar::I64),
            ("uint8x", Scalar::U8),
            ("uint16x", Scalar::U16),
            ("uint32x", Scalar::U32),
            ("uint64x", Scalar::U64),
            ("float32x", Scalar::F32),
            ("float64x", Scalar::F64),
            ("char", Scalar::I8),
            ("short", Scalar::I16),
            ("int", Scalar::I32),
            ("long", Scalar::I64),
            ("longlong", Scalar::I64),
            ("uchar", Scalar::U8),
            ("ushort", Scalar::U16),
            ("uint", Scalar::U32),
            ("ulong", Scalar::U64),
            ("ulonglong", Scalar::U64),
            ("float", Scalar::F32),
            ("double", Scalar::F64),
        ];
        let last = name.chars().last()?;
        let prefix = &name[..name.len() - last.len_utf8()];
        let count = last.to_digit(10).filter(|n| (1..=4).contains(n))? as u8;
        BASES.iter().find(|(p, _)| *p == prefix).map(|&(_, base)| Type::Vector(base, count))
    }

    /// The scalar this type is, if it is one.
    pub fn as_scalar(&self) -> Option<Scalar> {
        match self {
            Type::Scalar(s) => Some(*s),
            _ => None,
        }
    }

    /// The alignment a record field of this type takes in an aligned record (NumPy's
    /// `align=True`): a scalar's own, a nested record's largest field's, 1 for anything else.
    pub fn field_alignment(&self) -> u32 {
        match self {
            Type::Scalar(s) => s.alignment(),
            Type::Record(r) => r.alignment(),
            _ => 1,
        }
    }

    pub fn is_array(&self) -> bool {
        matches!(self, Type::Array { .. })
    }

    /// The element type of an array.
    pub fn dtype(&self) -> Option<&Type> {
        match self {
            Type::Array { dtype, .. } => Some(dtype),
            _ => None,
        }
    }

    /// The number of dimensions of an array.
    pub fn ndim(&self) -> Option<u8> {
        match self {
            Type::Array { ndim, .. } => Some(*ndim),
            _ => None,
        }
    }
}

impl From<Scalar> for Type {
    fn from(scalar: Scalar) -> Type {
        Type::Scalar(scalar)
    }
}

impl fmt::Display for Type {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Type::Scalar(s) => write!(f, "{s}"),
            Type::Array { dtype, ndim, layout, readonly } => {
                // Numba puts "unaligned" (records with fields off their natural alignment)
                // in front of "readonly".
                if matches!(&**dtype, Type::Record(r) if !r.aligned) {
                    f.write_str("unaligned ")?;
                }
                if *readonly {
                    f.write_str("readonly ")?;
                }
                write!(f, "array({dtype}, {ndim}d, {layout})")
            }
            Type::UniTuple(elem, count) => write!(f, "UniTuple({elem} x {count})"),
            Type::Tuple(elems) => {
                f.write_str("Tuple(")?;
                for (i, elem) in elems.iter().enumerate() {
                    if i > 0 {
                        f.write_str(", ")?;
                    }
                    write!(f, "{elem}")?;
                }
                f.write_str(")")
            }
            Type::NamedTuple { class, items, .. } => match Type::tuple(items.clone()) {
                Type::UniTuple(item, count) => write!(f, "{class}({item} x {count})"),
                _ => {
                    write!(f, "{class}(")?;
                    for (i, item) in items.iter().enumerate() {
                        if i > 0 {
                            f.write_str(", ")?;
                        }
                        write!(f, "{item}")?;
                    }
                    f.write_str(")")
                }
            },
            Type::Record(r) => write!(f, "{r}"),
            Type::Enum { class, int, value } => write!(f, "{}Enum<{value}>({class})", if *int { "Int" } else { "" }),
            Type::None => f.write_str("none"),
            Type::IntLiteral(v) => write!(f, "Literal[int]({v})"),
            Type::BoolLiteral(v) => write!(f, "Literal[bool]({})", py_bool(*v)),
            Type::StrLiteral(v) => write!(f, "Literal[str]({v})"),
            Type::Optional(t) => write!(f, "OptionalType({t})"),
            Type::Range(s) => write!(f, "range_state_{s}"),
            Type::Vector(s, n) => write!(f, "{s}x{n}"),
            Type::Object(Object::Path(p)) => write!(f, "Object({p})"),
            Type::Object(Object::Device(n)) => write!(f, "type(CUDADispatcher({n}))"),
            Type::Unknown => f.write_str("?"),
        }
    }
}

/// The index of the member `attr` of a CUDA vector of `count` members (`x y z w`).
pub fn vector_member(attr: &str, count: u8) -> Option<usize> {
    ["x", "y", "z", "w"].get(..count as usize)?.iter().position(|m| *m == attr)
}

/// Python's spelling of a boolean.
fn py_bool(b: bool) -> &'static str {
    if b { "True" } else { "False" }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn f32_array(ndim: u8, layout: Layout) -> Type {
        Type::array(Scalar::F32.into(), ndim, layout)
    }

    #[test]
    fn scalar_names_round_trip() {
        for s in Scalar::ALL {
            if s != Scalar::BF16 {
                assert_eq!(Scalar::from_name(s.name()), Some(s), "{s:?}");
            }
        }
        assert_eq!(Scalar::from_name("bfloat16"), Some(Scalar::BF16));
        assert_eq!(Scalar::BF16.to_string(), "__nv_bfloat16");
    }

    #[test]
    fn numba_aliases() {
        let cases = [
            ("boolean", Scalar::Bool),
            ("b1", Scalar::Bool),
            ("bool_", Scalar::Bool),
            ("i1", Scalar::I8),
            ("i2", Scalar::I16),
            ("i4", Scalar::I32),
            ("i8", Scalar::I64),
            ("u1", Scalar::U8),
            ("u2", Scalar::U16),
            ("u4", Scalar::U32),
            ("u8", Scalar::U64),
            ("intp", Scalar::I64),
            ("uintp", Scalar::U64),
            ("intc", Scalar::I32),
            ("uintc", Scalar::U32),
            ("int_", Scalar::I64),
            ("uint", Scalar::U64),
            ("f2", Scalar::F16),
            ("f4", Scalar::F32),
            ("f8", Scalar::F64),
            ("double", Scalar::F64),
            ("c8", Scalar::C64),
            ("c16", Scalar::C128),
            ("byte", Scalar::U8),
            ("np_float32", Scalar::F32),
        ];
        for (name, scalar) in cases {
            assert_eq!(Scalar::from_name(name), Some(scalar), "{name}");
        }
        for name in ["float_", "half", "single", "float", "int", "void", "Float32"] {
            assert_eq!(Scalar::from_name(name), None, "{name}");
        }
    }

    #[test]
    fn numpy_names() {
        assert_eq!(Scalar::from_numpy_name("byte"), Some(Scalar::I8));
        assert_eq!(Scalar::from_numpy_name("half"), Some(Scalar::F16));
        assert_eq!(Scalar::from_numpy_name("single"), Some(Scalar::F32));
        assert_eq!(Scalar::from_numpy_name("bool_"), Some(Scalar::Bool));
        assert_eq!(Scalar::from_numpy_name("intp"), Some(Scalar::I64));
        assert_eq!(Scalar::from_numpy_name("bfloat16"), None);
    }

    #[test]
    fn scalar_properties() {
        assert_eq!(Scalar::Bool.itemsize(), 1);
        assert_eq!(Scalar::F16.bits(), 16);
        assert_eq!(Scalar::C128.itemsize(), 16);
        assert!(Scalar::I32.is_signed() && Scalar::I32.is_int() && !Scalar::I32.is_unsigned_int());
        assert!(Scalar::U64.is_unsigned_int() && Scalar::U64.is_int() && !Scalar::U64.is_signed());
        assert!(!Scalar::Bool.is_int() && !Scalar::F32.is_signed());
        assert!(Scalar::BF16.is_float() && !Scalar::C64.is_float());
        assert!(Scalar::C64.is_complex());
    }

    #[test]
    fn display_spellings() {
        let cases = [
            (Type::Scalar(Scalar::I64), "int64"),
            (Type::Scalar(Scalar::Bool), "bool"),
            (Type::Scalar(Scalar::C128), "complex128"),
            (f32_array(1, Layout::C), "array(float32, 1d, C)"),
            (f32_array(2, Layout::A), "array(float32, 2d, A)"),
            (
                Type::Array { dtype: Box::new(Scalar::F32.into()), ndim: 2, layout: Layout::C, readonly: true },
                "readonly array(float32, 2d, C)",
            ),
            (Type::UniTuple(Box::new(Scalar::I64.into()), 2), "UniTuple(int64 x 2)"),
            (Type::Tuple(vec![Scalar::I64.into(), Scalar::F64.into()]), "Tuple(int64, float64)"),
            (Type::Tuple(vec![]), "Tuple()"),
            (Type::None, "none"),
            (Type::IntLiteral(3), "Literal[int](3)"),
            (Type::IntLiteral(-1), "Literal[int](-1)"),
            (Type::BoolLiteral(true), "Literal[bool](True)"),
            (Type::StrLiteral("abc".into()), "Literal[str](abc)"),
            (Type::Optional(Box::new(Scalar::I64.into())), "OptionalType(int64)"),
            (Type::Range(Scalar::I64), "range_state_int64"),
            (Type::Vector(Scalar::F32, 4), "float32x4"),
            (Type::Unknown, "?"),
        ];
        for (ty, text) in cases {
            assert_eq!(ty.to_string(), text);
        }
    }

    #[test]
    fn xoroshiro_record() {
        let state = Type::xoroshiro128p_state();
        assert_eq!(state.to_string(), "Record(s0[type=uint64;offset=0],s1[type=uint64;offset=8];16;True)");
        assert_eq!(
            Type::array(state.clone(), 1, Layout::C).to_string(),
            "array(Record(s0[type=uint64;offset=0],s1[type=uint64;offset=8];16;True), 1d, C)"
        );
        let Type::Record(record) = state else { unreachable!() };
        assert_eq!(record.field("s1").map(|f| f.offset), Some(8));
        assert!(record.field("s2").is_none());
    }

    #[test]
    fn unaligned_record_array() {
        let record = Record {
            fields: vec![
                RecordField { name: "a".into(), ty: Type::Scalar(Scalar::U8), offset: 0, shape: Vec::new() },
                RecordField { name: "b".into(), ty: Type::Scalar(Scalar::I32), offset: 1, shape: Vec::new() },
            ],
            size: 5,
            aligned: false,
        };
        let ty = Type::Array { dtype: Box::new(Type::Record(record)), ndim: 1, layout: Layout::A, readonly: true };
        assert_eq!(
            ty.to_string(),
            "unaligned readonly array(Record(a[type=uint8;offset=0],b[type=int32;offset=1];5;False), 1d, A)"
        );
    }

    #[test]
    fn cuda_vector_names() {
        let cases = [
            ("float32x4", Some(Type::Vector(Scalar::F32, 4))),
            ("float4", Some(Type::Vector(Scalar::F32, 4))),
            ("double1", Some(Type::Vector(Scalar::F64, 1))),
            ("short2", Some(Type::Vector(Scalar::I16, 2))),
            ("long3", Some(Type::Vector(Scalar::I64, 3))),
            ("uint3", Some(Type::Vector(Scalar::U32, 3))),
            ("uint64x2", Some(Type::Vector(Scalar::U64, 2))),
            ("float32x5", None),
            ("float32x0", None),
            ("float16x2", None),
            ("int", None),
            ("x", None),
            ("é", None),
            ("", None),
        ];
        for (name, ty) in cases {
            assert_eq!(Type::cuda_vector(name), ty, "{name}");
        }
    }

    #[test]
    fn tuple_canonical_form() {
        let i64t = Type::Scalar(Scalar::I64);
        assert_eq!(Type::tuple(vec![i64t.clone(), i64t.clone()]), Type::UniTuple(Box::new(i64t.clone()), 2));
        assert_eq!(Type::tuple(vec![]), Type::Tuple(vec![]));
        let mixed = vec![i64t.clone(), Scalar::F64.into()];
        assert_eq!(Type::tuple(mixed.clone()), Type::Tuple(mixed));
    }

    #[test]
    fn array_helpers() {
        let a = f32_array(3, Layout::A);
        assert!(a.is_array());
        assert_eq!(a.ndim(), Some(3));
        assert_eq!(a.dtype(), Some(&Type::Scalar(Scalar::F32)));
        let s = Type::Scalar(Scalar::I32);
        assert!(!s.is_array() && s.ndim().is_none() && s.dtype().is_none());
        assert_eq!(s.as_scalar(), Some(Scalar::I32));
    }
}
