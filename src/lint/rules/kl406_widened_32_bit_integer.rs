//! # KL406: a 32-bit integer that Numba computes in 64 bits
//!
//! ## What it does
//! Finds values the code makes 32-bit on purpose that Numba's integer arithmetic widens to 64
//! bits where the width matters:
//! - a variable declared with `int32(...)` or `uint32(...)` (`h = uint32(seed)`), a 32-bit
//!   module constant (`h = FNV_OFFSET` with `FNV_OFFSET = uint32(2166136261)`) or a bitwise or
//!   arithmetic mix of those (`h = FNV_OFFSET ^ uint32(seed)`) that a later assignment makes
//!   int64 or uint64 (`h *= uint32(0x85EBCA6B)`, `c += 1`): Numba types the variable 64-bit for
//!   the whole function;
//! - a multiply or left shift of a 32-bit value (a cast, an int32/uint32 array element, a
//!   variable first assigned one) whose 64-bit result is then shifted right (hash mixing,
//!   xorshift), or, for unsigned values, reduced with `%`/`//` or converted to a float;
//! - `cuda.clz` or `cuda.brev` of a bit operation on 32-bit values (`cuda.clz(z | uint32(1))`):
//!   the operation is 64-bit, so the intrinsic counts or reverses 64 bits;
//! - a sum, difference, product or left shift of 32-bit values passed to a device function
//!   that shifts that parameter right (`rotl(a + d, 7)` with `def rotl(v, n): return (v << n)
//!   | (v >> (32 - n))`, Salsa20): the carry above bit 31 comes back down. A callee that
//!   reassigns (masks) the parameter first, or uses it only as an index or in float math, is
//!   left alone.
//!
//! Each variable or widening operation is reported once. A widened value that is only used
//! as an index, compared, or stored into a 32-bit array (the store keeps the low 32 bits,
//! which are right) is left alone, as is a value masked back to 32 bits (`& 0xFFFFFFFF`).
//!
//! ## Why is this bad?
//! Numba types all integer arithmetic as 64-bit: `uint32 * uint32` is uint64, `int32 + 1` is
//! int64, and a variable takes the type of all its assignments. A "32-bit" hash or random
//! generator (murmur3, xorshift, FNV, an LCG) then never wraps at 2**32: the bits above 32
//! come back down at the next right shift, and the results differ from the CPU or CUDA C
//! version. A counter declared int32 takes 64-bit registers and arithmetic anyway.
//!
//! ## Example
//! ```python
//! from numba import cuda, uint32
//!
//! @cuda.jit("void(uint32[::1], uint32[::1])")
//! def mix(out, keys):
//!     i = cuda.grid(1)
//!     h = uint32(keys[i])
//!     h *= uint32(0x85EBCA6B)
//!     h ^= h >> uint32(13)
//!     out[i] = h
//! ```
//!
//! ## Use instead
//! Wrap each assignment so the value stays 32-bit (Numba then emits a 32-bit multiply and
//! the result wraps as intended):
//! ```python
//! from numba import cuda, uint32
//!
//! @cuda.jit("void(uint32[::1], uint32[::1])")
//! def mix(out, keys):
//!     i = cuda.grid(1)
//!     h = uint32(keys[i])
//!     h = uint32(h * uint32(0x85EBCA6B))
//!     h = uint32(h ^ (h >> uint32(13)))
//!     out[i] = h
//! ```

use std::collections::HashSet;

use ruff_python_ast::visitor::{self, Visitor};
use ruff_python_ast::{Expr, ExprBinOp, Operator, Stmt, StmtAugAssign, StmtFunctionDef, UnaryOp};
use ruff_text_size::{Ranged, TextRange};

use crate::analysis::bindings::names_bound_in_function;
use crate::analysis::types::Scalar;
use crate::analysis::items::item_statements;
use crate::analysis::typing::{FunctionName, FunctionTypes, find_def, gpu_function_entry, resolve_device_function};
use crate::analysis::typing::promote::base_scalar;
use crate::lint::body::{Flow, Parent, key, merge_typings, numeric_type, type_spelling, typings, walk};
use crate::lint::{Diagnostic, Edit, ItemContext, snippet};

pub fn check(ctx: &ItemContext, out: &mut Vec<Diagnostic>) {
    for (function, def) in ctx.gpu_functions() {
        let locals = names_bound_in_function(def, true);
        let flow = Flow::new(def);
        let mut per_typing = Vec::new();
        for typing in typings(ctx, function) {
            let checker = Checker { ctx, types: typing.types, flow: &flow, locals: &locals };
            per_typing.push((typing.note, checker.findings(def)));
        }
        merge_typings(per_typing, out);
    }
}

