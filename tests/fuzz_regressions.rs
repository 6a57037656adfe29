//! Inputs the fuzz targets (fuzz/, `scripts/fuzz.sh`) found crashing kernlint, each reduced
//! to its cause: the analysis, the lowering, the PTX backend and the simulator must answer
//! with findings or errors, never a panic, a hang or an unbounded allocation.

use kernlint::analysis::signature::parse_signature_str;
use kernlint::analysis::types::Scalar;
use kernlint::analysis::typing::type_function;
use kernlint::analysis::{RootDatabase, SourceFile};
use kernlint::compile::{CompileOptions, compile_ptx};
use kernlint::launch::npy::NpyArray;
use kernlint::launch::{Fill, HostArg, Launch, build_program, generate_array, simulate};
use kernlint::lint::{Diagnostic, Settings, check_file};

fn database(source: &str) -> (RootDatabase, SourceFile) {
    let db = RootDatabase::default();
    let file = SourceFile::new(&db, "k.py".into(), source.to_string());
    (db, file)
}

/// Every rule over the file (what `kernlint check --select ALL` runs).
fn check(source: &str) -> Vec<Diagnostic> {
    let (db, file) = database(source);
    check_file(
        &db,
        file,
        &Settings {
            select: vec!["ALL".into()],
            ignore: Vec::new(),
        },
    )
}

fn codes(diagnostics: &[Diagnostic]) -> Vec<&str> {
    diagnostics.iter().map(|d| d.code).collect()
}

fn launch(threads: u32) -> Launch {
    Launch {
        grid: [1, 1, 1],
        block: [threads, 1, 1],
        shared_mem: 0,
        step_budget: 10_000,
    }
}

fn array(scalar: Scalar, n: usize, fill: Fill) -> HostArg {
    HostArg::Array(generate_array(scalar, vec![n], fill))
}

/// `n` xoroshiro128+ states (the `xoroshiro128p_dtype` records), seeded with distinct words.
fn rng_states(n: usize) -> HostArg {
    let data = (0..2 * n as u64)
        .flat_map(|w| (w.wrapping_mul(0x9E37_79B9_7F4A_7C15) | 1).to_le_bytes())
        .collect();
    HostArg::Array(NpyArray {
        descr: "[('s0', '<u8'), ('s1', '<u8')]".into(),
        itemsize: 16,
        shape: vec![n],
        fortran_order: false,
        data,
    })
}

fn floats(a: &NpyArray) -> Vec<f32> {
    a.data
        .chunks(4)
        .map(|c| f32::from_le_bytes(c.try_into().unwrap()))
        .collect()
}

const RNG: &str = "\
from numba import cuda
from numba.cuda.random import xoroshiro128p_uniform_float32

@cuda.jit
def k(out, states):
    i = cuda.grid(1)
    if i < out.size:
        out[i] = xoroshiro128p_uniform_float32(states, i)

@cuda.jit
def one_argument(out, states):
    out[0] = xoroshiro128p_uniform_float32(states)
";

/// The simulator read 16 bytes of state at each element of whatever array was passed, and
/// panicked past the end of a float32 array; the typing took any arguments. Numba rejects a
/// state array of another dtype and a wrong argument count: now the typing does too.
#[test]
fn rng_draw_needs_a_state_array_and_two_arguments() {
    let (db, file) = database(RNG);
    let sig = parse_signature_str("void(float32[::1], float32[::1])").unwrap();
    let e = build_program(&db, file, "k", &sig)
        .err()
        .expect("float32 states are a typing error");
    assert!(e.message.to_string().contains("xoroshiro128p states"), "{}", e.message);
    let e = build_program(&db, file, "one_argument", &sig)
        .err()
        .expect("one argument is a typing error");
    assert!(e.message.to_string().contains("takes 2 arguments"), "{}", e.message);

    // With real states it still runs: one uniform draw in [0, 1) per thread.
    let sig = parse_signature_str("void(float32[::1], xoroshiro128p_type[::1])").unwrap();
    let program = build_program(&db, file, "k", &sig).unwrap_or_else(|e| panic!("{}", e.message));
    let (outputs, outcome) = simulate(
        &program,
        &launch(8),
        &[array(Scalar::F32, 8, Fill::Zeros), rng_states(8)],
    )
    .unwrap();
    assert!(outcome.findings.is_empty(), "{:?}", outcome.findings);
    let draws = floats(outputs[0].as_ref().unwrap());
    assert!(draws.iter().all(|x| (0.0..1.0).contains(x)), "{draws:?}");
    assert!(draws.windows(2).any(|w| w[0] != w[1]), "{draws:?}");

    // The linter, with every rule, takes the file as it is.
    let _ = check(RNG);
}

