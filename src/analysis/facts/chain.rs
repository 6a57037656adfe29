//! A persistent list: the guards and thread-dependent conditions over an access.

use std::fmt;
use std::hash::{Hash, Hasher};
use std::sync::Arc;

/// A list that copies in O(1) and shares its items with its copies: pushing onto a copy
/// leaves the original as it was. The clauses of a long `if/elif` chain each add one guard
/// to the previous clause's, and every access under them keeps the list it ran under, so
/// with a plain `Vec` each clause and each access would hold its own copy of the whole
/// prefix. Iterates oldest first, as the `Vec` it replaces did.
pub struct Chain<T> {
    last: Option<Arc<Link<T>>>,
    len: usize,
}

struct Link<T> {
    item: T,
    before: Option<Arc<Link<T>>>,
}

impl<T> Chain<T> {
    pub fn new() -> Self {
        Chain { last: None, len: 0 }
    }

    pub fn len(&self) -> usize {
        self.len
    }

    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    pub fn push(&mut self, item: T) {
        let before = self.last.take();
        self.last = Some(Arc::new(Link { item, before }));
        self.len += 1;
    }

    /// The item pushed last.
    pub fn last(&self) -> Option<&T> {
        self.last.as_deref().map(|link| &link.item)
    }

    /// The items, oldest first.
    pub fn iter(&self) -> std::vec::IntoIter<&T> {
        let mut items = Vec::with_capacity(self.len);
        let mut at = self.last.as_deref();
        while let Some(link) = at {
            items.push(&link.item);
            at = link.before.as_deref();
        }
        items.reverse();
        items.into_iter()
    }
}

impl<T> Default for Chain<T> {
    fn default() -> Self {
        Chain::new()
    }
}

impl<T> Clone for Chain<T> {
    fn clone(&self) -> Self {
        Chain { last: self.last.clone(), len: self.len }
    }
}

// Unlinked one at a time: the default drop would recurse once per item, and a chain of
// many thousand clauses would run out of stack.
impl<T> Drop for Chain<T> {
    fn drop(&mut self) {
        let mut at = self.last.take();
        while let Some(link) = at {
            match Arc::try_unwrap(link) {
                Ok(mut link) => at = link.before.take(),
                Err(_) => break,
            }
        }
    }
}

impl<T> FromIterator<T> for Chain<T> {
    fn from_iter<I: IntoIterator<Item = T>>(items: I) -> Self {
        let mut chain = Chain::new();
        for item in items {
            chain.push(item);
        }
        chain
    }
}

impl<'c, T> IntoIterator for &'c Chain<T> {
    type Item = &'c T;
    type IntoIter = std::vec::IntoIter<&'c T>;

    fn into_iter(self) -> Self::IntoIter {
        self.iter()
    }
}

impl<T: PartialEq> PartialEq for Chain<T> {
    fn eq(&self, other: &Self) -> bool {
        let same = match (&self.last, &other.last) {
            (Some(a), Some(b)) => Arc::ptr_eq(a, b),
            (None, None) => true,
            _ => false,
        };
        self.len == other.len && (same || self.iter().eq(other.iter()))
    }
}

impl<T: Eq> Eq for Chain<T> {}

impl<T: Hash> Hash for Chain<T> {
    fn hash<H: Hasher>(&self, state: &mut H) {
        self.len.hash(state);
        for item in self {
            item.hash(state);
        }
    }
}

impl<T: fmt::Debug> fmt::Debug for Chain<T> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_list().entries(self.iter()).finish()
    }
}

