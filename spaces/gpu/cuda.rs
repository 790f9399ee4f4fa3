// CUDA C lowering of fully decided candidates of the GPU space.
// Included in `commute_spaces::gpu::cuda`.
//
// `lower` reads every decision of a leaf (kinds, sizes, thread mapping,
// order and fusion, memory placement and layout, cache directives) off the
// candidate, and the objects the triggers added (copies, spills) off its
// backbone, and writes one `extern "C" __global__` function:
//
// - the statements form a tree: dimensions fused (`order` MERGED) are one
//   node, a statement's parent is the innermost node that encloses it
//   (`order` OUTER), siblings follow `order` BEFORE;
// - BLOCK and THREAD dimensions bind their index once at the top of the
//   kernel (`blockIdx`, `threadIdx` along the axis the decisions give) and
//   open a scope; LOOP and UNROLL dimensions are `for` loops (`#pragma
//   unroll` for the latter); VECTOR dimensions are one float2/float4
//   (double2) access per instruction where the first lane's index is
//   provably a multiple of the lanes, else an unrolled loop left to the
//   vectorizer (a comment at each says which);
// - values live in registers: an array per load or accumulator, indexed
//   by the register-indexed (UNROLL, VECTOR) dimensions of its nest; a
//   consumer indexes it with its own dimensions mapped to them. A value
//   held across a loop or a thread index it is not fused with (or mapped
//   to) is refused with a `LowerError`: the space would have to spill it;
// - blocks placed in shared memory are `__shared__` arrays (the staged
//   tiles, and shared temporaries of spills), with `__syncthreads()`
//   before the first statement that reads what another wrote and after
//   it when the two run again in an enclosing loop; temporaries in global
//   memory are private arrays of each thread;
// - cache directives: READ_ONLY loads through `__nvvm_ldg_f`, L2 and
//   STREAMING accesses through `ld/st.global.cg` and `.cs` (inline PTX),
//   L1 loads are plain loads (cached in L1 and L2 by default).

use std::collections::BTreeSet;
use std::fmt::{self, Write as _};
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::{Duration, Instant};

use commute_runtime::{Candidate, Domain, InstanceId, ObjectId};

/// A candidate of the GPU space, as descents return it.
pub type Leaf = Candidate<Backbone<GpuKernel>>;

/// Why a candidate cannot be lowered.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum LowerError {
    /// An instance still has several values.
    Undecided {
        /// The instance, as `choice(objects)`.
        instance: String,
        /// How many values it has left.
        values_left: u64,
    },
    /// The decisions ask for something the lowering cannot express.
    Unsupported {
        /// The instance or object concerned.
        instance: String,
        /// Why.
        reason: String,
    },
}

impl LowerError {
    fn unsupported(instance: impl Into<String>, reason: impl Into<String>) -> LowerError {
        LowerError::Unsupported {
            instance: instance.into(),
            reason: reason.into(),
        }
    }

    /// A short label of the reason, for counting errors by kind.
    pub fn reason(&self) -> String {
        match self {
            LowerError::Undecided { .. } => "undecided".to_string(),
            LowerError::Unsupported { reason, .. } => reason.clone(),
        }
    }
}

impl fmt::Display for LowerError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            LowerError::Undecided {
                instance,
                values_left,
            } => write!(
                f,
                "cannot lower a partial candidate: {instance} is undecided ({values_left} values left)"
            ),
            LowerError::Unsupported { instance, reason } => {
                write!(f, "cannot lower {instance}: {reason}")
            }
        }
    }
}

impl std::error::Error for LowerError {}

/// How a dimension runs, as decided.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Kind {
    /// A sequential loop.
    Loop,
    /// An unrolled loop.
    Unroll,
    /// Vector lanes of the given width.
    Vector(u32),
    /// A thread index.
    Thread,
    /// A block index.
    Block,
}

impl Kind {
    fn name(self) -> &'static str {
        match self {
            Kind::Loop => "LOOP",
            Kind::Unroll => "UNROLL",
            Kind::Vector(2) => "VECTOR2",
            Kind::Vector(_) => "VECTOR4",
            Kind::Thread => "THREAD",
            Kind::Block => "BLOCK",
        }
    }

    fn in_registers(self) -> bool {
        matches!(self, Kind::Unroll | Kind::Vector(_))
    }
}

/// An array argument of a lowered kernel, in global memory, row-major.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Param {
    /// Its name (the kernel's array's).
    pub name: String,
    /// Bytes of one element: 4 (`float`) or 8 (`double`).
    pub elem_bytes: i64,
    /// Its extents, outermost first.
    pub extents: Vec<u64>,
    /// Whether the kernel writes it.
    pub written: bool,
    /// Whether the kernel reads it (an array it only writes needs no
    /// input values).
    pub read: bool,
}

impl Param {
    /// Number of elements.
    pub fn len(&self) -> usize {
        self.extents.iter().product::<u64>() as usize
    }

    /// Whether it has no element.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }
}

/// A lowered kernel: CUDA C source and how to launch it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct CudaKernel {
    /// The function's name.
    pub name: String,
    /// Its arguments, in order: the kernel's arrays.
    pub params: Vec<Param>,
    /// Blocks of the grid along x, y and z.
    pub grid: [u64; 3],
    /// Threads of a block along x, y and z.
    pub block: [u64; 3],
    /// Bytes of shared memory one block uses (all static).
    pub shared_bytes: u64,
    /// Memory blocks placed in shared memory.
    pub shared_blocks: usize,
    /// `__syncthreads()` calls each thread makes (the barriers a block
    /// passes), counting the iterations of the loops around them.
    pub barriers_per_block: u64,
    /// Instructions each thread runs, counting loop iterations: with the
    /// barriers, what an emulation costs.
    pub steps_per_thread: u64,
    /// Definitions that stand in for the CUDA headers in a device
    /// compilation (`__global__`, the cache-directive helpers).
    pub prelude: String,
    /// The header comment and the kernel function, which use only the
    /// prelude's names and clang's NVPTX builtins (an emulator defines
    /// those for the host instead).
    pub body: String,
}

impl CudaKernel {
    /// The whole `.cu` file.
    pub fn source(&self) -> String {
        format!("{}\n{}", self.prelude, self.body)
    }

    /// The C type of the elements.
    pub fn elem_type(&self) -> &'static str {
        if self.params.first().is_some_and(|p| p.elem_bytes == 8) {
            "double"
        } else {
            "float"
        }
    }
}

