//! Running processes: spawning (with a retry while the program is busy
//! being written), waiting with a timeout, killing a timed-out process
//! with its children, and describing how it ended.

use std::fs;
use std::io;
use std::path::Path;
use std::process::{Child, Command, ExitStatus, Stdio};
use std::time::{Duration, Instant};

use wait_timeout::ChildExt;

/// Puts the command's process in a group of its own, so that a timeout
/// can kill its children too (the compiler driver's `cc1`).
#[cfg(unix)]
pub(super) fn new_process_group(command: &mut Command) {
    use std::os::unix::process::CommandExt;
    command.process_group(0);
}

#[cfg(not(unix))]
pub(super) fn new_process_group(_command: &mut Command) {}

/// How long `spawn` retries a program that another process holds open
/// for writing.
const BUSY_RETRY: Duration = Duration::from_secs(2);

/// Spawns `command`, retrying while the kernel answers "text file busy".
///
/// A program written by this process (a wrapper script, say) stays open
/// for writing in every child that another thread forks before that
/// child's `exec` closes it; `exec` of the program fails meanwhile. The
/// window is short, so waiting a little is enough.
pub(super) fn spawn(command: &mut Command) -> io::Result<Child> {
    let start = Instant::now();
    let mut nap = Duration::from_millis(1);
    loop {
        match command.spawn() {
            Err(e)
                if e.kind() == io::ErrorKind::ExecutableFileBusy
                    && start.elapsed() < BUSY_RETRY =>
            {
                std::thread::sleep(nap);
                nap = (nap * 2).min(Duration::from_millis(50));
            }
            result => return result,
        }
    }
}

/// Waits for `child` until `start + timeout` (woken as soon as it exits,
/// so wall times stay precise); past the deadline kills it (its whole
/// process group when `group`) and returns `None`.
pub(super) fn wait_with_deadline(
    child: &mut Child,
    start: Instant,
    timeout: Duration,
    group: bool,
) -> io::Result<Option<ExitStatus>> {
    let left = timeout.saturating_sub(start.elapsed());
    let status = child.wait_timeout(left)?;
    if status.is_none() {
        kill(child, group);
    }
    Ok(status)
}

/// How a watched run ended (see [`wait_watching`]).
pub(super) enum Watched {
    /// It exited, and wrote to the watched file first after these seconds
    /// (`None`: never).
    Exited(ExitStatus, Option<f64>),
    /// Killed at the timeout.
    TimedOut,
    /// Killed at the first deadline: the watched file was still empty.
    Silent,
}

/// How often a watched run's file is looked at.
const WATCH_PERIOD: Duration = Duration::from_millis(5);

/// Waits for `child` like [`wait_with_deadline`], watching `file` (where
/// the child writes): if it is still empty at `start + silent_limit`, the
/// child is killed. Records when the file first held something.
pub(super) fn wait_watching(
    child: &mut Child,
    start: Instant,
    timeout: Duration,
    file: &Path,
    silent_limit: Option<Duration>,
) -> io::Result<Watched> {
    let mut first_output: Option<f64> = None;
    loop {
        let elapsed = start.elapsed();
        if first_output.is_none() && fs::metadata(file).is_ok_and(|m| m.len() > 0) {
            first_output = Some(elapsed.as_secs_f64());
        }
        if first_output.is_none() && silent_limit.is_some_and(|limit| elapsed >= limit) {
            kill(child, false);
            return Ok(Watched::Silent);
        }
        if elapsed >= timeout {
            kill(child, false);
            return Ok(Watched::TimedOut);
        }
        let wait = timeout.saturating_sub(elapsed).min(WATCH_PERIOD);
        if let Some(status) = child.wait_timeout(wait)? {
            if first_output.is_none() && fs::metadata(file).is_ok_and(|m| m.len() > 0) {
                first_output = Some(start.elapsed().as_secs_f64());
            }
            return Ok(Watched::Exited(status, first_output));
        }
    }
}

fn kill(child: &mut Child, group: bool) {
    #[cfg(unix)]
    if group {
        // The group's id is the child's (see `new_process_group`); it is
        // not reaped yet, so the id cannot have been reused.
        let _ = Command::new("kill")
            .args(["-KILL", "--", &format!("-{}", child.id())])
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .status();
    }
    #[cfg(not(unix))]
    let _ = group;
    let _ = child.kill();
    let _ = child.wait();
}

/// "exit status 3" or "killed by signal 11 (SIGSEGV)".
pub(super) fn describe_status(status: ExitStatus) -> String {
    #[cfg(unix)]
    {
        use std::os::unix::process::ExitStatusExt;
        if let Some(signal) = status.signal() {
            let name = match signal {
                1 => "SIGHUP",
                2 => "SIGINT",
                3 => "SIGQUIT",
                4 => "SIGILL",
                5 => "SIGTRAP",
                6 => "SIGABRT",
                7 => "SIGBUS",
                8 => "SIGFPE",
                9 => "SIGKILL",
                11 => "SIGSEGV",
                13 => "SIGPIPE",
                14 => "SIGALRM",
                15 => "SIGTERM",
                24 => "SIGXCPU",
                25 => "SIGXFSZ",
                _ => "",
            };
            return if name.is_empty() {
                format!("killed by signal {signal}")
            } else {
                format!("killed by signal {signal} ({name})")
            };
        }
    }
    match status.code() {
        Some(code) => format!("exit status {code}"),
        None => "terminated abnormally".to_string(),
    }
}

pub(super) fn read_lossy(path: &Path) -> io::Result<String> {
    let bytes = fs::read(path)?;
    Ok(match String::from_utf8(bytes) {
        Ok(text) => text,
        Err(e) => String::from_utf8_lossy(e.as_bytes()).into_owned(),
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::fs::{self, File};

    /// A script still open for writing cannot be run until it is closed;
    /// `spawn` waits for that rather than failing.
    #[cfg(unix)]
    #[test]
    fn a_program_busy_for_a_moment_still_spawns() {
        use std::io::Write;
        use std::os::unix::fs::PermissionsExt;
        let dir = std::env::temp_dir().join(format!("commute-busy-{}", std::process::id()));
        fs::create_dir_all(&dir).expect("create the directory");
        let script = dir.join("busy.sh");
        let mut writer = File::create(&script).expect("create the script");
        writer
            .write_all(b"#!/bin/sh\nexit 7\n")
            .expect("write the script");
        fs::set_permissions(&script, fs::Permissions::from_mode(0o755)).expect("chmod");
        let busy = Command::new(&script).spawn();
        let closer = std::thread::spawn(move || {
            std::thread::sleep(Duration::from_millis(100));
            drop(writer);
        });
        let status = spawn(Command::new(&script).stdin(Stdio::null()))
            .expect("spawned once the writer closed")
            .wait()
            .expect("wait");
        closer.join().expect("the closer thread");
        assert_eq!(status.code(), Some(7));
        // The plain spawn, made while the file was open for writing, is
        // the failure this guards against (on kernels that refuse it).
        match busy {
            Err(e) => assert_eq!(e.kind(), io::ErrorKind::ExecutableFileBusy, "{e}"),
            Ok(mut child) => {
                let _ = child.wait();
            }
        }
        let _ = fs::remove_dir_all(&dir);
    }
}
