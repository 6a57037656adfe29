//! The language server (`kernlint server`), the only module that knows LSP types.
//!
//! Documents live as ropes; each edit is applied in arrival order under one lock (never
//! held across an `.await`) and then set on the salsa database. Requests work on a clone
//! of the database (a snapshot) off the async runtime; a newer edit cancels them through
//! salsa, and a panic in a handler becomes an error response, never a dead server.

mod framing;
mod position;
mod server;

pub use server::run;
