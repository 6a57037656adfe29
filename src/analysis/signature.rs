//! Numba signatures and type expressions: `"void(float32[:], int32)"`,
//! `"(int32, float64[::1])"`, `types.void(types.float32[:])`, `Array(float32, 2, 'C')`.
//!
//! Numba evaluates a signature string as Python in the namespace of `numba.cuda.types`
//! (`sigutils._parse_signature_string`), so the grammar is a small Python expression
//! language: names of types, `type[slices]` for arrays, calls of type constructors, and a
//! call of a type (`ret(args)`) or a tuple of types (`(args)`) for the signature itself.
//! This module interprets that language statically, reporting what Numba would reject
//! with the range of the offending node.

use std::fmt;

use ruff_python_ast::{self as ast, Expr, Number};
use ruff_python_parser::{Parsed, parse_parenthesized_expression_range};
use ruff_text_size::{Ranged, TextRange, TextSize};

use super::types::{Layout, Record, RecordField, Scalar, Type};

/// A kernel or device-function signature.
#[derive(Clone, Debug, PartialEq, Eq, Hash, serde::Serialize)]
pub struct Signature {
    /// The declared return type: `None` for the `(args)` form, whose return type Numba
    /// infers; `Some(Type::None)` for `void(...)`.
    pub ret: Option<Type>,
    pub args: Vec<Type>,
}

impl fmt::Display for Signature {
    /// Numba's spelling, `(array(float32, 1d, C), int32) -> none`: the arguments as a Python
    /// tuple (so one argument prints as `(int32,)`), then the return type, `?` if inferred.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("(")?;
        for (i, arg) in self.args.iter().enumerate() {
            if i > 0 {
                f.write_str(", ")?;
            }
            write!(f, "{arg}")?;
        }
        if self.args.len() == 1 {
            f.write_str(",")?;
        }
        match &self.ret {
            Some(ret) => write!(f, ") -> {ret}"),
            None => f.write_str(") -> ?"),
        }
    }
}

/// Why a signature or type expression is not one Numba accepts.
#[derive(Clone, Debug, PartialEq, Eq, Hash, serde::Serialize)]
pub struct SignatureError {
    pub message: String,
    /// The offending part: relative to the start of the text for the `_str` functions, in
    /// the expression's own coordinates for the `_expr` functions. Not serialized: callers
    /// map it to a file position first.
    #[serde(skip)]
    pub range: TextRange,
}

impl fmt::Display for SignatureError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.message)
    }
}

impl std::error::Error for SignatureError {}

impl Signature {
    /// The signature as a string `@cuda.jit("...")` accepts and [`parse_signature_str`] reads
    /// back to this signature (`void(Array(float32, 1, 'C'), int64)`); `None` when a type has
    /// no name in Numba's types namespace (a literal, a range).
    pub fn numba_text(&self) -> Option<String> {
        let args = self.args.iter().map(type_text).collect::<Option<Vec<_>>>()?.join(", ");
        Some(match &self.ret {
            None if self.args.len() == 1 => format!("({args},)"),
            None => format!("({args})"),
            Some(Type::None) => format!("void({args})"),
            Some(ret) => format!("{}({args})", type_text(ret)?),
        })
    }
}

/// A type in signature-string syntax (see [`Signature::numba_text`]).
pub fn type_text(ty: &Type) -> Option<String> {
    Some(match ty {
        Type::Scalar(s) => scalar_text(*s).to_string(),
        Type::Array { dtype, ndim, layout, readonly } => {
            let readonly = if *readonly { ", readonly=True" } else { "" };
            format!("Array({}, {ndim}, '{layout}'{readonly})", type_text(dtype)?)
        }
        Type::UniTuple(elem, count) => format!("UniTuple({}, {count})", type_text(elem)?),
        Type::Tuple(elems) => {
            let texts = elems.iter().map(type_text).collect::<Option<Vec<_>>>()?;
            let comma = if texts.len() == 1 { "," } else { "" };
            format!("Tuple(({}{comma}))", texts.join(", "))
        }
        Type::Optional(inner) => format!("optional({})", type_text(inner)?),
        Type::None => "none".to_string(),
        record @ Type::Record(_) if *record == Type::xoroshiro128p_state() => "xoroshiro128p_type".to_string(),
        Type::Record(r) => r.to_string(),
        // As Numba prints it, which kernlint reads back (see `replace_records`).
        Type::Enum { .. } => ty.to_string(),
        // kernlint's own spelling (see `replace_records`): Numba's signatures have none.
        Type::NamedTuple { class, fields, items } => {
            format!("NamedTuple({class};{};{})", fields.join(","), items.iter().map(type_text).collect::<Option<Vec<_>>>()?.join(", "))
        }
        Type::IntLiteral(_)
        | Type::BoolLiteral(_)
        | Type::StrLiteral(_)
        | Type::Range(_)
        | Type::Vector(..)
        | Type::Object(_)
        | Type::Unknown => return None,
    })
}

/// A scalar's name in Numba's types namespace, which differs from how Numba prints two of
/// them (`bool`, `__nv_bfloat16`).
fn scalar_text(s: Scalar) -> &'static str {
    match s {
        Scalar::Bool => "boolean",
        Scalar::BF16 => "bfloat16",
        other => other.name(),
    }
}

/// Parses a signature string as `@cuda.jit("...")` receives it.
pub fn parse_signature_str(src: &str) -> Result<Signature, SignatureError> {
    let (text, records) = replace_records(src)?;
    Evaluator { resolve: &bare_name, records: &records }.signature(parse_str(&text)?.expr())
}

/// Parses a type string such as `"float32[:, ::1]"`.
pub fn parse_type_str(src: &str) -> Result<Type, SignatureError> {
    let (text, records) = replace_records(src)?;
    Evaluator { resolve: &bare_name, records: &records }.ty(parse_str(&text)?.expr())
}

/// What the `n`-th record (or Enum member type) of a signature string is replaced by: `Record_n`, padded with `_`.
const RECORD_PLACEHOLDER: &str = "Record_";

