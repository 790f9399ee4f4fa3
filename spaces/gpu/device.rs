// Running lowered kernels. Included in
// `commute_spaces::gpu::device`.
//
// `Emulated` compiles the CUDA source for the host CPU with clang++ and a
// shim: the threads of a block are fibers (`ucontext`) of one OS thread,
// `threadIdx` and `blockIdx` are globals set at each switch,
// `__syncthreads()` hands over to the next fiber (round robin) and
// `__shared__` arrays are function statics, which is right because the
// blocks run one after another. `Cuda` loads the PTX through the CUDA
// driver API (dlopen of libcuda.so.1) from a small C host
// program compiled with clang, and times the launch with CUDA events.

use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::Duration;

use super::cuda::{compile_ptx, run_command, temp_dir, CudaKernel};

/// The outputs of one run.
#[derive(Clone, Debug, PartialEq)]
pub struct Run {
    /// Every array after the run, in the kernel's parameter order.
    pub arrays: Vec<Vec<f64>>,
    /// The kernel's time (the whole grid).
    pub time: Duration,
}

/// Why a run failed.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum DeviceError {
    /// There is no CUDA driver to run on.
    NoDriver(String),
    /// The inputs do not fit the kernel's parameters.
    Inputs(String),
    /// Compiling the kernel or the program around it failed.
    Compile(String),
    /// Running it failed or timed out.
    Run(String),
}

impl std::fmt::Display for DeviceError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            DeviceError::NoDriver(why) => write!(f, "no CUDA driver on this machine ({why})"),
            DeviceError::Inputs(why) => write!(f, "bad inputs: {why}"),
            DeviceError::Compile(why) => write!(f, "compilation failed: {why}"),
            DeviceError::Run(why) => write!(f, "run failed: {why}"),
        }
    }
}

impl std::error::Error for DeviceError {}

/// Something that runs lowered kernels.
pub trait Device {
    /// A name for messages.
    fn name(&self) -> String;

    /// Runs `kernel` once on `inputs` (one array per parameter, in order)
    /// and returns every array after the run and the kernel's time.
    fn run(&self, kernel: &CudaKernel, inputs: &[Vec<f64>]) -> Result<Run, DeviceError>;
}

/// Writes the inputs to files `p0.bin`, ... in `dir`, in the kernel's
/// element type.
fn write_inputs(
    kernel: &CudaKernel,
    inputs: &[Vec<f64>],
    dir: &Path,
) -> Result<Vec<PathBuf>, DeviceError> {
    if inputs.len() != kernel.params.len() {
        return Err(DeviceError::Inputs(format!(
            "{} arrays for {} parameters",
            inputs.len(),
            kernel.params.len()
        )));
    }
    let mut paths = Vec::new();
    for (p, (param, values)) in kernel.params.iter().zip(inputs).enumerate() {
        if values.len() != param.len() {
            return Err(DeviceError::Inputs(format!(
                "{}: {} values for {} elements",
                param.name,
                values.len(),
                param.len()
            )));
        }
        let bytes: Vec<u8> = if param.elem_bytes == 8 {
            values.iter().flat_map(|v| v.to_le_bytes()).collect()
        } else {
            values
                .iter()
                .flat_map(|&v| (v as f32).to_le_bytes())
                .collect()
        };
        let path = dir.join(format!("p{p}.bin"));
        std::fs::write(&path, bytes)
            .map_err(|e| DeviceError::Inputs(format!("{}: {e}", path.display())))?;
        paths.push(path);
    }
    Ok(paths)
}

/// Reads the arrays back from the files.
fn read_arrays(kernel: &CudaKernel, paths: &[PathBuf]) -> Result<Vec<Vec<f64>>, DeviceError> {
    let mut out = Vec::new();
    for (param, path) in kernel.params.iter().zip(paths) {
        let bytes = std::fs::read(path)
            .map_err(|e| DeviceError::Run(format!("{}: {e}", path.display())))?;
        let values: Vec<f64> = if param.elem_bytes == 8 {
            bytes
                .chunks_exact(8)
                .map(|c| f64::from_le_bytes([c[0], c[1], c[2], c[3], c[4], c[5], c[6], c[7]]))
                .collect()
        } else {
            bytes
                .chunks_exact(4)
                .map(|c| f32::from_le_bytes([c[0], c[1], c[2], c[3]]) as f64)
                .collect()
        };
        if values.len() != param.len() {
            return Err(DeviceError::Run(format!(
                "{}: read {} values for {} elements",
                path.display(),
                values.len(),
                param.len()
            )));
        }
        out.push(values);
    }
    Ok(out)
}

