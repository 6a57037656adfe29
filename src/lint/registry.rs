//! The rule registry. Each rule's documentation is the `//!` comment at the top of its
//! file, read at compile time, so `kernlint rule CODE` prints exactly what the source says.

use super::context::ItemContext;
use super::diagnostic::Diagnostic;
use super::rules;

pub type Check = fn(&ItemContext, &mut Vec<Diagnostic>);

pub struct Rule {
    pub code: &'static str,
    /// Kebab-case name, from the rule's file name.
    pub name: &'static str,
    source: &'static str,
    /// `None` for findings made elsewhere (syntax errors).
    pub check: Option<Check>,
}

impl Rule {
    /// The rule's documentation: its file's `//!` comment.
    pub fn doc(&self) -> String {
        self.source
            .lines()
            .take_while(|l| l.starts_with("//!"))
            .map(|l| l.strip_prefix("//! ").or_else(|| l.strip_prefix("//!")).unwrap_or(""))
            .collect::<Vec<_>>()
            .join("\n")
    }

    /// The first line of the documentation.
    pub fn summary(&self) -> String {
        self.doc().lines().next().unwrap_or("").trim_start_matches("# ").to_string()
    }

    /// A link to the rule's documentation.
    pub fn url(&self) -> String {
        format!("https://github.com/kernlint/kernlint/blob/main/src/lint/rules/{}.rs", self.file_stem())
    }

    fn file_stem(&self) -> String {
        format!("{}_{}", self.code.to_lowercase(), self.name.replace('-', "_"))
    }
}

macro_rules! rule {
    ($code:literal, $module:ident, $name:literal) => {
        Rule {
            code: $code,
            name: $name,
            source: include_str!(concat!("rules/", stringify!($module), ".rs")),
            check: Some(rules::$module::check),
        }
    };
}

pub static RULES: &[Rule] = &[
    Rule {
        code: "KL001",
        name: "syntax-error",
        source: include_str!("rules/kl001_syntax_error.rs"),
        check: None,
    },
    rule!("KL100", kl100_invalid_signature, "invalid-signature"),
    rule!("KL101", kl101_kernel_returns_value, "kernel-returns-value"),
    rule!("KL102", kl102_unsupported_construct, "unsupported-construct"),
    rule!("KL103", kl103_non_constant_shape, "non-constant-shape"),
    rule!("KL104", kl104_numpy_function_in_kernel, "numpy-function-in-kernel"),
    rule!("KL105", kl105_launch_without_configuration, "launch-without-configuration"),
    rule!("KL106", kl106_wrong_kind_of_call, "wrong-kind-of-call"),
    rule!("KL107", kl107_unknown_intrinsic, "unknown-intrinsic"),
    rule!("KL108", kl108_unsupported_atomic_dtype, "unsupported-atomic-dtype"),
    rule!("KL109", kl109_invalid_launch_configuration, "invalid-launch-configuration"),
    rule!("KL110", kl110_typing_error, "typing-error"),
    rule!("KL201", kl201_barrier_divergence, "barrier-divergence"),
    rule!("KL202", kl202_shared_memory_race, "shared-memory-race"),
    rule!("KL203", kl203_non_atomic_update, "non-atomic-update"),
    rule!("KL204", kl204_warp_synchronous_code, "warp-synchronous-code"),
    rule!("KL205", kl205_grid_dependence_without_grid_sync, "grid-dependence-without-grid-sync"),
    rule!("KL206", kl206_rng_state_not_unique, "rng-state-not-unique"),
    rule!("KL301", kl301_missing_bounds_guard, "missing-bounds-guard"),
    rule!("KL302", kl302_suspicious_guard, "suspicious-guard"),
    rule!("KL303", kl303_halo_out_of_bounds, "halo-out-of-bounds"),
    rule!("KL304", kl304_uninitialized_shared_read, "uninitialized-shared-read"),
    rule!("KL305", kl305_aliased_dynamic_shared, "aliased-dynamic-shared"),
    rule!("KL306", kl306_uninitialized_local_read, "uninitialized-local-read"),
    rule!("KL307", kl307_possibly_unassigned_variable, "possibly-unassigned-variable"),
    rule!("KL308", kl308_grid_rounded_down, "grid-rounded-down"),
    rule!("KL401", kl401_float64_promotion, "float64-promotion"),
    rule!("KL402", kl402_host_arrays_in_launch_loop, "host-arrays-in-launch-loop"),
    rule!("KL403", kl403_launch_configuration_performance, "launch-configuration-performance"),
    rule!("KL404", kl404_uncoalesced_access, "uncoalesced-access"),
    rule!("KL405", kl405_oversized_constant_array, "oversized-constant-array"),
    rule!("KL406", kl406_widened_32_bit_integer, "widened-32-bit-integer"),
    rule!("KL501", kl501_silent_assert, "silent-assert"),
];

pub fn rule_by_code(code: &str) -> Option<&'static Rule> {
    RULES.iter().find(|r| r.code.eq_ignore_ascii_case(code))
}
