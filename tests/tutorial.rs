//! Runs the commands of `docs/tutorial.md`: every line of a `console`
//! block that starts with `$ ` is run from the repository's root with the
//! built `commute` first on `PATH`, and must succeed (or fail, when it
//! ends with `# fails`); the lines after it, up to the next command, must
//! be what it prints, except that a line `...` stands for the rest.

use std::path::Path;
use std::process::Command;

/// A command of the page and the output it shows.
struct Step {
    command: String,
    fails: bool,
    expected: Vec<String>,
}

fn steps(page: &str) -> Vec<Step> {
    let mut steps: Vec<Step> = Vec::new();
    let mut in_console = false;
    for line in page.lines() {
        if line.starts_with("```") {
            in_console = !in_console && line.trim() == "```console";
            continue;
        }
        if !in_console {
            continue;
        }
        match line.strip_prefix("$ ") {
            Some(command) => {
                let (command, fails) = match command.split_once("  # fails") {
                    Some((command, _)) => (command, true),
                    None => (command, false),
                };
                steps.push(Step {
                    command: command.to_string(),
                    fails,
                    expected: Vec::new(),
                });
            }
            None => {
                if let Some(step) = steps.last_mut() {
                    step.expected.push(line.to_string());
                }
            }
        }
    }
    steps
}

#[test]
fn the_tutorials_commands_print_what_it_shows() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let page = std::fs::read_to_string(root.join("docs/tutorial.md")).expect("the tutorial");
    let steps = steps(&page);
    assert!(steps.len() >= 8, "only {} commands found", steps.len());
    let bin = Path::new(env!("CARGO_BIN_EXE_commute"))
        .parent()
        .expect("the binary's folder")
        .to_path_buf();
    let path = std::env::join_paths(std::iter::once(bin).chain(std::env::split_paths(
        &std::env::var_os("PATH").unwrap_or_default(),
    )))
    .expect("a PATH");
    // The page's journal goes to `target/`, which a build with another
    // CARGO_TARGET_DIR does not create.
    std::fs::create_dir_all(root.join("target")).expect("create target/");
    let _ = std::fs::remove_file(root.join("target/tutorial-search.jsonl"));
    for step in steps {
        let output = Command::new("sh")
            .arg("-c")
            .arg(&step.command)
            .current_dir(root)
            .env("PATH", &path)
            .output()
            .expect("run a command");
        let stdout = String::from_utf8_lossy(&output.stdout);
        let stderr = String::from_utf8_lossy(&output.stderr);
        assert_eq!(
            output.status.success(),
            !step.fails,
            "`{}`:\n{stdout}\n{stderr}",
            step.command
        );
        let shown: Vec<&str> = stdout.lines().collect();
        for (i, expected) in step.expected.iter().enumerate() {
            if expected == "..." {
                break;
            }
            let actual = shown.get(i).copied().unwrap_or("<nothing>");
            let matches = match expected.strip_suffix("...") {
                Some(prefix) => actual.starts_with(prefix),
                None => actual == expected,
            };
            assert!(
                matches,
                "`{}`, line {}:\nexpected: {expected}\nprinted:  {actual}\n{stdout}",
                step.command,
                i + 1
            );
        }
    }
}