/// The kernel's time, printed by the programs as `elapsed_ns N`.
fn parse_time(stdout: &str) -> Result<Duration, DeviceError> {
    stdout
        .lines()
        .find_map(|l| l.strip_prefix("elapsed_ns "))
        .and_then(|n| n.trim().parse::<u64>().ok())
        .map(Duration::from_nanos)
        .ok_or_else(|| DeviceError::Run(format!("no time in the output: {stdout}")))
}

/// The emulator's stand-ins for the CUDA device builtins: the threads of
/// a block are fibers (`ucontext`) of one OS thread that take turns at
/// each `__syncthreads()`, round robin. Every thread meets the same
/// barriers in the same order (the lowered code has no divergent control
/// flow), so a thread resumes only once all the others have reached the
/// barrier it waits at.
const SHIM: &str = r#"// Host emulation of the CUDA builtins the lowered kernels use.
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <ucontext.h>
#define __global__
#define __device__
#define __shared__ static
static int cm_tid[3];
static int cm_ctaid[3];
static int cm_dim[3];
static int cm_n, cm_cur;
static ucontext_t cm_main;
static ucontext_t* cm_ctx;
static void cm_set_tid(int t) {
  cm_tid[0] = t % cm_dim[0];
  cm_tid[1] = (t / cm_dim[0]) % cm_dim[1];
  cm_tid[2] = t / (cm_dim[0] * cm_dim[1]);
}
static inline int __nvvm_read_ptx_sreg_tid_x() { return cm_tid[0]; }
static inline int __nvvm_read_ptx_sreg_tid_y() { return cm_tid[1]; }
static inline int __nvvm_read_ptx_sreg_tid_z() { return cm_tid[2]; }
static inline int __nvvm_read_ptx_sreg_ctaid_x() { return cm_ctaid[0]; }
static inline int __nvvm_read_ptx_sreg_ctaid_y() { return cm_ctaid[1]; }
static inline int __nvvm_read_ptx_sreg_ctaid_z() { return cm_ctaid[2]; }
static inline void __syncthreads() {
  if (cm_n == 1) return;
  int me = cm_cur;
  int next = me + 1 == cm_n ? 0 : me + 1;
  cm_cur = next;
  cm_set_tid(next);
  swapcontext(&cm_ctx[me], &cm_ctx[next]);
}
static inline float __nvvm_ldg_f(const float* p) { return *p; }
static inline double __nvvm_ldg_d(const double* p) { return *p; }
static inline float cm_ld_cg(const float* p) { return *p; }
static inline float cm_ld_cs(const float* p) { return *p; }
static inline double cm_ld_cg(const double* p) { return *p; }
static inline double cm_ld_cs(const double* p) { return *p; }
static inline void cm_st_cg(float* p, float v) { *p = v; }
static inline void cm_st_cs(float* p, float v) { *p = v; }
static inline void cm_st_cg(double* p, double v) { *p = v; }
static inline void cm_st_cs(double* p, double v) { *p = v; }
typedef float cm_float2 __attribute__((ext_vector_type(2)));
typedef float cm_float4 __attribute__((ext_vector_type(4)));
typedef double cm_double2 __attribute__((ext_vector_type(2)));
static inline cm_float2 __nvvm_ldg_f2(const cm_float2* p) { return *p; }
static inline cm_float4 __nvvm_ldg_f4(const cm_float4* p) { return *p; }
static inline cm_double2 __nvvm_ldg_d2(const cm_double2* p) { return *p; }
template <typename T> static inline T cm_ld_cg(const T* p) { return *p; }
template <typename T> static inline T cm_ld_cs(const T* p) { return *p; }
template <typename T> static inline void cm_st_cg(T* p, T v) { *p = v; }
template <typename T> static inline void cm_st_cs(T* p, T v) { *p = v; }
static void* cm_read(const char* path, size_t bytes) {
  FILE* f = fopen(path, "rb");
  if (!f) { fprintf(stderr, "cannot open %s\n", path); exit(2); }
  void* p = malloc(bytes ? bytes : 1);
  if (fread(p, 1, bytes, f) != bytes) { fprintf(stderr, "short read of %s\n", path); exit(2); }
  fclose(f);
  return p;
}
static void cm_write(const char* path, const void* p, size_t bytes) {
  FILE* f = fopen(path, "wb");
  if (!f || fwrite(p, 1, bytes, f) != bytes) { fprintf(stderr, "cannot write %s\n", path); exit(2); }
  fclose(f);
}
"#;

