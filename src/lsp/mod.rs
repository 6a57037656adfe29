//! The language server, the only module that knows LSP types. Arrives with the server issue.