/// Numba prints a record type as `Record(x[type=float32;offset=0],y[type=int32;offset=4];8;False)`,
/// which is no Python expression: each one in `src` is parsed here and replaced by a
/// placeholder name of the same length, so that error ranges stay those of `src`.
fn replace_records(src: &str) -> Result<(String, Vec<Type>), SignatureError> {
    let mut text = src.to_string();
    let mut records = Vec::new();
    // A named tuple, as kernlint writes a launch's signature (Numba's signatures have no
    // spelling for one): `NamedTuple(Params;x,y;float64, float64)`. First, as its members
    // may hold records.
    let mut from = 0;
    while let Some(found) = text[from..].find("NamedTuple(") {
        let start = from + found;
        from = start + 1;
        if text[..start].chars().next_back().is_some_and(|c| c.is_alphanumeric() || c == '_') {
            continue;
        }
        let open = start + "NamedTuple".len();
        let Some(end) = closing_paren(&text, open) else {
            return Err(text_error(start, text.len(), "`NamedTuple(` is never closed"));
        };
        let parts = text[open + 1..end].splitn(3, ';').collect::<Vec<_>>();
        let [class, fields, items] = parts[..] else {
            return Err(text_error(start, end + 1, "expected `NamedTuple(Class;field,...;type, ...)`"));
        };
        let items = parse_signature_str(&format!("({items},)")).map_err(|e| text_error(start, end + 1, e.message))?.args;
        let fields: Vec<String> = fields.split(',').map(|f| f.trim().to_string()).filter(|f| !f.is_empty()).collect();
        if fields.len() != items.len() {
            return Err(text_error(start, end + 1, "a named tuple needs one type per field"));
        }
        records.push(Type::NamedTuple { class: class.trim().to_string(), fields, items });
        let placeholder = format!("{RECORD_PLACEHOLDER}{}", records.len() - 1);
        text.replace_range(start..=end, &format!("{placeholder:_<width$}", width = end + 1 - start));
        from = end + 1;
    }
    let mut from = 0;
    while let Some(found) = text[from..].find("Record(") {
        let start = from + found;
        from = start + 1;
        // `MyRecord(` is some other name.
        if text[..start].chars().next_back().is_some_and(|c| c.is_alphanumeric() || c == '_') {
            continue;
        }
        let open = start + "Record".len();
        let Some(end) = closing_paren(&text, open) else {
            return Err(text_error(start, text.len(), "`Record(` is never closed"));
        };
        records.push(Type::Record(parse_record(&text[open + 1..end], start, end + 1)?));
        let placeholder = format!("{RECORD_PLACEHOLDER}{}", records.len() - 1);
        text.replace_range(start..=end, &format!("{placeholder:_<width$}", width = end + 1 - start));
        from = end + 1;
    }
    // An Enum member's type, as kernlint writes a launch's signature: `IntEnum<int64>(Mode)`.
    let mut from = 0;
    while let Some(found) = text[from..].find("Enum<") {
        let at = from + found;
        from = at + 1;
        let int = text[..at].ends_with("Int");
        let start = if int { at - "Int".len() } else { at };
        if text[..start].chars().next_back().is_some_and(|c| c.is_alphanumeric() || c == '_') {
            continue;
        }
        let Some((value, class, end)) = enum_type_parts(&text, at + "Enum".len()) else {
            return Err(text_error(start, text.len(), "expected an Enum member type such as `IntEnum<int64>(Mode)`"));
        };
        records.push(Type::Enum { class, int, value });
        let placeholder = format!("{RECORD_PLACEHOLDER}{}", records.len() - 1);
        text.replace_range(start..end, &format!("{placeholder:_<width$}", width = end - start));
        from = end;
    }
    Ok((text, records))
}

/// `<int64>(Mode)` from `open` (the `<`): the value type, the class name and the end.
fn enum_type_parts(text: &str, open: usize) -> Option<(Scalar, String, usize)> {
    let rest = text[open..].strip_prefix('<')?;
    let (value, rest) = rest.split_once(">(")?;
    let (class, _) = rest.split_once(')')?;
    let value = match value {
        "int64" => Scalar::I64,
        "float64" => Scalar::F64,
        _ => return None,
    };
    let valid = class.chars().next().is_some_and(|c| c.is_alphabetic() || c == '_') && class.chars().all(|c| c.is_alphanumeric() || c == '_');
    valid.then(|| (value, class.to_string(), open + 1 + value.name().len() + 2 + class.len() + 1))
}

fn text_error(start: usize, end: usize, message: impl Into<String>) -> SignatureError {
    let at = |i: usize| TextSize::try_from(i).unwrap_or_default();
    SignatureError { message: message.into(), range: TextRange::new(at(start), at(end)) }
}

/// The index of the `)` that closes the `(` at `open`.
fn closing_paren(text: &str, open: usize) -> Option<usize> {
    let mut depth = 0usize;
    for (i, c) in text[open..].char_indices() {
        match c {
            '(' | '[' => depth += 1,
            ')' | ']' => {
                depth = depth.checked_sub(1)?;
                if depth == 0 {
                    return Some(open + i);
                }
            }
            _ => {}
        }
    }
    None
}

/// `s` split at the `sep`s outside brackets.
fn split_top(s: &str, sep: char) -> Vec<&str> {
    let mut parts = Vec::new();
    let (mut depth, mut last) = (0i32, 0);
    for (i, c) in s.char_indices() {
        match c {
            '(' | '[' => depth += 1,
            ')' | ']' => depth -= 1,
            c if c == sep && depth == 0 => {
                parts.push(&s[last..i]);
                last = i + c.len_utf8();
            }
            _ => {}
        }
    }
    parts.push(&s[last..]);
    parts
}