/// The function each fiber starts in: the kernel on the arrays, then the
/// hand-over to the next fiber (the last returns to `main`).
fn fiber_entry(kernel: &CudaKernel) -> String {
    let elem = kernel.elem_type();
    let call: Vec<String> = (0..kernel.params.len())
        .map(|p| format!("cm_a[{p}]"))
        .collect();
    format!(
        "\nstatic {elem}* cm_a[{n}];\nstatic void cm_fiber() {{\n  {name}({call});\n  \
         int me = cm_cur;\n  if (me + 1 == cm_n) setcontext(&cm_main);\n  \
         cm_cur = me + 1;\n  cm_set_tid(me + 1);\n  setcontext(&cm_ctx[me + 1]);\n}}\n",
        n = kernel.params.len().max(1),
        name = kernel.name,
        call = call.join(", ")
    )
}

/// A fake device for tests and CI: the kernel compiled for the CPU.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Emulated {
    /// The C++ compiler (clang++).
    pub cxx: PathBuf,
    /// Longest compilation allowed.
    pub compile_timeout: Duration,
    /// Longest run allowed.
    pub run_timeout: Duration,
}

impl Emulated {
    /// An emulator compiling with `cxx`, with timeouts of 120 s to compile
    /// and 60 s to run.
    pub fn new(cxx: &Path) -> Emulated {
        Emulated {
            cxx: cxx.to_path_buf(),
            compile_timeout: Duration::from_secs(120),
            run_timeout: Duration::from_secs(60),
        }
    }

    /// The C++ program that runs the kernel on the CPU.
    pub fn program(kernel: &CudaKernel) -> String {
        let elem = kernel.elem_type();
        let mut s = String::new();
        s.push_str(SHIM);
        s.push('\n');
        s.push_str(&kernel.body);
        s.push_str(&fiber_entry(kernel));
        s.push_str("\nint main(int argc, char** argv) {\n");
        s.push_str(&format!(
            "  if (argc != {}) {{ fprintf(stderr, \"expected {} array files\\n\"); return 2; }}\n",
            kernel.params.len() + 1,
            kernel.params.len()
        ));
        for (p, param) in kernel.params.iter().enumerate() {
            s.push_str(&format!(
                "  {elem}* a{p} = ({elem}*)cm_read(argv[{}], {}ull * sizeof({elem}));\n  cm_a[{p}] = a{p};\n",
                p + 1,
                param.len()
            ));
        }
        let [bx, by, bz] = kernel.block;
        let [gx, gy, gz] = kernel.grid;
        s.push_str(&format!(
            "  cm_dim[0] = {bx}; cm_dim[1] = {by}; cm_dim[2] = {bz};\n\
             \x20 cm_n = {bx} * {by} * {bz};\n\
             \x20 const size_t stack = 4u << 20;\n\
             \x20 cm_ctx = (ucontext_t*)calloc(cm_n, sizeof(ucontext_t));\n\
             \x20 char** stacks = (char**)calloc(cm_n, sizeof(char*));\n\
             \x20 for (int t = 0; t < cm_n; ++t) stacks[t] = (char*)malloc(stack);\n\
             \x20 auto t0 = std::chrono::steady_clock::now();\n\
             \x20 for (int z = 0; z < {gz}; ++z) for (int y = 0; y < {gy}; ++y) for (int x = 0; x < {gx}; ++x) {{\n\
             \x20   cm_ctaid[0] = x; cm_ctaid[1] = y; cm_ctaid[2] = z;\n\
             \x20   for (int t = 0; t < cm_n; ++t) {{\n\
             \x20     getcontext(&cm_ctx[t]);\n\
             \x20     cm_ctx[t].uc_stack.ss_sp = stacks[t];\n\
             \x20     cm_ctx[t].uc_stack.ss_size = stack;\n\
             \x20     cm_ctx[t].uc_link = nullptr;\n\
             \x20     makecontext(&cm_ctx[t], (void (*)())cm_fiber, 0);\n\
             \x20   }}\n\
             \x20   cm_cur = 0; cm_set_tid(0);\n\
             \x20   swapcontext(&cm_main, &cm_ctx[0]);\n\
             \x20 }}\n\
             \x20 auto t1 = std::chrono::steady_clock::now();\n"
        ));
        for (p, param) in kernel.params.iter().enumerate() {
            if param.written {
                s.push_str(&format!(
                    "  cm_write(argv[{}], a{p}, {}ull * sizeof({elem}));\n",
                    p + 1,
                    param.len()
                ));
            }
        }
        s.push_str(
            "  printf(\"elapsed_ns %lld\\n\", (long long)std::chrono::duration_cast<std::chrono::nanoseconds>(t1 - t0).count());\n  return 0;\n}\n",
        );
        s
    }
}

