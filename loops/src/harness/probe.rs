//! Small programs built and run the way candidates are (the same
//! compiler, with the user's flags), to measure the machine, and the
//! preprocessor run over a kernel to read the values of its macros.

use std::fs::{self, File};
use std::path::Path;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use super::build::{Build, CompileResult, Toolchain};
use super::config::HarnessConfig;
use super::objects::{without_other_inputs, Objects};
use super::process::{describe_status, new_process_group, read_lossy, spawn, wait_with_deadline};

/// The flags a candidate gets (the dump aside), then `extra`.
fn flags(config: &HarnessConfig, extra: &[&str]) -> Vec<String> {
    let mut flags = config.build_flags(&config.compiler, &[]);
    flags.extend(extra.iter().map(|f| f.to_string()));
    flags
}

/// Builds `source` as [`run_probe`] does, without linking: it alone is
/// compiled (`-c`), the other sources and libraries of the flags left
/// out, for what the compiler writes while it compiles (Polly's JSCoP
/// exports). TSVC's `common.c` alone takes 3.7 s with Polly, the loop's
/// file 0.1 s.
pub fn compile_probe(
    config: &HarnessConfig,
    dir: &Path,
    source: &str,
    extra: &[&str],
    timeout: Duration,
) -> (std::path::PathBuf, Result<(), String>) {
    probe_build(
        config,
        dir,
        source,
        compile_only_flags(config, extra),
        timeout,
    )
}

/// The command [`compile_probe`] runs, for people (the source last).
pub fn compile_probe_command(config: &HarnessConfig, extra: &[&str]) -> String {
    let mut words = vec![config.compiler.path.display().to_string()];
    words.extend(compile_only_flags(config, extra));
    words.join(" ")
}

/// The flags of [`compile_probe`].
fn compile_only_flags(config: &HarnessConfig, extra: &[&str]) -> Vec<String> {
    let mut flags = without_other_inputs(&flags(config, extra));
    flags.push("-c".to_string());
    flags
}

/// Builds `source` in a directory under `dir` with `flags`, the compiler
/// running in that directory (where it writes any file it is asked to,
/// such as Polly's JSCoP exports). Returns the directory, and whether it
/// built (a message if it did not build within `timeout`).
fn probe_build(
    config: &HarnessConfig,
    dir: &Path,
    source: &str,
    flags: Vec<String>,
    timeout: Duration,
) -> (std::path::PathBuf, Result<(), String>) {
    let objects = Objects::new(dir.join("objects"));
    let toolchain = Toolchain {
        compiler: &config.compiler.path,
        flags: &flags,
        timeout,
        objects: &objects,
        check_extra: None,
    };
    let built = match toolchain.compile(dir, Build::Timed, source) {
        Ok((CompileResult::Built, _)) => Ok(()),
        Ok((CompileResult::Failed(log), _)) => Err(format!("does not compile: {log}")),
        Ok((CompileResult::TimedOut(s), _)) => Err(format!("does not compile within {s:.1} s")),
        Err(e) => Err(e.to_string()),
    };
    (Build::Timed.dir(dir), built)
}

/// Builds `source` in `dir` with the candidates' flags followed by `extra`
/// (later flags win), runs it once with `threads` OpenMP threads, and
/// returns its standard output; a message if it does not build or run
/// within `timeout` (each).
pub fn run_probe(
    config: &HarnessConfig,
    dir: &Path,
    source: &str,
    extra: &[&str],
    threads: usize,
    timeout: Duration,
) -> Result<String, String> {
    // The binary runs in its own directory: a relative path to it would
    // be read from there.
    let dir = &std::env::current_dir()
        .map_err(|e| format!("cannot read the current directory: {e}"))?
        .join(dir);
    let (run_dir, built) = probe_build(config, dir, source, flags(config, extra), timeout);
    built?;
    let out_path = run_dir.join("probe.stdout");
    let out = File::create(&out_path).map_err(|e| e.to_string())?;
    let start = Instant::now();
    let mut child = spawn(
        Command::new(Build::Timed.binary(dir))
            .current_dir(&run_dir)
            .envs(super::config::run_environment(threads))
            .stdin(Stdio::null())
            .stdout(Stdio::from(out))
            .stderr(Stdio::null()),
    )
    .map_err(|e| e.to_string())?;
    match wait_with_deadline(&mut child, start, timeout, false).map_err(|e| e.to_string())? {
        Some(status) if status.success() => read_lossy(&out_path).map_err(|e| e.to_string()),
        Some(status) => Err(format!("failed: {}", describe_status(status))),
        None => Err(format!("ran longer than {:.1} s", timeout.as_secs_f64())),
    }
}