/// The inside of `Record(...)`, the text between `start` and `end` of the signature.
fn parse_record(inner: &str, start: usize, end: usize) -> Result<Record, SignatureError> {
    let err = |message: String| text_error(start, end, format!("in `Record(...)`: {message}"));
    let [fields, size, aligned] = split_top(inner, ';')[..] else {
        return Err(err("expected `Record(fields;size;aligned)`".into()));
    };
    let size: u32 = size.trim().parse().map_err(|_| err(format!("the size `{size}` is not a number")))?;
    let aligned = match aligned.trim() {
        "True" => true,
        "False" => false,
        other => return Err(err(format!("the alignment flag `{other}` is not `True` or `False`"))),
    };
    let mut parsed = Vec::new();
    for field in split_top(fields, ',').into_iter().filter(|f| !f.trim().is_empty()) {
        let field = field.trim();
        let (name, spec) = field
            .strip_suffix(']')
            .and_then(|f| f.split_once('['))
            .ok_or_else(|| err(format!("expected `name[type=T;offset=N]`, found `{field}`")))?;
        let (mut ty, mut offset) = (None, None);
        for part in split_top(spec, ';') {
            match part.trim().split_once('=') {
                Some(("type", t)) => ty = Some(t.trim()),
                Some(("offset", o)) => offset = o.trim().parse::<u32>().ok(),
                _ => {}
            }
        }
        let (Some(ty), Some(offset)) = (ty, offset) else {
            return Err(err(format!("the field `{name}` needs a `type=` and a numeric `offset=`")));
        };
        let scalar = |ty: &str| Scalar::from_name(ty).or((ty == "bool").then_some(Scalar::Bool));
        let (ty, shape) = match scalar(ty) {
            Some(s) => (Type::Scalar(s), Vec::new()),
            None if let Some(nested) = ty.strip_prefix("Record(").and_then(|t| t.strip_suffix(')')) => {
                (Type::Record(parse_record(nested, start, end)?), Vec::new())
            }
            None if let Some(args) = ty.strip_prefix("nestedarray(").and_then(|t| t.strip_suffix(')')) => {
                let bad = || err(format!("expected `nestedarray(scalar or Record(...), (n, ...))` for the field `{name}`, found `{ty}`"));
                let [element, shape] = split_top(args, ',')[..] else { return Err(bad()) };
                let shape = shape.trim().strip_prefix('(').and_then(|s| s.strip_suffix(')')).ok_or_else(bad)?;
                let shape = shape
                    .split(',')
                    .filter(|n| !n.trim().is_empty())
                    .map(|n| n.trim().parse::<u32>().ok().filter(|&n| n > 0))
                    .collect::<Option<Vec<u32>>>()
                    .filter(|s| !s.is_empty())
                    .ok_or_else(bad)?;
                let element = element.trim();
                let element = match element.strip_prefix("Record(").and_then(|t| t.strip_suffix(')')) {
                    Some(nested) => Type::Record(parse_record(nested, start, end)?),
                    None => Type::Scalar(scalar(element).ok_or_else(bad)?),
                };
                (element, shape)
            }
            None => return Err(err(format!("unknown type `{ty}` of the field `{name}`"))),
        };
        let field = RecordField { name: name.to_string(), ty, offset, shape };
        if u64::from(offset) + u64::from(field.item_size()) * field.shape.iter().map(|&n| u64::from(n)).product::<u64>() > u64::from(size) {
            return Err(err(format!("the field `{name}` ends past the record's size, {size}")));
        }
        parsed.push(field);
    }
    Ok(Record { fields: parsed, size, aligned })
}

/// Interprets a signature written as Python objects in a decorator, e.g.
/// `@cuda.jit(void(float32[:], int32))` or `types.void(types.float32[:])`.
///
/// `resolve` maps a `Name` or `Attribute` expression to the name of the `numba.types` member
/// it denotes (`"float32"`, `"void"`, `"UniTuple"`, ...), or `None` if it denotes none.
pub fn parse_signature_expr(
    expr: &Expr,
    resolve: &dyn Fn(&Expr) -> Option<String>,
) -> Result<Signature, SignatureError> {
    Evaluator { resolve, records: &[] }.signature(expr)
}

/// Interprets a type written as a Python expression (see [`parse_signature_expr`]).
pub fn parse_type_expr(expr: &Expr, resolve: &dyn Fn(&Expr) -> Option<String>) -> Result<Type, SignatureError> {
    Evaluator { resolve, records: &[] }.ty(expr)
}

/// Parses `src` as Python's `eval` would, which ignores surrounding whitespace.
fn parse_str(src: &str) -> Result<Parsed<ast::ModExpression>, SignatureError> {
    parse_parenthesized_expression_range(src, TextRange::up_to(TextSize::of(src)))
        .map_err(|e| SignatureError { message: format!("invalid signature syntax: {}", e.error), range: e.location })
}

/// The resolver for signature strings: only bare names exist in Numba's namespace.
fn bare_name(expr: &Expr) -> Option<String> {
    expr.as_name_expr().map(|name| name.id.to_string())
}

/// What a name of the `numba.types` namespace denotes.
enum Named {
    Type(Type),
    Ctor(Ctor),
}

/// The type constructors kernlint understands.
#[derive(Clone, Copy)]
enum Ctor {
    Array,
    UniTuple,
    Tuple,
    Optional,
}

impl Ctor {
    /// Parameter names, as Numba's constructors declare them.
    fn params(self) -> &'static [&'static str] {
        match self {
            Ctor::Array => &["dtype", "ndim", "layout", "readonly"],
            Ctor::UniTuple => &["dtype", "count"],
            Ctor::Tuple => &["types"],
            Ctor::Optional => &["typ"],
        }
    }

    /// How many leading parameters are required.
    fn required(self) -> usize {
        match self {
            Ctor::Array => 3,
            Ctor::UniTuple => 2,
            Ctor::Tuple | Ctor::Optional => 1,
        }
    }

    fn usage(self) -> &'static str {
        match self {
            Ctor::Array => "Array(float32, 2, 'C')",
            Ctor::UniTuple => "UniTuple(int32, 3)",
            Ctor::Tuple => "Tuple((int32, float64))",
            Ctor::Optional => "optional(int32)",
        }
    }
}

fn named(name: &str) -> Option<Named> {
    let ctor = match name {
        "void" | "none" => return Some(Named::Type(Type::None)),
        // Not in Numba's namespace, but the name `numba.cuda.random` exports the RNG state
        // record under; the kernel corpus manifest uses it in signature strings.
        "xoroshiro128p_type" => return Some(Named::Type(Type::xoroshiro128p_state())),
        "Array" => Ctor::Array,
        "UniTuple" => Ctor::UniTuple,
        "Tuple" => Ctor::Tuple,
        "Optional" | "optional" => Ctor::Optional,
        _ => return Scalar::from_name(name).map(|s| Named::Type(s.into())),
    };
    Some(Named::Ctor(ctor))
}

/// Members of `numba.types` that are types or constructors kernlint does not model.
const UNSUPPORTED: &[&str] = &[
    "CPointer",
    "voidptr",
    "Record",
    "NestedArray",
    "NamedTuple",
    "NamedUniTuple",
    "List",
    "ListType",
    "DictType",
    "unicode_type",
    "string",
    "pyobject",
    "slice2_type",
    "slice3_type",
    "dim3",
    "Dim3",
    "grid_group",
    "GridGroup",
    "ffi",
    "ffi_forced_object",
    "deferred_type",
    "NPDatetime",
    "NPTimedelta",
];

/// Names offered as "did you mean" suggestions.
const SUGGESTIONS: &[&str] = &[
    "void",
    "boolean",
    "int8",
    "int16",
    "int32",
    "int64",
    "uint8",
    "uint16",
    "uint32",
    "uint64",
    "intp",
    "float16",
    "bfloat16",
    "float32",
    "float64",
    "complex64",
    "complex128",
    "Array",
    "UniTuple",
    "Tuple",
    "optional",
];

type Result<T, E = SignatureError> = std::result::Result<T, E>;

fn error(node: &impl Ranged, message: impl Into<String>) -> SignatureError {
    SignatureError { message: message.into(), range: node.range() }
}

