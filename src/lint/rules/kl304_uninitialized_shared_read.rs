//! # KL304: shared memory read before any thread wrote it
//!
//! ## What it does
//! Finds a read of a `cuda.shared.array` in a kernel at a point no write to that array can
//! precede: an array read and never written, a read (or `+=`, or an atomic such as
//! `cuda.atomic.add`) in the code before the first store to it, in program order and across
//! barriers. A write anywhere earlier counts, in any thread and any branch, and so does a
//! write later in an enclosing loop (it ran in the previous iteration). Passing the array
//! to a function (a device function that may fill it), calling a function defined inside
//! the kernel, or binding it to another name counts as a write. Dynamic shared arrays (`cuda.shared.array(0, ...)`) share one buffer,
//! so a store to any of them counts for all. One exception to "any earlier write": when the
//! only earlier stores are at constant indices (`s[0] = 0`), a read at another constant index,
//! or at a thread-dependent index (`s[cuda.threadIdx.x]`) that those slots cannot cover, is
//! reported too, unless a test fixes the thread index or bounds it by a constant no larger
//! than the slots written (`if t < 2`), or the array has no more slots than were written.
//! An atomic reads its slot too: `cuda.atomic.add(s, t % 4, x)` or a histogram's
//! `cuda.atomic.add(h, data[i], 1)` after only `s[0] = 0` is reported the same way.
//!
//! ## Why is this bad?
//! Shared memory is not initialised: each block starts with whatever the previous block
//! on that multiprocessor left there. A histogram accumulated with `cuda.atomic.add` into
//! a shared array that nobody zeroed, or a tile read before it is loaded, gives garbage that
//! changes from run to run and GPU to GPU.
//!
//! ## Example
//! ```python
//! from numba import cuda, int32
//!
//! @cuda.jit
//! def histogram(out, data):
//!     h = cuda.shared.array(256, dtype=int32)
//!     i = cuda.grid(1)
//!     if i < data.size:
//!         cuda.atomic.add(h, data[i], 1)
//!     cuda.syncthreads()
//!     t = cuda.threadIdx.x
//!     cuda.atomic.add(out, t, h[t])
//! ```
//!
//! ## Use instead
//! Zero the array (each thread its own slots) and wait for it before the first update:
//! ```python
//! from numba import cuda, int32
//!
//! @cuda.jit
//! def histogram(out, data):
//!     h = cuda.shared.array(256, dtype=int32)
//!     t = cuda.threadIdx.x
//!     h[t] = 0
//!     cuda.syncthreads()
//!     i = cuda.grid(1)
//!     if i < data.size:
//!         cuda.atomic.add(h, data[i], 1)
//!     cuda.syncthreads()
//!     cuda.atomic.add(out, t, h[t])
//! ```

use std::collections::{BTreeMap, BTreeSet};

use ruff_python_ast::{self as ast, Expr, Stmt};
use ruff_text_size::{Ranged, TextRange};

use crate::analysis::facts::uniformity::{Atom, FunctionFacts, item_uniformity};
use crate::analysis::kernels::FunctionKind;
use crate::analysis::resolve::const_eval;
use crate::analysis::scope::ConstValue;
use crate::lint::{Diagnostic, ItemContext};

pub fn check(ctx: &ItemContext, out: &mut Vec<Diagnostic>) {
    for (function, def) in ctx.gpu_functions() {
        if function.spec.kind != FunctionKind::Kernel {
            continue;
        }
        let mut seen = std::collections::HashSet::new();
        let written_anywhere = written_names(ctx, &def.body, Memory::Shared);
        let facts = FunctionFacts::of(item_uniformity(ctx.db, ctx.file, ctx.item), function.def_range);
        for UnwrittenRead { range, name, dynamic, elements } in unwritten_reads(ctx, def, Memory::Shared, facts) {
            if !seen.insert(range) {
                continue;
            }
            let never = !(written_anywhere.contains(&name)
                || (dynamic && written_anywhere.contains(DYNAMIC)));
            let what = if let Some(elements) = elements {
                format!(
                    "shared array `{name}` is read here at a thread-dependent index, but before this only {elements} of it {} written",
                    if elements.contains(", ") { "were" } else { "was" }
                )
            } else if never {
                format!(
                    "shared array `{name}` is read here but nothing in the kernel ever writes it"
                )
            } else {
                format!(
                    "shared array `{name}` is read here before any thread of the block has written it"
                )
            };
            out.push(
                Diagnostic::new("KL304", range, format!("{what}: shared memory starts uninitialised, so this reads garbage"))
                    .note("Store to the array first (each thread its own slots, e.g. `s[cuda.threadIdx.x] = 0`), then call `cuda.syncthreads()` before threads read or update it."),
            );
        }
    }
}