/// A parameter named like an import (here `x`, imported from `numba.cuda.random`; `local`,
/// imported from `numba.cuda`) was lowered as that import: `x.size` became a call of the
/// RNG intrinsic `random.x.size` with no arguments, which panicked the simulator. The
/// typing reads the parameter; the lowering now does too.
#[test]
fn parameters_shadow_imports_in_the_lowering() {
    let source = "\
from numba import cuda
from numba.cuda import local
from numba.cuda.random import x

@cuda.jit
def k(out, x, local):
    i = cuda.grid(1)
    if i < x.size and i < local.size:
        out[i] = x[i] + local[i]
";
    let (db, file) = database(source);
    let sig = parse_signature_str("void(float32[::1], float32[::1], float32[::1])").unwrap();
    let program = build_program(&db, file, "k", &sig).unwrap_or_else(|e| panic!("{}", e.message));
    let ir = program.functions[0].to_string();
    assert!(
        !ir.contains("random.") && !ir.contains("local.size"),
        "{ir}"
    );
    let args = [
        array(Scalar::F32, 4, Fill::Zeros),
        array(Scalar::F32, 4, Fill::Arange),
        array(Scalar::F32, 4, Fill::Ones),
    ];
    let (outputs, outcome) = simulate(&program, &launch(4), &args).unwrap();
    assert!(outcome.findings.is_empty(), "{:?}", outcome.findings);
    assert_eq!(floats(outputs[0].as_ref().unwrap()), [1.0, 2.0, 3.0, 4.0]);
    compile_ptx(&program, "sm_80", &CompileOptions::default())
        .unwrap_or_else(|e| panic!("{}", e.message));
    assert!(!codes(&check(source)).contains(&"KL110"));
}

/// A call that returns nothing, used as a value: the recovered parse of
/// `cuda.shfl_sync(tid] += s[tid + step]` followed by `cuda.syncthreads()` passed the barrier
/// as the shuffle's lane. The lowering handed the intrinsic a value id that does not exist
/// and the simulator indexed past its values. Now such an operand is a lowering error (and
/// the shuffle's lane and mask must be numbers), wherever it appears.
#[test]
fn a_call_without_a_value_is_no_operand() {
    let source = "\
from numba import cuda, float32

@cuda.jit
def shuffle(out, x):
    s = cuda.shared.array(256, dtype=float32)
    tid = cuda.threadIdx.x
    step = 128
    while step > 0:
        if tid < step:cuda.shfl_sync(tid] += s[tid + step]
            cuda.syncthreads()
        step //= 2
    out[0] = s[0]

@cuda.jit
def fused(out, x):
    i = cuda.grid(1)
    out[i] = cuda.fma(x[i], x[i], cuda.syncthreads())

@cuda.jit(device=True)
def nothing(a):
    a[0] = 1

@cuda.jit(device=True)
def forward(a):
    return nothing(a)

@cuda.jit
def calls_forward(out, x):
    forward(out)
";
    let (db, file) = database(source);
    let sig = parse_signature_str("void(float32[::1], float32[::1])").unwrap();
    for kernel in ["shuffle", "fused"] {
        if let Ok(program) = build_program(&db, file, kernel, &sig) {
            panic!("{kernel} lowered:\n{}", program.functions[0]);
        }
    }
    // `return f()` of a function that returns nothing still lowers, and runs.
    let program =
        build_program(&db, file, "calls_forward", &sig).unwrap_or_else(|e| panic!("{}", e.message));
    let args = [
        array(Scalar::F32, 2, Fill::Zeros),
        array(Scalar::F32, 2, Fill::Zeros),
    ];
    let (outputs, outcome) = simulate(&program, &launch(1), &args).unwrap();
    assert!(outcome.findings.is_empty(), "{:?}", outcome.findings);
    assert_eq!(floats(outputs[0].as_ref().unwrap()), [1.0, 0.0]);
    assert!(codes(&check(source)).contains(&"KL001"));
}

