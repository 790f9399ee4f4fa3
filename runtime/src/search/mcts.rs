//! Monte Carlo tree search over candidates, with the tree policies UCT
//! and TAG (threshold ascent on graphs), uniform or bound-weighted
//! rollouts, pruning by a lower bound, and the customizations of Koo et
//! al. for tuning: a reward from a moving average of recent values with a
//! penalty for failures, restarts when the search stalls, and at each
//! restart the best and worst paths carried into the new tree. Some
//! evaluations go to a local search around the best leaf (see `polish`).

use std::collections::HashMap;

use rand::Rng;

use super::baselines::{descend, evaluate_batch, Pick};
use super::harness::{Bound, Harness, SearchResult, StopReason};
use super::polish::{neighbour, Seen};
use super::record::Status;
use super::screen::{Screen, PROMISING};
use crate::action::Action;
use crate::backbone::Backbone;
use crate::candidate::Candidate;

/// How to pick a child among visited ones.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum TreePolicy {
    /// Upper confidence bound on the mean reward.
    Uct {
        /// The weight of the exploration term.
        exploration: f64,
    },
    /// Threshold ascent: counts, per child, the values among the `top`
    /// best seen below the node, with confidence `delta`.
    Tag {
        /// How many of the best values seen below a node count.
        top: usize,
        /// The confidence parameter of the bound.
        delta: f64,
    },
}

/// How to complete a candidate to a leaf below the tree.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum RolloutPolicy {
    /// Every child equally likely.
    Uniform,
    /// `p(child)` proportional to `max(best - bound(child), 0)`.
    BoundWeighted,
}

/// The settings of [`mcts`](crate::search::mcts()) beside those every
/// search takes.
#[derive(Clone, Debug, PartialEq)]
pub struct MctsConfig {
    /// How to pick a child among visited ones.
    pub tree: TreePolicy,
    /// How to complete a candidate to a leaf below the tree.
    pub rollout: RolloutPolicy,
    /// Values a reward is compared with: a value better than the mean of
    /// the last `moving_average` values is a win (reward 1), else a loss.
    pub moving_average: usize,
    /// Reward of a failed or wrong leaf (a loss is 0).
    pub failure_reward: f64,
    /// Restart after this many evaluations without a new best.
    pub stall: Option<usize>,
    /// Restart after reaching the same, already evaluated leaf this many
    /// times in a row.
    pub same_leaf: usize,
    /// At a restart, paths of the best `transfer` quantile are rewarded in
    /// the new tree and those of the worst are penalized.
    pub transfer: f64,
    /// The first `local_steps` evaluations of every `local_period` are
    /// neighbours of the best leaves instead of tree rollouts (0: none),
    /// so that the first rollouts come once the local steps have found a
    /// good leaf to compare them with and fitted the models. On
    /// large spaces the tree stays near the root, and the best leaf it
    /// found still has poor details: the default gives three quarters of
    /// the evaluations to local steps. In ten-minute tunes of a C = A *
    /// B^T kernel, local steps found every new best after the first 50
    /// evaluations but one, and half of them came within twice the best
    /// time, against one rollout in twenty. Counted in evaluations, not as a
    /// share of the budget, so that resuming with a larger budget replays
    /// the interrupted search.
    pub local_steps: usize,
    /// See `local_steps`.
    pub local_period: usize,
    /// When set, the tree's share of a period follows its yield: its
    /// `local_period - local_steps` evaluations are scaled by how often
    /// its rollouts came within twice the best value against how often
    /// the local steps did, down to this many. On a ten-minute tune of a
    /// C = A * B^T kernel, one rollout in twenty came that close against
    /// three local steps in four, and the tree's fixed quarter of the
    /// evaluations took three fifths of the time wasted. `None` keeps the
    /// share fixed (the default).
    pub min_tree_steps: Option<usize>,
    /// Local steps draw neighbours of this many leaves in turn, elites
    /// taken among the best and the timed leaves within [`ELITE_WITHIN`]
    /// of it (checked or not: a leaf no faster than the best is not
    /// checked). Once the good neighbours of the best are evaluated, those
    /// of a leaf nearly as fast are likelier to be good than any other
    /// draw, and once an elite's neighbours stop coming that close, those
    /// of another: elites whose local steps came within [`ELITE_WITHIN`]
    /// of the best most often are drawn around first (an elite not drawn
    /// around yet counts as one such step in two), then the fastest. The
    /// default (1) draws around the best only.
    pub elites: usize,
    /// Local steps keep drawing neighbours (up to `screen_rounds` rounds)
    /// while the one predicted fastest is predicted slower than this
    /// factor of the best value (the tree's rollouts: slower than twice
    /// it). Drawing only until one was predicted within twice the best,
    /// local steps near a search's end mostly evaluated neighbours
    /// predicted 1.5 to 2 times the best, and they did not pay: in the
    /// last five minutes of a ten-minute tune of a C = A * B^T kernel,
    /// none of the 224 predicted at 1.75 times the best or slower came
    /// within 1.1 times it, and half of them were cut off or ran more than
    /// twice slower; of the 169 predicted faster, 7 came that close and
    /// one in twelve was wasted. Default: 1.5.
    pub local_within: f64,
    /// Leaves drawn per leaf evaluated (a rollout's, or a local step's
    /// neighbours), of which the one the evaluated leaves predict fastest
    /// is evaluated (see `screen`); 1 evaluates every leaf drawn.
    pub screen: usize,
    /// While the leaf predicted fastest among those drawn is predicted
    /// slower than twice the best value, `screen` more are drawn, up to
    /// this many rounds in all: most of a search's time goes to leaves
    /// that far from the best, and drawing costs propagations, not
    /// compiles. With `screen` 1 nothing is predicted, and one round is
    /// drawn. The default is one round (`commute tune` takes sixteen).
    pub screen_rounds: usize,
    /// The share of the tree's rollouts still unpromising after
    /// `screen_rounds` that are evaluated all the same; the others are
    /// rewarded as the loss they are predicted to be, not evaluated. The
    /// share keeps the model honest where it has seen few leaves. A local
    /// step is evaluated whatever its prediction: giving way to the tree
    /// would spend the evaluation on a rollout, unpromising more often
    /// still (on a ten-minute tune of a C = A * B^T kernel, nine rollouts
    /// in ten against half the local steps). By default (1) every
    /// proposal is evaluated.
    pub evaluate_unpromising: f64,
}

