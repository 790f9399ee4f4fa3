//! What the front-end reads of a C file: the kernel's loops, statements
//! and accesses, with affine expressions over iterators and parameters.

use std::fmt;
use std::ops::Range;

/// A loop of the nest.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct LoopId(pub usize);

/// A statement of the nest, numbered in textual order.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct StatementId(pub usize);

/// What an affine expression's terms range over.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Variable {
    /// The iterator of a loop.
    Iterator(LoopId),
    /// A symbolic constant: an identifier (or macro) bound outside the
    /// region, by index into [`Kernel::params`].
    Param(usize),
}

/// `constant + sum(coefficient * variable)`.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Affine {
    /// The constant term.
    pub constant: i64,
    /// Sorted by variable, without zero coefficients.
    pub terms: Vec<(Variable, i64)>,
}

impl Affine {
    /// A constant.
    pub fn constant(value: i64) -> Affine {
        Affine {
            constant: value,
            terms: Vec::new(),
        }
    }

    /// One variable.
    pub fn variable(variable: Variable) -> Affine {
        Affine {
            constant: 0,
            terms: vec![(variable, 1)],
        }
    }

    /// `self + sign * other`, `None` on overflow.
    pub fn add(mut self, other: &Affine, sign: i64) -> Option<Affine> {
        self.constant = self
            .constant
            .checked_add(other.constant.checked_mul(sign)?)?;
        for &(variable, coefficient) in &other.terms {
            let coefficient = coefficient.checked_mul(sign)?;
            match self.terms.iter_mut().find(|(v, _)| *v == variable) {
                Some((_, c)) => *c = c.checked_add(coefficient)?,
                None => self.terms.push((variable, coefficient)),
            }
        }
        self.terms.retain(|(_, c)| *c != 0);
        self.terms.sort();
        Some(self)
    }

    /// `factor * self`, `None` on overflow.
    pub fn scale(mut self, factor: i64) -> Option<Affine> {
        self.constant = self.constant.checked_mul(factor)?;
        for (_, c) in &mut self.terms {
            *c = c.checked_mul(factor)?;
        }
        self.terms.retain(|(_, c)| *c != 0);
        Some(self)
    }

    /// The value if the expression has no variable.
    pub fn as_constant(&self) -> Option<i64> {
        self.terms.is_empty().then_some(self.constant)
    }

    /// Whether the expression reads a loop's iterator (not only
    /// parameters and constants).
    pub fn reads_iterators(&self) -> bool {
        self.terms
            .iter()
            .any(|(v, _)| matches!(v, Variable::Iterator(_)))
    }

    /// The coefficient of a variable.
    pub fn coefficient(&self, variable: Variable) -> i64 {
        self.terms
            .iter()
            .find(|(v, _)| *v == variable)
            .map_or(0, |(_, c)| *c)
    }

    /// Written with the kernel's names, in the C iterators: a counter of
    /// a loop that counts down is `first - i`.
    pub fn display(&self, kernel: &Kernel) -> String {
        // (name, coefficient), iterators by loop then parameters.
        let mut named: Vec<((usize, usize), String, i64)> = Vec::new();
        let mut constant = i128::from(self.constant);
        fn add(
            kernel: &Kernel,
            affine: &Affine,
            factor: i128,
            named: &mut Vec<((usize, usize), String, i64)>,
            constant: &mut i128,
        ) {
            for &(variable, coefficient) in &affine.terms {
                let c = factor * i128::from(coefficient);
                let (key, name, c) = match variable {
                    Variable::Param(p) => ((1, p), kernel.params[p].clone(), c),
                    Variable::Iterator(l) => match &kernel.loops[l.0].direction {
                        Direction::Up => ((0, l.0), kernel.loops[l.0].iterator.clone(), c),
                        Direction::Down { first } => {
                            // counter = first - iterator
                            *constant += c * i128::from(first.constant);
                            add(
                                kernel,
                                &Affine {
                                    constant: 0,
                                    ..first.clone()
                                },
                                c,
                                named,
                                constant,
                            );
                            ((0, l.0), kernel.loops[l.0].iterator.clone(), -c)
                        }
                        // No affine expression of the iterator: the
                        // counter, by its name.
                        Direction::Strided { .. } => {
                            ((0, l.0), kernel.loops[l.0].counter_name(), c)
                        }
                    },
                };
                let c = i64::try_from(c).unwrap_or(i64::MAX);
                match named.iter_mut().find(|(k, _, _)| *k == key) {
                    Some((_, _, total)) => *total = total.saturating_add(c),
                    None => named.push((key, name, c)),
                }
            }
        }
        add(
            kernel,
            &Affine {
                constant: 0,
                ..self.clone()
            },
            1,
            &mut named,
            &mut constant,
        );
        named.retain(|(_, _, c)| *c != 0);
        named.sort_by_key(|(key, _, _)| *key);
        let mut out = String::new();
        for (_, name, coefficient) in named {
            let magnitude = coefficient.unsigned_abs();
            let term = if magnitude == 1 {
                name
            } else {
                format!("{magnitude}*{name}")
            };
            out = match (out.is_empty(), coefficient < 0) {
                (true, false) => term,
                (true, true) => format!("-{term}"),
                (false, negative) => format!("{out} {} {term}", if negative { "-" } else { "+" }),
            };
        }
        match (out.is_empty(), constant) {
            (true, c) => c.to_string(),
            (false, 0) => out,
            (false, c) => format!(
                "{out} {} {}",
                if c < 0 { "-" } else { "+" },
                c.unsigned_abs()
            ),
        }
    }
}

