//! Difficulty levels: search budgets in leaf evaluations (a Worker's clock does not
//! advance without I/O, so CPU time is budgeted by counting evaluations; the CPU cost per
//! evaluation of each evaluator is measured by `iron-arena bench-ai`).

use engine::{Game, Position};

use crate::leafnet::LeafNet;
use crate::mcts::{RootPolicy, SearchConfig};
use crate::pvs::{PvsConfig, PvsResult};

/// A learned leaf score a level's alpha-beta plays ([`crate::leafnet`]), by its file in
/// `models/` (the Worker serves each from its static assets; `src/net.rs` keeps their
/// hashes). Two since late 2026-12-06: leaf-v3 at the top levels, trained on level 4's own games,
/// makes room above level 4 where leaf-v1 keeps the levels below
/// (models/ladder/2026-12-06-leaf-top/).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum LeafFile {
    /// `leaf-v1.bin`: trained on the heuristic's self-play (levels 1-4).
    V1,
    /// `leaf-v3.bin`: trained on level 4's search (levels 5-6).
    V3,
}

impl LeafFile {
    pub const ALL: [LeafFile; 2] = [LeafFile::V1, LeafFile::V3];

    /// Its file name in `models/` (and the Worker's `public/models/`).
    pub fn file(self) -> &'static str {
        match self {
            LeafFile::V1 => "leaf-v1.bin",
            LeafFile::V3 => "leaf-v3.bin",
        }
    }

    /// The shipped leaf score named `file`, if it is one.
    pub fn from_file(file: &str) -> Option<LeafFile> {
        LeafFile::ALL.into_iter().find(|l| l.file() == file)
    }

    fn index(self) -> usize {
        self as usize
    }
}

/// The shipped leaf scores that are loaded, by file: a level's alpha-beta plays its own
/// ([`Level::leaf`], through [`play_level`]), so no caller can hand a level another's.
#[derive(Clone, Debug, Default)]
pub struct Leaves {
    nets: [Option<LeafNet>; 2],
}

impl Leaves {
    /// None loaded: every alpha-beta scores its leaves with the heuristic.
    pub fn none() -> Leaves {
        Leaves::default()
    }

    /// These leaves with `which` loaded as `net`.
    pub fn with(mut self, which: LeafFile, net: LeafNet) -> Leaves {
        self.set(which, net);
        self
    }

    pub fn set(&mut self, which: LeafFile, net: LeafNet) {
        self.nets[which.index()] = Some(net);
    }

    pub fn get(&self, which: LeafFile) -> Option<&LeafNet> {
        self.nets[which.index()].as_ref()
    }

    /// Every shipped leaf score, each read by `read` (a file name to its bytes; the shipped
    /// AI plays with all of them), or the first error, naming its file.
    pub fn load_all(mut read: impl FnMut(&str) -> Result<Vec<u8>, String>) -> Result<Leaves, String> {
        let mut leaves = Leaves::none();
        for which in LeafFile::ALL {
            let bytes = read(which.file())?;
            let net = LeafNet::from_bytes(&bytes).map_err(|e| format!("{}: {e}", which.file()))?;
            leaves.set(which, net);
        }
        Ok(leaves)
    }
}

/// What plays a level in the shipped AI ([`crate::shipped`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Engine {
    /// MCTS (PUCT) with the policy/value network (tract) at every leaf: its prior orders
    /// the search and its value scores the leaves, with decisive moves
    /// ([`crate::SearchConfig::decisive`]: it never walks into a loss on the spot). The
    /// lower levels: with a few evaluations its weak moves are the ones a policy finds
    /// plausible, not random picks within a margin of a strong search, and each
    /// evaluation costs ~3 ms in workerd.
    ///
    /// `heuristic` more leaves are scored by the hand-written heuristic after the network's
    /// `evaluations` ([`crate::FirstThen`]): the network's priors choose the candidate moves
    /// where the tree starts, and the cheap score lets it grow a few plies past the few
    /// dozen positions the network's cost allows (~4 µs a leaf against ~2.5 ms). The dial
    /// that sets levels 1 and 2's strength without changing their time much.
    NetworkMcts { evaluations: u32, heuristic: u32 },
    /// Iterative-deepening alpha-beta ([`crate::pvs`]) whose leaves the learned leaf
    /// score ([`crate::leafnet`]) rates, at the level's equal-time node budget
    /// ([`Level::alphabeta_leaf_config`]) and variety margin. No network in its search.
    AlphaBetaLeaf,
}

