//! Module-level names: imports, aliases and constants, as position-free facts.

use std::collections::BTreeMap;

use ruff_python_ast::{self as ast, Expr, Stmt};

use super::resolve::{NameLookup, const_eval, qualified_path};
use super::signature::{Signature, parse_signature_expr, parse_signature_str};
use super::syntax::parse_module;
use super::types::Scalar;
use super::{Db, SourceFile};

/// A compile-time value, as Numba freezes globals and closure cells.
#[derive(Clone, Debug, PartialEq)]
pub enum ConstValue {
    Int(i128),
    Float(f64),
    Bool(bool),
    Str(String),
    /// A complex number: (real, imaginary).
    Complex(f64, f64),
    None,
    Tuple(Vec<ConstValue>),
    /// `np.float32(0.5)`: a NumPy scalar, typed by its dtype (not a literal).
    /// The value is the Python number converted (`np.float32(0.1)`: 0.1, rounded when used).
    NumpyScalar(Scalar, Box<ConstValue>),
    /// A module-level NumPy array (captured into constant memory).
    HostArray,
}

// Floats compare by value; a NaN constant merely defeats salsa's backdating.
impl Eq for ConstValue {}

impl ConstValue {
    pub fn as_int(&self) -> Option<i128> {
        match self {
            ConstValue::Int(v) => Some(*v),
            ConstValue::Bool(b) => Some(*b as i128),
            _ => None,
        }
    }

    /// Whether Numba types this value as an integer literal (what shape arguments need).
    pub fn is_int_literal_shape(&self) -> bool {
        match self {
            ConstValue::Int(_) => true,
            ConstValue::Tuple(items) => items.iter().all(|v| matches!(v, ConstValue::Int(_))),
            _ => false,
        }
    }
}

/// What a module-level name is bound to.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Binding {
    /// A dotted path into an imported module, e.g. `numba.cuda` or `numba.cuda.jit`.
    Path(String),
    Const(ConstValue),
    /// A function or class defined in this module.
    Definition,
    /// A class deriving from `Enum` or `IntEnum` (`enum.Enum`, ...).
    Enum(EnumClass),
    /// A `collections.namedtuple(...)` or `typing.NamedTuple` class.
    NamedTupleClass(NamedTupleClass),
    /// An instance of a named tuple class made at import from constants
    /// (`P = Params(1.0, 2.0)`): the class and the members in field order.
    NamedTupleValue(NamedTupleClass, Vec<ConstValue>),
    /// `cuda.declare_device("name", "int32(int32)")`: a device function linked in from
    /// CUDA C/C++ or PTX, known by its declared signature.
    External(String, Signature),
    /// A dict literal whose keys are constants (`_DEFAULTS = {"TPB": 512, ...}`): each key
    /// with its value where that is a constant. Host code reads constants from it (`TPB =
    /// _DEFAULTS["TPB"]`); a kernel cannot use it (Numba cannot type a dict).
    Dict(Vec<(ConstValue, Option<ConstValue>)>),
    /// A module-level function of this file: a factory's parameter given one at the factory's
    /// calls in the module (`make_kernel(user_field)`), an alias of that parameter, or a JIT
    /// wrap of it (`cuda.jit(func, device=True)`; then `true`). A call through the name calls
    /// the function: a wrap always, the parameter itself when the function is a GPU function
    /// of its own (decorated, or rebound by a wrap at module level), as Numba types it.
    Function(String, bool),
    /// A bytes object (`CHARSET = b"abc"`), for host code: `len(CHARSET)`,
    /// `np.frombuffer(CHARSET, ...)`.
    Bytes(Vec<u8>),
    /// A `cuda.jit(...)` decorator held by a name (`FAST = cuda.jit(fastmath=True)`), which
    /// `@FAST` applies as written there.
    Decorator(super::kernels::JitSpec),
    /// Anything else (assigned a value we do not model).
    Other,
}

/// An `Enum`/`IntEnum` class: its members with their values, when every member is an
/// integer constant (what Numba types as `Enum<int64>`), or every member of an `Enum` a
/// float one (`Enum<float64>`); `None` for any other class (a `Flag`, string or mixed
/// values), which kernlint does not model.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct EnumClass {
    /// The class's own name, which Numba prints in its types (`IntEnum<int64>(Mode)`) however
    /// it is imported.
    pub name: String,
    pub int: bool,
    /// Each value a `ConstValue::Int`, or each a `ConstValue::Float`.
    pub members: Option<Vec<(String, ConstValue)>>,
}

impl EnumClass {
    /// The type of the members' values: Numba's `Enum<float64>` or `Enum<int64>`.
    pub fn value_type(&self) -> Scalar {
        match self.members.as_deref() {
            Some([(_, ConstValue::Float(_)), ..]) => Scalar::F64,
            _ => Scalar::I64,
        }
    }

    /// The value of the member `name`, if the class has one (and members kernlint models).
    pub fn member(&self, name: &str) -> Option<&ConstValue> {
        self.members.as_ref()?.iter().find(|(m, _)| m == name).map(|(_, v)| v)
    }

    /// The type Numba gives a member: `IntEnum<int64>(Mode)`, `Enum<float64>(Color)`.
    pub fn member_type(&self) -> super::types::Type {
        super::types::Type::Enum { class: self.name.clone(), int: self.int, value: self.value_type() }
    }
}

/// A named tuple class: its own name, which Numba prints in its types (`Params(float64 x
/// 2)`), and its fields in order.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct NamedTupleClass {
    pub name: String,
    pub fields: Vec<String>,
}