/// A C loop read as a counter that runs up by one, `for (c = lower; c <
/// upper; c++)`, the upper bound exclusive (`<= u` is read as `< u + 1`).
/// Every affine expression of the kernel reads the counter
/// ([`Variable::Iterator`]); the C iterator is the counter itself for a
/// loop that counts up, and `first - counter` for one that counts down, so
/// the analysis and the space see every loop run forwards.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Loop {
    /// The C iterator's name.
    pub iterator: String,
    /// The counter's first value.
    pub lower: Affine,
    /// One past the counter's last value.
    pub upper: Affine,
    /// How the C iterator follows the counter.
    pub direction: Direction,
    /// The enclosing loop.
    pub parent: Option<LoopId>,
    /// The `for` statement is inside an `if` (or `else`) of its parent's
    /// body (or of the region): no band of directives goes through it.
    pub guarded: bool,
    /// Byte span of the `for` statement in the file.
    pub span: Range<usize>,
}

/// Which way a C loop runs.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Direction {
    /// `for (i = lower; i < upper; i++)`: the iterator is the counter.
    Up,
    /// `for (i = first; i >= last; i--)`: the iterator is `first -
    /// counter`, the counter running from 0 to `first - last`.
    Down {
        /// The iterator's first value, over the enclosing counters and the
        /// parameters.
        first: Affine,
    },
    /// `for (i = first; i < end; i += step)` (`i -= step` going down,
    /// `step` negative): the iterator is `first + step * counter`, the
    /// counter running from 0 to the number of steps.
    Strided {
        /// The iterator's first value, over the enclosing counters and the
        /// parameters.
        first: Affine,
        /// What each iteration adds to the iterator (neither 0, 1 nor -1).
        step: i64,
    },
}

impl Loop {
    /// The C iterator as an affine expression of the counters (`id` is
    /// this loop's own).
    pub fn iterator_value(&self, id: LoopId) -> Affine {
        let counter = Affine::variable(Variable::Iterator(id));
        match &self.direction {
            Direction::Up => counter,
            Direction::Down { first } => first.clone().add(&counter, -1).unwrap_or(counter),
            Direction::Strided { first, step } => first
                .clone()
                .add(&counter.clone().scale(*step).unwrap_or(counter.clone()), 1)
                .unwrap_or(counter),
        }
    }

    /// The name the counter is shown by: the iterator's, primed for a
    /// loop that counts down or steps by more than one (`i'`, with `i =
    /// first - i'` or `i = first + step * i'`).
    pub fn counter_name(&self) -> String {
        match self.direction {
            Direction::Up => self.iterator.clone(),
            Direction::Down { .. } | Direction::Strided { .. } => format!("{}'", self.iterator),
        }
    }

    /// Whether the loop counts down by one.
    pub fn is_down(&self) -> bool {
        matches!(self.direction, Direction::Down { .. })
    }
}