/// Warp votes, `activemask` and `ffs` with the wrong number of arguments were typed (and so
/// lowered), and the backends read arguments that were not there.
#[test]
fn intrinsic_argument_counts_are_checked() {
    let sig = parse_signature_str("void(int32[::1])").unwrap();
    for call in [
        "cuda.all_sync()",
        "cuda.ballot_sync(1)",
        "cuda.ffs()",
        "cuda.activemask(1)",
        "cuda.match_any_sync()",
    ] {
        let source =
            format!("from numba import cuda\n\n@cuda.jit\ndef k(out):\n    out[0] = {call}\n");
        let (db, file) = database(&source);
        assert!(
            build_program(&db, file, "k", &sig).is_err(),
            "{call} lowered"
        );
        let _ = check(&source);
    }
}

/// Code after a `continue` (here what the parser recovered from `if      tid] < 0:`) is never
/// typed, as Numba never types it; the lowering lowered it anyway, with the parameters' types,
/// and `x[k, tid]` on a 1-D array underflowed the dimension count. Unreachable statements
/// are now left out of the IR, as Numba leaves them out.
#[test]
fn unreachable_code_is_not_lowered() {
    let source = "\
from numba import cuda

@cuda.jit
def after_continue(out, x, n):
    tid = cuda.threadIdx.x
    for k in range(n):
        out[k] = 1
        continue
        out[k, tid] = cuda.all_sync(0xffffffff, x[k, tid] > 1)

@cuda.jit
def after_return(out, x, n):
    i = cuda.grid(1)
    if i < n:
        out[i] = 2
        return
    else:
        return
    out[i, i] = x[i, i, i]

@cuda.jit
def recovered(out, x, n):
    tid = cuda.threadIdx.x
    for k in range(n):
        if      tid] < 0:
            continue
        out[k, tid] = cuda.all_sync(0xffffffff, x[k, tid] > 1)
";
    let (db, file) = database(source);
    let sig = parse_signature_str("void(float32[::1], float32[::1], int64)").unwrap();
    for kernel in ["after_continue", "after_return"] {
        let program = build_program(&db, file, kernel, &sig)
            .unwrap_or_else(|e| panic!("{kernel}: {}", e.message));
        let args = [
            array(Scalar::F32, 4, Fill::Zeros),
            array(Scalar::F32, 4, Fill::Zeros),
            HostArg::Scalar("3".into()),
        ];
        let threads = if kernel == "after_continue" { 1 } else { 4 };
        let (outputs, outcome) = simulate(&program, &launch(threads), &args).unwrap();
        assert!(
            outcome.findings.is_empty(),
            "{kernel}: {:?}",
            outcome.findings
        );
        let expected = if kernel == "after_continue" {
            [1.0, 1.0, 1.0, 0.0]
        } else {
            [2.0, 2.0, 2.0, 0.0]
        };
        assert_eq!(floats(outputs[0].as_ref().unwrap()), expected, "{kernel}");
        compile_ptx(&program, "sm_80", &CompileOptions::default())
            .unwrap_or_else(|e| panic!("{kernel}: {}", e.message));
    }
    // Whatever the parser recovered, building the program answers without a panic.
    let _ = build_program(&db, file, "recovered", &sig);
    assert!(codes(&check(source)).contains(&"KL001"));
}

