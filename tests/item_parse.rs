//! An item's syntax is its module statement moved to the item's start
//! (`analysis::shift`), not a second parse of its text: the two must be the same tree, every
//! range included, on every construct of the language and on every Python file here.

use kernlint::analysis::shift::shift_stmt;
use ruff_python_parser::{Mode, ParseOptions, parse_unchecked};
use ruff_text_size::Ranged;

/// Every statement and expression form, parameter kind, pattern and string part.
const EVERY_CONSTRUCT: &str = r#"
from __future__ import annotations
import os.path as osp, sys
from .sibling import (a as b, c)
from .. import d

@decorator(arg, key=value)
@other.attr
def f[T: int, *Ts, **P](pos, /, plain: int = 1, *args: T, kw, kwd=2, **kwargs) -> T:
    """docstring"""
    global g
    x: int = 1
    y = z = lambda q, r=3, *s, t, **u: q + r
    x += 1
    del x
    assert y, "message"
    if (n := len(args)) > 2 and not kw or kwd is None:
        pass
    elif n in (1, 2):
        raise ValueError("v") from None
    else:
        return ...
    for i, *rest in enumerate(args):
        continue
    else:
        pass
    while True:
        break
    else:
        pass
    with open("f") as fh, other():
        pass
    try:
        pass
    except (TypeError, ValueError) as e:
        pass
    except Exception:
        pass
    else:
        pass
    finally:
        pass
    def inner():
        nonlocal y
        y = [1, *args]
    return {k: v for k, v in kwargs.items() if k}, {e for e in args}, [w for w in args if w for _ in w], (g for g in args)

class C(Base, metaclass=Meta):
    attr: int
    def method(self):
        return self.attr[1:2, ::3, ...], -self.attr, ~1, +2.5, 3j, None, True, 0x1F

async def co(x):
    await x
    async for a in x:
        yield a
    async with x as y:
        yield from y

def strings(x, w, p):
    s = "a" "b" 'c'
    b = b"x" b"y"
    f = f"{x!r:>{w}.{p}f} text {x=}" "plain" f'{ {"k": 1}["k"] }'
    return s, b, f, f"{x:{w}}{{}}"

def matching(v):
    match v:
        case 1 | 2:
            pass
        case None:
            pass
        case [a, *rest]:
            pass
        case {"k": kv, **others}:
            pass
        case Point(x=0, y=yy) as p:
            pass
        case (Point(1, 2), _):
            pass
        case str() if v:
            pass

type Alias[K] = dict[K, list[int]]
x = y = 1
print(x if y else -y, *x, **y)
try:
    pass
except* OSError as eg:
    pass
"#;

fn parse(text: &str) -> ruff_python_parser::Parsed<ruff_python_ast::ModModule> {
    parse_unchecked(text, ParseOptions::from(Mode::Module)).try_into_module().unwrap()
}

/// The number of statements checked; panics at the first that differs.
fn check(path: &str, text: &str) -> usize {
    let module = parse(text);
    if !module.errors().is_empty() {
        return 0;
    }
    for stmt in &module.syntax().body {
        let mut moved = stmt.clone();
        shift_stmt(&mut moved, stmt.start());
        let alone = parse(&text[stmt.range()]);
        assert_eq!(alone.syntax().body.len(), 1, "{path}: {}", &text[stmt.range()]);
        assert_eq!(format!("{moved:#?}"), format!("{:#?}", alone.syntax().body[0]), "{path}: {}", &text[stmt.range()]);
    }
    module.syntax().body.len()
}

#[test]
fn a_moved_statement_is_its_text_parsed_alone() {
    assert!(parse(EVERY_CONSTRUCT).errors().is_empty(), "{:?}", parse(EVERY_CONSTRUCT).errors());
    assert!(check("EVERY_CONSTRUCT", EVERY_CONSTRUCT) >= 10);
}

#[test]
fn every_python_file_here_moves_to_its_own_parse() {
    let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR"));
    let mut statements = 0;
    for dir in ["tests", "examples", "editors", "scripts"] {
        for entry in ignore::WalkBuilder::new(root.join(dir)).build().flatten() {
            let path = entry.path();
            if path.extension().is_some_and(|e| e == "py")
                && let Ok(text) = std::fs::read_to_string(path)
            {
                statements += check(&path.display().to_string(), &text);
            }
        }
    }
    assert!(statements > 1000, "{statements}");
}
