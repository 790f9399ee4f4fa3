// The host of the GPU space: a kernel described as data (logical
// dimensions, instructions with their loop nests, arrays, memory blocks
// and the device's limits), the constructors of four linear-algebra
// kernels, and the trigger callbacks that add copies and spills. Included
// in `commute_spaces::gpu` next to the code generated from `gpu.space`.

use commute_runtime::{Action, ObjectId, Outcome};

/// The limits of the device a kernel runs on, given to the space as
/// properties.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Device {
    /// Most threads a thread block may hold.
    pub max_threads_per_block: i64,
    /// Thread indices a block offers.
    pub max_thread_dims: i64,
    /// Block indices a grid offers.
    pub max_block_dims: i64,
    /// Bytes of shared memory one thread block may use.
    pub shared_memory: i64,
    /// Registers one thread may use.
    pub max_registers: i64,
    /// Registers every thread needs whatever the decisions.
    pub base_registers: i64,
    /// Copies of one instruction the code generator may emit by
    /// unrolling.
    pub max_unroll: i64,
    /// Bytes one vector access may move.
    pub vector_bytes: i64,
}

impl Default for Device {
    /// A CUDA device of compute capability 3.0 to 9.0: 1024 threads per
    /// block over three indices, three grid indices, 48 KiB of shared
    /// memory per block without opting in, 255 registers per thread, and
    /// 16-byte vector accesses.
    fn default() -> Device {
        Device {
            max_threads_per_block: 1024,
            max_thread_dims: 3,
            max_block_dims: 3,
            shared_memory: 48 * 1024,
            max_registers: 255,
            base_registers: 16,
            max_unroll: 512,
            vector_bytes: 16,
        }
    }
}

/// An iteration space of the kernel before tiling.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Logical {
    /// Its name in the source (`i`, `j`, `k`).
    pub name: String,
    /// Number of iterations.
    pub extent: u64,
    /// Tile sizes each tile level allows (1 leaves the level unused).
    pub sizes: Vec<i64>,
    /// Tiling factors it allows: the product of its tile sizes.
    pub tilings: Vec<i64>,
    /// Tile levels in each nest.
    pub levels: usize,
    /// Its outer dimension, which every nest that iterates it shares.
    pub outer: usize,
    /// The tile dimensions of its reference nest (the first instruction
    /// that iterates it), outermost first.
    pub tiles: Vec<usize>,
}

/// Whose loop nest a dimension belongs to.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Nest {
    /// Every nest that iterates the logical dimension: its outer
    /// dimension. The space would fuse the outer dimensions of linked nests
    /// anyway (their size is only known at run time, so no value crosses
    /// them otherwise); sharing one saves the statements that every
    /// propagation, after each trigger, pays for.
    Shared,
    /// The nest of an instruction of the kernel.
    Inst(usize),
    /// The nest of the copies of a staged block.
    Copy(usize),
}

/// A dimension: one level of a logical dimension in one nest.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Dim {
    /// A readable name: the nest's, the logical dimension's and the level.
    pub name: String,
    /// Its statement id.
    pub id: ObjectId,
    /// The logical dimension it tiles.
    pub logical: usize,
    /// 0 for the outer dimension (of dynamic size), then the tile levels,
    /// outermost first.
    pub level: usize,
    /// The nest it belongs to.
    pub nest: Nest,
    /// An instruction of its nest (of any nest, for a shared outer
    /// dimension) accumulates along it.
    pub reduction: bool,
}

impl Dim {
    /// Whether its size is known when the kernel is compiled.
    pub fn is_static(&self) -> bool {
        self.level > 0
    }
}

/// What an instruction computes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Op {
    /// Reads an element of memory.
    Load,
    /// Writes an element of memory.
    Store,
    /// Sets an accumulator to zero.
    Init,
    /// Adds a product to an accumulator (its first operand).
    Fma,
}

/// Why an instruction is there.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Origin {
    /// An instruction of the kernel's source.
    Kernel,
    /// Part of the copy of a block into shared memory.
    CopyIn(usize),
    /// Part of the copy of a block out of shared memory.
    CopyOut(usize),
    /// Part of the spill of a value to a temporary block.
    Spill(usize),
}

/// What a memory access touches in global memory, for cache directives.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Storage {
    /// An array of the kernel.
    Array(usize),
    /// A temporary block lowering added.
    Temp(usize),
}

/// An instruction with its loop nest.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Inst {
    /// A readable name.
    pub name: String,
    /// Its statement id.
    pub id: ObjectId,
    /// What it computes.
    pub op: Op,
    /// Why it is there.
    pub origin: Origin,
    /// The dimensions it iterates over: outer dimensions and tiles.
    pub dims: Vec<usize>,
    /// The instructions whose values it reads.
    pub operands: Vec<usize>,
    /// The block a memory instruction accesses where the block is placed.
    pub block: Option<usize>,
    /// What a memory instruction touches in global memory when it does
    /// (the array of its block, or the copy's array, or a temporary).
    pub storage: Option<Storage>,
    /// The logical dimensions it accumulates along.
    pub reductions: Vec<usize>,
}