impl Default for MctsConfig {
    fn default() -> Self {
        MctsConfig {
            tree: TreePolicy::Tag {
                top: 10,
                delta: 0.05,
            },
            rollout: RolloutPolicy::Uniform,
            moving_average: 10,
            failure_reward: -1.0,
            stall: None,
            same_leaf: 20,
            transfer: 0.1,
            local_steps: 75,
            local_period: 100,
            min_tree_steps: None,
            elites: 1,
            local_within: 1.5,
            screen: 1,
            screen_rounds: 1,
            evaluate_unpromising: 1.0,
        }
    }
}

struct Node<B: Backbone> {
    candidate: Candidate<B>,
    /// Children by action, created on first visit; `None` before expansion.
    children: Option<Vec<Child>>,
    visits: f64,
    reward: f64,
    /// Values of the leaves evaluated below (TAG).
    values: Vec<f64>,
    exhausted: bool,
}

struct Child {
    action: Action,
    node: Option<usize>,
    /// Refuted by propagation, or bounded above the best value.
    closed: bool,
}

struct Tree<B: Backbone> {
    nodes: Vec<Node<B>>,
}

impl<B: Backbone> Tree<B> {
    fn new(root: &Candidate<B>) -> Self {
        Tree {
            nodes: vec![Node::new(root.clone())],
        }
    }

    /// The child node for `action` below `node`, created if needed; `None`
    /// if propagation refutes it.
    fn child(&mut self, node: usize, index: usize, harness: &mut Harness<B>) -> Option<usize> {
        let child = self.nodes[node].children.as_ref()?.get(index)?;
        if let Some(existing) = child.node {
            return Some(existing);
        }
        let action = child.action.clone();
        let mut candidate = self.nodes[node].candidate.clone();
        let applied = candidate.apply(&action).is_ok();
        let id = self.nodes.len();
        let child = &mut self.nodes[node].children.as_mut()?[index];
        if !applied {
            harness.dead_ends += 1;
            child.closed = true;
            return None;
        }
        child.node = Some(id);
        self.nodes.push(Node::new(candidate));
        Some(id)
    }

    fn expand(&mut self, node: usize, harness: &Harness<B>) {
        if self.nodes[node].children.is_none() {
            let candidate = &self.nodes[node].candidate;
            let children = match candidate.next_open(&harness.priority) {
                Some(instance) => candidate
                    .alternatives(&instance)
                    .into_iter()
                    .map(|action| Child {
                        action,
                        node: None,
                        closed: false,
                    })
                    .collect(),
                None => Vec::new(),
            };
            self.nodes[node].children = Some(children);
        }
    }

    /// Walks `path` from the root, creating nodes, and credits each with
    /// `reward` (and `value` for TAG).
    fn reinforce(&mut self, path: &[Action], reward: f64, value: f64, harness: &mut Harness<B>) {
        let mut node = 0;
        let mut visited = vec![0];
        for action in path {
            self.expand(node, harness);
            let Some(index) = self.nodes[node]
                .children
                .as_ref()
                .and_then(|c| c.iter().position(|c| &c.action == action))
            else {
                break;
            };
            let Some(next) = self.child(node, index, harness) else {
                break;
            };
            node = next;
            visited.push(node);
        }
        for id in visited {
            let n = &mut self.nodes[id];
            n.visits += 1.0;
            n.reward += reward;
            n.values.push(value);
        }
    }
}

impl<B: Backbone> Node<B> {
    fn new(candidate: Candidate<B>) -> Self {
        Node {
            candidate,
            children: None,
            visits: 0.0,
            reward: 0.0,
            values: Vec::new(),
            exhausted: false,
        }
    }
}

/// A leaf proposed by the tree and not evaluated yet: the tree nodes on
/// its way carry a virtual loss meanwhile, so that the next proposals of
/// the batch go elsewhere.
struct Pending<B: Backbone> {
    visited: Vec<usize>,
    leaf: Candidate<B>,
    path: Vec<Action>,
}

/// What the search keeps between iterations beside the tree.
struct State<B: Backbone> {
    tree: Tree<B>,
    /// Values of evaluated leaves, by their decisions: a leaf reached
    /// again is not evaluated again.
    known: HashMap<Vec<Action>, Option<f64>>,
    recent: Vec<f64>,
    since_best: usize,
    same_leaf: usize,
    last_leaf: Option<Vec<Action>>,
    revisits: usize,
    /// Rollouts in a row that reached no leaf (refuted or pruned).
    failed_rollouts: usize,
    seen: Seen,
    /// The best leaf whose neighbours all came out seen: the tree takes
    /// the local steps until there is a new best.
    used_up: Option<Vec<Action>>,
    /// Rollouts in a row rewarded by their prediction, not evaluated.
    screened_out: usize,
    /// The model that screens the local steps: fitted on the starts, the
    /// best leaves and their neighbours only (see `local_steps`).
    near: Screen,
    /// The leaves `near` holds.
    near_seen: Seen,
    /// How often the tree's rollouts and the local steps came near the
    /// best (see `MctsConfig::min_tree_steps`).
    tree_yield: Yield,
    local_yield: Yield,
    /// How often the local steps drawn around each elite came within
    /// [`ELITE_WITHIN`] of the best (see `MctsConfig::elites`).
    elite_yield: HashMap<Vec<Action>, Yield>,
}

/// How many evaluated leaves of one source came within a factor of the
/// best value (as it stood once each was measured).
#[derive(Default)]
struct Yield {
    tried: usize,
    near: usize,
}

impl Yield {
    fn record(&mut self, value: Option<f64>, best: Option<f64>, within: f64) {
        self.tried += 1;
        if let (Some(value), Some(best)) = (value, best) {
            if value <= within * best {
                self.near += 1;
            }
        }
    }

    /// The share near the best, with one near and one not counted in
    /// advance so that a source tried a few times is neither written off
    /// nor trusted.
    fn rate(&self) -> f64 {
        (self.near as f64 + 1.0) / (self.tried as f64 + 2.0)
    }
}

/// Leaves within this factor of the best are elites (see
/// `MctsConfig::elites`).
pub const ELITE_WITHIN: f64 = 1.25;