impl Device for Emulated {
    fn name(&self) -> String {
        format!("emulated on the CPU ({})", self.cxx.display())
    }

    fn run(&self, kernel: &CudaKernel, inputs: &[Vec<f64>]) -> Result<Run, DeviceError> {
        let dir = temp_dir("emu").map_err(|e| DeviceError::Compile(e.to_string()))?;
        let paths = write_inputs(kernel, inputs, &dir)?;
        let source = dir.join(format!("{}.emu.cpp", kernel.name));
        std::fs::write(&source, Self::program(kernel))
            .map_err(|e| DeviceError::Compile(format!("{}: {e}", source.display())))?;
        let binary = dir.join(format!("{}.emu", kernel.name));
        let mut compile = Command::new(&self.cxx);
        compile
            .args(["-std=c++20", "-O1", "-pthread", "-w", "-o"])
            .arg(&binary)
            .arg(&source);
        run_command(compile, &dir, self.compile_timeout)
            .map_err(|e| DeviceError::Compile(format!("{e} (file {})", source.display())))?;
        let mut command = Command::new(&binary);
        command.args(&paths);
        let ran = run_command(command, &dir, self.run_timeout)
            .map_err(|e| DeviceError::Run(format!("{e} (program {})", source.display())))?;
        let run = Run {
            arrays: read_arrays(kernel, &paths)?,
            time: parse_time(&ran.stdout)?,
        };
        let _ = std::fs::remove_dir_all(&dir);
        Ok(run)
    }
}