/// An array of the kernel, in global memory, row-major.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Array {
    /// Its name in the source.
    pub name: String,
    /// Bytes of one element.
    pub elem_bytes: i64,
    /// Whether the kernel writes it.
    pub written: bool,
    /// The logical dimension of its last (contiguous) subscript.
    pub contiguous: usize,
}

/// A block of memory: the tile of an array that one instruction accesses,
/// or a temporary added by a spill.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Block {
    /// A readable name.
    pub name: String,
    /// The array it is a tile of, for array tiles.
    pub array: Option<usize>,
    /// Bytes of one element.
    pub elem_bytes: i64,
    /// The static dimensions that index it.
    pub dims: Vec<usize>,
    /// Loads that read it where it is placed.
    pub readers: Vec<usize>,
    /// Stores that write it where it is placed.
    pub writers: Vec<usize>,
    /// The dimensions of its copies, once staged.
    pub copy_dims: Vec<usize>,
    /// The dimensions its copies iterate over: the copy dimensions and the
    /// outer dimensions of the instruction that accesses it.
    pub copy_nest: Vec<usize>,
    /// For a temporary: the producer and the consumer of the value.
    pub spilled: Option<(usize, usize)>,
}

/// A statement: an instruction or a dimension, by index.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Stmt {
    /// An instruction.
    Inst(usize),
    /// A dimension.
    Dim(usize),
}

/// A GPU kernel as the backbone of the GPU space: its objects, the facts
/// the space asks about them, and the device's limits. Trigger callbacks
/// add copies and spills to it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct GpuKernel {
    /// Its name.
    pub name: String,
    /// The device it runs on.
    pub device: Device,
    /// Logical dimensions.
    pub logicals: Vec<Logical>,
    /// Arrays.
    pub arrays: Vec<Array>,
    /// Instructions.
    pub insts: Vec<Inst>,
    /// Dimensions.
    pub dims: Vec<Dim>,
    /// Memory blocks.
    pub blocks: Vec<Block>,
    /// Statements by id: the index is the id.
    pub statements: Vec<Stmt>,
}

/// Largest tile size offered for one tile level.
const MAX_TILE: u64 = 32;
/// Largest tiling factor offered for a logical dimension.
const MAX_TILING: u64 = 1024;

impl GpuKernel {
    /// An empty kernel on `device`.
    pub fn new(name: &str, device: Device) -> GpuKernel {
        GpuKernel {
            name: name.to_string(),
            device,
            logicals: Vec::new(),
            arrays: Vec::new(),
            insts: Vec::new(),
            dims: Vec::new(),
            blocks: Vec::new(),
            statements: Vec::new(),
        }
    }

    /// Adds a logical dimension of `extent` iterations (at least 1), tiled
    /// `levels` times in each nest, with its outer dimension. Tile sizes
    /// are the powers of two up to 32 that divide it (1 included), tilings
    /// its divisors up to 1024. For an extent that is not a power of two,
    /// some products of sizes divide it and others do not, and propagation
    /// bounds the last size of a tiling from above only: descents may then
    /// end in dead ends at the tiling's generated choice.
    pub fn logical(&mut self, name: &str, extent: u64, levels: usize) -> usize {
        let sizes = (0..)
            .map(|p| 1u64 << p)
            .take_while(|&s| s <= MAX_TILE)
            .filter(|&s| extent % s == 0)
            .map(|s| s as i64)
            .collect();
        let tilings = (1..=MAX_TILING.min(extent))
            .filter(|&t| extent % t == 0)
            .map(|t| t as i64)
            .collect();
        let index = self.logicals.len();
        let outer = self.push_dim(format!("{name}0"), index, 0, Nest::Shared, false);
        self.logicals.push(Logical {
            name: name.to_string(),
            extent,
            sizes,
            tilings,
            levels,
            outer,
            tiles: Vec::new(),
        });
        index
    }

    /// Adds an array of 4-byte elements whose last subscript walks
    /// `contiguous`.
    pub fn array(&mut self, name: &str, written: bool, contiguous: usize) -> usize {
        self.arrays.push(Array {
            name: name.to_string(),
            elem_bytes: 4,
            written,
            contiguous,
        });
        self.arrays.len() - 1
    }