/// The definitions a device compilation without CUDA headers needs.
pub const PRELUDE: &str = r#"// Stand-ins for the CUDA headers (compiled with -nocudainc).
#define __global__ __attribute__((global))
#define __device__ __attribute__((device))
#define __shared__ __attribute__((shared))
// Cache directives of global accesses (L2 only: .cg, streaming: .cs).
__device__ static inline float cm_ld_cg(const float* p) { float v; asm volatile("ld.global.cg.f32 %0, [%1];" : "=f"(v) : "l"(p)); return v; }
__device__ static inline float cm_ld_cs(const float* p) { float v; asm volatile("ld.global.cs.f32 %0, [%1];" : "=f"(v) : "l"(p)); return v; }
__device__ static inline void cm_st_cg(float* p, float v) { asm volatile("st.global.cg.f32 [%0], %1;" :: "l"(p), "f"(v) : "memory"); }
__device__ static inline void cm_st_cs(float* p, float v) { asm volatile("st.global.cs.f32 [%0], %1;" :: "l"(p), "f"(v) : "memory"); }
__device__ static inline double cm_ld_cg(const double* p) { double v; asm volatile("ld.global.cg.f64 %0, [%1];" : "=d"(v) : "l"(p)); return v; }
__device__ static inline double cm_ld_cs(const double* p) { double v; asm volatile("ld.global.cs.f64 %0, [%1];" : "=d"(v) : "l"(p)); return v; }
__device__ static inline void cm_st_cg(double* p, double v) { asm volatile("st.global.cg.f64 [%0], %1;" :: "l"(p), "d"(v) : "memory"); }
__device__ static inline void cm_st_cs(double* p, double v) { asm volatile("st.global.cs.f64 [%0], %1;" :: "l"(p), "d"(v) : "memory"); }
// Vector types (clang's extended vectors, 8 or 16 bytes, aligned as much).
typedef float cm_float2 __attribute__((ext_vector_type(2)));
typedef float cm_float4 __attribute__((ext_vector_type(4)));
typedef double cm_double2 __attribute__((ext_vector_type(2)));
__device__ static inline cm_float2 cm_ld_cg(const cm_float2* p) { cm_float2 v; asm volatile("ld.global.cg.v2.f32 {%0, %1}, [%2];" : "=f"(v[0]), "=f"(v[1]) : "l"(p)); return v; }
__device__ static inline cm_float2 cm_ld_cs(const cm_float2* p) { cm_float2 v; asm volatile("ld.global.cs.v2.f32 {%0, %1}, [%2];" : "=f"(v[0]), "=f"(v[1]) : "l"(p)); return v; }
__device__ static inline cm_float4 cm_ld_cg(const cm_float4* p) { cm_float4 v; asm volatile("ld.global.cg.v4.f32 {%0, %1, %2, %3}, [%4];" : "=f"(v[0]), "=f"(v[1]), "=f"(v[2]), "=f"(v[3]) : "l"(p)); return v; }
__device__ static inline cm_float4 cm_ld_cs(const cm_float4* p) { cm_float4 v; asm volatile("ld.global.cs.v4.f32 {%0, %1, %2, %3}, [%4];" : "=f"(v[0]), "=f"(v[1]), "=f"(v[2]), "=f"(v[3]) : "l"(p)); return v; }
__device__ static inline cm_double2 cm_ld_cg(const cm_double2* p) { cm_double2 v; asm volatile("ld.global.cg.v2.f64 {%0, %1}, [%2];" : "=d"(v[0]), "=d"(v[1]) : "l"(p)); return v; }
__device__ static inline cm_double2 cm_ld_cs(const cm_double2* p) { cm_double2 v; asm volatile("ld.global.cs.v2.f64 {%0, %1}, [%2];" : "=d"(v[0]), "=d"(v[1]) : "l"(p)); return v; }
__device__ static inline void cm_st_cg(cm_float2* p, cm_float2 v) { asm volatile("st.global.cg.v2.f32 [%0], {%1, %2};" :: "l"(p), "f"(v[0]), "f"(v[1]) : "memory"); }
__device__ static inline void cm_st_cs(cm_float2* p, cm_float2 v) { asm volatile("st.global.cs.v2.f32 [%0], {%1, %2};" :: "l"(p), "f"(v[0]), "f"(v[1]) : "memory"); }
__device__ static inline void cm_st_cg(cm_float4* p, cm_float4 v) { asm volatile("st.global.cg.v4.f32 [%0], {%1, %2, %3, %4};" :: "l"(p), "f"(v[0]), "f"(v[1]), "f"(v[2]), "f"(v[3]) : "memory"); }
__device__ static inline void cm_st_cs(cm_float4* p, cm_float4 v) { asm volatile("st.global.cs.v4.f32 [%0], {%1, %2, %3, %4};" :: "l"(p), "f"(v[0]), "f"(v[1]), "f"(v[2]), "f"(v[3]) : "memory"); }
__device__ static inline void cm_st_cg(cm_double2* p, cm_double2 v) { asm volatile("st.global.cg.v2.f64 [%0], {%1, %2};" :: "l"(p), "d"(v[0]), "d"(v[1]) : "memory"); }
__device__ static inline void cm_st_cs(cm_double2* p, cm_double2 v) { asm volatile("st.global.cs.v2.f64 [%0], {%1, %2};" :: "l"(p), "d"(v[0]), "d"(v[1]) : "memory"); }
"#;

/// Lowers a fully decided candidate of the GPU space to one CUDA kernel.
pub fn lower(leaf: &Leaf) -> Result<CudaKernel, LowerError> {
    let kernel = &leaf.backbone().0;
    if let Some(open) = leaf.open_instances(&[]).first() {
        let left = leaf.domain(open).map_or(0, |d| d.len());
        return Err(LowerError::Undecided {
            instance: instance_name(leaf, open),
            values_left: left,
        });
    }
    let plan = Plan::read(leaf, kernel)?;
    plan.emit()
}

/// `choice(objects)` with the objects' names.
fn instance_name(leaf: &Leaf, instance: &InstanceId) -> String {
    let kernel = &leaf.backbone().0;
    let model = leaf.model();
    let Some(choice) = model.choices.get(instance.choice as usize) else {
        return format!("{instance:?}");
    };
    let objects: Vec<String> = instance
        .objects
        .iter()
        .zip(choice.params.iter())
        .map(|(&o, param)| {
            let set = model.sets.get(param.set as usize).map_or("", |s| s.name);
            match set {
                "MemBlocks" | "ArrayTiles" => kernel
                    .blocks
                    .get(o as usize)
                    .map_or(format!("#{o}"), |b| b.name.clone()),
                "LogicalDims" => kernel
                    .logicals
                    .get(o as usize)
                    .map_or(format!("#{o}"), |l| l.name.clone()),
                _ => kernel.statement_name(o),
            }
        })
        .collect();
    format!("{}({})", choice.name, objects.join(", "))
}

/// A C identifier made of `name`.
fn ident(name: &str) -> String {
    let mut out: String = name
        .chars()
        .map(|c| if c.is_ascii_alphanumeric() { c } else { '_' })
        .collect();
    while out.contains("__") {
        out = out.replace("__", "_");
    }
    out.trim_matches('_').to_string()
}

/// A node of the statement tree.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
enum Node {
    /// A class of fused dimensions.
    Class(usize),
    /// An instruction.
    Inst(usize),
}

/// A term of an index: a variable or constant times a stride.
#[derive(Clone, Debug, PartialEq, Eq)]
struct Term {
    expr: String,
    stride: u64,
    /// The value of a constant term.
    constant: Option<u64>,
}

fn format_terms(terms: &[Term]) -> String {
    if terms.is_empty() {
        return "0".to_string();
    }
    terms
        .iter()
        .map(|t| {
            if t.stride == 1 {
                t.expr.clone()
            } else {
                format!("{} * {}", t.expr, t.stride)
            }
        })
        .collect::<Vec<_>>()
        .join(" + ")
}

/// Every decision of a leaf, read once.
struct Plan<'a> {
    leaf: &'a Leaf,
    kernel: &'a GpuKernel,
    elem: &'static str,
    elem_bytes: i64,
    kind: Vec<Kind>,
    /// Iterations of each dimension (the trip count of outer ones).
    trips: Vec<u64>,
    /// The class of fused dimensions of each dimension.
    class_of: Vec<usize>,
    classes: Vec<Vec<usize>>,
    /// The thread or block axis of each class that has one.
    axis: Vec<Option<usize>>,
    grid: [u64; 3],
    block: [u64; 3],
    shared: Vec<bool>,
    /// The fastest-varying dimension of each block.
    contiguous: Vec<Option<usize>>,
    cache: Vec<Option<u64>>,
    /// `order` of every pair of statements, by statement id.
    order: Vec<Vec<u64>>,
    /// The children of the root (index `classes.len()`) and of each class.
    children: Vec<Vec<Node>>,
    parent_inst: Vec<Option<usize>>,
    parent_class: Vec<Option<usize>>,
    /// Subscripts of each array: its logical dimensions, in order.
    subscripts: Vec<Vec<usize>>,
}

impl<'a> Plan<'a> {
    fn domain(&self, choice: u16, objects: Vec<ObjectId>) -> Result<Domain, LowerError> {
        read_domain(self.leaf, choice, objects)
    }