/// The host program of the real-GPU runner (C, CUDA driver API through
/// dlopen, so that no CUDA toolkit is needed to build it).
const HOST: &str = r#"// Runs one PTX kernel through the CUDA driver API.
#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
typedef int CUresult;
typedef int CUdevice;
typedef void* CUcontext;
typedef void* CUmodule;
typedef void* CUfunction;
typedef void* CUevent;
typedef void* CUstream;
typedef unsigned long long CUdeviceptr;
static void* lib;
static void* sym(const char* name) {
  void* f = dlsym(lib, name);
  if (!f) { fprintf(stderr, "libcuda.so.1 has no %s\n", name); exit(4); }
  return f;
}
#define CK(call) do { CUresult r_ = (call); if (r_ != 0) { fprintf(stderr, "%s failed with CUresult %d\n", #call, r_); exit(5); } } while (0)
static void* read_file(const char* path, size_t* size, int text) {
  FILE* f = fopen(path, "rb");
  if (!f) { fprintf(stderr, "cannot open %s\n", path); exit(2); }
  fseek(f, 0, SEEK_END); long n = ftell(f); fseek(f, 0, SEEK_SET);
  char* p = (char*)malloc((size_t)n + 1);
  if (fread(p, 1, (size_t)n, f) != (size_t)n) { fprintf(stderr, "short read of %s\n", path); exit(2); }
  p[n] = text ? 0 : p[n];
  fclose(f);
  *size = (size_t)n;
  return p;
}
int main(int argc, char** argv) {
  lib = dlopen("libcuda.so.1", RTLD_NOW);
  if (!lib) { fprintf(stderr, "no CUDA driver on this machine: %s\n", dlerror()); return 3; }
  CUresult (*cuInit)(unsigned) = (CUresult (*)(unsigned))sym("cuInit");
  CUresult (*cuDeviceGet)(CUdevice*, int) = (CUresult (*)(CUdevice*, int))sym("cuDeviceGet");
  CUresult (*cuCtxCreate)(CUcontext*, unsigned, CUdevice) = (CUresult (*)(CUcontext*, unsigned, CUdevice))sym("cuCtxCreate_v2");
  CUresult (*cuModuleLoadData)(CUmodule*, const void*) = (CUresult (*)(CUmodule*, const void*))sym("cuModuleLoadData");
  CUresult (*cuModuleGetFunction)(CUfunction*, CUmodule, const char*) = (CUresult (*)(CUfunction*, CUmodule, const char*))sym("cuModuleGetFunction");
  CUresult (*cuMemAlloc)(CUdeviceptr*, size_t) = (CUresult (*)(CUdeviceptr*, size_t))sym("cuMemAlloc_v2");
  CUresult (*cuMemcpyHtoD)(CUdeviceptr, const void*, size_t) = (CUresult (*)(CUdeviceptr, const void*, size_t))sym("cuMemcpyHtoD_v2");
  CUresult (*cuMemcpyDtoH)(void*, CUdeviceptr, size_t) = (CUresult (*)(void*, CUdeviceptr, size_t))sym("cuMemcpyDtoH_v2");
  CUresult (*cuLaunchKernel)(CUfunction, unsigned, unsigned, unsigned, unsigned, unsigned, unsigned, unsigned, CUstream, void**, void**) =
    (CUresult (*)(CUfunction, unsigned, unsigned, unsigned, unsigned, unsigned, unsigned, unsigned, CUstream, void**, void**))sym("cuLaunchKernel");
  CUresult (*cuEventCreate)(CUevent*, unsigned) = (CUresult (*)(CUevent*, unsigned))sym("cuEventCreate");
  CUresult (*cuEventRecord)(CUevent, CUstream) = (CUresult (*)(CUevent, CUstream))sym("cuEventRecord");
  CUresult (*cuEventSynchronize)(CUevent) = (CUresult (*)(CUevent))sym("cuEventSynchronize");
  CUresult (*cuEventElapsedTime)(float*, CUevent, CUevent) = (CUresult (*)(float*, CUevent, CUevent))sym("cuEventElapsedTime");
  CUresult (*cuCtxSynchronize)(void) = (CUresult (*)(void))sym("cuCtxSynchronize");
  int count = 0;
  CUresult r = cuInit(0);
  if (r != 0) { fprintf(stderr, "no CUDA driver on this machine: cuInit returned %d\n", r); return 3; }
  (void)count;
  CUdevice dev; CK(cuDeviceGet(&dev, 0));
  CUcontext ctx; CK(cuCtxCreate(&ctx, 0, dev));
  size_t ptx_size; char* ptx = (char*)read_file(argv[1], &ptx_size, 1);
  CUmodule mod; CK(cuModuleLoadData(&mod, ptx));
  CUfunction fn; CK(cuModuleGetFunction(&fn, mod, KERNEL_NAME));
  CUdeviceptr ptrs[NPARAMS]; void* hosts[NPARAMS]; size_t sizes[NPARAMS]; void* args[NPARAMS];
  for (int p = 0; p < NPARAMS; ++p) {
    hosts[p] = read_file(argv[2 + p], &sizes[p], 0);
    CK(cuMemAlloc(&ptrs[p], sizes[p] ? sizes[p] : 1));
    CK(cuMemcpyHtoD(ptrs[p], hosts[p], sizes[p]));
    args[p] = &ptrs[p];
  }
  CUevent start, stop; CK(cuEventCreate(&start, 0)); CK(cuEventCreate(&stop, 0));
  CK(cuEventRecord(start, 0));
  CK(cuLaunchKernel(fn, GX, GY, GZ, BX, BY, BZ, 0, 0, args, 0));
  CK(cuEventRecord(stop, 0));
  CK(cuEventSynchronize(stop));
  CK(cuCtxSynchronize());
  float ms = 0; CK(cuEventElapsedTime(&ms, start, stop));
  for (int p = 0; p < NPARAMS; ++p) {
    CK(cuMemcpyDtoH(hosts[p], ptrs[p], sizes[p]));
    FILE* f = fopen(argv[2 + p], "wb");
    if (!f || fwrite(hosts[p], 1, sizes[p], f) != sizes[p]) { fprintf(stderr, "cannot write %s\n", argv[2 + p]); return 2; }
    fclose(f);
  }
  printf("elapsed_ns %lld\n", (long long)(ms * 1e6));
  return 0;
}
"#;

