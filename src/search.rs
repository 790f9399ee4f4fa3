//! `commute search`: runs a search on a bundled space whose cost is
//! synthetic (how many instances differ from a hidden leaf drawn from a
//! seed), to try search settings, fixed decisions, journals and resuming
//! on spaces with a known optimum (0). `commute tune` searches real
//! kernels with the same machinery.

use std::io::IsTerminal;
use std::path::PathBuf;
use std::time::{Duration, Instant};

use commute_runtime::descent::{random_descent, Descent};
use commute_runtime::fix::{apply_fixes, read_fix_file};
use commute_runtime::search::journal::{Header, Journal, Replay};
use commute_runtime::search::{
    mcts, run_exhaustive, run_greedy, run_random, Budget, Evaluator, Harness, MctsConfig, NoBound,
    Outcome, SearchConfig, SearchResult, TreePolicy, UNIFORM_DESCENTS,
};
use commute_runtime::testing::RandomBackbone;
use commute_runtime::{Backbone, Candidate};
use commute_spaces::{corpus, paper};
use indicatif::{ProgressBar, ProgressStyle};
use rand::SeedableRng;

#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum)]
pub enum Strategy {
    /// Monte Carlo tree search with threshold ascent (TAG).
    Mcts,
    /// Monte Carlo tree search with UCT.
    MctsUct,
    Random,
    /// Greedy by evaluation of one random completion per child.
    Greedy,
    Exhaustive,
}

pub struct Options {
    pub space: String,
    pub statements: u32,
    pub size: u32,
    pub backbone_seed: u64,
    pub strategy: Strategy,
    pub budget: Option<usize>,
    pub time_budget: Option<f64>,
    pub seed: u64,
    pub target_seed: u64,
    pub fixes: Vec<String>,
    pub fix_file: Option<PathBuf>,
    pub journal: Option<PathBuf>,
    pub resume: bool,
    /// Choices to branch on first, by name.
    pub priority: Vec<String>,
    /// A space file with its host file, and the command evaluating each
    /// leaf with its timeout in seconds, instead of a bundled space.
    pub hosted: Option<Hosted>,
}

/// `commute search SPACE --host HOST --evaluate CMD`.
pub struct Hosted {
    pub space: PathBuf,
    pub host: PathBuf,
    pub evaluate: String,
    pub timeout: f64,
}

pub fn run(options: &Options) -> Result<(), String> {
    if let Some(hosted) = &options.hosted {
        return search_hosted(options, hosted);
    }
    match options.space.as_str() {
        "ordering" => search(
            options,
            paper::ordering::Backbone(paper::ordering::Chain(options.statements)),
            format!("a chain of {} statements", options.statements),
        ),
        "product" => search(
            options,
            corpus::product::Backbone(corpus::product::Items(options.size)),
            format!("{} items", options.size),
        ),
        name => {
            let model = commute_spaces::models()
                .into_iter()
                .find(|(n, _)| *n == name)
                .map(|(_, m)| m)
                .ok_or_else(|| {
                    let names: Vec<&str> =
                        commute_spaces::models().iter().map(|(n, _)| *n).collect();
                    format!("no space `{name}`; the spaces are {}", names.join(", "))
                })?;
            let backbone = RandomBackbone::new(model, options.backbone_seed, options.size);
            search(
                options,
                backbone,
                format!(
                    "random, {} objects per root set, seed {}",
                    options.size, options.backbone_seed
                ),
            )
        }
    }
}

/// The synthetic cost: instances whose value differs from the target's,
/// with a progress line on standard error (on a terminal).
struct Mismatches<B: Backbone> {
    target: Candidate<B>,
    started: Instant,
    time_budget: Option<f64>,
    evaluations: usize,
    best: Option<f64>,
    /// Hidden unless standard error is a terminal.
    bar: ProgressBar,
    last_drawn: Instant,
}

impl<B: Backbone> Mismatches<B> {
    /// A bar of `budget` evaluations, or a counter without one.
    fn bar(budget: Option<usize>) -> ProgressBar {
        let (bar, template) = match budget {
            Some(budget) => (
                ProgressBar::new(budget as u64),
                "{pos}/{len} evaluations, {msg}",
            ),
            None => (ProgressBar::no_length(), "{pos} evaluations, {msg}"),
        };
        if !std::io::stderr().is_terminal() {
            return ProgressBar::hidden();
        }
        match ProgressStyle::with_template(template) {
            Ok(style) => bar.with_style(style),
            Err(_) => bar,
        }
    }

    fn draw(&self) {
        let elapsed = self.started.elapsed().as_secs_f64();
        let left = self.time_budget.map_or(String::new(), |t| {
            format!(", {:.0} s left", (t - elapsed).max(0.0))
        });
        let best = self.best.map_or("none".to_string(), |b| b.to_string());
        self.bar.set_position(self.evaluations as u64);
        self.bar.set_message(format!("best {best}{left}"));
    }
}

