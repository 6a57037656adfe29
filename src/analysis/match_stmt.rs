//! A `match` statement as the `if`/`elif`/`else` chain Numba's bytecode amounts to, for the
//! patterns Numba compiles (checked with numba-cuda 0.30's `compile_ptx`): literal and dotted
//! value patterns (`case 1:`, `case -1:`, `case 1.5:`), alternatives (`case 1 | 2:`), the
//! wildcard (`case _:`), captures (`case x:`, `case (1 | 2) as y:`) and guards (`case 1 if
//! c:`). Sequence, mapping and class patterns are Numba's `UnsupportedBytecodeError`.
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

/// The `if` chain `m` runs as.
pub fn match_as_if(m: &ast::StmtMatch) -> Result<Stmt, MatchRefusal> {
    if !repeatable(&m.subject) {
        return Err(MatchRefusal {
            message: "kernlint supports `match` on a variable, a constant or an element (`match v:`, `match a[i]:`) but not on an expression it would compute once per case: assign the subject to a variable first (`v = ...` then `match v:`)".into(),
            range: m.subject.range(),
            numba: false,
        });
    }
    // (test, body) per case; `None` tests an irrefutable case, after which no case runs.
    let mut arms: Vec<(Option<Expr>, Vec<Stmt>)> = Vec::new();
    for case in &m.cases {
        // The guard reads the name before the body's binding would make it.
        if case.guard.is_some() && captures(&case.pattern) {
            return Err(MatchRefusal {
                message: "kernlint does not support a guard on a pattern that captures a name (`case x if x > 0:`) yet: compare the subject itself in the guard (`case _ if v > 0:`)".into(),
                range: case.pattern.range(),
                numba: false,
            });
        }
        let mut body = Vec::new();
        let test = pattern_test(&m.subject, &case.pattern, &mut body)?;
        body.extend(case.body.iter().cloned());
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
        let irrefutable = test.is_none();
        arms.push((test, body));
        if irrefutable {
            break;
        }
    }
    let mut arms = arms.into_iter();
    let Some((first_test, first_body)) = arms.next() else {
        return Ok(Stmt::Pass(ast::StmtPass { node_index: Default::default(), range: m.range }));
    };
    // `match v` itself: the range of no expression.
    let always = Expr::BooleanLiteral(ast::ExprBooleanLiteral {
        node_index: Default::default(),
        range: TextRange::new(m.range.start(), m.subject.end()),
        value: true,
    });
    let clauses = arms
        .map(|(test, body)| ast::ElifElseClause { range: m.range, node_index: Default::default(), test, body: body.into_iter().collect() })
        .collect();
    Ok(Stmt::If(ast::StmtIf {
        node_index: Default::default(),
        range: m.range,
        test: Box::new(first_test.unwrap_or(always)),
        body: first_body.into_iter().collect(),
        elif_else_clauses: clauses,
    }))
}

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
        Pattern::MatchSingleton(_) => Err(MatchRefusal {
            message: "kernlint does not support `case None:`, `case True:` or `case False:` in a `match` yet: write the test as `if`/`elif`".into(),
            range: pattern.range(),
            numba: false,
        }),
        Pattern::MatchSequence(_) | Pattern::MatchStar(_) => Err(refuse("sequence", "MATCH_SEQUENCE")),
        Pattern::MatchMapping(_) => Err(refuse("mapping", "MATCH_MAPPING")),
        Pattern::MatchClass(_) => Err(refuse("class", "MATCH_CLASS")),
    }
}