struct Evaluator<'a> {
    resolve: &'a dyn Fn(&Expr) -> Option<String>,
    /// The records a signature string had in place of its `Record_n` names.
    records: &'a [Type],
}

impl Evaluator<'_> {
    fn signature(&self, expr: &Expr) -> Result<Signature> {
        match expr {
            Expr::Tuple(tuple) => Ok(Signature { ret: None, args: self.types(&tuple.elts)? }),
            // Calling a type makes a signature; calling a constructor makes a type.
            Expr::Call(call) if self.constructor(&call.func).is_none() => {
                let ret = self.ty(&call.func)?;
                if let Some(keyword) = call.arguments.keywords.first() {
                    return Err(error(keyword, "a signature takes no keyword arguments"));
                }
                Ok(Signature { ret: Some(ret), args: self.types(&call.arguments.args)? })
            }
            _ => {
                let ty = self.ty(expr)?;
                Err(error(
                    expr,
                    format!(
                        "expected a signature, found the type `{ty}`: write the return type applied to \
                         the arguments (`void(int32)`) or a tuple of argument types (`(int32,)`)"
                    ),
                ))
            }
        }
    }

    fn types(&self, exprs: &[Expr]) -> Result<Vec<Type>> {
        exprs.iter().map(|e| self.ty(e)).collect()
    }

    fn ty(&self, expr: &Expr) -> Result<Type> {
        match expr {
            Expr::Name(_) | Expr::Attribute(_) => match self.named(expr)? {
                Named::Type(ty) => Ok(ty),
                Named::Ctor(ctor) => {
                    Err(error(expr, format!("`{}` is a type constructor: write e.g. `{}`", dotted(expr), ctor.usage())))
                }
            },
            Expr::Subscript(sub) => {
                let dtype = self.element_type(&sub.value)?;
                let (ndim, layout) = array_spec(&sub.slice)?;
                Ok(Type::array(dtype, ndim, layout))
            }
            Expr::Call(call) => match self.constructor(&call.func) {
                Some(ctor) => self.construct(ctor, call),
                None => {
                    self.ty(&call.func)?;
                    Err(error(expr, "expected a type, found a signature"))
                }
            },
            _ => Err(error(expr, format!("expected a Numba type, found {}", describe(expr)))),
        }
    }

    /// What a name or dotted name denotes, or an error naming it.
    fn named(&self, expr: &Expr) -> Result<Named> {
        let resolved = (self.resolve)(expr);
        let record = resolved
            .as_deref()
            .and_then(|n| n.strip_prefix(RECORD_PLACEHOLDER))
            .and_then(|n| n.trim_end_matches('_').parse::<usize>().ok())
            .and_then(|n| self.records.get(n));
        if let Some(record) = record {
            return Ok(Named::Type(record.clone()));
        }
        if let Some(named) = resolved.as_deref().and_then(named) {
            return Ok(named);
        }
        if let Some(name) = resolved.filter(|n| UNSUPPORTED.contains(&n.as_str())) {
            return Err(error(expr, format!("the Numba type `{name}` is not supported by kernlint")));
        }
        let written = dotted(expr);
        let numba_spelling = match written.as_str() {
            "int" => Some("int64"),
            "float" => Some("float64"),
            "complex" => Some("complex128"),
            _ => None,
        };
        if let Some(numba) = numba_spelling {
            return Err(error(expr, format!("Python's `{written}` is not a Numba type: write `{numba}`")));
        }
        let last = written.rsplit('.').next().unwrap_or(&written);
        let mut message = format!("unknown type `{written}` in signature");
        let closest = SUGGESTIONS.iter().map(|s| (edit_distance(last, s), s)).min_by_key(|&(d, _)| d);
        if let Some((_, suggestion)) = closest.filter(|&(d, _)| d <= 2 && d < last.len()) {
            message += &format!("; did you mean `{suggestion}`?");
        }
        Err(error(expr, message))
    }

    fn constructor(&self, func: &Expr) -> Option<Ctor> {
        match (self.resolve)(func).as_deref().and_then(named)? {
            Named::Ctor(ctor) => Some(ctor),
            Named::Type(_) => None,
        }
    }

    /// An array element type: Numba rejects arrays of arrays, and kernlint models arrays of
    /// scalars and records only.
    fn element_type(&self, expr: &Expr) -> Result<Type> {
        let ty = self.ty(expr)?;
        match ty {
            Type::Scalar(_) | Type::Record(_) => Ok(ty),
            _ => Err(error(expr, format!("`{ty}` cannot be an array element type: use a scalar or record type"))),
        }
    }

    fn construct(&self, ctor: Ctor, call: &ast::ExprCall) -> Result<Type> {
        let name = dotted(&call.func);
        // `Tuple(int32, float64)`: Numba's `Tuple` takes one iterable of types.
        if matches!(ctor, Ctor::Tuple) && call.arguments.args.len() > 1 {
            return Err(error(
                call,
                format!(
                    "`{name}` takes one argument, a tuple of types: write `{name}((int32, float64))`, \
                     not `{name}(int32, float64)`"
                ),
            ));
        }
        let (required, optional) = bind(ctor, &name, call)?;
        Ok(match ctor {
            Ctor::Array => {
                let dtype = self.element_type(required[0])?;
                let ndim = uint_arg(required[1], "ndim")?;
                let ndim = u8::try_from(ndim).map_err(|_| error(required[1], "too many dimensions"))?;
                let layout = layout_arg(required[2])?;
                let readonly = optional[0].map(bool_arg).transpose()?.unwrap_or(false);
                Type::Array { dtype: Box::new(dtype), ndim, layout, readonly }
            }
            Ctor::UniTuple => {
                let dtype = self.ty(required[0])?;
                let count = uint_arg(required[1], "count")?;
                let count = usize::try_from(count).map_err(|_| error(required[1], "`count` is too large"))?;
                Type::UniTuple(Box::new(dtype), count)
            }
            Ctor::Tuple => match required[0] {
                Expr::Tuple(ast::ExprTuple { elts, .. }) | Expr::List(ast::ExprList { elts, .. }) => {
                    Type::tuple(self.types(elts)?)
                }
                other => {
                    return Err(error(
                        other,
                        format!("`{name}` takes a tuple of types: write `{name}((int32, float64))`"),
                    ));
                }
            },
            Ctor::Optional => match self.ty(required[0])? {
                ty @ (Type::None | Type::Optional(_)) => {
                    return Err(error(required[0], format!("`{ty}` cannot be made optional")));
                }
                ty => Type::Optional(Box::new(ty)),
            },
        })
    }
}