/// `source` through the C preprocessor (`-E`) with the candidates' flags
/// (the dump's included) and `extra`, in `dir`: the text the compiler
/// reads, macros expanded.
pub fn preprocess(
    config: &HarnessConfig,
    dir: &Path,
    source: &str,
    extra: &[&str],
    timeout: Duration,
) -> Result<String, String> {
    fs::create_dir_all(dir).map_err(|e| format!("cannot create {}: {e}", dir.display()))?;
    let input = dir.join("preprocess.c");
    fs::write(&input, source).map_err(|e| format!("cannot write {}: {e}", input.display()))?;
    let output = dir.join("preprocess.i");
    let mut command = Command::new(&config.compiler.path);
    // Other files the user builds with (`polybench.c`) are not
    // preprocessed: `-E` with `-o` takes one input.
    let options = flags(config, extra);
    command
        .args(without_other_inputs(&options))
        .arg("-DPOLYBENCH_DUMP_ARRAYS")
        .args(["-E", "-P", "preprocess.c", "-o", "preprocess.i"])
        .current_dir(dir)
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::null());
    new_process_group(&mut command);
    let start = Instant::now();
    let mut child = spawn(&mut command).map_err(|e| e.to_string())?;
    match wait_with_deadline(&mut child, start, timeout, true).map_err(|e| e.to_string())? {
        Some(status) if status.success() => read_lossy(&output).map_err(|e| e.to_string()),
        Some(status) => Err(format!(
            "the preprocessor failed: {}",
            describe_status(status)
        )),
        None => Err("the preprocessor ran too long".to_string()),
    }
}

#[cfg(test)]
mod tests {
    use super::super::compiler::Compiler;
    use super::*;

    #[test]
    fn other_files_among_the_flags_are_left_out_of_preprocessing() {
        let dir = std::env::temp_dir().join(format!("commute-preprocess-{}", std::process::id()));
        let _ = fs::remove_dir_all(&dir);
        fs::create_dir_all(&dir).expect("scratch");
        let other = dir.join("support.c");
        fs::write(&other, "int support(void) { return 1; }\n").expect("write");
        let compiler = Compiler::detect(Some("cc")).unwrap_or_else(|e| panic!("{e}"));
        let mut config = HarnessConfig::new(compiler, dir.join("work"));
        // A header included from the command line stays, with its option.
        let header = dir.join("sizes.c");
        fs::write(&header, "#define LENGTH 9\n").expect("write");
        config.cflags = vec![
            "-O2".into(),
            other.display().to_string(),
            "-DSIZE=7".into(),
            "-include".into(),
            header.display().to_string(),
            "-lm".into(),
        ];
        let text = preprocess(
            &config,
            &dir.join("pre"),
            "int size = SIZE, length = LENGTH;\n",
            &[],
            Duration::from_secs(30),
        )
        .unwrap_or_else(|e| panic!("{e}"));
        assert!(text.contains("int size = 7, length = 9;"), "{text}");
        let flags: Vec<String> = ["-O3", "a.c", "-DX=b.c", "-lm", "-Wl,-z", "x.o"]
            .iter()
            .map(|f| f.to_string())
            .collect();
        let kept = without_other_inputs(&flags);
        // `a.c` is not a file here: only existing sources are taken out.
        assert_eq!(kept, ["-O3", "a.c", "-DX=b.c"]);
        let _ = fs::remove_dir_all(&dir);
    }
}