/// Which allocation a walk follows: `cuda.shared.array` (KL304) or `cuda.local.array`
/// (KL306, whose arrays belong to one thread each).
#[derive(Clone, Copy, PartialEq, Eq)]
pub enum Memory {
    Shared,
    Local,
}

/// A read of an array that no write to it can precede.
pub struct UnwrittenRead {
    pub range: TextRange,
    pub name: String,
    pub dynamic: bool,
    /// Shared memory whose only earlier writes are at constant indices that cannot cover
    /// the thread-dependent index read: those indices (`s[0]`, `s[1]`).
    pub elements: Option<String>,
}

/// The reads of `def`'s arrays of that memory that no write to the array can precede.
/// `facts` (shared memory): the kernel's uniformity facts, to tell a thread-dependent read
/// of slots that constant-index writes leave unwritten.
pub fn unwritten_reads(ctx: &ItemContext, def: &ast::StmtFunctionDef, memory: Memory, facts: Option<&FunctionFacts>) -> Vec<UnwrittenRead> {
    let mut w = Walk::new(ctx, &def.body, memory, true);
    w.facts = facts;
    w.block(&def.body);
    w.found
}

/// `a[0]`, `a[1, i]`: the index's integer literals, component by component (`None`: not a
/// literal), where it has one.
fn constant_index(index: &Expr) -> Option<Vec<Option<i64>>> {
    let literal = |e: &Expr| match e {
        Expr::NumberLiteral(ast::ExprNumberLiteral { value: ast::Number::Int(i), .. }) => i.as_i64(),
        _ => None,
    };
    let components: Vec<Option<i64>> = match index {
        Expr::Tuple(t) => t.elts.iter().map(literal).collect(),
        other => vec![literal(other)],
    };
    components.iter().any(Option::is_some).then_some(components)
}

/// Whether an element at index `read` is none of those at `written`: on some axis both
/// are literals and differ (`a[0, i]` against `a[1, j]`).
fn disjoint(read: &[Option<i64>], written: &[Option<i64>]) -> bool {
    read.iter().zip(written).any(|(r, w)| matches!((r, w), (Some(r), Some(w)) if r != w))
}

/// The key standing for every dynamic shared array (they share one buffer).
const DYNAMIC: &str = "<dynamic>";

/// Which shared arrays may have been written on some path to the current point.
#[derive(Clone, Default, PartialEq)]
struct State {
    written: BTreeSet<String>,
    /// Local arrays written so far only by earlier iterations of a `for v in range(...)`
    /// loop, at an index naming `v` (by its text): the loop variable has moved on, so a read
    /// at that same index is of an element no iteration wrote yet, and any other read may see
    /// a write.
    carried: BTreeMap<String, BTreeSet<String>>,
    /// Local arrays written so far only at indices with a literal component (`a[0] = x`,
    /// `a[1, 2] = y`, `a[2, i] = z`), shared arrays only at all-literal indices: those
    /// indices' literals.
    elements: BTreeMap<String, BTreeSet<Vec<Option<i64>>>>,
}

impl State {
    fn union(&mut self, other: &State) {
        self.written.extend(other.written.iter().cloned());
        for (k, v) in &other.carried {
            self.carried.entry(k.clone()).or_default().extend(v.iter().cloned());
        }
        for (k, v) in &other.elements {
            self.elements.entry(k.clone()).or_default().extend(v.iter().cloned());
        }
    }
}