/// Binds a constructor call's arguments to its parameters as Python would: positional
/// arguments first, then keywords, at most once each. Returns the required arguments and
/// the optional ones (`None` where not given).
fn bind<'e>(ctor: Ctor, name: &str, call: &'e ast::ExprCall) -> Result<(Vec<&'e Expr>, Vec<Option<&'e Expr>>)> {
    let params = ctor.params();
    let mut bound = vec![None; params.len()];
    let arguments = &call.arguments;
    for (i, arg) in arguments.args.iter().enumerate() {
        if arg.is_starred_expr() {
            return Err(error(arg, "`*` arguments are not supported in signatures"));
        }
        match bound.get_mut(i) {
            Some(slot) => *slot = Some(arg),
            None => return Err(error(arg, format!("`{name}` takes at most {} arguments", params.len()))),
        }
    }
    for keyword in &arguments.keywords {
        let Some(arg) = &keyword.arg else {
            return Err(error(keyword, "`**` arguments are not supported in signatures"));
        };
        let Some(i) = params.iter().position(|p| *p == arg.as_str()) else {
            return Err(error(
                keyword,
                format!("`{name}` has no argument `{arg}` (its arguments: {})", params.join(", ")),
            ));
        };
        if bound[i].replace(&keyword.value).is_some() {
            return Err(error(keyword, format!("`{name}` got argument `{arg}` twice")));
        }
    }
    let (required, optional) = bound.split_at(ctor.required());
    match required.iter().copied().collect::<Option<Vec<_>>>() {
        Some(required) => Ok((required, optional.to_vec())),
        None => {
            let missing = params[required.iter().take_while(|a| a.is_some()).count()];
            Err(error(call, format!("`{name}` is missing its `{missing}` argument: write e.g. `{}`", ctor.usage())))
        }
    }
}

fn uint_arg(expr: &Expr, what: &str) -> Result<u64> {
    match expr {
        Expr::NumberLiteral(ast::ExprNumberLiteral { value: Number::Int(int), .. }) => {
            int.as_u64().ok_or_else(|| error(expr, format!("`{what}` is too large")))
        }
        _ => Err(error(expr, format!("`{what}` must be a non-negative integer literal"))),
    }
}

fn layout_arg(expr: &Expr) -> Result<Layout> {
    let Expr::StringLiteral(s) = expr else {
        return Err(error(expr, "the layout must be a string: 'C', 'F' or 'A'"));
    };
    match s.value.to_str() {
        "C" => Ok(Layout::C),
        "F" => Ok(Layout::F),
        "A" => Ok(Layout::A),
        other @ ("CS" | "FS") => Err(error(expr, format!("layout '{other}' is not supported by kernlint"))),
        other => Err(error(expr, format!("invalid layout '{other}': use 'C', 'F' or 'A'"))),
    }
}

fn bool_arg(expr: &Expr) -> Result<bool> {
    match expr {
        Expr::BooleanLiteral(b) => Ok(b.value),
        _ => Err(error(expr, "`readonly` must be True or False")),
    }
}

/// The dimension count and layout of `dtype[index]`, by Numba's rule
/// (`Type._determine_array_spec`): a lone slice is `C` with step 1, else `A`; a tuple of
/// slices is `F` if the first has step 1, else `C` if the last has, else `A`. So
/// `float32[::1, ::1]` is 2-D `F`, and even `float32[::1,]` is 1-D `F`.
fn array_spec(index: &Expr) -> Result<(u8, Layout)> {
    match index {
        Expr::Slice(slice) => Ok((1, if unit_step(slice)? { Layout::C } else { Layout::A })),
        Expr::Tuple(tuple) if !tuple.elts.is_empty() => {
            let unit = tuple
                .elts
                .iter()
                .map(|e| match e {
                    Expr::Slice(slice) => unit_step(slice),
                    other => Err(bad_index(other)),
                })
                .collect::<Result<Vec<bool>>>()?;
            let ndim = u8::try_from(unit.len()).map_err(|_| error(index, "too many dimensions"))?;
            let layout = match (unit.first(), unit.last()) {
                (Some(true), _) => Layout::F,
                (_, Some(true)) => Layout::C,
                _ => Layout::A,
            };
            Ok((ndim, layout))
        }
        other => Err(bad_index(other)),
    }
}

/// Whether a slice in an array type has step 1; any other integer step is allowed (and
/// means "not contiguous"), as in Numba.
fn unit_step(slice: &ast::ExprSlice) -> Result<bool> {
    if slice.lower.is_some() || slice.upper.is_some() {
        return Err(error(slice, "a slice in an array type takes no start or stop: write `:` or `::1`"));
    }
    let Some(step) = &slice.step else { return Ok(false) };
    match &**step {
        Expr::NumberLiteral(ast::ExprNumberLiteral { value: Number::Int(int), .. }) => Ok(int.as_u64() == Some(1)),
        Expr::UnaryOp(ast::ExprUnaryOp { op: ast::UnaryOp::USub, operand, .. })
            if operand.as_number_literal_expr().is_some_and(|n| n.value.is_int()) =>
        {
            Ok(false)
        }
        other => {
            Err(error(other, "the step of an array type slice must be an integer: `::1` marks the contiguous axis"))
        }
    }
}

fn bad_index(expr: &Expr) -> SignatureError {
    error(expr, "array types are written with bare slices: `float32[:]`, `float32[::1]`, `float32[:, ::1]`")
}

/// A name or dotted name as written (`types.float32`).
fn dotted(expr: &Expr) -> String {
    match expr {
        Expr::Name(name) => name.id.to_string(),
        Expr::Attribute(attr) => format!("{}.{}", dotted(&attr.value), attr.attr),
        _ => "(...)".to_string(),
    }
}

/// A few words on what an expression is, for "expected a type, found ...".
fn describe(expr: &Expr) -> &'static str {
    match expr {
        Expr::NumberLiteral(_) => "a number",
        Expr::StringLiteral(_) => "a string",
        Expr::BooleanLiteral(_) => "a boolean",
        Expr::NoneLiteral(_) => "`None` (the type is spelled `none`)",
        Expr::Tuple(_) => "a tuple (write `UniTuple(int32, 2)` or `Tuple((int32, float64))`)",
        Expr::List(_) => "a list",
        Expr::Slice(_) => "a slice",
        Expr::Starred(_) => "a `*` expression",
        _ => "an expression",
    }
}

/// Levenshtein distance between two short ASCII names (for "did you mean" suggestions).
pub(crate) fn edit_distance(a: &str, b: &str) -> usize {
    let b: Vec<char> = b.chars().collect();
    let mut row: Vec<usize> = (0..=b.len()).collect();
    for (i, ca) in a.chars().enumerate() {
        let mut diagonal = row[0];
        row[0] = i + 1;
        for (j, cb) in b.iter().enumerate() {
            let above = row[j + 1];
            row[j + 1] = (above + 1).min(row[j] + 1).min(diagonal + usize::from(ca != *cb));
            diagonal = above;
        }
    }
    row[b.len()]
}