/// One reference to an array element or a scalar.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Access {
    /// The array or scalar.
    pub name: String,
    /// Empty for a scalar.
    pub subscripts: Vec<Affine>,
    /// Byte span of the access in the file.
    pub span: Range<usize>,
}

impl Access {
    /// Whether a subscript reads loop `l`'s iterator.
    pub fn reads_loop(&self, l: LoopId) -> bool {
        self.subscripts
            .iter()
            .any(|a| a.coefficient(Variable::Iterator(l)) != 0)
    }

    /// Whether the last subscript reads loop `l`'s iterator: the elements
    /// it reaches along `l` are contiguous (or a constant stride apart).
    pub fn contiguous_in(&self, l: LoopId) -> bool {
        self.subscripts
            .last()
            .is_some_and(|a| a.coefficient(Variable::Iterator(l)) != 0)
    }
}

/// An assignment: `target op= expression;`.
///
/// One C statement may give several: a chained assignment `a = b = e;`
/// is `b = e;` then `a = b;`, and a statement under an `else` (the
/// negation of a conjunction is a union) is one statement per disjoint
/// piece of its domain. They share the C statement's span and are
/// numbered in the order they run.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Statement {
    /// Enclosing loops, outermost first.
    pub loops: Vec<LoopId>,
    /// Conditions `g >= 0` over the enclosing counters and the parameters
    /// that an instance must meet besides its loops' bounds: the affine
    /// conditions of the `if` statements around it.
    pub guards: Vec<Affine>,
    /// The element or scalar assigned.
    pub write: Access,
    /// Every element or scalar read, the target included for `+=` and the
    /// like (and for an assignment under a condition that reads array
    /// values: the target may keep its value).
    pub reads: Vec<Access>,
    /// The C code that runs an instance, its iterators in scope: the
    /// assignment, under the `if` of a condition that reads array values.
    pub code: String,
    /// The assignment's form when it combines its target with an operand
    /// by an associative operator (`x += e`, `x = x * e`): what makes it a
    /// reduction candidate ([`Kernel::reduction`] says whether it is one).
    pub update: Option<Update>,
    /// Byte span of the C statement in the file.
    pub span: Range<usize>,
}

impl Statement {
    /// Whether the statement reads or writes scalar `name`.
    pub fn touches_scalar(&self, name: &str) -> bool {
        std::iter::once(&self.write)
            .chain(&self.reads)
            .any(|a| a.subscripts.is_empty() && a.name == name)
    }
}

/// The associative operator a reduction combines its updates with.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Combiner {
    /// `+` (an update `x += e`, `x -= e`, `x = x + e`, `x = x - e`).
    Sum,
    /// `*` (`x *= e`, `x = x * e`).
    Product,
    /// The larger (`if (e > x) x = e;`): exact in any order.
    Max,
    /// The smaller (`if (e < x) x = e;`).
    Min,
}

impl Combiner {
    /// Every combiner, in the order clauses list them.
    pub const ALL: [Combiner; 4] = [
        Combiner::Sum,
        Combiner::Product,
        Combiner::Max,
        Combiner::Min,
    ];

    /// The operator of OpenMP's `reduction` clause.
    pub fn clause_operator(self) -> &'static str {
        match self {
            Combiner::Sum => "+",
            Combiner::Product => "*",
            Combiner::Max => "max",
            Combiner::Min => "min",
        }
    }

    /// The value a private accumulator of `target` starts from: the sum's
    /// and the product's identity; the target's own value for the larger
    /// or smaller (combining a value with itself changes nothing, and no
    /// constant is the identity of every type).
    pub fn initial(self, target: &str) -> String {
        match self {
            Combiner::Sum => "0".to_string(),
            Combiner::Product => "1".to_string(),
            Combiner::Max | Combiner::Min => target.to_string(),
        }
    }

    /// The statement combining `value` into `target`: `target += value;`,
    /// `if (value > target) target = value;`.
    pub fn combined(self, target: &str, value: &str) -> String {
        match self {
            Combiner::Sum => format!("{target} += {value};"),
            Combiner::Product => format!("{target} *= {value};"),
            Combiner::Max => format!("if ({value} > {target}) {target} = {value};"),
            Combiner::Min => format!("if ({value} < {target}) {target} = {value};"),
        }
    }
}

