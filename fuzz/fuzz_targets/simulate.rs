//! Simulate small launches of every kernel of the input that lowers: grids of 1 or 2
//! blocks, blocks of 1 to 64 threads, small generated arrays, a small step budget. Endless
//! loops must stop at the budget; out-of-range accesses must be findings, not panics.

#![no_main]

use kernlint::launch::{Launch, build_program, simulate};
use kernlint_fuzz::{
    Rng, database, launch_args, on_worker_stack, seed, signatures, source_text, targets,
};
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let text = source_text(data);
    let mut rng = Rng(seed(data));
    on_worker_stack(move || {
        let (db, file) = database(text);
        for target in targets(&db, file, 4).into_iter().filter(|t| t.is_kernel()) {
            for sig in signatures(&db, file, &target, &mut rng, 3) {
                kernlint_fuzz::trace(|| format!("{} {sig}", target.qualname));
                let Ok(program) = build_program(&db, file, &target.qualname, &sig) else {
                    continue;
                };
                let Some(args) = launch_args(
                    &program.functions[0]
                        .params
                        .iter()
                        .map(|p| p.ty.clone())
                        .collect::<Vec<_>>(),
                    &mut rng,
                ) else {
                    continue;
                };
                let block = match rng.below(4) {
                    0 => [1 + rng.below(64) as u32, 1, 1],
                    1 => [32, 1, 1],
                    2 => [4, 4, 1],
                    _ => [2, 2, 2],
                };
                let grid = [
                    1 + rng.below(2) as u32,
                    1 + rng.below(2) as u32 * (rng.below(4) == 0) as u32,
                    1,
                ];
                let launch = Launch {
                    grid,
                    block,
                    shared_mem: rng.below(2) as usize * 256,
                    step_budget: 2_000,
                };
                let _ = simulate(&program, &launch, &args);
            }
        }
    });
});