impl NamedTupleClass {
    /// The type of an instance with members of these types.
    pub fn instance_type(&self, items: Vec<super::types::Type>) -> super::types::Type {
        super::types::Type::NamedTuple { class: self.name.clone(), fields: self.fields.clone(), items }
    }

    /// The arguments of a call of the class bound to its fields: for each field, the
    /// argument that gives it (`keywords` are the names of the call's keyword arguments, in
    /// order). An error says what is wrong as Python's `TypeError` does.
    pub fn bind_arguments(&self, positional: usize, keywords: &[&str]) -> Result<Vec<CallArgument>, String> {
        let fields: Vec<&str> = self.fields.iter().map(String::as_str).collect();
        let bound = bind_call_arguments(&self.name, &fields, 0, fields.len(), positional, keywords)?;
        fields
            .iter()
            .zip(bound)
            .map(|(field, given)| given.ok_or_else(|| format!("`{}` is missing the argument `{field}`", self.name)))
            .collect()
    }
}

/// The argument of a call that gives a parameter its value: the positional argument or the
/// keyword argument of this index.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum CallArgument {
    Positional(usize),
    Keyword(usize),
}

/// Binds a call's `positional` arguments and `keywords` to the parameters `params` as
/// Python does: in order, then by name. Only the first `by_position` parameters take a
/// positional argument, and the first `positional_only` of them no keyword. For each
/// parameter, the argument that gives it, or `None` (its default, or missing). An error says
/// what is wrong with the call of `callee` as Python's `TypeError` does.
pub fn bind_call_arguments(
    callee: &str,
    params: &[&str],
    positional_only: usize,
    by_position: usize,
    positional: usize,
    keywords: &[&str],
) -> Result<Vec<Option<CallArgument>>, String> {
    if positional > by_position {
        return Err(format!("`{callee}` takes {by_position} positional arguments but {positional} were given"));
    }
    let mut bound: Vec<Option<CallArgument>> = (0..params.len()).map(|i| (i < positional).then_some(CallArgument::Positional(i))).collect();
    for (j, keyword) in keywords.iter().enumerate() {
        let Some(at) = params.iter().skip(positional_only).position(|p| p == keyword) else {
            return Err(format!("`{callee}` got an unexpected keyword argument `{keyword}`"));
        };
        let at = at + positional_only;
        if bound[at].is_some() {
            return Err(format!("`{callee}` got multiple values for argument `{keyword}`"));
        }
        bound[at] = Some(CallArgument::Keyword(j));
    }
    Ok(bound)
}

/// `namedtuple("Params", ["x", "y"])` (also `"x y"`, `"x, y"`, a tuple of names): the class
/// it makes. `None` for any other call, or fields kernlint cannot read (a `rename=` or
/// `defaults=` keyword, names that are not constants).
fn namedtuple_call(value: &Expr, lookup: &dyn NameLookup) -> Option<NamedTupleClass> {
    let Expr::Call(call) = value else { return None };
    if qualified_path(&call.func, lookup)? != "collections.namedtuple" || !call.arguments.keywords.is_empty() {
        return None;
    }
    let [name, fields] = call.arguments.args.as_ref() else { return None };
    let ConstValue::Str(name) = const_eval(name, lookup)? else { return None };
    let fields = match fields {
        Expr::List(list) => list.elts.iter().map(|e| const_eval(e, lookup)).collect::<Option<Vec<_>>>().map(ConstValue::Tuple),
        other => const_eval(other, lookup),
    };
    let fields: Vec<String> = match fields? {
        ConstValue::Str(s) => s.replace(',', " ").split_whitespace().map(str::to_string).collect(),
        ConstValue::Tuple(items) => items.into_iter().map(|i| if let ConstValue::Str(s) = i { Some(s) } else { None }).collect::<Option<_>>()?,
        _ => return None,
    };
    Some(NamedTupleClass { name, fields })
}

/// The fields of a `class C(NamedTuple)` body: its annotated names, in order.
fn named_tuple_fields(body: &[Stmt]) -> Vec<String> {
    body.iter()
        .filter_map(|s| match s {
            Stmt::AnnAssign(a) => match &*a.target {
                Expr::Name(n) => Some(n.id.to_string()),
                _ => None,
            },
            _ => None,
        })
        .collect()
}

#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct ModuleScope {
    pub bindings: BTreeMap<String, Binding>,
    /// Modules imported with `from M import *`, in order.
    pub star_imports: Vec<String>,
    /// Dotted modules imported without a name of their own (`import pkg.cfg` binds `pkg`).
    pub dotted_imports: Vec<String>,
    /// Module-level names assigned the result of a call kernlint does not evaluate, with the
    /// callee as written (`W = scipy.signal.firwin(...)`: `scipy.signal.firwin`), or of one of
    /// the module's host functions it could not (bound as an array: only running it tells
    /// an array from a number), for the message at a kernel's use.
    pub calls: BTreeMap<String, String>,
}

impl ModuleScope {
    pub fn get(&self, name: &str) -> Option<&Binding> {
        self.bindings.get(name)
    }

    /// Why the module-level value `name` (bound as an array) has no value: `why`, for the
    /// result of a host function (which may be a number) or an array expression. `of` names
    /// the module where it is another one's (`` of `cfg.py` ``).
    pub fn unevaluated_value(&self, name: &str, of: &str, why: &str) -> String {
        match self.calls.get(name) {
            Some(f) => format!("cannot evaluate the global `{name}`{of}, the result of the host function `{f}(...)` at import: {why}"),
            None => format!("cannot evaluate the global array `{name}`{of}: {why}"),
        }
    }

