//! Thread-aware facts about GPU functions, as plain data (salsa queries): which values vary
//! per thread ([`uniformity`]), which device functions are barriers ([`barriers`]), how
//! kernels are launched ([`launch`]), whether two accesses may meet in one shared-memory slot
//! ([`slots`]), and module-level arrays captured as constants ([`const_arrays`]).
//!
//! Written over the AST for now; every fact is keyed by item-relative ranges and names, so
//! the analyses can move onto the CFG IR without changing what rules read.

pub mod barriers;
pub mod chain;
pub mod const_arrays;
pub mod launch;
pub mod slots;
pub mod uniformity;