    fn read(leaf: &'a Leaf, kernel: &'a GpuKernel) -> Result<Plan<'a>, LowerError> {
        let elem_bytes = kernel.arrays.first().map_or(4, |a| a.elem_bytes);
        if let Some(a) = kernel.arrays.iter().find(|a| a.elem_bytes != elem_bytes) {
            return Err(LowerError::unsupported(
                &a.name,
                "arrays of different element sizes in one kernel",
            ));
        }
        let elem = match elem_bytes {
            4 => "float",
            8 => "double",
            _ => {
                return Err(LowerError::unsupported(
                    &kernel.name,
                    format!("elements of {elem_bytes} bytes (only 4 and 8)"),
                ))
            }
        };
        let mut plan = Plan {
            leaf,
            kernel,
            elem,
            elem_bytes,
            kind: Vec::new(),
            trips: Vec::new(),
            class_of: Vec::new(),
            classes: Vec::new(),
            axis: Vec::new(),
            grid: [1; 3],
            block: [1; 3],
            shared: Vec::new(),
            contiguous: Vec::new(),
            cache: Vec::new(),
            order: Vec::new(),
            children: Vec::new(),
            parent_inst: Vec::new(),
            parent_class: Vec::new(),
            subscripts: Vec::new(),
        };
        plan.read_dims()?;
        plan.read_order()?;
        plan.read_classes()?;
        plan.read_axes()?;
        plan.read_memory()?;
        plan.build_tree()?;
        plan.read_subscripts()?;
        Ok(plan)
    }

    fn read_dims(&mut self) -> Result<(), LowerError> {
        let k = self.kernel;
        for dim in &k.dims {
            let mask = enum_value(self.leaf, dim_kind::CHOICE, vec![dim.id])?;
            let kind = match mask {
                dim_kind::LOOP => Kind::Loop,
                dim_kind::UNROLL => Kind::Unroll,
                dim_kind::VECTOR2 => Kind::Vector(2),
                dim_kind::VECTOR4 => Kind::Vector(4),
                dim_kind::THREAD => Kind::Thread,
                _ => Kind::Block,
            };
            self.kind.push(kind);
        }
        let mut sizes = vec![0u64; k.dims.len()];
        for (d, dim) in k.dims.iter().enumerate() {
            if dim.is_static() {
                sizes[d] = int_value(self.leaf, size::CHOICE, vec![dim.id])? as u64;
            }
        }
        for (d, dim) in k.dims.iter().enumerate() {
            let trips = if dim.is_static() {
                sizes[d]
            } else {
                let logical = &k.logicals[dim.logical];
                let tiling: u64 = logical.tiles.iter().map(|&t| sizes[t]).product();
                if tiling == 0 || logical.extent % tiling != 0 {
                    return Err(LowerError::unsupported(
                        format!("tiling({})", logical.name),
                        format!("{} does not divide the extent {}", tiling, logical.extent),
                    ));
                }
                logical.extent / tiling
            };
            self.trips.push(trips);
        }
        Ok(())
    }

    fn read_order(&mut self) -> Result<(), LowerError> {
        let n = self.kernel.statements.len();
        let mut order = vec![vec![0u64; n]; n];
        for (a, row) in order.iter_mut().enumerate() {
            for (b, cell) in row.iter_mut().enumerate() {
                if a != b {
                    *cell =
                        enum_value(self.leaf, order::CHOICE, vec![a as ObjectId, b as ObjectId])?;
                }
            }
        }
        self.order = order;
        Ok(())
    }

    fn ord(&self, a: ObjectId, b: ObjectId) -> u64 {
        self.order[a as usize][b as usize]
    }

    fn dim_name(&self, d: usize) -> &str {
        &self.kernel.dims[d].name
    }

    fn read_classes(&mut self) -> Result<(), LowerError> {
        let dims = &self.kernel.dims;
        let mut class_of: Vec<usize> = (0..dims.len()).collect();
        fn find(c: &mut [usize], x: usize) -> usize {
            let mut r = x;
            while c[r] != r {
                r = c[r];
            }
            c[x] = r;
            r
        }
        for a in 0..dims.len() {
            for b in a + 1..dims.len() {
                if self.ord(dims[a].id, dims[b].id) == order::MERGED {
                    let (ra, rb) = (find(&mut class_of, a), find(&mut class_of, b));
                    class_of[ra.max(rb)] = ra.min(rb);
                }
            }
        }
        let mut index = vec![usize::MAX; dims.len()];
        let mut classes: Vec<Vec<usize>> = Vec::new();
        let mut of = vec![0; dims.len()];
        for (d, class) in of.iter_mut().enumerate() {
            let root = find(&mut class_of, d);
            if index[root] == usize::MAX {
                index[root] = classes.len();
                classes.push(Vec::new());
            }
            *class = index[root];
            classes[index[root]].push(d);
        }
        for members in &classes {
            let first = members[0];
            for &d in &members[1..] {
                if self.kind[d] != self.kind[first] || self.trips[d] != self.trips[first] {
                    return Err(LowerError::unsupported(
                        format!("order({}, {})", self.dim_name(first), self.dim_name(d)),
                        "fused dimensions of different kinds or sizes",
                    ));
                }
            }
        }
        self.class_of = of;
        self.classes = classes;
        Ok(())
    }

    fn rep(&self, class: usize) -> usize {
        self.classes[class][0]
    }

    fn class_kind(&self, class: usize) -> Kind {
        self.kind[self.rep(class)]
    }

    fn read_axes(&mut self) -> Result<(), LowerError> {
        let k = self.kernel;
        let mut axis = vec![None; self.classes.len()];
        // Thread dimensions: groups sharing an index (SAME), the innermost
        // (varying fastest) on x.
        let threads: Vec<usize> = (0..k.dims.len())
            .filter(|&d| self.kind[d] == Kind::Thread)
            .collect();
        let mut groups: Vec<Vec<usize>> = Vec::new();
        for &d in &threads {
            let mut placed = false;
            for group in groups.iter_mut() {
                let m = enum_value(
                    self.leaf,
                    thread_mapping::CHOICE,
                    vec![k.dims[group[0]].id, k.dims[d].id],
                )?;
                if m == thread_mapping::SAME {
                    group.push(d);
                    placed = true;
                    break;
                }
            }
            if !placed {
                groups.push(vec![d]);
            }
        }
        if groups.len() > 3 {
            return Err(LowerError::unsupported(
                "thread_mapping",
                format!("{} thread indices (3 at most)", groups.len()),
            ));
        }
        let mut dim_axis = vec![None; k.dims.len()];
        for (g, group) in groups.iter().enumerate() {
            let mut inside = 0;
            for (h, other) in groups.iter().enumerate() {
                if g != h {
                    let m = enum_value(
                        self.leaf,
                        thread_mapping::CHOICE,
                        vec![k.dims[group[0]].id, k.dims[other[0]].id],
                    )?;
                    if m == thread_mapping::OUTER {
                        inside += 1;
                    }
                }
            }
            let size = self.trips[group[0]];
            if group.iter().any(|&d| self.trips[d] != size) {
                return Err(LowerError::unsupported(
                    format!("thread_mapping({}, ..)", self.dim_name(group[0])),
                    "one thread index for dimensions of different sizes",
                ));
            }
            if self.block[inside] != 1 {
                return Err(LowerError::unsupported(
                    format!("thread_mapping({}, ..)", self.dim_name(group[0])),
                    "two thread groups on one index",
                ));
            }
            self.block[inside] = size;
            for &d in group {
                dim_axis[d] = Some(inside);
            }
        }
        // Block dimensions: the innermost on x.
        let blocks: Vec<usize> = (0..self.classes.len())
            .filter(|&c| self.class_kind(c) == Kind::Block)
            .collect();
        if blocks.len() > 3 {
            return Err(LowerError::unsupported(
                "dim_kind",
                format!("{} block dimensions (3 at most)", blocks.len()),
            ));
        }
        for &c in &blocks {
            let inside = blocks
                .iter()
                .filter(|&&o| {
                    o != c
                        && self.ord(k.dims[self.rep(c)].id, k.dims[self.rep(o)].id) == order::OUTER
                })
                .count();
            if self.grid[inside] != 1 || (inside > 0 && self.trips[self.rep(c)] > 65535) {
                return Err(LowerError::unsupported(
                    format!("dim_kind({})", self.dim_name(self.rep(c))),
                    "block dimensions not nested one in another, or past the grid's limits",
                ));
            }
            self.grid[inside] = self.trips[self.rep(c)];
            axis[c] = Some(inside);
        }
        for (c, members) in self.classes.iter().enumerate() {
            if self.kind[members[0]] == Kind::Thread {
                axis[c] = dim_axis[members[0]];
            }
        }
        self.axis = axis;
        Ok(())
    }

    fn read_memory(&mut self) -> Result<(), LowerError> {
        let k = self.kernel;
        for (m, block) in k.blocks.iter().enumerate() {
            let space = enum_value(self.leaf, mem_space::CHOICE, vec![m as ObjectId])?;
            self.shared.push(space == mem_space::SHARED);
            let mut fastest = None;
            for &d in &block.dims {
                let c = enum_value(
                    self.leaf,
                    contiguous::CHOICE,
                    vec![m as ObjectId, k.dims[d].id],
                )?;
                if c == contiguous::YES {
                    fastest = Some(d);
                }
            }
            self.contiguous.push(fastest);
        }
        for inst in &k.insts {
            self.cache.push(if matches!(inst.op, Op::Load | Op::Store) {
                Some(enum_value(self.leaf, cache::CHOICE, vec![inst.id])?)
            } else {
                None
            });
        }
        Ok(())
    }

    /// The classes that enclose a statement.
    fn enclosing(&self, stmt: ObjectId, own: Option<usize>) -> Vec<usize> {
        (0..self.classes.len())
            .filter(|&c| Some(c) != own)
            .filter(|&c| self.ord(self.kernel.dims[self.rep(c)].id, stmt) == order::OUTER)
            .collect()
    }

    fn node_id(&self, node: Node) -> ObjectId {
        match node {
            Node::Class(c) => self.kernel.dims[self.rep(c)].id,
            Node::Inst(i) => self.kernel.insts[i].id,
        }
    }

    fn node_name(&self, node: Node) -> String {
        match node {
            Node::Class(c) => self.dim_name(self.rep(c)).to_string(),
            Node::Inst(i) => self.kernel.insts[i].name.clone(),
        }
    }

    fn build_tree(&mut self) -> Result<(), LowerError> {
        let k = self.kernel;
        let ncls = self.classes.len();
        let mut depth = vec![0usize; ncls];
        let mut enclosing_of_class = Vec::new();
        for (c, d) in depth.iter_mut().enumerate() {
            let e = self.enclosing(k.dims[self.rep(c)].id, Some(c));
            *d = e.len();
            enclosing_of_class.push(e);
        }
        let parent = |enclosing: &[usize], who: &str| -> Result<Option<usize>, LowerError> {
            let Some(&inner) = enclosing.iter().max_by_key(|&&c| depth[c]) else {
                return Ok(None);
            };
            // The others must enclose the innermost one.
            if depth[inner] + 1 != enclosing.len() {
                return Err(LowerError::unsupported(
                    format!("order(.., {who})"),
                    "the dimensions around a statement are not nested",
                ));
            }
            Ok(Some(inner))
        };
        let mut children = vec![Vec::new(); ncls + 1];
        let mut parent_class = vec![None; ncls];
        for c in 0..ncls {
            let p = parent(&enclosing_of_class[c], self.dim_name(self.rep(c)))?;
            parent_class[c] = p;
            children[p.unwrap_or(ncls)].push(Node::Class(c));
        }
        let mut parent_inst = vec![None; k.insts.len()];
        for (i, inst) in k.insts.iter().enumerate() {
            let e = self.enclosing(inst.id, None);
            let p = parent(&e, &inst.name)?;
            parent_inst[i] = p;
            children[p.unwrap_or(ncls)].push(Node::Inst(i));
        }
        for list in children.iter_mut() {
            for x in 0..list.len() {
                for y in x + 1..list.len() {
                    let o = self.ord(self.node_id(list[x]), self.node_id(list[y]));
                    if o != order::BEFORE && o != order::AFTER {
                        return Err(LowerError::unsupported(
                            format!(
                                "order({}, {})",
                                self.node_name(list[x]),
                                self.node_name(list[y])
                            ),
                            "siblings of the loop nest neither before nor after each other",
                        ));
                    }
                }
            }
            list.sort_by(|&x, &y| {
                if x == y {
                    std::cmp::Ordering::Equal
                } else if self.ord(self.node_id(x), self.node_id(y)) == order::BEFORE {
                    std::cmp::Ordering::Less
                } else {
                    std::cmp::Ordering::Greater
                }
            });
        }
        self.children = children;
        self.parent_inst = parent_inst;
        self.parent_class = parent_class;
        Ok(())
    }

    fn read_subscripts(&mut self) -> Result<(), LowerError> {
        let k = self.kernel;
        let mut subscripts = vec![None; k.arrays.len()];
        for inst in &k.insts {
            if let (Origin::Kernel, Some(Storage::Array(a))) = (inst.origin, inst.storage) {
                let mut logicals: Vec<usize> = Vec::new();
                for &d in &inst.dims {
                    let l = k.dims[d].logical;
                    if !logicals.contains(&l) {
                        logicals.push(l);
                    }
                }
                match &subscripts[a] {
                    None => subscripts[a] = Some(logicals),
                    Some(known) if *known == logicals => {}
                    Some(_) => {
                        return Err(LowerError::unsupported(
                            &k.arrays[a].name,
                            "accessed with different subscripts",
                        ))
                    }
                }
            }
        }
        self.subscripts = subscripts
            .into_iter()
            .enumerate()
            .map(|(a, s)| {
                s.ok_or_else(|| {
                    LowerError::unsupported(&k.arrays[a].name, "no instruction accesses it")
                })
            })
            .collect::<Result<_, _>>()?;
        Ok(())
    }

    // ------------------------------------------------------------ names

    /// The variable of a dimension's iterations.
    fn var(&self, d: usize) -> String {
        let c = self.class_of[d];
        format!("d{c}_{}", ident(self.dim_name(self.rep(c))))
    }

    fn value_var(&self, i: usize) -> String {
        format!("v{i}_{}", ident(&self.kernel.insts[i].name))
    }

    fn block_var(&self, m: usize) -> String {
        let prefix = if self.shared[m] { "s" } else { "t" };
        format!("{prefix}{m}_{}", ident(&self.kernel.blocks[m].name))
    }

    /// The dimension of `inst`'s nest of the same logical dimension and
    /// level as `d`.
    fn mapped_in(&self, inst: usize, d: usize) -> Option<usize> {
        let (l, level) = (self.kernel.dims[d].logical, self.kernel.dims[d].level);
        self.kernel.insts[inst]
            .dims
            .iter()
            .copied()
            .find(|&e| self.kernel.dims[e].logical == l && self.kernel.dims[e].level == level)
    }

    // ------------------------------------------------------------ values

    /// The operands whose values an instruction uses (not the copies it
    /// waits for, nor the spill loads that stand for other operands).
    fn primary_operands(&self, i: usize) -> Vec<usize> {
        let k = self.kernel;
        k.insts[i]
            .operands
            .iter()
            .copied()
            .filter(|&o| {
                let op = &k.insts[o];
                let spill_load = matches!(op.origin, Origin::Spill(_)) && op.op == Op::Load;
                let copy_store = matches!(op.origin, Origin::CopyIn(_)) && op.op == Op::Store;
                !spill_load && !copy_store
            })
            .collect()
    }

    /// What `consumer` reads for its operand `producer`: the spill load
    /// that carries it through memory, if any.
    fn resolved(&self, consumer: usize, producer: usize) -> usize {
        let k = self.kernel;
        k.insts[consumer]
            .operands
            .iter()
            .copied()
            .find(|&o| {
                matches!(k.insts[o].origin, Origin::Spill(t)
                    if k.insts[o].op == Op::Load
                        && k.blocks[t].spilled == Some((producer, consumer)))
            })
            .unwrap_or(producer)
    }

    /// The instruction whose register array holds `i`'s value: an
    /// accumulation updates its first operand's in place.
    fn storage(&self, i: usize, depth: usize) -> Result<usize, LowerError> {
        let inst = &self.kernel.insts[i];
        if inst.op != Op::Fma {
            return Ok(i);
        }
        let Some(&first) = self.primary_operands(i).first() else {
            return Err(LowerError::unsupported(
                &inst.name,
                "an accumulation without operand",
            ));
        };
        if depth > self.kernel.insts.len() {
            return Err(LowerError::unsupported(&inst.name, "cyclic accumulators"));
        }
        self.storage(self.resolved(i, first), depth + 1)
    }

    /// The register-indexed dimensions of an instruction's value.
    fn indexed_dims(&self, i: usize) -> Vec<usize> {
        self.kernel.insts[i]
            .dims
            .iter()
            .copied()
            .filter(|&d| self.kernel.dims[d].is_static() && self.kind[d].in_registers())
            .collect()
    }

    /// The expression of `producer`'s value where `consumer` reads it.
    fn value_expr(&self, consumer: usize, producer: usize) -> Result<String, LowerError> {
        let k = self.kernel;
        let owner = self.storage(self.resolved(consumer, producer), 0)?;
        let mut expr = self.value_var(owner);
        for &d in &k.insts[owner].dims {
            let here = self.mapped_in(consumer, d);
            let what = || {
                format!(
                    "{} -> {} along {}",
                    k.insts[owner].name,
                    k.insts[consumer].name,
                    self.dim_name(d)
                )
            };
            let Some(e) = here else {
                return Err(LowerError::unsupported(
                    what(),
                    "a value read where its dimension is not iterated",
                ));
            };
            if k.dims[d].is_static() && self.kind[d].in_registers() {
                write!(expr, "[{}]", self.var(e)).ok();
            } else if self.kind[d] == Kind::Thread {
                if self.kind[e] != Kind::Thread
                    || self.axis[self.class_of[d]] != self.axis[self.class_of[e]]
                {
                    return Err(LowerError::unsupported(
                        what(),
                        "a value held by threads read along another index",
                    ));
                }
            } else if self.class_of[d] != self.class_of[e] {
                return Err(LowerError::unsupported(
                    what(),
                    "a value held in a register across loops that are not fused",
                ));
            }
        }
        Ok(expr)
    }

    // ------------------------------------------------------------ memory accesses

    /// Index of an element of block `m` seen from instruction `i`.
    fn block_index(&self, m: usize, i: usize) -> Result<String, LowerError> {
        Ok(format_terms(&self.block_terms(m, i)?))
    }

    /// The terms of the index of an element of block `m` seen from
    /// instruction `i`.
    fn block_terms(&self, m: usize, i: usize) -> Result<Vec<Term>, LowerError> {
        let k = self.kernel;
        let block = &k.blocks[m];
        let mut dims = block.dims.clone();
        if let Some(c) = self.contiguous[m] {
            dims.retain(|&d| d != c);
            dims.push(c);
        }
        let mut terms = Vec::new();
        let mut stride = 1u64;
        for &d in dims.iter().rev() {
            let (var, constant) = match self.mapped_in(i, d) {
                Some(e) => {
                    // A private temporary: each thread sees only its own
                    // iterations of the thread indices it was written on.
                    if !self.shared[m]
                        && self.kind[d] == Kind::Thread
                        && (self.kind[e] != Kind::Thread
                            || self.axis[self.class_of[d]] != self.axis[self.class_of[e]])
                    {
                        return Err(LowerError::unsupported(
                            format!("mem_space({})", block.name),
                            "a thread-private temporary written along a thread index and read along another dimension",
                        ));
                    }
                    (self.var(e), None)
                }
                None => {
                    // A spilled accumulation read after its reduction:
                    // the last iteration holds the total.
                    let producer = block.spilled.map(|(p, _)| p);
                    if producer.is_some_and(|p| k.insts[p].reductions.contains(&k.dims[d].logical))
                    {
                        (format!("{}", self.trips[d] - 1), Some(self.trips[d] - 1))
                    } else {
                        return Err(LowerError::unsupported(
                            format!("{} in {}", block.name, k.insts[i].name),
                            format!("no dimension of the access maps to {}", self.dim_name(d)),
                        ));
                    }
                }
            };
            terms.push(Term {
                expr: var,
                stride,
                constant,
            });
            stride *= self.trips[d];
        }
        terms.reverse();
        Ok(terms)
    }

    fn block_elems(&self, m: usize) -> u64 {
        self.kernel.blocks[m]
            .dims
            .iter()
            .map(|&d| self.trips[d])
            .product()
    }

    /// Index of an element of array `a` seen from instruction `i`.
    fn array_index(&self, a: usize, i: usize) -> Result<String, LowerError> {
        Ok(format_terms(&self.array_terms(a, i)?))
    }

    /// The terms of the index of an element of array `a` seen from
    /// instruction `i`.
    fn array_terms(&self, a: usize, i: usize) -> Result<Vec<Term>, LowerError> {
        let k = self.kernel;
        let inst = &k.insts[i];
        let mut terms = Vec::new();
        let mut stride = 1u64;
        for &l in self.subscripts[a].iter().rev() {
            let mut dims: Vec<usize> = inst
                .dims
                .iter()
                .copied()
                .filter(|&d| k.dims[d].logical == l)
                .collect();
            dims.sort_by_key(|&d| k.dims[d].level);
            let levels: BTreeSet<usize> = dims.iter().map(|&d| k.dims[d].level).collect();
            if levels.len() != k.logicals[l].levels + 1 || dims.len() != levels.len() {
                return Err(LowerError::unsupported(
                    format!("{} in {}", k.arrays[a].name, inst.name),
                    format!(
                        "the access does not iterate every level of {}",
                        k.logicals[l].name
                    ),
                ));
            }
            let mut inner = 1u64;
            for &d in dims.iter().rev() {
                terms.push(Term {
                    expr: self.var(d),
                    stride: stride * inner,
                    constant: None,
                });
                inner *= if k.dims[d].is_static() {
                    self.trips[d]
                } else {
                    1
                };
            }
            stride *= k.logicals[l].extent;
        }
        terms.reverse();
        Ok(terms)
    }

    /// Where a load or a store accesses memory: the array or block
    /// variable, the terms of the index, and whether it is global memory.
    fn access(&self, i: usize) -> Result<Option<(String, Vec<Term>, bool)>, LowerError> {
        let k = self.kernel;
        let inst = &k.insts[i];
        Ok(match inst.block {
            Some(m) if self.shared[m] || k.blocks[m].array.is_none() => {
                Some((self.block_var(m), self.block_terms(m, i)?, false))
            }
            _ => match inst.storage {
                Some(Storage::Array(a)) => {
                    Some((ident(&k.arrays[a].name), self.array_terms(a, i)?, true))
                }
                _ => None,
            },
        })
    }

    /// The access of a load or store inside the vector dimensions `c` as
    /// one vector access, when its first lane's index is provably a
    /// multiple of the lanes (arrays and blocks are 16-byte aligned): the
    /// lane's variable indexes it with stride 1 and every other term is a
    /// multiple of the lanes. `None` when not.
    fn vector_statement(
        &self,
        i: usize,
        c: usize,
        lanes: u32,
    ) -> Result<Option<String>, LowerError> {
        let k = self.kernel;
        let inst = &k.insts[i];
        let vt = match (self.elem, lanes) {
            ("float", 2) => "cm_float2",
            ("float", 4) => "cm_float4",
            ("double", 2) => "cm_double2",
            _ => return Ok(None),
        };
        if !matches!(inst.op, Op::Load | Op::Store) {
            return Ok(None);
        }
        let Some((base, terms, global)) = self.access(i)? else {
            return Ok(None);
        };
        let lane = self.var(self.rep(c));
        let lanes64 = u64::from(lanes);
        let (lane_terms, others): (Vec<Term>, Vec<Term>) =
            terms.into_iter().partition(|t| t.expr == lane);
        let aligned = lane_terms.len() == 1
            && lane_terms[0].stride == 1
            && others
                .iter()
                .all(|t| (t.stride * t.constant.unwrap_or(lanes64)) % lanes64 == 0);
        if !aligned {
            return Ok(None);
        }
        let index = format_terms(&others);
        let letter = if self.elem == "double" { 'd' } else { 'f' };
        let trips = lanes;
        if inst.op == Op::Load {
            let target = self.own_index(i)?;
            let ptr = format!("(const {vt}*)&{base}[{index}]");
            let load = match (global, self.cache[i]) {
                (true, Some(cache::READ_ONLY)) => format!("__nvvm_ldg_{letter}{lanes}({ptr})"),
                (true, Some(cache::L2)) => format!("cm_ld_cg({ptr})"),
                (true, Some(cache::STREAMING)) => format!("cm_ld_cs({ptr})"),
                _ => format!("*{ptr}"),
            };
            Ok(Some(format!(
                "{{ const {vt} cm_v = {load}; for (int {lane} = 0; {lane} < {trips}; ++{lane}) {target} = cm_v[{lane}]; }}"
            )))
        } else {
            let Some(&operand) = self.primary_operands(i).first() else {
                return Ok(None);
            };
            let value = self.value_expr(i, operand)?;
            let ptr = format!("({vt}*)&{base}[{index}]");
            let store = match (global, self.cache[i]) {
                (true, Some(cache::L2)) => format!("cm_st_cg({ptr}, cm_v);"),
                (true, Some(cache::STREAMING)) => format!("cm_st_cs({ptr}, cm_v);"),
                _ => format!("*{ptr} = cm_v;"),
            };
            Ok(Some(format!(
                "{{ {vt} cm_v; for (int {lane} = 0; {lane} < {trips}; ++{lane}) cm_v[{lane}] = {value}; {store} }}"
            )))
        }
    }

    fn global_load(&self, i: usize, a: usize) -> Result<String, LowerError> {
        let addr = format!(
            "&{}[{}]",
            ident(&self.kernel.arrays[a].name),
            self.array_index(a, i)?
        );
        let ldg = if self.elem_bytes == 8 {
            "__nvvm_ldg_d"
        } else {
            "__nvvm_ldg_f"
        };
        Ok(match self.cache[i] {
            Some(cache::READ_ONLY) => format!("{ldg}({addr})"),
            Some(cache::L2) => format!("cm_ld_cg({addr})"),
            Some(cache::STREAMING) => format!("cm_ld_cs({addr})"),
            _ => format!("*({addr})"),
        })
    }

    fn global_store(&self, i: usize, a: usize, value: &str) -> Result<String, LowerError> {
        let addr = format!(
            "&{}[{}]",
            ident(&self.kernel.arrays[a].name),
            self.array_index(a, i)?
        );
        Ok(match self.cache[i] {
            Some(cache::L2) => format!("cm_st_cg({addr}, {value});"),
            Some(cache::STREAMING) => format!("cm_st_cs({addr}, {value});"),
            _ => format!("*({addr}) = {value};"),
        })
    }

    /// The element of its own register array an instruction writes.
    fn own_index(&self, i: usize) -> Result<String, LowerError> {
        let mut s = self.value_var(i);
        for d in self.indexed_dims(i) {
            let e = self.mapped_in(i, d).ok_or_else(|| {
                LowerError::unsupported(
                    &self.kernel.insts[i].name,
                    "a value's dimension not iterated",
                )
            })?;
            write!(s, "[{}]", self.var(e)).ok();
        }
        Ok(s)
    }

    /// The C statement of an instruction.
    fn statement(&self, i: usize) -> Result<String, LowerError> {
        let k = self.kernel;
        let inst = &k.insts[i];
        match inst.op {
            Op::Init => Ok(format!("{} = 0;", self.own_index(i)?)),
            Op::Fma => {
                let operands = self.primary_operands(i);
                let Some((&first, rest)) = operands.split_first() else {
                    return Err(LowerError::unsupported(
                        &inst.name,
                        "an accumulation without operand",
                    ));
                };
                let acc = self.value_expr(i, first)?;
                let factors = rest
                    .iter()
                    .map(|&o| self.value_expr(i, o))
                    .collect::<Result<Vec<_>, _>>()?;
                if factors.is_empty() {
                    return Err(LowerError::unsupported(
                        &inst.name,
                        "an accumulation of nothing",
                    ));
                }
                Ok(format!("{acc} += {};", factors.join(" * ")))
            }
            Op::Load => {
                let target = self.own_index(i)?;
                let source = match inst.block {
                    Some(m) if self.shared[m] || k.blocks[m].array.is_none() => {
                        format!("{}[{}]", self.block_var(m), self.block_index(m, i)?)
                    }
                    _ => match inst.storage {
                        Some(Storage::Array(a)) => self.global_load(i, a)?,
                        _ => return Err(LowerError::unsupported(&inst.name, "a load of nothing")),
                    },
                };
                Ok(format!("{target} = {source};"))
            }
            Op::Store => {
                let operands = self.primary_operands(i);
                let Some(&value) = operands.first() else {
                    return Err(LowerError::unsupported(&inst.name, "a store without value"));
                };
                let value = self.value_expr(i, value)?;
                match inst.block {
                    Some(m) if self.shared[m] || k.blocks[m].array.is_none() => Ok(format!(
                        "{}[{}] = {value};",
                        self.block_var(m),
                        self.block_index(m, i)?
                    )),
                    _ => match inst.storage {
                        Some(Storage::Array(a)) => self.global_store(i, a, &value),
                        _ => Err(LowerError::unsupported(&inst.name, "a store to nothing")),
                    },
                }
            }
        }
    }

    // ------------------------------------------------------------ synchronization

    /// The path of classes from the root to a node (the node included if
    /// it is a class).
    fn path(&self, node: Node) -> Vec<usize> {
        let mut path = Vec::new();
        let mut at = match node {
            Node::Class(c) => Some(c),
            Node::Inst(i) => self.parent_inst[i],
        };
        while let Some(c) = at {
            path.push(c);
            at = self.parent_class[c];
        }
        path.reverse();
        path
    }

    /// How many times a thread runs a node (for a class, its body): the
    /// iterations of the loops around it.
    fn repetitions(&self, node: Node) -> u64 {
        self.path(node)
            .iter()
            .filter(|&&c| {
                matches!(
                    self.class_kind(c),
                    Kind::Loop | Kind::Unroll | Kind::Vector(_)
                )
            })
            .map(|&c| self.trips[self.rep(c)])
            .fold(1u64, u64::saturating_mul)
    }

    /// Where `__syncthreads()` goes: (parent, position among its children)
    /// meaning before the child at that position (or at the end).
    fn barriers(&self) -> BTreeSet<(usize, usize)> {
        let k = self.kernel;
        let root = self.classes.len();
        let mut out = BTreeSet::new();
        for (m, block) in k.blocks.iter().enumerate() {
            if !self.shared[m] {
                continue;
            }
            for &w in &block.writers {
                for &r in &block.readers {
                    let (pw, pr) = (self.path(Node::Inst(w)), self.path(Node::Inst(r)));
                    let common = pw.iter().zip(pr.iter()).take_while(|(a, b)| a == b).count();
                    let lca = if common == 0 { root } else { pw[common - 1] };
                    let child = |path: &[usize], inst: usize| {
                        path.get(common)
                            .map_or(Node::Inst(inst), |&c| Node::Class(c))
                    };
                    let (cw, cr) = (child(&pw, w), child(&pr, r));
                    let list = &self.children[lca];
                    let (Some(xw), Some(xr)) = (
                        list.iter().position(|&n| n == cw),
                        list.iter().position(|&n| n == cr),
                    ) else {
                        continue;
                    };
                    if xw < xr {
                        out.insert((lca, xr));
                        // Again after the reader when both run again in a
                        // loop, so that the next write waits for the reads.
                        let repeated = pw[..common].iter().any(|&c| {
                            matches!(
                                self.class_kind(c),
                                Kind::Loop | Kind::Unroll | Kind::Vector(_)
                            )
                        });
                        if repeated {
                            out.insert((lca, xr + 1));
                        }
                    }
                }
            }
        }
        out
    }

    // ------------------------------------------------------------ emission

    fn emit(&self) -> Result<CudaKernel, LowerError> {
        let k = self.kernel;
        let name = ident(&k.name);
        let mut body = String::new();
        self.header(&mut body);
        let params: Vec<Param> = k
            .arrays
            .iter()
            .enumerate()
            .map(|(a, array)| Param {
                name: ident(&array.name),
                elem_bytes: array.elem_bytes,
                extents: self.subscripts[a]
                    .iter()
                    .map(|&l| k.logicals[l].extent)
                    .collect(),
                written: array.written,
                read: k.insts.iter().any(|i| {
                    i.op == Op::Load
                        && i.origin == Origin::Kernel
                        && i.storage == Some(Storage::Array(a))
                }),
            })
            .collect();
        let args: Vec<String> = params
            .iter()
            .map(|p| {
                let c = if p.written { "" } else { "const " };
                format!("{c}{}* __restrict__ {}", self.elem, p.name)
            })
            .collect();
        writeln!(
            body,
            "extern \"C\" __global__ void {name}({}) {{",
            args.join(", ")
        )
        .ok();
        // Indices.
        let axes = ["x", "y", "z"];
        for (c, members) in self.classes.iter().enumerate() {
            let (kind, Some(axis)) = (self.class_kind(c), self.axis[c]) else {
                continue;
            };
            let (reg, what) = if kind == Kind::Block {
                ("ctaid", "blockIdx")
            } else {
                ("tid", "threadIdx")
            };
            let names: Vec<&str> = members.iter().map(|&d| self.dim_name(d)).collect();
            writeln!(
                body,
                "  const int {} = __nvvm_read_ptx_sreg_{reg}_{}(); // {}.{}: {} ({})",
                self.var(members[0]),
                axes[axis],
                what,
                axes[axis],
                names.join(", "),
                kind.name()
            )
            .ok();
        }
        // Registers.
        for (i, inst) in k.insts.iter().enumerate() {
            if matches!(inst.op, Op::Load | Op::Init) {
                let dims: String = self
                    .indexed_dims(i)
                    .iter()
                    .map(|&d| format!("[{}]", self.trips[d]))
                    .collect();
                writeln!(
                    body,
                    "  {} {}{dims}; // value of {}",
                    self.elem,
                    self.value_var(i),
                    inst.name
                )
                .ok();
            }
        }
        // Memory blocks placed in shared memory, and private temporaries.
        let mut shared_bytes = 0;
        let mut shared_blocks = 0;
        for (m, block) in k.blocks.iter().enumerate() {
            let elems = self.block_elems(m);
            if self.shared[m] {
                shared_bytes += elems * self.elem_bytes as u64;
                shared_blocks += 1;
                writeln!(
                    body,
                    "  __shared__ {} {}[{elems}] __attribute__((aligned(16))); // {} in shared memory",
                    self.elem,
                    self.block_var(m),
                    block.name
                )
                .ok();
            } else if block.array.is_none() {
                writeln!(
                    body,
                    "  {} {}[{elems}] __attribute__((aligned(16))); // {}, private to each thread",
                    self.elem,
                    self.block_var(m),
                    block.name
                )
                .ok();
            }
        }
        let barriers = self.barriers();
        self.emit_children(&mut body, self.classes.len(), 1, &barriers)?;
        body.push_str("}\n");
        let root = self.classes.len();
        let barriers_per_block = barriers
            .iter()
            .map(|&(parent, _)| {
                if parent == root {
                    1
                } else {
                    self.repetitions(Node::Class(parent))
                }
            })
            .fold(0u64, u64::saturating_add);
        let steps_per_thread = (0..k.insts.len())
            .map(|i| self.repetitions(Node::Inst(i)))
            .fold(0u64, u64::saturating_add);
        Ok(CudaKernel {
            name,
            params,
            grid: self.grid,
            block: self.block,
            shared_bytes,
            shared_blocks,
            barriers_per_block,
            steps_per_thread,
            prelude: PRELUDE.to_string(),
            body,
        })
    }

    fn header(&self, out: &mut String) {
        let k = self.kernel;
        writeln!(
            out,
            "// Kernel `{}`, lowered from a fully decided candidate of the GPU space.",
            k.name
        )
        .ok();
        writeln!(
            out,
            "// Launch: grid ({}, {}, {}), block ({}, {}, {}).",
            self.grid[0], self.grid[1], self.grid[2], self.block[0], self.block[1], self.block[2]
        )
        .ok();
        writeln!(out, "// Dimensions (kind, iterations, fused with):").ok();
        for (d, dim) in k.dims.iter().enumerate() {
            let fused: Vec<&str> = self.classes[self.class_of[d]]
                .iter()
                .filter(|&&e| e != d)
                .map(|&e| self.dim_name(e))
                .collect();
            let axis = self.axis[self.class_of[d]]
                .map_or(String::new(), |a| format!(" on {}", ["x", "y", "z"][a]));
            writeln!(
                out,
                "//   {:<28} {:<8} {:>5}{axis}{}",
                dim.name,
                self.kind[d].name(),
                self.trips[d],
                if fused.is_empty() {
                    String::new()
                } else {
                    format!("  fused with {}", fused.join(", "))
                }
            )
            .ok();
        }
        writeln!(out, "// Memory blocks (placement, fastest dimension):").ok();
        for (m, block) in k.blocks.iter().enumerate() {
            writeln!(
                out,
                "//   {:<28} {:<6} {}",
                block.name,
                if self.shared[m] { "SHARED" } else { "GLOBAL" },
                self.contiguous[m].map_or("-", |d| self.dim_name(d))
            )
            .ok();
        }
        writeln!(out, "// Cache directives:").ok();
        for (i, inst) in k.insts.iter().enumerate() {
            if let Some(c) = self.cache[i] {
                let name = match c {
                    cache::L1 => "L1 (plain load)",
                    cache::L2 => "L2 (.cg)",
                    cache::STREAMING => "STREAMING (.cs)",
                    cache::READ_ONLY => "READ_ONLY (ldg)",
                    _ => "SHARED",
                };
                writeln!(out, "//   {:<28} {name}", inst.name).ok();
            }
        }
        let transfers = self.transfers();
        if !transfers.is_empty() {
            writeln!(out, "// Transfers between nests:").ok();
            for t in transfers {
                writeln!(out, "//   {t}").ok();
            }
        }
    }

    fn transfers(&self) -> Vec<String> {
        let k = self.kernel;
        let mut out = Vec::new();
        for a in 0..k.dims.len() {
            for b in a + 1..k.dims.len() {
                if !(k.dims[a].is_static() && k.dims[b].is_static()) {
                    continue;
                }
                let Ok(Domain::Enum(mask)) =
                    self.domain(transfer::CHOICE, vec![k.dims[a].id, k.dims[b].id])
                else {
                    continue;
                };
                let name = match mask {
                    transfer::FUSED => "FUSED",
                    transfer::REGISTERS => "REGISTERS",
                    transfer::THREADS => "THREADS",
                    transfer::MEMORY => "MEMORY",
                    _ => continue,
                };
                out.push(format!(
                    "{} - {}: {name}",
                    self.dim_name(a),
                    self.dim_name(b)
                ));
            }
        }
        out
    }

    fn emit_children(
        &self,
        out: &mut String,
        parent: usize,
        indent: usize,
        barriers: &BTreeSet<(usize, usize)>,
    ) -> Result<(), LowerError> {
        let pad = "  ".repeat(indent);
        let list = &self.children[parent];
        for (x, &node) in list.iter().enumerate() {
            if barriers.contains(&(parent, x)) {
                writeln!(out, "{pad}__syncthreads();").ok();
            }
            match node {
                Node::Inst(i) => {
                    let s = self.statement(i)?;
                    writeln!(out, "{pad}{s} // {}", self.kernel.insts[i].name).ok();
                }
                Node::Class(c) => self.emit_class(out, c, indent, barriers)?,
            }
        }
        if barriers.contains(&(parent, list.len())) {
            writeln!(out, "{pad}__syncthreads();").ok();
        }
        Ok(())
    }

    fn emit_class(
        &self,
        out: &mut String,
        c: usize,
        indent: usize,
        barriers: &BTreeSet<(usize, usize)>,
    ) -> Result<(), LowerError> {
        let pad = "  ".repeat(indent);
        let members: Vec<&str> = self.classes[c].iter().map(|&d| self.dim_name(d)).collect();
        let rep = self.rep(c);
        let kind = self.class_kind(c);
        let trips = self.trips[rep];
        let var = self.var(rep);
        let dim = &self.kernel.dims[rep];
        let what = format!(
            "{} {} (level {} of {}, {} iterations)",
            kind.name(),
            members.join(" = "),
            dim.level,
            self.kernel.logicals[dim.logical].name,
            trips
        );
        match kind {
            Kind::Block | Kind::Thread => {
                let axis = ["x", "y", "z"][self.axis[c].unwrap_or(0)];
                let index = if kind == Kind::Block {
                    "blockIdx"
                } else {
                    "threadIdx"
                };
                writeln!(out, "{pad}{{ // {what}: {var} = {index}.{axis}").ok();
            }
            Kind::Loop => {
                writeln!(out, "{pad}// {what}").ok();
                writeln!(out, "{pad}for (int {var} = 0; {var} < {trips}; ++{var}) {{").ok();
            }
            Kind::Unroll => {
                writeln!(out, "{pad}// {what}").ok();
                writeln!(out, "{pad}#pragma unroll").ok();
                writeln!(out, "{pad}for (int {var} = 0; {var} < {trips}; ++{var}) {{").ok();
            }
            Kind::Vector(lanes) => {
                let vectors = self.children[c]
                    .iter()
                    .map(|&node| match node {
                        Node::Inst(i) => self.vector_statement(i, c, lanes),
                        Node::Class(_) => Ok(None),
                    })
                    .collect::<Result<Vec<_>, _>>()?;
                let barrier_inside = barriers.iter().any(|&(p, _)| p == c);
                if !barrier_inside && vectors.iter().all(Option::is_some) {
                    writeln!(out, "{pad}{{ // {what}").ok();
                    writeln!(
                        out,
                        "{pad}  // One {}-byte vector access per instruction: the first lane's index is a",
                        u64::from(lanes) * self.elem_bytes as u64
                    )
                    .ok();
                    writeln!(
                        out,
                        "{pad}  // multiple of {lanes} and arrays and blocks are 16-byte aligned."
                    )
                    .ok();
                    for (&node, code) in self.children[c].iter().zip(vectors) {
                        let name = self.node_name(node);
                        writeln!(out, "{pad}  {} // {name}", code.unwrap_or_default()).ok();
                    }
                    writeln!(out, "{pad}}}").ok();
                    return Ok(());
                }
                writeln!(out, "{pad}// {what}").ok();
                writeln!(
                    out,
                    "{pad}// Vector lanes as an unrolled loop over consecutive elements, left to the"
                )
                .ok();
                writeln!(
                    out,
                    "{pad}// compiler's vectorizer: the alignment of the first lane of some access"
                )
                .ok();
                writeln!(out, "{pad}// here is not proven.").ok();
                writeln!(out, "{pad}#pragma unroll").ok();
                writeln!(out, "{pad}for (int {var} = 0; {var} < {trips}; ++{var}) {{").ok();
            }
        }
        self.emit_children(out, c, indent + 1, barriers)?;
        writeln!(out, "{pad}}}").ok();
        Ok(())
    }
}

