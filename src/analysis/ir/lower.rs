//! Lowering a typed function body (AST + Numba's types) to the IR.

mod complex;

use std::collections::{BTreeMap, BTreeSet};
use rustc_hash::FxHashMap as HashMap;

use ruff_python_ast::visitor::{self, Visitor};
use ruff_python_ast::{self as ast, BoolOp, CmpOp, Expr, ExprContext, Number, Operator, Stmt};
use ruff_text_size::{Ranged, TextRange};

use super::{
    BinaryOp, Block, BlockId, CLOSURE, CompareOp, Constant, Function, Inst, MemorySpace, Op, Param, PrintArg, SlicePart,
    Slot, SlotId, Terminator, UnaryOp, ValueId,
};
use crate::analysis::kernels::ItemScope;
use crate::analysis::libdevice::{self, Plan};
use crate::analysis::message::Message;
use crate::analysis::resolve::{NameLookup, const_eval, qualified_path};
use crate::analysis::scope::{Binding, CallArgument, ConstValue, NamedTupleClass};
use crate::analysis::syntax::parse_module;
use crate::analysis::types::{Layout, Object, Scalar, Type};
use crate::analysis::typing::closures::ClosureCall;
use crate::analysis::typing::promote::{self, base_scalar, unify, unify_scalar};
use crate::analysis::typing::{
    BoundArg, DefTypes, Index, OperatorCall, array_index, bind_device_arguments, bind_device_call, find_closure_def, imported_array, python_float,
    folded_float, folded_tuple, operator_call, resolve_device_function, selected_params, signature_parameters, type_closure_for_args, type_def_for_args,
};
use crate::analysis::{Db, SourceFile};

mod arrays;
mod records;
mod vectors;

use records::{FieldKey, FieldUpdate};

/// Why a function could not be lowered: a typing error, or a construct the IR does not
/// cover yet. `range` is file-relative; so are the lines `message` names.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct LowerError {
    pub message: Message,
    pub range: TextRange,
}

type LResult<T> = Result<T, LowerError>;

/// What [`Lower::emit`] gives for an instruction without a result: never an operand.
const VOID: ValueId = ValueId(u32::MAX);

fn unsupported<T>(what: &str, range: TextRange) -> LResult<T> {
    Err(LowerError { message: format!("kernlint cannot compile {what} yet").into(), range })
}

/// Lower the GPU function whose `def` is at `def_range` (file-relative) for argument types.
pub fn lower_function(
    db: &dyn Db,
    file: SourceFile,
    def_range: TextRange,
    args: &[Type],
    is_kernel: bool,
) -> LResult<Function> {
    let types = type_def_for_args(db, file, def_range, args, is_kernel)
        .map_err(|(message, range)| LowerError { message, range })?;
    lower_typed(db, file, def_range, args, &[], is_kernel, &types)
}

/// Lower the function defined inside another at `def_range` (a closure, see
/// [`crate::analysis::typing::closures`]) for its arguments' types followed by the types of
/// the enclosing variables it reads, which it takes as parameters after its own.
pub fn lower_closure(db: &dyn Db, file: SourceFile, def_range: TextRange, args: &[Type]) -> LResult<Function> {
    let (types, free) =
        type_closure_for_args(db, file, def_range, args).map_err(|(message, range)| LowerError { message: message.into(), range })?;
    lower_typed(db, file, def_range, args, &free, false, &types)
}

fn lower_typed(
    db: &dyn Db,
    file: SourceFile,
    def_range: TextRange,
    args: &[Type],
    free: &[String],
    is_kernel: bool,
    types: &DefTypes,
) -> LResult<Function> {
    let module = parse_module(db, file);
    let body = &module.syntax().body;
    let def = find_closure_def(body, def_range)
        .ok_or_else(|| LowerError { message: "cannot find the function's definition".into(), range: def_range })?;
    let scope = ItemScope::for_def(db, file, body, def_range);
    let ret = if is_kernel { Type::None } else { unliteral(&types.ret) };
    let mut lower = Lower {
        db,
        file,
        types,
        scope: &scope,
        func: Function {
            name: def.name.to_string(),
            is_kernel,
            params: Vec::new(),
            ret,
            slots: Vec::new(),
            values: Vec::new(),
            blocks: vec![Block { insts: Vec::new(), term: Terminator::Unreachable }],
        },
        current: Function::ENTRY,
        slots: BTreeMap::new(),
        spaces: HashMap::default(),
        slot_spaces: HashMap::default(),
        loops: Vec::new(),
        locals: BTreeSet::new(),
        object_paths: HashMap::default(),
        device_params: HashMap::default(),
    };
    lower.function(&def, args, free)?;
    super::wraps::drop_needless_wraps(&mut lower.func);
    super::contract::contract_multiply_adds(&mut lower.func);
    Ok(lower.func)
}

struct Lower<'a> {
    db: &'a dyn Db,
    file: SourceFile,
    types: &'a DefTypes,
    scope: &'a ItemScope<'a>,
    func: Function,
    current: BlockId,
    /// Slots of each variable, by Numba type.
    slots: BTreeMap<String, Vec<(Type, SlotId)>>,
    /// Memory space of array values and of the slots holding them.
    spaces: HashMap<ValueId, MemorySpace>,
    slot_spaces: HashMap<SlotId, MemorySpace>,
    /// (continue target, break target) of the enclosing loops.
    loops: Vec<(BlockId, BlockId)>,
    /// Names bound in the function (parameters and assigned variables).
    locals: BTreeSet<String>,
    /// Locals bound to a module object (`t = cuda.threadIdx`): its path; `None` where two
    /// bindings name different objects.
    object_paths: HashMap<String, Option<String>>,
    /// Parameters given a GPU function (`cast_func`): the name the caller's module calls it.
    device_params: HashMap<String, String>,
}

/// Collects the Numba type of every read and write of each local variable.
struct SlotTypes<'t> {
    types: &'t DefTypes,
    found: BTreeMap<String, Vec<Type>>,
}

impl<'a> Visitor<'a> for SlotTypes<'_> {
    fn visit_stmt(&mut self, stmt: &'a Stmt) {
        match stmt {
            Stmt::Assign(a) => {
                if let Some(t) = self.type_of(&a.value) {
                    for target in &a.targets {
                        self.bind(target, &t);
                    }
                }
            }
            Stmt::AugAssign(a) => {
                if let (Expr::Name(n), Some(t)) = (&*a.target, self.aug_type(a)) {
                    self.add(n.id.as_str(), t);
                }
            }
            Stmt::FunctionDef(_) | Stmt::ClassDef(_) => return,
            _ => {}
        }
        visitor::walk_stmt(self, stmt);
    }

    fn visit_expr(&mut self, expr: &'a Expr) {
        if let Expr::Name(n) = expr
            && n.ctx == ExprContext::Load
            && let Some(t) = self.type_of(expr)
        {
            self.add(n.id.as_str(), t);
        }
        visitor::walk_expr(self, expr);
    }
}

impl SlotTypes<'_> {
    fn add(&mut self, name: &str, t: Type) {
        let types = self.found.entry(name.to_string()).or_default();
        if !types.contains(&t) {
            types.push(t);
        }
    }

    fn type_of(&self, expr: &Expr) -> Option<Type> {
        let r = expr.range();
        self.types.expressions.get(&(r.start().into(), r.end().into())).map(unliteral)
    }

    fn aug_type(&self, a: &ast::StmtAugAssign) -> Option<Type> {
        let target = self.found.get(a.target.as_name_expr()?.id.as_str())?.iter().next()?.clone();
        let value = self.type_of(&a.value)?;
        Some(Type::Scalar(binary_result(a.op, base_scalar(&target)?, base_scalar(&value)?)?))
    }

    fn bind(&mut self, target: &Expr, t: &Type) {
        match target {
            Expr::Name(n) => self.add(n.id.as_str(), t.clone()),
            Expr::Tuple(ast::ExprTuple { elts, .. }) | Expr::List(ast::ExprList { elts, .. }) => {
                for (i, e) in elts.iter().enumerate() {
                    if let Some(et) = tuple_element(t, i) {
                        self.bind(e, &et);
                    }
                }
            }
            _ => {}
        }
    }
}

fn tuple_element(t: &Type, i: usize) -> Option<Type> {
    match t {
        Type::UniTuple(e, n) if i < *n => Some((**e).clone()),
        Type::Tuple(items) | Type::NamedTuple { items, .. } => items.get(i).cloned(),
        // A complex number is the pair (real, imaginary).
        Type::Scalar(s) if i < 2 && s.is_complex() => Some(Type::Scalar(complex::component(*s))),
        // An optional is the pair (valid, value).
        Type::Optional(_) if i == 0 => Some(Type::Scalar(Scalar::Bool)),
        Type::Optional(t) if i == 1 => Some((**t).clone()),
        // A range is (start, stop, step).
        Type::Range(s) if i < 3 => Some(Type::Scalar(*s)),
        // A CUDA vector is its members.
        Type::Vector(s, n) if i < *n as usize => Some(Type::Scalar(*s)),
        _ => None,
    }
}

/// The result type of an arithmetic operator on scalars (Numba's rules).
fn binary_result(op: Operator, a: Scalar, b: Scalar) -> Option<Scalar> {
    use crate::analysis::typing::promote::{arith_op, binary};
    binary(arith_op(op)?, a, b)
}

fn scalar(t: &Type) -> Option<Scalar> {
    base_scalar(t)
}

