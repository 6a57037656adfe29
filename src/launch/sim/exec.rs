//! Running a thread: its decoded operations ([`super::decode`]) one after another.

use std::sync::Arc;

use ruff_text_size::TextRange;

use super::decode::{CallSite, Code, IntrinsicSite, Loc, Num, Op};
use super::{
    Frame, MAX_CALL_DEPTH, Machine, Stop, Thread, V, Wait, Who, alloc_bytes, alloc_limit, compare,
    convert, f32_binary, float_binary, from_bits, get, int_binary, norm, scalar_of, set, to_bits,
};
use crate::analysis::ir::math;
use crate::analysis::ir::{CompareOp, Inst, MemorySpace, Op as IrOp, PrintArg, SlicePart, UnaryOp, ValueId};
use crate::analysis::types::Scalar;
use crate::analysis::typing::promote::base_scalar;

fn f32_of(bits: u64) -> f32 {
    f32::from_bits(bits as u32)
}

fn bits_of_f32(x: f32) -> u64 {
    x.to_bits() as u64
}

fn f64_of(bits: u64) -> f64 {
    f64::from_bits(bits)
}

#[inline(always)]
fn truth(num: Num, x: u64) -> bool {
    match num {
        Num::Int | Num::U64 => x != 0,
        Num::F32 => f32_of(x) != 0.0,
        Num::F64 => f64_of(x) != 0.0,
    }
}

#[inline(always)]
fn compare_bits(op: CompareOp, num: Num, a: u64, b: u64) -> bool {
    match num {
        Num::Int => compare(op, a as i64, b as i64),
        Num::U64 => compare(op, a, b),
        Num::F32 => compare(op, f32_of(a), f32_of(b)),
        Num::F64 => compare(op, f64_of(a), f64_of(b)),
    }
}

/// The extent of an array along an axis (1 past its rank, 0 for no array), as `Extent` has it.
fn extent(v: &V, axis: u8) -> i64 {
    match v {
        V::Arr(a) => a.shape.get(axis as usize).copied().unwrap_or(1),
        _ => 0,
    }
}

