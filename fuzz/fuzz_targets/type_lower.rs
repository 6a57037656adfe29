//! Type and lower to the IR every kernel and device function the input defines: for its
//! decorator's signature (or none), the argument types of its launches in the file, and a
//! few signatures derived from the input; and build the whole program (device functions
//! it calls included). Errors are fine; panics and hangs are not.

#![no_main]

use kernlint::analysis::host_types::{kernel_typing_requests, signature_text};
use kernlint::analysis::ir::lower_function;
use kernlint::analysis::kernels::file_gpu_functions;
use kernlint::analysis::types::Type;
use kernlint::analysis::typing::type_function;
use kernlint::launch::build_program;
use kernlint_fuzz::{Rng, database, on_worker_stack, seed, signatures, source_text, targets};
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let text = source_text(data);
    let mut rng = Rng(seed(data));
    on_worker_stack(move || {
        let (db, file) = database(text);
        for (_, function) in file_gpu_functions(&db, file) {
            for (request, _) in kernel_typing_requests(&db, file, function) {
                let _ = kernlint::analysis::typing::function_types(&db, file, request);
            }
        }
        for target in targets(&db, file, 8) {
            // The decorator's first signature, or the "no signature" error.
            let _ = type_function(&db, file, &target.qualname, None);
            // Nothing known about the arguments.
            let unknown = vec![Type::Unknown; target.params];
            let _ = lower_function(&db, file, target.def_range, &unknown, target.is_kernel());
            for sig in signatures(&db, file, &target, &mut rng, 5) {
                if let Some(text) = signature_text(&sig.args) {
                    let _ = type_function(&db, file, &target.qualname, Some(&text));
                }
                kernlint_fuzz::trace(|| format!("{} {sig}", target.qualname));
                let _ = lower_function(&db, file, target.def_range, &sig.args, target.is_kernel());
                let _ = build_program(&db, file, &target.qualname, &sig);
            }
        }
    });
});
