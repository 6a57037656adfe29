//! Completion after `cuda.` and its namespaces (`cuda.atomic.`, `cuda.shared.`, `cuda.local.`,
//! `cuda.const.`, `cuda.cg.`, `cuda.fp16.`, `cuda.random.`, `cuda.libdevice.`), with
//! signatures and docs from [`crate::analysis::intrinsics`].

use ruff_text_size::TextSize;

use super::{dotted_before, enclosing_function, resolve_chain};
use crate::analysis::intrinsics::{FP16_BINARY, FP16_UNARY, HOST_API, INTRINSICS, Intrinsic, IntrinsicKind};
use crate::analysis::{Db, SourceFile};

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum EntryKind {
    Function,
    Attribute,
    Namespace,
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct CompletionEntry {
    pub label: String,
    pub kind: EntryKind,
    /// The signature, `cuda.`-qualified.
    pub detail: String,
    /// Markdown.
    pub doc: String,
    /// Sorts before the others (kernel intrinsics inside kernels, host API outside).
    pub preferred: bool,
}

const fn helper(path: &'static str, min: u8, max: u8, signature: &'static str, doc: &'static str) -> Intrinsic {
    Intrinsic { path, kind: IntrinsicKind::Function { min, max }, signature, doc }
}

/// `numba.cuda.random`: xoroshiro128+ generator states and the device functions that draw from them.
pub static RANDOM_HELPERS: &[Intrinsic] = &[
    helper(
        "random.create_xoroshiro128p_states",
        2,
        4,
        "random.create_xoroshiro128p_states(n, seed, subsequence_start=0, stream=0) -> DeviceNDArray",
        "Host: allocate and seed `n` generator states on the device, one per thread that draws numbers.",
    ),
    helper(
        "random.init_xoroshiro128p_states",
        2,
        4,
        "random.init_xoroshiro128p_states(states, seed, subsequence_start=0, stream=0) -> none",
        "Host: re-seed existing states; each state starts 2**64 steps after the previous one.",
    ),
    helper(
        "random.xoroshiro128p_uniform_float32",
        2,
        2,
        "random.xoroshiro128p_uniform_float32(states, index) -> float32",
        "Uniform float32 in [0, 1) from `states[index]`, advancing it. Use one index per thread.",
    ),
    helper(
        "random.xoroshiro128p_uniform_float64",
        2,
        2,
        "random.xoroshiro128p_uniform_float64(states, index) -> float64",
        "Uniform float64 in [0, 1) from `states[index]`, advancing it.",
    ),
    helper(
        "random.xoroshiro128p_normal_float32",
        2,
        2,
        "random.xoroshiro128p_normal_float32(states, index) -> float32",
        "Standard normal float32 (Box-Muller) from `states[index]`, advancing it.",
    ),
    helper(
        "random.xoroshiro128p_normal_float64",
        2,
        2,
        "random.xoroshiro128p_normal_float64(states, index) -> float64",
        "Standard normal float64 (Box-Muller) from `states[index]`, advancing it.",
    ),
    helper(
        "random.xoroshiro128p_next",
        2,
        2,
        "random.xoroshiro128p_next(states, index) -> uint64",
        "The next raw 64 random bits of `states[index]`.",
    ),
    helper(
        "random.xoroshiro128p_jump",
        2,
        2,
        "random.xoroshiro128p_jump(states, index) -> none",
        "Advance `states[index]` by 2**64 steps (a non-overlapping subsequence).",
    ),
];

/// A `numba.cuda` member for hovers, completion and signature help: the intrinsics, the
/// float16 operations and the `cuda.random` helpers.
pub fn member(path: &str) -> Option<Intrinsic> {
    RANDOM_HELPERS.iter().find(|h| h.path == path).copied().or_else(|| crate::analysis::intrinsics::lookup(path))
}

/// The signature of a float16 operation, `fp16.hadd(a, b) -> float16`.
pub fn fp16_signature(name: &str) -> Option<String> {
    let params = if FP16_UNARY.contains(&name) {
        "x"
    } else if FP16_BINARY.contains(&name) {
        "a, b"
    } else if name == "hfma" {
        "a, b, c"
    } else {
        return None;
    };
    let ret = if ["heq", "hne", "hgt", "hge", "hlt", "hle"].contains(&name) {
        "bool"
    } else {
        "float16"
    };
    Some(format!("fp16.{name}({params}) -> {ret}"))
}

fn entry(label: &str, i: &Intrinsic, preferred: bool) -> CompletionEntry {
    let kind = match i.kind {
        IntrinsicKind::Attribute => EntryKind::Attribute,
        IntrinsicKind::Namespace => EntryKind::Namespace,
        IntrinsicKind::Function { .. } => EntryKind::Function,
    };
    let detail = if i.signature.is_empty() { format!("cuda.{}", i.path) } else { format!("cuda.{}", i.signature) };
    CompletionEntry { label: label.to_string(), kind, detail, doc: i.doc.to_string(), preferred }
}

/// Completions at `offset` when it follows `<chain>.` (and perhaps part of a name) where the
/// chain denotes `numba.cuda` or one of its namespaces. Empty anywhere else.
pub fn completions(db: &dyn Db, file: SourceFile, offset: TextSize) -> Vec<CompletionEntry> {
    let text = file.text(db);
    let offset = usize::from(offset).min(text.len());
    if !text.is_char_boundary(offset) {
        return Vec::new();
    }
    let line_start = text[..offset].rfind('\n').map_or(0, |i| i + 1);
    let line = &text[line_start..offset];
    if in_comment_or_string(line) {
        return Vec::new();
    }
    let typed = dotted_before(text, offset);
    let Some((chain, _partial)) = typed.rsplit_once('.') else { return Vec::new() };
    if chain.is_empty() {
        return Vec::new();
    }
    let Some(path) = resolve_chain(db, file, chain) else { return Vec::new() };
    let in_gpu_code = enclosing_function(db, file, TextSize::try_from(offset).unwrap_or_default()).is_some();
    members(&path, in_gpu_code)
}

/// The members of a `numba` path, as completion entries.
pub fn members(path: &str, in_gpu_code: bool) -> Vec<CompletionEntry> {
    if path == "numba" {
        return vec![CompletionEntry {
            label: "cuda".into(),
            kind: EntryKind::Namespace,
            detail: "numba.cuda".into(),
            doc: "Numba's CUDA target: kernels, device functions and their intrinsics.".into(),
            preferred: true,
        }];
    }
    let Some(ns) = path.strip_prefix("numba.cuda") else { return Vec::new() };
    let ns = ns.strip_prefix('.').unwrap_or(ns);
    if ns.starts_with('.') || (!ns.is_empty() && ns.contains('.')) {
        return Vec::new();
    }
    let mut out = Vec::new();
    match ns {
        "" => {
            for i in INTRINSICS.iter().filter(|i| !i.path.contains('.')) {
                out.push(entry(i.path, i, in_gpu_code));
            }
            for name in HOST_API {
                out.push(CompletionEntry {
                    label: name.to_string(),
                    kind: EntryKind::Function,
                    detail: format!("cuda.{name}"),
                    doc: "Host-side `numba.cuda` API: use it outside kernels.".into(),
                    preferred: !in_gpu_code,
                });
            }
        }
        "fp16" => {
            for name in FP16_UNARY.iter().chain(FP16_BINARY).chain(["hfma"].iter()) {
                let signature = fp16_signature(name).unwrap_or_default();
                out.push(CompletionEntry {
                    label: name.to_string(),
                    kind: EntryKind::Function,
                    detail: format!("cuda.{signature}"),
                    doc: "float16 arithmetic or math function; arguments are converted to float16.".into(),
                    preferred: true,
                });
            }
        }
        "libdevice" => {
            for name in crate::analysis::libdevice::names() {
                if let Some(i) = crate::analysis::intrinsics::lookup(&format!("libdevice.{name}")) {
                    out.push(entry(name, &i, true));
                }
            }
        }
        "random" => {
            for h in RANDOM_HELPERS {
                let device = !h.doc.starts_with("Host:");
                out.push(entry(&h.path["random.".len()..], h, device == in_gpu_code));
            }
        }
        ns => {
            let prefix = format!("{ns}.");
            for i in INTRINSICS.iter().filter(|i| i.path.starts_with(&prefix)) {
                out.push(entry(&i.path[prefix.len()..], i, true));
            }
        }
    }
    out
}

/// Whether the end of `line` is inside a comment or a string literal (quotes counted on the line).
fn in_comment_or_string(line: &str) -> bool {
    let mut quote: Option<char> = None;
    let mut chars = line.chars();
    while let Some(c) = chars.next() {
        match quote {
            Some(q) if c == q => quote = None,
            Some(_) if c == '\\' => {
                chars.next();
            }
            Some(_) => {}
            None if c == '#' => return true,
            None if c == '\'' || c == '"' => quote = Some(c),
            None => {}
        }
    }
    quote.is_some()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn namespaces() {
        let atomic: Vec<_> = members("numba.cuda.atomic", true).into_iter().map(|e| e.label).collect();
        assert!(atomic.contains(&"add".to_string()) && atomic.contains(&"cas".to_string()));
        assert!(members("numba.cuda.fp16", true).iter().any(|e| e.label == "hfma"));
        assert!(members("numba.cuda.random", true).iter().any(|e| e.label == "xoroshiro128p_uniform_float32"));
        assert!(members("numba.cuda.shared", true).iter().any(|e| e.label == "array"));
        let libdevice = members("numba.cuda.libdevice", true);
        assert_eq!(libdevice.len(), 317);
        let sincosf = libdevice.iter().find(|e| e.label == "sincosf").unwrap();
        assert_eq!(sincosf.detail, "cuda.libdevice.sincosf(x: float32) -> UniTuple(float32 x 2)");
        assert!(members("numba.cuda.threadIdx.x", true).is_empty());
        assert!(in_comment_or_string("x = 1  # cuda."));
        assert!(in_comment_or_string("s = 'cuda."));
        assert!(!in_comment_or_string("s = 'a' + cuda."));
        assert_eq!(fp16_signature("hadd").unwrap(), "fp16.hadd(a, b) -> float16");
        assert_eq!(fp16_signature("heq").unwrap(), "fp16.heq(a, b) -> bool");
    }
}
