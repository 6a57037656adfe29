//! Compile to PTX every kernel of the input that lowers, for the signatures `type_lower`
//! tries. Unsupported constructs are errors; panics and hangs are not allowed.

#![no_main]

use kernlint::compile::{CompileOptions, LineSource, compile_ptx};
use kernlint::launch::build_program;
use kernlint_fuzz::{Rng, database, on_worker_stack, seed, signatures, source_text, targets};
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let text = source_text(data);
    let mut rng = Rng(seed(data));
    on_worker_stack(move || {
        let (db, file) = database(text.clone());
        let found = targets(&db, file, 8);
        for target in &found {
            // Two functions of one name (`def k` twice, or nameless defs of a broken file):
            // the name resolves to one of them, whose kind may not be this target's.
            if found.iter().filter(|t| t.qualname == target.qualname).count() > 1 {
                continue;
            }
            for sig in signatures(&db, file, target, &mut rng, 4) {
                kernlint_fuzz::trace(|| format!("{} {sig}", target.qualname));
                let Ok(program) = build_program(&db, file, &target.qualname, &sig) else {
                    continue;
                };
                let options = CompileOptions {
                    fastmath: rng.below(2) == 0,
                    lineinfo: rng.below(2) == 0,
                    source: Some(LineSource::file("fuzz.py".into(), text.clone())),
                    max_registers: (rng.below(2) == 0).then(|| 16 + rng.below(240) as u32),
                };
                let arch = *rng.pick(&["sm_70", "sm_80", "sm_90"]);
                if let Ok(ptx) = compile_ptx(&program, arch, &options) {
                    assert!(
                        ptx.contains(".entry") || !target.is_kernel(),
                        "a kernel without an .entry:\n{ptx}"
                    );
                }
            }
        }
    });
});