    /// Adds an instruction with its own nest over `logicals` (the shared
    /// outer dimension and the tile levels of each, in that order), reading
    /// `operands` and accumulating along `reductions`. A load or a store
    /// accesses `array`, through a tile of it indexed by the nest's static
    /// dimensions.
    ///
    /// # Panics
    ///
    /// If a logical dimension, an operand or the array is not one of the
    /// kernel's, as indexing a vector does.
    pub fn inst(
        &mut self,
        name: &str,
        op: Op,
        logicals: &[usize],
        reductions: &[usize],
        operands: &[usize],
        array: Option<usize>,
    ) -> usize {
        let index = self.insts.len();
        let id = self.push_statement(Stmt::Inst(index));
        let mut dims = Vec::new();
        for &l in logicals {
            let outer = self.logicals[l].outer;
            // The shared outer dimension accumulates where one of its nests
            // does.
            self.dims[outer].reduction |= reductions.contains(&l);
            dims.push(outer);
            let reference = self.logicals[l].tiles.is_empty();
            for level in 1..=self.logicals[l].levels {
                let dim = self.push_dim(
                    format!("{name}.{}{level}", self.logicals[l].name),
                    l,
                    level,
                    Nest::Inst(index),
                    reductions.contains(&l),
                );
                if reference {
                    self.logicals[l].tiles.push(dim);
                }
                dims.push(dim);
            }
        }
        let block = array.map(|a| {
            let statics: Vec<usize> = dims
                .iter()
                .copied()
                .filter(|&d| self.dims[d].is_static())
                .collect();
            self.blocks.push(Block {
                name: format!("{}@{name}", self.arrays[a].name),
                array: Some(a),
                elem_bytes: self.arrays[a].elem_bytes,
                dims: statics,
                readers: if op == Op::Load {
                    vec![index]
                } else {
                    Vec::new()
                },
                writers: if op == Op::Store {
                    vec![index]
                } else {
                    Vec::new()
                },
                copy_dims: Vec::new(),
                copy_nest: Vec::new(),
                spilled: None,
            });
            self.blocks.len() - 1
        });
        self.insts.push(Inst {
            name: name.to_string(),
            id,
            op,
            origin: Origin::Kernel,
            dims,
            operands: operands.to_vec(),
            block,
            storage: array.map(Storage::Array),
            reductions: reductions.to_vec(),
        });
        index
    }

    fn push_statement(&mut self, stmt: Stmt) -> ObjectId {
        self.statements.push(stmt);
        // Statement ids are positions; a kernel never nears 2^32 of them
        // (the callbacks refuse before, see `room`).
        (self.statements.len() - 1) as ObjectId
    }

    fn push_dim(
        &mut self,
        name: String,
        logical: usize,
        level: usize,
        nest: Nest,
        reduction: bool,
    ) -> usize {
        let index = self.dims.len();
        let id = self.push_statement(Stmt::Dim(index));
        self.dims.push(Dim {
            name,
            id,
            logical,
            level,
            nest,
            reduction,
        });
        index
    }

    /// Adds a memory instruction the lowering needs (a copy or a spill),
    /// iterating `dims`.
    fn push_lowered(
        &mut self,
        name: String,
        op: Op,
        origin: Origin,
        dims: Vec<usize>,
        operands: Vec<usize>,
        (block, storage): (Option<usize>, Option<Storage>),
    ) -> usize {
        let index = self.insts.len();
        let id = self.push_statement(Stmt::Inst(index));
        self.insts.push(Inst {
            name,
            id,
            op,
            origin,
            dims,
            operands,
            block,
            storage,
            reductions: Vec::new(),
        });
        index
    }

    /// Whether `count` more statements keep ids within `ObjectId`.
    fn room(&self, count: usize) -> bool {
        self.statements.len() + count <= ObjectId::MAX as usize
    }

    /// The statement of an id, if it is one.
    pub fn statement(&self, id: ObjectId) -> Option<Stmt> {
        self.statements.get(id as usize).copied()
    }

    /// The dimension of a statement id, if it is one.
    pub fn dim_of(&self, id: StatementsId) -> Option<&Dim> {
        match self.statement(id.0)? {
            Stmt::Dim(d) => self.dims.get(d),
            Stmt::Inst(_) => None,
        }
    }

    /// The instruction of a statement id, if it is one.
    pub fn inst_of(&self, id: StatementsId) -> Option<&Inst> {
        match self.statement(id.0)? {
            Stmt::Inst(i) => self.insts.get(i),
            Stmt::Dim(_) => None,
        }
    }

    /// The statement id of a dimension, by index (which must be one).
    pub fn dim_id(&self, dim: usize) -> StatementsId {
        StatementsId(self.dims[dim].id)
    }

    /// The statement id of an instruction, by index (which must be one).
    pub fn inst_id(&self, inst: usize) -> StatementsId {
        StatementsId(self.insts[inst].id)
    }

    /// The index of the first instruction named `name`.
    pub fn inst_named(&self, name: &str) -> Option<usize> {
        self.insts.iter().position(|i| i.name == name)
    }

    /// The index of the first dimension named `name`.
    pub fn dim_named(&self, name: &str) -> Option<usize> {
        self.dims.iter().position(|d| d.name == name)
    }

    /// A readable name for a statement id.
    pub fn statement_name(&self, id: ObjectId) -> String {
        match self.statement(id) {
            Some(Stmt::Inst(i)) => self.insts[i].name.clone(),
            Some(Stmt::Dim(d)) => self.dims[d].name.clone(),
            None => format!("#{id}"),
        }
    }

    /// The instruction whose nest holds a dimension, for nests of kernel
    /// instructions.
    fn owner(&self, dim: &Dim) -> Option<usize> {
        match dim.nest {
            Nest::Inst(i) => Some(i),
            Nest::Copy(_) | Nest::Shared => None,
        }
    }