/// An assignment read as `target = target OP operand`, the operand being
/// C text of the statement's (its iterators in scope).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Update {
    /// How updates combine.
    pub combiner: Combiner,
    /// The operand is subtracted (`x -= e`, `x = x - e`): still a sum.
    pub negated: bool,
    /// The operand's C text, as written.
    pub operand: String,
}

impl Update {
    /// The statement that applies the update to `target`: `target +=
    /// (operand);`, `-=` or `*=`; `if ((operand) > target) target =
    /// (operand);` for the larger.
    pub fn applied_to(&self, target: &str) -> String {
        match (self.combiner, self.negated) {
            (Combiner::Sum, true) => format!("{target} -= ({});", self.operand),
            (combiner, _) => combiner.combined(target, &format!("({})", self.operand)),
        }
    }
}

/// Where the region comes from.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum RegionKind {
    /// The lines between `#pragma scop` and `#pragma endscop`.
    Scop,
    /// One outermost `for` statement of a function, picked among the
    /// file's loop nests.
    Nest {
        /// The function the nest is in.
        function: String,
    },
}

/// A scalar declared inside the region (`double sum = 0.0;`): read as a
/// statement assigning it, the declaration itself moved to the top of the
/// region where the explicit code needs it there.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct LocalScalar {
    /// The variable.
    pub name: String,
    /// Its type, qualifiers other than the type's own left out (`double`).
    pub type_name: String,
    /// Declared at the region's top level (its scope goes on after the
    /// region), not inside one of its blocks.
    pub top_level: bool,
}

/// A scalar whose every read follows, in the same iteration of some loop,
/// an assignment of it at the start of that iteration, and whose value
/// nothing reads after the region: the iterations of those loops, and of
/// the loops around them, may each have their own copy.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct PrivateScalar {
    /// The variable.
    pub name: String,
    /// The loops whose iterations start by assigning it (the first of its
    /// accesses there in the text is an assignment directly in the
    /// loop's body, under no `if`, that does not read it), in textual
    /// order; every statement that touches it is inside at least one.
    pub loops: Vec<LoopId>,
}

/// A read of an array element at a computed subscript (`b[ip[i]]`): an
/// array the nest never writes (nor may share memory with one it
/// writes), so that which element an instance reads cannot order it
/// against another. It is no [`Access`]: no dependence, footprint or
/// contiguity is derived from it; what its subscripts read (`ip[i]`) are
/// the statement's reads, and its text stays in the statement's code.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Gather {
    /// The array read.
    pub name: String,
    /// Byte span of the whole read (`b[ip[i]]`) in the file.
    pub span: Range<usize>,
}

/// A scalar accumulator the front-end replaced by the element its sum was
/// stored to (`s = 0; for k: s += e; C[i][j] = s;` read as `C[i][j] = 0;
/// for k: C[i][j] += e;`), in one loop whose iterations started by
/// assigning it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct InPlace {
    /// The scalar, as the source names it.
    pub scalar: String,
    /// The loop whose iterations assigned it first.
    pub loop_id: LoopId,
    /// The element, as the source writes it (`C[i][j]`).
    pub target: String,
    /// The statements that updated the scalar and now update the element.
    pub updates: Vec<StatementId>,
}

/// An array reached through a pointer with linearized subscripts
/// (`A[i * n + j]`), read with one subscript per dimension.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Linearized {
    /// The array.
    pub name: String,
    /// The sizes of its dimensions after the first, outermost first (by
    /// index into [`Kernel::params`]).
    pub sizes: Vec<usize>,
}

