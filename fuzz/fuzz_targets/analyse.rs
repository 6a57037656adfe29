//! Arbitrary bytes as a Python file: parse, discover kernels, run every lint rule, and ask
//! the editor features (hover, completion, definition, references, signature help, inlay
//! hints, symbols, code lenses) about a few positions. Nothing may panic, hang or blow up.

#![no_main]

use kernlint::analysis::hover::{hover, symbols};
use kernlint::analysis::ide::completion::completions;
use kernlint::analysis::ide::navigation::{code_lenses, definition, references};
use kernlint::analysis::ide::signature_help::signature_help;
use kernlint::analysis::ide::types::{inlay_hints, type_at};
use kernlint::analysis::kernels::file_gpu_functions;
use kernlint::analysis::notebook::Notebook;
use kernlint::lint::{Settings, check_file};
use kernlint_fuzz::{Rng, database, on_worker_stack, seed, source_text};
use libfuzzer_sys::fuzz_target;
use ruff_text_size::{TextRange, TextSize};

fuzz_target!(|data: &[u8]| {
    let text = source_text(data);
    let mut rng = Rng(seed(data));
    on_worker_stack(move || {
        if text.trim_start().starts_with('{') {
            let _ = Notebook::parse(&text);
        }
        let len = text.len();
        let (db, file) = database(text.clone());
        let settings = Settings {
            select: vec!["ALL".into()],
            ignore: Vec::new(),
        };
        let diagnostics = check_file(&db, file, &settings);
        for d in &diagnostics {
            assert!(
                d.range.end().to_usize() <= len,
                "finding past the end of the file: {d:?}"
            );
            assert!(d.range.start() <= d.range.end(), "inverted range: {d:?}");
        }
        let _ = file_gpu_functions(&db, file);
        let _ = symbols(&db, file);
        let _ = code_lenses(&db, file);
        let _ = inlay_hints(&db, file, TextRange::up_to(TextSize::new(len as u32)));
        // Positions on character boundaries, as the server converts them.
        let boundaries: Vec<usize> = (0..=len).filter(|&i| text.is_char_boundary(i)).collect();
        for _ in 0..4 {
            let offset = TextSize::new(*rng.pick(&boundaries) as u32);
            let _ = hover(&db, file, offset, &|at| format!("line at {at:?}"));
            let _ = completions(&db, file, offset);
            let _ = definition(&db, file, offset);
            let _ = references(&db, file, offset, true);
            let _ = signature_help(&db, file, offset);
            let _ = type_at(&db, file, offset);
        }
    });
});