    /// Whether two dimensions run the same iterations in different nests.
    fn are_mapped(a: &Dim, b: &Dim) -> bool {
        a.id != b.id && a.logical == b.logical && a.level == b.level
    }

    /// Whether `dim` is the innermost tile level of its logical dimension.
    fn innermost(&self, dim: &Dim) -> bool {
        dim.level == self.logicals[dim.logical].levels
    }

    /// Whether a value produced inside `a` is read inside `b`: `a` is in
    /// the nest of an operand of the instruction whose nest holds `b`.
    fn value_flows(&self, a: &Dim, b: &Dim) -> bool {
        match (self.owner(a), self.owner(b)) {
            (Some(p), Some(c)) => Self::are_mapped(a, b) && self.insts[c].operands.contains(&p),
            _ => false,
        }
    }

    /// The producer and the consumer of the value two dimensions link, in
    /// that order.
    fn flow_between(&self, a: &Dim, b: &Dim) -> Option<(usize, usize)> {
        if self.value_flows(a, b) {
            Some((self.owner(a)?, self.owner(b)?))
        } else if self.value_flows(b, a) {
            Some((self.owner(b)?, self.owner(a)?))
        } else {
            None
        }
    }

    /// The static dimensions of an instruction's nest.
    fn static_dims_of(&self, inst: usize) -> Vec<usize> {
        self.insts[inst]
            .dims
            .iter()
            .copied()
            .filter(|&d| self.dims[d].is_static())
            .collect()
    }

    /// Whether `dim` runs the iterations of one of `dims` (is one of them,
    /// or is mapped to one).
    fn runs_one_of(&self, dim: &Dim, dims: &[usize]) -> bool {
        dims.iter().any(|&e| {
            let e = &self.dims[e];
            e.logical == dim.logical && e.level == dim.level
        })
    }

    /// The elements one vector access of `inst` may move.
    fn lanes(&self, inst: &Inst) -> i64 {
        let bytes = match inst.storage {
            Some(Storage::Array(a)) => self.arrays[a].elem_bytes,
            Some(Storage::Temp(t)) => self.blocks[t].elem_bytes,
            None => inst.block.map_or(4, |m| self.blocks[m].elem_bytes),
        };
        self.device.vector_bytes / bytes.max(1)
    }

    /// The outer (dynamic) dimensions of an instruction's nest.
    fn outer_dims_of(&self, inst: usize) -> Vec<usize> {
        self.insts[inst]
            .dims
            .iter()
            .copied()
            .filter(|&d| !self.dims[d].is_static())
            .collect()
    }

    /// Adds the copy dimensions of block `m`, mapped to its dimensions,
    /// and its copy nest: those and the outer dimensions of `inst`, the
    /// instruction that accesses it.
    fn add_copy_nest(&mut self, m: usize, inst: usize, tag: &str) {
        let mut copy_dims = Vec::new();
        for d in self.blocks[m].dims.clone() {
            let (logical, level) = (self.dims[d].logical, self.dims[d].level);
            let name = format!(
                "{tag}({}).{}{level}",
                self.blocks[m].name, self.logicals[logical].name
            );
            copy_dims.push(self.push_dim(name, logical, level, Nest::Copy(m), false));
        }
        let mut nest = self.outer_dims_of(inst);
        nest.extend(copy_dims.iter().copied());
        self.blocks[m].copy_dims = copy_dims;
        self.blocks[m].copy_nest = nest;
    }

    /// The action that keeps a copy's access to global memory among the
    /// global cache directives.
    fn global_access(&self, inst: usize) -> Action {
        Action {
            choice: cache::CHOICE,
            objects: vec![self.insts[inst].id],
            values: cache::GLOBAL_ACCESS,
        }
    }
}

/// The statement ids of a list of dimensions.
fn ids_of(kernel: &GpuKernel, dims: &[usize]) -> Vec<StatementsId> {
    dims.iter().map(|&d| kernel.dim_id(d)).collect()
}

impl GpuKernel {
    /// `y = a * x + y` over `n` elements: two loads, a multiply-add and a
    /// store, each in its own nest over `i`.
    pub fn axpy(n: u64) -> GpuKernel {
        let mut k = GpuKernel::new("axpy", Device::default());
        let i = k.logical("i", n, 2);
        let x = k.array("x", false, i);
        let y = k.array("y", true, i);
        let ld_x = k.inst("ld_x", Op::Load, &[i], &[], &[], Some(x));
        let ld_y = k.inst("ld_y", Op::Load, &[i], &[], &[], Some(y));
        let fma = k.inst("fma", Op::Fma, &[i], &[], &[ld_y, ld_x], None);
        k.inst("st_y", Op::Store, &[i], &[], &[fma], Some(y));
        k
    }

