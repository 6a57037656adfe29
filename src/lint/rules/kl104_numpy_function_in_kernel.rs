//! # TODO
use crate::lint::{Diagnostic, ItemContext};

pub fn check(_ctx: &ItemContext, _out: &mut Vec<Diagnostic>) {}
