//! A `match` statement as the `if`/`elif`/`else` chain Numba's bytecode amounts to, for the
//! patterns Numba compiles (checked with numba-cuda 0.30's `compile_ptx`): literal and dotted
//! value patterns (`case 1:`, `case -1:`, `case 1.5:`), singletons (`case None:`, `case
//! True:`, tested with `is`), alternatives (`case 1 | 2:`), the wildcard (`case _:`), captures
//! (`case x:`, `case (1 | 2) as y:`) and guards (`case 1 if c:`, `case x if x > 3:`), on any
//! subject (a computed one, `match n + 1:`, is evaluated once). Sequence, mapping and class
//! patterns are Numba's `UnsupportedBytecodeError`.
//!
//! The chain reuses the statement's own nodes (the subject, each value, guard and body), so
//! typing and lowering find every expression at its place in the source; each test it adds
//! takes a range no expression of the source has.

use ruff_python_ast::{self as ast, Expr, Pattern, Stmt};
use ruff_text_size::{Ranged, TextRange};

/// Why a `match` statement has no `if` form here: Numba rejects the pattern (`numba` true),
/// or kernlint does not model it.
pub struct MatchRefusal {
    pub message: String,
    pub range: TextRange,
    pub numba: bool,
}

/// The statements `m` runs as: an `if` chain, after the subject's assignment to a variable
/// of the compiler's (`$match_subject`) where the subject is computed (`match n + 1:`,
/// evaluated once as in Python).
pub fn match_as_if(m: &ast::StmtMatch) -> Result<Vec<Stmt>, MatchRefusal> {
    let mut out = Vec::new();
    let computed;
    let subject: &Expr = if repeatable(&m.subject) {
        &m.subject
    } else {
        // Ranges no expression of the source has: `match ` for the store, the empty range
        // before the subject for every read.
        let temp = |range: TextRange, ctx: ast::ExprContext| {
            Expr::Name(ast::ExprName { node_index: Default::default(), range, id: SUBJECT.into(), ctx })
        };
        out.push(Stmt::Assign(ast::StmtAssign {
            node_index: Default::default(),
            range: m.subject.range(),
            targets: vec![temp(TextRange::new(m.range.start(), m.subject.start()), ast::ExprContext::Store)],
            value: m.subject.clone(),
        }));
        computed = temp(TextRange::empty(m.subject.start()), ast::ExprContext::Load);
        &computed
    };
    // (bindings made before the test, test, body) per case; a `None` test is an irrefutable
    // case, after which no case runs.
    let mut arms: Vec<(Vec<Stmt>, Option<Expr>, Vec<Stmt>)> = Vec::new();
    for case in &m.cases {
        let mut bindings = Vec::new();
        let test = pattern_test(subject, &case.pattern, &mut bindings)?;
        let test = match (test, &case.guard) {
            (test, None) => test,
            (None, Some(guard)) => Some((**guard).clone()),
            (Some(test), Some(guard)) => Some(Expr::BoolOp(ast::ExprBoolOp {
                node_index: Default::default(),
                range: case.range,
                op: ast::BoolOp::And,
                values: vec![test, (**guard).clone()],
            })),
        };
        // A guard reads the names its pattern captures: they are bound before it runs (when
        // a value pattern under `as` fails, Python leaves the name unbound and kernlint bound
        // to the subject; the case is skipped either way).
        let (before, mut body) = if case.guard.is_some() { (bindings, Vec::new()) } else { (Vec::new(), bindings) };
        body.extend(case.body.iter().cloned());
        let irrefutable = test.is_none();
        arms.push((before, test, body));
        if irrefutable {
            break;
        }
    }
    // Built from the last case up: each case's `if` takes the cases after it as `elif`s, or
    // as an `else` where they bind names before their test.
    let mut rest: Vec<Stmt> = Vec::new();
    let mut rest_is_chain = false;
    for (before, test, body) in arms.into_iter().rev() {
        let mut block = before;
        let Some(test) = test else {
            block.extend(body);
            (rest, rest_is_chain) = (block, false);
            continue;
        };
        let clauses = match rest.pop() {
            None => Vec::new(),
            Some(Stmt::If(next)) if rest_is_chain && rest.is_empty() => {
                std::iter::once(ast::ElifElseClause { range: m.range, node_index: Default::default(), test: Some(*next.test), body: next.body })
                    .chain(next.elif_else_clauses)
                    .collect()
            }
            Some(last) => {
                rest.push(last);
                vec![ast::ElifElseClause { range: m.range, node_index: Default::default(), test: None, body: std::mem::take(&mut rest).into_iter().collect() }]
            }
        };
        block.push(Stmt::If(ast::StmtIf { node_index: Default::default(), range: m.range, test: Box::new(test), body: body.into_iter().collect(), elif_else_clauses: clauses }));
        rest_is_chain = block.len() == 1;
        rest = block;
    }
    out.extend(rest);
    Ok(out)
}