    /// Whether the module mentions CUDA at all (cheap filter for host-only files).
    pub fn imports_cuda(&self) -> bool {
        self.bindings.values().any(|b| matches!(b, Binding::Path(p) if p.starts_with("numba")))
    }

    /// Add the bindings a statement makes (imports, assignments, definitions).
    /// Recurses into top-level `if`/`try` blocks, where guarded imports live.
    pub fn add_statement(&mut self, stmt: &Stmt) {
        self.add_statement_in(stmt, None);
    }

    /// [`Self::add_statement`] in a nested scope: values are folded with this scope's
    /// names first, then `outer`'s (a factory's `TPB = BLOCK * 2` reads the module's `BLOCK`).
    pub fn add_statement_in(&mut self, stmt: &Stmt, outer: Option<&dyn NameLookup>) {
        match stmt {
            Stmt::Import(import) => {
                for alias in &import.names {
                    let module = alias.name.as_str();
                    match &alias.asname {
                        Some(asname) => self.bind(asname.as_str(), Binding::Path(module.to_string())),
                        None => {
                            let top = module.split('.').next().unwrap_or(module);
                            self.bind(top, Binding::Path(top.to_string()));
                            if top != module {
                                self.dotted_imports.push(module.to_string());
                            }
                        }
                    }
                }
            }
            Stmt::ImportFrom(import) => {
                let module = format!(
                    "{}{}",
                    ".".repeat(import.level as usize),
                    import.module.as_ref().map(|m| m.as_str()).unwrap_or("")
                );
                for alias in &import.names {
                    if alias.name.as_str() == "*" {
                        self.star_imports.push(module.clone());
                        continue;
                    }
                    let bound = alias.asname.as_ref().unwrap_or(&alias.name).as_str();
                    self.bind(bound, Binding::Path(format!("{module}.{}", alias.name.as_str())));
                }
            }
            Stmt::Assign(assign) => {
                // `bpg, tpb = 50, 32`: each name gets its element.
                if let [Expr::Tuple(targets)] = assign.targets.as_slice()
                    && let Expr::Tuple(values) = &*assign.value
                    && targets.elts.len() == values.elts.len()
                {
                    let bindings: Vec<Binding> = values.elts.iter().map(|v| self.binding_of(v, outer)).collect();
                    for (target, binding) in targets.elts.iter().zip(bindings) {
                        self.bind_target(target, binding);
                    }
                    return;
                }
                let binding = self.binding_of(&assign.value, outer);
                for target in &assign.targets {
                    self.bind_target(target, binding.clone());
                }
            }
            Stmt::AnnAssign(assign) => {
                if let Some(value) = &assign.value {
                    let binding = self.binding_of(value, outer);
                    self.bind_target(&assign.target, binding);
                }
            }
            Stmt::AugAssign(assign) => self.bind_target(&assign.target, Binding::Other),
            // `del D["k"]`: the entry is gone.
            Stmt::Delete(delete) => {
                for target in &delete.targets {
                    if let Expr::Subscript(s) = target
                        && let Expr::Name(n) = &*s.value
                        && matches!(self.get(n.id.as_str()), Some(Binding::Dict(_)))
                    {
                        let key = const_eval(&s.slice, &Layered { inner: self, outer });
                        match (key, self.bindings.get_mut(n.id.as_str())) {
                            (Some(key), Some(Binding::Dict(entries))) => entries.retain(|(k, _)| !super::resolve::dict_keys_equal(k, &key)),
                            _ => self.bind(n.id.as_str(), Binding::Other),
                        }
                    } else {
                        self.bind_target(target, Binding::Other);
                    }
                }
            }
            // `D.update(...)`, `D.pop(k)`: a dict changed by a method is no longer known.
            Stmt::Expr(e)
                if let Expr::Call(call) = &*e.value
                    && let Expr::Attribute(attr) = &*call.func
                    && let Expr::Name(n) = &*attr.value
                    && matches!(self.get(n.id.as_str()), Some(Binding::Dict(_)))
                    && !matches!(attr.attr.as_str(), "get" | "keys" | "values" | "items" | "copy") =>
            {
                self.bind(n.id.as_str(), Binding::Other);
            }
            Stmt::FunctionDef(def) => self.bind(def.name.as_str(), Binding::Definition),
            Stmt::ClassDef(def) => {
                let base = def.bases().iter().find_map(|b| match b {
                    Expr::Name(n) => Some(n.id.as_str()),
                    Expr::Attribute(a) => Some(a.attr.as_str()),
                    _ => None,
                }.filter(|n| matches!(*n, "Enum" | "IntEnum" | "IntFlag" | "Flag")));
                let named_tuple = def.bases().iter().any(|b| {
                    qualified_path(b, &Layered { inner: self, outer: None }).is_some_and(|p| p == "typing.NamedTuple")
                });
                let binding = match base {
                    _ if named_tuple => Binding::NamedTupleClass(NamedTupleClass { name: def.name.to_string(), fields: named_tuple_fields(&def.body) }),
                    Some(base) => {
                        let members = matches!(base, "Enum" | "IntEnum").then(|| enum_members(&def.body, base == "IntEnum", self)).flatten();
                        Binding::Enum(EnumClass { name: def.name.to_string(), int: base == "IntEnum", members })
                    }
                    None => Binding::Definition,
                };
                self.bind(def.name.as_str(), binding);
            }
            Stmt::If(stmt_if) => {
                for s in &stmt_if.body {
                    self.add_statement_in(s, outer);
                }
                for clause in &stmt_if.elif_else_clauses {
                    for s in &clause.body {
                        self.add_statement_in(s, outer);
                    }
                }
            }
            Stmt::Try(stmt_try) => {
                for s in &stmt_try.body {
                    self.add_statement_in(s, outer);
                }
            }
            _ => {}
        }
    }