impl Engine {
    /// The engine's name in API replies and on the command line.
    pub fn name(self) -> &'static str {
        match self {
            Engine::NetworkMcts { heuristic: 0, .. } => "mcts-network",
            Engine::NetworkMcts { .. } => "mcts-network-heuristic",
            Engine::AlphaBetaLeaf => "alphabeta-leaf",
        }
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Level {
    pub number: u8,
    pub name: &'static str,
    /// The shipped AI's engine at this level.
    pub engine: Engine,
    pub evaluations: u32,
    /// The alpha-beta's budget in positions scored by the heuristic ([`crate::pvs`]); the
    /// leaf-scored search visits this divided by [`LEAF_NODE_COST`] (equal time).
    pub alphabeta_nodes: u32,
    /// The alpha-beta's variety: it plays a move drawn among those within this many
    /// hundredths of a pawn of the best (wider at the low levels, which also makes them
    /// weaker).
    pub alphabeta_margin_cp: u32,
    /// The learned leaf score the level's alpha-beta plays ([`play_level`]): the shipped
    /// engine's at the alpha-beta levels, the browser's and `AlphaBetaAi`'s at every level.
    pub leaf: LeafFile,
    /// The alpha-beta's null-move reduction in plies ([`PvsConfig::null_move`]; 0: none).
    pub alphabeta_null_move: u32,
    /// Trading when ahead, in hundredths ([`PvsConfig::trade_bonus`]; 0: none).
    pub alphabeta_trade_cp: u32,
    /// The opponent's Dials' extra value, in hundredths of a pawn
    /// ([`PvsConfig::enemy_dial_bonus`]; 0: none).
    pub alphabeta_enemy_dial_cp: u32,
}

/// Capture-only quiescence plies at the alpha-beta's horizon, at every level: at equal nodes it
/// beat the same search without it 83% (18 games), and at level 4's budget it scored 73.6%
/// against MCTS level 4 over 72 games (models/README.md).
pub const QUIESCENCE_PLIES: u32 = 4;
/// Delta pruning in the alpha-beta's quiescence at every level ([`PvsConfig::delta`]), in
/// pawns: a capture that cannot lift the score above alpha by this margin beyond the
/// material it takes is not searched. At level 4's budget it moves ~45% of the quiescence's
/// positions to the main search (a ply deeper on some of them) for ~4% more time per move;
/// level 4 with it scored 91.3% against alphabeta:4 over 144 games fixed in advance (seed
/// 4410), 89.2% without it on the same openings (models/ladder/2026-12-05-delta/README.md).
pub const QUIESCENCE_DELTA: f32 = 1.0;
/// The time an alpha-beta node costs with the learned leaf score ([`crate::leafnet`]) relative
/// to the heuristic's: `iron-arena bench-leaf` measured 1.42-1.55 natively (models/README.md);
/// rounded up, so the leaf levels, which divide their node budgets by it, take no more
/// time per move than the heuristic's.
pub const LEAF_NODE_COST: f32 = 1.5;

/// From "beginner" to the strongest level. Budgets are counts, calibrated on the real
/// runtime (workerd on this 2-core machine; `scripts/bench-net.sh` prints each level's
/// median, mean and slowest ms per move, and `public/levels.json` keeps the medians the
/// picker shows, the mean of three rounds on 2026-12-07 02:55-03:07, a slow night):
/// levels 1-6 take about 80, 163, 14, 102, 342 and 927 ms a move, the default, level 4,
/// within its 150 ms, levels 5 and 6 within the ~400 ms and ~0.9-1 s the model card listed
/// for them when issue 32 was filed.
pub const LEVELS: [Level; 6] = [
    Level {
        number: 1,
        name: "beginner",
        // 24 evaluations of net-v8, then 250 of the heuristic (since 2026-12-07 ~03:10; 24
        // evaluations alone from 00:36 that day, 8 until then): level 2 scores 85.1% against it
        // over 144 games (86.1% against the network alone), and the span keeps ≥ 1,000
        // (models/ladder/2026-12-07-bottom-up/; the heuristic leaves cost a few µs each). The
        // network alone at 24: 18.1% against level 2 over 72 (a step of 81.9%; 86.1% at 144),
        // fitted at 682 with every step at 144 (models/ladder/2026-12-07-steps-144/); 32
        // evaluations took 102 ms where their rule allowed 100 (models/ladder/2026-12-07-level1-room/).
        engine: Engine::NetworkMcts { evaluations: 24, heuristic: 250 },
        evaluations: 24,
        alphabeta_nodes: 150,
        alphabeta_margin_cp: 150,
        leaf: LeafFile::V1,
        alphabeta_null_move: 0,
        alphabeta_trade_cp: 0,
        alphabeta_enemy_dial_cp: 0,
    },
    Level {
        number: 2,
        name: "novice",
        // The network's 48 evaluations, then 4,000 of the heuristic below them (since
        // 2026-12-07 ~03:10, with level 1's 250): 85.1% against level 1 and 12.5% against level 3
        // (a step of 87.5%), 144 games each, where 2,000 read 86.1% and 9.0% (91.0%): the
        // largest bottom step from 91.0% to 87.5% (models/ladder/2026-12-07-bottom-up/). With
        // 3,000, 87.5% against the network-only level 1 and 11.5% against level 3
        // (models/ladder/2026-12-07-steps-144/). The time is the network's; the heuristic
        // leaves add a few ms in workerd (models/README.md).
        engine: Engine::NetworkMcts { evaluations: 48, heuristic: 4000 },
        evaluations: 300,
        alphabeta_nodes: 300,
        alphabeta_margin_cp: 100,
        leaf: LeafFile::V1,
        alphabeta_null_move: 0,
        alphabeta_trade_cp: 0,
        alphabeta_enemy_dial_cp: 0,
    },
    Level {
        number: 3,
        name: "club",
        engine: Engine::AlphaBetaLeaf,
        evaluations: 3000,
        // 8,000 leaf-scored positions: 84% against level 2, 13% against level 4 (108 games
        // each), 62% against alphabeta:4 (36). Set with level 2 to split levels 1-4 into
        // even steps (the span of 1,000 leaves no room for steps of 80%): at 6,000 the steps
        // to and from it were 84% and 91% (models/ladder/2026-12-05-bottom-reset/), now 84%
        // and 87% (models/ladder/2026-12-05-level3-up/). 533 before, a step of 97% to level 4.
        alphabeta_nodes: 12_000,
        alphabeta_margin_cp: 60,
        leaf: LeafFile::V1,
        alphabeta_null_move: 0,
        alphabeta_trade_cp: 0,
        alphabeta_enemy_dial_cp: 0,
    },
    Level {
        number: 4,
        name: "expert",
        engine: Engine::AlphaBetaLeaf,
        evaluations: 15000,
        // Since 2026-12-06 (models/ladder/2026-12-06-level4-time/): 72,000 leaf-scored
        // positions with null moves, trading when ahead and the opponent's Dials worth 2.5
        // pawns more: 91.3% against alphabeta:4 over 144 games on openings fixed before they
        // were played (80,000: 93.8%; 100,000: 91.0%), at 0.92x the workerd time of the search
        // before it (alternated in one run: 121-123 ms against 132-133). Its lost points had
        // been long games against Clockwork, whose Dials recalled its pieces again and again
        // (models/ladder/2026-12-06-recall/). Before: 75,000 positions without these, 86.1%
        // over 180 (models/ladder/2026-12-06-search-fix/). Levels 5 and 6 search with them too
        // since 2026-12-06 17:48; level 3 was not measured with them and keeps the search without.
        alphabeta_nodes: 108_000,
        alphabeta_margin_cp: 5,
        leaf: LeafFile::V1,
        alphabeta_null_move: 2,
        alphabeta_trade_cp: 50,
        alphabeta_enemy_dial_cp: 250,
    },
    Level {
        number: 5,
        name: "master",
        engine: Engine::AlphaBetaLeaf,
        evaluations: 25000,
        // 233,333 leaf-scored positions (level 6's search until 2026-12-05), with level 4's
        // options since 2026-12-06 17:48, and leaf-v3 since late 2026-12-06: 76.4% against level 4
        // over 72 games (65.3% with leaf-v1), at 1.024x the workerd time of the level with
        // leaf-v1 over three alternated rounds, ~320 ms a move on the 08:55 scale, within the
        // ~400 ms the model card listed for level 5 when issue 32 was filed
        // (models/ladder/2026-12-06-leaf-top/; before it, models/ladder/2026-12-06-top-options/).
        alphabeta_nodes: 350_000,
        alphabeta_margin_cp: 2,
        leaf: LeafFile::V3,
        alphabeta_null_move: 2,
        alphabeta_trade_cp: 50,
        alphabeta_enemy_dial_cp: 250,
    },
    Level {
        number: 6,
        name: "grandmaster",
        engine: Engine::AlphaBetaLeaf,
        evaluations: 45000,
        // 600,000 leaf-scored positions, with level 4's options since 2026-12-06 17:48, and
        // leaf-v3 since late 2026-12-06: 69.4% against level 5 with leaf-v3 (72 games), 95.8%
        // against alphabeta:5 (36; 94.4% with leaf-v1), 73.6% against itself with leaf-v1
        // (36), at 0.969x the workerd time of the level with leaf-v1 over three alternated
        // rounds, ~730 ms a move on the 08:55 scale, within the ~0.9-1 s the model card listed
        // for level 6 when issue 32 was filed (models/ladder/2026-12-06-leaf-top/; before it,
        // models/ladder/2026-12-06-top-options/).
        alphabeta_nodes: 900_000,
        alphabeta_margin_cp: 2,
        leaf: LeafFile::V3,
        alphabeta_null_move: 2,
        alphabeta_trade_cp: 50,
        alphabeta_enemy_dial_cp: 250,
    },
];

pub const DEFAULT_LEVEL: u8 = 4;

/// What one network evaluation costs in alpha-beta positions over the heuristic (the
/// unit of [`Level::alphabeta_nodes`]): scripts/bench-net.sh measured ~330 evaluations a
/// second in workerd and level 4's 75,000 leaf-scored positions in 104 ms (2026-12-05, after
/// the alpha-beta's speed-up; 2,000 before it), so an evaluation takes the time of ~2,200
/// leaf-scored positions, each 1.5 heuristic ones ([`LEAF_NODE_COST`]); 3,000 puts level 2
/// at 1.28 level-4 moves, where its time is 1.30 of level 4's.
pub const NETWORK_EVALUATION_NODES: u32 = 3_000;

/// What one heuristic leaf of the MCTS costs in alpha-beta positions (the unit of
/// [`Level::alphabeta_nodes`]): `iron-arena bench-ai` measured 224,000-270,000 heuristic MCTS
/// evaluations a second and 980-1,290 heuristic alpha-beta positions a millisecond natively
/// in one run (2026-12-05), ~4.4 positions an evaluation; rounded up.
pub const HEURISTIC_EVALUATION_NODES: u32 = 5;

pub fn level(number: u8) -> Option<Level> {
    LEVELS.iter().copied().find(|l| l.number == number)
}

/// The alpha-beta's move in `game` at `level` (the game's positions as the repetition
/// history): with the level's learned leaf score ([`Level::leaf`]) at its equal-time
/// budget when `leaves` has it loaded, as the shipped AI plays levels 3-6
/// (`crate::shipped`), else over the heuristic (the server's `AlphaBetaAi` in a module
/// without the networks). The one function behind those and the browser's `bestMove`
/// (crates/ai-wasm, which loads the same leaf files), so that for the same game, level and
/// seed they choose the same move. (Here, not in `pvs`: the
/// levels use the search, the search knows nothing of levels.)
pub fn play_level(game: &Game, level: &Level, seed: u64, leaves: &Leaves) -> PvsResult {
    let history: Vec<u64> = game.history().iter().map(Position::hash).collect();
    match leaves.get(level.leaf) {
        Some(leaf) => crate::pvs::search_with_leaf(
            game.position(),
            &history,
            Some(leaf),
            &level.alphabeta_leaf_config(seed),
        ),
        None => crate::pvs::search(game.position(), &history, &level.alphabeta_config(seed)),
    }
}

/// The level numbered `number`, or the default level for an unknown number (what the
/// server plays, and the browser's engine, for any level they are given).
pub fn level_or_default(number: u8) -> Level {
    level(number).or_else(|| level(DEFAULT_LEVEL)).unwrap_or(LEVELS[0])
}

impl Level {
    /// The shipped engine's budget in heuristic alpha-beta positions (time, roughly): what
    /// the server meters an AI move by (`service::admission::ai_cost`).
    pub fn cost_nodes(&self) -> u32 {
        match self.engine {
            Engine::NetworkMcts { evaluations, heuristic } => evaluations
                .saturating_mul(NETWORK_EVALUATION_NODES)
                .saturating_add(heuristic.saturating_mul(HEURISTIC_EVALUATION_NODES)),
            Engine::AlphaBetaLeaf => self.alphabeta_nodes,
        }
    }