struct Walk<'c, 'x> {
    ctx: &'c ItemContext<'x>,
    /// Shared arrays by variable name: whether dynamic.
    arrays: BTreeMap<String, bool>,
    state: State,
    /// Record reads (off during the first pass over a loop body).
    record: bool,
    found: Vec<UnwrittenRead>,
    facts: Option<&'c FunctionFacts>,
    /// Functions defined inside the kernel (Numba inlines them): a call may write any
    /// shared array they see.
    closures: BTreeSet<String>,
    memory: Memory,
    /// Targets of the `for v in range(...)` loops whose first pass is running (local arrays).
    fresh: Vec<String>,
}

/// Names of the functions and lambdas defined inside a body.
fn nested_functions(body: &[Stmt]) -> BTreeSet<String> {
    let mut out = BTreeSet::new();
    for stmt in body {
        match stmt {
            Stmt::FunctionDef(f) => {
                out.insert(f.name.to_string());
            }
            Stmt::Assign(a) if matches!(&*a.value, Expr::Lambda(_)) => {
                for t in &a.targets {
                    if let Expr::Name(n) = t {
                        out.insert(n.id.to_string());
                    }
                }
            }
            _ => {}
        }
        crate::analysis::kernels::for_each_body(stmt, |b| out.extend(nested_functions(b)));
    }
    out
}

impl<'c, 'x> Walk<'c, 'x> {
    fn new(ctx: &'c ItemContext<'x>, body: &[Stmt], memory: Memory, record: bool) -> Self {
        Walk {
            ctx,
            arrays: BTreeMap::new(),
            state: State::default(),
            record,
            found: Vec::new(),
            facts: None,
            closures: nested_functions(body),
            memory,
            fresh: Vec::new(),
        }
    }

    fn key(&self, name: &str) -> Option<String> {
        let dynamic = *self.arrays.get(name)?;
        Some(if dynamic {
            DYNAMIC.to_string()
        } else {
            name.to_string()
        })
    }