/// The constant-memory size rule (KL405) sized `np.arange(...)` by indexing its first
/// argument, and a module array built by a call the parser recovered without arguments
/// (`np.arange(06, ...)`: a leading zero is a syntax error) panicked; sizes that overflow
/// 128 bits panicked in debug builds. Such arrays now have no known size.
#[test]
fn module_array_sizes_never_panic() {
    for table in [
        "np.arange(06, dtype=np.float32)",
        "np.arange()",
        "np.arange(dtype=np.float32)",
        "np.zeros((2**62, 2**62, 2**62), dtype=np.float64)",
        "np.random.rand(2**62, 2**62, 2**62)",
        "np.arange(-2**62 * 2**62, 2**62 * 2**62, 1)",
    ] {
        let source = format!(
            "import numpy as np\nfrom numba import cuda\n\nTABLE = {table}\n\n@cuda.jit\ndef k(out):\n    out[0] = TABLE[0]\n"
        );
        let diagnostics = check(&source);
        assert!(
            !codes(&diagnostics).contains(&"KL405"),
            "{table}: {diagnostics:?}"
        );
    }
    // A real oversized table is still found.
    let source = "import numpy as np\nfrom numba import cuda\n\nTABLE = np.arange(20000, dtype=np.float32)\n\n@cuda.jit\ndef k(out):\n    out[0] = TABLE[0]\n";
    assert!(codes(&check(source)).contains(&"KL405"));
}

