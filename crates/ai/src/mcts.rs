//! Monte Carlo tree search in an arena of nodes: PUCT below the root, and at the root
//! either PUCT or Gumbel sampling with sequential halving (Danihelka et al., "Policy
//! improvement by planning with Gumbel", 2022), which makes small budgets count.
//!
//! Values are in [-1, 1]. A node's `value_sum` is from the perspective of the player who
//! made the node's move (so a parent picks the child with the best value for itself);
//! the sign flips once per ply on the way up. Terminal values are exact: king destroyed,
//! Timeout, third repetition (tracked along the game's history and the search path),
//! 160 plies, no legal move.

use engine::{Move, Outcome, Position};

use crate::evaluator::{Evaluator, Leaf};
use crate::rng::Rng;

/// How the root chooses where to spend the budget.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum RootPolicy {
    /// PUCT everywhere; the most visited move is played.
    Puct,
    /// Gumbel top-`m` sampling and sequential halving at the root.
    Gumbel { m: usize },
}

#[derive(Clone, Copy, Debug)]
pub struct SearchConfig {
    /// Leaf evaluations the search may spend (the budget; terminal leaves are free).
    pub evaluations: u32,
    /// Leaves per evaluator call (virtual loss keeps a batch's paths apart).
    pub batch: usize,
    pub c_puct: f32,
    pub root: RootPolicy,
    pub seed: u64,
    /// Decisive moves (an MCTS-solver step, no evaluation spent): a position whose side to
    /// move can win at once on the board (destroy the enemy king-piece, reach Timeout) is
    /// a proven win for it, and a root move that allows such a reply is a proven loss. A
    /// few dozen evaluations rarely visit every reply, so without it a small search plays
    /// moves that lose on the spot.
    pub decisive: bool,
}

impl Default for SearchConfig {
    fn default() -> Self {
        SearchConfig {
            evaluations: 128,
            batch: 1,
            c_puct: 1.5,
            root: RootPolicy::Puct,
            seed: 1,
            decisive: false,
        }
    }
}

#[derive(Clone, Debug)]
pub struct SearchResult {
    /// The move to play (None only when the root has no legal move).
    pub best: Option<Move>,
    pub moves: Vec<Move>,
    pub visits: Vec<u32>,
    /// The improved policy over `moves` (training target).
    pub policy: Vec<f32>,
    /// The root value for the side to move.
    pub value: f32,
    pub evaluations: u32,
    pub simulations: u32,
}

#[derive(Clone, Debug)]
struct Node {
    mv: Option<Move>,
    prior: f32,
    visits: u32,
    value_sum: f32,
    first_child: u32,
    n_children: u32,
    expanded: bool,
    /// Exact value for the player who made `mv`, once known to be terminal.
    terminal: Option<f32>,
}

impl Node {
    fn new(mv: Option<Move>, prior: f32) -> Node {
        Node {
            mv,
            prior,
            visits: 0,
            value_sum: 0.0,
            first_child: 0,
            n_children: 0,
            expanded: false,
            terminal: None,
        }
    }

    fn q(&self) -> Option<f32> {
        (self.visits > 0).then(|| self.value_sum / self.visits as f32)
    }
}

/// The value of an outcome for the player who made the move that reached it.
fn outcome_value(o: Outcome, mover: engine::Side) -> f32 {
    match o.winner() {
        Some(w) if w == mover => 1.0,
        Some(_) => -1.0,
        None => 0.0,
    }
}

struct Tree {
    nodes: Vec<Node>,
    root_pos: Position,
    /// Hashes of every position of the game so far, the root included.
    history: Vec<u64>,
    c_puct: f32,
    decisive: bool,
}

/// Whether the side to move in `pos` has a move among `moves` that wins on the board at
/// once (no move generation: [`Position::board_outcome`] only).
fn wins_at_once(pos: &Position, moves: &[Move]) -> bool {
    let side = pos.turn();
    moves.iter().any(|&m| {
        let mut p = *pos;
        p.play_unchecked(m);
        p.board_outcome().is_some_and(|o| o.winner() == Some(side))
    })
}