impl Machine<'_> {
    /// Run one thread until it waits, ends or exhausts its budget.
    pub(super) fn run_thread(&mut self, t: &mut Thread) -> Stop {
        let before = t.steps;
        let stop = self.execute(t);
        self.steps += t.steps - before;
        stop
    }

    fn execute(&mut self, t: &mut Thread) -> Stop {
        let codes = self.codes;
        let budget = self.launch.step_budget;
        let who = t.who;
        let mut steps = t.steps;
        let stop = 'frames: loop {
            let Some(frame) = t.frames.last_mut() else {
                break Stop::Done;
            };
            let code = &codes[frame.func];
            let func = frame.func;
            // Another file's function is reported at the call that entered it.
            let placed = frame.at;
            let span = |pc: usize| placed.unwrap_or(code.spans[pc]);
            let mut pc = frame.pc;
            // The registers as slices: their lengths and addresses stay in registers.
            let regs = &mut frame.bits[..];
            let aggs = &mut frame.aggs[..];
            loop {
                steps += 1;
                if steps > budget {
                    break 'frames Stop::Budget(span(pc));
                }
                match code.ops[pc] {
                    Op::Move { dst, src } => regs[dst as usize] = regs[src as usize],
                    Op::Transfer { dst, src } => {
                        let v = get(regs, aggs, src);
                        set(regs, aggs, dst, v);
                    }
                    Op::AddI64 { dst, a, b } => {
                        regs[dst as usize] = regs[a as usize].wrapping_add(regs[b as usize])
                    }
                    Op::SubI64 { dst, a, b } => {
                        regs[dst as usize] = regs[a as usize].wrapping_sub(regs[b as usize])
                    }
                    Op::MulI64 { dst, a, b } => {
                        regs[dst as usize] = regs[a as usize].wrapping_mul(regs[b as usize])
                    }
                    Op::AddF32 { dst, a, b } => {
                        regs[dst as usize] =
                            bits_of_f32(f32_of(regs[a as usize]) + f32_of(regs[b as usize]))
                    }
                    Op::SubF32 { dst, a, b } => {
                        regs[dst as usize] =
                            bits_of_f32(f32_of(regs[a as usize]) - f32_of(regs[b as usize]))
                    }
                    Op::MulF32 { dst, a, b } => {
                        regs[dst as usize] =
                            bits_of_f32(f32_of(regs[a as usize]) * f32_of(regs[b as usize]))
                    }
                    Op::DivF32 { dst, a, b } => {
                        regs[dst as usize] =
                            bits_of_f32(f32_of(regs[a as usize]) / f32_of(regs[b as usize]))
                    }
                    Op::AddF64 { dst, a, b } => {
                        regs[dst as usize] =
                            (f64_of(regs[a as usize]) + f64_of(regs[b as usize])).to_bits()
                    }
                    Op::SubF64 { dst, a, b } => {
                        regs[dst as usize] =
                            (f64_of(regs[a as usize]) - f64_of(regs[b as usize])).to_bits()
                    }
                    Op::MulF64 { dst, a, b } => {
                        regs[dst as usize] =
                            (f64_of(regs[a as usize]) * f64_of(regs[b as usize])).to_bits()
                    }
                    Op::DivF64 { dst, a, b } => {
                        regs[dst as usize] =
                            (f64_of(regs[a as usize]) / f64_of(regs[b as usize])).to_bits()
                    }
                    Op::IntBinary { op, s, dst, a, b } => {
                        regs[dst as usize] =
                            int_binary(op, regs[a as usize] as i64, regs[b as usize] as i64, s)
                                as u64;
                    }
                    Op::F16Binary { op, dst, a, b } => {
                        let r = f32_binary(op, f32_of(regs[a as usize]), f32_of(regs[b as usize]));
                        regs[dst as usize] = bits_of_f32(half::f16::from_f32(r).to_f32());
                    }
                    Op::F32Binary { op, dst, a, b } => {
                        regs[dst as usize] = bits_of_f32(f32_binary(
                            op,
                            f32_of(regs[a as usize]),
                            f32_of(regs[b as usize]),
                        ));
                    }
                    Op::F64Binary { op, dst, a, b } => {
                        regs[dst as usize] =
                            float_binary(op, f64_of(regs[a as usize]), f64_of(regs[b as usize]))
                                .to_bits();
                    }
                    Op::Compare { op, num, dst, a, b } => {
                        regs[dst as usize] =
                            compare_bits(op, num, regs[a as usize], regs[b as usize]) as u64;
                    }
                    Op::Not { num, dst, src } => {
                        regs[dst as usize] = !truth(num, regs[src as usize]) as u64
                    }
                    Op::NegInt { s, dst, src } => {
                        regs[dst as usize] =
                            norm((regs[src as usize] as i64).wrapping_neg(), s) as u64
                    }
                    Op::NegF32 { dst, src } => {
                        regs[dst as usize] = bits_of_f32(-f32_of(regs[src as usize]))
                    }
                    Op::NegF64 { dst, src } => {
                        regs[dst as usize] = (-f64_of(regs[src as usize])).to_bits()
                    }
                    Op::Invert { s, dst, src } => {
                        regs[dst as usize] = norm(!(regs[src as usize] as i64), s) as u64
                    }
                    Op::IntToInt { s, dst, src } => {
                        regs[dst as usize] = norm(regs[src as usize] as i64, s) as u64
                    }
                    Op::IntToF32 { dst, src } => {
                        regs[dst as usize] = bits_of_f32(regs[src as usize] as i64 as f32)
                    }
                    Op::IntToF64 { dst, src } => {
                        regs[dst as usize] = (regs[src as usize] as i64 as f64).to_bits()
                    }
                    Op::U64ToF32 { dst, src } => regs[dst as usize] = bits_of_f32(regs[src as usize] as f32),
                    Op::U64ToF64 { dst, src } => regs[dst as usize] = (regs[src as usize] as f64).to_bits(),
                    Op::F32ToF64 { dst, src } => {
                        regs[dst as usize] = (f32_of(regs[src as usize]) as f64).to_bits()
                    }
                    Op::F64ToF32 { dst, src } => {
                        regs[dst as usize] = bits_of_f32(f64_of(regs[src as usize]) as f32)
                    }
                    Op::Cast { from, to, dst, src } => {
                        let value = match from_bits(regs[src as usize], from) {
                            // A uint64 above `i64::MAX` is held as a negative int64.
                            V::Int(i) if from == Scalar::U64 && to.is_float() => V::F64(i as u64 as f64),
                            value => value,
                        };
                        regs[dst as usize] = to_bits(&convert(&value, to), to);
                    }
                    Op::Select {
                        dst,
                        cond,
                        then,
                        otherwise,
                    } => {
                        regs[dst as usize] = if regs[cond as usize] != 0 {
                            regs[then as usize]
                        } else {
                            regs[otherwise as usize]
                        };
                    }
                    Op::Extent { dst, arr, axis } => {
                        regs[dst as usize] = extent(&aggs[arr as usize], axis) as u64
                    }
                    Op::Wrap { dst, idx, extent } => {
                        let i = regs[idx as usize] as i64;
                        regs[dst as usize] = if i < 0 {
                            i.wrapping_add(regs[extent as usize] as i64)
                        } else {
                            i
                        } as u64;
                    }
                    Op::WrapExtent {
                        dst,
                        idx,
                        arr,
                        axis,
                    } => {
                        let i = regs[idx as usize] as i64;
                        regs[dst as usize] = if i < 0 {
                            i.wrapping_add(extent(&aggs[arr as usize], axis))
                        } else {
                            i
                        } as u64;
                    }
                    Op::Load {
                        s,
                        dst,
                        arr,
                        indices,
                        rank,
                    } => {
                        let (idx, n) =
                            gather(regs, &code.indices[indices as usize..][..rank as usize]);
                        regs[dst as usize] =
                            self.load_op(who, &aggs[arr as usize], &idx[..n], span(pc), s);
                    }
                    Op::Store {
                        s,
                        arr,
                        indices,
                        rank,
                        value,
                    } => {
                        let (idx, n) =
                            gather(regs, &code.indices[indices as usize..][..rank as usize]);
                        self.store_op(
                            who,
                            &aggs[arr as usize],
                            &idx[..n],
                            regs[value as usize],
                            s,
                            span(pc),
                        );
                    }
                    Op::ThreadIdx { dst, axis } => {
                        regs[dst as usize] = who.tid[axis as usize] as u64
                    }
                    Op::BlockIdx { dst, axis } => {
                        regs[dst as usize] = who.bid[axis as usize] as u64
                    }
                    Op::GridIndex { dst, axis } => {
                        let a = axis as usize;
                        regs[dst as usize] = (who.bid[a] as i64 * self.launch.block[a] as i64
                            + who.tid[a] as i64)
                            as u64;
                    }
                    Op::LaneId { dst } => {
                        regs[dst as usize] = ((who.linear % 1_000_000) % 32) as u64
                    }
                    Op::Unary32 { f, dst, src } => {
                        regs[dst as usize] = bits_of_f32(f(f32_of(regs[src as usize])))
                    }
                    Op::Unary64 { f, dst, src } => {
                        regs[dst as usize] = f(f64_of(regs[src as usize])).to_bits()
                    }
                    Op::Math32 {
                        f,
                        arity,
                        dst,
                        args,
                    } => {
                        let xs = [
                            f32_of(regs[args[0] as usize]),
                            f32_of(regs[args[1] as usize]),
                        ];
                        regs[dst as usize] = bits_of_f32(math::eval_f32(f, &xs[..arity as usize]));
                    }
                    Op::Math64 {
                        f,
                        arity,
                        dst,
                        args,
                    } => {
                        let xs = [
                            f64_of(regs[args[0] as usize]),
                            f64_of(regs[args[1] as usize]),
                        ];
                        regs[dst as usize] = math::eval_f64(f, &xs[..arity as usize]).to_bits();
                    }
                    Op::Jump { to } => {
                        if code.loop_from.get(pc).is_some_and(|&l| l) {
                            count_iteration(&mut t.iterations, func, &code.loop_edges, pc, to as usize);
                        }
                        pc = to as usize;
                        continue;
                    }
                    Op::Branch {
                        cond,
                        then,
                        otherwise,
                    } => {
                        let to = if regs[cond as usize] != 0 {
                            then
                        } else {
                            otherwise
                        } as usize;
                        if code.loop_from.get(pc).is_some_and(|&l| l) {
                            count_iteration(&mut t.iterations, func, &code.loop_edges, pc, to);
                        }
                        pc = to;
                        continue;
                    }
                    Op::BranchCompare {
                        op,
                        num,
                        a,
                        b,
                        then,
                        otherwise,
                    } => {
                        let to = if compare_bits(op, num, regs[a as usize], regs[b as usize]) {
                            then
                        } else {
                            otherwise
                        } as usize;
                        if code.loop_from.get(pc).is_some_and(|&l| l) {
                            count_iteration(&mut t.iterations, func, &code.loop_edges, pc, to);
                        }
                        pc = to;
                        continue;
                    }
                    Op::Return { value } => {
                        let value = value.map(|v| get(regs, aggs, v));
                        let finished = t.frames.pop().expect("a running thread has a frame");
                        let Some(caller) = t.frames.last_mut() else {
                            break 'frames Stop::Done;
                        };
                        if let Some(r) = finished.ret_to {
                            caller.set(r, value.unwrap_or(V::Void));
                        }
                        caller.pc += 1;
                        continue 'frames;
                    }
                    Op::Exit => {
                        t.frames.clear();
                        break 'frames Stop::Done;
                    }
                    Op::Call { site } => {
                        let mut called = enter(codes, &code.calls[site as usize], regs, aggs);
                        called.at = placed.or_else(|| self.program.placed_at[called.func].map(|_| code.spans[pc]));
                        frame.pc = pc;
                        t.frames.push(called);
                        if t.frames.len() > MAX_CALL_DEPTH {
                            break 'frames Stop::Recursion(span(pc));
                        }
                        continue 'frames;
                    }
                    Op::Intrinsic { site } => {
                        if let Err(wait) = self.run_intrinsic(
                            who,
                            &code.intrinsics[site as usize],
                            span(pc),
                            regs,
                            aggs,
                        ) {
                            frame.pc = pc;
                            break 'frames Stop::Wait(wait);
                        }
                    }
                    Op::Generic { site } => {
                        let inst = &code.generics[site as usize];
                        let v = self.generic(who, code, func, pc, inst, span(pc), regs, aggs);
                        if let Some(r) = inst.result {
                            set(
                                regs,
                                aggs,
                                code.locs[r.0 as usize].expect("decoded results have registers"),
                                v,
                            );
                        }
                    }
                    Op::Assigned { flag } => regs[flag as usize] = 1,
                    Op::CheckAssigned { flag, site } => {
                        if regs[flag as usize] == 0 {
                            // The assignment it names is in the other file: not a line here.
                            let site = &code.unassigned[site as usize];
                            self.unassigned_read(who, &site.variable, site.assignment.filter(|_| placed.is_none()), span(pc));
                        }
                    }
                }
                pc += 1;
            }
        };
        t.steps = steps;
        stop
    }

    /// A load from `array` (nothing to load from when it is none: void).
    fn load_op(&mut self, who: Who, array: &V, idx: &[i64], span: TextRange, s: Scalar) -> u64 {
        match array {
            V::Arr(a) => self.load_bits(who, a, idx, span, s),
            _ => to_bits(&V::Void, s),
        }
    }

    fn store_op(
        &mut self,
        who: Who,
        array: &V,
        idx: &[i64],
        bits: u64,
        s: Scalar,
        span: TextRange,
    ) {
        if let V::Arr(a) = array {
            self.store_bits(who, a, idx, bits, s, span);
        }
    }

    /// An intrinsic with no typed operation; `Err` when the thread waits at it.
    #[inline(never)]
    fn run_intrinsic(
        &mut self,
        who: Who,
        site: &IntrinsicSite,
        span: TextRange,
        regs: &mut [u64],
        aggs: &mut [V],
    ) -> Result<(), Wait> {
        let args: Vec<V> = site.args.iter().map(|&a| get(regs, aggs, a)).collect();
        let v = self.intrinsic(who, &site.intrinsic, &args, site.rs, span)?;
        if let Some(r) = site.result {
            set(regs, aggs, r, v);
        }
        Ok(())
    }

    /// An IR instruction with no typed operation, on [`V`]s, as the IR says.
    #[inline(never)]
    #[allow(clippy::too_many_arguments)]
    fn generic(
        &mut self,
        t: Who,
        code: &Code,
        fi: usize,
        pc: usize,
        inst: &Inst,
        span: TextRange,
        regs: &[u64],
        aggs: &[V],
    ) -> V {
        let func = &self.program.functions[fi];
        let val = |v: &ValueId| {
            get(
                regs,
                aggs,
                code.locs[v.0 as usize].expect("decoded operands have registers"),
            )
        };
        let result_type = inst.result.map(|r| func.value_type(r));
        match &inst.op {
            IrOp::Cast(v, s) => convert(&val(v), *s),
            IrOp::Unary(op, v) => {
                let x = val(v);
                let s = scalar_of(func.value_type(*v));
                match (op, x) {
                    (UnaryOp::Not, x) => V::Bool(!x.truth()),
                    (UnaryOp::Invert, V::Bool(b)) => V::Bool(!b),
                    (UnaryOp::Invert, x) => V::Int(norm(!x.int(), s)),
                    (UnaryOp::Neg, V::F32(x)) => V::F32(-x),
                    (UnaryOp::Neg, V::F16(x)) => V::F16(-x),
                    (UnaryOp::Neg, V::F64(x)) => V::F64(-x),
                    (UnaryOp::Neg, x) => V::Int(norm(x.int().wrapping_neg(), s)),
                }
            }
            IrOp::Binary(op, a, b) => {
                let s = scalar_of(result_type.expect("a binary operation has a result"));
                match (val(a), val(b)) {
                    (V::F32(x), V::F32(y)) => V::F32(f32_binary(*op, x, y)),
                    (V::F16(x), V::F16(y)) => convert(&V::F32(f32_binary(*op, x, y)), Scalar::F16),
                    (x, y) if s.is_float() => {
                        convert(&V::F64(float_binary(*op, x.f64(), y.f64())), s)
                    }
                    (x, y) => V::Int(int_binary(*op, x.int(), y.int(), s)),
                }
            }
            IrOp::Compare(op, a, b) => {
                let s = scalar_of(func.value_type(*a));
                let (x, y) = (val(a), val(b));
                V::Bool(if s.is_float() {
                    compare(*op, x.f64(), y.f64())
                } else if s == Scalar::U64 {
                    compare(*op, x.int() as u64, y.int() as u64)
                } else {
                    compare(*op, x.int(), y.int())
                })
            }
            IrOp::Select {
                cond,
                then,
                otherwise,
            } => {
                if val(cond).truth() {
                    val(then)
                } else {
                    val(otherwise)
                }
            }
            IrOp::Extent { array, axis } => V::Int(extent(&val(array), *axis)),
            IrOp::Stride { array, axis } => V::Int(match val(array) {
                V::Arr(a) => a.strides.get(*axis as usize).copied().unwrap_or(0),
                _ => 0,
            }),
            IrOp::Load { array, indices, .. } => {
                let idx: Vec<i64> = indices.iter().take(8).map(|i| val(i).int()).collect();
                match val(array) {
                    V::Arr(a) => self.load_as(t, &a, &idx, span, false),
                    _ => V::Void,
                }
            }
            IrOp::Store {
                array,
                indices,
                value,
                ..
            } => {
                let idx: Vec<i64> = indices.iter().take(8).map(|i| val(i).int()).collect();
                if let V::Arr(a) = val(array) {
                    self.store(t, &a, &idx, &val(value), span, false);
                }
                V::Void
            }
            IrOp::SubArray { array, indices } => match val(array) {
                V::Arr(a) => {
                    let mut view = (*a).clone();
                    for (axis, i) in indices.iter().enumerate() {
                        view.offset += val(i).int() * a.strides[axis];
                    }
                    view.shape.drain(..indices.len());
                    view.strides.drain(..indices.len());
                    V::Arr(Arc::new(view))
                }
                other => other,
            },
            IrOp::Slice { array, parts } => match val(array) {
                V::Arr(a) => {
                    // The view's data, extents and strides; its elements stay in the buffer,
                    // so bounds, race and initialisation checks see the real addresses.
                    let mut view = (*a).clone();
                    view.shape.clear();
                    view.strides.clear();
                    let mut axis = 0;
                    for part in parts {
                        let stride = a.strides.get(axis).copied().unwrap_or(0);
                        match part {
                            SlicePart::Index(i) => {
                                view.offset = view.offset.wrapping_add(val(i).int().wrapping_mul(stride));
                                axis += 1;
                            }
                            SlicePart::Range { start, len, step } => {
                                view.offset = view.offset.wrapping_add(val(start).int().wrapping_mul(stride));
                                view.shape.push(val(len).int());
                                let step = step.as_ref().map_or(1, |s| val(s).int());
                                view.strides.push(stride.wrapping_mul(step));
                                axis += 1;
                            }
                            SlicePart::NewAxis => {
                                view.shape.push(1);
                                view.strides.push(0);
                            }
                        }
                    }
                    let rest = axis.min(a.shape.len());
                    view.shape.extend_from_slice(&a.shape[rest..]);
                    view.strides.extend_from_slice(&a.strides[rest..]);
                    V::Arr(Arc::new(view))
                }
                other => other,
            },
            IrOp::View { array, offset, shape, strides } => match val(array) {
                V::Arr(a) => {
                    // The same buffer, seen with the result's dtype.
                    let mut view = (*a).clone();
                    view.offset = view.offset.wrapping_add(*offset);
                    view.shape = shape.iter().map(|v| val(v).int()).collect();
                    view.strides = strides.iter().map(|v| val(v).int()).collect();
                    let dtype = result_type.and_then(|t| t.dtype()).and_then(base_scalar);
                    if let Some(s) = dtype {
                        view.itemsize = s.itemsize() as i64;
                        view.scalar = Some(s);
                    }
                    V::Arr(Arc::new(view))
                }
                other => other,
            },
            IrOp::Transpose(array) => match val(array) {
                V::Arr(a) => {
                    let mut view = (*a).clone();
                    view.shape.reverse();
                    view.strides.reverse();
                    V::Arr(Arc::new(view))
                }
                other => other,
            },
            IrOp::AllocArray {
                space,
                shape,
                dtype,
            } => {
                let [gx, gy, _] = self.launch.grid;
                let [x, y, z] = t.bid;
                let block_id = (z as usize * gy as usize + y as usize) * gx as usize + x as usize;
                let owner = if *space == MemorySpace::Shared {
                    // One allocation per block: key by the block index.
                    block_id
                } else {
                    // One per thread: key by the thread (unique across the grid).
                    usize::MAX / 2 + block_id * 1024 + t.linear % 1_000_000
                };
                let key = (owner, fi, pc);
                let dynamic = shape == &[0] && *space == MemorySpace::Shared;
                if !dynamic && !self.allocs.contains_key(&key) {
                    let limit = alloc_limit(*space);
                    if alloc_bytes(shape, *dtype).is_none_or(|b| b > limit) {
                        let what = if *space == MemorySpace::Shared {
                            "shared array of a block"
                        } else {
                            "local array of a thread"
                        };
                        let message = format!(
                            "a {what} of shape {shape:?} ({dtype}): more than the {} KiB a GPU allows; not allocated, its elements read as zero",
                            limit >> 10
                        );
                        self.report(super::FindingKind::Unsupported, span, t, message);
                    }
                }
                // Findings name the array by the variable it is assigned to.
                let name = || {
                    let r = inst.result?;
                    func.blocks.iter().flat_map(|b| &b.insts).find_map(|i| match i.op {
                        IrOp::WriteSlot(slot, v) if v == r => Some(func.slots[slot.0 as usize].name.clone()),
                        _ => None,
                    })
                };
                V::Arr(self.alloc(key, *space, shape, *dtype, name))
            }
            IrOp::GlobalArray(name) => self.global_array(name),
            IrOp::MakeTuple(items) => V::Tup(items.iter().map(val).collect::<Vec<_>>().into()),
            IrOp::Extract(tup, i) => match val(tup) {
                V::Tup(items) => items.get(*i as usize).cloned().unwrap_or(V::Void),
                _ => V::Void,
            },
            IrOp::TupleGet(tup, i) => match val(tup) {
                V::Tup(items) => {
                    let n = items.len() as i64;
                    let k = val(i).int();
                    let k = if k < 0 { k + n } else { k };
                    items.get(k as usize).cloned().unwrap_or(V::Void)
                }
                _ => V::Void,
            },
            IrOp::Print { format, args } => {
                let values: Vec<super::printf::Arg> = args
                    .iter()
                    .map(|a| match a {
                        PrintArg::Value(v) => match val(v) {
                            V::F64(x) => super::printf::Arg::Float(x),
                            other => super::printf::Arg::Int(other.int()),
                        },
                        PrintArg::Bool(v) => super::printf::Arg::Str(if val(v).truth() { "True" } else { "False" }),
                        PrintArg::Str(text) => super::printf::Arg::Str(text),
                    })
                    .collect();
                self.output.print(format, &values);
                V::Void
            }
            IrOp::Const(_)
            | IrOp::ReadSlot(_)
            | IrOp::WriteSlot(..)
            | IrOp::Intrinsic { .. }
            | IrOp::Call { .. } => {
                unreachable!("decoded into operations of their own")
            }
        }
    }
}

