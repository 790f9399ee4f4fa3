//! Finding and probing the C compiler: its family and major version,
//! which decide the flags the harness passes (OpenMP 6.0 loop directives
//! need clang 20 or newer).

use std::fs;
use std::io::Read;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use super::error::{HarnessError, HarnessErrorKind};
use super::process::{describe_status, spawn, wait_with_deadline};

/// The longest `--version` may take when probing a compiler.
const PROBE_TIMEOUT: Duration = Duration::from_secs(10);

/// What `vector_width() = WIDE` adds to a candidate's flags.
pub const WIDE_VECTOR_FLAGS: [&str; 1] = ["-mprefer-vector-width=512"];

/// The kind of C compiler, from its `--version`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum CompilerFamily {
    /// Clang (or Apple clang), with its major version.
    Clang {
        /// The major version (`20` for clang 20.1.2).
        major: u32,
    },
    /// GCC.
    Gcc,
    /// Anything else.
    Other,
}

/// A C compiler that can be run.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Compiler {
    /// The executable (as found in `PATH`, or as given).
    pub path: PathBuf,
    /// The first line of its `--version`.
    pub version_line: String,
    /// What kind of compiler it is.
    pub family: CompilerFamily,
}

impl Compiler {
    /// The compiler to use: `requested` (a name looked up in `PATH`, or a
    /// path) when given, an error naming it if it cannot be run; otherwise
    /// the first of `clang-22`, `clang-21`, `clang-20`, `clang` (if its
    /// major version is at least 20), `cc`, `gcc` found in `PATH`.
    pub fn detect(requested: Option<&str>) -> Result<Compiler, HarnessError> {
        if let Some(name) = requested {
            let path = if name.contains(std::path::MAIN_SEPARATOR) || name.contains('/') {
                PathBuf::from(name)
            } else {
                find_in_path(name).ok_or_else(|| {
                    HarnessError::new(
                        HarnessErrorKind::Compiler,
                        format!("compiler `{name}` not found in PATH"),
                    )
                })?
            };
            return Compiler::probe(&path).map_err(|e| {
                HarnessError::new(
                    HarnessErrorKind::Compiler,
                    format!("compiler `{name}` cannot be run: {e}"),
                )
            });
        }
        for name in ["clang-22", "clang-21", "clang-20", "clang", "cc", "gcc"] {
            let Some(path) = find_in_path(name) else {
                continue;
            };
            let Ok(compiler) = Compiler::probe(&path) else {
                continue;
            };
            if name == "clang" && !compiler.supports_loop_directives() {
                continue;
            }
            return Ok(compiler);
        }
        Err(HarnessError::new(
            HarnessErrorKind::Compiler,
            "no C compiler found in PATH (looked for clang-22, clang-21, clang-20, \
             clang 20 or newer, cc, gcc)",
        ))
    }

    /// Runs `path --version` and reads the family from its output.
    fn probe(path: &Path) -> Result<Compiler, String> {
        let mut child = spawn(
            Command::new(path)
                .arg("--version")
                .stdin(Stdio::null())
                .stdout(Stdio::piped())
                .stderr(Stdio::null()),
        )
        .map_err(|e| e.to_string())?;
        let status = match wait_with_deadline(&mut child, Instant::now(), PROBE_TIMEOUT, false)
            .map_err(|e| e.to_string())?
        {
            Some(status) => status,
            None => return Err(format!("`--version` ran over {PROBE_TIMEOUT:?}")),
        };
        let mut output = String::new();
        if let Some(mut stdout) = child.stdout.take() {
            let mut bytes = Vec::new();
            stdout.read_to_end(&mut bytes).map_err(|e| e.to_string())?;
            output = String::from_utf8_lossy(&bytes).into_owned();
        }
        if !status.success() {
            return Err(format!("`--version` failed ({})", describe_status(status)));
        }
        let version_line = output.lines().next().unwrap_or("").trim().to_string();
        Ok(Compiler {
            path: path.to_path_buf(),
            family: family_of(&output),
            version_line,
        })
    }

    /// Whether the compiler implements OpenMP 6's loop-transformation
    /// directives (`tile`, `unroll`, `interchange`, ...): clang 20 or newer.
    pub fn supports_loop_directives(&self) -> bool {
        matches!(self.family, CompilerFamily::Clang { major } if major >= 20)
    }

    /// Whether the compiler takes Polly, LLVM's polyhedral optimizer
    /// (`-mllvm -polly`): it compiles a tiny file with that flag. The
    /// answer is kept in `cache_dir`, by the compiler's path and version,
    /// so that it is asked once.
    pub fn has_polly(&self, cache_dir: &Path) -> bool {
        self.answer_cached(
            cache_dir,
            "polly",
            "int main(void) { return 0; }\n",
            &["-mllvm", "-polly"],
        )
    }