/// A leaf waiting for its evaluation.
struct Pending {
    path: Vec<u32>,
    position: Position,
    moves: Vec<Move>,
}

enum Step {
    /// The simulation ended on a terminal node and was backed up.
    Done,
    /// A leaf to evaluate (virtual loss applied along its path).
    Leaf(Pending),
}

impl Tree {
    fn children(&self, n: u32) -> std::ops::Range<usize> {
        let node = &self.nodes[n as usize];
        node.first_child as usize..(node.first_child + node.n_children) as usize
    }

    fn select_child(&self, n: u32) -> u32 {
        let node = &self.nodes[n as usize];
        let sqrt_n = (node.visits.max(1) as f32).sqrt();
        // First-play urgency: an unvisited child is worth the parent's value, a bit less.
        let parent_q = node.q().map_or(0.0, |q| -q);
        let fpu = parent_q - 0.2;
        let mut best = (f32::NEG_INFINITY, self.nodes[n as usize].first_child);
        for c in self.children(n) {
            let ch = &self.nodes[c];
            let q = ch.q().unwrap_or(fpu);
            let u = self.c_puct * ch.prior * sqrt_n / (1.0 + ch.visits as f32);
            if q + u > best.0 {
                best = (q + u, c as u32);
            }
        }
        best.1
    }

    /// Walks from the root (through `forced` at the root if given) to a leaf.
    fn descend(&mut self, forced: Option<u32>) -> Step {
        let mut path = vec![0u32];
        let mut pos = self.root_pos;
        let mut hashes = self.history.clone();
        let mut n = 0u32;
        loop {
            let node = &self.nodes[n as usize];
            if let Some(v) = node.terminal {
                self.backup(&path, v, false);
                return Step::Done;
            }
            if !node.expanded {
                break;
            }
            let c = match (n, forced) {
                (0, Some(f)) => f,
                _ => self.select_child(n),
            };
            let Some(mv) = self.nodes[c as usize].mv else {
                break;
            };
            let mover = pos.turn();
            pos.play_unchecked(mv);
            let earlier = hashes.iter().filter(|&&h| h == pos.hash()).count();
            hashes.push(pos.hash());
            path.push(c);
            n = c;
            if self.nodes[c as usize].visits == 0 && !self.nodes[c as usize].expanded {
                // First visit: is the game over here?
                let moves = pos.legal_moves();
                let outcome =
                    if moves.is_empty() || earlier >= 2 { pos.outcome_after_move(earlier) } else { None };
                if let Some(o) = outcome {
                    let v = outcome_value(o, mover);
                    self.nodes[c as usize].terminal = Some(v);
                    self.backup(&path, v, false);
                    return Step::Done;
                }
                if self.decisive && wins_at_once(&pos, &moves) {
                    // The side to move here wins next move: the move into it loses.
                    self.nodes[c as usize].terminal = Some(-1.0);
                    self.backup(&path, -1.0, false);
                    return Step::Done;
                }
                self.add_virtual_loss(&path);
                return Step::Leaf(Pending { path, position: pos, moves });
            }
        }
        // The root itself, unexpanded.
        let moves = pos.legal_moves();
        self.add_virtual_loss(&path);
        Step::Leaf(Pending { path, position: pos, moves })
    }

    fn add_virtual_loss(&mut self, path: &[u32]) {
        for &n in path {
            let node = &mut self.nodes[n as usize];
            node.visits += 1;
            node.value_sum -= 1.0;
        }
    }

    /// Backs `v` (for the player who moved into the last node of `path`) up the path.
    fn backup(&mut self, path: &[u32], mut v: f32, had_virtual_loss: bool) {
        for &n in path.iter().rev() {
            let node = &mut self.nodes[n as usize];
            if had_virtual_loss {
                node.value_sum += 1.0;
            } else {
                node.visits += 1;
            }
            node.value_sum += v;
            v = -v;
        }
    }