/// A callee's frame, its parameters set from the caller's registers.
fn enter(codes: &[Code], site: &CallSite, regs: &[u64], aggs: &[V]) -> Frame {
    let callee = &codes[site.callee];
    let mut frame = Frame::new(site.callee, callee);
    for (&arg, &param) in site.args.iter().zip(&callee.params) {
        match (arg, param) {
            (Loc::Bits(a, s), Loc::Bits(p, t)) if s == t => {
                frame.bits[p as usize] = regs[a as usize]
            }
            _ => frame.set(param, get(regs, aggs, arg)),
        }
    }
    frame.ret_to = site.result;
    frame
}

/// Up to eight indices from their registers (Numba arrays in kernels rarely have more).
fn gather(bits: &[u64], regs: &[u32]) -> ([i64; 8], usize) {
    let mut out = [0i64; 8];
    for (slot, &r) in out.iter_mut().zip(regs) {
        *slot = bits[r as usize] as i64;
    }
    (out, regs.len().min(8))
}

/// Count a pass over a back edge of a loop that holds a block barrier (`edges` of function
/// `func`): see [`Thread::iterations`].
fn count_iteration(iterations: &mut Vec<(usize, u32, u32)>, func: usize, edges: &[(u32, u32)], from: usize, to: usize) {
    let Some(edge) = edges.iter().position(|&e| e == (from as u32, to as u32)) else { return };
    match iterations.iter_mut().find(|c| c.0 == func && c.1 == edge as u32) {
        Some(c) => c.2 += 1,
        None => iterations.push((func, edge as u32, 1)),
    }
}