impl<B: Backbone> Evaluator<B> for Mismatches<B> {
    fn evaluate(&mut self, leaf: &Candidate<B>) -> Outcome {
        let instances = self.target.instances(&[]);
        let value = instances
            .iter()
            .filter(|i| leaf.domain(i) != self.target.domain(i))
            .count() as f64;
        self.evaluations += 1;
        self.best = Some(self.best.map_or(value, |b: f64| b.min(value)));
        // A progress line on a terminal, redrawn at most ten times a second.
        if !self.bar.is_hidden() && self.last_drawn.elapsed() >= Duration::from_millis(100) {
            self.last_drawn = Instant::now();
            self.draw();
        }
        Outcome::ok(value)
    }
}

/// The fixed decisions of `--fix` and `--fix-file`.
fn all_fixes(options: &Options) -> Result<Vec<String>, String> {
    let mut fixes = options.fixes.clone();
    if let Some(path) = &options.fix_file {
        fixes.extend(
            read_fix_file(path).map_err(|e| format!("cannot read `{}`: {e}", path.display()))?,
        );
    }
    Ok(fixes)
}

fn search<B: Backbone>(options: &Options, backbone: B, description: String) -> Result<(), String> {
    let mut root = Candidate::new_explained(backbone).map_err(|e| e.to_string())?;
    let fixes = all_fixes(options)?;
    let fixed = apply_fixes(&mut root, &fixes).map_err(|e| e.to_string())?;
    // Explanations served the fixed decisions; searches clone candidates.
    let root = root.without_explanations();
    // The hidden optimum, drawn below the fixed decisions.
    // A stream of its own, so that the search's seed does not replay it.
    let mut rng = rand::rngs::StdRng::seed_from_u64(options.target_seed ^ 0x7a3d_9c1e_5b8f_2640);
    let target = (0..10_000)
        .find_map(|_| match random_descent(&root, &[], &mut rng) {
            Descent::Leaf { leaf, .. } => Some(leaf),
            Descent::DeadEnd { .. } => None,
        })
        .ok_or("no leaf found below the fixed decisions")?;
    let header = Header::new(
        options.space.clone(),
        strategy_name(options),
        options.seed,
        serde_json::json!({
            "backbone": description,
            "target_seed": options.target_seed,
            "fixes": fixes,
            "priority": options.priority,
            "descents": UNIFORM_DESCENTS,
            // Decisions are stored as value bits: resume only the same space.
            "space": commute_loops::fingerprint::fingerprint(description.as_bytes(), &root),
        }),
    );
    let mut evaluator = Mismatches {
        target,
        started: Instant::now(),
        time_budget: options.time_budget,
        evaluations: 0,
        best: None,
        bar: Mismatches::<B>::bar(options.budget),
        last_drawn: Instant::now(),
    };
    let (mut journal, replay, recorded_best) = open_journal(options, &header)?;
    if let Some(replay) = &replay {
        // The progress line counts the recorded evaluations too.
        evaluator.evaluations = replay.len();
        evaluator.best = recorded_best;
    }
    let result = run_strategy(options, &root, &mut evaluator, journal.as_mut(), replay)?;
    evaluator.draw();
    evaluator.bar.finish();
    let describe = |leaf: &Candidate<B>, action: &commute_runtime::Action| leaf.describe(action);
    print(
        &root,
        &fixed,
        &result,
        options,
        &description,
        Some("(the optimum is 0)"),
        &describe,
    );
    Ok(())
}

/// `commute search SPACE --host HOST --evaluate CMD`.
fn search_hosted(options: &Options, hosted: &Hosted) -> Result<(), String> {
    let host = crate::hosted::load(&hosted.space, &hosted.host)?;
    let mut root = crate::hosted::root(&host)?;
    let fixes = all_fixes(options)?;
    let fixed = host.apply_fixes(&mut root, &fixes)?;
    let root = root.without_explanations();
    let description = format!("host {}", hosted.host.display());
    let header = Header::new(
        hosted.space.display().to_string(),
        strategy_name(options),
        options.seed,
        serde_json::json!({
            "space_file": hosted.space,
            "host_file": hosted.host,
            "evaluate": hosted.evaluate,
            "fixes": fixes,
            "priority": options.priority,
            "descents": UNIFORM_DESCENTS,
            // Decisions are stored as value bits: resume only the same space.
            "space": commute_loops::fingerprint::fingerprint(description.as_bytes(), &root),
        }),
    );
    let mut evaluator = crate::evaluate::CommandEvaluator {
        command: hosted.evaluate.clone(),
        timeout: Duration::from_secs_f64(hosted.timeout),
        evaluations: 0,
        failures: 0,
        verbose: std::io::stderr().is_terminal(),
    };
    let (mut journal, replay, _) = open_journal(options, &header)?;
    if let Some(replay) = &replay {
        evaluator.evaluations = replay.len();
    }
    let result = run_strategy(options, &root, &mut evaluator, journal.as_mut(), replay)?;
    let describe =
        |leaf: &Candidate<_>, action: &commute_runtime::Action| host.describe(leaf, action);
    print(
        &root,
        &fixed,
        &result,
        options,
        &description,
        None,
        &describe,
    );
    let failed = result
        .evaluations
        .iter()
        .filter(|e| e.value.is_none())
        .count();
    say!("  failed evaluations: {failed}");
    Ok(())
}