/// The loop nest of a C file.
#[derive(Clone, Debug)]
pub struct Kernel {
    /// The file's path as given, for messages.
    pub path: String,
    /// The whole file's text.
    pub source: String,
    /// Byte range of the region: between the two pragma lines, or the
    /// `for` statement of a nest.
    pub region: Range<usize>,
    /// How the region was found.
    pub region_kind: RegionKind,
    /// Symbolic constants used in bounds and subscripts, in order of first
    /// use.
    pub params: Vec<String>,
    /// The `for` loops, outer ones before the loops they enclose.
    pub loops: Vec<Loop>,
    /// In the order they run within one iteration (textual order).
    pub statements: Vec<Statement>,
    /// Scalars declared inside the region.
    pub locals: Vec<LocalScalar>,
    /// Arrays read with delinearized subscripts.
    pub linearized: Vec<Linearized>,
    /// Pairs of arrays (sorted names) that may share memory: pointers
    /// without `restrict`. Every access of one may touch any element of
    /// the other.
    pub aliasing: Vec<(String, String)>,
    /// Scalars private to the iterations of loops (temporaries assigned
    /// first in each iteration and dead after the region), in order of
    /// first write.
    pub private_scalars: Vec<PrivateScalar>,
    /// The scalar accumulators read as updates of the element they were
    /// stored to.
    pub in_place: Vec<InPlace>,
    /// Reads of arrays the nest never writes at subscripts that are not
    /// affine (`b[ip[i]]`, `x[col[i][j]]`), in textual order.
    pub gathers: Vec<Gather>,
}

impl Kernel {
    /// 1-based line and column of a byte offset.
    pub fn line_column(&self, offset: usize) -> (usize, usize) {
        line_column(&self.source, offset)
    }

    /// Whether two arrays may share memory (the same array, or a pair of
    /// [`Kernel::aliasing`]).
    pub fn may_alias(&self, a: &str, b: &str) -> bool {
        a == b || {
            let pair = if a < b { (a, b) } else { (b, a) };
            self.aliasing
                .iter()
                .any(|(x, y)| x.as_str() == pair.0 && y.as_str() == pair.1)
        }
    }

    /// A statement's place in the program text, for ordering: its C
    /// statement's start, then its number (the statements one C statement
    /// gives run in their numbers' order).
    pub fn textual_position(&self, statement: StatementId) -> (usize, usize) {
        (self.statements[statement.0].span.start, statement.0)
    }

    /// The loops around a statement, outermost first.
    pub fn loops_of(&self, statement: StatementId) -> &[LoopId] {
        &self.statements[statement.0].loops
    }

    /// Whether two different loops may be fused: at the same depth, with
    /// the same parent or fusable parents, and equal bounds (which then
    /// read only loops around both, or parameters).
    pub fn fusable(&self, a: LoopId, b: LoopId) -> bool {
        if a == b {
            return false;
        }
        let (la, lb) = (&self.loops[a.0], &self.loops[b.0]);
        let parents = match (la.parent, lb.parent) {
            (None, None) => true,
            (Some(pa), Some(pb)) => pa == pb || self.fusable(pa, pb),
            _ => false,
        };
        parents && la.lower == lb.lower && la.upper == lb.upper
    }

    /// The update a statement makes as a reduction: an associative
    /// update of its target (see [`Statement::update`]) whose operand
    /// reads nothing that may be the target's memory. Its instances may
    /// then run in any order (up to rounding: floating-point sums and
    /// products are reassociated).
    pub fn reduction(&self, statement: StatementId) -> Option<&Update> {
        let statement = self.statements.get(statement.0)?;
        let update = statement.update.as_ref()?;
        let mut aliasing = statement
            .reads
            .iter()
            .filter(|r| self.may_alias(&r.name, &statement.write.name));
        // Exactly one read of the target's memory: the target itself.
        let target = aliasing.next()?;
        let same =
            target.name == statement.write.name && target.subscripts == statement.write.subscripts;
        (same && aliasing.next().is_none()).then_some(update)
    }

    /// Whether the points of `x`'s tiles may index an array of
    /// accumulators of statement `s`'s reduction (a block held across a
    /// loop outside them, see `lowering::reductions::block`): a sum (the
    /// array starts at zero) over a loop whose tiles' points are a range
    /// known outside them ([`Kernel::independent_range`]: every point of
    /// the range updates its element).
    pub fn blockable(&self, s: StatementId, x: LoopId) -> bool {
        self.reduction(s)
            .is_some_and(|update| update.combiner == Combiner::Sum)
            && self.independent_range(s, x)
    }