impl Lower<'_> {
    // ---- building blocks -------------------------------------------------------------

    fn new_block(&mut self) -> BlockId {
        self.func.blocks.push(Block { insts: Vec::new(), term: Terminator::Unreachable });
        BlockId(self.func.blocks.len() as u32 - 1)
    }

    fn emit(&mut self, op: Op, ty: Option<Type>, span: TextRange) -> ValueId {
        let result = ty.map(|t| {
            self.func.values.push(t);
            ValueId(self.func.values.len() as u32 - 1)
        });
        self.func.blocks[self.current.0 as usize].insts.push(Inst { result, op, span });
        result.unwrap_or(VOID)
    }

    fn emit_void(&mut self, op: Op, span: TextRange) {
        self.emit(op, None, span);
    }

    fn terminate(&mut self, term: Terminator) {
        let block = &mut self.func.blocks[self.current.0 as usize];
        // Only the first terminator counts: code after a jump is unreachable.
        if block.term == Terminator::Unreachable {
            block.term = term;
        }
    }

    /// End the current block with `term` and continue in a fresh, unreachable block.
    fn seal(&mut self, term: Terminator) {
        self.terminate(term);
        self.current = self.new_block();
    }

    fn switch_to(&mut self, block: BlockId) {
        self.current = block;
    }

    /// How an exception ends the thread here: a kernel returns; a device function exits,
    /// as Numba propagates the exception's status up to the kernel, which returns.
    fn exit(&self) -> Terminator {
        if self.func.is_kernel { Terminator::Return(None) } else { Terminator::Exit }
    }

    /// Raise (end the thread, see [`Self::exit`]) where `cond` holds, and go on where not.
    fn exit_when(&mut self, cond: ValueId) {
        let (fail, ok) = (self.new_block(), self.new_block());
        self.terminate(Terminator::Branch { cond, then: fail, otherwise: ok });
        self.switch_to(fail);
        let exit = self.exit();
        self.terminate(exit);
        self.switch_to(ok);
    }

    /// An array whose first axis is not `n` long is Numba's `ValueError` (unpacking it into
    /// `n` names, assigning a tuple of `n` items to it), which ends the thread.
    fn exit_unless_length(&mut self, array: ValueId, n: usize, span: TextRange) {
        let len = self.emit(Op::Extent { array, axis: 0 }, Some(Type::Scalar(Scalar::I64)), span);
        let expected = self.int(n as i128, span);
        let differs = self.emit(Op::Compare(CompareOp::Ne, len, expected), Some(Type::Scalar(Scalar::Bool)), span);
        self.exit_when(differs);
    }

    fn ty(&self, v: ValueId) -> &Type {
        // A void operation's placeholder result has no type.
        self.func.values.get(v.0 as usize).unwrap_or(&Type::None)
    }

    /// The type of an expression with its literal values (`Literal[str](abc)`).
    fn literal_type(&self, expr: &Expr) -> Option<&Type> {
        let r = expr.range();
        self.types.expressions.get(&(r.start().into(), r.end().into()))
    }

    /// A literal string computed without side effects (`"abc"`, a variable or global
    /// holding one, `"a" + "b"`).
    fn is_constant_string(&self, expr: &Expr) -> bool {
        struct Calls(bool);
        impl<'a> Visitor<'a> for Calls {
            fn visit_expr(&mut self, expr: &'a Expr) {
                self.0 |= matches!(expr, Expr::Call(_) | Expr::Named(_));
                visitor::walk_expr(self, expr);
            }
        }
        let mut calls = Calls(false);
        calls.visit_expr(expr);
        matches!(self.literal_type(expr), Some(Type::StrLiteral(_))) && !calls.0
    }

    fn expr_type(&self, expr: &Expr) -> LResult<Type> {
        let r = expr.range();
        self.types
            .expressions
            .get(&(r.start().into(), r.end().into()))
            .map(unliteral)
            .ok_or_else(|| LowerError { message: "no type for this expression".into(), range: r })
    }

    /// Whether the typing found `expr` to be a compile-time object (a dtype, a type, a flat
    /// iterator), not a value.
    fn objects(&self, expr: &Expr) -> bool {
        let r = expr.range();
        self.types.objects.contains(&(r.start().into(), r.end().into()))
    }

    fn constant(&mut self, c: Constant, span: TextRange) -> ValueId {
        let ty = match c {
            Constant::Int(_, s) | Constant::Float(_, s) => Type::Scalar(s),
            Constant::Bool(_) => Type::Scalar(Scalar::Bool),
        };
        self.emit(Op::Const(c), Some(ty), span)
    }

    fn int(&mut self, v: i128, span: TextRange) -> ValueId {
        self.constant(Constant::Int(v, Scalar::I64), span)
    }

    /// Convert a scalar value to `to` (no instruction when it already has that type).
    fn cast(&mut self, v: ValueId, to: Scalar, span: TextRange) -> LResult<ValueId> {
        let v = self.unwrap_optional(v, span)?;
        match scalar(self.ty(v)) {
            Some(from) if from == to => Ok(v),
            Some(from) if to.is_complex() => self.convert_to_complex(v, from, to, span),
            Some(from) if from.is_complex() => {
                Err(LowerError { message: format!("cannot convert {from} to {to} (Numba has no such cast)").into(), range: span })
            }
            Some(_) => Ok(self.emit(Op::Cast(v, to), Some(Type::Scalar(to)), span)),
            None => Err(LowerError { message: format!("cannot convert {} to {to}", self.ty(v)).into(), range: span }),
        }
    }

    fn cast_to_type(&mut self, v: ValueId, to: &Type, span: TextRange) -> LResult<ValueId> {
        if self.ty(v) == to {
            return Ok(v);
        }
        match to {
            Type::Scalar(s) => self.cast(v, *s, span),
            Type::Optional(t) => self.make_optional(v, t, span),
            Type::UniTuple(..) | Type::Tuple(_) => {
                let n = match to {
                    Type::UniTuple(_, n) => *n,
                    Type::Tuple(items) => items.len(),
                    _ => unreachable!(),
                };
                let mut items = Vec::new();
                for i in 0..n {
                    let from = self.extract(v, i, span)?;
                    let target = tuple_element(to, i).expect("index within the tuple");
                    items.push(self.cast_to_type(from, &target, span)?);
                }
                Ok(self.emit(Op::MakeTuple(items), Some(to.clone()), span))
            }
            _ => Ok(v),
        }
    }

    /// `None` as a value: the empty tuple (no registers), of type `none`.
    fn none_value(&mut self, span: TextRange) -> ValueId {
        self.emit(Op::MakeTuple(Vec::new()), Some(Type::None), span)
    }

    /// A value as the optional `OptionalType(t)` (Numba's casts to `Optional`): the pair
    /// (valid, value); `None` is (false, 0).
    fn make_optional(&mut self, v: ValueId, t: &Type, span: TextRange) -> LResult<ValueId> {
        let to = Type::Optional(Box::new(t.clone()));
        let (valid, value) = match self.ty(v).clone() {
            Type::None => {
                let zero = match t {
                    Type::Scalar(s) if s.is_complex() => self.complex_constant(0.0, 0.0, span),
                    Type::Scalar(s) if s.is_float() => self.constant(Constant::Float(0.0, *s), span),
                    Type::Scalar(Scalar::Bool) => self.constant(Constant::Bool(false), span),
                    Type::Scalar(s) => self.constant(Constant::Int(0, *s), span),
                    other => return unsupported(&format!("an optional {other} (only optional numbers)"), span),
                };
                let zero = self.cast_to_type(zero, t, span)?;
                (self.constant(Constant::Bool(false), span), zero)
            }
            Type::Optional(_) => {
                let valid = self.extract(v, 0, span)?;
                let value = self.extract(v, 1, span)?;
                (valid, self.cast_to_type(value, t, span)?)
            }
            _ => (self.constant(Constant::Bool(true), span), self.cast_to_type(v, t, span)?),
        };
        Ok(self.emit(Op::MakeTuple(vec![valid, value]), Some(to), span))
    }

    /// The value an optional holds, where Numba converts it to its type (an operand, an
    /// argument): a None there is Numba's `TypeError("expected int64, got None")`, which ends
    /// the thread (without `debug=True`). Any other value is returned as it is.
    fn unwrap_optional(&mut self, v: ValueId, span: TextRange) -> LResult<ValueId> {
        if !matches!(self.ty(v), Type::Optional(_)) {
            return Ok(v);
        }
        let valid = self.extract(v, 0, span)?;
        let (ok, none) = (self.new_block(), self.new_block());
        self.terminate(Terminator::Branch { cond: valid, then: ok, otherwise: none });
        self.switch_to(none);
        let exit = self.exit();
        self.terminate(exit);
        self.switch_to(ok);
        self.extract(v, 1, span)
    }

    /// `x is None` (`negate`: `is not`) where either side may be `None`: a constant unless
    /// one side is an optional, whose valid flag decides it. `None` for other comparisons.
    fn is_none_test(&mut self, l: ValueId, r: ValueId, negate: bool, span: TextRange) -> LResult<Option<ValueId>> {
        let (lt, rt) = (self.ty(l).clone(), self.ty(r).clone());
        let optional = |t: &Type| matches!(t, Type::Optional(_));
        let is_none = match (&lt, &rt) {
            (Type::None, Type::None) => self.constant(Constant::Bool(true), span),
            (Type::None, t) | (t, Type::None) if !optional(t) => self.constant(Constant::Bool(false), span),
            (Type::None, _) | (_, Type::None) => {
                let opt = if optional(&lt) { l } else { r };
                let valid = self.extract(opt, 0, span)?;
                self.emit(Op::Unary(UnaryOp::Not, valid), Some(Type::Scalar(Scalar::Bool)), span)
            }
            (Type::Optional(_), _) | (_, Type::Optional(_)) => {
                return unsupported(&format!("`is` between {lt} and {rt} (only `is None` on an optional)"), span);
            }
            _ => return Ok(None),
        };
        Ok(Some(if negate {
            self.emit(Op::Unary(UnaryOp::Not, is_none), Some(Type::Scalar(Scalar::Bool)), span)
        } else {
            is_none
        }))
    }

    fn extract(&mut self, t: ValueId, i: usize, span: TextRange) -> LResult<ValueId> {
        let Some(et) = tuple_element(self.ty(t), i) else {
            return Err(LowerError { message: format!("cannot take item {i} of {}", self.ty(t)).into(), range: span });
        };
        Ok(self.emit(Op::Extract(t, i as u32), Some(et), span))
    }

    /// Every item of the tuple `t` (none of a non-tuple), in order.
    fn tuple_items(&mut self, t: ValueId, span: TextRange) -> LResult<Vec<ValueId>> {
        (0..tuple_length(self.ty(t)).unwrap_or(0)).map(|i| self.extract(t, i, span)).collect()
    }

    /// A tuple of `items`, typed by theirs.
    fn make_tuple(&mut self, items: Vec<ValueId>, span: TextRange) -> ValueId {
        let ty = Type::tuple(items.iter().map(|v| self.ty(*v).clone()).collect());
        self.emit(Op::MakeTuple(items), Some(ty), span)
    }

    /// Python truthiness as a bool value.
    fn truth(&mut self, v: ValueId, span: TextRange) -> LResult<ValueId> {
        match self.ty(v).clone() {
            Type::Scalar(Scalar::Bool) => Ok(v),
            Type::Scalar(s) if s.is_complex() => self.complex_truth(v, span),
            Type::Scalar(s) => {
                let zero = if s.is_float() {
                    self.constant(Constant::Float(0.0, s), span)
                } else {
                    self.constant(Constant::Int(0, s), span)
                };
                Ok(self.emit(Op::Compare(CompareOp::Ne, v, zero), Some(Type::Scalar(Scalar::Bool)), span))
            }
            Type::UniTuple(_, n) => Ok(self.constant(Constant::Bool(n > 0), span)),
            Type::Tuple(items) => Ok(self.constant(Constant::Bool(!items.is_empty()), span)),
            other => Err(LowerError { message: format!("cannot test the truth of {other}").into(), range: span }),
        }
    }

    // ---- variables ---------------------------------------------------------------------

    /// A new compiler temporary (loop counters, results of `a if c else b`), never shared.
    fn temp(&mut self, base: &str, ty: &Type) -> SlotId {
        self.func.slots.push(Slot { name: format!("${base}{}", self.func.slots.len()), ty: ty.clone() });
        SlotId(self.func.slots.len() as u32 - 1)
    }

    fn slot(&mut self, name: &str, ty: &Type) -> SlotId {
        if let Some((_, s)) = self.slots.get(name).and_then(|v| v.iter().find(|(t, _)| t == ty)) {
            return *s;
        }
        self.func.slots.push(Slot { name: name.to_string(), ty: ty.clone() });
        let id = SlotId(self.func.slots.len() as u32 - 1);
        self.slots.entry(name.to_string()).or_default().push((ty.clone(), id));
        id
    }

    /// Store into the variable's slot of the value's type and, converted, into the slots of
    /// the types Numba unifies that type into.
    fn write(&mut self, name: &str, v: ValueId, span: TextRange) -> LResult<()> {
        let vt = self.ty(v).clone();
        self.slot(name, &vt);
        let targets: Vec<(Type, SlotId)> = self.slots.get(name).cloned().unwrap_or_default();
        for (t, slot) in targets {
            let value = if t == vt {
                v
            } else if unify(&vt, &t).as_ref() == Some(&t) {
                self.cast_to_type(v, &t, span)?
            } else {
                continue;
            };
            if let Some(space) = self.spaces.get(&value).copied() {
                self.slot_spaces.insert(slot, space);
            }
            self.emit_void(Op::WriteSlot(slot, value), span);
        }
        Ok(())
    }

    fn read(&mut self, name: &str, ty: &Type, span: TextRange) -> LResult<ValueId> {
        let slot = self.slot(name, ty);
        let v = self.emit(Op::ReadSlot(slot), Some(ty.clone()), span);
        if let Some(space) = self.slot_spaces.get(&slot).copied() {
            self.spaces.insert(v, space);
        }
        Ok(v)
    }

    // ---- function and statements -----------------------------------------------------

    fn function(&mut self, def: &ast::StmtFunctionDef, args: &[Type], free: &[String]) -> LResult<()> {
        let mut collector = SlotTypes { types: self.types, found: BTreeMap::new() };
        for stmt in &def.body {
            collector.visit_stmt(stmt);
        }
        // The variables closures read are read at their calls, with these types.
        for call in self.types.closure_calls.values() {
            for (name, t) in &call.free {
                collector.add(name, t.clone());
            }
        }
        let params = signature_parameters(def).into_iter().map(|p| p.name.as_str());
        for (name, ty) in params.chain(free.iter().map(String::as_str)).zip(args) {
            let ty = unliteral(ty);
            self.func.values.push(ty.clone());
            let value = ValueId(self.func.values.len() as u32 - 1);
            if ty.is_array() {
                self.spaces.insert(value, MemorySpace::Global);
            }
            self.func.params.push(Param { name: name.to_string(), ty: ty.clone(), value, declared: ty.clone() });
            self.locals.insert(name.to_string());
            // A parameter given a compile-time object is that object wherever it is used.
            match ty {
                Type::Object(Object::Path(p)) => {
                    self.object_paths.insert(name.to_string(), Some(p));
                }
                Type::Object(Object::Device(d)) => {
                    self.device_params.insert(name.to_string(), d);
                }
                _ => {}
            }
        }
        // A computed `match` subject's variable (assigned only in the chain the statement lowers to).
        self.locals.insert(crate::analysis::match_stmt::SUBJECT.to_string());
        crate::analysis::bindings::for_each_binding(&def.body, &mut |b| {
            // A `match` capture is an assignment in the `if` chain the statement lowers to.
            if b.kind.is_assignment() || b.kind == crate::analysis::bindings::BindingKind::Capture {
                self.locals.insert(b.name.to_string());
            }
        });
        for (name, types) in &collector.found {
            if self.locals.contains(name) {
                for t in types {
                    self.slot(name, t);
                }
            }
        }
        for p in self.func.params.clone() {
            if !matches!(p.ty, Type::Object(_)) {
                self.write(&p.name, p.value, def.name.range())?;
            }
        }
        self.block(&def.body)?;
        let value = self.none_return(def.name.range())?;
        self.terminate(Terminator::Return(value));
        Ok(())
    }

    /// What `return None` (or no `return`) returns: nothing, or a None optional in a function
    /// that returns an optional on another path.
    fn none_return(&mut self, span: TextRange) -> LResult<Option<ValueId>> {
        let ret = self.func.ret.clone();
        if !matches!(ret, Type::Optional(_)) {
            return Ok(None);
        }
        let none = self.none_value(span);
        Ok(Some(self.cast_to_type(none, &ret, span)?))
    }

    fn block(&mut self, stmts: &[Stmt]) -> LResult<()> {
        for stmt in stmts {
            // Code no path reaches was never typed (Numba drops it too): nothing to lower.
            if self.types.unreachable.contains(&(stmt.start().into(), stmt.end().into())) {
                break;
            }
            self.stmt(stmt)?;
        }
        Ok(())
    }

    fn stmt(&mut self, stmt: &Stmt) -> LResult<()> {
        let span = stmt.range();
        match stmt {
            // A literal string is a compile-time constant (what `print` reads of it): no value.
            Stmt::Assign(a) if self.is_constant_string(&a.value) && a.targets.iter().all(Expr::is_name_expr) => {}
            Stmt::AnnAssign(a) if a.value.as_deref().is_some_and(|v| self.is_constant_string(v)) && a.target.is_name_expr() => {}
            // Binding a compile-time object (`d = a.dtype`, `ft = np.float32`, `f = a.flat`)
            // computes nothing: its uses are typed from it.
            Stmt::Assign(a)
                if self.objects(&a.value)
                    && matches!(&*a.value, Expr::Attribute(_) | Expr::Name(_))
                    && a.targets.iter().all(|t| matches!(t, Expr::Name(_))) =>
            {
                for target in &a.targets {
                    self.bind_object(target, &a.value);
                }
            }
            // A lambda bound to a name, like a closure's `def`, is called where it is used.
            Stmt::Assign(a) if matches!(&*a.value, Expr::Lambda(_)) => {}
            // `bi, bd = cuda.blockIdx, cuda.blockDim`: items stored one by one (typing took
            // this form only for two or three items, as CPython stores them); the compile-time
            // objects among them compute nothing.
            Stmt::Assign(a)
                if let [Expr::Tuple(targets)] = a.targets.as_slice()
                    && let Expr::Tuple(values) = &*a.value
                    && targets.elts.len() == values.elts.len()
                    && values.elts.iter().any(|e| self.objects(e)) =>
            {
                let mut stores = Vec::new();
                for (target, value) in targets.elts.iter().zip(&values.elts) {
                    if self.objects(value) && target.is_name_expr() {
                        self.bind_object(target, value);
                    } else {
                        stores.push((target, self.expr(value)?));
                    }
                }
                for (target, v) in stores {
                    self.assign(target, v)?;
                }
            }
            Stmt::Assign(a) => {
                let v = self.expr(&a.value)?;
                for target in &a.targets {
                    self.assign(target, v)?;
                }
            }
            Stmt::AnnAssign(a) => {
                if let Some(value) = &a.value {
                    let v = self.expr(value)?;
                    self.assign(&a.target, v)?;
                }
            }
            Stmt::AugAssign(a) => self.aug_assign(a)?,
            Stmt::Expr(e) => {
                if !matches!(&*e.value, Expr::StringLiteral(_)) {
                    self.any_expr(&e.value)?;
                }
            }
            Stmt::Pass(_) => {}
            Stmt::If(s) => self.if_stmt(s)?,
            Stmt::While(w) => self.while_loop(w)?,
            Stmt::For(f) => self.for_loop(f)?,
            Stmt::Break(_) => {
                let (_, exit) = *self.loops.last().ok_or_else(|| LowerError { message: "`break` outside a loop".into(), range: span })?;
                self.seal(Terminator::Jump(exit));
            }
            Stmt::Continue(_) => {
                let (next, _) = *self.loops.last().ok_or_else(|| LowerError { message: "`continue` outside a loop".into(), range: span })?;
                self.seal(Terminator::Jump(next));
            }
            Stmt::Return(r) => {
                let value = match &r.value {
                    // `return f()` of a function that returns nothing returns nothing.
                    Some(v) if !self.func.is_kernel && !v.is_none_literal_expr() && self.func.ret == Type::None => {
                        self.any_expr(v)?;
                        None
                    }
                    Some(v) if !self.func.is_kernel && !v.is_none_literal_expr() => {
                        let x = self.expr(v)?;
                        let ret = self.func.ret.clone();
                        Some(self.cast_to_type(x, &ret, span)?)
                    }
                    _ => self.none_return(span)?,
                };
                self.seal(Terminator::Return(value));
            }
            // Without debug=True a failing assert or a raise ends the thread silently.
            Stmt::Assert(a) => {
                let c = self.expr(&a.test)?;
                let ok = self.truth(c, a.test.range())?;
                let (pass, fail) = (self.new_block(), self.new_block());
                self.terminate(Terminator::Branch { cond: ok, then: pass, otherwise: fail });
                self.switch_to(fail);
                let exit = self.exit();
                self.terminate(exit);
                self.switch_to(pass);
            }
            Stmt::Raise(_) => {
                let exit = self.exit();
                self.seal(exit);
            }
            // A closure computes nothing where it is defined: its calls call it (typing
            // accepted only closures).
            Stmt::FunctionDef(d) if d.decorator_list.is_empty() => {}
            Stmt::Match(m) => {
                let chain = crate::analysis::match_stmt::match_as_if(m).map_err(|r| LowerError { message: r.message.into(), range: r.range })?;
                self.block(&chain)?;
            }
            other => return unsupported(statement_name(other), span),
        }
        Ok(())
    }

    fn assign(&mut self, target: &Expr, v: ValueId) -> LResult<()> {
        let span = target.range();
        match target {
            Expr::Name(n) => self.write(n.id.as_str(), v, span),
            Expr::Subscript(s) => {
                if let Some(array) = self.flat_base(&s.value) {
                    return self.flat_store(array, &s.slice, v, span);
                }
                if self.record_store(&s.value, FieldKey::Index(&s.slice), FieldUpdate::Set(v), span)? {
                    return Ok(());
                }
                if self.objects(&s.value) {
                    return unsupported("indexing a flat iterator held in a variable (write `a.flat[i]`)", span);
                }
                let array = self.expr(&s.value)?;
                self.store(array, &s.slice, v, span)
            }
            Expr::Tuple(ast::ExprTuple { elts, .. }) | Expr::List(ast::ExprList { elts, .. }) => {
                let items: Vec<ValueId> = if matches!(self.ty(v), Type::Array { .. }) {
                    self.exit_unless_length(v, elts.len(), span);
                    (0..elts.len()).map(|i| {
                        let i = self.int(i as i128, span);
                        self.item_at(v, i, span)
                    }).collect()
                } else {
                    (0..elts.len()).map(|i| self.extract(v, i, span)).collect::<LResult<_>>()?
                };
                for (e, item) in elts.iter().zip(items) {
                    self.assign(e, item)?;
                }
                Ok(())
            }
            // Typing admits attribute stores on records only.
            Expr::Attribute(at) => {
                if self.record_store(&at.value, FieldKey::Name(at.attr.as_str()), FieldUpdate::Set(v), span)? {
                    return Ok(());
                }
                unsupported(&format!("assigning to `.{}`", at.attr), at.range())
            }
            _ => unsupported("this assignment target", span),
        }
    }

    fn aug_assign(&mut self, a: &ast::StmtAugAssign) -> LResult<()> {
        let span = a.range();
        match &*a.target {
            Expr::Name(n) => {
                let name = n.id.as_str();
                let rhs = self.expr(&a.value)?;
                // The variable's current type: the typing's for the target (the variable may
                // have other types elsewhere in the function), else its first slot.
                let candidates: Vec<Type> = self.slots.get(name).map(|v| v.iter().map(|(t, _)| t.clone()).collect()).unwrap_or_default();
                let current = self.expr_type(&a.target).ok().or_else(|| candidates.first().cloned());
                let current = current.ok_or_else(|| LowerError { message: format!("`{name}` is used before it is assigned").into(), range: span })?;
                let lhs = self.read(name, &current, span)?;
                let v = self.arith(a.op, lhs, rhs, None, span)?;
                self.write(name, v, span)
            }
            Expr::Subscript(s) if self.flat_base(&s.value).is_some() => {
                // `a.flat[i] += x`: the element read and written once each, at one index.
                let base = self.flat_base(&s.value).expect("checked");
                let array = self.expr(base)?;
                let i = self.expr(&s.slice)?;
                let (array, indices) = self.flat_element(array, i, span)?;
                let dtype = self.ty(array).dtype().cloned().unwrap_or(Type::Unknown);
                let space = self.space(array);
                let old = self.emit(Op::Load { array, indices: indices.clone(), space }, Some(dtype.clone()), span);
                let rhs = self.expr(&a.value)?;
                let v = self.arith(a.op, old, rhs, None, span)?;
                let value = self.cast_to_type(v, &dtype, span)?;
                self.emit_void(Op::Store { array, indices, value, space }, span);
                Ok(())
            }
            Expr::Subscript(s) if self.record_store(&s.value, FieldKey::Index(&s.slice), FieldUpdate::Aug(a.op, &a.value), span)? => Ok(()),
            Expr::Subscript(s) => {
                let array = self.expr(&s.value)?;
                let old = self.load(array, &s.slice, span)?;
                let rhs = self.expr(&a.value)?;
                let v = self.arith(a.op, old, rhs, None, span)?;
                self.store(array, &s.slice, v, span)
            }
            Expr::Attribute(at) if self.record_store(&at.value, FieldKey::Name(at.attr.as_str()), FieldUpdate::Aug(a.op, &a.value), span)? => Ok(()),
            Expr::Attribute(at) => unsupported(&format!("augmented assignment to `.{}`", at.attr), at.range()),
            _ => unsupported("this augmented assignment target", span),
        }
    }

    fn if_stmt(&mut self, s: &ast::StmtIf) -> LResult<()> {
        let exit = self.new_block();
        let mut clauses: Vec<(Option<&Expr>, &[Stmt])> = vec![(Some(&*s.test), &s.body)];
        clauses.extend(s.elif_else_clauses.iter().map(|c| (c.test.as_ref(), c.body.as_slice())));
        for (test, body) in clauses {
            // Numba prunes a branch it decides at compile time: the other side is not typed.
            match test.map(|t| (t, self.pruned(t))) {
                Some((_, Some(false))) => continue,
                Some((_, Some(true))) | None => {
                    self.block(body)?;
                    break;
                }
                Some((test, None)) => {
                    let (then, otherwise) = (self.new_block(), self.new_block());
                    self.branch_on(test, then, otherwise)?;
                    self.switch_to(then);
                    self.block(body)?;
                    self.terminate(Terminator::Jump(exit));
                    self.switch_to(otherwise);
                }
            }
        }
        self.terminate(Terminator::Jump(exit));
        self.switch_to(exit);
        Ok(())
    }

    /// Branch to `then` or `otherwise` on the truth of `test`. `and` and `or` branch operand
    /// by operand, as Python's bytecode (and so Numba's IR) does: each operand's outcome is
    /// a branch that dominates the code it guards, which `wraps` reads (`if i >= 1 and
    /// i < n: a[i - 1]` needs no negative-index wrap), not a value merged in a slot.
    fn branch_on(&mut self, test: &Expr, then: BlockId, otherwise: BlockId) -> LResult<()> {
        if let Expr::BoolOp(b) = test
            && let Some((last, leading)) = b.values.split_last()
        {
            let and = b.op == BoolOp::And;
            for value in leading {
                // An operand decided at compile time either always goes on or ends the chain
                // (it is still evaluated, as in `bool_op`).
                match self.pruned(value) {
                    Some(known) if known == and => continue,
                    Some(known) => {
                        self.expr(value)?;
                        self.terminate(Terminator::Jump(if known { then } else { otherwise }));
                        return Ok(());
                    }
                    None => {}
                }
                let next = self.new_block();
                let (on_true, on_false) = if and { (next, otherwise) } else { (then, next) };
                self.branch_on(value, on_true, on_false)?;
                self.switch_to(next);
            }
            return self.branch_on(last, then, otherwise);
        }
        let c = self.expr(test)?;
        let cond = self.truth(c, test.range())?;
        self.terminate(Terminator::Branch { cond, then, otherwise });
        Ok(())
    }

    /// The truth of a branch condition Numba decides at compile time.
    fn pruned(&self, test: &Expr) -> Option<bool> {
        let r = test.range();
        self.types.pruned.get(&(r.start().into(), r.end().into())).copied()
    }

    fn while_loop(&mut self, w: &ast::StmtWhile) -> LResult<()> {
        if self.pruned(&w.test) == Some(false) {
            // Numba prunes a loop whose condition it knows is false: only `else` runs.
            return self.block(&w.orelse);
        }
        let (header, body, orelse, exit) = (self.new_block(), self.new_block(), self.new_block(), self.new_block());
        self.terminate(Terminator::Jump(header));
        self.switch_to(header);
        self.branch_on(&w.test, body, orelse)?;
        self.switch_to(body);
        self.loops.push((header, exit));
        self.block(&w.body)?;
        self.loops.pop();
        self.terminate(Terminator::Jump(header));
        self.switch_to(orelse);
        self.block(&w.orelse)?;
        self.terminate(Terminator::Jump(exit));
        self.switch_to(exit);
        Ok(())
    }

    fn for_loop(&mut self, f: &ast::StmtFor) -> LResult<()> {
        let span = f.range();
        // The hidden counter, the bound and the step, then each element from the counter.
        let (counter_ty, start, stop, step, element): (Scalar, ValueId, ValueId, Option<i128>, Element) = match self.walked(&f.iter)? {
            Walked::Range(call, s) => {
                let args: Vec<ValueId> = call.arguments.args.iter().map(|a| self.expr(a)).collect::<LResult<_>>()?;
                let args: Vec<ValueId> = args.into_iter().map(|a| self.cast(a, s, span)).collect::<LResult<_>>()?;
                let step_const = match call.arguments.args.get(2) {
                    Some(e) => const_eval(e, self.scope).and_then(|c| c.as_int()),
                    None => Some(1),
                };
                let zero = self.constant(Constant::Int(0, s), span);
                let (start, stop, step) = match args.as_slice() {
                    [stop] => (zero, *stop, None),
                    [start, stop] => (*start, *stop, None),
                    [start, stop, step] => (*start, *stop, Some(*step)),
                    _ => return unsupported("`range` with these arguments", call.range()),
                };
                let step_value = match step {
                    Some(v) => v,
                    None => self.constant(Constant::Int(1, s), span),
                };
                // A zero step is Python's ValueError, which ends the thread.
                if step_const.is_none_or(|c| c == 0) {
                    let zero = self.constant(Constant::Int(0, s), span);
                    let is_zero = self.emit(Op::Compare(CompareOp::Eq, step_value, zero), Some(Type::Scalar(Scalar::Bool)), span);
                    self.exit_when(is_zero);
                }
                let slot = self.temp("step", &Type::Scalar(s));
                self.emit_void(Op::WriteSlot(slot, step_value), span);
                (s, start, stop, step_const, Element::Counter(slot))
            }
            Walked::Items(walk) => {
                let walker = self.lower_walk(walk)?;
                let len = self.walk_len(&walker, span);
                let zero = self.int(0, span);
                (Scalar::I64, zero, len, Some(1), Element::Items(walker))
            }
        };
        let counter = self.temp("counter", &Type::Scalar(counter_ty));
        self.emit_void(Op::WriteSlot(counter, start), span);
        let stop_slot = self.temp("stop", &Type::Scalar(counter_ty));
        self.emit_void(Op::WriteSlot(stop_slot, stop), span);
        let (header, body, latch, orelse, exit) =
            (self.new_block(), self.new_block(), self.new_block(), self.new_block(), self.new_block());
        self.terminate(Terminator::Jump(header));

        self.switch_to(header);
        let ct = Type::Scalar(counter_ty);
        let i = self.emit(Op::ReadSlot(counter), Some(ct.clone()), span);
        let stop = self.emit(Op::ReadSlot(stop_slot), Some(ct.clone()), span);
        let bool_t = Some(Type::Scalar(Scalar::Bool));
        let cond = match step {
            Some(s) if s > 0 => self.emit(Op::Compare(CompareOp::Lt, i, stop), bool_t, span),
            Some(_) => self.emit(Op::Compare(CompareOp::Gt, i, stop), bool_t, span),
            None => {
                // The step's sign is known only at run time: `step > 0 ? i < stop : i > stop`.
                let Element::Counter(step_slot) = element else { unreachable!() };
                let step = self.emit(Op::ReadSlot(step_slot), Some(ct.clone()), span);
                let zero = self.constant(Constant::Int(0, counter_ty), span);
                let up = self.emit(Op::Compare(CompareOp::Gt, step, zero), bool_t.clone(), span);
                let lt = self.emit(Op::Compare(CompareOp::Lt, i, stop), bool_t.clone(), span);
                let gt = self.emit(Op::Compare(CompareOp::Gt, i, stop), bool_t.clone(), span);
                self.emit(Op::Select { cond: up, then: lt, otherwise: gt }, bool_t, span)
            }
        };
        self.terminate(Terminator::Branch { cond, then: body, otherwise: orelse });

        self.switch_to(body);
        let value = match &element {
            Element::Counter(_) => i,
            Element::Items(walker) => self.walk_item(walker, i, span)?,
        };
        self.assign(&f.target, value)?;
        self.loops.push((latch, exit));
        self.block(&f.body)?;
        self.loops.pop();
        self.terminate(Terminator::Jump(latch));

        self.switch_to(latch);
        let i = self.emit(Op::ReadSlot(counter), Some(ct.clone()), span);
        let step_v = match element {
            Element::Counter(step_slot) => self.emit(Op::ReadSlot(step_slot), Some(ct.clone()), span),
            Element::Items(..) => self.int(1, span),
        };
        let next = self.emit(Op::Binary(BinaryOp::Add, i, step_v), Some(ct), span);
        self.emit_void(Op::WriteSlot(counter, next), span);
        self.terminate(Terminator::Jump(header));

        self.switch_to(orelse);
        self.block(&f.orelse)?;
        self.terminate(Terminator::Jump(exit));
        self.switch_to(exit);
        Ok(())
    }

    /// Classify a `for` loop's iterable: a range, or sequences (possibly in enumerate/zip).
    fn walked<'e>(&self, iter: &'e Expr) -> LResult<Walked<'e>> {
        if let Expr::Call(call) = iter
            && let Type::Range(s) = self.expr_type(iter).unwrap_or(Type::Unknown)
        {
            return Ok(Walked::Range(call, s));
        }
        Ok(Walked::Items(self.walk(iter)?))
    }

    fn walk<'e>(&self, iter: &'e Expr) -> LResult<Walk<&'e Expr>> {
        if let Expr::Call(call) = iter
            && call.arguments.keywords.is_empty()
            && let Expr::Name(n) = &*call.func
            && !self.locals.contains(n.id.as_str())
            && self.scope.binding(n.id.as_str()).is_none()
        {
            match (n.id.as_str(), &call.arguments.args[..]) {
                ("enumerate", [seq]) => return Ok(Walk::Enumerate(Box::new(self.walk(seq)?), None)),
                ("enumerate", [seq, start]) => return Ok(Walk::Enumerate(Box::new(self.walk(seq)?), Some(start))),
                ("zip", seqs) if !seqs.is_empty() => return Ok(Walk::Zip(seqs.iter().map(|s| self.walk(s)).collect::<LResult<_>>()?)),
                _ => {}
            }
        }
        // A range (in `enumerate`/`zip`, or a variable holding one): its values, counted as
        // Numba's range iterator counts them.
        if let Ok(Type::Range(s)) = self.expr_type(iter) {
            return Ok(Walk::Range(vec![iter], s));
        }
        if let Some(array) = self.flat_base(iter) {
            return Ok(Walk::Flat(array));
        }
        match self.expr_type(iter)? {
            Type::Array { .. } | Type::UniTuple(..) => Ok(Walk::Seq(iter)),
            other => unsupported(&format!("a `for` loop over {other}"), iter.range()),
        }
    }

    fn lower_walk(&mut self, walk: Walk<&Expr>) -> LResult<Walk<ValueId>> {
        Ok(match walk {
            Walk::Seq(e) => Walk::Seq(self.expr(e)?),
            Walk::Flat(e) => Walk::Flat(self.expr(e)?),
            Walk::Range(range, s) => {
                // `range(a, b)`, `range(a, b, 2)`: a step Numba knows is not 0 needs no check.
                let checked = match range[0] {
                    Expr::Call(call) if matches!(&*call.func, Expr::Name(n) if n.id.as_str() == "range") => {
                        call.arguments.args.get(2).is_some_and(|step| self.const_int(step).is_none_or(|k| k == 0))
                    }
                    _ => true,
                };
                let r = self.expr(range[0])?;
                self.range_walk(r, s, checked, range[0].range())?
            }
            Walk::Enumerate(inner, start) => {
                let inner = self.lower_walk(*inner)?;
                let start = match start {
                    Some(e) => {
                        let v = self.expr(e)?;
                        Some(self.cast(v, Scalar::I64, e.range())?)
                    }
                    None => None,
                };
                Walk::Enumerate(Box::new(inner), start)
            }
            Walk::Zip(walks) => Walk::Zip(walks.into_iter().map(|w| self.lower_walk(w)).collect::<LResult<_>>()?),
        })
    }

    /// A range value walked (inside `enumerate`/`zip`, or held by a variable): its start and
    /// step (of the range's type) and its int64 item count, computed as Numba's `RangeIter`
    /// computes it (`numba/cpython/rangeobj.py`: in the range's type with signed operations,
    /// also for a uint64 range; 0 when the step's sign differs from `stop - start`'s, else
    /// `ceil((stop - start) / step)`). A step of 0 raises (`ValueError`), ending the thread;
    /// `checked` is false where the step is a known non-zero constant.
    fn range_walk(&mut self, range: ValueId, s: Scalar, checked: bool, span: TextRange) -> LResult<Walk<ValueId>> {
        let count = self.range_count(range, s, checked, span)?;
        let start = self.extract(range, 0, span)?;
        let step = self.extract(range, 2, span)?;
        Ok(Walk::Range(vec![start, step, count], s))
    }

    /// The int64 number of items of a range value (see [`Self::range_walk`]).
    fn range_count(&mut self, range: ValueId, s: Scalar, checked: bool, span: TextRange) -> LResult<ValueId> {
        let start = self.extract(range, 0, span)?;
        let stop = self.extract(range, 1, span)?;
        let step = self.extract(range, 2, span)?;
        // Signed arithmetic in the range's width.
        let w = match s {
            Scalar::U64 => Scalar::I64,
            other => other,
        };
        let wt = Some(Type::Scalar(w));
        let boolt = Some(Type::Scalar(Scalar::Bool));
        let (start_w, stop_w, step_w) = (self.cast(start, w, span)?, self.cast(stop, w, span)?, self.cast(step, w, span)?);
        let zero = self.constant(Constant::Int(0, w), span);
        if checked {
            let is_zero = self.emit(Op::Compare(CompareOp::Eq, step_w, zero), boolt.clone(), span);
            self.exit_when(is_zero);
        }
        let diff = self.emit(Op::Binary(BinaryOp::Sub, stop_w, start_w), wt.clone(), span);
        let pos_diff = self.emit(Op::Compare(CompareOp::Gt, diff, zero), boolt.clone(), span);
        let pos_step = self.emit(Op::Compare(CompareOp::Gt, step_w, zero), boolt.clone(), span);
        // The signs agree: the quotient is not negative, so floor and truncation agree.
        let quotient = self.emit(Op::Binary(BinaryOp::FloorDiv, diff, step_w), wt.clone(), span);
        let rem = self.emit(Op::Binary(BinaryOp::FloorMod, diff, step_w), wt.clone(), span);
        let uneven = self.emit(Op::Compare(CompareOp::Ne, rem, zero), boolt.clone(), span);
        let one = self.constant(Constant::Int(1, w), span);
        let extra = self.emit(Op::Select { cond: uneven, then: one, otherwise: zero }, wt.clone(), span);
        let count = self.emit(Op::Binary(BinaryOp::Add, quotient, extra), wt.clone(), span);
        let none = self.emit(Op::Select { cond: pos_step, then: zero, otherwise: count }, wt.clone(), span);
        let some = self.emit(Op::Select { cond: pos_step, then: count, otherwise: zero }, wt.clone(), span);
        let count = self.emit(Op::Select { cond: pos_diff, then: some, otherwise: none }, wt, span);
        self.cast(count, Scalar::I64, span)
    }

    fn walk_len(&mut self, walk: &Walk<ValueId>, span: TextRange) -> ValueId {
        match walk {
            Walk::Seq(seq) => match self.ty(*seq).clone() {
                Type::UniTuple(_, n) => self.int(n as i128, span),
                _ => self.emit(Op::Extent { array: *seq, axis: 0 }, Some(Type::Scalar(Scalar::I64)), span),
            },
            Walk::Flat(array) => {
                let ndim = self.ty(*array).ndim().unwrap_or(0);
                self.element_count(*array, ndim, span)
            }
            Walk::Range(values, _) => values[2],
            Walk::Enumerate(inner, _) => self.walk_len(inner, span),
            Walk::Zip(walks) => {
                let mut shortest = self.walk_len(&walks[0], span);
                for w in &walks[1..] {
                    let n = self.walk_len(w, span);
                    let shorter = self.emit(Op::Compare(CompareOp::Lt, n, shortest), Some(Type::Scalar(Scalar::Bool)), span);
                    shortest = self.emit(Op::Select { cond: shorter, then: n, otherwise: shortest }, Some(Type::Scalar(Scalar::I64)), span);
                }
                shortest
            }
        }
    }

    fn walk_item(&mut self, walk: &Walk<ValueId>, i: ValueId, span: TextRange) -> LResult<ValueId> {
        Ok(match walk {
            Walk::Seq(seq) => self.item_at(*seq, i, span),
            Walk::Flat(array) => {
                let (array, indices) = self.flat_element(*array, i, span)?;
                let dtype = self.ty(array).dtype().cloned().unwrap_or(Type::Unknown);
                let space = self.space(array);
                self.emit(Op::Load { array, indices, space }, Some(dtype), span)
            }
            // Item `i` of a range: `start + i * step`, wrapping in the range's type as
            // Numba's repeated `+= step` does.
            Walk::Range(values, s) => {
                let t = Some(Type::Scalar(*s));
                let i = self.cast(i, *s, span)?;
                let offset = self.emit(Op::Binary(BinaryOp::Mul, i, values[1]), t.clone(), span);
                self.emit(Op::Binary(BinaryOp::Add, values[0], offset), t, span)
            }
            Walk::Enumerate(inner, start) => {
                let item = self.walk_item(inner, i, span)?;
                let index = match start {
                    Some(start) => self.emit(Op::Binary(BinaryOp::Add, i, *start), Some(Type::Scalar(Scalar::I64)), span),
                    None => i,
                };
                let ty = Type::Tuple(vec![Type::Scalar(Scalar::I64), self.ty(item).clone()]);
                self.emit(Op::MakeTuple(vec![index, item]), Some(ty), span)
            }
            Walk::Zip(walks) => {
                let items: Vec<ValueId> = walks.iter().map(|w| self.walk_item(w, i, span)).collect::<LResult<_>>()?;
                let ty = Type::tuple(items.iter().map(|&v| self.ty(v).clone()).collect());
                self.emit(Op::MakeTuple(items), Some(ty), span)
            }
        })
    }

    /// Item `i` of an array (an element, or a view of one fewer dimension) or of a tuple.
    fn item_at(&mut self, seq: ValueId, i: ValueId, span: TextRange) -> ValueId {
        match self.ty(seq).clone() {
            Type::UniTuple(e, _) => self.emit(Op::TupleGet(seq, i), Some((*e).clone()), span),
            Type::Array { dtype, ndim: 1, .. } => {
                let space = self.space(seq);
                self.emit(Op::Load { array: seq, indices: vec![i], space }, Some((*dtype).clone()), span)
            }
            Type::Array { dtype, ndim, readonly, .. } => {
                let space = self.space(seq);
                let view = Type::Array { dtype, ndim: ndim - 1, layout: Layout::A, readonly };
                let v = self.emit(Op::SubArray { array: seq, indices: vec![i] }, Some(view), span);
                self.spaces.insert(v, space);
                v
            }
            _ => unreachable!("walk() admits arrays and tuples only"),
        }
    }

    // ---- memory ------------------------------------------------------------------------

    fn space(&self, array: ValueId) -> MemorySpace {
        self.spaces.get(&array).copied().unwrap_or(MemorySpace::Global)
    }

    /// Lower an array subscript: int64 indices for an element, each wrapped once if
    /// negative, or a view (`m[i]` on a 2-D array, slices and new axes) of the type Numba
    /// gives it.
    fn subscript(&mut self, array: ValueId, slice: &Expr, span: TextRange) -> LResult<Access> {
        let Type::Array { dtype, ndim, layout, readonly } = self.ty(array).clone() else {
            if let Type::Record(_) = self.ty(array) {
                return unsupported("record field access (`r[\"x\"]`)", span);
            }
            return unsupported(&format!("indexing {}", self.ty(array)), span);
        };
        let exprs: Vec<&Expr> = match slice {
            Expr::Tuple(t) => t.elts.iter().collect(),
            other => vec![other],
        };
        let mut parts = Vec::new();
        let mut kinds = Vec::new();
        let mut axis = 0;
        // The axes `...` stands for: those the other indices leave.
        let indexed: usize = exprs
            .iter()
            .map(|e| match e {
                Expr::NoneLiteral(_) | Expr::EllipsisLiteral(_) => 0,
                Expr::Slice(_) => 1,
                e => self.expr_type(e).map_or(1, |t| match t {
                    t @ (Type::UniTuple(..) | Type::Tuple(_)) if !matches!(slice, Expr::Tuple(_)) => tuple_length(&t).unwrap_or(0),
                    _ => 1,
                }),
            })
            .sum();
        for part in exprs {
            match part {
                Expr::Slice(s) => {
                    parts.push(self.slice_range(array, axis, s)?);
                    kinds.push((Index::Slice { has_step: s.step.is_some() }, part.range()));
                    axis += 1;
                }
                Expr::NoneLiteral(_) => {
                    parts.push(SlicePart::NewAxis);
                    kinds.push((Index::None, part.range()));
                }
                Expr::EllipsisLiteral(_) => {
                    kinds.push((Index::Ellipsis, part.range()));
                    for _ in indexed..ndim as usize {
                        let start = self.int(0, part.range());
                        let len = self.emit(Op::Extent { array, axis: axis as u8 }, Some(Type::Scalar(Scalar::I64)), part.range());
                        parts.push(SlicePart::Range { start, len, step: None });
                        axis += 1;
                    }
                }
                _ => {
                    let raw = self.expr(part)?;
                    // `a[idx]` with a tuple `idx` indexes one axis per item.
                    let items = match self.ty(raw).clone() {
                        t @ (Type::UniTuple(..) | Type::Tuple(_)) if !matches!(slice, Expr::Tuple(_)) => {
                            (0..tuple_length(&t).unwrap_or(0)).map(|i| self.extract(raw, i, part.range())).collect::<LResult<Vec<_>>>()?
                        }
                        _ => vec![raw],
                    };
                    for item in items {
                        let Some(s) = scalar(self.ty(item)) else {
                            return unsupported(&format!("an index of type {}", self.ty(item)), part.range());
                        };
                        if s.is_float() {
                            return Err(LowerError { message: format!("an array index must be an integer, not {s}").into(), range: part.range() });
                        }
                        let index = self.cast(item, Scalar::I64, part.range())?;
                        let wrapped = if s.is_unsigned_int() || is_nonnegative_literal(part) { index } else { self.wrap_index(array, axis, index, span) };
                        parts.push(SlicePart::Index(wrapped));
                        kinds.push((Index::Int, part.range()));
                        axis += 1;
                    }
                }
            }
        }
        if axis > ndim as usize {
            return Err(LowerError { message: format!("too many indices for a {ndim}-d array").into(), range: slice.range() });
        }
        let view = array_index(&dtype, ndim, layout, readonly, &kinds).map_err(|message| LowerError { message: message.into(), range: span })?;
        let space = self.space(array);
        let indices: Option<Vec<ValueId>> = parts.iter().map(|p| if let SlicePart::Index(i) = p { Some(*i) } else { None }).collect();
        let v = match indices {
            Some(indices) if indices.len() == ndim as usize => return Ok(Access::Element(indices)),
            Some(indices) => self.emit(Op::SubArray { array, indices }, Some(view), span),
            None => self.emit(Op::Slice { array, parts }, Some(view), span),
        };
        self.spaces.insert(v, space);
        Ok(Access::View(v))
    }

    /// One axis of a slice, Python's way (`PySlice_AdjustIndices`, as Numba's `fix_slice`
    /// and `get_slice_length` compute it): an omitted bound is the start or end in the
    /// step's direction; a negative bound counts from the end once; then bounds are clamped
    /// to `[0, n]` (to `[-1, n - 1]` for a negative step), and the length is
    /// `max(0, ceil((stop - start) / step))`. A step of 0 is Numba's `ValueError`, which
    /// ends the thread (without `debug=True`).
    fn slice_range(&mut self, array: ValueId, axis: usize, s: &ast::ExprSlice) -> LResult<SlicePart> {
        let span = s.range();
        let i64t = Some(Type::Scalar(Scalar::I64));
        let boolt = Some(Type::Scalar(Scalar::Bool));
        // Python evaluates the bounds left to right.
        let start = self.slice_bound(s.lower.as_deref())?;
        let stop = self.slice_bound(s.upper.as_deref())?;
        let step = self.slice_bound(s.step.as_deref())?;
        let sign = match step {
            None => Sign::Up(1),
            Some(v) => match s.step.as_deref().and_then(|e| self.const_int(e)).or_else(|| self.int_constant(v)) {
                Some(k) if k > 0 => Sign::Up(k),
                Some(k) if k < 0 => Sign::Down,
                _ => {
                    let zero = self.int(0, span);
                    let is_zero = self.emit(Op::Compare(CompareOp::Eq, v, zero), boolt.clone(), span);
                    self.exit_when(is_zero);
                    let negative = self.emit(Op::Compare(CompareOp::Lt, v, zero), boolt.clone(), span);
                    Sign::Unknown(negative)
                }
            },
        };
        let size = self.emit(Op::Extent { array, axis: axis as u8 }, i64t.clone(), span);
        let zero = self.int(0, span);
        // Where a bound below the axis goes, and one at or past its end.
        let lower = match sign {
            Sign::Up(_) => zero,
            Sign::Down => self.int(-1, span),
            Sign::Unknown(negative) => {
                let minus_one = self.int(-1, span);
                self.emit(Op::Select { cond: negative, then: minus_one, otherwise: zero }, i64t.clone(), span)
            }
        };
        let upper = match sign {
            Sign::Up(_) => size,
            Sign::Down | Sign::Unknown(_) => {
                let one = self.int(1, span);
                let last = self.emit(Op::Binary(BinaryOp::Sub, size, one), i64t.clone(), span);
                match sign {
                    Sign::Unknown(negative) => self.emit(Op::Select { cond: negative, then: last, otherwise: size }, i64t.clone(), span),
                    _ => last,
                }
            }
        };
        let start = match start {
            Some(b) => self.clamp_bound(array, axis, b, s.lower.as_deref(), (lower, upper, size), span),
            // The first element in the step's direction: 0, or the last one.
            None => match sign {
                Sign::Up(_) => zero,
                Sign::Down => upper,
                Sign::Unknown(negative) => self.emit(Op::Select { cond: negative, then: upper, otherwise: zero }, i64t.clone(), span),
            },
        };
        let stop = match stop {
            Some(b) => self.clamp_bound(array, axis, b, s.upper.as_deref(), (lower, upper, size), span),
            // Past the end in the step's direction: the extent, or -1.
            None => match sign {
                Sign::Up(_) => size,
                Sign::Down => lower,
                Sign::Unknown(negative) => self.emit(Op::Select { cond: negative, then: lower, otherwise: size }, i64t.clone(), span),
            },
        };
        let delta = self.emit(Op::Binary(BinaryOp::Sub, stop, start), i64t.clone(), span);
        let len = if let Sign::Up(1) = sign {
            let positive = self.emit(Op::Compare(CompareOp::Gt, delta, zero), boolt.clone(), span);
            self.emit(Op::Select { cond: positive, then: delta, otherwise: zero }, i64t.clone(), span)
        } else {
            let step = step.expect("a step other than 1 is written");
            let one = self.int(1, span);
            let up_empty = |this: &mut Self| this.emit(Op::Compare(CompareOp::Le, delta, zero), boolt.clone(), span);
            let down_empty = |this: &mut Self| this.emit(Op::Compare(CompareOp::Ge, delta, zero), boolt.clone(), span);
            let up_dividend = |this: &mut Self| this.emit(Op::Binary(BinaryOp::Sub, delta, one), i64t.clone(), span);
            let down_dividend = |this: &mut Self| this.emit(Op::Binary(BinaryOp::Add, delta, one), i64t.clone(), span);
            let (empty, dividend) = match sign {
                Sign::Up(_) => (up_empty(self), up_dividend(self)),
                Sign::Down => (down_empty(self), down_dividend(self)),
                Sign::Unknown(negative) => {
                    let (ue, de) = (up_empty(self), down_empty(self));
                    let empty = self.emit(Op::Select { cond: negative, then: de, otherwise: ue }, boolt.clone(), span);
                    let (ud, dd) = (up_dividend(self), down_dividend(self));
                    (empty, self.emit(Op::Select { cond: negative, then: dd, otherwise: ud }, i64t.clone(), span))
                }
            };
            // Exact in both directions: the dividend has the step's sign, so floor is truncation.
            let quotient = self.emit(Op::Binary(BinaryOp::FloorDiv, dividend, step), i64t.clone(), span);
            let nominal = self.emit(Op::Binary(BinaryOp::Add, quotient, one), i64t.clone(), span);
            self.emit(Op::Select { cond: empty, then: zero, otherwise: nominal }, i64t.clone(), span)
        };
        Ok(SlicePart::Range { start, len, step })
    }

    /// A slice bound as int64, or `None` when omitted (or written `None`).
    fn slice_bound(&mut self, e: Option<&Expr>) -> LResult<Option<ValueId>> {
        let Some(e) = e.filter(|e| !e.is_none_literal_expr()) else { return Ok(None) };
        let v = self.expr(e)?;
        match scalar(self.ty(v)) {
            Some(s) if s.is_int() => Ok(Some(self.cast(v, Scalar::I64, e.range())?)),
            _ => Err(LowerError { message: format!("a slice bound must be an integer, not {}", self.ty(v)).into(), range: e.range() }),
        }
    }

    /// A bound given in a slice, made a position: wrapped once when negative, then `lower`
    /// when still below 0 and `upper` when at or past the extent.
    fn clamp_bound(&mut self, array: ValueId, axis: usize, b: ValueId, e: Option<&Expr>, (lower, upper, size): (ValueId, ValueId, ValueId), span: TextRange) -> ValueId {
        let i64t = Some(Type::Scalar(Scalar::I64));
        let boolt = Some(Type::Scalar(Scalar::Bool));
        let nonnegative = e.is_some_and(is_nonnegative_literal);
        let wrapped = if nonnegative { b } else { self.wrap_index(array, axis, b, span) };
        let over = self.emit(Op::Compare(CompareOp::Ge, wrapped, size), boolt.clone(), span);
        let clamped = self.emit(Op::Select { cond: over, then: upper, otherwise: wrapped }, i64t.clone(), span);
        if nonnegative {
            return clamped;
        }
        let zero = self.int(0, span);
        let under = self.emit(Op::Compare(CompareOp::Lt, wrapped, zero), boolt, span);
        self.emit(Op::Select { cond: under, then: lower, otherwise: clamped }, i64t, span)
    }

    /// The value of an integer expression Numba knows at compile time (literals and module
    /// constants; a local variable of the same name hides a constant).
    fn const_int(&self, e: &Expr) -> Option<i128> {
        struct Locals<'l>(&'l BTreeSet<String>, bool);
        impl<'a> Visitor<'a> for Locals<'_> {
            fn visit_expr(&mut self, expr: &'a Expr) {
                if let Expr::Name(n) = expr {
                    self.1 |= self.0.contains(n.id.as_str());
                }
                visitor::walk_expr(self, expr);
            }
        }
        let mut locals = Locals(&self.locals, false);
        locals.visit_expr(e);
        if locals.1 {
            return None;
        }
        const_eval(e, self.scope).and_then(|c| c.as_int())
    }

    /// The product of an array's extents, as an int64.
    fn element_count(&mut self, array: ValueId, ndim: u8, span: TextRange) -> ValueId {
        let i64t = Some(Type::Scalar(Scalar::I64));
        let mut acc = self.emit(Op::Extent { array, axis: 0 }, i64t.clone(), span);
        for axis in 1..ndim {
            let d = self.emit(Op::Extent { array, axis }, i64t.clone(), span);
            acc = self.emit(Op::Binary(BinaryOp::Mul, acc, d), i64t.clone(), span);
        }
        acc
    }

    /// `idx < 0 ? idx + extent : idx` for an int64 index: wrapped once, no bounds check, as
    /// Numba does.
    fn wrap_index(&mut self, array: ValueId, axis: usize, index: ValueId, span: TextRange) -> ValueId {
        let extent = self.emit(Op::Extent { array, axis: axis as u8 }, Some(Type::Scalar(Scalar::I64)), span);
        let zero = self.int(0, span);
        let negative = self.emit(Op::Compare(CompareOp::Lt, index, zero), Some(Type::Scalar(Scalar::Bool)), span);
        let shifted = self.emit(Op::Binary(BinaryOp::Add, index, extent), Some(Type::Scalar(Scalar::I64)), span);
        self.emit(Op::Select { cond: negative, then: shifted, otherwise: index }, Some(Type::Scalar(Scalar::I64)), span)
    }

    fn load(&mut self, array: ValueId, slice: &Expr, span: TextRange) -> LResult<ValueId> {
        let ty = self.ty(array).clone();
        match &ty {
            Type::Array { dtype, .. } => match self.subscript(array, slice, span)? {
                Access::Element(indices) if matches!(**dtype, Type::Record(_)) => Ok(self.record_at(array, indices, span)),
                Access::Element(indices) => {
                    let space = self.space(array);
                    Ok(self.emit(Op::Load { array, indices, space }, Some((**dtype).clone()), span))
                }
                Access::View(v) => Ok(v),
            },
            Type::UniTuple(..) | Type::Tuple(_) if let Expr::Slice(sl) = slice => {
                let picked = crate::analysis::resolve::slice_positions(tuple_length(&ty).unwrap_or(0), sl, self.scope)
                    .ok_or_else(|| LowerError { message: "a tuple slice needs constant bounds".into(), range: span })?;
                let items = picked.into_iter().map(|i| self.extract(array, i, span)).collect::<LResult<Vec<_>>>()?;
                let tt = Type::tuple(items.iter().map(|&v| self.ty(v).clone()).collect());
                Ok(self.emit(Op::MakeTuple(items), Some(tt), span))
            }
            Type::UniTuple(..) | Type::Tuple(_) => {
                if let Some(i) = const_eval(slice, self.scope).and_then(|c| c.as_int()) {
                    let n = match &ty {
                        Type::UniTuple(_, n) => *n as i128,
                        Type::Tuple(items) => items.len() as i128,
                        _ => unreachable!(),
                    };
                    let i = if i < 0 { i + n } else { i };
                    return self.extract(array, i as usize, span);
                }
                // A run-time index reads the tuple unliteral: its items converted to their
                // one type (`(1, 2, 3)` as UniTuple(int64 x 3)).
                let uni = unliteral(&ty);
                let Type::UniTuple(e, _) = &uni else {
                    return unsupported("a run-time index into a heterogeneous tuple", span);
                };
                let e = (**e).clone();
                let tuple = self.cast_to_type(array, &uni, span)?;
                let raw = self.expr(slice)?;
                let i = self.cast(raw, Scalar::I64, span)?;
                Ok(self.emit(Op::TupleGet(tuple, i), Some(e), span))
            }
            other => unsupported(&format!("indexing {other}"), span),
        }
    }

    fn store(&mut self, array: ValueId, slice: &Expr, value: ValueId, span: TextRange) -> LResult<()> {
        let Type::Array { dtype, .. } = self.ty(array).clone() else {
            return unsupported(&format!("item assignment on {}", self.ty(array)), span);
        };
        match self.subscript(array, slice, span)? {
            Access::Element(indices) if matches!(*dtype, Type::Record(_)) => {
                let target = self.record_at(array, indices, span);
                self.copy_record(target, value, span)
            }
            Access::Element(indices) => {
                let value = self.cast_to_type(value, &dtype, span)?;
                let space = self.space(array);
                self.emit_void(Op::Store { array, indices, value, space }, span);
                Ok(())
            }
            Access::View(view) => self.fill(view, value, span),
        }
    }

    /// Assignment to a view (`a[1:3] = 0`, `m[i] = x`, `a[:2] = (x, y)`), as Numba's
    /// `fancy_setslice`: a scalar is stored into every element, in C order; a homogeneous
    /// tuple into a 1-D view of its length, item by item (another length is Numba's
    /// `ValueError`, which ends the thread).
    fn fill(&mut self, view: ValueId, value: ValueId, span: TextRange) -> LResult<()> {
        let Type::Array { dtype, ndim, .. } = self.ty(view).clone() else {
            return unsupported(&format!("item assignment on {}", self.ty(view)), span);
        };
        let space = self.space(view);
        match self.ty(value).clone() {
            Type::UniTuple(_, n) if ndim == 1 => {
                self.exit_unless_length(view, n, span);
                for k in 0..n {
                    let item = self.extract(value, k, span)?;
                    let item = self.cast_to_type(item, &dtype, span)?;
                    let index = self.int(k as i128, span);
                    self.emit_void(Op::Store { array: view, indices: vec![index], value: item, space }, span);
                }
                Ok(())
            }
            t if scalar(&t).is_some() => {
                let value = self.cast_to_type(value, &dtype, span)?;
                let (indices, loops) = self.open_element_loops(view, false, span);
                self.emit_void(Op::Store { array: view, indices, value, space }, span);
                self.close_element_loops(loops, span);
                Ok(())
            }
            Type::Array { .. } => unsupported("assigning an array to a slice (Numba needs NRT for it)", span),
            other => unsupported(&format!("assigning {other} to a slice"), span),
        }
    }

    // ---- expressions -------------------------------------------------------------------

    /// An expression used as a value: an operand, an argument, an assigned value. A call of
    /// a function that returns nothing is Numba's `none` there (`r = f()`, then `r is None`).
    fn expr(&mut self, expr: &Expr) -> LResult<ValueId> {
        let v = self.any_expr(expr)?;
        Ok(if v == VOID { self.none_value(expr.range()) } else { v })
    }

    /// An expression, which may have no value ([`VOID`]): an expression statement.
    fn any_expr(&mut self, expr: &Expr) -> LResult<ValueId> {
        let span = expr.range();
        match expr {
            Expr::NumberLiteral(n) => match &n.value {
                Number::Int(i) => {
                    let v = i.as_i64().map(i128::from).or_else(|| i.as_u64().map(i128::from));
                    let v = v.ok_or_else(|| LowerError { message: "integer literal too large".into(), range: span })?;
                    let ty = if v > i64::MAX as i128 { Scalar::U64 } else { Scalar::I64 };
                    Ok(self.constant(Constant::Int(v, ty), span))
                }
                Number::Float(x) => Ok(self.constant(Constant::Float(*x, Scalar::F64), span)),
                Number::Complex { real, imag } => Ok(self.complex_constant(*real, *imag, span)),
            },
            Expr::BooleanLiteral(b) => Ok(self.constant(Constant::Bool(b.value), span)),
            Expr::NoneLiteral(_) => Ok(self.none_value(span)),
            Expr::Name(n) => self.name(n.id.as_str(), expr),
            // CPython folds operations on constants (`2**63`): Numba sees the constant.
            Expr::BinOp(_) if let Some(&Type::IntLiteral(v)) = self.literal_type(expr) => {
                let ty = if v > i64::MAX as i128 { Scalar::U64 } else { Scalar::I64 };
                Ok(self.constant(Constant::Int(v, ty), span))
            }
            Expr::BinOp(_) if let Some(x) = folded_float(expr) => Ok(self.constant(Constant::Float(x, Scalar::F64), span)),
            Expr::BinOp(b) if let Some(folded) = folded_tuple(b) => self.expr(&folded),
            Expr::BinOp(b) => {
                let l = self.expr(&b.left)?;
                let r = self.expr(&b.right)?;
                let result = self.expr_type(expr)?;
                self.arith(b.op, l, r, scalar(&result), span)
            }
            Expr::UnaryOp(u) => {
                let v = self.expr(&u.operand)?;
                let result = scalar(&self.expr_type(expr)?);
                self.unary(u.op, v, result, span)
            }
            Expr::Compare(c) => self.compare(c),
            Expr::BoolOp(b) => self.bool_op(b, expr),
            Expr::If(e) if self.pruned(&e.test).is_some() => {
                let branch = if self.pruned(&e.test) == Some(true) { &e.body } else { &e.orelse };
                let result = self.expr_type(expr)?;
                let v = self.expr(branch)?;
                self.cast_to_type(v, &result, span)
            }
            Expr::If(e) => {
                let result = self.expr_type(expr)?;
                let slot = self.temp("if", &result);
                let c = self.expr(&e.test)?;
                let cond = self.truth(c, e.test.range())?;
                let (then, otherwise, exit) = (self.new_block(), self.new_block(), self.new_block());
                self.terminate(Terminator::Branch { cond, then, otherwise });
                for (block, branch) in [(then, &e.body), (otherwise, &e.orelse)] {
                    self.switch_to(block);
                    let v = self.expr(branch)?;
                    let v = self.cast_to_type(v, &result, span)?;
                    self.emit_void(Op::WriteSlot(slot, v), span);
                    self.terminate(Terminator::Jump(exit));
                }
                self.switch_to(exit);
                Ok(self.emit(Op::ReadSlot(slot), Some(result), span))
            }
            Expr::Tuple(t) => {
                let mut items = Vec::new();
                for e in &t.elts {
                    if let Expr::Starred(star) = e {
                        let spliced = self.expr(&star.value)?;
                        items.extend(self.tuple_items(spliced, span)?);
                    } else {
                        items.push(self.expr(e)?);
                    }
                }
                Ok(self.make_tuple(items, span))
            }
            Expr::Subscript(s) => {
                if let Expr::StringLiteral(name) = &*s.slice
                    && let Some(v) = self.enum_member(expr, &s.value, name.value.to_str(), span)?
                {
                    return Ok(v);
                }
                if let Some(array) = self.flat_base(&s.value) {
                    return self.flat_load(array, &s.slice, span);
                }
                if self.objects(&s.value) {
                    return unsupported("indexing a flat iterator held in a variable (write `a.flat[i]`)", span);
                }
                if let Some(v) = self.record_load(&s.value, FieldKey::Index(&s.slice), span)? {
                    return Ok(v);
                }
                let base = self.expr(&s.value)?;
                self.load(base, &s.slice, span)
            }
            Expr::Attribute(a) => self.attribute(a, expr),
            Expr::Call(call) => self.call(call, expr),
            _ => unsupported("this expression", span),
        }
    }

    /// `op v` with the typing's `result` scalar (`-x`, or `operator.neg(x)`).
    fn unary(&mut self, op: ast::UnaryOp, v: ValueId, result: Option<Scalar>, span: TextRange) -> LResult<ValueId> {
        let v = self.unwrap_optional(v, span)?;
        match op {
            ast::UnaryOp::Not => {
                let t = self.truth(v, span)?;
                Ok(self.emit(Op::Unary(UnaryOp::Not, t), Some(Type::Scalar(Scalar::Bool)), span))
            }
            ast::UnaryOp::UAdd => self.cast(v, result.unwrap_or(Scalar::I64), span),
            // On a bool, `~` is `not` and `-` negates it as an int64 (Numba's rules).
            ast::UnaryOp::Invert if scalar(self.ty(v)) == Some(Scalar::Bool) => {
                Ok(self.emit(Op::Unary(UnaryOp::Not, v), Some(Type::Scalar(Scalar::Bool)), span))
            }
            ast::UnaryOp::USub if scalar(self.ty(v)).is_some_and(Scalar::is_complex) => self.complex_negate(v, span),
            ast::UnaryOp::USub if scalar(self.ty(v)) == Some(Scalar::Bool) => {
                let wide = self.cast(v, Scalar::I64, span)?;
                Ok(self.emit(Op::Unary(UnaryOp::Neg, wide), Some(Type::Scalar(Scalar::I64)), span))
            }
            op => {
                // At the operand's own width, then widened (Numba's unary rule).
                let ty = self.ty(v).clone();
                let op = if op == ast::UnaryOp::USub { UnaryOp::Neg } else { UnaryOp::Invert };
                let x = self.emit(Op::Unary(op, v), Some(ty), span);
                self.cast(x, result.unwrap_or(Scalar::I64), span)
            }
        }
    }

    /// An arithmetic operator with Numba's conversions made explicit.
    fn arith(&mut self, op: Operator, l: ValueId, r: ValueId, result: Option<Scalar>, span: TextRange) -> LResult<ValueId> {
        // Tuple `+`: the items of both, in order.
        if op == Operator::Add && tuple_length(self.ty(l)).is_some() && tuple_length(self.ty(r)).is_some() {
            let mut items = self.tuple_items(l, span)?;
            items.extend(self.tuple_items(r, span)?);
            return Ok(self.make_tuple(items, span));
        }
        let (l, r) = (self.unwrap_optional(l, span)?, self.unwrap_optional(r, span)?);
        let (Some(a), Some(b)) = (scalar(self.ty(l)), scalar(self.ty(r))) else {
            return unsupported(&format!("`{}` on {} and {}", op.as_str(), self.ty(l), self.ty(r)), span);
        };
        let result = match result.or_else(|| binary_result(op, a, b)) {
            Some(s) => s,
            None => return Err(LowerError { message: format!("no implementation of `{}` for ({a}, {b})", op.as_str()).into(), range: span }),
        };
        if result.is_complex() {
            return self.complex_arith(op, l, r, result, span);
        }
        if op == Operator::Pow && result.is_float() && b.is_int() {
            return self.float_int_power(l, r, result, span);
        }
        let l = self.cast(l, result, span)?;
        let r = self.cast(r, result, span)?;
        if op == Operator::Pow && result.is_int() {
            return self.int_power(l, r, result, span);
        }
        let bop = match op {
            Operator::Add => BinaryOp::Add,
            Operator::Sub => BinaryOp::Sub,
            Operator::Mult => BinaryOp::Mul,
            Operator::Div => BinaryOp::TrueDiv,
            Operator::FloorDiv => BinaryOp::FloorDiv,
            Operator::Mod => BinaryOp::FloorMod,
            Operator::Pow => BinaryOp::Pow,
            Operator::BitAnd => BinaryOp::BitAnd,
            Operator::BitOr => BinaryOp::BitOr,
            Operator::BitXor => BinaryOp::BitXor,
            Operator::LShift => BinaryOp::Shl,
            Operator::RShift => BinaryOp::Shr,
            Operator::MatMult => return unsupported("`@`", span),
        };
        Ok(self.emit(Op::Binary(bop, l, r), Some(Type::Scalar(result)), span))
    }

    /// `x ** n` for a float `x` and an integer `n`, as Numba computes it: by repeated squaring
    /// in the result type (unrolled when `n` is a constant, `static_power_impl`; else the
    /// `int_power` intrinsic, `int_power_impl`), the reciprocal for a negative `n`.
    fn float_int_power(&mut self, x: ValueId, n: ValueId, result: Scalar, span: TextRange) -> LResult<ValueId> {
        let x = self.cast(x, result, span)?;
        let ty = Some(Type::Scalar(result));
        if let Some(k) = self.int_constant(n)
            && k.unsigned_abs() <= 0x10000
        {
            let one = self.constant(Constant::Float(1.0, result), span);
            let (mut acc, mut square, mut e) = (None, x, k.unsigned_abs());
            while e != 0 {
                if e & 1 == 1 {
                    acc = Some(match acc {
                        None => square,
                        Some(a) => self.emit(Op::Binary(BinaryOp::Mul, a, square), ty.clone(), span),
                    });
                }
                e >>= 1;
                if e != 0 {
                    square = self.emit(Op::Binary(BinaryOp::Mul, square, square), ty.clone(), span);
                }
            }
            let acc = acc.unwrap_or(one);
            return Ok(if k < 0 { self.emit(Op::Binary(BinaryOp::TrueDiv, one, acc), ty, span) } else { acc });
        }
        let n = self.cast(n, Scalar::I64, span)?;
        Ok(self.emit(Op::Intrinsic { name: "int_power".into(), args: vec![x, n] }, ty, span))
    }

    /// `a ** b` of two integers of the result type `s` (int64 or uint64), as numba-cuda's
    /// `int_power_impl` (`numba/cuda/cpython/numbers.py`) computes it, for every exponent
    /// (numba-cuda types a literal exponent as int64 too, so `static_power_impl` is never
    /// used for integers):
    /// - a negative `b`: `-b` still negative (the minimum) raises `OverflowError`, ending the
    ///   thread; a base of 0 gives the type's minimum (the NumPy error model's
    ///   `0 ** negative`), a base other than 1 and -1 gives 0;
    /// - `|b| > 0x10000`: `math.pow(float(a), float(b))` (libdevice `pow` in float64);
    /// - else binary exponentiation, wrapping ([`BinaryOp::Pow`]; ±1 for a negative `b`);
    ///
    /// and the result of the last two converted to float64 and back (`1.0 / r if invert
    /// else r` unifies to float64 there), so that results past 2^53 are rounded, with the
    /// GPU's saturating `cvt.rzi` (NaN gives 0).
    fn int_power(&mut self, a: ValueId, b: ValueId, s: Scalar, span: TextRange) -> LResult<ValueId> {
        let t = Some(Type::Scalar(s));
        let boolt = Some(Type::Scalar(Scalar::Bool));
        let slot = self.temp("pow", &Type::Scalar(s));
        let (big, small, done) = (self.new_block(), self.new_block(), self.new_block());
        let cutoff = self.constant(Constant::Int(0x10000, s), span);
        let exp = if s.is_signed() {
            let zero = self.constant(Constant::Int(0, s), span);
            let negative = self.emit(Op::Compare(CompareOp::Lt, b, zero), boolt.clone(), span);
            let (neg, fits) = (self.new_block(), self.new_block());
            self.terminate(Terminator::Branch { cond: negative, then: neg, otherwise: fits });
            self.switch_to(neg);
            let minus_b = self.emit(Op::Unary(UnaryOp::Neg, b), t.clone(), span);
            let overflow = self.emit(Op::Compare(CompareOp::Lt, minus_b, zero), boolt.clone(), span);
            self.exit_when(overflow);
            // A base of 0, then a base other than ±1: the result without the loop.
            let k = self.constant(Constant::Int(0, s), span);
            let is_zero = self.emit(Op::Compare(CompareOp::Eq, a, k), boolt.clone(), span);
            self.write_if(is_zero, slot, Constant::Int(-1i128 << (s.bits() - 1), s), done, span);
            let (one, minus_one) = (self.constant(Constant::Int(1, s), span), self.constant(Constant::Int(-1, s), span));
            let not_one = self.emit(Op::Compare(CompareOp::Ne, a, one), boolt.clone(), span);
            let not_minus_one = self.emit(Op::Compare(CompareOp::Ne, a, minus_one), boolt.clone(), span);
            let no = self.constant(Constant::Bool(false), span);
            let other = self.emit(Op::Select { cond: not_one, then: not_minus_one, otherwise: no }, boolt.clone(), span);
            self.write_if(other, slot, Constant::Int(0, s), done, span);
            self.terminate(Terminator::Jump(fits));
            self.switch_to(fits);
            let negative = self.emit(Op::Compare(CompareOp::Lt, b, zero), boolt.clone(), span);
            let minus_b = self.emit(Op::Unary(UnaryOp::Neg, b), t.clone(), span);
            self.emit(Op::Select { cond: negative, then: minus_b, otherwise: b }, t.clone(), span)
        } else {
            b
        };
        let over = self.emit(Op::Compare(CompareOp::Gt, exp, cutoff), boolt, span);
        self.terminate(Terminator::Branch { cond: over, then: big, otherwise: small });
        let f64t = Some(Type::Scalar(Scalar::F64));
        self.switch_to(big);
        let (x, y) = (self.cast(a, Scalar::F64, span)?, self.cast(b, Scalar::F64, span)?);
        let p = self.emit(Op::Binary(BinaryOp::Pow, x, y), f64t.clone(), span);
        let v = self.cast(p, s, span)?;
        self.emit_void(Op::WriteSlot(slot, v), span);
        self.terminate(Terminator::Jump(done));
        self.switch_to(small);
        let p = self.emit(Op::Binary(BinaryOp::Pow, a, b), t.clone(), span);
        let p = self.emit(Op::Cast(p, Scalar::F64), f64t, span);
        let v = self.emit(Op::Cast(p, s), t.clone(), span);
        self.emit_void(Op::WriteSlot(slot, v), span);
        self.terminate(Terminator::Jump(done));
        self.switch_to(done);
        Ok(self.emit(Op::ReadSlot(slot), t, span))
    }

    /// Where `cond` holds, write `value` to `slot` and go to `to`; continue where it does not.
    fn write_if(&mut self, cond: ValueId, slot: SlotId, value: Constant, to: BlockId, span: TextRange) {
        let (then, next) = (self.new_block(), self.new_block());
        self.terminate(Terminator::Branch { cond, then, otherwise: next });
        self.switch_to(then);
        let v = self.constant(value, span);
        self.emit_void(Op::WriteSlot(slot, v), span);
        self.terminate(Terminator::Jump(to));
        self.switch_to(next);
    }

    /// The value of `v` when an integer constant defines it.
    fn int_constant(&self, v: ValueId) -> Option<i128> {
        self.func.blocks.iter().flat_map(|b| &b.insts).find(|i| i.result == Some(v)).and_then(|i| match i.op {
            Op::Const(Constant::Int(k, _)) => Some(k),
            _ => None,
        })
    }

    /// The type two scalars are compared in: mixed signed/uint64 and int/float go to float.
    fn comparison_type(a: Scalar, b: Scalar) -> Scalar {
        use crate::analysis::typing::promote::{ArithOp, binary};
        let mixed_u64 = (a == Scalar::U64 && b.is_signed()) || (b == Scalar::U64 && a.is_signed());
        if mixed_u64 {
            return Scalar::F64;
        }
        if a == Scalar::Bool && b == Scalar::Bool {
            return Scalar::Bool;
        }
        binary(ArithOp::Add, a, b).unwrap_or(Scalar::F64)
    }

    fn compare_pair(&mut self, op: CmpOp, l: ValueId, r: ValueId, span: TextRange) -> LResult<ValueId> {
        // Numba's `none_equality` makes `==`/`!=` against `None` an `is`/`is not`.
        let against_none = [l, r].iter().any(|&v| *self.ty(v) == Type::None);
        if (matches!(op, CmpOp::Is | CmpOp::IsNot) || (against_none && matches!(op, CmpOp::Eq | CmpOp::NotEq)))
            && let Some(v) = self.is_none_test(l, r, matches!(op, CmpOp::IsNot | CmpOp::NotEq), span)?
        {
            return Ok(v);
        }
        let (l, r) = (self.unwrap_optional(l, span)?, self.unwrap_optional(r, span)?);
        let bool_t = Some(Type::Scalar(Scalar::Bool));
        let cop = match op {
            CmpOp::Eq | CmpOp::Is => CompareOp::Eq,
            CmpOp::NotEq | CmpOp::IsNot => CompareOp::Ne,
            CmpOp::Lt => CompareOp::Lt,
            CmpOp::LtE => CompareOp::Le,
            CmpOp::Gt => CompareOp::Gt,
            CmpOp::GtE => CompareOp::Ge,
            CmpOp::In | CmpOp::NotIn => {
                // `x in (a, b, c)`: any equality, as a chain of selects.
                if tuple_length(self.ty(r)).is_none() {
                    return unsupported(&format!("`in` on {}", self.ty(r)), span);
                }
                let mut acc = self.constant(Constant::Bool(false), span);
                for item in self.tuple_items(r, span)? {
                    let eq = self.compare_pair(CmpOp::Eq, l, item, span)?;
                    let t = self.constant(Constant::Bool(true), span);
                    acc = self.emit(Op::Select { cond: eq, then: t, otherwise: acc }, bool_t.clone(), span);
                }
                if op == CmpOp::NotIn {
                    acc = self.emit(Op::Unary(UnaryOp::Not, acc), bool_t, span);
                }
                return Ok(acc);
            }
        };
        if let (Some(n), Some(m)) = (tuple_length(self.ty(l)), tuple_length(self.ty(r))) {
            return self.compare_tuples(op, cop, l, r, n.min(m), n.cmp(&m), span);
        }
        let (Some(a), Some(b)) = (scalar(self.ty(l)), scalar(self.ty(r))) else {
            return unsupported(&format!("comparing {} with {}", self.ty(l), self.ty(r)), span);
        };
        let common = Self::comparison_type(a, b);
        let l = self.cast(l, common, span)?;
        let r = self.cast(r, common, span)?;
        if common.is_complex() {
            return self.complex_compare(cop, l, r, span);
        }
        Ok(self.emit(Op::Compare(cop, l, r), bool_t, span))
    }

    /// Tuples compare as Python's do (Numba's `tuple_eq` and `tuple_cmp_ordered`): `==` is
    /// false for different lengths, else every item equal; an ordering is decided by the first
    /// unequal pair of items, and by the lengths when the `common` items are all equal.
    #[allow(clippy::too_many_arguments)]
    fn compare_tuples(
        &mut self,
        op: CmpOp,
        cop: CompareOp,
        l: ValueId,
        r: ValueId,
        common: usize,
        lengths: std::cmp::Ordering,
        span: TextRange,
    ) -> LResult<ValueId> {
        let bool_t = Some(Type::Scalar(Scalar::Bool));
        if matches!(cop, CompareOp::Eq | CompareOp::Ne) {
            let mut equal = self.constant(Constant::Bool(lengths.is_eq()), span);
            if lengths.is_eq() {
                let no = self.constant(Constant::Bool(false), span);
                for i in 0..common {
                    let (a, b) = (self.extract(l, i, span)?, self.extract(r, i, span)?);
                    let eq = self.compare_pair(CmpOp::Eq, a, b, span)?;
                    equal = self.emit(Op::Select { cond: eq, then: equal, otherwise: no }, bool_t.clone(), span);
                }
            }
            return Ok(if cop == CompareOp::Ne { self.emit(Op::Unary(UnaryOp::Not, equal), bool_t, span) } else { equal });
        }
        let by_length = match cop {
            CompareOp::Lt => lengths.is_lt(),
            CompareOp::Le => lengths.is_le(),
            CompareOp::Gt => lengths.is_gt(),
            _ => lengths.is_ge(),
        };
        let mut result = self.constant(Constant::Bool(by_length), span);
        for i in (0..common).rev() {
            let (a, b) = (self.extract(l, i, span)?, self.extract(r, i, span)?);
            let differ = self.compare_pair(CmpOp::NotEq, a, b, span)?;
            let decided = self.compare_pair(op, a, b, span)?;
            result = self.emit(Op::Select { cond: differ, then: decided, otherwise: result }, bool_t.clone(), span);
        }
        Ok(result)
    }

    /// `a < b < c` evaluates `b` once and stops at the first false comparison.
    fn compare(&mut self, c: &ast::ExprCompare) -> LResult<ValueId> {
        let span = c.range();
        let mut left = self.expr(&c.left)?;
        if c.ops.len() == 1 {
            let right = self.expr(&c.comparators[0])?;
            return self.compare_pair(c.ops[0], left, right, span);
        }
        let bool_t = Type::Scalar(Scalar::Bool);
        let slot = self.temp("cmp", &bool_t);
        let exit = self.new_block();
        for (i, (op, comparator)) in c.ops.iter().zip(c.comparators.iter()).enumerate() {
            let right = self.expr(comparator)?;
            let result = self.compare_pair(*op, left, right, span)?;
            self.emit_void(Op::WriteSlot(slot, result), span);
            if i + 1 < c.ops.len() {
                let next = self.new_block();
                self.terminate(Terminator::Branch { cond: result, then: next, otherwise: exit });
                self.switch_to(next);
            }
            left = right;
        }
        self.terminate(Terminator::Jump(exit));
        self.switch_to(exit);
        Ok(self.emit(Op::ReadSlot(slot), Some(bool_t), span))
    }

    /// `a and b` / `a or b`: short-circuit, yielding an operand (converted to the unified type).
    fn bool_op(&mut self, b: &ast::ExprBoolOp, expr: &Expr) -> LResult<ValueId> {
        let span = b.range();
        let result = self.expr_type(expr)?;
        let slot = self.temp("boolop", &result);
        let exit = self.new_block();
        for (i, value) in b.values.iter().enumerate() {
            // An operand of known truth either always goes on (it is never the value) or
            // always ends the chain (the later operands are not typed).
            let known = if i + 1 < b.values.len() { self.pruned(value) } else { None };
            if known == Some(b.op == BoolOp::And) {
                continue;
            }
            let v = self.expr(value)?;
            let converted = self.cast_to_type(v, &result, span)?;
            self.emit_void(Op::WriteSlot(slot, converted), span);
            if known.is_some() {
                break;
            }
            if i + 1 < b.values.len() {
                let t = self.truth(v, value.range())?;
                let next = self.new_block();
                let term = match b.op {
                    BoolOp::And => Terminator::Branch { cond: t, then: next, otherwise: exit },
                    BoolOp::Or => Terminator::Branch { cond: t, then: exit, otherwise: next },
                };
                self.terminate(term);
                self.switch_to(next);
            }
        }
        self.terminate(Terminator::Jump(exit));
        self.switch_to(exit);
        Ok(self.emit(Op::ReadSlot(slot), Some(result), span))
    }

    fn name(&mut self, name: &str, expr: &Expr) -> LResult<ValueId> {
        let span = expr.range();
        if self.locals.contains(name) {
            if let Some(Type::StrLiteral(_)) = self.literal_type(expr) {
                return unsupported("strings other than `print`'s arguments", span);
            }
            let ty = match self.expr_type(expr) {
                Ok(ty) => ty,
                // An opaque value (a grid group) has one slot, of unknown type.
                Err(e) => match self.slots.get(name).map(Vec::as_slice) {
                    Some([(ty, _)]) => ty.clone(),
                    _ => return Err(e),
                },
            };
            return self.read(name, &ty, span);
        }
        match self.scope.binding(name) {
            // Only module-level arrays are captured (an enclosing function's are not modelled).
            Some(Binding::Const(ConstValue::HostArray)) if self.scope.module.get(name) == self.scope.binding(name) => {
                let ty = self.expr_type(expr)?;
                let v = self.emit(Op::GlobalArray(name.to_string()), Some(ty), span);
                self.spaces.insert(v, MemorySpace::Const);
                Ok(v)
            }
            Some(Binding::Const(c)) => self.const_value(c, &self.expr_type(expr)?, span),
            Some(Binding::NamedTupleValue(_, items)) => self.const_value(&ConstValue::Tuple(items.clone()), &self.expr_type(expr)?, span),
            // `from cfg import X`: a workspace module's global, frozen as Numba freezes it.
            Some(Binding::Path(p)) => {
                let p = p.clone();
                self.imported_global(&p, expr)?.map_or_else(|| unsupported(&format!("the global `{name}` here"), span), Ok)
            }
            _ => unsupported(&format!("the global `{name}` here"), span),
        }
    }

    /// A workspace module's global reached by `path` (`cfg.X`, `cfg.TABLE`): a constant, or
    /// a module array captured into constant memory (named by its path).
    fn imported_global(&mut self, path: &str, expr: &Expr) -> LResult<Option<ValueId>> {
        let span = expr.range();
        if imported_array(self.db, self.file, path).is_some() {
            let ty = self.expr_type(expr)?;
            let v = self.emit(Op::GlobalArray(path.to_string()), Some(ty), span);
            self.spaces.insert(v, MemorySpace::Const);
            return Ok(Some(v));
        }
        match self.scope.imported_constant(path) {
            Some(c) => self.const_value(&c, &self.expr_type(expr)?, span).map(Some),
            None => Ok(None),
        }
    }

    /// A call's arguments in the callee's parameter order: `bind` matches the number of
    /// positional arguments and the keywords' names to the parameters.
    fn bound_arguments(
        &mut self,
        call: &ast::ExprCall,
        bind: impl FnOnce(usize, &[&str]) -> Result<Vec<BoundArg>, String>,
    ) -> LResult<Vec<ValueId>> {
        let span = call.range();
        let mut positional = Vec::new();
        for a in &call.arguments.args {
            match a {
                // `*t`: the tuple's items, as typing expands it.
                Expr::Starred(starred) => {
                    let t = self.expr(&starred.value)?;
                    positional.extend(self.tuple_items(t, a.range())?);
                }
                _ => positional.push(self.argument(a)?),
            }
        }
        let keywords: Vec<ValueId> = call.arguments.keywords.iter().map(|k| self.argument(&k.value)).collect::<LResult<_>>()?;
        let names: Vec<&str> = call.arguments.keywords.iter().map(|k| k.arg.as_ref().map_or("**", |a| a.as_str())).collect();
        let bound = bind(positional.len(), &names).map_err(|message| LowerError { message: message.into(), range: span })?;
        let mut args = Vec::new();
        for b in bound {
            args.push(match b {
                BoundArg::Positional(i) => positional[i],
                BoundArg::Keyword(j) => keywords[j],
                // Typed as its value: an int is int64, a float float64.
                BoundArg::Default(c) => self.const_value(&c, &Type::Unknown, span)?,
                BoundArg::Rest(items) => {
                    let items: Vec<ValueId> = items.into_iter().map(|i| positional[i]).collect();
                    let ty = Type::tuple(items.iter().map(|&v| self.ty(v).clone()).collect());
                    self.emit(Op::MakeTuple(items), Some(ty), span)
                }
            });
        }
        Ok(args)
    }

    /// An argument of a call of a GPU function. An Enum member is its value in the IR
    /// but keeps its Numba type here, which the callee is typed and specialized for (the
    /// identity cast is gone once `flatten_complex` makes it that value type).
    fn argument(&mut self, arg: &Expr) -> LResult<ValueId> {
        // A compile-time object is no value: its type names it.
        if let Some(object) = self.object_argument(arg) {
            return Ok(self.emit(Op::MakeTuple(Vec::new()), Some(Type::Object(object)), arg.range()));
        }
        let v = self.expr(arg)?;
        Ok(match self.literal_type(arg) {
            Some(t @ Type::Enum { value, .. }) => {
                let (t, value) = (t.clone(), *value);
                self.emit(Op::Cast(v, value), Some(t), arg.range())
            }
            // An integer constant, or a tuple of them, keeps its literal type too: the callee
            // is typed with it (a shape parameter is a compile-time constant there).
            Some(t) if is_int_literal(t) => {
                let t = t.clone();
                self.as_literal(v, &t, arg.range())?
            }
            _ => v,
        })
    }

    /// The value `v` typed as the integer literal (or tuple of them) `t`: no computation.
    fn as_literal(&mut self, v: ValueId, t: &Type, span: TextRange) -> LResult<ValueId> {
        if let Type::IntLiteral(_) = t {
            let s = scalar(self.ty(v)).unwrap_or(Scalar::I64);
            return Ok(self.emit(Op::Cast(v, s), Some(t.clone()), span));
        }
        let mut items = Vec::new();
        for (i, item) in self.tuple_items(v, span)?.into_iter().enumerate() {
            let et = tuple_element(t, i).unwrap_or(Type::Unknown);
            items.push(self.as_literal(item, &et, span)?);
        }
        Ok(self.emit(Op::MakeTuple(items), Some(t.clone()), span))
    }

    /// A call of a closure: its arguments, then the enclosing variables it reads.
    fn closure_call(&mut self, call: &ast::ExprCall, expr: &Expr, closure: &ClosureCall) -> LResult<ValueId> {
        let span = call.range();
        let module = parse_module(self.db, self.file);
        let def = find_closure_def(&module.syntax().body, closure.def)
            .ok_or_else(|| LowerError { message: "cannot find the inner function's definition".into(), range: span })?;
        let (db, file) = (self.db, self.file);
        let mut args = self.bound_arguments(call, |n, names| bind_device_arguments(db, file, &def, n, names))?;
        for (name, ty) in &closure.free {
            args.push(self.read(name, ty, span)?);
        }
        let result = self.expr_type(expr).unwrap_or(Type::Unknown);
        let result = if result == Type::None { None } else { Some(result) };
        let callee = format!("{CLOSURE}{}:{}", u32::from(closure.def.start()), u32::from(closure.def.end()));
        Ok(self.emit(Op::Call { callee, args }, result, span))
    }

    fn const_value(&mut self, c: &ConstValue, ty: &Type, span: TextRange) -> LResult<ValueId> {
        match (c, ty) {
            (ConstValue::Int(v), _) => {
                let s = scalar(ty).unwrap_or(Scalar::I64);
                Ok(self.constant(Constant::Int(*v, s), span))
            }
            (ConstValue::Bool(b), _) => Ok(self.constant(Constant::Bool(*b), span)),
            (ConstValue::None, _) => Ok(self.none_value(span)),
            (ConstValue::Float(x), _) => Ok(self.constant(Constant::Float(*x, Scalar::F64), span)),
            (ConstValue::Complex(re, im), _) => Ok(self.complex_constant(*re, *im, span)),
            // `np.float32(0.1)`, `np.int8(300)`: the value converted to the scalar type.
            (ConstValue::NumpyScalar(s, value), _) => {
                let v = match **value {
                    ConstValue::Int(i) => self.constant(Constant::Int(i, Scalar::I64), span),
                    ConstValue::Float(x) => self.constant(Constant::Float(x, Scalar::F64), span),
                    ConstValue::Bool(b) => self.constant(Constant::Bool(b), span),
                    _ => return unsupported("this global constant", span),
                };
                self.cast(v, *s, span)
            }
            (ConstValue::Tuple(items), _) => {
                let mut values = Vec::new();
                for (i, item) in items.iter().enumerate() {
                    let et = tuple_element(ty, i).unwrap_or(Type::Unknown);
                    values.push(self.const_value(item, &et, span)?);
                }
                let tt = Type::tuple(values.iter().map(|v| self.ty(*v).clone()).collect());
                Ok(self.emit(Op::MakeTuple(values), Some(tt), span))
            }
            _ => unsupported("this global constant", span),
        }
    }

    /// The module path an expression names (`cuda.threadIdx.x` -> `numba.cuda.threadIdx.x`).
    /// A local variable shadows any import or global of its name (as in the typing, which
    /// reads the local): it names a path only where it was bound to a module object
    /// (`t = cuda.threadIdx`; `t.x` -> `numba.cuda.threadIdx.x`).
    fn global_path(&self, expr: &Expr) -> Option<String> {
        match expr {
            Expr::Name(n) if self.locals.contains(n.id.as_str()) => self.object_paths.get(n.id.as_str())?.clone(),
            Expr::Attribute(a) => Some(format!("{}.{}", self.global_path(&a.value)?, a.attr.as_str())),
            _ => qualified_path(expr, self.scope),
        }
    }

    /// `target = value` where the value is a compile-time object: remember the module path
    /// it names, for the target's uses.
    fn bind_object(&mut self, target: &Expr, value: &Expr) {
        let Expr::Name(n) = target else { return };
        let path = self.global_path(value);
        let entry = self.object_paths.entry(n.id.to_string()).or_insert_with(|| path.clone());
        if *entry != path {
            *entry = None;
        }
    }

    /// `Color.red` or `Color["red"]` (`expr`, the member `name` of the class `class`): the
    /// member's value, which is how the IR carries an Enum member.
    fn enum_member(&mut self, expr: &Expr, class: &Expr, name: &str, span: TextRange) -> LResult<Option<ValueId>> {
        let Some(Type::Enum { .. }) = self.literal_type(expr) else { return Ok(None) };
        let Some(class) = self.scope.enum_class(class) else { return Ok(None) };
        Ok(match class.member(name) {
            Some(ConstValue::Float(v)) => Some(self.constant(Constant::Float(*v, Scalar::F64), span)),
            Some(ConstValue::Int(v)) => Some(self.int(*v, span)),
            Some(_) => return unsupported(&format!("the Enum member `{}.{name}`", class.name), span),
            None => None,
        })
    }

    fn attribute(&mut self, a: &ast::ExprAttribute, expr: &Expr) -> LResult<ValueId> {
        let span = a.range();
        if let Some(v) = self.enum_member(expr, &a.value, a.attr.as_str(), span)? {
            return Ok(v);
        }
        // A member is its value in the IR.
        if a.attr.as_str() == "value" && matches!(self.literal_type(&a.value), Some(Type::Enum { .. })) {
            return self.expr(&a.value);
        }
        if let Some(path) = self.global_path(expr) {
            if let Some(member) = path.strip_prefix("numba.cuda.") {
                let ty = self.expr_type(expr)?;
                return Ok(self.emit(Op::Intrinsic { name: member.to_string(), args: vec![] }, Some(ty), span));
            }
            if imported_array(self.db, self.file, &path).is_some()
                && let Some(v) = self.imported_global(&path, expr)?
            {
                return Ok(v);
            }
            if let Some(c) = const_eval(expr, self.scope) {
                return self.const_value(&c, &self.expr_type(expr)?, span);
            }
        }
        if let Some(v) = self.record_load(&a.value, FieldKey::Name(a.attr.as_str()), span)? {
            return Ok(v);
        }
        // `p.x` of a named tuple: the member at the field's position.
        if let Some(Type::NamedTuple { fields, .. }) = self.literal_type(&a.value)
            && let Some(i) = fields.iter().position(|f| f == a.attr.as_str())
        {
            let base = self.expr(&a.value)?;
            return self.extract(base, i, span);
        }
        let base = self.expr(&a.value)?;
        let base_ty = self.ty(base).clone();
        let i64t = Some(Type::Scalar(Scalar::I64));
        match (&base_ty, a.attr.as_str()) {
            (Type::Array { .. }, "strides") => Ok(self.strides(base, span)),
            // Of a real array, `.real` is the array itself.
            (Type::Array { dtype, .. }, "real") if scalar(dtype).is_some_and(|s| !s.is_complex()) => Ok(base),
            (Type::Array { dtype, .. }, "real" | "imag") if scalar(dtype).is_some_and(|s| s.is_complex()) => {
                let ty = self.expr_type(expr)?;
                self.complex_part(base, a.attr.as_str() == "imag", &ty, span)
            }
            (Type::Array { .. }, "flat") => unsupported("`.flat` other than `a.flat[i]` and `for x in a.flat`", span),
            (Type::Array { .. }, "dtype") => unsupported("a dtype passed as a value (to a device function)", span),
            (Type::Array { ndim, .. }, "shape") => {
                let dims: Vec<ValueId> =
                    (0..*ndim).map(|axis| self.emit(Op::Extent { array: base, axis }, i64t.clone(), span)).collect();
                let ty = Type::UniTuple(Box::new(Type::Scalar(Scalar::I64)), *ndim as usize);
                Ok(self.emit(Op::MakeTuple(dims), Some(ty), span))
            }
            (Type::Array { ndim, .. }, "size") => Ok(self.element_count(base, *ndim, span)),
            (Type::Array { ndim, .. }, "ndim") => Ok(self.int(*ndim as i128, span)),
            (Type::Array { dtype, .. }, "itemsize") => {
                let size = scalar(dtype).map_or(0, |s| s.itemsize());
                Ok(self.int(size as i128, span))
            }
            (Type::Array { dtype, ndim, .. }, "nbytes") => {
                let size = scalar(dtype).map_or(0, |s| s.itemsize());
                let size = self.int(size as i128, span);
                let count = self.element_count(base, *ndim, span);
                Ok(self.emit(Op::Binary(BinaryOp::Mul, count, size), i64t, span))
            }
            (Type::Array { .. }, "T") => {
                let ty = self.expr_type(expr)?;
                let v = self.emit(Op::Transpose(base), Some(ty), span);
                let space = self.space(base);
                self.spaces.insert(v, space);
                Ok(v)
            }
            (Type::Scalar(s), "real" | "imag") => self.real_or_imag(base, *s, a.attr.as_str() == "imag", span),
            // Neither the simulator nor the PTX back end models record values yet.
            (Type::Record(_), field) => unsupported(&format!("record field access (`.{field}`)"), span),
            (Type::Vector(_, count), attr) => self.vector_member(base, *count, attr, span),
            (_, attr) => unsupported(&format!("`.{attr}` on {base_ty}"), span),
        }
    }

    /// `Params(a, b)`, `Params(y=b, x=a)`: the tuple of the members in field order, each
    /// computed in the order written, as Python evaluates the arguments.
    fn named_tuple(&mut self, call: &ast::ExprCall, class: &NamedTupleClass, expr: &Expr) -> LResult<ValueId> {
        let span = call.range();
        let result = self.expr_type(expr)?;
        let args = self.bound_arguments(call, |n, names| {
            let bound = class.bind_arguments(n, names)?;
            Ok(bound
                .into_iter()
                .map(|b| match b {
                    CallArgument::Positional(i) => BoundArg::Positional(i),
                    CallArgument::Keyword(j) => BoundArg::Keyword(j),
                })
                .collect())
        })?;
        let mut items = Vec::new();
        for (i, v) in args.into_iter().enumerate() {
            let member = tuple_element(&result, i).unwrap_or(Type::Unknown);
            items.push(if *self.ty(v) == member { v } else { self.cast_to_type(v, &member, span)? });
        }
        Ok(self.emit(Op::MakeTuple(items), Some(result), span))
    }

    /// The GPU function `func` names, by the name its module calls it: of this module or
    /// imported, or the one a parameter was given (`cast_func(x)`).
    fn device_function(&self, func: &Expr) -> Option<String> {
        match func {
            Expr::Name(n) if self.locals.contains(n.id.as_str()) => self.device_params.get(n.id.as_str()).cloned(),
            Expr::Name(n) => resolve_device_function(self.db, self.file, self.scope, n.id.as_str()).map(|_| n.id.to_string()),
            // `dm.halve(x)` with `import helpers as dm`: called by its path, `helpers.halve`.
            Expr::Attribute(_) => self
                .global_path(func)
                .filter(|p| !crate::analysis::scope::is_modelled_module(p))
                .filter(|p| resolve_device_function(self.db, self.file, self.scope, p).is_some()),
            _ => None,
        }
    }

    /// The compile-time object an argument of a GPU function call denotes (a scalar type, an
    /// intrinsic, a GPU function), which Numba specialises the callee for.
    fn object_argument(&self, arg: &Expr) -> Option<Object> {
        if let Some(name) = self.device_function(arg) {
            return Some(Object::Device(name));
        }
        if !self.objects(arg) {
            return None;
        }
        // A builtin is no global of the module (`int`: `builtins.int`).
        let builtin = match arg {
            Expr::Name(n) if !self.locals.contains(n.id.as_str()) && self.scope.binding(n.id.as_str()).is_none() => {
                Some(format!("builtins.{}", n.id))
            }
            _ => None,
        };
        self.global_path(arg).or(builtin).map(Object::Path)
    }

    fn call(&mut self, call: &ast::ExprCall, expr: &Expr) -> LResult<ValueId> {
        let span = call.range();
        if let Some(closure) = self.types.closure_calls.get(&(span.start().into(), span.end().into())).cloned() {
            return self.closure_call(call, expr, &closure);
        }
        let device_function = self.device_function(&call.func);
        let device_function = device_function.as_deref();
        if device_function.is_none()
            && let Some(v) = self.array_call(call, expr)?
        {
            return Ok(v);
        }
        if let Expr::Name(n) = &*call.func
            && !self.locals.contains(n.id.as_str())
            && let Some(Binding::NamedTupleClass(class)) = self.scope.binding(n.id.as_str())
        {
            return self.named_tuple(call, &class.clone(), expr);
        }
        let angle = qualified_path(&call.func, self.scope).is_some_and(|p| p == "numpy.angle");
        if !call.arguments.keywords.is_empty() && !is_alloc_call(call, self.scope) && device_function.is_none() && !angle {
            return unsupported("keyword arguments in this call", span);
        }
        // Untyped here means an opaque Numba value (a grid group), not "no value".
        let result = self.expr_type(expr).unwrap_or(Type::Unknown);
        let result_opt = if result == Type::None { None } else { Some(result.clone()) };
        if let Expr::Name(n) = &*call.func
            && !self.locals.contains(n.id.as_str())
            && let Some(Binding::External(name, _)) = self.scope.binding(n.id.as_str())
        {
            return unsupported(&format!("a call of `{name}`, declared with cuda.declare_device (linking external code)"), span);
        }
        // Device functions of this module or imported from a workspace module.
        if let Some(name) = device_function {
            // A function nested in a factory is called by its qualified name, which names it
            // without the caller's scope.
            let callee = self.scope.nested_function(name).unwrap_or(name).to_string();
            let (db, file, scope) = (self.db, self.file, self.scope);
            let args = self.bound_arguments(call, |n, names| {
                bind_device_call(db, file, scope, name, n, names).unwrap_or_else(|| Ok((0..n).map(BoundArg::Positional).collect()))
            })?;
            return Ok(self.emit(Op::Call { callee, args }, result_opt, span));
        }
        // Methods: `g.sync()`, `x.bit_count()`.
        if let Expr::Attribute(attr) = &*call.func
            && self.global_path(&call.func).is_none()
        {
            let recv = self.expr(&attr.value)?;
            if let (Type::Scalar(s), "conjugate") = (self.ty(recv).clone(), attr.attr.as_str()) {
                return self.conjugate(recv, s, span);
            }
            let name = match (self.ty(recv), attr.attr.as_str()) {
                (Type::Scalar(_), "bit_count") => "popc".to_string(),
                (_, "sync") => "cg.grid_sync".to_string(),
                (t, m) => return unsupported(&format!("the method `{m}` of {t}"), span),
            };
            return Ok(self.emit(Op::Intrinsic { name, args: vec![recv] }, result_opt, span));
        }
        let path = self
            .global_path(&call.func)
            .or_else(|| match &*call.func {
                Expr::Name(n) if !self.locals.contains(n.id.as_str()) => Some(format!("builtins.{}", n.id)),
                _ => None,
            })
            .ok_or_else(|| LowerError { message: "cannot tell what this call calls".into(), range: call.func.range() })?;

        if path == "builtins.print" {
            return self.print(call, span);
        }
        // Cache-hinted loads and stores (`cuda.ldcg(a, i)`, `cuda.stcs(a, i, v)`) are plain
        // element accesses here: the hint changes caching, not the result.
        if let Some(hint) = path.strip_prefix("numba.cuda.")
            && let [array, index, rest @ ..] = call.arguments.args.as_ref()
        {
            let load = matches!(hint, "ldca" | "ldcg" | "ldcs" | "ldlu" | "ldcv") && rest.is_empty();
            let store = matches!(hint, "stcg" | "stcs" | "stwb" | "stwt") && rest.len() == 1;
            if load || store {
                let array = self.expr(array)?;
                if store {
                    let value = self.expr(&rest[0])?;
                    self.store(array, index, value, span)?;
                    return Ok(VOID);
                }
                return self.load(array, index, span);
            }
        }
        // Allocations take compile-time shapes, not values.
        if let Some(space) = match path.as_str() {
            "numba.cuda.shared.array" => Some(MemorySpace::Shared),
            "numba.cuda.local.array" => Some(MemorySpace::Local),
            _ => None,
        } {
            let shape_expr = call.arguments.args.first().or_else(|| keyword(call, "shape"));
            let evaluated = |e: &Expr| match const_eval(e, self.scope)? {
                ConstValue::Int(v) => Some(vec![v as i64]),
                ConstValue::Tuple(items) => items.iter().map(|i| i.as_int().map(|v| v as i64)).collect(),
                _ => None,
            };
            // A variable holding a constant (`k = N` then `local.array(k, ...)`) is typed as
            // a literal, which is what Numba reads the shape from.
            let literal = |e: &Expr| match self.types.expressions.get(&(e.range().start().into(), e.range().end().into()))? {
                Type::IntLiteral(v) => Some(vec![*v as i64]),
                Type::Tuple(items) => items.iter().map(|t| if let Type::IntLiteral(v) = t { Some(*v as i64) } else { None }).collect(),
                _ => None,
            };
            // `(nbc,)` with `nbc = 10` a local: each element on its own.
            let elements = |e: &Expr| match e {
                Expr::Tuple(t) => t.elts.iter().map(|d| match evaluated(d).or_else(|| literal(d))?.as_slice() {
                    [v] => Some(*v),
                    _ => None,
                }).collect(),
                _ => None,
            };
            let shape = shape_expr.and_then(|e| evaluated(e).or_else(|| literal(e)).or_else(|| elements(e)));
            let Some(shape) = shape else { return unsupported("an array shape it cannot evaluate to constants", span) };
            if let Some(Type::Record(r)) = result.dtype() {
                return self.alloc_records(space, shape, r.size, result.clone(), span);
            }
            let dtype = result.dtype().and_then(scalar).ok_or_else(|| LowerError { message: "unknown dtype".into(), range: span })?;
            let v = self.emit(Op::AllocArray { space, shape, dtype }, Some(result), span);
            self.spaces.insert(v, space);
            return Ok(v);
        }
        // Numba lowers `const.array_like(a)` to `a`: a module array is in constant memory
        // already (`name` reads it from there), and an array argument stays the argument.
        if path == "numba.cuda.const.array_like" {
            let Some(array) = call.arguments.args.first() else {
                return unsupported("`const.array_like` without an array", span);
            };
            return self.expr(array);
        }

        // `float('inf')`: the constant Python makes of the literal string (checked by typing).
        if path == "builtins.float"
            && let [arg] = call.arguments.args.as_ref()
            && let Some(Type::StrLiteral(text)) = self.literal_type(arg)
        {
            let value = python_float(text).ok_or_else(|| LowerError { message: format!("could not convert string to float: '{text}'").into(), range: span })?;
            return Ok(self.constant(Constant::Float(value, Scalar::F64), span));
        }
        // `len("abc")`, `len(s)` of a literal string: its code points.
        if path == "builtins.len"
            && let [arg] = call.arguments.args.as_ref()
            && let Some(Type::StrLiteral(text)) = self.literal_type(arg)
        {
            return Ok(self.int(text.chars().count() as i128, span));
        }
        // Typing folded `isinstance(x, cls)`; `x` is still evaluated (it may call a function).
        if path == "builtins.isinstance"
            && let (Some(Type::BoolLiteral(b)), Some(value)) = (self.literal_type(expr).cloned(), call.arguments.args.first())
        {
            self.expr(value)?;
            return Ok(self.constant(Constant::Bool(b), span));
        }
        // `ord("a")`: the code point of a literal character.
        if path == "builtins.ord"
            && let [arg] = call.arguments.args.as_ref()
            && let Some(Type::StrLiteral(text)) = self.literal_type(arg)
        {
            let mut chars = text.chars();
            return match (chars.next(), chars.next()) {
                (Some(c), None) => Ok(self.int(c as i128, span)),
                _ => unsupported(&format!("ord() of the {}-character string '{text}'", text.chars().count()), span),
            };
        }
        let mut args = Vec::new();
        for a in &call.arguments.args {
            let v = self.expr(a)?;
            args.push(self.unwrap_optional(v, a.range())?);
        }
        let rs = scalar(&result);
        // A call typed by a `ConcreteTemplate` converts its arguments to the parameter types
        // of the case Numba selects (`math.pow(f64, uint16)` is pow(f64, f64), not powi).
        let arg_scalars: Option<Vec<Scalar>> = args.iter().map(|a| base_scalar(self.ty(*a))).collect();
        let params = arg_scalars.and_then(|a| selected_params(&path, &a));
        if let Some(params) = params {
            for (a, p) in args.iter_mut().zip(params) {
                *a = self.cast(*a, *p, span)?;
            }
        }
        if let Some(v) = self.select_min_max(&path, &args, rs, span)? {
            return Ok(v);
        }
        // `range(...)` as a value: (start, stop, step) in the range's type.
        if path == "builtins.range"
            && let Type::Range(s) = result
        {
            let mut parts = Vec::new();
            for a in &args {
                parts.push(self.cast(*a, s, span)?);
            }
            let (zero, one) = (self.constant(Constant::Int(0, s), span), self.constant(Constant::Int(1, s), span));
            let parts = match parts.as_slice() {
                [stop] => vec![zero, *stop, one],
                [start, stop] => vec![*start, *stop, one],
                [_, _, _] => parts,
                _ => return unsupported("`range` with these arguments", span),
            };
            return Ok(self.emit(Op::MakeTuple(parts), Some(result), span));
        }
        if let Type::Vector(..) = result
            && path.strip_prefix("numba.cuda.").and_then(Type::cuda_vector).as_ref() == Some(&result)
        {
            return self.vector_construct(&args, &result, span);
        }
        if let Some(v) = self.complex_call(&path, &args, call, &result, span)? {
            return Ok(v);
        }
        // Scalar conversions: np.float32(x), numba.int32(x), int(x), float(x), bool(x).
        if let Some(target) = crate::analysis::resolve::scalar_type_of_path(&path)
            .or(match path.as_str() {
                "builtins.int" => rs.or(Some(Scalar::I64)),
                "builtins.float" => rs,
                _ => None,
            })
            && let [x] = args.as_slice()
        {
            return self.cast(*x, target, span);
        }
        if path == "builtins.bool"
            && let [x] = args.as_slice()
        {
            return self.truth(*x, span);
        }
        if path == "builtins.len"
            && let [x] = args.as_slice()
        {
            return match self.ty(*x).clone() {
                Type::Array { .. } => Ok(self.emit(Op::Extent { array: *x, axis: 0 }, Some(Type::Scalar(Scalar::I64)), span)),
                Type::UniTuple(_, n) => Ok(self.int(n as i128, span)),
                Type::Tuple(items) => Ok(self.int(items.len() as i128, span)),
                // Numba counts the items as its range iterator does (a step of 0 raises).
                Type::Range(s) => self.range_count(*x, s, true, span),
                other => unsupported(&format!("`len` of {other}"), span),
            };
        }
        match (operator_call(&path), args.as_slice()) {
            (Some(OperatorCall::Unary(op)), [a]) => return self.unary(op, *a, rs, span),
            (Some(OperatorCall::Binary(op)), [a, b]) => return self.arith(op, *a, *b, rs, span),
            (Some(OperatorCall::Compare(op)), [a, b]) => return self.compare_pair(op, *a, *b, span),
            _ => {}
        }
        if path == "builtins.pow"
            && let [a, b] = args.as_slice()
        {
            return self.arith(Operator::Pow, *a, *b, rs, span);
        }
        // `divmod(a, b)` is `(a // b, a % b)` in the tuple's element type.
        if path == "builtins.divmod"
            && let [a, b] = args.as_slice()
        {
            let element = tuple_element(&result, 0).as_ref().and_then(scalar);
            let quotient = self.arith(Operator::FloorDiv, *a, *b, element, span)?;
            let remainder = self.arith(Operator::Mod, *a, *b, element, span)?;
            return Ok(self.emit(Op::MakeTuple(vec![quotient, remainder]), Some(result), span));
        }
        // `math.pow`'s (float, int32) cases are libdevice's `powif`/`powi`.
        if path == "math.pow"
            && let Some([base, Scalar::I32]) = params
        {
            let routine = if *base == Scalar::F32 { "powif" } else { "powi" };
            return self.libdevice(routine, args, &result, span);
        }
        if let Some(routine) = path.strip_prefix("numba.cuda.libdevice.") {
            return self.libdevice(routine, args, &result, span);
        }
        if let Some(ufunc) = path.strip_prefix("numpy.")
            && let Some(v) = self.numpy_ufunc(ufunc, &args, rs, span)?
        {
            return Ok(v);
        }
        let name = if let Some(m) = path.strip_prefix("numba.cuda.") {
            m.to_string()
        } else if let Some(same) = path.strip_prefix("numpy.").and_then(numpy_as_math) {
            same.to_string()
        } else if path.starts_with("math.") || path.starts_with("builtins.") || path.starts_with("numpy.") {
            path.clone()
        } else {
            return unsupported(&format!("calling `{path}`"), span);
        };
        // `round(i)` of an integer is the integer, as an int64.
        if name == "builtins.round"
            && let [x] = args.as_slice()
            && scalar(self.ty(*x)).is_some_and(|s| !s.is_float())
            && let Some(r) = rs
        {
            return self.cast(*x, r, span);
        }
        // `round(x, ndigits)` is its own operation (the one-argument `round` is llrint).
        if name == "builtins.round"
            && let [x, digits] = args.as_slice()
            && let Some(work) = rs.filter(|s| matches!(s, Scalar::F32 | Scalar::F64))
        {
            let x = self.cast(*x, work, span)?;
            let digits = self.cast(*digits, Scalar::I64, span)?;
            return Ok(self.emit(Op::Intrinsic { name: "round_ndigits".into(), args: vec![x, digits] }, result_opt, span));
        }
        // `atomic.compare_and_swap(ary, old, val)` is `atomic.cas(ary, 0, old, val)`.
        let (name, args) = match (name.as_str(), args.as_slice()) {
            ("atomic.compare_and_swap", [ary, old, val]) => {
                let zero = self.int(0, span);
                ("atomic.cas".to_string(), vec![*ary, zero, *old, *val])
            }
            _ => (name, args),
        };
        // `min`/`max` of booleans (Numba's bool overload) are `and`/`or`.
        if matches!(name.as_str(), "builtins.min" | "builtins.max")
            && rs == Some(Scalar::Bool)
            && let [first, rest @ ..] = args.as_slice()
            && args.iter().all(|a| scalar(self.ty(*a)) == Some(Scalar::Bool))
        {
            let bool_t = Some(Type::Scalar(Scalar::Bool));
            return Ok(rest.iter().fold(*first, |acc, &v| {
                let (then, otherwise) = if name == "builtins.min" { (v, acc) } else { (acc, v) };
                self.emit(Op::Select { cond: acc, then, otherwise }, bool_t.clone(), span)
            }));
        }
        let args = self.convert_intrinsic_args(&name, args, rs, span)?;
        Ok(self.emit(Op::Intrinsic { name, args }, result_opt, span))
    }

    /// `max`/`min` as Numba's `do_minmax` computes them (`numba/cuda/cpython/builtins.py`)
    /// wherever a float takes part and the call is not of exactly two float32/float64
    /// arguments (those are libdevice's `fmax`/`fmin`, which ignore a NaN: the intrinsic):
    /// three or more arguments, an int with a float, float16, or a tuple (`max((a, b))`).
    /// The accumulator starts at the first item; each next item and it are converted to
    /// the type their types unify to, and `item > acc` (`<` for `min`; false when either
    /// is NaN) selects the item. So a NaN first item is the result, a later NaN is skipped,
    /// and a tie keeps the earlier item (`max(-0.0, 0.0)` is `-0.0`). `None` for every
    /// other call (integers only: the intrinsic, which computes the same).
    fn select_min_max(&mut self, path: &str, args: &[ValueId], result: Option<Scalar>, span: TextRange) -> LResult<Option<ValueId>> {
        let op = match path {
            "builtins.max" => CompareOp::Gt,
            "builtins.min" => CompareOp::Lt,
            _ => return Ok(None),
        };
        let tuple = match args {
            [t] => tuple_length(self.ty(*t)).map(|n| (*t, n)),
            _ => None,
        };
        let items: Vec<ValueId> = match tuple {
            Some((t, n)) => (0..n).map(|i| self.extract(t, i, span)).collect::<LResult<_>>()?,
            None => args.to_vec(),
        };
        let Some(scalars) = items.iter().map(|v| scalar(self.ty(*v))).collect::<Option<Vec<Scalar>>>() else {
            return Ok(None);
        };
        let fmax = |s: &Scalar| matches!(s, Scalar::F32 | Scalar::F64);
        if items.is_empty()
            || !scalars.iter().any(|s| s.is_float())
            || tuple.is_none() && scalars.len() == 2 && scalars.iter().all(fmax)
        {
            return Ok(None);
        }
        let (mut acc, mut acc_ty) = (items[0], scalars[0]);
        for (&v, &vs) in items.iter().zip(&scalars).skip(1) {
            let ty = unify_scalar(acc_ty, vs);
            let a = self.cast(acc, ty, span)?;
            let x = self.cast(v, ty, span)?;
            let pred = self.emit(Op::Compare(op, x, a), Some(Type::Scalar(Scalar::Bool)), span);
            acc = self.emit(Op::Select { cond: pred, then: x, otherwise: a }, Some(Type::Scalar(ty)), span);
            acc_ty = ty;
        }
        match result {
            Some(r) => self.cast(acc, r, span).map(Some),
            None => Ok(Some(acc)),
        }
    }

    /// The NumPy ufuncs of numbers that are no math function (`numpy_as_math`), as
    /// Numba's `npyfuncs.py` computes them; `None` for the others.
    fn numpy_ufunc(&mut self, name: &str, args: &[ValueId], result: Option<Scalar>, span: TextRange) -> LResult<Option<ValueId>> {
        let bool_t = Some(Type::Scalar(Scalar::Bool));
        Ok(Some(match (name, args) {
            ("divide" | "true_divide", [a, b]) => self.arith(Operator::Div, *a, *b, result, span)?,
            // The integer ufuncs compute in their loop's type, the result's.
            ("bitwise_and" | "bitwise_or" | "bitwise_xor" | "left_shift" | "right_shift", [a, b]) => {
                let op = match name {
                    "bitwise_and" => Operator::BitAnd,
                    "bitwise_or" => Operator::BitOr,
                    "bitwise_xor" => Operator::BitXor,
                    "left_shift" => Operator::LShift,
                    _ => Operator::RShift,
                };
                self.arith(op, *a, *b, result, span)?
            }
            ("invert" | "bitwise_not", [a]) => {
                let Some(r) = result else { return Ok(None) };
                let x = self.cast(*a, r, span)?;
                let op = if r == Scalar::Bool { UnaryOp::Not } else { UnaryOp::Invert };
                self.emit(Op::Unary(op, x), Some(Type::Scalar(r)), span)
            }
            // The comparisons compare as the operators do, in the type both operands cast
            // to (NumPy orders complex numbers, which the operators do not: not modelled).
            ("greater" | "greater_equal" | "less" | "less_equal" | "equal" | "not_equal", [a, b])
                if matches!(name, "equal" | "not_equal")
                    || ![*a, *b].iter().any(|v| scalar(self.ty(*v)).is_some_and(|s| s.is_complex())) =>
            {
                let op = match name {
                    "greater" => CmpOp::Gt,
                    "greater_equal" => CmpOp::GtE,
                    "less" => CmpOp::Lt,
                    "less_equal" => CmpOp::LtE,
                    "equal" => CmpOp::Eq,
                    _ => CmpOp::NotEq,
                };
                self.compare_pair(op, *a, *b, span)?
            }
            ("logical_not", [a]) => {
                let t = self.truth(*a, span)?;
                self.emit(Op::Unary(UnaryOp::Not, t), bool_t, span)
            }
            ("logical_and" | "logical_or" | "logical_xor", [a, b]) => {
                let (ta, tb) = (self.truth(*a, span)?, self.truth(*b, span)?);
                match name {
                    "logical_and" => self.emit(Op::Select { cond: ta, then: tb, otherwise: ta }, bool_t, span),
                    "logical_or" => self.emit(Op::Select { cond: ta, then: ta, otherwise: tb }, bool_t, span),
                    _ => self.emit(Op::Compare(CompareOp::Ne, ta, tb), bool_t, span),
                }
            }
            // `np.maximum`/`np.minimum` propagate a NaN (the first when both are); `np.fmax`/
            // `np.fmin` ignore one (the second when both are). Otherwise `a >= b` (`<=`) picks
            // `a`, so a tie of zeros keeps the first (`np.fmin(0.0, -0.0)` is `0.0`, where
            // libdevice's `fmin` of `min` gives `-0.0`).
            ("maximum" | "minimum" | "fmax" | "fmin", [a, b]) => {
                let Some(r) = result else { return Ok(None) };
                let (a, b) = (self.cast(*a, r, span)?, self.cast(*b, r, span)?);
                let op = if matches!(name, "maximum" | "fmax") { CompareOp::Ge } else { CompareOp::Le };
                let keep_a = self.emit(Op::Compare(op, a, b), bool_t.clone(), span);
                let picked = self.emit(Op::Select { cond: keep_a, then: a, otherwise: b }, Some(Type::Scalar(r)), span);
                if !r.is_float() {
                    return Ok(Some(picked));
                }
                let a_nan = self.emit(Op::Compare(CompareOp::Ne, a, a), bool_t.clone(), span);
                let b_nan = self.emit(Op::Compare(CompareOp::Ne, b, b), bool_t.clone(), span);
                let any_nan = self.emit(Op::Select { cond: a_nan, then: a_nan, otherwise: b_nan }, bool_t, span);
                let (when_a_nan, otherwise) = if name.starts_with('f') { (b, a) } else { (a, b) };
                let nan = self.emit(Op::Select { cond: a_nan, then: when_a_nan, otherwise }, Some(Type::Scalar(r)), span);
                self.emit(Op::Select { cond: any_nan, then: nan, otherwise: picked }, Some(Type::Scalar(r)), span)
            }
            _ => return Ok(None),
        }))
    }

    /// `print(...)` as Numba lowers it (`numba/cuda/printimpl.py`): each argument's format
    /// and values, the formats joined by one space and ended by a newline; with more than
    /// 32 arguments every `%` doubled, so that the GPU prints the raw format.
    fn print(&mut self, call: &ast::ExprCall, span: TextRange) -> LResult<ValueId> {
        let items = &call.arguments.args;
        let mut formats = Vec::new();
        let mut args = Vec::new();
        for item in items {
            formats.push(self.print_item(item, &mut args)?);
        }
        let mut format = formats.join(" ") + "\n";
        if items.len() > 32 {
            format = format.replace('%', "%%");
        }
        self.emit_void(Op::Print { format, args }, span);
        Ok(VOID)
    }

    fn print_item(&mut self, item: &Expr, args: &mut Vec<PrintArg>) -> LResult<String> {
        let span = item.range();
        if let Expr::Starred(_) = item {
            return unsupported("`*args` in `print`", span);
        }
        // A literal string is a module constant: no value is computed.
        if self.is_constant_string(item)
            && let Some(Type::StrLiteral(text)) = self.literal_type(item)
        {
            args.push(PrintArg::Str(text.clone()));
            return Ok("%s".into());
        }
        if let Some(path) = self.global_path(item)
            && let Some(dim) = path.strip_prefix("numba.cuda.")
            && matches!(dim, "threadIdx" | "blockIdx" | "blockDim" | "gridDim")
        {
            for axis in ["x", "y", "z"] {
                let name = format!("{dim}.{axis}");
                let v = self.emit(Op::Intrinsic { name, args: vec![] }, Some(Type::Scalar(Scalar::I32)), span);
                args.push(PrintArg::Value(v));
            }
            return Ok("(%d, %d, %d)".into());
        }
        let v = self.expr(item)?;
        self.print_value(v, args, span)
    }

    /// The format of a value and its arguments: integers widened to 64 bits (`%lld`,
    /// `%llu`), floats to float64 (`%f`), booleans as strings, tuples item by item.
    fn print_value(&mut self, v: ValueId, args: &mut Vec<PrintArg>, span: TextRange) -> LResult<String> {
        let ty = self.ty(v).clone();
        Ok(match &ty {
            Type::Scalar(Scalar::Bool) => {
                args.push(PrintArg::Bool(v));
                "%s".into()
            }
            Type::Scalar(s) if s.is_int() => {
                let (to, format) = if s.is_unsigned_int() { (Scalar::U64, "%llu") } else { (Scalar::I64, "%lld") };
                args.push(PrintArg::Value(self.cast(v, to, span)?));
                format.into()
            }
            Type::Scalar(s) if s.is_float() => {
                args.push(PrintArg::Value(self.cast(v, Scalar::F64, span)?));
                "%f".into()
            }
            Type::UniTuple(..) | Type::Tuple(_) => {
                let mut parts = Vec::new();
                for item in self.tuple_items(v, span)? {
                    parts.push(self.print_value(item, args, span)?);
                }
                match parts.as_slice() {
                    [one] => format!("({one},)"),
                    _ => format!("({})", parts.join(", ")),
                }
            }
            other => return unsupported(&format!("printing {other}"), span),
        })
    }

    /// The calls [`arrays`] lowers: a scalar type reached through a value (`a.dtype.type(x)`,
    /// `ft(x)` for `ft = np.float32`: a conversion), an array's methods, and the NumPy
    /// functions and builtins that reduce an array. `None` for any other call.
    fn array_call(&mut self, call: &ast::ExprCall, expr: &Expr) -> LResult<Option<ValueId>> {
        let span = call.range();
        let result = self.expr_type(expr).unwrap_or(Type::Unknown);
        let args = &call.arguments.args;
        let path = self.global_path(&call.func).or_else(|| match &*call.func {
            Expr::Name(n) if !self.locals.contains(n.id.as_str()) => Some(format!("builtins.{}", n.id)),
            _ => None,
        });
        if self.types.casts.contains(&(span.start().into(), span.end().into()))
            && call.arguments.keywords.is_empty()
            && let [x] = args.as_ref()
            && let Some(to) = scalar(&result)
        {
            let v = self.expr(x)?;
            return self.cast(v, to, span).map(Some);
        }
        if let Expr::Attribute(attr) = &*call.func
            && matches!(self.expr_type(&attr.value), Ok(Type::Array { .. }))
        {
            let recv = self.expr(&attr.value)?;
            return self.array_method(recv, attr.attr.as_str(), call, &result, span).map(Some);
        }
        let (Some(path), Some(first)) = (path, args.first()) else { return Ok(None) };
        if path == "builtins.sum"
            && self.expr_type(first).is_ok_and(|t| tuple_length(&t).is_some())
            && let Some(acc_t) = scalar(&result)
        {
            // numba-cuda's `ol_sum`: `acc = start; for x in t: acc = acc + x`, `acc` of the
            // type its assignments meet at.
            let tuple = self.expr(first)?;
            let start = match args.get(1).or_else(|| keyword(call, "start")) {
                Some(e) => self.expr(e)?,
                None => self.int(0, span),
            };
            let mut acc = self.cast(start, acc_t, span)?;
            for x in self.tuple_items(tuple, span)? {
                let sum = self.arith(Operator::Add, acc, x, None, span)?;
                acc = self.cast(sum, acc_t, span)?;
            }
            return Ok(Some(acc));
        }
        if !matches!(self.expr_type(first), Ok(Type::Array { .. })) {
            return Ok(None);
        }
        match path.as_str() {
            "numpy.sum" | "numpy.prod" | "numpy.mean" | "numpy.var" | "numpy.std" | "numpy.all" | "numpy.any" | "numpy.argmax" | "numpy.argmin"
            | "numpy.nansum" | "numpy.nanprod" | "numpy.nanmean" | "numpy.nanvar" | "numpy.nanstd" | "numpy.count_nonzero" => {
                let array = self.expr(first)?;
                let axis = args.get(1).or_else(|| keyword(call, "axis"));
                let name = path.trim_start_matches("numpy.");
                self.reduction(name, array, axis, &result, span).map(Some)
            }
            "numpy.asarray" => self.expr(first).map(Some),
            "numpy.trace" => {
                let array = self.expr(first)?;
                let offset = args.get(1).or_else(|| keyword(call, "offset")).map(|e| self.expr(e)).transpose()?;
                self.trace(array, offset, &result, span).map(Some)
            }
            "numpy.average" => {
                let array = self.expr(first)?;
                self.reduction("mean", array, None, &result, span).map(Some)
            }
            "builtins.sum" | "builtins.min" | "builtins.max" if args.len() <= 2 => {
                let name = path.trim_start_matches("builtins.");
                if name != "sum" && (args.len() != 1 || !call.arguments.keywords.is_empty()) {
                    return Ok(None);
                }
                let array = self.expr(first)?;
                let start = args.get(1).or_else(|| keyword(call, "start")).map(|e| self.expr(e)).transpose()?;
                self.builtin_reduction(name, array, start, &result, span).map(Some)
            }
            _ => Ok(None),
        }
    }

    /// A libdevice routine: the arguments converted to its parameter types, then the
    /// operation [`libdevice::plan`] names (an existing intrinsic, or `libdevice.<name>`,
    /// which the backends compute or reject themselves).
    fn libdevice(&mut self, name: &str, args: Vec<ValueId>, result: &Type, span: TextRange) -> LResult<ValueId> {
        let Some(routine) = libdevice::routine(name) else {
            return unsupported(&format!("`cuda.libdevice.{name}`"), span);
        };
        let args: Vec<ValueId> =
            args.into_iter().zip(routine.params).map(|(a, p)| self.cast(a, *p, span)).collect::<LResult<_>>()?;
        let ret = routine.ret.to_type();
        let result = if *result == Type::Unknown { ret.clone() } else { result.clone() };
        match libdevice::plan(name) {
            Plan::Intrinsic { name: intrinsic, args: conversion, result: produced } => {
                let args = match conversion {
                    Some(s) => args.into_iter().map(|a| self.cast(a, s, span)).collect::<LResult<_>>()?,
                    None => args,
                };
                let v = self.emit(Op::Intrinsic { name: intrinsic.to_string(), args }, Some(produced.to_type()), span);
                self.cast_to_type(v, &result, span)
            }
            Plan::SinCos => {
                let ty = Type::Scalar(routine.params[0]);
                let s = self.emit(Op::Intrinsic { name: "math.sin".into(), args: args.clone() }, Some(ty.clone()), span);
                let c = self.emit(Op::Intrinsic { name: "math.cos".into(), args }, Some(ty), span);
                Ok(self.emit(Op::MakeTuple(vec![s, c]), Some(result), span))
            }
            Plan::Exp10 => {
                let s = routine.params[0];
                let ten = self.constant(Constant::Float(10.0, s), span);
                Ok(self.emit(Op::Intrinsic { name: "math.pow".into(), args: vec![ten, args[0]] }, Some(result), span))
            }
            Plan::Native(_) | Plan::Unsupported => {
                Ok(self.emit(Op::Intrinsic { name: format!("libdevice.{name}"), args }, Some(result), span))
            }
        }
    }

    /// Convert arguments to what the operation takes: math functions and min/max/abs work in
    /// their result type; atomics store the array's dtype; index tuples become int64.
    fn convert_intrinsic_args(&mut self, name: &str, args: Vec<ValueId>, result: Option<Scalar>, span: TextRange) -> LResult<Vec<ValueId>> {
        let to_result = name.starts_with("math.") && !matches!(name, "math.isnan" | "math.isinf" | "math.isfinite")
            || matches!(name, "builtins.min" | "builtins.max" | "builtins.abs" | "fma" | "cbrt");
        if to_result
            && let Some(r) = result
            && args.iter().all(|a| scalar(self.ty(*a)).is_some())
        {
            return args.into_iter().map(|a| self.cast(a, r, span)).collect();
        }
        if let Some(op) = name.strip_prefix("atomic.")
            && let [array, index, rest @ ..] = args.as_slice()
            && let Some(dtype) = self.ty(*array).dtype().and_then(scalar)
        {
            // Indices wrap once when negative, as in `a[i]`.
            let wrap = |this: &mut Self, axis: usize, v: ValueId| -> LResult<ValueId> {
                let signed = scalar(this.ty(v)).is_some_and(|s| !s.is_unsigned_int());
                let v = this.cast(v, Scalar::I64, span)?;
                Ok(if signed { this.wrap_index(*array, axis, v, span) } else { v })
            };
            let mut out = vec![*array];
            out.push(match self.ty(*index).clone() {
                Type::Scalar(_) => wrap(self, 0, *index)?,
                t @ (Type::UniTuple(..) | Type::Tuple(_)) => {
                    let n = tuple_length(&t).unwrap_or(0);
                    let items = (0..n)
                        .map(|axis| {
                            let item = self.extract(*index, axis, span)?;
                            wrap(self, axis, item)
                        })
                        .collect::<LResult<Vec<_>>>()?;
                    self.emit(Op::MakeTuple(items), Some(Type::UniTuple(Box::new(Type::Scalar(Scalar::I64)), n)), span)
                }
                _ => *index,
            });
            for v in rest {
                out.push(self.cast(*v, dtype, span)?);
            }
            let _ = op;
            return Ok(out);
        }
        Ok(args)
    }
}

