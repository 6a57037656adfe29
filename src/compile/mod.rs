//! IR -> PTX. Arrives with the compiler issue; nothing here yet.