    fn binding_of(&self, value: &Expr, outer: Option<&dyn NameLookup>) -> Binding {
        let lookup = Layered { inner: self, outer };
        if let Some(v) = const_eval(value, &lookup) {
            return Binding::Const(v);
        }
        if let Some(path) = qualified_path(value, &lookup) {
            return Binding::Path(path);
        }
        if let Some(class) = namedtuple_call(value, &lookup) {
            return Binding::NamedTupleClass(class);
        }
        // `P = Params(1.0, 2.0)` with constant members.
        if let Expr::Call(call) = value
            && let Expr::Name(n) = &*call.func
            && let Some(Binding::NamedTupleClass(class)) = lookup.binding(n.id.as_str())
        {
            let keywords: Vec<&str> = call.arguments.keywords.iter().filter_map(|k| k.arg.as_ref().map(|a| a.as_str())).collect();
            let class = class.clone();
            if keywords.len() == call.arguments.keywords.len()
                && let Ok(bound) = class.bind_arguments(call.arguments.args.len(), &keywords)
                && let Some(items) = bound
                    .iter()
                    .map(|b| match b {
                        CallArgument::Positional(i) => const_eval(&call.arguments.args[*i], &lookup),
                        CallArgument::Keyword(j) => const_eval(&call.arguments.keywords[*j].value, &lookup),
                    })
                    .collect::<Option<Vec<_>>>()
            {
                return Binding::NamedTupleValue(class, items);
            }
        }
        if let Some((name, sig)) = declared_device(value, &lookup) {
            return Binding::External(name, sig);
        }
        if is_host_array_expr(value, &lookup) {
            return Binding::Const(ConstValue::HostArray);
        }
        if let Some(bytes) = bytes_value(value, &lookup) {
            return Binding::Bytes(bytes);
        }
        if let Expr::Dict(dict) = value
            && let Some(entries) = dict_entries(dict, &lookup)
        {
            return Binding::Dict(entries);
        }
        if let Some((function, jitted)) = function_of(value, &lookup) {
            return Binding::Function(function, jitted);
        }
        // Not `cuda.jit(f, ...)`, which wraps the function `f` rather than making a decorator
        // (a name bound by an import, not a function of this module, does not count).
        if let Expr::Call(call) = value
            && let wraps_function = matches!(call.arguments.args.first(), Some(Expr::Name(n)) if !matches!(lookup.binding(n.id.as_str()), Some(Binding::Path(_))))
            && !wraps_function
            && let Some(spec) = super::kernels::jit_spec(value, &lookup)
        {
            return Binding::Decorator(spec);
        }
        Binding::Other
    }

    fn bind_target(&mut self, target: &Expr, binding: Binding) {
        match target {
            Expr::Name(name) => self.bind(name.id.as_str(), binding),
            Expr::Tuple(ast::ExprTuple { elts, .. }) | Expr::List(ast::ExprList { elts, .. }) => match binding {
                // `a, b = PAIR` with `PAIR` a constant tuple.
                Binding::Const(ConstValue::Tuple(items)) if items.len() == elts.len() => {
                    for (elt, item) in elts.iter().zip(items) {
                        self.bind_target(elt, Binding::Const(item));
                    }
                }
                _ => {
                    for elt in elts {
                        self.bind_target(elt, Binding::Other);
                    }
                }
            },
            // `D["k"] = v` of a dict literal: that entry changes (a key kernlint cannot fold
            // leaves the whole dict unknown).
            Expr::Subscript(s)
                if let Expr::Name(n) = &*s.value
                    && matches!(self.get(n.id.as_str()), Some(Binding::Dict(_))) =>
            {
                let key = const_eval(&s.slice, &*self);
                let Some(Binding::Dict(entries)) = self.bindings.get_mut(n.id.as_str()) else { return };
                let Some(key) = key else {
                    self.bind(n.id.as_str(), Binding::Other);
                    return;
                };
                let value = match binding {
                    Binding::Const(c) => Some(c),
                    _ => None,
                };
                match entries.iter_mut().find(|(k, _)| super::resolve::dict_keys_equal(k, &key)) {
                    Some(entry) => entry.1 = value,
                    None => entries.push((key, value)),
                }
            }
            _ => {}
        }
    }

    fn bind(&mut self, name: &str, binding: Binding) {
        self.bindings.insert(name.to_string(), binding);
    }
}

/// A scope's own names, then the enclosing ones.
pub struct Layered<'a> {
    pub inner: &'a ModuleScope,
    pub outer: Option<&'a dyn NameLookup>,
}

impl NameLookup for Layered<'_> {
    fn binding(&self, name: &str) -> Option<&Binding> {
        self.inner.get(name).or_else(|| self.outer?.binding(name))
    }

    fn array_shape(&self, expr: &Expr) -> Option<Vec<i64>> {
        self.outer?.array_shape(expr)
    }

    fn host_value(&self, expr: &Expr) -> Option<Result<super::host_arrays::HostValue, String>> {
        self.outer?.host_value(expr)
    }
}

