//! A short characterization of the machine, measured once per CPU model,
//! compiler and thread count and cached between runs: the peak
//! double-precision rate of one core with and without vectors, the memory
//! bandwidth, the cost of a parallel region, and the cache sizes.
//!
//! The rates come from small C programs built by the harness with the
//! candidates' compiler (the user's flags, then `-O3 -march=native
//! -mprefer-vector-width=512` on x86-64, so the widest vectors the
//! machine has): 16 independent chains of
//! multiply-adds on 8-wide vectors (and on scalars, vectorization off),
//! timed in the thread's CPU time so that other processes sharing the
//! core do not lower them; a parallel sum over a buffer twice the
//! last-level cache (at most 256 MiB: a buffer the cache holds gives a
//! higher rate, which only weakens the bound); and 1,000 empty parallel
//! regions at a time, the fastest thousand of 50. Each is the best of
//! several repetitions. The cache sizes are read from Linux's
//! `/sys/devices/system/cpu/cpu0/cache`.
//!
//! The cache is a JSON file in `$XDG_CACHE_HOME/commute/` (or
//! `~/.cache/commute/`), named by a hash of what it depends on.

use std::path::{Path, PathBuf};
use std::time::Duration;

use crate::fnv::Fnv;
use crate::harness::{run_probe, CompilerFamily, HarnessConfig};

/// The cache file's format.
const VERSION: u64 = 2;

/// How long a probe may build or run.
const PROBE_TIMEOUT: Duration = Duration::from_secs(60);

/// What the bound knows of the machine.
#[derive(Clone, Debug, PartialEq)]
pub struct Machine {
    /// The CPU model, as the system names it.
    pub cpu: String,
    /// The compiler's `--version` line.
    pub compiler: String,
    /// OpenMP threads the parallel figures were measured with.
    pub threads: usize,
    /// Double-precision operations per second of one core with vectors
    /// (a multiply-add counts two).
    pub vector_flops: f64,
    /// The same without vectors (reported; the bound does not use it, see
    /// `bound`).
    pub scalar_flops: f64,
    /// Bytes per second read from memory by all threads.
    pub bandwidth: f64,
    /// Seconds one parallel region takes, empty.
    pub fork_join: f64,
    /// The last-level cache, in bytes (`None` if unknown).
    pub last_level_cache: Option<f64>,
}

impl Machine {
    /// The machine as cached for this CPU, compiler and thread count, or
    /// measured now (and cached) with the harness's compiler; a message
    /// when a probe cannot be built or run.
    pub fn characterize(
        config: &HarnessConfig,
        scratch: &Path,
        threads: usize,
    ) -> Result<(Machine, bool), String> {
        let cpu = cpu_model();
        let compiler = config.compiler.version_line.clone();
        let cache = cache_file(&cpu, &compiler, threads);
        if let Some(machine) = cache.as_deref().and_then(read_cache) {
            if machine.cpu == cpu && machine.compiler == compiler && machine.threads == threads {
                return Ok((machine, true));
            }
        }
        let last_level_cache = last_level_cache();
        let no_vectors: &[&str] = match config.compiler.family {
            CompilerFamily::Clang { .. } => &["-fno-vectorize", "-fno-slp-vectorize"],
            _ => &["-fno-tree-vectorize"],
        };
        let probe = |name: &str, source: &str, extra: &[&str], threads: usize| {
            let mut flags = vec!["-O3", "-march=native"];
            // The widest vectors the machine has, even where the compiler
            // prefers narrower ones by default (clang on AVX-512 parts).
            if cfg!(target_arch = "x86_64") {
                flags.push("-mprefer-vector-width=512");
            }
            flags.extend_from_slice(extra);
            let out = run_probe(
                config,
                &scratch.join(name),
                source,
                &flags,
                threads,
                PROBE_TIMEOUT,
            )
            .map_err(|e| format!("the {name} probe {e}"))?;
            out.split_whitespace()
                .next()
                .and_then(|v| v.parse::<f64>().ok())
                .filter(|v| v.is_finite() && *v > 0.0)
                .ok_or_else(|| format!("the {name} probe printed `{}`", out.trim()))
        };
        let vector_flops = probe("vector-peak", &peak_source(true), &[], 1)?;
        let scalar_flops = probe("scalar-peak", &peak_source(false), no_vectors, 1)?;
        let buffer = last_level_cache.map_or(64.0 * MIB, |llc| (2.0 * llc).min(256.0 * MIB));
        let bandwidth = probe("bandwidth", &bandwidth_source(buffer), &[], threads)?;
        let fork_join = probe("fork-join", FORK_JOIN_SOURCE, &[], threads)?;
        let machine = Machine {
            cpu,
            compiler,
            threads,
            vector_flops,
            scalar_flops,
            bandwidth,
            fork_join,
            last_level_cache,
        };
        if let Some(cache) = cache {
            write_cache(&cache, &machine);
        }
        Ok((machine, false))
    }

