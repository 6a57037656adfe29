//! Why a variable has the type a typing error complains about.
//!
//! Numba gives a variable one type where its assignments meet (a loop, the end of an `if`),
//! unifying theirs: uint64 with int64 is float64 (`h = uint64(...)`, then `h = h * 1099511628211`,
//! where uint64 * int64 is int64), an integer with a float is the float. An error about the
//! unified type (`h ^ k` with a float64 `h`) is then far from its cause; this names the
//! assignments that brought in the types, as plain data the CLI and the LSP render.

use ruff_text_size::{TextRange, TextSize};

use crate::analysis::message::Message;
use crate::analysis::types::Type;

/// A variable whose type came from unifying those of its assignments.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct Unified {
    pub var: String,
    /// The unified type, or `None` where the types do not unify.
    pub ty: Option<Type>,
    /// The assignments, in source order; ranges relative to where the typing ran (the item,
    /// or the file).
    pub assignments: Vec<Assignment>,
}

/// One assignment of a unified variable.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct Assignment {
    /// The statement (or the parameter, or the loop target).
    pub range: TextRange,
    pub ty: Type,
    /// The assigned value, for a plain `x = value` or `x op= value`.
    pub value: Option<TextRange>,
    /// The operator that typed the value, with its operand types: `uint64 * int64`.
    pub op: Option<(&'static str, Type, Type)>,
    /// An integer literal operand of that operator.
    pub literal: Option<TextRange>,
}

impl Unified {
    pub fn shifted(&self, offset: TextSize) -> Unified {
        let mut moved = self.clone();
        for a in &mut moved.assignments {
            a.range += offset;
            a.value = a.value.map(|r| r + offset);
            a.literal = a.literal.map(|r| r + offset);
        }
        moved
    }

    /// The type the variable was meant to have: its first assignment's.
    fn intended(&self) -> &Type {
        &self.assignments[0].ty
    }

    /// A label for each assignment, for secondary spans.
    pub fn labels(&self) -> Vec<(TextRange, String)> {
        self.assignments
            .iter()
            .map(|a| {
                let how = a.op.as_ref().map(|(op, l, r)| format!(": {l} {op} {r} is {}", a.ty)).unwrap_or_default();
                (a.range, format!("`{}` is {} here{how}", self.var, a.ty))
            })
            .collect()
    }

    /// Why the variable has its type; `site` spells where an assignment is (`at line 5`, or the
    /// statement's source).
    pub fn note(&self, site: impl Fn(&Assignment) -> Message) -> Message {
        let mut note = Message::from(match &self.ty {
            Some(t) => format!("`{}` is {t} because Numba gives a variable one type, unifying those of its assignments: ", self.var),
            None => format!("`{}` takes types Numba cannot unify: ", self.var),
        });
        for (i, a) in self.assignments.iter().enumerate() {
            if i > 0 {
                note.push(", ");
            }
            note.push(&format!("{} ", a.ty));
            note.append(site(a));
            if let Some((op, l, r)) = &a.op {
                note.push(&format!(" ({l} {op} {r} is {})", a.ty));
            }
        }
        note.push(".");
        note
    }

    /// What to write instead, quoting the source (`text` is what the ranges index).
    pub fn fix(&self, text: &str) -> String {
        let var = &self.var;
        let intended = self.intended();
        let src = |r: TextRange| text.get(std::ops::Range::<usize>::from(r)).unwrap_or("...").to_string();
        let others: Vec<&Assignment> = self.assignments.iter().filter(|a| a.ty != *intended).collect();
        let Type::Scalar(s) = intended else {
            return format!("Give `{var}` one type on every path: use separate variables for the values of different types.");
        };
        let int = s.is_int();
        let wraps: Vec<String> = others
            .iter()
            .filter_map(|a| a.value.map(|v| format!("`{var} = {s}({})`", src(v).lines().next().unwrap_or_default())))
            .collect();
        if wraps.is_empty() || !(int || others.iter().all(|a| matches!(a.ty, Type::Scalar(o) if !o.is_complex()))) {
            return format!("Give `{var}` one type on every path: convert the other assignments to {s} (`{s}(...)`), or use separate variables.");
        }
        let mut fix = format!("Keep `{var}` {s}: convert the value where it changes type, {}", wraps.join(", "));
        let literals: Vec<String> = others.iter().filter_map(|a| a.literal).map(|l| format!("`{s}({})`", src(l))).collect();
        if int && s.is_unsigned_int() && !literals.is_empty() {
            fix.push_str(&format!(", or make the literal unsigned ({})", literals.join(", ")));
        }
        fix.push('.');
        fix
    }
}