/// The bytes a host expression makes: a bytes literal, a name bound to one, `"...".encode()`
/// (UTF-8, or an ASCII codec of ASCII text).
pub fn bytes_value(value: &Expr, lookup: &dyn NameLookup) -> Option<Vec<u8>> {
    match value {
        Expr::BytesLiteral(b) => Some(b.value.bytes().collect()),
        Expr::Name(n) => match lookup.binding(n.id.as_str())? {
            Binding::Bytes(bytes) => Some(bytes.clone()),
            _ => None,
        },
        Expr::Call(call) if let Expr::Attribute(attr) = &*call.func && attr.attr.as_str() == "encode" && call.arguments.keywords.is_empty() => {
            let Some(ConstValue::Str(text)) = const_eval(&attr.value, lookup) else { return None };
            let codec = match &call.arguments.args[..] {
                [] => "utf-8".to_string(),
                [codec] => match const_eval(codec, lookup)? {
                    ConstValue::Str(c) => c.to_ascii_lowercase().replace('_', "-"),
                    _ => return None,
                },
                _ => return None,
            };
            match codec.as_str() {
                "utf-8" | "utf8" => Some(text.into_bytes()),
                "ascii" | "us-ascii" | "latin-1" | "latin1" if text.is_ascii() => Some(text.into_bytes()),
                _ => None,
            }
        }
        _ => None,
    }
}

/// The members of an Enum class body (`NAME = constant`; docstrings and methods aside) whose
/// values all have one type Numba types: ints, or an `Enum`'s floats. `None` otherwise (Numba:
/// `Cannot type heterogeneous enum`).
fn enum_members(body: &[Stmt], int_enum: bool, lookup: &dyn NameLookup) -> Option<Vec<(String, ConstValue)>> {
    let mut members: Vec<(String, ConstValue)> = Vec::new();
    for stmt in body {
        match stmt {
            Stmt::Assign(a) if let [Expr::Name(n)] = &a.targets[..] => match const_eval(&a.value, lookup)? {
                v @ ConstValue::Int(_) if members.iter().all(|(_, m)| matches!(m, ConstValue::Int(_))) => members.push((n.id.to_string(), v)),
                v @ ConstValue::Float(_) if !int_enum && members.iter().all(|(_, m)| matches!(m, ConstValue::Float(_))) => {
                    members.push((n.id.to_string(), v));
                }
                _ => return None,
            },
            Stmt::Expr(_) | Stmt::FunctionDef(_) | Stmt::Pass(_) => {}
            _ => return None,
        }
    }
    Some(members)
}

/// The entries of a dict literal with constant keys (`{"TPB": 512, "EPS": 1e-14}`), later
/// keys replacing earlier equal ones as Python builds it; `None` for `**` unpacking or a key
/// kernlint cannot fold.
fn dict_entries(dict: &ast::ExprDict, lookup: &dyn NameLookup) -> Option<Vec<(ConstValue, Option<ConstValue>)>> {
    let mut entries: Vec<(ConstValue, Option<ConstValue>)> = Vec::new();
    for item in &dict.items {
        let key = const_eval(item.key.as_ref()?, lookup)?;
        // Python keeps the first key's position and the last value.
        let value = const_eval(&item.value, lookup).filter(|v| !matches!(v, ConstValue::HostArray));
        match entries.iter_mut().find(|(k, _)| super::resolve::dict_keys_equal(k, &key)) {
            Some(entry) => entry.1 = value,
            None => entries.push((key, value)),
        }
    }
    Some(entries)
}

/// The module-level function a value denotes through a factory's parameter (see
/// [`Binding::Function`]): the parameter itself, an alias of it, or a JIT wrap of it
/// (`cuda.jit(func, device=True)`, `cuda.jit(device=True)(func)`, `numba.njit(func)`).
fn function_of(value: &Expr, lookup: &dyn NameLookup) -> Option<(String, bool)> {
    match value {
        Expr::Name(n) => match lookup.binding(n.id.as_str())? {
            Binding::Function(f, jitted) => Some((f.clone(), *jitted)),
            _ => None,
        },
        Expr::Call(_) => function_of(jit_wrapped(value, lookup)?, lookup).map(|(f, _)| (f, true)),
        _ => None,
    }
}

/// The function a JIT wrap wraps: `func` of `cuda.jit(device=True)(func)`, `cuda.jit(func,
/// device=True)`, `numba.njit(func)`.
pub fn jit_wrapped<'e>(value: &'e Expr, lookup: &dyn NameLookup) -> Option<&'e Expr> {
    let Expr::Call(call) = value else { return None };
    let is_jit = |e: &Expr| super::kernels::jit_spec(e, lookup).is_some() || super::kernels::cpu_jit_spec(e, lookup).is_some();
    if let (Expr::Call(_), [arg]) = (&*call.func, &call.arguments.args[..])
        && is_jit(&call.func)
    {
        return Some(arg);
    }
    let first @ Expr::Name(_) = call.arguments.args.first()? else { return None };
    is_jit(value).then_some(first)
}