    /// `y = A x` with `A` of `m` rows and `n` columns: the accumulator's
    /// initialization, loads of `A` and `x`, a multiply-add accumulating
    /// along `j`, and the store of `y`.
    pub fn matvec(m: u64, n: u64) -> GpuKernel {
        let mut k = GpuKernel::new("matvec", Device::default());
        let i = k.logical("i", m, 2);
        let j = k.logical("j", n, 2);
        let a = k.array("A", false, j);
        let x = k.array("x", false, j);
        let y = k.array("y", true, i);
        let init = k.inst("init", Op::Init, &[i], &[], &[], None);
        let ld_a = k.inst("ld_A", Op::Load, &[i, j], &[], &[], Some(a));
        let ld_x = k.inst("ld_x", Op::Load, &[j], &[], &[], Some(x));
        let fma = k.inst("fma", Op::Fma, &[i, j], &[j], &[init, ld_a, ld_x], None);
        k.inst("st_y", Op::Store, &[i], &[], &[fma], Some(y));
        k
    }

    /// `C = A B` with `A` of `m` by `k` and `B` of `k` by `n`.
    pub fn matmul(m: u64, n: u64, k_extent: u64) -> GpuKernel {
        let mut k = GpuKernel::new("matmul", Device::default());
        let i = k.logical("i", m, 2);
        let j = k.logical("j", n, 2);
        let kk = k.logical("k", k_extent, 1);
        let a = k.array("A", false, kk);
        let b = k.array("B", false, j);
        let c = k.array("C", true, j);
        let init = k.inst("init", Op::Init, &[i, j], &[], &[], None);
        let ld_a = k.inst("ld_A", Op::Load, &[i, kk], &[], &[], Some(a));
        let ld_b = k.inst("ld_B", Op::Load, &[kk, j], &[], &[], Some(b));
        let fma = k.inst(
            "fma",
            Op::Fma,
            &[i, j, kk],
            &[kk],
            &[init, ld_a, ld_b],
            None,
        );
        k.inst("st_C", Op::Store, &[i, j], &[], &[fma], Some(c));
        k
    }

    /// `D = (A B) C` in one kernel: `T = A B` (`m` by `l`, through `k`)
    /// stays in the kernel, and `D = T C` (`m` by `n`, through `l`) reads
    /// it.
    pub fn chained_matmul(m: u64, n: u64, k_extent: u64, l_extent: u64) -> GpuKernel {
        let mut k = GpuKernel::new("chained_matmul", Device::default());
        let i = k.logical("i", m, 2);
        let j = k.logical("j", n, 2);
        let kk = k.logical("k", k_extent, 1);
        let l = k.logical("l", l_extent, 1);
        let a = k.array("A", false, kk);
        let b = k.array("B", false, l);
        let c = k.array("C", false, j);
        let d = k.array("D", true, j);
        let init_t = k.inst("init_T", Op::Init, &[i, l], &[], &[], None);
        let ld_a = k.inst("ld_A", Op::Load, &[i, kk], &[], &[], Some(a));
        let ld_b = k.inst("ld_B", Op::Load, &[kk, l], &[], &[], Some(b));
        let fma_t = k.inst(
            "fma_T",
            Op::Fma,
            &[i, l, kk],
            &[kk],
            &[init_t, ld_a, ld_b],
            None,
        );
        let init_d = k.inst("init_D", Op::Init, &[i, j], &[], &[], None);
        let ld_c = k.inst("ld_C", Op::Load, &[l, j], &[], &[], Some(c));
        let fma_d = k.inst(
            "fma_D",
            Op::Fma,
            &[i, j, l],
            &[l],
            &[init_d, fma_t, ld_c],
            None,
        );
        k.inst("st_D", Op::Store, &[i, j], &[], &[fma_d], Some(d));
        k
    }
}

impl Host for GpuKernel {
    fn statements(&self) -> Vec<StatementsId> {
        (0..self.statements.len() as ObjectId)
            .map(StatementsId)
            .collect()
    }

    fn insts(&self) -> Vec<StatementsId> {
        self.insts.iter().map(|i| StatementsId(i.id)).collect()
    }

    fn dims(&self) -> Vec<StatementsId> {
        self.dims.iter().map(|d| StatementsId(d.id)).collect()
    }

    fn static_dims(&self) -> Vec<StatementsId> {
        self.dims
            .iter()
            .filter(|d| d.is_static())
            .map(|d| StatementsId(d.id))
            .collect()
    }

    fn outer_dims(&self) -> Vec<StatementsId> {
        self.dims
            .iter()
            .filter(|d| !d.is_static())
            .map(|d| StatementsId(d.id))
            .collect()
    }

    fn mem_insts(&self) -> Vec<StatementsId> {
        self.insts
            .iter()
            .filter(|i| matches!(i.op, Op::Load | Op::Store))
            .map(|i| StatementsId(i.id))
            .collect()
    }

    fn loads(&self) -> Vec<StatementsId> {
        self.insts
            .iter()
            .filter(|i| i.op == Op::Load)
            .map(|i| StatementsId(i.id))
            .collect()
    }

    fn stores(&self) -> Vec<StatementsId> {
        self.insts
            .iter()
            .filter(|i| i.op == Op::Store)
            .map(|i| StatementsId(i.id))
            .collect()
    }