/// Two module-level kernels of one name: typing requests name their function, so the second
/// `def` got the first one's typing error, placed with the first one's item-relative range
/// in the second item (here past the end of the file). A redefinition is typed only when
/// it is the definition its name finds.
#[test]
fn a_redefined_kernel_gets_no_other_definitions_findings() {
    let source = "\
from numba import cuda

@cuda.jit(\"void(float32[::1], float32)\")
def float_shift(a, x):
    a[0] = x << 2

@cuda.jit(\"void(float32[::1], float32)\")
def float_shift(a, x):
    a(out, x)
";
    let diagnostics = check(source);
    let typing: Vec<_> = diagnostics.iter().filter(|d| d.code == "KL110").collect();
    assert_eq!(typing.len(), 1, "{diagnostics:?}");
    assert_eq!(&source[typing[0].range], "x << 2");
    assert!(
        diagnostics
            .iter()
            .all(|d| d.range.end().to_usize() <= source.len()),
        "{diagnostics:?}"
    );
}

/// Device functions that each call the next three times in a loop, 8 deep (as deep as calls
/// nest): each is typed once per argument types, not once per call and loop pass, which grew
/// as 6^7 (a file of 1.5 kB like it took over 12 s in the fuzz build). The calls with an
/// integer and with a float argument are typed apart.
#[test]
fn device_calls_are_typed_once_per_argument_types() {
    let mut source = String::from("from numba import cuda\n\n@cuda.jit(device=True)\ndef g7(x):\n    return x + 1\n\n");
    for i in (0..7).rev() {
        let next = i + 1;
        source += &format!(
            "@cuda.jit(device=True)\ndef g{i}(x):\n    s = 0\n    for j in range(3):\n        s += g{next}(j) + g{next}(x) + g{next}(x * 0.5)\n    return s\n\n"
        );
    }
    source += "@cuda.jit('void(float64[::1], int64)')\ndef k(out, n):\n    v = g0(n)\n    w = g6(n)\n    out[0] = v + w\n";
    let (db, file) = database(&source);
    let types = type_function(&db, file, "k", None).unwrap_or_else(|e| panic!("{}", e.message));
    assert_eq!(types.variables["v"].iter().collect::<Vec<_>>(), ["float64"]);
    assert_eq!(types.variables["w"].iter().collect::<Vec<_>>(), ["float64"]);
}

/// Loops nested deeper than 8 are not typed (each loop is typed to a fixpoint, so the passes
/// multiply: 12 nested loops took 7 s in the fuzz build); 8 are, and the message says what
/// to do.
#[test]
fn loops_nest_at_most_eight_deep_in_the_typing() {
    let nested = |depth: usize| {
        let mut source = String::from("from numba import cuda\n\n@cuda.jit('void(float32[::1], int64)')\ndef k(a, n):\n    x = 0\n");
        for d in 0..depth {
            let indent = "    ".repeat(d + 1);
            source += &format!("{indent}for i{d} in range(n):\n{indent}    x = x + 0.5\n");
        }
        source + "    a[0] = x\n"
    };
    let (db, file) = database(&nested(8));
    let types = type_function(&db, file, "k", None).unwrap_or_else(|e| panic!("{}", e.message));
    assert_eq!(types.variables["x"].iter().collect::<Vec<_>>(), ["float64", "int64"]);
    let source = nested(9);
    let (db, file) = database(&source);
    let err = type_function(&db, file, "k", None).unwrap_err();
    assert!(err.message.contains("loops nested at most 8 deep"), "{}", err.message);
    assert!(err.message.contains("device function"), "{}", err.message);
    assert_eq!(&source[err.file_range()], "i8");
}

/// A `def` the parser recovers with no name is no GPU function: a nameless kernel was taken,
/// by its empty name, for a nameless device function defined after it, whose PTX has no
/// `.entry` (found by the compile_ptx target).
#[test]
fn a_def_with_no_name_is_no_gpu_function() {
    let (db, file) = database("from numba import cuda\n\n@cuda.jit\ndef (a):\n    a[0] = 1\n\n@cuda.jit(device=True)\ndef (x):\n    return x\n\n@cuda.jit\ndef k(a):\n    a[0] = 2\n");
    let names: Vec<String> = kernlint::analysis::kernels::file_gpu_functions(&db, file).iter().map(|(_, f)| f.qualname.clone()).collect();
    assert_eq!(names, ["k"]);
    assert_eq!(codes(&check("from numba import cuda\n\n@cuda.jit\ndef (a):\n    a[0] = 1\n")), ["KL001"]);
}

/// A device function with a counted loop, inlined at each of many calls: the unroller worked
/// out the constants of every slot of the whole function once per loop (the function's size
/// times its slot count, per loop: 400 calls took 300 s in release). Its states now list only
/// the slots known and live there, and a value known less on a later pass sends the blocks
/// that use it back to the worklist (value numbering shares the header's read of the counter
/// with the latch's increment, so the slots alone did not say the increment changed): the
/// third call's loop is unrolled as the first two are. From the fifth call on, the call
/// `d(a, n + 4)` after the fourth call's loop reads the constant 4 value numbering shares
/// with that loop's header (`range(4)`'s stop): that loop is unrolled too.
#[test]
fn loops_of_inlined_device_functions_all_unroll() {
    let mut source = String::from(
        "from numba import cuda\n\n@cuda.jit(device=True)\ndef d(a, n):\n    s = 0.0\n    for j in range(4):\n        s += a[j + n]\n    return s\n\n@cuda.jit\ndef k(out, a, n):\n    i = cuda.grid(1)\n    t = 0.0\n",
    );
    for call in 0..6 {
        source += &format!("    t += d(a, n + {call})\n");
    }
    source += "    out[i] = t\n";
    let (db, file) = database(&source);
    let sig = parse_signature_str("void(float32[::1], float32[::1], int32)").unwrap();
    let program = build_program(&db, file, "k", &sig).unwrap_or_else(|e| panic!("{}", e.message));
    let ptx = compile_ptx(&program, "sm_80", &CompileOptions::default()).unwrap_or_else(|e| panic!("{}", e.message));
    // No loop is left: the only branches are jumps.
    let conditional = ptx.lines().filter(|l| l.trim_start().starts_with("@%p") && l.contains(" bra ")).count();
    assert_eq!(conditional, 0, "{ptx}");
    // Each call's four loads, unrolled.
    assert_eq!(ptx.matches("ld.global.f32").count(), 24, "{ptx}");
}

/// A long `if/elif` chain: each clause runs under the failed tests of every clause before it,
/// and no other. The clauses share those guards rather than each (and each access under it)
/// copying the whole list, which took 6.5 s and 400 MB at 800 clauses in release. Here the
/// bounds test in the middle of the chain guards the clauses after it, and only those.
#[test]
fn an_elif_chain_guards_each_clause_with_the_tests_before_it() {
    let mut source = String::from(
        "from numba import cuda\n\n@cuda.jit\ndef k(a, out, n):\n    i = cuda.grid(1)\n    v = a[0]\n    if v == -1:\n        out[i] = -1\n",
    );
    for clause in 0..300 {
        if clause == 100 {
            source += "    elif i >= n:\n        pass\n";
        }
        source += &format!("    elif v == {clause}:\n        out[i] = {clause}\n");
    }
    let unguarded: Vec<&str> = check(&source)
        .iter()
        .filter(|d| d.code == "KL301")
        .map(|d| source[d.range.start().to_usize()..].lines().next().unwrap_or_default())
        .collect();
    let expected: Vec<String> = (-1..100).map(|clause| format!("out[i] = {clause}")).collect();
    assert_eq!(unguarded, expected);
}

/// KL307 walks an `elif` chain as the `if` in an `else` it is, and once walked a clause at a
/// time, not with a call per clause: thousands of clauses overflowed the stack.
#[test]
fn a_long_elif_chain_assigning_in_every_clause_leaves_nothing_unassigned() {
    let mut source = String::from("from numba import cuda\n\n@cuda.jit\ndef k(a, out):\n    i = cuda.grid(1)\n    v = a[i]\n    if v == 0:\n        x = 0\n");
    for clause in 1..5000 {
        source += &format!("    elif v == {clause}:\n        x = {clause}\n");
    }
    source += "    else:\n        x = -1\n    out[i] = x\n";
    let codes: Vec<String> = check(&source).iter().map(|d| d.code.to_string()).collect();
    assert!(!codes.iter().any(|c| c == "KL307"), "{codes:?}");
    // Without the `else`, `x` may be unassigned.
    let open = source.replace("    else:\n        x = -1\n", "");
    assert!(check(&open).iter().any(|d| d.code == "KL307"));
}

/// Each loop is typed to a fixpoint, every pass after the first from a copy of the state at
/// the loop's entry (the first starts from that state itself rather than a copy of it:
/// copying the whole state for every pass of every loop was 16% of the typing of a kernel
/// of 1600 variables). Types a later pass widens are the loop's; what an earlier pass saw of a
/// value later unified does not stay.
#[test]
fn loop_passes_start_from_the_state_at_the_loop() {
    let source = "from numba import cuda\n\n@cuda.jit('void(float64[::1], int64)')\ndef k(a, n):\n    x = 0\n    y = 1\n    for i in range(n):\n        z = y\n        for j in range(n):\n            y = x\n            x = x + 0.5\n    a[0] = x + y + z\n";
    let (db, file) = database(source);
    let types = type_function(&db, file, "k", None).unwrap_or_else(|e| panic!("{}", e.message));
    assert_eq!(types.variables["x"].iter().collect::<Vec<_>>(), ["float64", "int64"]);
    assert_eq!(types.variables["y"].iter().collect::<Vec<_>>(), ["float64", "int64"]);
    // The outer loop's phi of `y` unifies its int and float values.
    assert_eq!(types.variables["z"].iter().collect::<Vec<_>>(), ["float64"]);
}

/// After a bad unindent in a kernel, the parser's recovery kept the kernel's block open, so
/// the host code after it was taken for kernel code: `np.zeros` reported as an allocation in
/// the kernel (KL104), the host's launch as a launch inside the kernel (KL106). Blocks are
/// read by indentation, as Python reads them: only the syntax errors are reported, and the
/// host function is found (its launch types the kernel).
#[test]
fn code_after_a_bad_unindent_is_not_the_kernels() {
    let source = "from numba import cuda\nimport numpy as np\n\n\n@cuda.jit\ndef k(a):\n    i = cuda.grid(1)\n    if i < a.size:\n        a[i] = 1\n      a[i] += 2\n\n\ndef host():\n    x = np.zeros(10)\n    k[1, 32](x)\n";
    assert_eq!(codes(&check(source)), ["KL001", "KL001"]);
    let (db, file) = database(source);
    let items = kernlint::analysis::items::module_items(&db, file);
    assert_eq!(items.len(), 4, "two imports, the kernel, the host function");
}