/// `cuda.declare_device(name, signature, link=...)`, with its signature.
fn declared_device(value: &Expr, lookup: &dyn NameLookup) -> Option<(String, Signature)> {
    let Expr::Call(call) = value else { return None };
    if qualified_path(&call.func, lookup)? != "numba.cuda.declare_device" {
        return None;
    }
    let kw = |n: &str| call.arguments.keywords.iter().find(|k| k.arg.as_ref().is_some_and(|a| a.as_str() == n)).map(|k| &k.value);
    let name = match call.arguments.args.first().or_else(|| kw("name"))? {
        Expr::StringLiteral(s) => s.value.to_str().to_string(),
        _ => return None,
    };
    let sig = match call.arguments.args.get(1).or_else(|| kw("sig"))? {
        Expr::StringLiteral(s) => parse_signature_str(s.value.to_str()).ok()?,
        e => parse_signature_expr(e, &|x: &Expr| super::kernels::numba_type_name(x, lookup)).ok()?,
    };
    // A declared function has a return type (Numba rejects a bare argument tuple).
    sig.ret.as_ref()?;
    Some((name, sig))
}

/// `np.zeros(...)`, `np.arange(...) / 2.0`, `np.ones(n).astype(np.float32)`, `A.T`, `A[::2]`,
/// another module array: module-level arrays, captured as constants (what kernlint cannot
/// evaluate of these is said at their use, see `host_arrays`).
pub fn is_host_array_expr(value: &Expr, lookup: &dyn NameLookup) -> bool {
    is_array_made_of(value, lookup, &|e| match e {
        Expr::Call(call) => qualified_path(&call.func, lookup).is_some_and(|p| {
            p.starts_with("numpy.")
                && (is_array_constructor(&p)
                    // `np.exp(-2j * np.pi * np.arange(N) / N)`: a function of an array.
                    || (super::host_arrays::is_unary_ufunc(&p["numpy.".len()..]) || p == "numpy.sinc")
                        && call.arguments.args.iter().any(|a| is_host_array_expr(a, lookup)))
        }),
        Expr::Name(n) => matches!(lookup.binding(n.id.as_str()), Some(Binding::Const(ConstValue::HostArray))),
        _ => false,
    })
}

/// Whether `value` is an array `is_array` accepts, or one made from such an array by the
/// views, copies and arithmetic the array evaluator knows (`.astype(...)`, `.reshape(...)`,
/// `.ravel()`, `.T`, a subscript, an operator with a number or another array).
pub fn is_array_made_of(value: &Expr, lookup: &dyn NameLookup, is_array: &dyn Fn(&Expr) -> bool) -> bool {
    let made_of = |e: &Expr| is_array_made_of(e, lookup, is_array);
    match value {
        Expr::Call(call)
            if let Expr::Attribute(attr) = &*call.func
                && matches!(attr.attr.as_str(), "astype" | "reshape" | "copy" | "ravel" | "flatten" | "transpose")
                && qualified_path(&call.func, lookup).is_none() =>
        {
            made_of(&attr.value)
        }
        Expr::Attribute(attr) if attr.attr.as_str() == "T" => made_of(&attr.value),
        Expr::Subscript(s) => made_of(&s.value),
        Expr::BinOp(op) => made_of(&op.left) || made_of(&op.right),
        Expr::UnaryOp(op) => made_of(&op.operand),
        _ => is_array(value),
    }
}

/// `a.b.c` as written.
fn dotted_name(e: &Expr) -> Option<String> {
    match e {
        Expr::Name(n) => Some(n.id.to_string()),
        Expr::Attribute(a) => Some(format!("{}.{}", dotted_name(&a.value)?, a.attr)),
        _ => None,
    }
}

fn is_array_constructor(path: &str) -> bool {
    matches!(
        path.strip_prefix("numpy.").unwrap_or(path),
        "array" | "asarray" | "asanyarray" | "ascontiguousarray" | "asfortranarray" | "copy" | "zeros" | "ones" | "empty" | "full"
            | "arange" | "linspace" | "logspace" | "geomspace" | "zeros_like" | "ones_like" | "empty_like" | "full_like" | "frombuffer"
            | "fromfile" | "fromiter" | "fromstring" | "load" | "loadtxt" | "genfromtxt" | "eye" | "identity" | "diag" | "tile"
            | "repeat" | "concatenate" | "stack" | "hstack" | "vstack" | "transpose" | "reshape" | "ravel" | "meshgrid" | "tri"
            | "cumsum" | "sort" | "unique" | "flip" | "roll" | "where" | "outer" | "kron" | "hamming" | "hanning" | "blackman"
    ) || path.starts_with("numpy.random.")
        || path.starts_with("numpy.fft.")
}

/// The module's names, bound statement by statement in source order as Python runs it. A
/// constant made from a module array's length or shape (`CHARSET_LEN = len(CHARSET_ARR)`),
/// or by one of the module's host functions (`SCALE = compute_scale(64)`), is folded from
/// the arrays evaluated so far, which in turn use only the names bound before them: each
/// statement reads what the ones before it made, so nothing loops.
///
/// These are the file's own names, with imports as written; [`module_scope`] adds those its
/// `from M import *` bring and resolves the modules other modules re-export.
#[salsa::tracked(returns(ref))]
fn written_module_scope(db: &dyn Db, file: SourceFile) -> ModuleScope {
    let body = &parse_module(db, file).syntax().body;
    let mut scope = ModuleScope::default();
    let mut arrays = super::host_arrays::ModuleArrayShapes::new(body);
    for stmt in body {
        let reads = arrays.reads(stmt, &scope);
        arrays.bind(stmt, &scope);
        scope.add_statement_in(stmt, Some(&reads));
        // `TAPS = design_taps(31, 0.1)`, `G = gauss(5).ravel()`: an array made by one of the
        // module's own functions, evaluated with the module's arrays (see `host_arrays`; a
        // number it returns is a constant already). Another call's result is unknown; the
        // callee is kept for the message at its use.
        if let Stmt::Assign(ast::StmtAssign { targets, value, .. }) = stmt {
            let host_function = arrays.host_function(value, &scope);
            let callee = match (host_function, &**value) {
                (Some(f), _) => Some(f.to_string()),
                (None, Expr::Call(call)) => dotted_name(&call.func),
                _ => None,
            };
            let unpacked = match &targets[..] {
                [Expr::Tuple(t)] if host_function.is_some() => &t.elts[..],
                _ => &targets[..],
            };
            for target in unpacked {
                let Expr::Name(n) = target else { continue };
                let name = n.id.as_str();
                scope.calls.remove(name);
                if scope.get(name) != Some(&Binding::Other) {
                    continue;
                }
                if host_function.is_some() {
                    scope.bind(name, Binding::Const(ConstValue::HostArray));
                }
                if let Some(callee) = &callee {
                    scope.calls.insert(name.to_string(), callee.clone());
                }
            }
        }
    }
    scope
}

