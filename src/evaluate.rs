//! Any program as the evaluator of a search: for each leaf, a shell
//! command runs with the leaf's decisions as JSON on its standard input
//! and as environment variables, and the number it prints last is the
//! leaf's cost (lower is better). A command that exits with an error,
//! prints no number or runs past its timeout is a failure, recorded in the
//! journal; the search goes on.
//!
//! The decisions, for a space with `choice integer tile($d in Dims)` and
//! `choice integer unroll()`:
//!
//! - JSON: `{"tile": {"x": 32, "y": 16}, "unroll": 4}`: a choice without
//!   parameters by its name, the others by their objects' names, joined
//!   with `,` for several (as in host files);
//! - environment: `COMMUTE_TILE_X=32`, `COMMUTE_TILE_Y=16`,
//!   `COMMUTE_UNROLL=4`: `COMMUTE_`, the choice's name, then each
//!   object's name, upper-cased, each run of other characters than
//!   letters and digits written `_`; and `COMMUTE_EVALUATION`, the leaf's
//!   number in the search (from 0).
//!
//! Enum choices give their value's name, integer choices and counters
//! their number.

use std::io::{Read, Write};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use commute_hostfile::DataHost;
use commute_runtime::search::{Evaluator, Outcome};
use commute_runtime::{Candidate, Domain};
use serde_json::{Map, Value};
use wait_timeout::ChildExt;

/// Runs a shell command per leaf.
pub struct CommandEvaluator {
    /// The command, run by `sh -c`.
    pub command: String,
    /// How long one run may take.
    pub timeout: Duration,
    /// Leaves evaluated so far (replayed ones included once resumed).
    pub evaluations: usize,
    /// Failed runs among them.
    pub failures: usize,
    /// Whether to print a line per evaluation on standard error.
    pub verbose: bool,
}

/// A leaf's decisions: as JSON and as environment variables.
pub fn decisions(leaf: &Candidate<DataHost>) -> (Value, Vec<(String, String)>) {
    let host = leaf.backbone();
    let model = leaf.model();
    let mut json = Map::new();
    let mut env = Vec::new();
    for instance in leaf.instances(&[]) {
        let def = &model.choices[instance.choice as usize];
        let value = match (leaf.domain(&instance), &def.kind) {
            (Some(Domain::Enum(mask)), commute_runtime::model::ChoiceKind::Enum { values }) => {
                let index = mask.trailing_zeros() as usize;
                Value::from(values.get(index).copied().unwrap_or("?"))
            }
            (Some(Domain::Integer { universe, mask }), _) => {
                Value::from(universe[mask.trailing_zeros() as usize])
            }
            (Some(Domain::Counter { min, .. }), _) => Value::from(min),
            _ => continue,
        };
        let names: Vec<String> = instance
            .objects
            .iter()
            .zip(def.params)
            .map(|(&o, p)| host.object_name(p.set, o))
            .collect();
        let mut variable = format!("COMMUTE_{}", env_word(def.name));
        for name in &names {
            variable.push('_');
            variable.push_str(&env_word(name));
        }
        env.push((variable, shown(&value)));
        if names.is_empty() {
            json.insert(def.name.to_string(), value);
        } else if let Value::Object(per_tuple) = json
            .entry(def.name.to_string())
            .or_insert_with(|| Value::Object(Map::new()))
        {
            per_tuple.insert(names.join(","), value);
        }
    }
    (Value::Object(json), env)
}

/// A value as an environment variable holds it.
fn shown(value: &Value) -> String {
    match value {
        Value::String(s) => s.clone(),
        other => other.to_string(),
    }
}

/// `tile size` as `TILE_SIZE`.
fn env_word(name: &str) -> String {
    let mut out = String::new();
    for c in name.chars() {
        if c.is_ascii_alphanumeric() {
            out.push(c.to_ascii_uppercase());
        } else if !out.ends_with('_') {
            out.push('_');
        }
    }
    out
}

/// How a run of the command ended.
enum Run {
    Exited {
        success: bool,
        code: Option<i32>,
        stdout: String,
        stderr: String,
    },
    TimedOut,
}