/// Monte Carlo tree search from `root`.
///
/// Leaves are proposed in batches of the harness's batch size: each
/// proposal walks the tree as if the pending leaves of the batch had
/// been evaluated as losses (a virtual loss on their paths), then the
/// batch is evaluated in order and the real rewards replace the virtual
/// ones. With a batch of one this is plain MCTS.
pub fn mcts<B: Backbone>(
    root: &Candidate<B>,
    mut harness: Harness<B>,
    bound: &dyn Bound<B>,
    config: &MctsConfig,
) -> SearchResult<B> {
    let mut state = State {
        tree: Tree::new(root),
        known: HashMap::new(),
        recent: Vec::new(),
        since_best: 0,
        same_leaf: 0,
        last_leaf: None,
        revisits: 0,
        failed_rollouts: 0,
        seen: Seen::default(),
        used_up: None,
        screened_out: 0,
        near: Screen::default(),
        near_seen: Seen::default(),
        tree_yield: Yield::default(),
        local_yield: Yield::default(),
        elite_yield: HashMap::new(),
    };
    if config.screen > 1 {
        harness.screen.enable();
        state.near.enable();
    }
    evaluate_starts(root, &mut state, &mut harness);
    while harness.should_stop().is_none() {
        let period = config.local_period.max(1);
        let position = harness.evaluations().len() % period;
        let local = period - tree_steps(&state, config);
        if position < local {
            let room = harness.batch_room().min(local - position);
            if local_steps(root, &mut state, &mut harness, bound, config, room) {
                continue;
            }
        }
        let room = if position >= local {
            harness.batch_room().min(period - position)
        } else {
            harness.batch_room()
        };
        tree_steps_batch(root, &mut state, &mut harness, bound, config, room);
    }
    harness.finish()
}

/// The tree's evaluations in a period: `local_period - local_steps`, or
/// fewer as its yield falls behind the local steps' (see
/// `MctsConfig::min_tree_steps`).
fn tree_steps<B: Backbone>(state: &State<B>, config: &MctsConfig) -> usize {
    let period = config.local_period.max(1);
    let base = period.saturating_sub(config.local_steps);
    match config.min_tree_steps {
        None => base,
        Some(least) => {
            let ratio = (state.tree_yield.rate() / state.local_yield.rate()).min(1.0);
            let scaled = (base as f64 * ratio).round() as usize;
            scaled.clamp(least.min(base), base)
        }
    }
}

/// Evaluates the harness's starting leaves and credits the tree with
/// their paths, as a restart credits the best paths: the first rollouts
/// go their way, and the local steps start around the best of them.
fn evaluate_starts<B: Backbone>(
    root: &Candidate<B>,
    state: &mut State<B>,
    harness: &mut Harness<B>,
) {
    let starts: Vec<(Candidate<B>, Vec<Action>)> = harness
        .take_starts(root)
        .into_iter()
        .filter(|(leaf, _)| state.seen.insert(leaf))
        .collect();
    let leaves: Vec<(&Candidate<B>, &[Action])> = starts
        .iter()
        .map(|(leaf, path)| (leaf, path.as_slice()))
        .collect();
    harness.prepare(&leaves);
    for (leaf, path) in &starts {
        if harness.should_stop().is_some() {
            break;
        }
        let evaluation = harness.evaluate(leaf, path);
        let value = evaluation.value.filter(|_| evaluation.status == Status::Ok);
        state.near_seen.insert(leaf);
        state.near.record(leaf, evaluation.status, value);
        state.known.insert(path.clone(), value);
        if let Some(value) = value {
            state.recent.push(value);
            state.tree.reinforce(path, 1.0, value, harness);
        }
    }
}

/// Evaluates up to `room` unseen neighbours of the best leaves (see
/// `MctsConfig::elites`); false when there is no best leaf or none of
/// their neighbours is left.
///
/// The neighbours are screened by a model of their own, fitted on the
/// leaves evaluated near the best ones (the starts, each best leaf and
/// the local steps), not on the tree's rollouts, which are mostly far
/// from the best. An unpromising draw is evaluated all the same: giving
/// way to the tree would spend the evaluation on a rollout, which is
/// unpromising more often still.
fn local_steps<B: Backbone>(
    root: &Candidate<B>,
    state: &mut State<B>,
    harness: &mut Harness<B>,
    bound: &dyn Bound<B>,
    config: &MctsConfig,
    room: usize,
) -> bool {
    let best = harness.best.as_ref().map(|(_, _, path)| path.clone());
    let Some(best) = best.filter(|best| state.used_up.as_ref() != Some(best)) else {
        return false;
    };
    if let Some((leaf, value, _)) = harness.best.as_ref() {
        if state.near_seen.insert(leaf) {
            state.near.record(leaf, Status::Ok, Some(*value));
        }
    }
    let elite_paths = elites(harness, &best, config.elites, &state.elite_yield);
    // Indices of the elites drawn around; one whose neighbourhood came out
    // empty is dropped for this call.
    let mut around: Vec<usize> = (0..elite_paths.len()).collect();
    let mut draws = 0;
    let mut batch: Vec<(Candidate<B>, Vec<Action>)> = Vec::new();
    // The elite each leaf of the batch was drawn around.
    let mut sources: Vec<usize> = Vec::new();
    while batch.len() < room {
        let mut drawn: Vec<(Candidate<B>, Vec<Action>, usize)> = Vec::new();
        for _ in 0..rounds(config) {
            let wanted = drawn.len() + config.screen.max(1);
            while drawn.len() < wanted && !around.is_empty() {
                let elite = around[draws % around.len()];
                draws += 1;
                match neighbour(root, &elite_paths[elite], &state.seen, harness, bound) {
                    Some((leaf, path)) => drawn.push((leaf, path, elite)),
                    None => around.retain(|&e| e != elite),
                }
            }
            // A neighbour already in the batch, drawn again, is not
            // evaluated twice.
            drawn.retain(|(leaf, _, _)| !batch.iter().any(|(b, _)| b.words() == leaf.words()));
            let leaves: Vec<&Candidate<B>> = drawn.iter().map(|(leaf, _, _)| leaf).collect();
            if drawn.len() < wanted
                || screen_of(state, harness).within(
                    &leaves,
                    harness.best_value(),
                    config.local_within,
                )
            {
                break;
            }
        }
        if drawn.is_empty() {
            break;
        }
        let leaves: Vec<&Candidate<B>> = drawn.iter().map(|(leaf, _, _)| leaf).collect();
        let (leaf, path, elite) = drawn.swap_remove(screen_of(state, harness).pick(&leaves));
        state.seen.insert(&leaf);
        batch.push((leaf, path));
        sources.push(elite);
    }
    if batch.is_empty() {
        state.used_up = Some(best);
        return false;
    }
    let values = evaluate_batch(harness, &batch);
    for (((leaf, _), value), elite) in batch.iter().zip(values).zip(sources) {
        let status = if value.is_some() {
            Status::Ok
        } else {
            Status::Failed
        };
        state
            .local_yield
            .record(value, harness.best_value(), PROMISING);
        state
            .elite_yield
            .entry(elite_paths[elite].clone())
            .or_default()
            .record(value, harness.best_value(), ELITE_WITHIN);
        state.near_seen.insert(leaf);
        state.near.record(leaf, status, value);
    }
    true
}