/// The module's names ([`written_module_scope`]), with those `from M import *` brings from
/// the workspace modules kernlint reads (and their own star imports): the imports (`cuda`,
/// `np`, `math` in a project's shared `from .common import *`), constants and `cuda.jit`
/// decorators. A name the file binds itself keeps its binding; private names (`_x`) are not
/// imported, as Python leaves them out. Functions are left to the device-call lookup, and a
/// module array or a relative import's path would not mean the same here. A module kernlint
/// models that a workspace module re-exports is that module ([`reexported_modelled_path`]).
/// Only the other modules' names as written are read, so that modules importing each other
/// do not make the query depend on itself.
#[salsa::tracked(returns(ref))]
pub fn module_scope(db: &dyn Db, file: SourceFile) -> ModuleScope {
    let own = written_module_scope(db, file);
    let mut scope = own.clone();
    let mut seen = vec![file];
    let mut pending: Vec<(SourceFile, String)> = own.star_imports.iter().rev().map(|m| (file, m.clone())).collect();
    while let Some((importer, module)) = pending.pop() {
        let Some(home) = workspace_module(db, importer, &module) else { continue };
        if seen.contains(&home) || seen.len() > 16 {
            continue;
        }
        seen.push(home);
        let theirs = written_module_scope(db, home);
        for (name, binding) in &theirs.bindings {
            let portable = match binding {
                Binding::Path(p) => !p.starts_with('.'),
                Binding::Const(c) => !matches!(c, ConstValue::HostArray),
                Binding::Decorator(_) | Binding::Bytes(_) | Binding::External(..) => true,
                _ => false,
            };
            if portable && !name.starts_with('_') && !scope.bindings.contains_key(name) {
                scope.bindings.insert(name.clone(), binding.clone());
            }
        }
        pending.extend(theirs.star_imports.iter().rev().map(|m| (home, m.clone())));
    }
    for binding in scope.bindings.values_mut() {
        if let Binding::Path(path) = binding
            && let Some(modelled) = reexported_modelled_path(db, file, path)
        {
            *path = modelled;
        }
    }
    scope
}

/// The path of a module kernlint models that a workspace module re-exports (`cuda` after
/// `from fbpic.utils.cuda import cuda`, where that module does `from numba import cuda`):
/// `numba.cuda`, so that `cuda.grid` there is the intrinsic.
fn reexported_modelled_path(db: &dyn Db, file: SourceFile, path: &str) -> Option<String> {
    if is_modelled_module(path) || path.starts_with('.') && path.trim_start_matches('.').is_empty() {
        return None;
    }
    // As written: `module_scope` of this file calls this, and the other module's may read
    // this file's in turn.
    import_chain(db, file, path, written_module_scope).find_map(|link| match link.binding {
        Some(Binding::Path(target)) if is_modelled_module(target) => Some(target.clone()),
        _ => None,
    })
}

/// The modules `file` imports names from that may be workspace modules (not numba, numpy
/// or math), with the dots of relative imports: `from helpers import f` -> `helpers` (and
/// `helpers.f`, which may itself be a module), `from .util import *` -> `.util`.
pub fn imported_modules(db: &dyn Db, file: SourceFile) -> Vec<String> {
    // As written: the adapters ask before they register the workspace, which `module_scope`
    // reads.
    let scope = written_module_scope(db, file);
    let mut names: Vec<String> = scope
        .bindings
        .values()
        .filter_map(|b| match b {
            Binding::Path(p) => Some(p.clone()),
            _ => None,
        })
        .flat_map(|p| p.rsplit_once('.').map(|(m, _)| m.to_string()).into_iter().chain([p]))
        .chain(scope.star_imports.iter().cloned())
        .chain(scope.dotted_imports.iter().cloned())
        .filter(|m| {
            let m = m.trim_start_matches('.');
            !m.is_empty() && (!m.starts_with("numba") || is_numba_test_module(m)) && !m.starts_with("numpy") && m != "math"
        })
        .collect();
    names.sort();
    names.dedup();
    names
}

/// What a dotted path into a workspace module reaches (`cfg.X` for `import cfg` or `from cfg
/// import X`, `pkg.cfg.X`, `.mod.f`): a module-level name of that module's file, or the
/// module itself. `None` when no workspace module is found along the path.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum ModuleMember {
    /// The module's file and the name there.
    Global(SourceFile, String),
    Module(SourceFile),
}

