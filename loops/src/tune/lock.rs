//! One search per work directory: two searches sharing one would build
//! into the same build directories and read each other's outputs, and
//! report candidates as wrong that are not.

use std::fs::OpenOptions;
use std::io::{ErrorKind, Write};
use std::path::{Path, PathBuf};

/// Held while a search uses its work directory; removes its file when
/// dropped.
#[derive(Debug)]
pub(crate) struct WorkDirLock {
    path: PathBuf,
}

impl WorkDirLock {
    /// Takes `WORK_DIR/.commute.lock`, unless a live process holds it. A
    /// lock left by a process that is gone (killed, machine restarted) is
    /// taken over.
    pub(crate) fn take(work_dir: &Path) -> Result<WorkDirLock, String> {
        let path = work_dir.join(".commute.lock");
        for _ in 0..2 {
            match OpenOptions::new().write(true).create_new(true).open(&path) {
                Ok(mut file) => {
                    writeln!(file, "{}", std::process::id())
                        .map_err(|e| format!("cannot write `{}`: {e}", path.display()))?;
                    return Ok(WorkDirLock { path });
                }
                Err(e) if e.kind() == ErrorKind::AlreadyExists => {
                    let holder = std::fs::read_to_string(&path)
                        .ok()
                        .and_then(|text| text.trim().parse::<u32>().ok());
                    if let Some(pid) = holder.filter(|&pid| is_running(pid)) {
                        return Err(format!(
                            "`{}` is in use by another search (process {pid}); give another --work-dir, or wait for it to end",
                            work_dir.display()
                        ));
                    }
                    // Stale: its process is gone.
                    let _ = std::fs::remove_file(&path);
                }
                Err(e) => return Err(format!("cannot create `{}`: {e}", path.display())),
            }
        }
        Err(format!(
            "cannot take `{}`: another search keeps creating it",
            path.display()
        ))
    }
}

impl Drop for WorkDirLock {
    fn drop(&mut self) {
        let _ = std::fs::remove_file(&self.path);
    }
}

/// Whether a process of this id exists, other than this one (whose own
/// lock, left by an interrupted call, is stale).
fn is_running(pid: u32) -> bool {
    if pid == std::process::id() {
        return false;
    }
    if cfg!(target_os = "linux") {
        return Path::new(&format!("/proc/{pid}")).exists();
    }
    std::process::Command::new("kill")
        .args(["-0", &pid.to_string()])
        .stderr(std::process::Stdio::null())
        .status()
        .is_ok_and(|status| status.success())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn scratch(name: &str) -> PathBuf {
        let dir = std::env::temp_dir().join(format!("commute-lock-{name}-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).expect("scratch");
        dir
    }

    #[test]
    fn a_second_search_is_refused_while_the_first_holds_the_directory() {
        let dir = scratch("held");
        let first = WorkDirLock::take(&dir).expect("free");
        // A live process other than this one holds it: pid 1 always runs.
        std::fs::write(dir.join(".commute.lock"), "1\n").expect("write");
        let message = WorkDirLock::take(&dir).expect_err("held");
        assert!(
            message.contains("in use by another search (process 1)"),
            "{message}"
        );
        drop(first);
        assert!(!dir.join(".commute.lock").exists(), "removed when dropped");
        let _ = std::fs::remove_dir_all(&dir);
    }

    #[test]
    fn a_lock_left_by_a_process_that_is_gone_is_taken_over() {
        let dir = scratch("stale");
        // No process has this id (above Linux's pid_max).
        std::fs::write(dir.join(".commute.lock"), "4294967295\n").expect("write");
        let lock = WorkDirLock::take(&dir).expect("stale lock taken over");
        let holder = std::fs::read_to_string(dir.join(".commute.lock")).expect("read");
        assert_eq!(holder.trim(), std::process::id().to_string());
        drop(lock);
        let _ = std::fs::remove_dir_all(&dir);
    }
}