    pub fn config(&self, seed: u64) -> SearchConfig {
        SearchConfig {
            evaluations: self.evaluations,
            root: RootPolicy::Puct,
            seed,
            ..SearchConfig::default()
        }
    }

    /// The alpha-beta at this level with the learned leaf score: the level's budget
    /// divided by [`LEAF_NODE_COST`] (equal time).
    pub fn alphabeta_leaf_config(&self, seed: u64) -> PvsConfig {
        let nodes = (self.alphabeta_nodes as f32 / LEAF_NODE_COST) as u64;
        PvsConfig { nodes: nodes.max(1), ..self.alphabeta_config(seed) }
    }

    /// The alpha-beta at this level over the heuristic.
    pub fn alphabeta_config(&self, seed: u64) -> PvsConfig {
        PvsConfig {
            nodes: u64::from(self.alphabeta_nodes),
            margin: self.alphabeta_margin_cp as f32 / 100.0,
            quiescence: QUIESCENCE_PLIES,
            // Measured: at level 4's budget, 86% against alphabeta:4 over the 36 games in
            // which the same search without them scored 81%, and 58% against it (36
            // games; models/README.md).
            reductions: true,
            delta: QUIESCENCE_DELTA,
            null_move: self.alphabeta_null_move,
            trade_bonus: self.alphabeta_trade_cp as f32 / 100.0,
            enemy_dial_bonus: self.alphabeta_enemy_dial_cp as f32 / 100.0,
            seed,
            ..PvsConfig::default()
        }
    }
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;