    /// The name of an array of the walk's memory that `e` names.
    fn array_name<'e>(&self, e: &'e Expr) -> Option<&'e str> {
        match e {
            Expr::Name(n) if self.arrays.contains_key(n.id.as_str()) => Some(n.id.as_str()),
            _ => None,
        }
    }

    fn write(&mut self, name: &str) {
        if let Some(k) = self.key(name) {
            self.state.written.insert(k);
        }
    }

    /// A store of `name[index]`: in the first pass of a `for v in range(...)` loop, a local
    /// element at an index naming `v` is carried to the next iteration as that index only.
    fn write_at(&mut self, name: &str, index: &Expr) {
        let components = match index {
            Expr::Tuple(t) => t.elts.iter().collect(),
            other => vec![other],
        };
        let fresh = components.iter().any(|c| matches!(c, Expr::Name(n) if self.fresh.iter().any(|v| v == n.id.as_str())));
        if self.memory == Memory::Local && fresh {
            let text = self.ctx.text[index.range()].to_string();
            self.state.carried.entry(name.to_string()).or_default().insert(text);
        } else if let Some(element) = constant_index(index)
            && (self.memory == Memory::Local || element.iter().all(Option::is_some))
        {
            let key = self.key(name).unwrap_or_else(|| name.to_string());
            self.state.elements.entry(key).or_default().insert(element);
        } else {
            self.write(name);
        }
    }

    fn read(&mut self, name: &str, range: TextRange, index: Option<&Expr>) {
        let Some(k) = self.key(name) else { return };
        let carried = self.state.carried.get(&k).filter(|c| !c.is_empty());
        let other_element = carried.is_some_and(|c| index.is_none_or(|i| !c.contains(&self.ctx.text[i.range()])));
        // Only elements at literal indices written: a read whose literals differ from each
        // written index's is of none of them, one at a computed index may be of one.
        let elements = self.state.elements.get(&k).filter(|e| !e.is_empty());
        let unwritten_element = elements.is_none_or(|e| index.and_then(constant_index).is_some_and(|i| e.iter().all(|w| disjoint(&i, w))));
        let uncovered = elements.filter(|e| self.memory == Memory::Shared && index.is_some() && self.uncovered_by(name, range, e));
        if self.record && !self.state.written.contains(&k) && !other_element && (unwritten_element || uncovered.is_some()) {
            let dynamic = self.arrays[name];
            let elements = uncovered.filter(|_| !unwritten_element).map(|e| {
                let text: Vec<String> = e.iter().map(|w| {
                    let parts: Vec<String> = w.iter().map(|c| c.map_or("?".to_string(), |c| c.to_string())).collect();
                    format!("`{name}[{}]`", parts.join(", "))
                }).collect();
                text.join(", ")
            });
            self.found.push(UnwrittenRead { range, name: name.to_string(), dynamic, elements });
        }
    }

    /// Whether the shared read at `range` is at a thread-dependent index that the slots
    /// written at constant indices (`written`) cannot cover: not under a test that fixes the
    /// thread index or bounds it by a constant no larger than the slots written, and the
    /// array has more slots than were written. An atomic's index may also come from data
    /// (`cuda.atomic.add(h, data[i], 1)`, a histogram's bin). In doubt, no.
    fn uncovered_by(&self, name: &str, range: TextRange, written: &BTreeSet<Vec<Option<i64>>>) -> bool {
        let Some(facts) = self.facts else { return false };
        let Some(access) = facts.accesses.iter().find(|a| a.range == range && (!a.write || a.atomic)) else { return false };
        let thread_atoms: BTreeSet<&Atom> = access.index.iter().filter(|v| v.is_thread() && !v.data).flat_map(|v| v.atoms.iter().filter(|a| a.is_thread())).collect();
        let data_bin = access.atomic && access.index.iter().any(|v| v.data);
        if (thread_atoms.is_empty() && !data_bin) || !access.pinned.is_empty() {
            return false;
        }
        let slots = written.len() as i64;
        let bounded = access.guards.iter().any(|g| {
            if !g.atoms().iter().any(|a| thread_atoms.contains(a)) {
                return false;
            }
            let bound = if g.left.is_thread() { &g.right } else { &g.left };
            let block_sized = bound.poly.as_ref().is_some_and(|p| {
                p.0.keys().flatten().any(|a| matches!(a, Atom::Bdim(_)) || matches!(a, Atom::Sym(s) if facts.shrinking.contains_key(s)))
            });
            match bound.poly.as_ref().and_then(|p| p.as_const()) {
                Some(c) => c <= slots + 1,
                None => !block_sized,
            }
        });
        let size = facts.shared_arrays.iter().find(|a| a.name == name).and_then(|a| a.shape.iter().try_fold(1i64, |n, d| d.map(|d| n * d)));
        !bounded && size.is_none_or(|size| size > slots)
    }

    fn block(&mut self, body: &[Stmt]) {
        for stmt in body {
            self.stmt(stmt);
            if matches!(
                stmt,
                Stmt::Return(_) | Stmt::Break(_) | Stmt::Continue(_) | Stmt::Raise(_)
            ) {
                break; // what follows in this block never runs
            }
        }
    }

    /// Whether `e` allocates an array of the walk's memory, and if so whether it is dynamic
    /// shared memory.
    fn is_alloc(&self, e: &Expr) -> Option<bool> {
        let Expr::Call(c) = e else { return None };
        let alloc = match self.memory {
            Memory::Shared => "numba.cuda.shared.array",
            Memory::Local => "numba.cuda.local.array",
        };
        if self.ctx.path(&c.func).as_deref() != Some(alloc) {
            return None;
        }
        if self.memory == Memory::Local {
            return Some(false);
        }
        let shape = c.arguments.args.first().or_else(|| {
            c.arguments
                .keywords
                .iter()
                .find(|k| k.arg.as_ref().is_some_and(|a| a.as_str() == "shape"))
                .map(|k| &k.value)
        })?;
        Some(matches!(
            const_eval(shape, self.ctx.lookup()),
            Some(ConstValue::Int(0))
        ))
    }

    fn stmt(&mut self, stmt: &Stmt) {
        match stmt {
            Stmt::Assign(a) => {
                if let [Expr::Name(n)] = a.targets.as_slice()
                    && let Some(dynamic) = self.is_alloc(&a.value)
                {
                    self.expr(&a.value);
                    // In a loop this is the same memory every iteration: earlier writes stay.
                    self.arrays.insert(n.id.to_string(), dynamic);
                    return;
                }
                self.expr(&a.value);
                for t in &a.targets {
                    self.target(t);
                }
            }
            Stmt::AnnAssign(a) => {
                if let Some(v) = &a.value {
                    self.expr(v);
                    self.target(&a.target);
                }
            }
            Stmt::AugAssign(a) => {
                self.expr(&a.value);
                // `s[i] += v` and `s[i].field += v` read the element, then write it.
                let element = self.record_element(&a.target).unwrap_or(&a.target);
                if let Expr::Subscript(s) = element
                    && let Some(name) = self.array_name(&s.value)
                {
                    self.expr(&s.slice);
                    let reported = self.found.len();
                    if !matches!(&*s.slice, Expr::Slice(_)) {
                        self.read(name, s.range(), Some(&s.slice));
                    }
                    // A thread's own `a[i] += v` stores what it read: garbage stays garbage, so
                    // it initialises nothing (another thread's store to shared memory does),
                    // unless this read was just reported: later reads would only repeat it.
                    if self.memory == Memory::Shared || matches!(&*s.slice, Expr::Slice(_)) || self.found.len() > reported {
                        self.write_at(name, &s.slice);
                    }
                } else {
                    self.expr(&a.target);
                    self.target(&a.target);
                }
            }
            Stmt::If(s) => {
                self.expr(&s.test);
                let start = self.state.clone();
                let mut after = State::default();
                let mut has_else = false;
                self.block(&s.body);
                after.union(&self.state);
                let mut next = start.clone();
                for clause in &s.elif_else_clauses {
                    self.state = next.clone();
                    match &clause.test {
                        Some(t) => {
                            self.expr(t);
                            next = self.state.clone();
                        }
                        None => has_else = true,
                    }
                    self.block(&clause.body);
                    after.union(&self.state);
                }
                if !has_else {
                    after.union(&next);
                }
                self.state = after;
            }
            Stmt::For(s) => {
                self.expr(&s.iter);
                let counted = match (&*s.target, &*s.iter) {
                    (Expr::Name(v), Expr::Call(c)) if matches!(&*c.func, Expr::Name(f) if f.id.as_str() == "range") => Some(v.id.to_string()),
                    _ => None,
                };
                self.looped(counted, |w| {
                    w.target(&s.target);
                    w.block(&s.body);
                });
                self.block(&s.orelse);
            }
            Stmt::While(s) => {
                self.looped(None, |w| {
                    w.expr(&s.test);
                    w.block(&s.body);
                });
                self.expr(&s.test);
                self.block(&s.orelse);
            }
            Stmt::With(s) => {
                for item in &s.items {
                    self.expr(&item.context_expr);
                }
                self.block(&s.body);
            }
            Stmt::Try(s) => self.block(&s.body),
            // As the `if` chain it runs as.
            Stmt::Match(m) => {
                if let Ok(chain) = crate::analysis::match_stmt::match_as_if(m) {
                    self.block(&chain);
                }
            }
            Stmt::Expr(e) => self.expr(&e.value),
            Stmt::Return(r) => {
                if let Some(v) = &r.value {
                    self.expr(v);
                }
            }
            Stmt::FunctionDef(_) | Stmt::ClassDef(_) => {}
            _ => {}
        }
    }

    /// A loop body: a first pass without reporting gathers what it writes, so a read of an
    /// array the body writes later is seen with that write (from the previous iteration).
    /// `counted`: the variable of a `for v in range(...)` loop, a new value each iteration.
    fn looped(&mut self, counted: Option<String>, mut body: impl FnMut(&mut Self)) {
        let entry = self.state.clone();
        let record = std::mem::replace(&mut self.record, false);
        let fresh = counted.is_some();
        self.fresh.extend(counted);
        body(self);
        if fresh {
            self.fresh.pop();
        }
        let mut state = entry.clone();
        state.union(&self.state);
        self.state = state;
        self.record = record;
        body(self);
        self.state.union(&entry);
    }

    /// The element `s[i]` a store through its record's fields writes (part of): `s[i].x`,
    /// `s[i].inner.x`, `s[i].pos[k]`, `s[i].pts[2].x`. The indices on the way are read.
    fn record_element<'e>(&mut self, t: &'e Expr) -> Option<&'e Expr> {
        let mut e = t;
        let mut through_field = false;
        let mut indices = Vec::new();
        loop {
            match e {
                Expr::Attribute(a) => {
                    through_field = true;
                    e = &a.value;
                }
                Expr::Subscript(s) if self.array_name(&s.value).is_some() => break,
                Expr::Subscript(s) => {
                    indices.push(&*s.slice);
                    e = &s.value;
                }
                _ => return None,
            }
        }
        if !through_field {
            return None;
        }
        for index in indices {
            self.expr(index);
        }
        Some(e)
    }

    /// A store target: a shared element or slice is written; a name bound to a shared array
    /// is an alias.
    fn target(&mut self, t: &Expr) {
        if let Expr::Subscript(s) = t
            && let Some(element) = self.record_element(&s.value)
        {
            // `s[i].pos[k] = v`
            self.expr(&s.slice);
            self.target(element);
            return;
        }
        match t {
            Expr::Subscript(s) => {
                self.expr(&s.slice);
                if let Some(name) = self.array_name(&s.value) {
                    self.write_at(name, &s.slice);
                } else if let Expr::Subscript(row) = &*s.value
                    && let Some(name) = self.array_name(&row.value)
                {
                    // `a[i][j] = v`: a store through the row view, not a read of `a[i]`.
                    self.expr(&row.slice);
                    self.write(name);
                } else {
                    self.expr(&s.value);
                }
            }
            Expr::Tuple(t) => t.elts.iter().for_each(|e| self.target(e)),
            Expr::List(t) => t.elts.iter().for_each(|e| self.target(e)),
            Expr::Starred(s) => self.target(&s.value),
            Expr::Attribute(a) => match self.record_element(t) {
                Some(element) => self.target(element),
                None => self.expr(&a.value),
            },
            // The name now holds something else.
            Expr::Name(n) => {
                self.arrays.remove(n.id.as_str());
            }
            _ => {}
        }
    }

    fn expr(&mut self, e: &Expr) {
        match e {
            Expr::Subscript(s) => {
                if let Some(name) = self.array_name(&s.value) {
                    self.expr(&s.slice);
                    let is_view = |e: &Expr| matches!(e, Expr::Slice(_));
                    if is_view(&s.slice) || matches!(&*s.slice, Expr::Tuple(t) if t.elts.iter().any(is_view)) {
                        // A view (`s[2:]`, a row `s[i, :]`): whatever it is used for, treat
                        // it as a possible write.
                        self.write(name);
                    } else {
                        self.read(name, s.range(), Some(&s.slice));
                    }
                } else {
                    self.expr(&s.value);
                    self.expr(&s.slice);
                }
            }
            Expr::Attribute(a) => {
                // `s.shape`, `s.size`: metadata, not contents.
                if self.array_name(&a.value).is_none() {
                    self.expr(&a.value);
                }
            }
            Expr::Name(n) => {
                // Any other use of the array (an alias, an argument): it may be written.
                if self.arrays.contains_key(n.id.as_str()) {
                    self.write(n.id.as_str());
                }
            }
            Expr::Call(c) => self.call(c),
            Expr::If(i) => {
                self.expr(&i.test);
                let start = self.state.clone();
                self.expr(&i.body);
                let body = std::mem::replace(&mut self.state, start);
                self.expr(&i.orelse);
                self.state.union(&body);
            }
            Expr::BoolOp(b) => {
                let start = self.state.clone();
                for v in &b.values {
                    self.expr(v);
                }
                self.state.union(&start);
            }
            Expr::Named(n) => {
                self.expr(&n.value);
                self.target(&n.target);
            }
            other => {
                let mut children = Vec::new();
                collect_children(other, &mut children);
                for c in children {
                    self.expr(c);
                }
            }
        }
    }

    fn call(&mut self, c: &ast::ExprCall) {
        let member = self
            .ctx
            .path(&c.func)
            .and_then(|p| p.strip_prefix("numba.cuda.").map(str::to_string));
        if let Some(member) = member.as_deref() {
            if let Some(op) = member.strip_prefix("atomic.") {
                // `cuda.atomic.add(s, i, v)`: reads the element, then writes it.
                let mut args = c.arguments.args.iter();
                if let Some(first) = args.next()
                    && let Some(name) = self.array_name(first)
                {
                    for a in args {
                        self.expr(a);
                    }
                    for k in &c.arguments.keywords {
                        self.expr(&k.value);
                    }
                    if op != "exch" {
                        self.read(name, c.range(), c.arguments.args.get(1));
                    }
                    self.write(name);
                    return;
                }
            }
            if member == "shared.array" || member == "local.array" || member == "const.array_like" {
                return;
            }
        }
        // `len(s)` reads no element.
        if let Expr::Name(f) = &*c.func
            && f.id.as_str() == "len"
            && self.ctx.lookup().binding("len").is_none()
            && let [arg] = c.arguments.args.as_ref()
            && self.array_name(arg).is_some()
        {
            return;
        }
        if let Expr::Name(f) = &*c.func
            && self.closures.contains(f.id.as_str())
        {
            let names: Vec<String> = self.arrays.keys().cloned().collect();
            for n in names {
                self.write(&n);
            }
        }
        self.expr(&c.func);
        for a in &c.arguments.args {
            self.expr(a);
        }
        for k in &c.arguments.keywords {
            self.expr(&k.value);
        }
    }
}

