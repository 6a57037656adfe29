//! Text -> facts. Knows nothing of the CLI or the LSP: everything here is plain data.
//!
//! The salsa database holds one input per source file. Queries split a module into
//! top-level items whose facts are keyed by the item's own text, so editing one
//! function does not recompute the facts of the others (see `items`).

pub mod bindings;
pub mod db;
pub mod facts;
pub mod host_arrays;
pub mod host_types;
pub mod hover;
pub mod ide;
pub mod intrinsics;
pub mod ir;
pub mod items;
pub mod kernels;
pub mod host_eval;
pub mod launch_extents;
pub mod launches;
pub mod libdevice;
pub mod match_stmt;
pub mod message;
mod misindented;
pub mod notebook;
pub mod resolve;
pub mod scope;
pub mod shift;
pub mod signature;
pub mod syntax;
pub mod types;
pub mod typing;

pub use db::{Db, RootDatabase, SourceFile, Workspace};