/// The journal to write, what to replay when resuming, and the best value
/// recorded.
type Opened = (Option<Journal>, Option<Replay>, Option<f64>);

/// The journal `--journal` and `--resume` ask for.
fn open_journal(options: &Options, header: &Header) -> Result<Opened, String> {
    match (&options.journal, options.resume) {
        (Some(path), true) => {
            let (recorded_header, recorded, journal) =
                Journal::open_for_resume(path).map_err(|e| e.to_string())?;
            if let Some(why) = recorded_header.mismatch(header) {
                return Err(format!("cannot resume `{}`: {why}", path.display()));
            }
            tell!(
                "resuming {} evaluations from {}",
                recorded.len(),
                path.display()
            );
            let best = recorded
                .iter()
                .filter_map(|e| e.value)
                .min_by(f64::total_cmp);
            Ok((Some(journal), Some(Replay::new(recorded)), best))
        }
        (Some(path), false) => Ok((
            Some(
                Journal::create(path, header)
                    .map_err(|e| format!("cannot write `{}`: {e}", path.display()))?,
            ),
            None,
            None,
        )),
        (None, true) => Err("--resume needs --journal".into()),
        (None, false) => Ok((None, None, None)),
    }
}

/// Runs the search `--search` names from `root`.
fn run_strategy<B: Backbone>(
    options: &Options,
    root: &Candidate<B>,
    evaluator: &mut dyn Evaluator<B>,
    journal: Option<&mut Journal>,
    replay: Option<Replay>,
) -> Result<SearchResult<B>, String> {
    let model = root.model();
    let priority = options
        .priority
        .iter()
        .map(|name| {
            model.choice_index(name).ok_or_else(|| {
                let names: Vec<&str> = model.choices.iter().map(|c| c.name).collect();
                format!(
                    "--priority: no choice is named `{name}`; the choices are {}",
                    names.join(", ")
                )
            })
        })
        .collect::<Result<Vec<u16>, String>>()?;
    let config = SearchConfig {
        seed: options.seed,
        budget: Budget {
            evaluations: options.budget,
            time: options.time_budget.map(Duration::from_secs_f64),
        },
        priority,
    };
    let mut harness = Harness::new(evaluator, &config);
    if let Some(journal) = journal {
        harness = harness.with_journal(journal);
    }
    if let Some(replay) = replay {
        harness = harness.with_replay(replay);
    }
    Ok(match options.strategy {
        Strategy::Mcts => mcts(root, harness, &NoBound, &MctsConfig::default()),
        Strategy::MctsUct => mcts(
            root,
            harness,
            &NoBound,
            &MctsConfig {
                tree: TreePolicy::Uct { exploration: 0.5 },
                ..MctsConfig::default()
            },
        ),
        Strategy::Random => run_random(root, harness),
        Strategy::Greedy => run_greedy(root, harness, &NoBound, true),
        Strategy::Exhaustive => run_exhaustive(root, harness, &NoBound),
    })
}

/// The search's name, as journals record it.
fn strategy_name(options: &Options) -> String {
    format!("{:?}", options.strategy).to_lowercase()
}

fn print<B: Backbone>(
    root: &Candidate<B>,
    fixed: &[commute_runtime::Action],
    result: &SearchResult<B>,
    options: &Options,
    description: &str,
    optimum: Option<&str>,
    describe: &dyn Fn(&Candidate<B>, &commute_runtime::Action) -> String,
) {
    let space = match &options.hosted {
        Some(hosted) => hosted.space.display().to_string(),
        None => options.space.clone(),
    };
    say!(
        "{} search on `{space}` ({description}), seed {}",
        format!("{:?}", options.strategy).to_lowercase(),
        options.seed
    );
    for action in fixed {
        say!("  fixed {}", describe(root, action));
    }
    say!(
        "  stopped: {:?} after {} evaluations ({} from the journal), {} dead ends",
        result.stop,
        result.evaluations.len(),
        result.replayed,
        result.dead_ends
    );
    match &result.best {
        Some((leaf, value, path)) => {
            let found = result
                .evaluations
                .iter()
                .position(|e| e.value == Some(*value))
                .map_or(0, |i| i + 1);
            let optimum = optimum.map_or(String::new(), |o| format!(" {o}"));
            say!("  best: {value}{optimum}, first reached at evaluation {found}");
            for action in path {
                say!("    {}", describe(leaf, action));
            }
        }
        None => say!("  no leaf evaluated"),
    }
    if let Some(journal) = &options.journal {
        say!(
            "  journal: {} (plot it with `commute report {}`)",
            journal.display(),
            journal.display()
        );
    }
}