fn read_domain(leaf: &Leaf, choice: u16, objects: Vec<ObjectId>) -> Result<Domain, LowerError> {
    let instance = InstanceId { choice, objects };
    leaf.domain(&instance).ok_or_else(|| {
        LowerError::unsupported(
            instance_name(leaf, &instance),
            "no such instance in the candidate",
        )
    })
}

/// The one value of an enum instance, as its mask.
fn enum_value(leaf: &Leaf, choice: u16, objects: Vec<ObjectId>) -> Result<u64, LowerError> {
    let instance = InstanceId {
        choice,
        objects: objects.clone(),
    };
    match read_domain(leaf, choice, objects)? {
        Domain::Enum(mask) if mask.count_ones() == 1 => Ok(mask),
        other => Err(LowerError::Undecided {
            instance: instance_name(leaf, &instance),
            values_left: other.len(),
        }),
    }
}

/// The one value of an integer instance.
fn int_value(leaf: &Leaf, choice: u16, objects: Vec<ObjectId>) -> Result<i64, LowerError> {
    let instance = InstanceId {
        choice,
        objects: objects.clone(),
    };
    match read_domain(leaf, choice, objects)? {
        Domain::Integer { universe, mask } if mask.count_ones() == 1 => universe
            .get(mask.trailing_zeros() as usize)
            .copied()
            .ok_or_else(|| {
                LowerError::unsupported(instance_name(leaf, &instance), "value out of its universe")
            }),
        other => Err(LowerError::Undecided {
            instance: instance_name(leaf, &instance),
            values_left: other.len(),
        }),
    }
}