/// A real GPU, through the CUDA driver.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Cuda {
    /// The clang that compiles the PTX and the host program.
    pub clang: PathBuf,
    /// Longest compilation allowed.
    pub compile_timeout: Duration,
    /// Longest run allowed.
    pub run_timeout: Duration,
}

/// Folders where a CUDA driver's `libcuda.so.1` usually is, after those of
/// `LD_LIBRARY_PATH`.
const DRIVER_DIRS: &[&str] = &[
    "/usr/lib/x86_64-linux-gnu",
    "/usr/lib/aarch64-linux-gnu",
    "/usr/lib64",
    "/usr/lib",
    "/usr/local/nvidia/lib64",
    "/usr/lib/wsl/lib",
];

impl Cuda {
    /// The runner, if a CUDA driver is installed: `DeviceError::NoDriver`
    /// otherwise.
    pub fn detect(clang: &Path) -> Result<Cuda, DeviceError> {
        let mut dirs: Vec<PathBuf> = std::env::var_os("LD_LIBRARY_PATH")
            .map(|p| std::env::split_paths(&p).collect())
            .unwrap_or_default();
        dirs.extend(DRIVER_DIRS.iter().map(PathBuf::from));
        if !dirs.iter().any(|d| d.join("libcuda.so.1").exists()) {
            return Err(DeviceError::NoDriver(
                "libcuda.so.1 is in none of LD_LIBRARY_PATH and the usual folders".to_string(),
            ));
        }
        Ok(Cuda {
            clang: clang.to_path_buf(),
            compile_timeout: Duration::from_secs(120),
            run_timeout: Duration::from_secs(60),
        })
    }

    /// The C host program for `kernel`.
    pub fn host_program(kernel: &CudaKernel) -> String {
        let [gx, gy, gz] = kernel.grid;
        let [bx, by, bz] = kernel.block;
        format!(
            "#define KERNEL_NAME \"{}\"\n#define NPARAMS {}\n#define GX {gx}\n#define GY {gy}\n#define GZ {gz}\n\
             #define BX {bx}\n#define BY {by}\n#define BZ {bz}\n{HOST}",
            kernel.name,
            kernel.params.len().max(1)
        )
    }
}

impl Device for Cuda {
    fn name(&self) -> String {
        "CUDA driver".to_string()
    }

    fn run(&self, kernel: &CudaKernel, inputs: &[Vec<f64>]) -> Result<Run, DeviceError> {
        let ptx = compile_ptx(kernel, &self.clang, self.compile_timeout)
            .map_err(|e| DeviceError::Compile(e.to_string()))?;
        let dir = temp_dir("cuda").map_err(|e| DeviceError::Compile(e.to_string()))?;
        let paths = write_inputs(kernel, inputs, &dir)?;
        let ptx_path = dir.join(format!("{}.ptx", kernel.name));
        let host = dir.join("host.c");
        let binary = dir.join("host");
        for (path, text) in [(&ptx_path, ptx), (&host, Self::host_program(kernel))] {
            std::fs::write(path, text)
                .map_err(|e| DeviceError::Compile(format!("{}: {e}", path.display())))?;
        }
        let mut compile = Command::new(&self.clang);
        compile
            .args(["-x", "c", "-O1", "-w", "-o"])
            .arg(&binary)
            .arg(&host)
            .arg("-ldl");
        run_command(compile, &dir, self.compile_timeout)
            .map_err(|e| DeviceError::Compile(format!("{e} (file {})", host.display())))?;
        let mut command = Command::new(&binary);
        command.arg(&ptx_path).args(&paths);
        let ran = run_command(command, &dir, self.run_timeout).map_err(|e| {
            if e.message.contains("no CUDA driver on this machine") {
                DeviceError::NoDriver(e.message.clone())
            } else {
                DeviceError::Run(format!("{e} (folder {})", dir.display()))
            }
        })?;
        let run = Run {
            arrays: read_arrays(kernel, &paths)?,
            time: parse_time(&ran.stdout)?,
        };
        let _ = std::fs::remove_dir_all(&dir);
        Ok(run)
    }
}

