//! Commands on any space file with a host file (`SPACE --host HOST`): the
//! space is checked and lowered in memory, the host read as data.
//! `explore` prints the domains after propagation and fixed decisions (or
//! the dead end they reach), `enumerate` lists or counts the leaves.
//! `estimate` and `search` take the same pair (see their modules).

use std::path::{Path, PathBuf};
use std::time::Instant;

use commute_hostfile::DataHost;
use commute_runtime::count::count_leaves;
use commute_runtime::fix::read_fix_file;
use commute_runtime::model::ChoiceKind;
use commute_runtime::{Candidate, CandidateError, Domain};

/// A space file and its host file.
#[derive(Clone, Debug, clap::Args)]
pub struct SpaceArgs {
    /// The space file (checked and built in memory).
    #[arg(value_name = "SPACE.space")]
    pub space: PathBuf,
    /// The host file giving the space's objects and properties (TOML).
    #[arg(long, value_name = "HOST.toml")]
    pub host: PathBuf,
    /// A decision fixed first, with the host's names: `tile(x) = 8`
    /// (repeatable).
    #[arg(long = "fix", value_name = "CHOICE(OBJECTS)=VALUE")]
    pub fixes: Vec<String>,
    /// A file of fixed decisions, one per line (`#` at a line's start or
    /// after a space starts a comment; `j#2` is a name).
    #[arg(long)]
    pub fix_file: Option<PathBuf>,
}

impl SpaceArgs {
    /// Every fixed decision, from `--fix` then `--fix-file`.
    pub fn all_fixes(&self) -> Result<Vec<String>, String> {
        let mut fixes = self.fixes.clone();
        if let Some(path) = &self.fix_file {
            fixes.extend(
                read_fix_file(path)
                    .map_err(|e| format!("cannot read `{}`: {e}", path.display()))?,
            );
        }
        Ok(fixes)
    }
}

/// Reads and checks the space, builds its tables and reads the host.
pub fn load(space: &Path, host: &Path) -> Result<DataHost, String> {
    let compilation = commute_dsl::compile(space);
    let model = commute_codegen::lower(&compilation).map_err(|e| e.to_string())?;
    commute_hostfile::read_file(model, host).map_err(|e| e.to_string())
}

/// The root after propagation, with explanations so that a refused fixed
/// decision names the constraint that refuses it.
pub fn root(host: &DataHost) -> Result<Candidate<DataHost>, String> {
    Candidate::new_explained(host.clone()).map_err(|e| match e {
        CandidateError::DeadEnd(dead_end) => {
            format!(
                "the space has no leaf for this host:\n{}",
                host.dead_end(&dead_end)
            )
        }
        other => other.to_string(),
    })
}

/// The root with the fixed decisions taken, or the dead end they reach.
pub fn fixed_root(args: &SpaceArgs) -> Result<(DataHost, Candidate<DataHost>), String> {
    let host = load(&args.space, &args.host)?;
    let mut root = root(&host)?;
    host.apply_fixes(&mut root, &args.all_fixes()?)?;
    Ok((host, root.without_explanations()))
}

/// A domain for people: `{8, 16}`, `{LOOP, UNROLL}`, `[2, 6]`, or the one
/// value left.
pub fn shown(candidate: &Candidate<DataHost>, domain: &Domain, choice: u16) -> String {
    let values: Vec<String> = match (domain, &candidate.model().choices[choice as usize].kind) {
        (Domain::Enum(mask), ChoiceKind::Enum { values }) => (0..values.len())
            .filter(|i| mask >> i & 1 == 1)
            .map(|i| values[i].to_string())
            .collect(),
        (Domain::Integer { universe, mask }, _) => (0..universe.len())
            .filter(|i| mask >> i & 1 == 1)
            .map(|i| universe[i].to_string())
            .collect(),
        (Domain::Counter { min, max }, _) if min == max => vec![min.to_string()],
        (Domain::Counter { min, max }, _) => return format!("[{min}, {max}]"),
        _ => Vec::new(),
    };
    match values.as_slice() {
        [one] => one.clone(),
        _ => format!("{{{}}}", values.join(", ")),
    }
}

/// `commute explore`: every instance's domain, open ones marked.
pub fn explore(args: &SpaceArgs) -> Result<(), String> {
    let host = load(&args.space, &args.host)?;
    let fixes = args.all_fixes()?;
    // A dead end is what explore answers: on standard output.
    let dead_end = |message: String| {
        say!("{message}");
        Err("dead end".to_string())
    };
    let mut root = match root(&host) {
        Ok(root) => root,
        Err(message) => return dead_end(message),
    };
    if let Err(message) = host.apply_fixes(&mut root, &fixes) {
        return dead_end(message);
    }
    let model = root.model();
    let instances = root.instances(&[]);
    let mut open = 0;
    let mut counters = Vec::new();
    for instance in &instances {
        let Some(domain) = root.domain(instance) else {
            continue;
        };
        let text = format!(
            "{} = {}",
            host.instance(instance),
            shown(&root, &domain, instance.choice)
        );
        if matches!(
            model.choices[instance.choice as usize].kind,
            ChoiceKind::Counter(_)
        ) {
            counters.push(text);
            continue;
        }
        if domain.len() > 1 {
            open += 1;
        }
        say!("{text}");
    }
    for text in counters {
        say!("{text} (counter)");
    }
    say!(
        "{open} of {} decisions open",
        instances.len()
            - instances
                .iter()
                .filter(|i| matches!(
                    model.choices[i.choice as usize].kind,
                    ChoiceKind::Counter(_)
                ))
                .count()
    );
    Ok(())
}

/// `commute enumerate`: every leaf as one JSON line (the decisions an
/// evaluator gets), or their number.
pub fn enumerate(args: &SpaceArgs, count: bool, limit: Option<usize>) -> Result<(), String> {
    // From before the files are read: what a count costs in the process,
    // the space and host parsed, checked, laid out and propagated included.
    let started = Instant::now();
    let (_, root) = fixed_root(args)?;
    if count {
        let counted = count_leaves(&root, root.model().default_priority);
        say!("{}", counted.leaves);
        tell!(
            "{} leaves in {:.6} s ({} decisions taken, {} dead ends, {} counts reused)",
            counted.leaves,
            started.elapsed().as_secs_f64(),
            counted.decisions,
            counted.dead_ends,
            counted.reused
        );
        return Ok(());
    }
    let mut leaves = 0usize;
    let mut stack = vec![root];
    let priority = stack[0].model().default_priority;
    while let Some(candidate) = stack.pop() {
        let Some(instance) = candidate.next_open(priority) else {
            say!("{}", crate::evaluate::decisions(&candidate).0);
            leaves += 1;
            if limit.is_some_and(|l| leaves >= l) {
                break;
            }
            continue;
        };
        for action in candidate.alternatives(&instance).into_iter().rev() {
            let mut child = candidate.clone();
            if child.apply(&action).is_ok() {
                stack.push(child);
            }
        }
    }
    tell!(
        "{leaves} leaves in {:.3} s",
        started.elapsed().as_secs_f64()
    );
    Ok(())
}