// ------------------------------------------------------------ compilers

/// Why running a tool failed.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ToolError {
    /// What was run, with the files it was given.
    pub command: String,
    /// What went wrong: the exit status or the timeout, and the tool's
    /// standard error.
    pub message: String,
}

impl fmt::Display for ToolError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "`{}` failed: {}", self.command, self.message)
    }
}

impl std::error::Error for ToolError {}

/// What a finished command printed.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Ran {
    /// Its standard output.
    pub stdout: String,
    /// Its standard error.
    pub stderr: String,
    /// Its exit code (`None` when a signal ended it).
    pub code: Option<i32>,
    /// How long it ran.
    pub elapsed: Duration,
}

/// Runs `command` in `dir` (its output captured in files there), killing
/// it past `timeout`; an error unless it exits with 0.
pub fn run_command(mut command: Command, dir: &Path, timeout: Duration) -> Result<Ran, ToolError> {
    static RUNS: AtomicUsize = AtomicUsize::new(0);
    let n = RUNS.fetch_add(1, Ordering::Relaxed);
    let shown = format!("{command:?}");
    let fail = |message: String| ToolError {
        command: shown.clone(),
        message,
    };
    let out_path = dir.join(format!("stdout.{n}.txt"));
    let err_path = dir.join(format!("stderr.{n}.txt"));
    let out = std::fs::File::create(&out_path)
        .map_err(|e| fail(format!("{}: {e}", out_path.display())))?;
    let err = std::fs::File::create(&err_path)
        .map_err(|e| fail(format!("{}: {e}", err_path.display())))?;
    let start = Instant::now();
    let mut child = command
        .current_dir(dir)
        .stdin(Stdio::null())
        .stdout(out)
        .stderr(err)
        .spawn()
        .map_err(|e| fail(format!("cannot start: {e}")))?;
    let status = loop {
        match child.try_wait() {
            Ok(Some(status)) => break status,
            Ok(None) if start.elapsed() > timeout => {
                let _ = child.kill();
                let _ = child.wait();
                let stderr = std::fs::read_to_string(&err_path).unwrap_or_default();
                return Err(fail(format!(
                    "killed after the timeout of {timeout:?}\n{stderr}"
                )));
            }
            Ok(None) => std::thread::sleep(Duration::from_millis(5)),
            Err(e) => return Err(fail(format!("cannot wait: {e}"))),
        }
    };
    let elapsed = start.elapsed();
    let stdout = std::fs::read_to_string(&out_path).unwrap_or_default();
    let stderr = std::fs::read_to_string(&err_path).unwrap_or_default();
    if !status.success() {
        return Err(fail(format!("{status}\n{stderr}")));
    }
    Ok(Ran {
        stdout,
        stderr,
        code: status.code(),
        elapsed,
    })
}