    /// Whether loop `x` of statement `s` counts up from and to bounds
    /// that read no other loop, and no other loop's bounds and no
    /// condition of `s` read its iterator: the points of one of its tiles
    /// are a range known outside the loops inside the tile, every point of
    /// which runs `s`.
    pub fn independent_range(&self, s: StatementId, x: LoopId) -> bool {
        let (Some(statement), Some(lp)) = (self.statements.get(s.0), self.loops.get(x.0)) else {
            return false;
        };
        lp.direction == Direction::Up
            && !lp.lower.reads_iterators()
            && !lp.upper.reads_iterators()
            && statement.loops.contains(&x)
            && !statement.loops.iter().any(|&y| {
                let other = &self.loops[y.0];
                let reads = |a: &Affine| a.coefficient(Variable::Iterator(x)) != 0;
                reads(&other.lower)
                    || reads(&other.upper)
                    || matches!(&other.direction, Direction::Down { first } if reads(first))
            })
            && !statement
                .guards
                .iter()
                .any(|g| g.coefficient(Variable::Iterator(x)) != 0)
    }

    /// The arrays some statement reads and none writes, nor memory they
    /// may share, in order of first read: what a loop may copy into a
    /// local buffer.
    pub fn operands(&self) -> Vec<String> {
        let mut out: Vec<String> = Vec::new();
        for statement in &self.statements {
            for read in &statement.reads {
                let written = self
                    .statements
                    .iter()
                    .any(|t| self.may_alias(&t.write.name, &read.name));
                if !read.subscripts.is_empty() && !written && !out.contains(&read.name) {
                    out.push(read.name.clone());
                }
            }
        }
        out
    }

    /// The index among statement `s`'s reads of its one read of the
    /// operand `array`; `None` if it reads it (or memory it may share)
    /// not exactly once.
    pub fn single_read(&self, s: StatementId, array: &str) -> Option<usize> {
        let statement = self.statements.get(s.0)?;
        let mut reads = statement
            .reads
            .iter()
            .enumerate()
            .filter(|(_, r)| self.may_alias(&r.name, array));
        let (index, read) = reads.next()?;
        (read.name == array && reads.next().is_none()).then_some(index)
    }

    /// Whether scalar `name` may have a copy per iteration of loop `l`: it
    /// is private ([`PrivateScalar`]), and every statement inside `l` that
    /// touches it is inside one of its loops that is `l` or inside `l`.
    pub fn private_to(&self, name: &str, l: LoopId) -> bool {
        let Some(private) = self.private_scalars.iter().find(|p| p.name == name) else {
            return false;
        };
        let mut inside = self
            .statements
            .iter()
            .filter(|s| s.touches_scalar(name) && s.loops.contains(&l))
            .peekable();
        inside.peek().is_some()
            && inside.all(|s| {
                s.loops
                    .iter()
                    .any(|&x| private.loops.contains(&x) && self.loop_encloses(l, x))
            })
    }

    /// Whether loop `outer` encloses loop `inner` (or is it).
    pub fn loop_encloses(&self, outer: LoopId, inner: LoopId) -> bool {
        std::iter::successors(Some(inner), |l| self.loops[l.0].parent).any(|l| l == outer)
    }

    /// Whether a statement's target reads a loop's iterator.
    pub fn target_reads(&self, statement: StatementId, l: LoopId) -> bool {
        self.statements
            .get(statement.0)
            .is_some_and(|s| s.write.reads_loop(l))
    }

    /// The loops around both statements, outermost first.
    pub fn common_loops(&self, a: StatementId, b: StatementId) -> Vec<LoopId> {
        self.loops_of(a)
            .iter()
            .zip(self.loops_of(b))
            .take_while(|(x, y)| x == y)
            .map(|(x, _)| *x)
            .collect()
    }
}

/// Why a file's loop nest cannot be read.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct FrontendError {
    /// The file, as given.
    pub path: String,
    /// 1-based line of the construct.
    pub line: usize,
    /// 1-based column of the construct.
    pub column: usize,
    /// The construct, as a person would name it (`while loop`, `function
    /// call`).
    pub construct: String,
    /// Why it cannot be read, and what would do.
    pub message: String,
}

impl fmt::Display for FrontendError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "{}:{}:{}: {}: {}",
            self.path, self.line, self.column, self.construct, self.message
        )
    }
}

impl std::error::Error for FrontendError {}

pub(crate) fn line_column(source: &str, offset: usize) -> (usize, usize) {
    let before = &source[..offset.min(source.len())];
    let line = before.matches('\n').count() + 1;
    let column = before.len() - before.rfind('\n').map_or(0, |i| i + 1) + 1;
    (line, column)
}