/// The math function a NumPy ufunc of numbers computes as (Numba's `npyfuncs.py`:
/// libdevice's routine for floats).
fn numpy_as_math(ufunc: &str) -> Option<&'static str> {
    Some(match ufunc {
        "sin" => "math.sin",
        "cos" => "math.cos",
        "tan" => "math.tan",
        "arcsin" => "math.asin",
        "arccos" => "math.acos",
        "arctan" => "math.atan",
        "sinh" => "math.sinh",
        "cosh" => "math.cosh",
        "tanh" => "math.tanh",
        "arcsinh" => "math.asinh",
        "arccosh" => "math.acosh",
        "arctanh" => "math.atanh",
        "log" => "math.log",
        "log2" => "math.log2",
        "log10" => "math.log10",
        "deg2rad" | "radians" => "math.radians",
        "rad2deg" | "degrees" => "math.degrees",
        "arctan2" => "math.atan2",
        "hypot" => "math.hypot",
        "isnan" => "math.isnan",
        _ => return None,
    })
}

fn tuple_length(t: &Type) -> Option<usize> {
    match t {
        Type::UniTuple(_, n) => Some(*n),
        Type::Tuple(items) | Type::NamedTuple { items, .. } => Some(items.len()),
        _ => None,
    }
}

/// A lowered array subscript.
enum Access {
    /// Every axis indexed: int64 indices, wrapped.
    Element(Vec<ValueId>),
    /// A view: `SubArray` or `Slice`.
    View(ValueId),
}