    fn logical_dims(&self) -> Vec<LogicalDimsId> {
        (0..self.logicals.len() as ObjectId)
            .map(LogicalDimsId)
            .collect()
    }

    fn tiled_dims(&self, l: LogicalDimsId) -> Vec<StatementsId> {
        self.logicals
            .get(l.0 as usize)
            .map_or_else(Vec::new, |l| ids_of(self, &l.tiles))
    }

    fn iter_dims(&self, i: StatementsId) -> Vec<StatementsId> {
        self.inst_of(i)
            .map_or_else(Vec::new, |inst| ids_of(self, &inst.dims))
    }

    fn operands(&self, i: StatementsId) -> Vec<StatementsId> {
        self.inst_of(i).map_or_else(Vec::new, |inst| {
            inst.operands.iter().map(|&o| self.inst_id(o)).collect()
        })
    }

    fn mapped(&self, d: StatementsId) -> Vec<StatementsId> {
        let Some(dim) = self.dim_of(d) else {
            return Vec::new();
        };
        self.dims
            .iter()
            .filter(|e| Self::are_mapped(dim, e))
            .map(|e| StatementsId(e.id))
            .collect()
    }

    fn mem_blocks(&self) -> Vec<MemBlocksId> {
        (0..self.blocks.len() as ObjectId)
            .map(MemBlocksId)
            .collect()
    }

    fn array_tiles(&self) -> Vec<MemBlocksId> {
        self.blocks
            .iter()
            .enumerate()
            .filter(|(_, b)| b.array.is_some())
            .map(|(m, _)| MemBlocksId(m as ObjectId))
            .collect()
    }

    fn block_dims(&self, m: MemBlocksId) -> Vec<StatementsId> {
        self.blocks
            .get(m.0 as usize)
            .map_or_else(Vec::new, |b| ids_of(self, &b.dims))
    }

    fn readers(&self, m: MemBlocksId) -> Vec<StatementsId> {
        self.blocks.get(m.0 as usize).map_or_else(Vec::new, |b| {
            b.readers.iter().map(|&i| self.inst_id(i)).collect()
        })
    }

    fn writers(&self, m: MemBlocksId) -> Vec<StatementsId> {
        self.blocks.get(m.0 as usize).map_or_else(Vec::new, |b| {
            b.writers.iter().map(|&i| self.inst_id(i)).collect()
        })
    }

    fn copy_dims(&self, m: MemBlocksId) -> Vec<StatementsId> {
        self.blocks
            .get(m.0 as usize)
            .map_or_else(Vec::new, |b| ids_of(self, &b.copy_dims))
    }

    fn possible_sizes(&self, d: StatementsId) -> Vec<i64> {
        self.dim_of(d)
            .map_or_else(Vec::new, |d| self.logicals[d.logical].sizes.clone())
    }

    fn possible_tilings(&self, l: LogicalDimsId) -> Vec<i64> {
        self.logicals
            .get(l.0 as usize)
            .map_or_else(Vec::new, |l| l.tilings.clone())
    }

    fn strip_outer(&self, a: StatementsId, b: StatementsId) -> bool {
        let (Some(a), Some(b)) = (self.dim_of(a), self.dim_of(b)) else {
            return false;
        };
        // The shared outer dimension is the coarsest level of every nest.
        a.logical == b.logical && a.level < b.level && (a.nest == b.nest || a.nest == Nest::Shared)
    }

    fn is_reduction(&self, d: StatementsId) -> bool {
        self.dim_of(d).is_some_and(|d| d.reduction)
    }

    fn accumulates(&self, i: StatementsId, d: StatementsId) -> bool {
        match (self.inst_of(i), self.dim_of(d)) {
            (Some(inst), Some(dim)) => inst.reductions.contains(&dim.logical),
            _ => false,
        }
    }

    fn flows(&self, a: StatementsId, b: StatementsId) -> bool {
        match (self.dim_of(a), self.dim_of(b)) {
            (Some(a), Some(b)) => self.value_flows(a, b),
            _ => false,
        }
    }

    fn linked(&self, a: StatementsId, b: StatementsId) -> bool {
        match (self.dim_of(a), self.dim_of(b)) {
            (Some(a), Some(b)) => self.flow_between(a, b).is_some(),
            _ => false,
        }
    }

    fn spillable(&self, a: StatementsId, b: StatementsId) -> bool {
        let (Some(a), Some(b)) = (self.dim_of(a), self.dim_of(b)) else {
            return false;
        };
        // An accumulator lives in registers from its initialization on.
        self.flow_between(a, b)
            .is_some_and(|(producer, _)| self.insts[producer].op != Op::Init)
    }