/// The paths of the leaves local steps draw around: `best`'s alone when
/// `count` is 1; else up to `count` of the best and the timed leaves
/// within [`ELITE_WITHIN`] of its value, those whose neighbours came that
/// close most often first (by `yields`, with one near and one not
/// counted in advance: an elite not drawn around yet comes before one
/// whose neighbours stopped coming close), then the fastest.
fn elites<B: Backbone>(
    harness: &Harness<B>,
    best: &[Action],
    count: usize,
    yields: &HashMap<Vec<Action>, Yield>,
) -> Vec<Vec<Action>> {
    let Some(limit) = harness.best_value().map(|best| ELITE_WITHIN * best) else {
        return vec![best.to_vec()];
    };
    if count <= 1 {
        return vec![best.to_vec()];
    }
    // The fastest first; stable, so equal values keep the order they
    // were evaluated in. Leaves are evaluated once, so only the best
    // comes twice.
    let mut near: Vec<(f64, &[Action])> = harness
        .evaluations()
        .iter()
        .filter_map(|e| Some((e.timed_value()?, e.path.as_slice())))
        .filter(|&(value, path)| value <= limit && path != best)
        .collect();
    near.sort_by(|a, b| a.0.total_cmp(&b.0));
    // Then by yield, each rate looked up once; only the kept paths are
    // copied.
    let unseen = Yield::default().rate();
    let mut ranked: Vec<(f64, &[Action])> = std::iter::once(best)
        .chain(near.into_iter().map(|(_, path)| path))
        .map(|path| (yields.get(path).map_or(unseen, Yield::rate), path))
        .collect();
    ranked.sort_by(|a, b| b.0.total_cmp(&a.0));
    ranked
        .into_iter()
        .take(count)
        .map(|(_, path)| path.to_vec())
        .collect()
}

/// The model that screens local steps: the one fitted near the best
/// leaves once it predicts, the search's until then.
fn screen_of<'a, B: Backbone>(state: &'a State<B>, harness: &'a Harness<B>) -> &'a Screen {
    if state.near.predicts() {
        &state.near
    } else {
        &harness.screen
    }
}

/// Proposes up to `room` new leaves from the tree (selection, expansion,
/// rollout), evaluates them, and backpropagates their rewards.
fn tree_steps_batch<B: Backbone>(
    root: &Candidate<B>,
    state: &mut State<B>,
    harness: &mut Harness<B>,
    bound: &dyn Bound<B>,
    config: &MctsConfig,
    room: usize,
) {
    let mut pending: Vec<Pending<B>> = Vec::new();
    let mut restart_due = false;
    while pending.len() < room && harness.should_stop().is_none() {
        let Some((visited, node, path)) =
            select_and_expand(&mut state.tree, harness, bound, config)
        else {
            if state.tree.nodes[0].exhausted {
                harness.stop_with(StopReason::Exhausted);
            }
            continue;
        };
        // Rollout.
        let start = state.tree.nodes[node].candidate.clone();
        let pick = match config.rollout {
            RolloutPolicy::Uniform => Pick::Uniform,
            RolloutPolicy::BoundWeighted => Pick::BoundWeighted {
                bound,
                threshold: harness.best_value(),
            },
        };
        let Some((leaf, leaf_path)) = screened_rollout(
            &start, &path, state, harness, &pick, bound, config, &pending,
        ) else {
            backpropagate(
                &mut state.tree,
                &visited,
                config.failure_reward,
                f64::INFINITY,
            );
            state.failed_rollouts += 1;
            if state.failed_rollouts > 1000 {
                // Whatever is left is refuted or pruned.
                harness.stop_with(StopReason::Exhausted);
            }
            continue;
        };
        state.failed_rollouts = 0;
        if state.screened_out < SCREENED_OUT_IN_A_ROW
            && !harness.screen.promising(&[&leaf], harness.best_value())
            && !evaluate_anyway(harness, config)
        {
            // Rewarded as the loss it is predicted to be, not evaluated
            // (nor marked as seen: a later rollout may still draw it).
            let predicted = harness
                .screen
                .predict(&leaf)
                .map_or(f64::INFINITY, f64::exp);
            backpropagate(&mut state.tree, &visited, 0.0, predicted);
            state.screened_out += 1;
            continue;
        }
        state.screened_out = 0;
        if leaf_path.len() == path.len() {
            // The tree node is itself a leaf: once evaluated it is done.
            state.tree.nodes[node].exhausted = true;
        }
        if pending.iter().any(|p| p.path == leaf_path) {
            // Proposed twice in one batch: the batch is as varied as the
            // tree allows for now.
            state.revisits += 1;
            break;
        }
        match state.known.get(&leaf_path) {
            Some(&value) => {
                // Known: rewarded again without an evaluation.
                state.revisits += 1;
                state.same_leaf = if state.last_leaf.as_ref() == Some(&leaf_path) {
                    state.same_leaf + 1
                } else {
                    1
                };
                state.last_leaf = Some(leaf_path);
                restart_due |= reward(state, harness, config, &visited, value);
                if restart_due {
                    break;
                }
            }
            None => {
                state.seen.insert(&leaf);
                for &id in &visited {
                    state.tree.nodes[id].visits += 1.0;
                }
                pending.push(Pending {
                    visited,
                    leaf,
                    path: leaf_path,
                });
            }
        }
    }
    let leaves: Vec<(&Candidate<B>, &[Action])> = pending
        .iter()
        .map(|p| (&p.leaf, p.path.as_slice()))
        .collect();
    harness.prepare(&leaves);
    for p in pending {
        if harness.should_stop().is_some() {
            break;
        }
        let evaluation = harness.evaluate(&p.leaf, &p.path);
        for &id in &p.visited {
            state.tree.nodes[id].visits -= 1.0;
        }
        state.revisits = 0;
        state.same_leaf = 1;
        let value = if evaluation.status == Status::Ok {
            evaluation.value
        } else {
            None
        };
        state.known.insert(p.path.clone(), value);
        state
            .tree_yield
            .record(value, harness.best_value(), PROMISING);
        let improved = value.is_some() && harness.best_value() == value;
        state.since_best = if improved { 0 } else { state.since_best + 1 };
        state.last_leaf = Some(p.path);
        restart_due |= reward(state, harness, config, &p.visited, value);
    }
    if restart_due {
        state.tree = restart(root, &state.known, config, harness);
        state.since_best = 0;
        state.same_leaf = 0;
    }
}