/// The direction of a slice's step, as far as it is known at compile time.
#[derive(Clone, Copy)]
enum Sign {
    /// A positive constant step.
    Up(i128),
    /// A negative constant step.
    Down,
    /// A step known at run time (never 0 past its check): the value `step < 0`.
    Unknown(ValueId),
}

enum Element {
    /// `for i in range(...)`: the counter itself (the slot holds the step).
    Counter(SlotId),
    /// `for x in seq`, `enumerate(seq)`, `zip(a, b)`: the items at the counter.
    Items(Walk<ValueId>),
}

/// What a `for` loop walks, before its expressions are lowered.
enum Walked<'e> {
    /// `range(...)` of the given counter type.
    Range(&'e ast::ExprCall, Scalar),
    Items(Walk<&'e Expr>),
}

/// Sequences walked item by item: `E` is an expression before lowering, a value after.
enum Walk<E> {
    /// An array (its items are elements or views) or a homogeneous tuple.
    Seq(E),
    /// `a.flat`: an array's elements in C order.
    Flat(E),
    /// A range of the given type (in `enumerate`/`zip`, or held by a variable): the range
    /// expression before lowering; after, its start and step (of that type) and its int64
    /// item count.
    Range(Vec<E>, Scalar),
    /// `enumerate(walk, start)`: (start + counter, item).
    Enumerate(Box<Walk<E>>, Option<E>),
    /// `zip(a, b, ...)`: a tuple of items, as long as the shortest.
    Zip(Vec<Walk<E>>),
}

fn keyword<'e>(call: &'e ast::ExprCall, name: &str) -> Option<&'e Expr> {
    call.arguments.keywords.iter().find(|k| k.arg.as_ref().is_some_and(|a| a.as_str() == name)).map(|k| &k.value)
}