    /// One line for people.
    pub fn describe(&self) -> String {
        format!(
            "{:.1} GF/s per core with vectors ({:.1} without), {:.1} GB/s, {:.2} us per parallel region ({} threads), last-level cache {}",
            self.vector_flops / 1e9,
            self.scalar_flops / 1e9,
            self.bandwidth / 1e9,
            self.fork_join * 1e6,
            self.threads,
            self.last_level_cache
                .map_or("unknown".to_string(), |b| format!("{:.0} MiB", b / MIB))
        )
    }
}

const MIB: f64 = 1024.0 * 1024.0;

/// Multiply-adds on 16 independent accumulators, 8-wide vectors or
/// scalars; prints the best rate of 7 repetitions in CPU time.
fn peak_source(vectors: bool) -> String {
    let (declare, lanes) = if vectors {
        ("typedef double value __attribute__((vector_size(64)));", 8)
    } else {
        ("typedef double value;", 1)
    };
    format!(
        r#"#include <stdio.h>
#include <time.h>
{declare}
static double cpu_now(void) {{
  struct timespec t;
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t);
  return t.tv_sec + t.tv_nsec * 1e-9;
}}
int main(int argc, char **argv) {{
  (void)argv;
  value zero = {{0}};
  value acc[16];
  value m = zero + (0.999999 + argc * 1e-9);
  value a = zero + 1e-7;
  for (int k = 0; k < 16; k++) acc[k] = zero + (double)k / 16;
  const long reps = 2000000;
  double best = 0;
  for (int trial = 0; trial < 7; trial++) {{
    double start = cpu_now();
    for (long r = 0; r < reps; r++)
      for (int k = 0; k < 16; k++) acc[k] = acc[k] * m + a;
    double seconds = cpu_now() - start;
    double rate = (double)reps * 16 * {lanes} * 2 / seconds;
    if (seconds > 0 && rate > best) best = rate;
  }}
  double sum = 0;
  for (int k = 0; k < 16; k++)
    for (int l = 0; l < {lanes}; l++) sum += ((double *)&acc[k])[l];
  printf("%.6e %g\n", best, sum);
  return 0;
}}
"#
    )
}

/// A parallel sum over `bytes` of doubles; prints the best rate of 5.
fn bandwidth_source(bytes: f64) -> String {
    let count = (bytes / 8.0) as u64;
    format!(
        r#"#include <stdio.h>
#include <stdlib.h>
#include <time.h>
static double now(void) {{
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return t.tv_sec + t.tv_nsec * 1e-9;
}}
int main(void) {{
  const long n = {count}L;
  double *a = malloc(n * sizeof(double));
  if (!a) return 1;
  #pragma omp parallel for
  for (long k = 0; k < n; k++) a[k] = (double)(k % 7);
  double best = 0, total = 0;
  for (int trial = 0; trial < 5; trial++) {{
    double start = now(), sum = 0;
    #pragma omp parallel for simd reduction(+: sum)
    for (long k = 0; k < n; k++) sum += a[k];
    double seconds = now() - start;
    total += sum;
    double rate = n * sizeof(double) / seconds;
    if (seconds > 0 && rate > best) best = rate;
  }}
  printf("%.6e %g\n", best, total);
  free(a);
  return 0;
}}
"#
    )
}

/// The fastest of 50 batches of 1,000 parallel regions that do nothing
/// but touch one element per thread; prints seconds per region.
const FORK_JOIN_SOURCE: &str = r#"#include <stdio.h>
#include <time.h>
#include <omp.h>
static double now(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return t.tv_sec + t.tv_nsec * 1e-9;
}
static volatile int sink[256];
int main(void) {
  int threads = omp_get_max_threads();
  if (threads > 256) threads = 256;
  double best = 1e9;
  for (int batch = 0; batch < 50; batch++) {
    double start = now();
    for (int r = 0; r < 1000; r++) {
      #pragma omp parallel for
      for (int t = 0; t < threads; t++) sink[t] += 1;
    }
    double seconds = (now() - start) / 1000;
    if (seconds < best) best = seconds;
  }
  printf("%.6e\n", best);
  return 0;
}
"#;