/// After this many rollouts in a row rewarded by their prediction, the
/// next is evaluated whatever its prediction: a search whose every
/// evaluation is screened out would never end on an evaluation budget.
const SCREENED_OUT_IN_A_ROW: usize = 64;

/// Whether an unpromising proposal is evaluated all the same (see
/// `MctsConfig::evaluate_unpromising`).
fn evaluate_anyway<B: Backbone>(harness: &mut Harness<B>, config: &MctsConfig) -> bool {
    harness.rng.random::<f64>() < config.evaluate_unpromising
}

/// Rounds of `config.screen` draws a proposal may take (one without
/// screening).
fn rounds(config: &MctsConfig) -> usize {
    if config.screen > 1 {
        config.screen_rounds.max(1)
    } else {
        1
    }
}

/// Rolls out from `start` (reached by `path`) `config.screen` times (more
/// rounds while none is promising, see `MctsConfig::screen_rounds`) and
/// keeps the leaf predicted fastest among those neither evaluated nor
/// pending (the first rollout when all are); `None` when no rollout
/// reached a leaf.
#[allow(clippy::too_many_arguments)]
fn screened_rollout<B: Backbone>(
    start: &Candidate<B>,
    path: &[Action],
    state: &State<B>,
    harness: &mut Harness<B>,
    pick: &Pick<B>,
    bound: &dyn Bound<B>,
    config: &MctsConfig,
    pending: &[Pending<B>],
) -> Option<(Candidate<B>, Vec<Action>)> {
    let mut drawn: Vec<(Candidate<B>, Vec<Action>)> = Vec::new();
    let mut fresh: Vec<usize> = Vec::new();
    for _ in 0..rounds(config) {
        for _ in 0..config.screen.max(1) {
            let mut leaf_path = path.to_vec();
            if let Some(leaf) = descend(start, &mut leaf_path, harness, pick, bound) {
                let unseen =
                    !state.seen.contains(&leaf) && !pending.iter().any(|p| p.path == leaf_path);
                if unseen {
                    fresh.push(drawn.len());
                }
                drawn.push((leaf, leaf_path));
            }
        }
        let leaves: Vec<&Candidate<B>> = fresh.iter().map(|&i| &drawn[i].0).collect();
        if leaves.is_empty() || harness.screen.promising(&leaves, harness.best_value()) {
            break;
        }
    }
    let chosen = match fresh.as_slice() {
        [] => 0,
        [only] => *only,
        _ => {
            let leaves: Vec<&Candidate<B>> = fresh.iter().map(|&i| &drawn[i].0).collect();
            fresh[harness.screen.pick(&leaves)]
        }
    };
    (chosen < drawn.len()).then(|| drawn.swap_remove(chosen))
}

/// Selection and expansion: walks the tree from the root to a node to roll
/// out from (a new one, or a leaf of the tree), closing children that
/// propagation refutes or the bound prunes. Returns the nodes visited, the
/// node and the path to it; `None` when the walk ended in an exhausted
/// node.
fn select_and_expand<B: Backbone>(
    tree: &mut Tree<B>,
    harness: &mut Harness<B>,
    bound: &dyn Bound<B>,
    config: &MctsConfig,
) -> Option<(Vec<usize>, usize, Vec<Action>)> {
    let mut node = 0;
    let mut visited = vec![0];
    let mut path: Vec<Action> = Vec::new();
    loop {
        tree.expand(node, harness);
        let open: Vec<usize> = {
            let children = tree.nodes[node].children.as_deref().unwrap_or(&[]);
            (0..children.len())
                .filter(|&i| {
                    !children[i].closed && children[i].node.is_none_or(|c| !tree.nodes[c].exhausted)
                })
                .collect()
        };
        if tree.nodes[node]
            .children
            .as_ref()
            .is_some_and(|c| c.is_empty())
        {
            return Some((visited, node, path)); // A leaf of the tree.
        }
        if open.is_empty() {
            tree.nodes[node].exhausted = true;
            mark_exhausted(tree, &visited);
            return None;
        }
        let unvisited: Vec<usize> = open
            .iter()
            .copied()
            .filter(|&i| {
                tree.nodes[node]
                    .children
                    .as_ref()
                    .is_some_and(|c| c[i].node.is_none())
            })
            .collect();
        let index = if !unvisited.is_empty() {
            unvisited[harness.rng.random_range(0..unvisited.len())]
        } else {
            select(tree, node, &open, config.tree)
        };
        let Some(next) = tree.child(node, index, harness) else {
            continue;
        };
        if harness.prunes(bound, &tree.nodes[next].candidate) {
            if let Some(children) = tree.nodes[node].children.as_mut() {
                children[index].closed = true;
            }
            continue;
        }
        let action = tree.nodes[node]
            .children
            .as_ref()
            .map(|c| c[index].action.clone());
        path.extend(action);
        node = next;
        visited.push(node);
        if !unvisited.is_empty() {
            return Some((visited, node, path)); // Expanded a new node.
        }
    }
}

/// Rewards the nodes of `visited` for a leaf of `value` (`None`: failed),
/// marks exhausted nodes, and says whether the search should restart.
fn reward<B: Backbone>(
    state: &mut State<B>,
    harness: &mut Harness<B>,
    config: &MctsConfig,
    visited: &[usize],
    value: Option<f64>,
) -> bool {
    let reward = match value {
        Some(v) => {
            let recent = &mut state.recent;
            let reward =
                if recent.is_empty() || v < recent.iter().sum::<f64>() / recent.len() as f64 {
                    1.0
                } else {
                    0.0
                };
            recent.push(v);
            if recent.len() > config.moving_average.max(1) {
                recent.remove(0);
            }
            reward
        }
        None => config.failure_reward,
    };
    backpropagate(
        &mut state.tree,
        visited,
        reward,
        value.unwrap_or(f64::INFINITY),
    );
    mark_exhausted(&mut state.tree, visited);
    if state.tree.nodes[0].exhausted {
        harness.stop_with(StopReason::Exhausted);
    }
    if state.revisits > 1000 {
        harness.stop_with(StopReason::NoNewLeaf);
    }
    let stalled = config.stall.is_some_and(|k| state.since_best >= k);
    stalled || state.same_leaf >= config.same_leaf.max(2)
}