fn is_alloc_call(call: &ast::ExprCall, scope: &ItemScope) -> bool {
    matches!(
        qualified_path(&call.func, scope).as_deref(),
        Some("numba.cuda.shared.array" | "numba.cuda.local.array")
    )
}

fn is_nonnegative_literal(e: &Expr) -> bool {
    matches!(e, Expr::NumberLiteral(ast::ExprNumberLiteral { value: Number::Int(_), .. }))
}

fn statement_name(stmt: &Stmt) -> &'static str {
    match stmt {
        Stmt::FunctionDef(_) => "an inner function",
        Stmt::ClassDef(_) => "a class",
        Stmt::With(_) => "`with`",
        Stmt::Try(_) => "`try`",
        Stmt::Delete(_) => "`del`",
        Stmt::Import(_) | Stmt::ImportFrom(_) => "an import",
        Stmt::Global(_) | Stmt::Nonlocal(_) => "`global`/`nonlocal`",
        _ => "this statement",
    }
}

/// Whether `t` is an integer literal or a (non-empty) tuple of them.
fn is_int_literal(t: &Type) -> bool {
    match t {
        Type::IntLiteral(_) => true,
        Type::UniTuple(item, _) => is_int_literal(item),
        Type::Tuple(items) => !items.is_empty() && items.iter().all(is_int_literal),
        _ => false,
    }
}

/// The IR's type of a typed value: without literals, and an Enum member as its value.
fn unliteral(ty: &Type) -> Type {
    match promote::unliteral(ty) {
        Type::Enum { value, .. } => Type::Scalar(value),
        Type::UniTuple(t, n) => Type::UniTuple(Box::new(unliteral(&t)), n),
        Type::Tuple(ts) => Type::tuple(ts.iter().map(unliteral).collect()),
        // A named tuple is its members; only typing and attribute access know the names.
        Type::NamedTuple { items, .. } => Type::tuple(items.iter().map(unliteral).collect()),
        other => other,
    }
}
