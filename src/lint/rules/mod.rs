//! One module per rule. Each starts with its documentation (`//!`): what it finds, why it
//! matters, an example, and the fix. `kernlint rule CODE` prints it; the examples are tested.

pub mod kl001_syntax_error;
pub mod kl100_invalid_signature;
pub mod kl101_kernel_returns_value;
pub mod kl102_unsupported_construct;
pub mod kl103_non_constant_shape;
pub mod kl104_numpy_function_in_kernel;
pub mod kl105_launch_without_configuration;
pub mod kl106_wrong_kind_of_call;
pub mod kl107_unknown_intrinsic;
pub mod kl109_invalid_launch_configuration;
pub mod kl501_silent_assert;