#[cfg(test)]
mod tests {
    use super::*;
    use ruff_python_parser::parse_module;

    fn sig(src: &str) -> Signature {
        parse_signature_str(src).unwrap_or_else(|e| panic!("{src}: {e}"))
    }

    fn ty(src: &str) -> String {
        parse_type_str(src).unwrap_or_else(|e| panic!("{src}: {e}")).to_string()
    }

    /// The error for `src`, with the text its range covers.
    fn sig_err(src: &str) -> (String, &str) {
        let e = parse_signature_str(src).expect_err(src);
        (e.message, &src[e.range])
    }

    fn type_err(src: &str) -> (String, &str) {
        let e = parse_type_str(src).expect_err(src);
        (e.message, &src[e.range])
    }

    /// Every type the signature parser builds, nested up to `depth` constructors deep.
    fn parsable_types(depth: usize) -> Vec<Type> {
        let mut out: Vec<Type> = Scalar::ALL.iter().map(|s| Type::Scalar(*s)).collect();
        out.push(Type::xoroshiro128p_state());
        out.push(particle());
        for dtype in Scalar::ALL.iter().map(|s| Type::Scalar(*s)).chain([Type::xoroshiro128p_state(), particle()]) {
            for (ndim, layout, readonly) in [(0, Layout::C, false), (1, Layout::C, false), (2, Layout::F, true), (3, Layout::A, false)] {
                out.push(Type::Array { dtype: Box::new(dtype.clone()), ndim, layout, readonly });
            }
        }
        if depth > 0 {
            let inner = parsable_types(depth - 1);
            for t in inner.iter().step_by(3) {
                out.push(Type::UniTuple(Box::new(t.clone()), 0));
                out.push(Type::UniTuple(Box::new(t.clone()), 3));
                out.push(Type::tuple(vec![t.clone(), Type::Scalar(Scalar::I32)]));
                // Numba rejects `optional(optional(x))`.
                if !matches!(t, Type::Optional(_)) {
                    out.push(Type::Optional(Box::new(t.clone())));
                }
            }
            out.push(Type::tuple(Vec::new()));
        }
        out
    }

    /// `numba.from_dtype(np.dtype([("x", np.float32), ("y", np.float32), ("id", np.int32)]))`.
    fn particle() -> Type {
        let field = |name: &str, ty, offset| RecordField { name: name.to_string(), ty: Type::Scalar(ty), offset, shape: Vec::new() };
        let fields = vec![field("x", Scalar::F32, 0), field("y", Scalar::F32, 4), field("id", Scalar::I32, 8)];
        Type::Record(Record { fields, size: 12, aligned: false })
    }

    #[test]
    fn numba_record_text_parses() {
        // As Numba prints `from_dtype(particle)[:]` and `from_dtype(particle)`.
        let printed = "Record(x[type=float32;offset=0],y[type=float32;offset=4],id[type=int32;offset=8];12;False)";
        assert_eq!(parse_type_str(printed), Ok(particle()));
        assert_eq!(ty(printed), printed);
        assert_eq!(ty(&format!("{printed}[:]")), format!("unaligned array({printed}, 1d, A)"));
        let s = sig(&format!("void({printed}[:, ::1], float32, {printed})"));
        assert_eq!(s.args[0], Type::array(particle(), 2, Layout::C));
        assert_eq!(s.args[2], particle());
        let aligned = parse_type_str("Record(a[type=int8;offset=0],b[type=float64;offset=8];16;True)");
        assert!(matches!(aligned, Ok(Type::Record(Record { aligned: true, size: 16, .. }))));
        // Errors point at the record, in the original text.
        // Array fields, as Numba prints them.
        let nested = "Record(v[type=nestedarray(float32, (3,));offset=0],n[type=int32;offset=12],m[type=nestedarray(int16, (2, 3));offset=16];28;False)";
        let Ok(Type::Record(r)) = parse_type_str(nested) else { panic!("{nested}") };
        assert_eq!((r.fields[0].shape.clone(), r.fields[2].shape.clone(), r.fields[2].size()), (vec![3], vec![2, 3], 12));
        assert_eq!(ty(nested), nested);
        // Records nested in records, as Numba prints them.
        let outer = "Record(v[type=Record(x[type=float32;offset=0],y[type=int16;offset=4];6;False);offset=0],n[type=int32;offset=8];12;False)";
        let Ok(Type::Record(r)) = parse_type_str(outer) else { panic!("{outer}") };
        assert_eq!((r.fields[0].size(), r.fields[0].misaligned()), (6, false));
        assert_eq!(ty(outer), outer);
        let (message, at) = type_err("Record(v[type=Record(x[type=float32;offset=0];4;False);offset=6],n[type=int32;offset=0];8;False)[:]");
        assert!(message.contains("the field `v` ends past the record's size, 8"), "{message}");
        assert!(at.starts_with("Record(v[") && at.ends_with("False)"), "{at}");
        let (message, _) = type_err("Record(v[type=nestedarray(float32, (0,));offset=0];4;False)");
        assert!(message.contains("expected `nestedarray(scalar or Record(...), (n, ...))` for the field `v`"), "{message}");
        let (message, _) = type_err("Record(v[type=nestedarray(float32, (4,));offset=0];12;False)");
        assert!(message.contains("the field `v` ends past the record's size, 12"), "{message}");
        let (message, _) = type_err("Record(x[type=float32;offset=10];12;False)");
        assert!(message.contains("the field `x` ends past the record's size, 12"), "{message}");
        let (message, _) = type_err("Record(x[type=float32;offset=0];12");
        assert!(message.contains("`Record(` is never closed"), "{message}");
    }

    #[test]
    fn numba_text_round_trips() {
        let types = parsable_types(2);
        let signatures = types.iter().flat_map(|t| {
            [
                Signature { ret: Some(Type::None), args: vec![t.clone(), Type::Scalar(Scalar::F32)] },
                Signature { ret: None, args: vec![t.clone()] },
                Signature { ret: Some(t.clone()), args: Vec::new() },
            ]
        });
        for sig in signatures.chain([Signature { ret: None, args: Vec::new() }]) {
            let Some(text) = sig.numba_text() else { panic!("{sig} has no text") };
            let parsed = parse_signature_str(&text).unwrap_or_else(|e| panic!("{text}: {e}"));
            assert_eq!(parsed, sig, "{text}");
        }
        let literal = Signature { ret: None, args: vec![Type::IntLiteral(1)] };
        assert_eq!(literal.numba_text(), None);
    }

