//! The IR as text (`kernlint compile --emit ir`).

use std::fmt::{self, Write};

use super::{Constant, Function, Op, PrintArg, SlicePart, Terminator, ValueId};

fn v(id: &ValueId) -> String {
    format!("%{}", id.0)
}

fn list(ids: &[ValueId]) -> String {
    ids.iter().map(v).collect::<Vec<_>>().join(", ")
}

pub fn write_function(func: &Function, f: &mut fmt::Formatter<'_>) -> fmt::Result {
    let params: Vec<String> = func.params.iter().map(|p| format!("{} {}: {}", v(&p.value), p.name, p.ty)).collect();
    let kind = if func.is_kernel { "kernel" } else { "device" };
    writeln!(f, "{kind} {}({}) -> {}", func.name, params.join(", "), func.ret)?;
    for (i, slot) in func.slots.iter().enumerate() {
        writeln!(f, "  slot s{i} {}: {}", slot.name, slot.ty)?;
    }
    for (b, block) in func.blocks.iter().enumerate() {
        writeln!(f, "bb{b}:")?;
        for inst in &block.insts {
            let mut line = String::new();
            if let Some(r) = inst.result {
                write!(line, "{} = ", v(&r))?;
            }
            match &inst.op {
                Op::Const(Constant::Int(i, _)) => write!(line, "const {i}")?,
                Op::Const(Constant::Float(x, _)) => write!(line, "const {x:?}")?,
                Op::Const(Constant::Bool(b)) => write!(line, "const {}", if *b { "True" } else { "False" })?,
                Op::ReadSlot(s) => write!(line, "read s{}", s.0)?,
                Op::WriteSlot(s, x) => write!(line, "write s{}, {}", s.0, v(x))?,
                Op::Cast(x, s) => write!(line, "cast {} to {s}", v(x))?,
                Op::Unary(op, x) => write!(line, "{op:?} {}", v(x))?,
                Op::Binary(op, a, b) => write!(line, "{op:?} {}, {}", v(a), v(b))?,
                Op::Compare(op, a, b) => write!(line, "cmp {op:?} {}, {}", v(a), v(b))?,
                Op::Select { cond, then, otherwise } => write!(line, "select {}, {}, {}", v(cond), v(then), v(otherwise))?,
                Op::Extent { array, axis } => write!(line, "extent {}, {axis}", v(array))?,
                Op::Stride { array, axis } => write!(line, "stride {}, {axis}", v(array))?,
                Op::Load { array, indices, space } => write!(line, "load.{space:?} {}[{}]", v(array), list(indices))?,
                Op::Store { array, indices, value, space } => {
                    write!(line, "store.{space:?} {}[{}], {}", v(array), list(indices), v(value))?
                }
                Op::SubArray { array, indices } => write!(line, "subarray {}[{}]", v(array), list(indices))?,
                Op::Slice { array, parts } => {
                    let parts: Vec<String> = parts
                        .iter()
                        .map(|p| match p {
                            SlicePart::Index(i) => v(i),
                            SlicePart::Range { start, len, step: None } => format!("{} +{}", v(start), v(len)),
                            SlicePart::Range { start, len, step: Some(s) } => format!("{} +{} *{}", v(start), v(len), v(s)),
                            SlicePart::NewAxis => "None".into(),
                        })
                        .collect();
                    write!(line, "slice {}[{}]", v(array), parts.join(", "))?
                }
                Op::Transpose(x) => write!(line, "transpose {}", v(x))?,
                Op::View { array, offset, shape, strides } => {
                    write!(line, "view {} +{offset} shape ({}) strides ({})", v(array), list(shape), list(strides))?
                }
                Op::AllocArray { space, shape, dtype } => write!(line, "alloc.{space:?} {dtype}{shape:?}")?,
                Op::GlobalArray(name) => write!(line, "global_array {name}")?,
                Op::MakeTuple(items) => write!(line, "tuple ({})", list(items))?,
                Op::Extract(t, i) => write!(line, "extract {}, {i}", v(t))?,
                Op::TupleGet(t, i) => write!(line, "tuple_get {}, {}", v(t), v(i))?,
                Op::Intrinsic { name, args } => write!(line, "intrinsic {name}({})", list(args))?,
                Op::Call { callee, args } => write!(line, "call {callee}({})", list(args))?,
                Op::Print { format, args } => {
                    let args: Vec<String> = args
                        .iter()
                        .map(|a| match a {
                            PrintArg::Value(x) => v(x),
                            PrintArg::Bool(x) => format!("bool {}", v(x)),
                            PrintArg::Str(s) => format!("{s:?}"),
                        })
                        .collect();
                    write!(line, "print {format:?}({})", args.join(", "))?
                }
            }
            if let Some(r) = inst.result {
                write!(line, " : {}", func.value_type(r))?;
            }
            writeln!(f, "  {line}")?;
        }
        match &block.term {
            Terminator::Jump(t) => writeln!(f, "  jump bb{}", t.0)?,
            Terminator::Branch { cond, then, otherwise } => {
                writeln!(f, "  branch {}, bb{}, bb{}", v(cond), then.0, otherwise.0)?
            }
            Terminator::Return(Some(x)) => writeln!(f, "  return {}", v(x))?,
            Terminator::Return(None) => writeln!(f, "  return")?,
            Terminator::Exit => writeln!(f, "  exit")?,
            Terminator::Unreachable => writeln!(f, "  unreachable")?,
        }
    }
    Ok(())
}
