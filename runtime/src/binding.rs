//! Objects bound to the variables of one scope, kept without allocation:
//! what every layer of the engine (tables, plans, propagation) passes
//! around. A leaf: it imports only the model's variable index and object
//! ids.

use crate::backbone::ObjectId;
use crate::model::limits::MAX_VARS;
use crate::model::Var;

/// Objects bound to the variables of one scope.
#[derive(Clone, Copy)]
pub(crate) struct Binding {
    pub objects: [ObjectId; MAX_VARS],
    pub bound: u32,
}

impl Binding {
    pub fn empty() -> Binding {
        Binding {
            objects: [0; MAX_VARS],
            bound: 0,
        }
    }

    pub fn is_bound(&self, var: Var) -> bool {
        self.bound & (1 << var) != 0
    }

    /// Binds `var`, or says it is already bound to another object.
    pub fn bind(&mut self, var: Var, object: ObjectId) -> bool {
        if self.is_bound(var) {
            return self.objects[var as usize] == object;
        }
        self.objects[var as usize] = object;
        self.bound |= 1 << var;
        true
    }

    pub fn args(&self, vars: &[Var]) -> ArgBuf {
        let mut buf = ArgBuf {
            objects: [0; MAX_VARS],
            len: vars.len(),
        };
        for (i, &v) in vars.iter().enumerate() {
            buf.objects[i] = self.objects[v as usize];
        }
        buf
    }
}

/// A small tuple of objects without allocation.
pub(crate) struct ArgBuf {
    objects: [ObjectId; MAX_VARS],
    len: usize,
}

impl ArgBuf {
    pub const EMPTY: ArgBuf = ArgBuf {
        objects: [0; MAX_VARS],
        len: 0,
    };
}

impl std::ops::Deref for ArgBuf {
    type Target = [ObjectId];
    fn deref(&self) -> &[ObjectId] {
        &self.objects[..self.len]
    }
}

/// Variables `0..n`, the parameters of a counter.
pub(crate) const PARAM_VARS: [Var; MAX_VARS] =
    [0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15];