/// A fresh folder under the system's temporary one.
pub fn temp_dir(tag: &str) -> Result<PathBuf, ToolError> {
    static DIRS: AtomicUsize = AtomicUsize::new(0);
    let n = DIRS.fetch_add(1, Ordering::Relaxed);
    let dir = std::env::temp_dir().join(format!("commute-{tag}-{}-{n}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).map_err(|e| ToolError {
        command: format!("mkdir {}", dir.display()),
        message: e.to_string(),
    })?;
    Ok(dir)
}

/// The clang that compiles CUDA: the first of `clang-22`, `clang-21`,
/// `clang-20` and `clang` in `PATH`, the order in which the loop tuner's
/// harness (`commute_loops::harness::Compiler::detect`) looks for a
/// compiler (the spaces crate does not depend on it; `cc` and `gcc`,
/// its last resorts, do not compile CUDA). `COMMUTE_CLANG` overrides.
pub fn find_clang() -> Option<PathBuf> {
    if let Some(path) = std::env::var_os("COMMUTE_CLANG") {
        return Some(PathBuf::from(path));
    }
    ["clang-22", "clang-21", "clang-20", "clang"]
        .iter()
        .find_map(|name| find_in_path(name))
}

/// The C++ compiler next to a clang (`clang-22` → `clang++-22`), for the
/// emulator.
pub fn clang_cxx(clang: &Path) -> PathBuf {
    let name = clang
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default();
    let cxx = name.replacen("clang", "clang++", 1);
    let sibling = clang.with_file_name(&cxx);
    if sibling.is_file() {
        sibling
    } else {
        find_in_path(&cxx).unwrap_or_else(|| clang.to_path_buf())
    }
}

