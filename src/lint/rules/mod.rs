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
pub mod kl108_unsupported_atomic_dtype;
pub mod kl109_invalid_launch_configuration;
pub mod kl110_typing_error;
pub mod kl201_barrier_divergence;
pub mod kl202_shared_memory_race;
pub mod kl203_non_atomic_update;
pub mod kl204_warp_synchronous_code;
pub mod kl205_grid_dependence_without_grid_sync;
pub mod kl206_rng_state_not_unique;
pub mod kl301_missing_bounds_guard;
pub mod kl302_suspicious_guard;
pub mod kl303_halo_out_of_bounds;
pub mod kl304_uninitialized_shared_read;
pub mod kl305_aliased_dynamic_shared;
pub mod kl306_uninitialized_local_read;
pub mod kl307_possibly_unassigned_variable;
pub mod kl308_grid_rounded_down;
pub mod kl401_float64_promotion;
pub mod kl402_host_arrays_in_launch_loop;
pub mod kl403_launch_configuration_performance;
pub mod kl404_uncoalesced_access;
pub mod kl405_oversized_constant_array;
pub mod kl406_widened_32_bit_integer;
pub mod kl501_silent_assert;