    #[test]
    fn kernel_signature() {
        let s = sig("void(float32[:], int32)");
        assert_eq!(s.ret, Some(Type::None));
        assert_eq!(s.args, vec![Type::array(Scalar::F32.into(), 1, Layout::A), Type::Scalar(Scalar::I32)]);
        assert_eq!(s.to_string(), "(array(float32, 1d, A), int32) -> none");
    }

    #[test]
    fn device_function_signature() {
        assert_eq!(sig("float32(float32, float32)").to_string(), "(float32, float32) -> float32");
        assert_eq!(sig("none(int64)").to_string(), "(int64,) -> none");
        assert_eq!(sig("void()").to_string(), "() -> none");
        assert_eq!(sig("UniTuple(float32, 2)(float32)").to_string(), "(float32,) -> UniTuple(float32 x 2)");
        assert_eq!(sig("float32[::1](int32)").to_string(), "(int32,) -> array(float32, 1d, C)");
    }

    #[test]
    fn argument_tuple_signature() {
        let s = sig("(int32, float64[:])");
        assert_eq!(s.ret, None);
        assert_eq!(s.to_string(), "(int32, array(float64, 1d, A)) -> ?");
        assert_eq!(sig("(int32,)").to_string(), "(int32,) -> ?");
        assert_eq!(sig("()").args, vec![]);
    }

    #[test]
    fn whitespace_is_ignored() {
        assert_eq!(sig("  void(float32[::1],\n     int32)  ").args.len(), 2);
    }

    #[test]
    fn array_layouts() {
        let cases = [
            ("float32[:]", "array(float32, 1d, A)"),
            ("float32[:, :]", "array(float32, 2d, A)"),
            ("float32[:,:,:]", "array(float32, 3d, A)"),
            ("float32[::1]", "array(float32, 1d, C)"),
            ("float32[:, ::1]", "array(float32, 2d, C)"),
            ("float32[:, :, ::1]", "array(float32, 3d, C)"),
            ("float32[::1, :]", "array(float32, 2d, F)"),
            ("float32[::1, ::1]", "array(float32, 2d, F)"),
            ("float32[::1,]", "array(float32, 1d, F)"),
            ("float32[::2]", "array(float32, 1d, A)"),
            ("float32[::-1]", "array(float32, 1d, A)"),
            ("boolean[:]", "array(bool, 1d, A)"),
            ("uint8[:, :]", "array(uint8, 2d, A)"),
            ("intp[::1]", "array(int64, 1d, C)"),
            ("f8[:]", "array(float64, 1d, A)"),
        ];
        for (src, expected) in cases {
            assert_eq!(ty(src), expected, "{src}");
        }
    }

    #[test]
    fn scalar_names() {
        assert_eq!(ty("intp"), "int64");
        assert_eq!(ty("b1"), "bool");
        assert_eq!(ty("c16"), "complex128");
        assert_eq!(ty("bfloat16"), "__nv_bfloat16");
        assert_eq!(ty("void"), "none");
    }

    #[test]
    fn array_constructor() {
        assert_eq!(ty("Array(float32, 2, 'C')"), "array(float32, 2d, C)");
        assert_eq!(ty("Array(float32, 2, 'C', readonly=True)"), "readonly array(float32, 2d, C)");
        assert_eq!(ty("Array(float32, 1, 'F', False)"), "array(float32, 1d, F)");
        assert_eq!(ty("Array(layout='A', ndim=3, dtype=int16)"), "array(int16, 3d, A)");
    }

    #[test]
    fn tuple_constructors() {
        assert_eq!(ty("UniTuple(int32, 3)"), "UniTuple(int32 x 3)");
        assert_eq!(ty("Tuple((int32, float64))"), "Tuple(int32, float64)");
        assert_eq!(ty("Tuple([int32, float64[:]])"), "Tuple(int32, array(float64, 1d, A))");
        // Numba canonicalises a tuple of equal types.
        assert_eq!(ty("Tuple((int64, int64))"), "UniTuple(int64 x 2)");
        assert_eq!(ty("Tuple(())"), "Tuple()");
    }

    #[test]
    fn optional_constructor() {
        assert_eq!(ty("optional(int32)"), "OptionalType(int32)");
        assert_eq!(ty("Optional(float32[:])"), "OptionalType(array(float32, 1d, A))");
        let (message, at) = type_err("optional(none)");
        assert_eq!(message, "`none` cannot be made optional");
        assert_eq!(at, "none");
    }

    #[test]
    fn xoroshiro_state_array() {
        let s = sig("void(int32[::1], xoroshiro128p_type[::1], int32)");
        assert_eq!(
            s.args[1].to_string(),
            "array(Record(s0[type=uint64;offset=0],s1[type=uint64;offset=8];16;True), 1d, C)"
        );
    }

    #[test]
    fn unknown_name() {
        let (message, at) = sig_err("void(flaot32[:], int32)");
        assert_eq!(message, "unknown type `flaot32` in signature; did you mean `float32`?");
        assert_eq!(at, "flaot32");
        let (message, at) = sig_err("void(int32, widget)");
        assert_eq!(message, "unknown type `widget` in signature");
        assert_eq!(at, "widget");
    }

    #[test]
    fn attributes_are_not_in_the_string_namespace() {
        let (message, at) = sig_err("void(types.float32[:])");
        assert_eq!(message, "unknown type `types.float32` in signature; did you mean `float32`?");
        assert_eq!(at, "types.float32");
    }

    #[test]
    fn numpy_one_aliases_are_unknown() {
        assert!(sig_err("void(float_)").0.starts_with("unknown type `float_`"));
    }

    #[test]
    fn unsupported_numba_type() {
        let (message, at) = sig_err("void(CPointer(float32))");
        assert_eq!(message, "the Numba type `CPointer` is not supported by kernlint");
        assert_eq!(at, "CPointer");
    }

    #[test]
    fn spread_tuple_arguments() {
        let (message, at) = sig_err("void(Tuple(int32, float64))");
        assert!(message.contains("write `Tuple((int32, float64))`"), "{message}");
        assert_eq!(at, "Tuple(int32, float64)");
        let (message, at) = type_err("Tuple(int32)");
        assert!(message.contains("takes a tuple of types"), "{message}");
        assert_eq!(at, "int32");
    }

    #[test]
    fn syntax_error() {
        let e = parse_signature_str("void(float32[:]").unwrap_err();
        assert!(e.message.starts_with("invalid signature syntax: "), "{}", e.message);
    }