    fn expand(&mut self, leaf: &Pending, priors: &[f32], value: f32) {
        let n = *leaf.path.last().unwrap_or(&0);
        if !self.nodes[n as usize].expanded {
            let first = self.nodes.len() as u32;
            for (m, &p) in leaf.moves.iter().zip(priors) {
                self.nodes.push(Node::new(Some(*m), p));
            }
            let node = &mut self.nodes[n as usize];
            node.first_child = first;
            node.n_children = leaf.moves.len() as u32;
            node.expanded = true;
        }
        // `value` is for the side to move at the leaf; the leaf's node stores it for the
        // player who moved into it.
        self.backup(&leaf.path, -value, true);
    }
}

/// Searches `root`, whose game so far is `history` (hashes of every earlier position and
/// the root; pass `&[root.hash()]` for a fresh position).
pub fn search(
    root: &Position,
    history: &[u64],
    evaluator: &mut dyn Evaluator,
    cfg: &SearchConfig,
) -> SearchResult {
    let mut rng = Rng::new(cfg.seed);
    let mut tree = Tree {
        nodes: vec![Node::new(None, 1.0)],
        root_pos: *root,
        history: history.to_vec(),
        c_puct: cfg.c_puct,
        decisive: cfg.decisive,
    };
    if tree.history.last() != Some(&root.hash()) {
        tree.history.push(root.hash());
    }
    let mut evaluations = 0u32;
    let mut simulations = 0u32;

    // Expand the root first (one evaluation).
    let root_moves = root.legal_moves();
    if root_moves.is_empty() || root.outcome().is_some() {
        return SearchResult {
            best: None,
            moves: root_moves,
            visits: vec![],
            policy: vec![],
            value: 0.0,
            evaluations: 0,
            simulations: 0,
        };
    }
    let root_eval = {
        let leaf = Pending { path: vec![0], position: *root, moves: root_moves.clone() };
        tree.add_virtual_loss(&leaf.path);
        let e = evaluator.evaluate(&[Leaf { position: root, moves: &root_moves }]).remove(0);
        tree.expand(&leaf, &e.priors, e.value);
        evaluations += 1;
        e
    };
    let n = root_moves.len();
    // Moves that end the game at once are known exactly before any simulation: a win in
    // one is never missed for lack of visits, a losing repetition never played blindly.
    for (i, &mv) in root_moves.iter().enumerate() {
        let c = tree.nodes[0].first_child as usize + i;
        let mut child = *root;
        child.play_unchecked(mv);
        let earlier = tree.history.iter().filter(|&&h| h == child.hash()).count();
        if let Some(o) = child.outcome_after_move(earlier) {
            tree.nodes[c].terminal = Some(outcome_value(o, root.turn()));
        } else if cfg.decisive && wins_at_once(&child, &child.legal_moves()) {
            tree.nodes[c].terminal = Some(-1.0);
        }
    }
    let logits: Vec<f32> = root_eval.priors.iter().map(|p| p.max(1e-8).ln()).collect();
    let max_sims = cfg.evaluations.saturating_mul(4) + 16;

    // One batch of simulations (each forced through `forced` at the root if given).
    let mut run_batch =
        |tree: &mut Tree, forced: &[Option<u32>], evaluations: &mut u32, simulations: &mut u32| {
            let mut pending = Vec::new();
            for &f in forced {
                *simulations += 1;
                if let Step::Leaf(p) = tree.descend(f) {
                    pending.push(p);
                }
            }
            if pending.is_empty() {
                return;
            }
            let leaves: Vec<Leaf<'_>> =
                pending.iter().map(|p| Leaf { position: &p.position, moves: &p.moves }).collect();
            let evals = evaluator.evaluate(&leaves);
            *evaluations += pending.len() as u32;
            for (p, e) in pending.iter().zip(evals) {
                tree.expand(p, &e.priors, e.value);
            }
        };

    let first = tree.nodes[0].first_child;
    let gumbel_m = match cfg.root {
        RootPolicy::Gumbel { m } => Some(m.clamp(1, n)),
        RootPolicy::Puct => None,
    };
    let mut best_child: u32;
    match gumbel_m {
        None => {
            while evaluations < cfg.evaluations && simulations < max_sims {
                let k = cfg.batch.max(1).min((cfg.evaluations - evaluations) as usize);
                run_batch(&mut tree, &vec![None; k], &mut evaluations, &mut simulations);
            }
            best_child =
                first + (0..n as u32).max_by_key(|&i| tree.nodes[(first + i) as usize].visits).unwrap_or(0);
        }
        Some(m) => {
            let g: Vec<f32> = (0..n).map(|_| rng.gumbel()).collect();
            let mut cand: Vec<usize> = (0..n).collect();
            cand.sort_by(|&a, &b| (g[b] + logits[b]).total_cmp(&(g[a] + logits[a])));
            cand.truncate(m);
            let rounds = (m as f32).log2().ceil().max(1.0) as u32;
            let score = |tree: &Tree, i: usize| {
                let ch = &tree.nodes[first as usize + i];
                let max_n = (0..n).map(|j| tree.nodes[first as usize + j].visits).max().unwrap_or(0) as f32;
                let q = ch.q().map_or(0.0, |q| (q + 1.0) / 2.0);
                let sigma = (50.0 + max_n) * 0.1 * q;
                g[i] + logits[i] + if ch.visits > 0 { sigma } else { 0.0 }
            };
            for round in 0..rounds {
                let left = cfg.evaluations.saturating_sub(evaluations);
                if left == 0 || cand.len() == 1 {
                    break;
                }
                let per = (left / (rounds - round)).max(cand.len() as u32) / cand.len() as u32;
                for _ in 0..per.max(1) {
                    let forced: Vec<Option<u32>> = cand.iter().map(|&i| Some(first + i as u32)).collect();
                    for chunk in forced.chunks(cfg.batch.max(1)) {
                        let left = cfg.evaluations.saturating_sub(evaluations) as usize;
                        if left == 0 {
                            break;
                        }
                        run_batch(
                            &mut tree,
                            &chunk[..chunk.len().min(left)],
                            &mut evaluations,
                            &mut simulations,
                        );
                    }
                    if evaluations >= cfg.evaluations || simulations >= max_sims {
                        break;
                    }
                }
                cand.sort_by(|&a, &b| score(&tree, b).total_cmp(&score(&tree, a)));
                cand.truncate((cand.len() / 2).max(1));
            }
            let winner = cand
                .iter()
                .copied()
                .max_by(|&a, &b| score(&tree, a).total_cmp(&score(&tree, b)))
                .unwrap_or(0);
            best_child = first + winner as u32;
        }
    }
    // A child proven winning for us is always taken (a search with few visits may miss
    // that it was ranked below another); a proven loss is avoided if anything else exists.
    if let Some(win) =
        (0..n as u32).map(|i| first + i).find(|&c| tree.nodes[c as usize].terminal == Some(1.0))
    {
        best_child = win;
    } else if tree.nodes[best_child as usize].terminal == Some(-1.0) {
        if let Some(alt) = (0..n as u32)
            .map(|i| first + i)
            .filter(|&c| tree.nodes[c as usize].terminal != Some(-1.0))
            .max_by_key(|&c| tree.nodes[c as usize].visits)
        {
            best_child = alt;
        }
    }

    let visits: Vec<u32> = (0..n).map(|i| tree.nodes[first as usize + i].visits).collect();
    // Improved policy: softmax(logits + sigma(completed Q)), unvisited moves valued at the root's value.
    let root_v = root_eval.value;
    let max_n = visits.iter().copied().max().unwrap_or(0) as f32;
    let z: Vec<f32> = (0..n)
        .map(|i| {
            let q = tree.nodes[first as usize + i].q().unwrap_or(root_v);
            logits[i] + (50.0 + max_n) * 0.1 * (q + 1.0) / 2.0
        })
        .collect();
    let mx = z.iter().copied().fold(f32::NEG_INFINITY, f32::max);
    let e: Vec<f32> = z.iter().map(|x| (x - mx).exp()).collect();
    let s: f32 = e.iter().sum();
    let root_node = &tree.nodes[0];
    SearchResult {
        best: tree.nodes[best_child as usize].mv,
        moves: root_moves,
        visits,
        policy: e.into_iter().map(|x| x / s).collect(),
        value: root_node.q().map_or(root_v, |q| -q),
        evaluations,
        simulations,
    }
}