/// The variable a computed subject is held in: a name no Python source can spell, as
/// Numba's own temporaries are.
pub const SUBJECT: &str = "$match_subject";

/// Whether evaluating `e` again for each case is what evaluating it once computes: a name,
/// a constant, or attributes and constant-free subscripts of them.
fn repeatable(e: &Expr) -> bool {
    match e {
        Expr::Name(_) | Expr::NumberLiteral(_) | Expr::BooleanLiteral(_) => true,
        Expr::Attribute(a) => repeatable(&a.value),
        Expr::Subscript(s) => repeatable(&s.value) && repeatable(&s.slice),
        Expr::Tuple(t) => t.elts.iter().all(repeatable),
        Expr::UnaryOp(u) => repeatable(&u.operand),
        _ => false,
    }
}

fn captures(p: &Pattern) -> bool {
    match p {
        Pattern::MatchAs(a) => a.name.is_some() || a.pattern.as_deref().is_some_and(captures),
        Pattern::MatchOr(o) => o.patterns.iter().any(captures),
        _ => false,
    }
}

/// The test `pattern` makes of `subject` (`None`: it always matches), with the bindings it
/// makes pushed onto `body`.
fn pattern_test(subject: &Expr, pattern: &Pattern, body: &mut Vec<Stmt>) -> Result<Option<Expr>, MatchRefusal> {
    let refuse = |what: &str, opcode: &str| MatchRefusal {
        message: format!(
            "Numba cannot compile a {what} pattern in a `match` (`UnsupportedBytecodeError: Use of unsupported opcode ({opcode}) found`): match on a number with value patterns (`case 1 | 2:`), or write the tests as `if`/`elif`"
        ),
        range: pattern.range(),
        numba: true,
    };
    match pattern {
        // The range from the subject to the value: no expression of the source has it (the
        // value's own range is the value's).
        Pattern::MatchValue(v) => Ok(Some(Expr::Compare(ast::ExprCompare {
            node_index: Default::default(),
            range: TextRange::new(subject.start(), v.range.end()),
            left: Box::new(subject.clone()),
            ops: Box::new([ast::CmpOp::Eq]),
            comparators: Box::new([(*v.value).clone()]),
        }))),
        Pattern::MatchAs(a) => {
            let test = match &a.pattern {
                Some(inner) => pattern_test(subject, inner, body)?,
                None => None,
            };
            if let Some(name) = &a.name {
                let target = Expr::Name(ast::ExprName {
                    node_index: Default::default(),
                    range: name.range,
                    id: name.id.clone(),
                    ctx: ast::ExprContext::Store,
                });
                body.push(Stmt::Assign(ast::StmtAssign {
                    node_index: Default::default(),
                    range: a.range,
                    targets: vec![target],
                    value: Box::new(subject.clone()),
                }));
            }
            Ok(test)
        }
        Pattern::MatchOr(o) => {
            let mut values = Vec::new();
            for p in &o.patterns {
                if captures(p) {
                    return Err(MatchRefusal {
                        message: "kernlint does not support a capture inside an alternative (`case 1 | x:`) yet: put `as name` after the alternatives".into(),
                        range: p.range(),
                        numba: false,
                    });
                }
                match pattern_test(subject, p, body)? {
                    Some(test) => values.push(test),
                    None => return Ok(None),
                }
            }
            Ok(Some(Expr::BoolOp(ast::ExprBoolOp { node_index: Default::default(), range: o.range, op: ast::BoolOp::Or, values })))
        }
        // `subject is None` (`is True`, `is False`), as Python compares singletons; the
        // pattern's range is no expression's.
        Pattern::MatchSingleton(p) => {
            let value = match p.value {
                ast::Singleton::None => Expr::NoneLiteral(ast::ExprNoneLiteral { node_index: Default::default(), range: p.range }),
                ast::Singleton::True | ast::Singleton::False => Expr::BooleanLiteral(ast::ExprBooleanLiteral {
                    node_index: Default::default(),
                    range: p.range,
                    value: matches!(p.value, ast::Singleton::True),
                }),
            };
            Ok(Some(Expr::Compare(ast::ExprCompare {
                node_index: Default::default(),
                range: TextRange::new(subject.start(), p.range.end()),
                left: Box::new(subject.clone()),
                ops: Box::new([ast::CmpOp::Is]),
                comparators: Box::new([value]),
            })))
        }
        Pattern::MatchSequence(_) | Pattern::MatchStar(_) => Err(refuse("sequence", "MATCH_SEQUENCE")),
        Pattern::MatchMapping(_) => Err(refuse("mapping", "MATCH_MAPPING")),
        Pattern::MatchClass(_) => Err(refuse("class", "MATCH_CLASS")),
    }
}