/// The direct sub-expressions of an expression, in evaluation order (enough for the
/// expression kinds not handled above).
fn collect_children<'e>(e: &'e Expr, out: &mut Vec<&'e Expr>) {
    match e {
        Expr::BinOp(b) => {
            out.push(&b.left);
            out.push(&b.right);
        }
        Expr::UnaryOp(u) => out.push(&u.operand),
        Expr::Compare(c) => {
            out.push(&c.left);
            out.extend(c.comparators.iter());
        }
        Expr::Tuple(t) => out.extend(t.elts.iter()),
        Expr::List(t) => out.extend(t.elts.iter()),
        Expr::Set(t) => out.extend(t.elts.iter()),
        Expr::Starred(s) => out.push(&s.value),
        Expr::Slice(s) => out.extend(
            [&s.lower, &s.upper, &s.step]
                .into_iter()
                .flatten()
                .map(|b| &**b),
        ),
        Expr::Lambda(l) => out.push(&l.body),
        Expr::Await(a) => out.push(&a.value),
        Expr::FString(_) => {}
        Expr::Dict(d) => {
            for item in &d.items {
                if let Some(k) = &item.key {
                    out.push(k);
                }
                out.push(&item.value);
            }
        }
        Expr::ListComp(c) => {
            out.push(&c.elt);
            for g in &c.generators {
                out.push(&g.iter);
                out.extend(g.ifs.iter());
            }
        }
        Expr::Generator(c) => {
            out.push(&c.elt);
            for g in &c.generators {
                out.push(&g.iter);
                out.extend(g.ifs.iter());
            }
        }
        _ => {}
    }
}

/// Names (and [`DYNAMIC`]) of the shared arrays written (or passed on) anywhere reachable
/// in the body, for the message.
pub fn written_names(ctx: &ItemContext, body: &[Stmt], memory: Memory) -> BTreeSet<String> {
    let mut w = Walk::new(ctx, body, memory, false);
    w.block(body);
    let mut names = w.state.written;
    names.extend(w.state.elements.into_iter().filter(|(_, e)| !e.is_empty()).map(|(k, _)| k));
    names
}