/// `name` in one of `PATH`'s folders.
pub fn find_in_path(name: &str) -> Option<PathBuf> {
    let paths = std::env::var_os("PATH")?;
    std::env::split_paths(&paths)
        .map(|dir| dir.join(name))
        .find(|p| p.is_file())
}

/// Compiles a lowered kernel to PTX (sm_80, PTX 7.5) with `clang` in a
/// temporary folder, killing it past `timeout`. The folder is removed on
/// success and kept on failure (the error names it).
pub fn compile_ptx(
    kernel: &CudaKernel,
    clang: &Path,
    timeout: Duration,
) -> Result<String, ToolError> {
    let dir = temp_dir("ptx")?;
    let input = dir.join(format!("{}.cu", kernel.name));
    let output = dir.join(format!("{}.ptx", kernel.name));
    std::fs::write(&input, kernel.source()).map_err(|e| ToolError {
        command: format!("write {}", input.display()),
        message: e.to_string(),
    })?;
    let mut command = Command::new(clang);
    command
        .args([
            "-x",
            "cuda",
            "--cuda-device-only",
            "-nocudainc",
            "-nocudalib",
        ])
        .args([
            "--cuda-gpu-arch=sm_80",
            "-Xclang",
            "-target-feature",
            "-Xclang",
            "+ptx75",
        ])
        .args(["-O2", "-S", "-o"])
        .arg(&output)
        .arg(&input);
    let ran = run_command(command, &dir, timeout).map_err(|mut e| {
        e.message = format!("{} (file {})", e.message, input.display());
        e
    })?;
    let ptx = std::fs::read_to_string(&output).map_err(|e| ToolError {
        command: format!("read {}", output.display()),
        message: format!("{e}; clang said: {}", ran.stderr),
    })?;
    let _ = std::fs::remove_dir_all(&dir);
    Ok(ptx)
}