    /// Whether the compiler, with the user's `cflags`, targets 512-bit
    /// vectors and takes `-mprefer-vector-width=512` (clang and gcc use
    /// 256-bit ones by default on such x86 cores, to keep clock speeds
    /// up). Asked once per compiler and flags, like [`Compiler::has_polly`].
    pub fn has_wide_vectors(&self, cache_dir: &Path, cflags: &[String]) -> bool {
        let mut flags: Vec<&str> = cflags.iter().map(String::as_str).collect();
        flags.extend(WIDE_VECTOR_FLAGS);
        self.answer_cached(
            cache_dir,
            "wide",
            "#ifndef __AVX512F__\n#error no 512-bit vectors\n#endif\nint main(void) { return 0; }\n",
            &flags,
        )
    }

    /// Whether a tiny `source` compiles with `flags`, the answer kept in
    /// `cache_dir` by the compiler's path, version and the flags.
    fn answer_cached(&self, cache_dir: &Path, name: &str, source: &str, flags: &[&str]) -> bool {
        let mut key = crate::fnv::Fnv::default();
        key.feed(self.path.as_os_str().as_encoded_bytes());
        key.feed(&[0]);
        key.feed(self.version_line.as_bytes());
        for flag in flags {
            key.feed(&[0]);
            key.feed(flag.as_bytes());
        }
        let cached = cache_dir.join(format!("{name}-{}", key.hex()));
        if let Ok(answer) = fs::read_to_string(&cached) {
            return answer.trim() == "yes";
        }
        let answer = self.compiles(cache_dir, name, source, flags);
        let _ = fs::create_dir_all(cache_dir)
            .and_then(|()| fs::write(&cached, if answer { "yes\n" } else { "no\n" }));
        answer
    }

    fn compiles(&self, dir: &Path, name: &str, source: &str, flags: &[&str]) -> bool {
        if fs::create_dir_all(dir).is_err() {
            return false;
        }
        let file = format!("{name}-probe.c");
        if fs::write(dir.join(&file), source).is_err() {
            return false;
        }
        let object = format!("{name}-probe.o");
        let Ok(mut child) = spawn(
            Command::new(&self.path)
                .args(flags)
                .args(["-c", &file, "-o", &object])
                .current_dir(dir)
                .stdin(Stdio::null())
                .stdout(Stdio::null())
                .stderr(Stdio::null()),
        ) else {
            return false;
        };
        matches!(
            wait_with_deadline(&mut child, Instant::now(), PROBE_TIMEOUT, false),
            Ok(Some(status)) if status.success()
        )
    }

    /// The flags the harness always passes before the user's (check
    /// builds add `-DPOLYBENCH_DUMP_ARRAYS`).
    pub fn builtin_flags(&self) -> Vec<String> {
        let mut flags = Vec::new();
        if self.supports_loop_directives() {
            flags.push("-fopenmp-version=60".to_string());
        }
        for flag in ["-fopenmp", "-Werror=unknown-pragmas", "-DPOLYBENCH_TIME"] {
            flags.push(flag.to_string());
        }
        flags
    }
}

fn family_of(version_output: &str) -> CompilerFamily {
    if let Some(at) = version_output.find("clang version ") {
        let rest = &version_output[at + "clang version ".len()..];
        let digits: String = rest.chars().take_while(char::is_ascii_digit).collect();
        if let Ok(major) = digits.parse() {
            return CompilerFamily::Clang { major };
        }
    }
    let first = version_output.lines().next().unwrap_or("");
    if version_output.contains("Free Software Foundation")
        || first.contains("gcc")
        || first.contains("GCC")
    {
        return CompilerFamily::Gcc;
    }
    CompilerFamily::Other
}

fn find_in_path(name: &str) -> Option<PathBuf> {
    let paths = std::env::var_os("PATH")?;
    std::env::split_paths(&paths)
        .map(|dir| dir.join(name))
        .find(|candidate| is_executable(candidate))
}

#[cfg(unix)]
fn is_executable(path: &Path) -> bool {
    use std::os::unix::fs::PermissionsExt;
    fs::metadata(path).is_ok_and(|m| m.is_file() && m.permissions().mode() & 0o111 != 0)
}

#[cfg(not(unix))]
fn is_executable(path: &Path) -> bool {
    path.is_file()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn families() {
        assert_eq!(
            family_of("Ubuntu clang version 20.1.2 (1)\nTarget: x"),
            CompilerFamily::Clang { major: 20 }
        );
        assert_eq!(
            family_of(
                "cc (Debian 12.2.0-14) 12.2.0\nCopyright (C) 2022 Free Software Foundation, Inc."
            ),
            CompilerFamily::Gcc
        );
        assert_eq!(family_of("tcc version 0.9"), CompilerFamily::Other);
    }
}
