//! The language server (`kernlint server`), the only module that knows LSP types.
//!
//! Documents live as ropes; each edit is applied in arrival order under one lock (never
//! held across an `.await`) and then set on the salsa database. Requests work on a clone
//! of the database (a snapshot) off the async runtime; a newer edit cancels them through
//! salsa, and a panic in a handler becomes an error response, never a dead server.
//!
//! Features: diagnostics, hover (types, intrinsic docs, kernel summaries), completion and
//! signature help for `cuda.*`, inlay hints (setting `kernlint.inlayHints.enable`), document
//! symbols, definition, references, code lenses and the custom requests `kernlint/ptx` and
//! `kernlint/run` (shapes in [`custom`]). The answers are computed by
//! `crate::analysis::{hover, ide}` as plain data and converted here.
//! [`serve`] runs the server over any pair of pipes; tests drive it in-process.

pub mod custom;
/// Public for the fuzz targets (fuzz/); not an API.
#[doc(hidden)]
pub mod framing;
mod position;
mod server;

pub use server::{run, serve};