    #[test]
    fn alphabeta_levels_span_a_wide_range() {
        for pair in LEVELS.windows(2) {
            assert!(pair[1].alphabeta_nodes > pair[0].alphabeta_nodes);
            assert!(pair[1].alphabeta_margin_cp <= pair[0].alphabeta_margin_cp);
        }
        assert!(LEVELS[5].alphabeta_nodes >= 1000 * LEVELS[0].alphabeta_nodes);
        let l = level(DEFAULT_LEVEL).map(|l| l.alphabeta_config(3));
        assert!(l.is_some_and(|c| c.seed == 3));
        // The lower levels are the network's MCTS, the default and above the alpha-beta.
        assert!(matches!(LEVELS[0].engine, Engine::NetworkMcts { .. }));
        assert!(matches!(LEVELS[1].engine, Engine::NetworkMcts { .. }));
        assert!(LEVELS[2..].iter().all(|l| l.engine == Engine::AlphaBetaLeaf));
        // leaf-v1 up to the default level, leaf-v3 above it.
        assert!(LEVELS
            .iter()
            .all(|l| l.leaf == if l.number > DEFAULT_LEVEL { LeafFile::V3 } else { LeafFile::V1 }));
    }

    #[test]
    fn a_level_plays_its_own_leaf_score_and_the_heuristic_without_it() {
        let root = concat!(env!("CARGO_MANIFEST_DIR"), "/../../models/");
        let leaves =
            Leaves::load_all(|f| std::fs::read(format!("{root}{f}")).map_err(|e| e.to_string())).unwrap();
        let mut game = Game::new(Position::start(engine::Faction::Axiom, engine::Faction::Clockwork));
        game.play(game.legal_moves()[5]).unwrap();
        let history: Vec<u64> = game.history().iter().map(Position::hash).collect();
        // Level 6's search at a small budget (a debug build's seconds).
        let top = Level { alphabeta_nodes: 3_000, ..LEVELS[5] };
        assert_eq!(top.leaf, LeafFile::V3);
        let cfg = top.alphabeta_leaf_config(7);
        let with =
            |leaf: Option<&LeafNet>| crate::pvs::search_with_leaf(game.position(), &history, leaf, &cfg);
        let (v1, v3) = (with(leaves.get(LeafFile::V1)), with(leaves.get(LeafFile::V3)));
        assert_ne!((v1.score, v1.nodes), (v3.score, v3.nodes), "the two leaf scores search differently here");
        let played = play_level(&game, &top, 7, &leaves);
        assert_eq!((played.best, played.score, played.nodes), (v3.best, v3.score, v3.nodes));
        // Without its file (only leaf-v1 loaded) it plays the heuristic, never another leaf score.
        let only_v1 = Leaves::none().with(LeafFile::V1, leaves.get(LeafFile::V1).unwrap().clone());
        let heuristic = crate::pvs::search(game.position(), &history, &top.alphabeta_config(7));
        let played = play_level(&game, &top, 7, &only_v1);
        assert_eq!(
            (played.best, played.score, played.nodes),
            (heuristic.best, heuristic.score, heuristic.nodes)
        );
    }

    #[test]
    fn leaf_files_are_named_and_found_by_name() {
        for which in LeafFile::ALL {
            assert_eq!(LeafFile::from_file(which.file()), Some(which));
        }
        assert_eq!(LeafFile::V3.file(), "leaf-v3.bin");
        assert_eq!(LeafFile::from_file("leaf-v2.bin"), None);
        let e = Leaves::load_all(|f| {
            if f == "leaf-v3.bin" {
                Ok(b"no".to_vec())
            } else {
                Err(format!("{f}: absent"))
            }
        });
        assert_eq!(e.unwrap_err(), "leaf-v1.bin: absent");
        let e = Leaves::load_all(|_| Ok(b"abc".to_vec())).unwrap_err();
        assert!(e.starts_with("leaf-v1.bin: "), "{e}");
        assert!(Leaves::none().get(LeafFile::V1).is_none());
    }
}