    #[test]
    fn a_type_is_not_a_signature() {
        let (message, at) = sig_err("int32");
        assert!(message.starts_with("expected a signature, found the type `int32`"), "{message}");
        assert_eq!(at, "int32");
        // Parentheses alone do not make a tuple.
        assert!(sig_err("(float32[:])").0.starts_with("expected a signature"));
        assert!(sig_err("Array(float32, 1, 'C')").0.starts_with("expected a signature"));
    }

    #[test]
    fn a_signature_is_not_a_type() {
        let (message, at) = type_err("void(int32)");
        assert_eq!(message, "expected a type, found a signature");
        assert_eq!(at, "void(int32)");
    }

    #[test]
    fn bad_arguments() {
        let cases = [
            ("void(1)", "expected a Numba type, found a number", "1"),
            ("void('float32')", "expected a Numba type, found a string", "'float32'"),
            ("void(None)", "expected a Numba type, found `None` (the type is spelled `none`)", "None"),
            ("void(x=int32)", "a signature takes no keyword arguments", "x=int32"),
            ("void(Array)", "`Array` is a type constructor: write e.g. `Array(float32, 2, 'C')`", "Array"),
        ];
        for (src, message, at) in cases {
            assert_eq!(sig_err(src), (message.to_string(), at), "{src}");
        }
    }

    #[test]
    fn bad_arrays() {
        let cases = [
            ("float32[1:]", "a slice in an array type takes no start or stop: write `:` or `::1`", "1:"),
            (
                "float32[3]",
                "array types are written with bare slices: `float32[:]`, `float32[::1]`, `float32[:, ::1]`",
                "3",
            ),
            (
                "float32[:, 0]",
                "array types are written with bare slices: `float32[:]`, `float32[::1]`, `float32[:, ::1]`",
                "0",
            ),
            (
                "float32[::n]",
                "the step of an array type slice must be an integer: `::1` marks the contiguous axis",
                "n",
            ),
            (
                "float32[:][:]",
                "`array(float32, 1d, A)` cannot be an array element type: use a scalar or record type",
                "float32[:]",
            ),
            ("Array(float32, 2, 'X')", "invalid layout 'X': use 'C', 'F' or 'A'", "'X'"),
            ("Array(float32, 2, 'CS')", "layout 'CS' is not supported by kernlint", "'CS'"),
            ("Array(float32, 2, C)", "the layout must be a string: 'C', 'F' or 'A'", "C"),
            ("Array(float32, -1, 'C')", "`ndim` must be a non-negative integer literal", "-1"),
            ("Array(float32, 1, 'C', readonly=1)", "`readonly` must be True or False", "1"),
            (
                "Array(float32, 1)",
                "`Array` is missing its `layout` argument: write e.g. `Array(float32, 2, 'C')`",
                "Array(float32, 1)",
            ),
            ("Array(float32, 1, 'C', True, 0)", "`Array` takes at most 4 arguments", "0"),
            (
                "Array(float32, 1, 'C', aligned=False)",
                "`Array` has no argument `aligned` (its arguments: dtype, ndim, layout, readonly)",
                "aligned=False",
            ),
            ("Array(float32, 1, 'C', ndim=2)", "`Array` got argument `ndim` twice", "ndim=2"),
            (
                "UniTuple(int32)",
                "`UniTuple` is missing its `count` argument: write e.g. `UniTuple(int32, 3)`",
                "UniTuple(int32)",
            ),
        ];
        for (src, message, at) in cases {
            assert_eq!(type_err(src), (message.to_string(), at), "{src}");
        }
    }

    /// Resolves `types.X`, `numba.X`, `numba.types.X` and the bare names in `imported`,
    /// as a caller with name resolution would.
    fn resolver(expr: &Expr) -> Option<String> {
        let path = dotted(expr);
        let name = path
            .strip_prefix("numba.types.")
            .or_else(|| path.strip_prefix("types."))
            .or_else(|| path.strip_prefix("numba."))
            .or_else(|| ["void", "float32", "int32"].contains(&path.as_str()).then_some(path.as_str()))?;
        Some(name.to_string())
    }

    /// The decorator argument of `@cuda.jit(...)` in `src`.
    fn with_decorator_arg<T>(src: &str, f: impl FnOnce(&Expr) -> T) -> T {
        let parsed = parse_module(src).expect("valid Python");
        let ast::Stmt::FunctionDef(def) = &parsed.syntax().body[0] else { panic!("not a def") };
        let call = def.decorator_list[0].expression.as_call_expr().expect("a call");
        f(&call.arguments.args[0])
    }

    #[test]
    fn signature_objects() {
        let src = "@cuda.jit(types.void(types.float32[:, ::1], numba.int32, numba.types.UniTuple(types.int64, 2)))\ndef k(a, n, t): pass\n";
        let s = with_decorator_arg(src, |e| parse_signature_expr(e, &resolver)).unwrap();
        assert_eq!(s.to_string(), "(array(float32, 2d, C), int32, UniTuple(int64 x 2)) -> none");
        let src = "@cuda.jit(void(float32[::1], int32))\ndef k(a, n): pass\n";
        let s = with_decorator_arg(src, |e| parse_signature_expr(e, &resolver)).unwrap();
        assert_eq!(s.to_string(), "(array(float32, 1d, C), int32) -> none");
    }

    #[test]
    fn signature_object_errors_use_expression_ranges() {
        let src = "@cuda.jit(types.void(np.float32[:]))\ndef k(a): pass\n";
        let e = with_decorator_arg(src, |e| parse_signature_expr(e, &resolver)).unwrap_err();
        assert_eq!(e.message, "unknown type `np.float32` in signature; did you mean `float32`?");
        assert_eq!(&src[e.range], "np.float32");
    }

    #[test]
    fn type_objects() {
        let src = "@cuda.jit(types.Array(types.float32, 2, 'C', readonly=True))\ndef k(a): pass\n";
        let t = with_decorator_arg(src, |e| parse_type_expr(e, &resolver)).unwrap();
        assert_eq!(t.to_string(), "readonly array(float32, 2d, C)");
    }

    #[test]
    fn error_display_and_serialization() {
        let e = parse_type_str("flaot32").unwrap_err();
        assert_eq!(e.to_string(), e.message);
        let json = serde_json::to_value(&e).unwrap();
        assert_eq!(json["message"], e.message);
        let s = serde_json::to_value(sig("void(int32)")).unwrap();
        assert_eq!(s["args"][0], serde_json::json!({"Scalar": "I32"}));
    }

    #[test]
    fn edit_distances() {
        assert_eq!(edit_distance("flaot32", "float32"), 2);
        assert_eq!(edit_distance("int", "int32"), 2);
        assert_eq!(edit_distance("", "abc"), 3);
        assert_eq!(edit_distance("same", "same"), 0);
    }
}
