//! kernlint: static analysis, compilation and simulation for Numba CUDA kernels.
//!
//! Data flows one way: `analysis` (text -> facts) feeds `lint`, `compile` and `launch`;
//! the adapters (`cli`, `lsp`) sit on top and are the only layers that know their protocols.

pub mod analysis;
pub mod cli;
pub mod compile;
pub mod config;
pub mod launch;
pub mod lint;
pub mod lsp;