/// The CPU's model name (`model name` in `/proc/cpuinfo`), or "unknown".
fn cpu_model() -> String {
    std::fs::read_to_string("/proc/cpuinfo")
        .ok()
        .and_then(|text| {
            text.lines()
                .find(|l| l.starts_with("model name"))
                .and_then(|l| l.split_once(':'))
                .map(|(_, v)| v.trim().to_string())
        })
        .unwrap_or_else(|| "unknown".to_string())
}

/// The largest data or unified cache of CPU 0, in bytes.
fn last_level_cache() -> Option<f64> {
    let dir = Path::new("/sys/devices/system/cpu/cpu0/cache");
    let mut largest: Option<f64> = None;
    for entry in std::fs::read_dir(dir).ok()?.flatten() {
        let path = entry.path();
        let kind = std::fs::read_to_string(path.join("type")).unwrap_or_default();
        if kind.trim() == "Instruction" {
            continue;
        }
        let Ok(size) = std::fs::read_to_string(path.join("size")) else {
            continue;
        };
        let size = size.trim();
        let bytes = if let Some(k) = size.strip_suffix('K') {
            k.parse::<f64>().ok().map(|v| v * 1024.0)
        } else if let Some(m) = size.strip_suffix('M') {
            m.parse::<f64>().ok().map(|v| v * MIB)
        } else {
            size.parse::<f64>().ok()
        };
        if let Some(bytes) = bytes {
            largest = Some(largest.map_or(bytes, |l| l.max(bytes)));
        }
    }
    largest
}

/// Where the characterization of this CPU, compiler and thread count is
/// cached, if there is a cache directory.
fn cache_file(cpu: &str, compiler: &str, threads: usize) -> Option<PathBuf> {
    let base = std::env::var_os("XDG_CACHE_HOME")
        .filter(|v| !v.is_empty())
        .map(PathBuf::from)
        .or_else(|| {
            std::env::var_os("HOME")
                .filter(|v| !v.is_empty())
                .map(|h| PathBuf::from(h).join(".cache"))
        })?;
    let mut hash = Fnv::default();
    for part in [cpu, compiler, &threads.to_string()] {
        hash.feed(part.as_bytes());
        hash.feed(&[0]);
    }
    Some(
        base.join("commute")
            .join(format!("machine-{}.json", hash.hex())),
    )
}

fn read_cache(path: &Path) -> Option<Machine> {
    let text = std::fs::read_to_string(path).ok()?;
    let value: serde_json::Value = serde_json::from_str(&text).ok()?;
    if value.get("version")?.as_u64()? != VERSION {
        return None;
    }
    let number = |key: &str| {
        value
            .get(key)?
            .as_f64()
            .filter(|v| v.is_finite() && *v > 0.0)
    };
    Some(Machine {
        cpu: value.get("cpu")?.as_str()?.to_string(),
        compiler: value.get("compiler")?.as_str()?.to_string(),
        threads: value.get("threads")?.as_u64()? as usize,
        vector_flops: number("vector_flops")?,
        scalar_flops: number("scalar_flops")?,
        bandwidth: number("bandwidth")?,
        fork_join: number("fork_join")?,
        last_level_cache: number("last_level_cache"),
    })
}

/// Writes the cache; a cache that cannot be written is measured again
/// next time, nothing worse.
fn write_cache(path: &Path, machine: &Machine) {
    let value = serde_json::json!({
        "version": VERSION,
        "cpu": machine.cpu,
        "compiler": machine.compiler,
        "threads": machine.threads,
        "vector_flops": machine.vector_flops,
        "scalar_flops": machine.scalar_flops,
        "bandwidth": machine.bandwidth,
        "fork_join": machine.fork_join,
        "last_level_cache": machine.last_level_cache,
    });
    if let Some(dir) = path.parent() {
        let _ = std::fs::create_dir_all(dir);
    }
    // Written aside and renamed, so that a reader never sees half a file.
    let partial = path.with_extension(format!("json.{}", std::process::id()));
    if std::fs::write(&partial, value.to_string()).is_ok() {
        let _ = std::fs::rename(&partial, path);
    }
}