/// A new tree, with the paths of the best values rewarded and those of
/// the worst penalized.
fn restart<B: Backbone>(
    root: &Candidate<B>,
    known: &HashMap<Vec<Action>, Option<f64>>,
    config: &MctsConfig,
    harness: &mut Harness<B>,
) -> Tree<B> {
    let mut tree = Tree::new(root);
    let mut ranked: Vec<(&Vec<Action>, f64)> = known
        .iter()
        .map(|(p, v)| (p, v.unwrap_or(f64::INFINITY)))
        .collect();
    // Sorted by value, then by path, so that the order is reproducible.
    ranked.sort_by(|a, b| a.1.total_cmp(&b.1).then_with(|| a.0.cmp(b.0)));
    let count = ((ranked.len() as f64) * config.transfer).ceil() as usize;
    let count = count.min(ranked.len() / 2);
    for (path, value) in ranked.iter().take(count) {
        tree.reinforce(path, 1.0, *value, harness);
    }
    for (path, value) in ranked.iter().rev().take(count) {
        tree.reinforce(path, config.failure_reward.min(0.0), *value, harness);
    }
    tree
}

fn select<B: Backbone>(tree: &Tree<B>, node: usize, open: &[usize], policy: TreePolicy) -> usize {
    let parent = &tree.nodes[node];
    let children = parent.children.as_deref().unwrap_or(&[]);
    let stats = |i: usize| children[i].node.map(|c| &tree.nodes[c]);
    let score = |i: usize| -> f64 {
        let Some(child) = stats(i) else {
            return f64::INFINITY;
        };
        let n = child.visits.max(1e-9);
        match policy {
            TreePolicy::Uct { exploration } => {
                child.reward / n + exploration * (parent.visits.max(1.0).ln() / n).sqrt()
            }
            TreePolicy::Tag { top, delta } => {
                // The threshold: the `top`-th best value seen below the parent.
                let mut values = parent.values.clone();
                values.sort_by(f64::total_cmp);
                let threshold = values
                    .get(top.saturating_sub(1).min(values.len().saturating_sub(1)))
                    .copied()
                    .unwrap_or(f64::INFINITY);
                let s = child.values.iter().filter(|v| **v <= threshold).count() as f64;
                let alpha = (2.0 * parent.visits.max(1.0) * open.len() as f64 / delta).ln();
                (s + alpha + (2.0 * s * alpha + alpha * alpha).sqrt()) / n
            }
        }
    };
    let mut best = open[0];
    let mut best_score = f64::NEG_INFINITY;
    for &i in open {
        let s = score(i);
        if s > best_score {
            best = i;
            best_score = s;
        }
    }
    best
}

fn backpropagate<B: Backbone>(tree: &mut Tree<B>, visited: &[usize], reward: f64, value: f64) {
    for &id in visited {
        let node = &mut tree.nodes[id];
        node.visits += 1.0;
        node.reward += reward;
        node.values.push(value);
    }
}