    fn vectorizable(&self, i: StatementsId, d: StatementsId) -> bool {
        let (Some(inst), Some(dim)) = (self.inst_of(i), self.dim_of(d)) else {
            return false;
        };
        if !dim.is_static() || !matches!(inst.op, Op::Load | Op::Store) {
            return false;
        }
        match (inst.origin, inst.block) {
            // Accesses to a block where it is placed, along one of its
            // dimensions: the block's layout decides.
            (Origin::Kernel, Some(m)) | (Origin::CopyIn(_) | Origin::CopyOut(_), Some(m)) => {
                self.runs_one_of(dim, &self.blocks[m].dims)
            }
            // A copy's access to its array in global memory: along the
            // array's contiguous subscript, innermost level.
            (Origin::CopyIn(m) | Origin::CopyOut(m), None) => self.blocks[m]
                .array
                .is_some_and(|a| dim.logical == self.arrays[a].contiguous && self.innermost(dim)),
            // A spill's store writes along the temporary's dimensions, its
            // load reads along the consumer's, which the host lays out
            // alike.
            (Origin::Spill(_), Some(_)) => self.runs_one_of(dim, &inst.dims),
            (_, None) => false,
        }
    }

    fn vector_lanes(&self, i: StatementsId) -> i64 {
        self.inst_of(i).map_or(1, |inst| self.lanes(inst))
    }

    fn idempotent(&self, i: StatementsId) -> bool {
        self.inst_of(i).is_some_and(|inst| inst.op != Op::Fma)
    }

    fn repeatable(&self, i: StatementsId) -> bool {
        self.inst_of(i).is_some_and(|inst| match inst.origin {
            Origin::Kernel => inst.op == Op::Load,
            Origin::Spill(_) | Origin::CopyIn(_) | Origin::CopyOut(_) => true,
        })
    }

    fn serves(&self, a: StatementsId, b: StatementsId) -> bool {
        let (Some(lowered), Some(Stmt::Inst(served))) = (self.inst_of(a), self.statement(b.0))
        else {
            return false;
        };
        match lowered.origin {
            Origin::Kernel => false,
            Origin::CopyIn(m) => self.blocks[m].readers.contains(&served),
            Origin::CopyOut(m) => self.blocks[m].writers.contains(&served),
            Origin::Spill(t) => self.blocks[t].spilled.is_some_and(|(producer, consumer)| {
                let store = lowered.op == Op::Store;
                (store && served == producer) || (!store && served == consumer)
            }),
        }
    }

    fn is_init(&self, i: StatementsId) -> bool {
        self.inst_of(i).is_some_and(|inst| inst.op == Op::Init)
    }

    fn holds_value(&self, i: StatementsId) -> bool {
        // The loads of copies and spills feed the instruction next to them
        // at once; the kernel's own loads may be hoisted out of the
        // consumer's loops and hold their values until it runs.
        self.inst_of(i).is_some_and(|inst| {
            matches!(inst.op, Op::Load | Op::Fma) && inst.origin == Origin::Kernel
        })
    }

    fn elem_bytes(&self, m: MemBlocksId) -> i64 {
        self.blocks.get(m.0 as usize).map_or(4, |b| b.elem_bytes)
    }

    fn is_input(&self, m: MemBlocksId) -> bool {
        self.blocks.get(m.0 as usize).is_some_and(|b| {
            b.array.is_some()
                && b.readers
                    .iter()
                    .any(|&r| self.insts[r].origin == Origin::Kernel)
        })
    }

    fn is_output(&self, m: MemBlocksId) -> bool {
        self.blocks.get(m.0 as usize).is_some_and(|b| {
            b.array.is_some()
                && b.writers
                    .iter()
                    .any(|&w| self.insts[w].origin == Origin::Kernel)
        })
    }

    fn array_contiguous(&self, m: MemBlocksId, d: StatementsId) -> bool {
        let (Some(block), Some(dim)) = (self.blocks.get(m.0 as usize), self.dim_of(d)) else {
            return false;
        };
        block.array.is_some_and(|a| {
            dim.logical == self.arrays[a].contiguous
                && self.innermost(dim)
                && block.dims.iter().any(|&e| self.dims[e].id == dim.id)
        })
    }

    fn array_written(&self, i: StatementsId) -> bool {
        match self.inst_of(i).and_then(|inst| inst.storage) {
            Some(Storage::Array(a)) => self.arrays[a].written,
            // Temporaries are written by their spills.
            Some(Storage::Temp(_)) | None => true,
        }
    }

    fn same_array(&self, a: StatementsId, b: StatementsId) -> bool {
        match (self.inst_of(a), self.inst_of(b)) {
            (Some(a), Some(b)) => a.storage.is_some() && a.storage == b.storage,
            _ => false,
        }
    }

    fn max_threads_per_block(&self) -> i64 {
        self.device.max_threads_per_block
    }

    fn max_thread_dims(&self) -> i64 {
        self.device.max_thread_dims
    }

    fn max_block_dims(&self) -> i64 {
        self.device.max_block_dims
    }

    fn shared_memory(&self) -> i64 {
        self.device.shared_memory
    }

    fn max_registers(&self) -> i64 {
        self.device.max_registers
    }

    fn base_registers(&self) -> i64 {
        self.device.base_registers
    }

    fn max_unroll(&self) -> i64 {
        self.device.max_unroll
    }