impl CommandEvaluator {
    fn run(&self, input: &str, env: &[(String, String)]) -> std::io::Result<Run> {
        let mut command = Command::new("sh");
        command
            .arg("-c")
            .arg(&self.command)
            .envs(env.iter().map(|(k, v)| (k, v)))
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped());
        #[cfg(unix)]
        {
            // Its own process group, so that a timeout kills its children.
            use std::os::unix::process::CommandExt;
            command.process_group(0);
        }
        let mut child = command.spawn()?;
        // Pipes are served by threads: a command that never reads its
        // input, or writes much, must not block us.
        let stdin = child.stdin.take().map(|mut pipe| {
            let input = input.to_string();
            std::thread::spawn(move || {
                let _ = pipe.write_all(input.as_bytes());
            })
        });
        let drain = |pipe: Option<Box<dyn Read + Send>>| {
            pipe.map(|mut pipe| {
                std::thread::spawn(move || {
                    let mut text = String::new();
                    let _ = pipe.read_to_string(&mut text);
                    text
                })
            })
        };
        let stdout = drain(
            child
                .stdout
                .take()
                .map(|p| Box::new(p) as Box<dyn Read + Send>),
        );
        let stderr = drain(
            child
                .stderr
                .take()
                .map(|p| Box::new(p) as Box<dyn Read + Send>),
        );
        let status = child.wait_timeout(self.timeout)?;
        if status.is_none() {
            kill_group(&mut child);
        }
        let collect = |thread: Option<std::thread::JoinHandle<String>>| {
            thread.and_then(|t| t.join().ok()).unwrap_or_default()
        };
        if let Some(thread) = stdin {
            let _ = thread.join();
        }
        let (stdout, stderr) = (collect(stdout), collect(stderr));
        Ok(match status {
            None => Run::TimedOut,
            Some(status) => Run::Exited {
                success: status.success(),
                code: status.code(),
                stdout,
                stderr,
            },
        })
    }

    /// The cost of a leaf, or why there is none.
    pub fn measure(&mut self, leaf: &Candidate<DataHost>) -> Outcome {
        let (json, mut env) = decisions(leaf);
        env.push((
            "COMMUTE_EVALUATION".to_string(),
            self.evaluations.to_string(),
        ));
        let started = Instant::now();
        let outcome = match self.run(&json.to_string(), &env) {
            Err(error) => Outcome::failed(format!("cannot run `{}`: {error}", self.command)),
            Ok(Run::TimedOut) => Outcome::failed(format!(
                "timed out after {:.1} s",
                self.timeout.as_secs_f64()
            )),
            Ok(Run::Exited {
                success: false,
                code,
                stderr,
                ..
            }) => {
                let last = stderr.lines().rev().find(|l| !l.trim().is_empty());
                Outcome::failed(format!(
                    "exited with {}{}",
                    code.map_or("a signal".to_string(), |c| format!("status {c}")),
                    last.map_or(String::new(), |l| format!(": {}", l.trim()))
                ))
            }
            Ok(Run::Exited { stdout, .. }) => parse_value(&stdout),
        };
        if outcome.value.is_none() {
            self.failures += 1;
        }
        if self.verbose {
            let what = match (&outcome.value, &outcome.message) {
                (Some(v), _) => v.to_string(),
                (None, Some(m)) => format!("failed: {m}"),
                (None, None) => "failed".to_string(),
            };
            tell!(
                "evaluation {}: {what} ({:.2} s)",
                self.evaluations,
                started.elapsed().as_secs_f64()
            );
        }
        self.evaluations += 1;
        outcome
    }
}

/// The last non-empty line of the output, read as a finite number.
fn parse_value(stdout: &str) -> Outcome {
    let Some(last) = stdout.lines().rev().map(str::trim).find(|l| !l.is_empty()) else {
        return Outcome::failed("printed no value");
    };
    match last.parse::<f64>() {
        Ok(value) if value.is_finite() => Outcome::ok(value),
        _ => {
            let shown: String = last.chars().take(60).collect();
            Outcome::failed(format!("printed `{shown}`, not a number"))
        }
    }
}

fn kill_group(child: &mut std::process::Child) {
    #[cfg(unix)]
    {
        // The group's id is the child's; it is not reaped yet, so the id
        // cannot have been reused.
        let _ = Command::new("kill")
            .args(["-KILL", "--", &format!("-{}", child.id())])
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .status();
    }
    let _ = child.kill();
    let _ = child.wait();
}

impl Evaluator<DataHost> for CommandEvaluator {
    fn evaluate(&mut self, leaf: &Candidate<DataHost>) -> Outcome {
        self.measure(leaf)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_last_line_is_the_value() {
        assert_eq!(parse_value("compiling\n1.5\n\n").value, Some(1.5));
        assert!(parse_value("").value.is_none());
        assert!(parse_value("fast!\n").value.is_none());
        assert!(parse_value("inf\n").value.is_none());
    }

    #[test]
    fn environment_names_are_upper_case_words() {
        assert_eq!(env_word("tile_size"), "TILE_SIZE");
        assert_eq!(env_word("i.tile"), "I_TILE");
        assert_eq!(env_word("MWG"), "MWG");
    }
}