/// A node is exhausted when every child is closed or exhausted.
fn mark_exhausted<B: Backbone>(tree: &mut Tree<B>, visited: &[usize]) {
    for &id in visited.iter().rev() {
        let done = match &tree.nodes[id].children {
            Some(children) if !children.is_empty() => children
                .iter()
                .all(|c| c.closed || c.node.is_some_and(|n| tree.nodes[n].exhausted)),
            _ => tree.nodes[id].exhausted,
        };
        if done {
            tree.nodes[id].exhausted = true;
        } else {
            break;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::candidate::Domain;
    use crate::search::harness::{Budget, NoBound, Outcome, SearchConfig};
    use crate::search::record::Evaluation;
    use crate::search::unconstrained::MODEL;
    use crate::testing::RandomBackbone;

    type Leaf = Candidate<RandomBackbone>;

    /// As on the loop space, a few decisions each multiply the time (a
    /// lost parallel loop, a strided inner loop): `C` on any of the first
    /// four instances costs 4x, and the rest add a little.
    fn cost(leaf: &Leaf) -> f64 {
        leaf.instances(&[])
            .iter()
            .enumerate()
            .map(|(i, instance)| match leaf.domain(instance) {
                Some(Domain::Enum(0b100)) if i < 4 => 4.0,
                Some(Domain::Enum(0b010)) => 1.05,
                _ => 1.0,
            })
            .product()
    }

    /// The share of `screen`'s evaluations within twice the best value.
    fn share_near_the_best(screen: usize, seed: u64) -> f64 {
        share_near_the_best_with(
            &MctsConfig {
                screen,
                screen_rounds: 1,
                evaluate_unpromising: 1.0,
                ..MctsConfig::default()
            },
            seed,
        )
    }

    /// The share of the evaluations of MCTS with `mcts_config` within
    /// twice the best value (120 evaluations, all made).
    fn share_near_the_best_with(mcts_config: &MctsConfig, seed: u64) -> f64 {
        let root = Candidate::new(RandomBackbone::new(&MODEL, 1, 12)).expect("a space");
        let mut evaluate = |leaf: &Leaf| Outcome::ok(cost(leaf));
        let config = SearchConfig {
            seed,
            budget: Budget::evaluations(120),
            priority: Vec::new(),
        };
        let harness = Harness::new(&mut evaluate, &config);
        let result = mcts(&root, harness, &NoBound, mcts_config);
        assert_eq!(result.evaluations.len(), 120);
        let values: Vec<f64> = result.evaluations.iter().filter_map(|e| e.value).collect();
        let best = values.iter().copied().fold(f64::INFINITY, f64::min);
        values.iter().filter(|&&v| v <= 2.0 * best).count() as f64 / values.len() as f64
    }

    /// The leaf of `root` with every instance at its first value.
    fn first_values(root: &Leaf) -> Leaf {
        let mut leaf = root.clone();
        while let Some(instance) = leaf.next_open(&[]) {
            let first = leaf.alternatives(&instance).remove(0);
            leaf.apply(&first).expect("first values hold");
        }
        leaf
    }

    /// The leaf of `root` with every instance at its last value.
    fn last_values(root: &Leaf) -> Leaf {
        let mut leaf = root.clone();
        while let Some(instance) = leaf.next_open(&[]) {
            let last = leaf.alternatives(&instance).pop().expect("a value");
            leaf.apply(&last).expect("last values hold");
        }
        leaf
    }

    /// How many of `evaluations` are one to three decisions from `leaf`.
    fn near(root: &Leaf, evaluations: &[Evaluation], leaf: &Leaf) -> usize {
        evaluations
            .iter()
            .filter(|e| (1..=3).contains(&decisions_apart(root, &e.path, leaf)))
            .count()
    }

    /// How many instances the leaf `path` reaches from `root` decides
    /// otherwise than `other`.
    fn decisions_apart(root: &Leaf, path: &[Action], other: &Leaf) -> usize {
        let mut leaf = root.clone();
        for action in path {
            leaf.apply(action).expect("the path replays");
        }
        differing(&leaf, other)
    }

    /// How many instances `a` and `b` decide otherwise.
    fn differing(a: &Leaf, b: &Leaf) -> usize {
        a.instances(&[])
            .iter()
            .filter(|i| a.domain(i) != b.domain(i))
            .count()
    }

    #[test]
    fn starts_are_evaluated_first_and_the_local_steps_work_around_them() {
        let root = Candidate::new(RandomBackbone::new(&MODEL, 1, 12)).expect("a space");
        // A start with every instance at its first value: cost 1, the
        // optimum; a second start, one change away, is evaluated after it.
        let start = first_values(&root);
        let mut other = root.clone();
        let mut changed = false;
        while let Some(instance) = other.next_open(&[]) {
            let mut values = other.alternatives(&instance);
            let pick = if changed {
                values.remove(0)
            } else {
                values.remove(1)
            };
            changed = true;
            other.apply(&pick).expect("values hold");
        }
        let mut evaluate = |leaf: &Leaf| Outcome::ok(cost(leaf));
        let config = SearchConfig {
            seed: 2,
            budget: Budget::evaluations(60),
            priority: Vec::new(),
        };
        let harness = Harness::new(&mut evaluate, &config).with_starts(vec![
            start.clone(),
            other.clone(),
            start.clone(),
        ]);
        let mcts_config = MctsConfig {
            local_steps: 10,
            local_period: 20,
            ..MctsConfig::default()
        };
        let result = mcts(&root, harness, &NoBound, &mcts_config);
        // Both starts first (the repeated one once), the first the best.
        assert_eq!(result.evaluations[0].value, Some(1.0));
        assert_eq!(result.evaluations[1].value, Some(cost(&other)));
        assert_eq!(result.best_value(), Some(1.0));
        assert_eq!(
            result.best.as_ref().map(|(leaf, _, _)| leaf.decisions()),
            Some(start.decisions())
        );
        // Evaluations 2 to 9 are local steps: neighbours of the start,
        // one to three decisions away.
        for evaluation in &result.evaluations[2..10] {
            let differ = decisions_apart(&root, &evaluation.path, &start);
            assert!(
                (1..=3).contains(&differ),
                "{differ} decisions from the start"
            );
        }
    }

    #[test]
    fn unpromising_neighbours_are_evaluated_rather_than_rollouts() {
        let root = Candidate::new(RandomBackbone::new(&MODEL, 1, 12)).expect("a space");
        // The optimum (every instance at its first value) as the start:
        // the best never changes.
        let start = first_values(&root);
        // Every decision off its first value makes the leaf 4 times
        // slower: every neighbour is unpromising.
        let first = start.clone();
        let mut evaluate =
            move |leaf: &Leaf| Outcome::ok(4f64.powi(differing(leaf, &first) as i32));
        let config = SearchConfig {
            seed: 3,
            budget: Budget::evaluations(40),
            priority: Vec::new(),
        };
        let harness = Harness::new(&mut evaluate, &config).with_starts(vec![start.clone()]);
        let mcts_config = MctsConfig {
            local_steps: 100,
            local_period: 100,
            screen: 8,
            screen_rounds: 4,
            evaluate_unpromising: 0.0,
            ..MctsConfig::default()
        };
        let result = mcts(&root, harness, &NoBound, &mcts_config);
        assert_eq!(result.evaluations.len(), 40);
        // Every evaluation after the start is a neighbour of it, none a
        // rollout of the tree, though the tree evaluates no unpromising
        // leaf and the neighbours are.
        for evaluation in &result.evaluations[1..] {
            let differ = decisions_apart(&root, &evaluation.path, &start);
            assert!(
                (1..=3).contains(&differ),
                "evaluation {}: {differ} decisions from the start",
                evaluation.index
            );
        }
    }

    #[test]
    fn screening_evaluates_more_leaves_near_the_best() {
        let seeds = 0..6;
        let plain: f64 = seeds.clone().map(|s| share_near_the_best(1, s)).sum();
        let screened: f64 = seeds.map(|s| share_near_the_best(8, s)).sum();
        assert!(
            // 0.59 against 0.46 when written: the tree still expands
            // every child near the root, good or not.
            screened > 1.2 * plain,
            "mean share near the best: screened {:.2}, plain {:.2}",
            screened / 6.0,
            plain / 6.0
        );
    }

    #[test]
    fn unpromising_proposals_are_mostly_not_evaluated() {
        let seeds = 0..6;
        let rounds = MctsConfig {
            screen: 8,
            screen_rounds: 4,
            evaluate_unpromising: 0.25,
            local_steps: 75,
            ..MctsConfig::default()
        };
        let once: f64 = seeds
            .clone()
            .map(|s| {
                share_near_the_best_with(
                    &MctsConfig {
                        screen_rounds: 1,
                        evaluate_unpromising: 1.0,
                        ..rounds.clone()
                    },
                    s,
                )
            })
            .sum();
        let screened_out: f64 = seeds
            .clone()
            .map(|s| share_near_the_best_with(&rounds, s))
            .sum();
        assert!(
            // 0.82 against 0.75 when written.
            screened_out > 1.05 * once,
            "mean share near the best: more rounds and unpromising proposals left out {:.2}, one round {:.2}",
            screened_out / 6.0,
            once / 6.0
        );
        // None evaluated: the search still makes its evaluations.
        let never = MctsConfig {
            evaluate_unpromising: 0.0,
            ..rounds
        };
        for seed in seeds {
            share_near_the_best_with(&never, seed);
        }
    }

    /// How many evaluations after the first period are more than three
    /// decisions from the start, in MCTS with `min_tree_steps`, where
    /// every leaf that far is ten times slower than the start's
    /// neighbours.
    fn far_from_the_start(min_tree_steps: Option<usize>) -> usize {
        let root = Candidate::new(RandomBackbone::new(&MODEL, 1, 12)).expect("a space");
        let start = first_values(&root);
        let first = start.clone();
        let mut evaluate = move |leaf: &Leaf| {
            let apart = differing(leaf, &first);
            Outcome::ok(if apart <= 3 {
                1.0 + 0.01 * apart as f64
            } else {
                10.0
            })
        };
        let config = SearchConfig {
            seed: 4,
            budget: Budget::evaluations(300),
            priority: Vec::new(),
        };
        let harness = Harness::new(&mut evaluate, &config).with_starts(vec![start.clone()]);
        let mcts_config = MctsConfig {
            min_tree_steps,
            ..MctsConfig::default()
        };
        let result = mcts(&root, harness, &NoBound, &mcts_config);
        assert_eq!(result.evaluations.len(), 300);
        // After the first period, whose quarter of rollouts measures the
        // tree's yield.
        result.evaluations[100..]
            .iter()
            .filter(|e| decisions_apart(&root, &e.path, &start) > 3)
            .count()
    }

    #[test]
    fn the_tree_share_follows_its_yield() {
        let fixed = far_from_the_start(None);
        let following = far_from_the_start(Some(2));
        // Two periods: a fixed quarter is 50 rollouts, nearly all far; a
        // share following a yield of one in twenty-five falls to 2 each.
        assert!(fixed >= 40, "{fixed} far evaluations with a fixed share");
        assert!(
            following <= 8,
            "{following} far evaluations with a share following the yield"
        );
    }

    /// Evaluations one to three decisions from the last of `starts`, in
    /// local steps around `elites` leaves, where each start is worth its
    /// value in `values` (the first the fastest), every neighbour of the
    /// last start 1.2 and any other leaf 3.0.
    fn near_the_last_start(starts: Vec<Leaf>, values: &[f64], elites: usize, seed: u64) -> usize {
        let root = Candidate::new(RandomBackbone::new(&MODEL, 1, 12)).expect("a space");
        let last = starts.last().expect("a start").clone();
        let (known, worth, target) = (starts.clone(), values.to_vec(), last.clone());
        let mut evaluate = move |leaf: &Leaf| {
            let value = match known.iter().position(|s| differing(leaf, s) == 0) {
                Some(start) => worth[start],
                None if (1..=3).contains(&differing(leaf, &target)) => 1.2,
                None => 3.0,
            };
            Outcome::ok(value)
        };
        let config = SearchConfig {
            seed,
            budget: Budget::evaluations(60),
            priority: Vec::new(),
        };
        let count = starts.len();
        let harness = Harness::new(&mut evaluate, &config).with_starts(starts);
        let mcts_config = MctsConfig {
            local_steps: 100,
            local_period: 100,
            screen: 8,
            screen_rounds: 4,
            elites,
            ..MctsConfig::default()
        };
        let result = mcts(&root, harness, &NoBound, &mcts_config);
        assert_eq!(result.evaluations.len(), 60);
        assert_eq!(result.best_value(), Some(1.0));
        near(&root, &result.evaluations[count..], &last)
    }

    /// [`near_the_last_start`] from the first-values leaf (1.0) and the
    /// last-values one (1.1), which differ in every decision.
    fn near_the_second_best(elites: usize) -> usize {
        let root = Candidate::new(RandomBackbone::new(&MODEL, 1, 12)).expect("a space");
        let starts = vec![first_values(&root), last_values(&root)];
        assert!(differing(&starts[0], &starts[1]) > 6);
        near_the_last_start(starts, &[1.0, 1.1], elites, 5)
    }

    #[test]
    fn local_steps_move_to_a_leaf_nearly_as_fast_as_the_best() {
        // Around the best only, no neighbour of the second start is drawn.
        assert_eq!(near_the_second_best(1), 0);
        // Around both, the model fitted near them picks the second's
        // neighbours once it predicts.
        let around_both = near_the_second_best(2);
        assert!(
            around_both >= 35,
            "{around_both} of 58 near the second best"
        );
    }

    /// Local steps from the first-values start evaluated more than 1.5
    /// times the best, in MCTS whose local steps draw until within
    /// `local_within`, summed over six seeds: changing one of the first
    /// four instances costs 1.05x and any other 2.5x, so two single
    /// changes in three cost 2.5x, and once the cheap ones near the
    /// start are evaluated a round of four draws around four elites often
    /// holds none.
    fn evaluated_far_from_the_best(local_within: f64) -> usize {
        (0..6)
            .map(|seed| {
                let root = Candidate::new(RandomBackbone::new(&MODEL, 1, 12)).expect("a space");
                let start = first_values(&root);
                let first = start.clone();
                let mut evaluate = move |leaf: &Leaf| {
                    let instances = leaf.instances(&[]);
                    Outcome::ok(
                        instances
                            .iter()
                            .enumerate()
                            .filter(|(_, i)| leaf.domain(i) != first.domain(i))
                            .map(|(index, _)| if index < 4 { 1.05 } else { 2.5 })
                            .product(),
                    )
                };
                let config = SearchConfig {
                    seed,
                    budget: Budget::evaluations(40),
                    priority: Vec::new(),
                };
                let harness = Harness::new(&mut evaluate, &config).with_starts(vec![start]);
                let mcts_config = MctsConfig {
                    local_steps: 100,
                    local_period: 100,
                    screen: 4,
                    screen_rounds: 16,
                    elites: 4,
                    local_within,
                    ..MctsConfig::default()
                };
                let result = mcts(&root, harness, &NoBound, &mcts_config);
                assert_eq!(result.evaluations.len(), 40);
                // After the eight leaves the models need to predict.
                result.evaluations[9..]
                    .iter()
                    .filter(|e| e.value.is_some_and(|v| v > 1.5))
                    .count()
            })
            .sum()
    }

    #[test]
    fn local_steps_draw_until_a_neighbour_is_predicted_near_the_best() {
        let twice = evaluated_far_from_the_best(PROMISING);
        let within = evaluated_far_from_the_best(1.5);
        // 59 against 99 when written: once the neighbours of the start
        // that change a cheap instance are evaluated, a cheap draw takes
        // more rounds.
        assert!(
            within * 3 <= twice * 2,
            "of 186 local steps, {within} far from the best drawing until within 1.5x, {twice} until within 2x"
        );
    }

    /// The leaf of `root` with every instance at its second value.
    fn second_values(root: &Leaf) -> Leaf {
        let mut leaf = root.clone();
        while let Some(instance) = leaf.next_open(&[]) {
            let second = leaf.alternatives(&instance).remove(1);
            leaf.apply(&second).expect("second values hold");
        }
        leaf
    }

    /// [`near_the_last_start`] around two elites, from three starts that
    /// differ in every decision: the two fastest (1.0 and 1.1) have no
    /// neighbour faster than 3.0, the third (1.15) has them at 1.2.
    fn near_the_third_start() -> usize {
        let root = Candidate::new(RandomBackbone::new(&MODEL, 1, 12)).expect("a space");
        let starts = vec![
            first_values(&root),
            last_values(&root),
            second_values(&root),
        ];
        near_the_last_start(starts, &[1.0, 1.1, 1.15], 2, 6)
    }

    #[test]
    fn elites_whose_neighbours_stop_coming_close_give_way() {
        // Drawing around the two fastest starts only, none would be near
        // the third (every decision differs between the starts).
        let near_third = near_the_third_start();
        // 52 when written.
        assert!(near_third >= 35, "{near_third} of 57 near the third start");
    }
}