/// The workspace module an import names from `file` (as [`crate::analysis::db::module_paths`]
/// looks for it), not `file` itself.
pub fn workspace_module(db: &dyn Db, file: SourceFile, module: &str) -> Option<SourceFile> {
    let modules = db.workspace()?.modules(db);
    // Modules are registered by absolute path; the file may be named relative to the
    // working directory (`kernlint run k.py::k`).
    let importer = file.path(db);
    let absolute = if importer.is_relative() { std::path::absolute(importer).ok() } else { None };
    std::iter::once(importer.as_path()).chain(absolute.as_deref()).find_map(|importer| {
        crate::analysis::db::module_paths(importer, module)
            .iter()
            .find_map(|p| modules.get(p).copied())
            .filter(|&m| m != file && m.path(db) != importer)
    })
}

/// See [`ModuleMember`]: the longest module prefix of `path` that is a workspace module,
/// then the name after it; a further attribute follows that name's import in the module
/// (`cfg.sub.X` with `from . import sub` in `cfg`).
pub fn workspace_member(db: &dyn Db, file: SourceFile, path: &str) -> Option<ModuleMember> {
    member_at(db, file, path, 0, module_scope)
}

/// A module's names, as [`module_scope`] or [`written_module_scope`] gives them.
type ScopeQuery = for<'db> fn(&'db dyn Db, SourceFile) -> &'db ModuleScope;

fn member_at(db: &dyn Db, file: SourceFile, path: &str, depth: usize, scope: ScopeQuery) -> Option<ModuleMember> {
    db.workspace()?;
    // A leading dot is a relative import, whose path `from . import m` spells `..m`: only its
    // prefixes are modules.
    if !path.starts_with('.')
        && let Some(module) = workspace_module(db, file, path)
    {
        return Some(ModuleMember::Module(module));
    }
    let mut cut = path.len();
    while let Some(i) = path[..cut].rfind('.') {
        cut = i;
        let Some(home) = workspace_module(db, file, &path[..i]) else { continue };
        let rest = &path[i + 1..];
        return match rest.split_once('.') {
            None => Some(ModuleMember::Global(home, rest.to_string())),
            Some((name, tail)) if depth < 8 => match scope(db, home).get(name)? {
                Binding::Path(p) => member_at(db, home, &format!("{p}.{tail}"), depth + 1, scope),
                _ => None,
            },
            Some(_) => None,
        };
    }
    None
}

/// A module-level name of a workspace module along an [`import_chain`], with what the
/// module binds it to (`None`: nothing).
pub struct ImportLink<'db> {
    pub module: SourceFile,
    pub name: String,
    pub binding: Option<&'db Binding>,
}

/// Follows a path into a workspace module (`cfg.X`, `.util.f`, an import's path in `file`)
/// from module to module while each imports the name from the next (`from other import X`
/// in `cfg`), at most 8: the module and name at each, the last being where the name is
/// bound to something else (or to a path out of the workspace). `scope` reads the modules'
/// names: [`module_scope`], or [`written_module_scope`] for a caller that `module_scope`
/// itself calls, which must not depend on itself.
pub fn import_chain<'db>(db: &'db dyn Db, file: SourceFile, path: &str, scope: ScopeQuery) -> impl Iterator<Item = ImportLink<'db>> {
    let mut next = Some((file, path.to_string()));
    let mut links = 0;
    std::iter::from_fn(move || {
        let (from, path) = next.take()?;
        links += 1;
        if links > 8 {
            return None;
        }
        let ModuleMember::Global(module, name) = member_at(db, from, &path, 0, scope)? else { return None };
        let binding = scope(db, module).get(&name);
        if let Some(Binding::Path(p)) = binding {
            next = Some((module, p.clone()));
        }
        Some(ImportLink { module, name, binding })
    })
}

/// The constant a path into a workspace module holds, as Numba freezes a module global
/// when it compiles: `cfg.X`, a name re-exported by `from other import X` in `cfg`, or a
/// constant of a module kernlint models (`from math import pi`).
pub fn imported_constant(db: &dyn Db, file: SourceFile, path: &str) -> Option<ConstValue> {
    super::resolve::path_constant(path).or_else(|| {
        import_chain(db, file, path, module_scope).find_map(|link| match link.binding? {
            Binding::Const(c) => Some(c.clone()),
            Binding::Path(p) => super::resolve::path_constant(p),
            _ => None,
        })
    })
}

/// The Enum or IntEnum class a path into a workspace module names (`modes.Mode`, `from modes
/// import Mode`, `from .modes import Mode as M`, or re-exported there).
pub fn imported_enum(db: &dyn Db, file: SourceFile, path: &str) -> Option<EnumClass> {
    import_chain(db, file, path, module_scope).find_map(|link| match link.binding? {
        Binding::Enum(class) => Some(class.clone()),
        _ => None,
    })
}

/// Whether a path's root module is one kernlint models itself (Numba, NumPy, `math`,
/// `cmath`, builtins), not user code it would have to read.
pub fn is_modelled_module(path: &str) -> bool {
    let root = path.split('.').next().unwrap_or(path);
    matches!(root, "numba" | "numpy" | "math" | "cmath" | "builtins" | "operator") && !is_numba_test_module(path)
}

/// Whether a path leads into Numba's own test suite (`numba.cuda.tests.cudapy.enum_usecases`):
/// helper modules of user code, read from their files like a workspace module, not modelled.
fn is_numba_test_module(path: &str) -> bool {
    path.starts_with("numba") && path.split('.').any(|part| part == "tests")
}