const NOTE: &str = "Numba types integer arithmetic as 64-bit (`int32 + 1` is int64, `uint32 * uint32` is uint64) \
    and gives a variable one type for all its assignments (reference §3.2).";

fn narrow(s: Scalar) -> bool {
    matches!(s, Scalar::I32 | Scalar::U32)
}

fn wide(s: Scalar) -> bool {
    matches!(s, Scalar::I64 | Scalar::U64)
}

/// Operations whose low 32 bits depend only on their operands' low 32 bits.
fn keeps_low_bits(op: Operator) -> bool {
    matches!(op, Operator::Add | Operator::Sub | Operator::Mult | Operator::LShift | Operator::BitOr | Operator::BitXor)
}

/// Where a widened value's upper bits change the result.
enum Sink<'a> {
    Shift(TextRange, Option<&'a Expr>),
    Reduce(TextRange, Option<&'a Expr>),
    Float(TextRange, Option<&'a Expr>),
}

struct Checker<'c, 'a> {
    ctx: &'c ItemContext<'c>,
    types: &'c FunctionTypes,
    flow: &'c Flow<'a>,
    locals: &'c HashSet<String>,
}

impl<'c, 'a> Checker<'c, 'a> {
    fn scalar(&self, expr: &Expr) -> Option<Scalar> {
        self.types.expressions.get(&key(expr.range())).and_then(base_scalar)
    }

    /// The value a variable is first assigned.
    fn first_value(&self, name: &str) -> Option<&'a Expr> {
        *self.flow.bindings.get(name)?.first()?
    }

    /// The 32-bit type of a variable whose first value is 32-bit.
    fn var32(&self, name: &str) -> Option<Scalar> {
        self.first_value(name).and_then(|v| self.scalar(v)).filter(|s| narrow(*s))
    }

    /// The 32-bit type a variable is declared with: a cast (`h = uint32(seed)`), a 32-bit
    /// module constant (`h = FNV_OFFSET`), or those combined (`h = FNV_OFFSET ^ uint32(seed)`,
    /// itself 64-bit in Numba).
    fn declared(&self, name: &str) -> Option<Scalar> {
        self.first_value(name).and_then(|v| self.declaration(v))
    }

    fn declaration(&self, expr: &Expr) -> Option<Scalar> {
        match expr {
            Expr::Call(c) if self.ctx.path(&c.func).is_some_and(|p| numeric_type(&p)) => self.scalar(expr).filter(|s| narrow(*s)),
            Expr::Name(n) if !self.locals.contains(n.id.as_str()) => self.scalar(expr).filter(|s| narrow(*s)),
            Expr::BinOp(b) if matches!(b.op, Operator::BitXor | Operator::BitOr | Operator::BitAnd | Operator::Add | Operator::Mult) => {
                let left = self.declaration(&b.left)?;
                (self.declaration(&b.right)? == left).then_some(left)
            }
            _ => None,
        }
    }

    fn widened_var(&self, name: &str) -> bool {
        self.types.variables.get(name).is_some_and(|t| t.contains("int64") || t.contains("uint64"))
    }

    /// The 32-bit type of an operand: typed int32/uint32, or a read of a 32-bit variable.
    fn narrow_operand(&self, expr: &Expr) -> Option<Scalar> {
        if let Expr::Name(n) = expr
            && let Some(s) = self.var32(n.id.as_str())
        {
            return Some(s);
        }
        self.scalar(expr).filter(|s| narrow(*s))
    }

    /// An integer literal in 0..2**32, `None` for what is no literal.
    fn literal32(&self, expr: &Expr) -> Option<bool> {
        match self.types.expressions.get(&key(expr.range())) {
            Some(crate::analysis::types::Type::IntLiteral(v)) => Some((0..=0xFFFF_FFFF).contains(v)),
            _ => None,
        }
    }

    /// The 32-bit type of a binary operation whose operands are all 32-bit values or 32-bit
    /// literals, at least one a value (`a + d`, `h ^ 0x9E3779B9`): `uint32` where one is.
    fn narrow_operands(&self, b: &ExprBinOp) -> Option<&'static str> {
        let operands = [&*b.left, &*b.right];
        let sides = operands.map(|o| self.narrow_operand(o));
        if sides.iter().all(Option::is_none) || !operands.iter().zip(&sides).all(|(o, s)| s.is_some() || self.literal32(o) == Some(true)) {
            return None;
        }
        Some(if sides.contains(&Some(Scalar::U32)) { "uint32" } else { "int32" })
    }

    /// `x & 0xFFFF`, `x & uint32(m)`: the result fits in 32 bits.
    fn mask32(&self, expr: &Expr) -> bool {
        self.literal32(expr).unwrap_or_else(|| matches!(self.scalar(expr), Some(Scalar::U8 | Scalar::U16 | Scalar::U32 | Scalar::Bool)))
    }

    fn findings(&self, def: &'a StmtFunctionDef) -> Vec<Diagnostic> {
        let mut out = Vec::new();
        let mut reported: HashSet<&str> = HashSet::new();
        let mut names: Vec<&str> = self.flow.bindings.keys().copied().collect();
        names.sort_by_key(|n| self.first_value(n).map(|v| key(v.range())));
        for name in names {
            if self.declared(name).is_some() && self.widened_var(name) {
                out.extend(self.declared_finding(def, name));
                reported.insert(name);
            }
        }
        let mut origins: Vec<(&'a Expr, bool)> = Vec::new();
        for expr in &self.flow.exprs {
            let Expr::BinOp(b) = expr else { continue };
            if !matches!(b.op, Operator::Mult | Operator::LShift) || !self.scalar(expr).is_some_and(wide) {
                continue;
            }
            let sides = [self.narrow_operand(&b.left), self.narrow_operand(&b.right)];
            if sides.iter().all(Option::is_none) || ![&b.left, &b.right].iter().all(|o| self.scalar(o).is_some_and(|s| s.is_int())) {
                continue;
            }
            origins.push((expr, sides.contains(&Some(Scalar::U32))));
        }
        for expr in &self.flow.exprs {
            out.extend(self.bit_count_finding(expr, &reported));
            out.extend(self.call_findings(expr));
        }
        for (origin, unsigned) in origins {
            let (vars, sink) = self.follow(origin, unsigned);
            let Some(sink) = sink else { continue };
            if vars.iter().any(|v| reported.contains(v)) {
                continue;
            }
            let var = vars.iter().copied().find(|v| self.var32(v).is_some());
            if let Some(v) = var {
                reported.insert(v);
            }
            out.push(self.origin_finding(def, origin, unsigned, var, &sink));
        }
        out
    }

    /// `cuda.clz(z | uint32(1))`, `cuda.brev(a ^ b)`: bit operations on 32-bit values, which
    /// Numba widens, passed to an intrinsic that works on every bit of its operand's width.
    fn bit_count_finding(&self, expr: &'a Expr, reported: &HashSet<&str>) -> Option<Diagnostic> {
        let Expr::Call(call) = expr else { return None };
        let intrinsic = self.ctx.path(&call.func)?;
        let (name, effect) = match intrinsic.as_str() {
            "numba.cuda.clz" => ("clz", "counts the leading zeros of 64 bits: 32 more than the 32-bit value has"),
            "numba.cuda.brev" => ("brev", "reverses 64 bits: the 32-bit value's bits land in the upper half"),
            _ => return None,
        };
        let [arg] = call.arguments.args.as_ref() else { return None };
        let Expr::BinOp(b) = arg else { return None };
        if !self.scalar(arg).is_some_and(wide) || !matches!(b.op, Operator::BitOr | Operator::BitXor | Operator::BitAnd | Operator::Add | Operator::Sub) {
            return None;
        }
        let ty = self.narrow_operands(b)?;
        if [&*b.left, &*b.right].iter().any(|o| matches!(o, Expr::Name(n) if reported.contains(n.id.as_str()))) {
            return None;
        }
        let text = &self.ctx.text[arg.range()];
        let mut d = Diagnostic::new(
            "KL406",
            arg.range(),
            format!("`{}` is 64-bit in Numba (it widens {ty} operands, even of `{}`), so `cuda.{name}` {effect}", snippet(text), b.op.as_str()),
        )
        .warning()
        .note(NOTE);
        if let Some(cast) = type_spelling(self.ctx, self.locals, ty) {
            d = d.unsafe_fix(format!("Make the operand {ty} again: `{cast}(...)`"), vec![Edit { range: arg.range(), content: format!("{cast}({text})") }]);
        }
        Some(d)
    }

    /// `rotl(a + d, 7)` with `a`, `d` uint32: a sum, difference, product or left shift of
    /// 32-bit values (64-bit in Numba) passed to a device function that shifts that parameter
    /// right (a 32-bit rotate: `(v << n) | (v >> (32 - n))`), which brings the carry above bit
    /// 31 back down. A callee that uses the value otherwise (an index, float math) is no finding.
    fn call_findings(&self, expr: &'a Expr) -> Vec<Diagnostic> {
        let Expr::Call(call) = expr else { return Vec::new() };
        let Expr::Name(callee) = &*call.func else { return Vec::new() };
        let Some((callee_def, home)) = self.device_def(callee.id.as_str()) else { return Vec::new() };
        let params: Vec<&str> = callee_def.parameters.posonlyargs.iter().chain(&callee_def.parameters.args).map(|p| p.name().as_str()).collect();
        let mut out = Vec::new();
        for (arg, param) in call.arguments.args.iter().zip(params) {
            let Expr::BinOp(b) = arg else { continue };
            if !matches!(b.op, Operator::Add | Operator::Sub | Operator::Mult | Operator::LShift) || !self.scalar(arg).is_some_and(wide) {
                continue;
            }
            let Some(ty) = self.narrow_operands(b) else { continue };
            let Some(shift) = right_shift_of(callee_def, param) else { continue };
            let shift = snippet(&home[shift]);
            let text = &self.ctx.text[arg.range()];
            let mut d = Diagnostic::new(
                "KL406",
                arg.range(),
                format!(
                    "`{}` is computed in 64 bits (Numba widens {ty} arithmetic), so it does not wrap at 2**32, and `{}` shifts its parameter `{param}` right (`{shift}`): the bits above 32 come back down, and the result differs from the 32-bit algorithm",
                    snippet(text),
                    callee.id
                ),
            )
            .warning()
            .note(NOTE);
            if let Some(cast) = type_spelling(self.ctx, self.locals, ty) {
                d = d.unsafe_fix(format!("Keep the argument {ty}: `{cast}(...)`"), vec![Edit { range: arg.range(), content: format!("{cast}({text})") }]);
            }
            out.push(d);
        }
        out
    }

    /// The `def` of the device function `name` calls, with the text its ranges index.
    fn device_def(&self, name: &str) -> Option<(&'c StmtFunctionDef, &'c str)> {
        let db = self.ctx.db;
        let (home, qualname) = resolve_device_function(db, self.ctx.file, &self.ctx.scope, name)?;
        let entry = gpu_function_entry(db, home, FunctionName::new(db, qualname)).as_ref()?;
        let def = find_def(item_statements(db, entry.item), entry.function.def_range)?;
        Some((def, entry.item.text(db)))
    }

    /// The variables a widened value reaches through operations that keep its low bits, and
    /// the first place its upper bits change a result.
    fn follow(&self, origin: &'a Expr, unsigned: bool) -> (Vec<&'a str>, Option<Sink<'a>>) {
        let mut work = vec![origin];
        let mut seen: HashSet<(u32, u32)> = HashSet::new();
        let mut vars: Vec<&'a str> = Vec::new();
        let mut sink = None;
        let taint = |name: &'a str, work: &mut Vec<&'a Expr>, vars: &mut Vec<&'a str>, sink: &mut Option<Sink<'a>>| {
            if vars.contains(&name) {
                return;
            }
            vars.push(name);
            work.extend(self.flow.reads.get(name).into_iter().flatten());
            for aug in self.flow.augs.get(name).into_iter().flatten() {
                match aug.op {
                    Operator::RShift => *sink = sink.take().or(Some(Sink::Shift(aug.range(), None))),
                    Operator::Mod | Operator::FloorDiv if unsigned => *sink = sink.take().or(Some(Sink::Reduce(aug.range(), None))),
                    _ => {}
                }
            }
        };
        while let Some(x) = work.pop() {
            if !seen.insert(key(x.range())) {
                continue;
            }
            match self.flow.parent(x) {
                Some(Parent::Expr(p)) => {
                    if self.scalar(p).is_some_and(|s| s.is_float()) && !matches!(p, Expr::Compare(_)) {
                        if unsigned {
                            sink = sink.or(Some(Sink::Float(p.range(), Some(x))));
                        }
                        continue;
                    }
                    match p {
                        Expr::BinOp(b) => {
                            let left = std::ptr::eq(&*b.left, x);
                            let other = if left { &b.right } else { &b.left };
                            match b.op {
                                op if keeps_low_bits(op) => work.push(p),
                                Operator::BitAnd if !self.mask32(other) => work.push(p),
                                Operator::RShift if left => sink = sink.or(Some(Sink::Shift(p.range(), Some(x)))),
                                Operator::Mod | Operator::FloorDiv if left && unsigned => {
                                    sink = sink.or(Some(Sink::Reduce(p.range(), Some(x))));
                                }
                                _ => {}
                            }
                        }
                        Expr::UnaryOp(u) if u.op != UnaryOp::Not => work.push(p),
                        Expr::If(i) if !std::ptr::eq(&*i.test, x) => work.push(p),
                        _ => {}
                    }
                }
                Some(Parent::Stmt(Stmt::Assign(a))) if std::ptr::eq(&*a.value, x) => {
                    for target in &a.targets {
                        if let Expr::Name(n) = target {
                            taint(n.id.as_str(), &mut work, &mut vars, &mut sink);
                        }
                    }
                }
                Some(Parent::Stmt(Stmt::AugAssign(a))) if std::ptr::eq(&*a.value, x) && keeps_low_bits(a.op) => {
                    if let Expr::Name(n) = &*a.target {
                        taint(n.id.as_str(), &mut work, &mut vars, &mut sink);
                    }
                }
                _ => {}
            }
        }
        (vars, sink)
    }

    /// Each assignment that makes `name` 64-bit, wrapped back to its 32-bit type; `None` when
    /// some binding is not a plain or augmented assignment (a loop target, an unpacking).
    fn wrap_assignments(&self, def: &'a StmtFunctionDef, name: &str) -> Option<Vec<Edit>> {
        let ty = if self.var32(name).or(self.declared(name))? == Scalar::U32 { "uint32" } else { "int32" };
        let cast = type_spelling(self.ctx, self.locals, ty)?;
        if self.flow.bindings.get(name)?.iter().any(Option::is_none) {
            return None;
        }
        let text = |e: &Expr| &self.ctx.text[e.range()];
        let mut edits = Vec::new();
        walk(&def.body, &mut |stmt| match stmt {
            Stmt::Assign(a)
                if matches!(a.targets.as_slice(), [Expr::Name(n)] if n.id.as_str() == name) && self.scalar(&a.value).is_some_and(wide) =>
            {
                edits.push(Edit { range: a.value.range(), content: format!("{cast}({})", text(&a.value)) });
            }
            Stmt::AugAssign(a) if matches!(&*a.target, Expr::Name(n) if n.id.as_str() == name) => {
                edits.push(Edit { range: a.range(), content: format!("{name} = {cast}({name} {} {})", a.op.as_str(), operand(text, &a.value)) });
            }
            _ => {}
        });
        Some(edits)
    }

    /// The first assignment that widens `name`: one that can carry past 32 bits if any.
    fn widening(&self, def: &'a StmtFunctionDef, name: &str) -> Option<(TextRange, String)> {
        let mut first: Option<(TextRange, String)> = None;
        let mut carry: Option<(TextRange, String)> = None;
        let text = |e: &Expr| self.ctx.text[e.range()].to_string();
        let overflows = |op: Operator| matches!(op, Operator::Add | Operator::Sub | Operator::Mult | Operator::LShift);
        walk(&def.body, &mut |stmt| {
            let found = match stmt {
                Stmt::Assign(a) if matches!(a.targets.as_slice(), [Expr::Name(n)] if n.id.as_str() == name) && self.scalar(&a.value).is_some_and(wide) => {
                    Some((a.value.range(), text(&a.value), matches!(&*a.value, Expr::BinOp(b) if overflows(b.op))))
                }
                Stmt::AugAssign(StmtAugAssign { target, op, value, range, .. })
                    if matches!(&**target, Expr::Name(n) if n.id.as_str() == name) =>
                {
                    Some((*range, format!("{name} {} {}", op.as_str(), operand(|e| &self.ctx.text[e.range()], value)), overflows(*op)))
                }
                _ => None,
            };
            if let Some((range, shown, carries)) = found {
                first = first.take().or(Some((range, shown.clone())));
                if carries {
                    carry = carry.take().or(Some((range, shown)));
                }
            }
        });
        carry.or(first)
    }

    fn declared_finding(&self, def: &'a StmtFunctionDef, name: &str) -> Option<Diagnostic> {
        let (range, op) = self.widening(def, name)?;
        let ty = self.declared(name)?;
        let declared = snippet(&self.ctx.text[self.first_value(name)?.range()]);
        let wrap = if ty == Scalar::U32 {
            "it never wraps at 2**32, so a hash or random generator built on it gives other values than its 32-bit version"
        } else {
            "it takes 64-bit registers and arithmetic, and values that would wrap at 32 bits do not"
        };
        let mut d = Diagnostic::new(
            "KL406",
            range,
            format!(
                "`{name}` is declared {ty} (`{declared}`), but Numba computes `{}` in 64 bits and types `{name}` 64-bit for the whole function: {wrap}",
                snippet(&op)
            ),
        )
        .warning()
        .note(NOTE);
        if let Some(edits) = self.wrap_assignments(def, name).filter(|e| !e.is_empty()) {
            d = d.unsafe_fix(format!("Wrap each assignment of `{name}` in `{ty}(...)`"), edits);
        }
        Some(d)
    }

    fn origin_finding(&self, def: &'a StmtFunctionDef, origin: &Expr, unsigned: bool, var: Option<&str>, sink: &Sink) -> Diagnostic {
        let (at, operand, what) = match sink {
            Sink::Shift(r, o) => (*r, *o, "shifts right the bits a 32-bit computation would have dropped"),
            Sink::Reduce(r, o) => (*r, *o, "reduces a value that did not wrap at 2**32"),
            Sink::Float(r, o) => (*r, *o, "converts to a float a value that did not wrap at 2**32"),
        };
        let ty = if unsigned { "uint32" } else { "int32" };
        let mut d = Diagnostic::new(
            "KL406",
            origin.range(),
            format!(
                "`{}` is computed in 64 bits (Numba widens {ty} arithmetic), so it does not wrap at 2**32, and `{}` {what}: the result differs from the 32-bit algorithm",
                snippet(&self.ctx.text[origin.range()]),
                snippet(&self.ctx.text[at])
            ),
        )
        .warning()
        .note(NOTE)
        .related(at, "the upper bits change the result here");
        let edits = match (var, operand) {
            (Some(v), _) => self.wrap_assignments(def, v),
            (None, Some(o)) => type_spelling(self.ctx, self.locals, ty)
                .map(|cast| vec![Edit { range: o.range(), content: format!("{cast}({})", &self.ctx.text[o.range()]) }]),
            _ => None,
        };
        if let Some(edits) = edits.filter(|e| !e.is_empty()) {
            d = d.unsafe_fix(format!("Keep the value {ty}: wrap it in `{ty}(...)`"), edits);
        }
        d
    }
}

/// The first right shift of the parameter `param` in `def` (`v >> (32 - n)`), where the
/// function never assigns `param` (a mask first, `v = v & MASK`, keeps it 32-bit).
fn right_shift_of(def: &StmtFunctionDef, param: &str) -> Option<TextRange> {
    struct Finder<'p> {
        param: &'p str,
        shift: Option<TextRange>,
        assigned: bool,
    }
    impl<'a> Visitor<'a> for Finder<'_> {
        fn visit_expr(&mut self, expr: &'a Expr) {
            if let Expr::BinOp(b) = expr
                && b.op == Operator::RShift
                && matches!(&*b.left, Expr::Name(n) if n.id.as_str() == self.param)
            {
                self.shift = self.shift.or(Some(expr.range()));
            }
            visitor::walk_expr(self, expr);
        }

        fn visit_stmt(&mut self, stmt: &'a Stmt) {
            let target = |t: &Expr| matches!(t, Expr::Name(n) if n.id.as_str() == self.param);
            self.assigned |= match stmt {
                Stmt::Assign(a) => a.targets.iter().any(target),
                Stmt::AugAssign(a) => target(&a.target),
                _ => false,
            };
            visitor::walk_stmt(self, stmt);
        }
    }
    let mut finder = Finder { param, shift: None, assigned: false };
    finder.visit_body(&def.body);
    finder.shift.filter(|_| !finder.assigned)
}

/// An augmented assignment's value as the right operand of its operator.
fn operand<'t>(text: impl Fn(&Expr) -> &'t str, value: &Expr) -> String {
    let shown = text(value);
    if matches!(value, Expr::BinOp(_) | Expr::BoolOp(_) | Expr::Compare(_) | Expr::If(_) | Expr::Lambda(_) | Expr::Named(_)) {
        format!("({shown})")
    } else {
        shown.to_string()
    }
}