// ------------------------------------------------------------ references

/// Deterministic inputs for a lowered kernel: values in {-1, -0.5, 0,
/// 0.5, 1} (products and sums of them are exact in `float` at the test
/// sizes) for the arrays the kernel reads; arrays it only writes are
/// filled with 1e30, so that an element it forgets to write shows.
pub fn inputs(kernel: &CudaKernel, seed: u64) -> Vec<Vec<f64>> {
    let mut state = seed
        .wrapping_mul(6364136223846793005)
        .wrapping_add(1442695040888963407);
    kernel
        .params
        .iter()
        .map(|param| {
            (0..param.len())
                .map(|_| {
                    state = state
                        .wrapping_mul(6364136223846793005)
                        .wrapping_add(1442695040888963407);
                    if param.read {
                        ((state >> 33) % 5) as f64 * 0.5 - 1.0
                    } else {
                        1e30
                    }
                })
                .collect()
        })
        .collect()
}

/// The arrays after the kernel, computed in Rust from the inputs, for the
/// four kernels the host builds (by name): `axpy` (`y += x`; the host's
/// multiply-add has no scalar), `matvec`, `matmul` and `chained_matmul`.
pub fn reference(gpu: &GpuKernel, inputs: &[Vec<f64>]) -> Result<Vec<Vec<f64>>, DeviceError> {
    let extent = |name: &str| {
        gpu.logicals
            .iter()
            .find(|l| l.name == name)
            .map(|l| l.extent as usize)
            .ok_or_else(|| DeviceError::Inputs(format!("{} has no dimension {name}", gpu.name)))
    };
    let mut out = inputs.to_vec();
    let product = |a: &[f64], b: &[f64], m: usize, k: usize, n: usize| {
        let mut c = vec![0.0; m * n];
        for i in 0..m {
            for j in 0..n {
                c[i * n + j] = (0..k).map(|p| a[i * k + p] * b[p * n + j]).sum();
            }
        }
        c
    };
    let check = |count: usize| {
        if inputs.len() == count {
            Ok(())
        } else {
            Err(DeviceError::Inputs(format!(
                "{} arrays for {}",
                inputs.len(),
                gpu.name
            )))
        }
    };
    match gpu.name.as_str() {
        "axpy" => {
            check(2)?;
            for (y, x) in out[1].iter_mut().zip(&inputs[0]) {
                *y += x;
            }
        }
        "matvec" => {
            check(3)?;
            let (m, n) = (extent("i")?, extent("j")?);
            out[2] = product(&inputs[0], &inputs[1], m, n, 1);
        }
        "matmul" => {
            check(3)?;
            let (m, n, k) = (extent("i")?, extent("j")?, extent("k")?);
            out[2] = product(&inputs[0], &inputs[1], m, k, n);
        }
        "chained_matmul" => {
            check(4)?;
            let (m, n, k, l) = (extent("i")?, extent("j")?, extent("k")?, extent("l")?);
            let t = product(&inputs[0], &inputs[1], m, k, l);
            out[3] = product(&t, &inputs[2], m, l, n);
        }
        other => {
            return Err(DeviceError::Inputs(format!(
                "no reference for kernel {other}"
            )))
        }
    }
    Ok(out)
}

/// Compares arrays element by element with a relative tolerance (of the
/// larger magnitude, at least 1): the first difference, if any.
pub fn compare(expected: &[Vec<f64>], actual: &[Vec<f64>], tolerance: f64) -> Result<(), String> {
    if expected.len() != actual.len() {
        return Err(format!(
            "{} arrays, expected {}",
            actual.len(),
            expected.len()
        ));
    }
    for (a, (e, x)) in expected.iter().zip(actual).enumerate() {
        if e.len() != x.len() {
            return Err(format!(
                "array {a}: {} elements, expected {}",
                x.len(),
                e.len()
            ));
        }
        for (i, (&e, &x)) in e.iter().zip(x).enumerate() {
            let scale = e.abs().max(x.abs()).max(1.0);
            let close = (e - x).abs() <= tolerance * scale;
            if !close {
                return Err(format!("array {a}, element {i}: {x}, expected {e}"));
            }
        }
    }
    Ok(())
}