    /// Adds a temporary block for the value that crosses `a` and `b`,
    /// indexed by the producer's static dimensions (an upper estimate of
    /// what must be held), a store of the value in the producer's nest and
    /// a load of it in the consumer's, which the consumer then reads. A
    /// second spill of the same value (along another pair) reuses them.
    fn spill(&mut self, a: StatementsId, b: StatementsId) -> Outcome {
        let (Some(da), Some(db)) = (self.dim_of(a), self.dim_of(b)) else {
            return Outcome::refuse("spill of objects that are not dimensions");
        };
        let Some((producer, consumer)) = self.flow_between(da, db) else {
            return Outcome::refuse(format!(
                "no value flows between {} and {}",
                da.name, db.name
            ));
        };
        let known = self
            .blocks
            .iter()
            .any(|t| t.spilled == Some((producer, consumer)));
        if known {
            return Outcome::unchanged();
        }
        if !self.room(2) {
            return Outcome::refuse("too many statements for the object ids");
        }
        let temp = self.blocks.len();
        let name = format!(
            "{}->{}",
            self.insts[producer].name, self.insts[consumer].name
        );
        let store = self.push_lowered(
            format!("spill_st({name})"),
            Op::Store,
            Origin::Spill(temp),
            self.insts[producer].dims.clone(),
            vec![producer],
            (Some(temp), Some(Storage::Temp(temp))),
        );
        let load = self.push_lowered(
            format!("spill_ld({name})"),
            Op::Load,
            Origin::Spill(temp),
            self.insts[consumer].dims.clone(),
            vec![store],
            (Some(temp), Some(Storage::Temp(temp))),
        );
        self.insts[consumer].operands.push(load);
        self.blocks.push(Block {
            name: format!("tmp({name})"),
            array: None,
            elem_bytes: 4,
            dims: self.static_dims_of(producer),
            readers: vec![load],
            writers: vec![store],
            copy_dims: Vec::new(),
            copy_nest: Vec::new(),
            spilled: Some((producer, consumer)),
        });
        Outcome::done()
    }

    /// Adds the copy of a tile into shared memory: copy dimensions mapped
    /// to the tile's, a load from the array and a store to the block, in
    /// the outer dimensions of the tile's reader, which then reads what the
    /// store wrote. The load's directive is one of global memory.
    fn stage_in(&mut self, m: MemBlocksId) -> Outcome {
        let m = m.0 as usize;
        let Some(block) = self.blocks.get(m) else {
            return Outcome::refuse("no such block");
        };
        let Some(&reader) = block.readers.first() else {
            return Outcome::refuse(format!("{} has no reader to stage for", block.name));
        };
        if !block.copy_dims.is_empty() {
            return Outcome::unchanged();
        }
        if !self.room(block.dims.len() + 2) {
            return Outcome::refuse("too many statements for the object ids");
        }
        let readers = block.readers.clone();
        let storage = block.array.map(Storage::Array);
        let name = block.name.clone();
        self.add_copy_nest(m, reader, "in");
        let nest = self.blocks[m].copy_nest.clone();
        let load = self.push_lowered(
            format!("copy_ld({name})"),
            Op::Load,
            Origin::CopyIn(m),
            nest.clone(),
            Vec::new(),
            (None, storage),
        );
        let store = self.push_lowered(
            format!("copy_st({name})"),
            Op::Store,
            Origin::CopyIn(m),
            nest,
            vec![load],
            (Some(m), storage),
        );
        self.blocks[m].writers.push(store);
        for r in readers {
            self.insts[r].operands.push(store);
        }
        Outcome::done().decide(self.global_access(load))
    }

    /// Adds the copy of a tile out of shared memory after its writer: copy
    /// dimensions mapped to the tile's, a load from the block and a store
    /// to the array, in the outer dimensions of the writer. The store's
    /// directive is one of global memory.
    fn stage_out(&mut self, m: MemBlocksId) -> Outcome {
        let m = m.0 as usize;
        let Some(block) = self.blocks.get(m) else {
            return Outcome::refuse("no such block");
        };
        let Some(&writer) = block.writers.first() else {
            return Outcome::refuse(format!("{} has no writer to stage for", block.name));
        };
        if !block.copy_dims.is_empty() {
            return Outcome::unchanged();
        }
        if !self.room(block.dims.len() + 2) {
            return Outcome::refuse("too many statements for the object ids");
        }
        let storage = block.array.map(Storage::Array);
        let name = block.name.clone();
        self.add_copy_nest(m, writer, "out");
        let nest = self.blocks[m].copy_nest.clone();
        let load = self.push_lowered(
            format!("copy_ld({name})"),
            Op::Load,
            Origin::CopyOut(m),
            nest.clone(),
            vec![writer],
            (Some(m), storage),
        );
        let store = self.push_lowered(
            format!("copy_st({name})"),
            Op::Store,
            Origin::CopyOut(m),
            nest,
            vec![load],
            (None, storage),
        );
        self.blocks[m].readers.push(load);
        Outcome::done().decide(self.global_access(store))
    }
}
