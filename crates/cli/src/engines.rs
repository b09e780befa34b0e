//! Players for matches, self-play and the terminal game, named on the command line:
//! `random`, `uniform:<evaluations>`, `heuristic:<evaluations>`, `level:<1-6>`
//! (`onnx` builds: the shipped AI at that level, exactly as the Worker plays it,
//! `ai::shipped`; without the network: the level's alpha-beta over the heuristic, as the
//! browser plays it), `alphabeta:<depth>` (fixed-depth alpha-beta, the sparring partner),
//! `net:<model.onnx>:<evaluations>[+decisive][+ab=N[+w=PCT]]` (`onnx` builds: MCTS over a network;
//! `+ab=N` blends its leaf value with an N-position alpha-beta, `ai::searched_value`;
//! `+cheap=M` adds M heuristic evaluations after the network's, `ai::FirstThen`); PUCT at the root,
//! or `@gumbel` for Gumbel sampling with sequential halving. The iterative-deepening
//! alpha-beta with a node budget (`ai::pvs`; the names are the old "hybrid"'s, kept because
//! the committed ladder data are keyed by them): `hybrid:<nodes>`, `hybridq:<nodes>` (with a
//! capture quiescence), `hlevel:<1-6>` (the level's budget and variety over the heuristic),
//! `hleaf:<leaf.bin>:<1-6>` (the level with a learned leaf score, `ai::leafnet`, at its
//! equal-time budget; `hleaf:<leaf.bin>:<1-6>+nodes=N` at another budget, `+tt=BITS` with 2^BITS table entries).

use ai::pvs::PvsConfig;

/// The shipped network (`level:N`), the file the Worker serves from `public/models/` (with
/// the leaf scores of `ai::level::LeafFile`).
#[cfg(feature = "onnx")]
const SHIPPED_NETWORK: &str = "net-v8.onnx";
use ai::{search, Heuristic, RootPolicy, SearchConfig, Uniform};
use engine::{Game, Move};

#[derive(Clone, Debug)]
pub struct Spec {
    pub kind: Kind,
    pub evaluations: u32,
    pub root: RootPolicy,
    /// The network of a `net:<model.onnx>:N` player, loaded once.
    #[cfg(feature = "onnx")]
    pub net: Option<ai::network::Network>,
    /// A hybrid player's search settings (its seed is set per move).
    pub hybrid: Option<PvsConfig>,
    /// A hybrid player's learned leaf score (`hleaf:<file>:<level>`).
    pub leaf: Option<std::sync::Arc<ai::leafnet::LeafNet>>,
    /// A `level:N` player's shipped leaf scores (each level plays its own).
    #[cfg(feature = "onnx")]
    pub leaves: Option<std::sync::Arc<ai::level::Leaves>>,
    /// The level of a `level:N` player: the shipped AI (`ai::shipped`) in `onnx` builds,
    /// the level's alpha-beta over the heuristic otherwise.
    pub level: Option<ai::level::Level>,
    /// `net:<model.onnx>:N+decisive`: the MCTS with decisive moves
    /// (`SearchConfig::decisive`).
    pub decisive: bool,
    /// `hleaf:…+margin=CP`: the margin given, shown in the label (`hybridqrleaf:N+mCP`).
    pub margin_label: Option<u32>,
    /// `hleaf:…+delta=CP`: the quiescence's delta margin given, shown in the label
    /// (`hybridqrleaf:N+dCP`; `+delta=0` is the search before delta pruning).
    pub delta_label: Option<u32>,
    /// `hleaf:…+tt=B`: the transposition table's size given (2^B entries), shown in the
    /// label (`hybridqrleaf:N+tB`).
    pub tt_label: Option<u32>,
    /// `net:…+ab=N+w=PCT`: the MCTS's leaf value blended with a small alpha-beta's
    /// (`ai::searched_value`; the leaf score is `leaf`).
    pub searched_value: Option<ai::searched_value::SearchedValueConfig>,
    /// `net:…:N+cheap=M`: after the network's N evaluations, M more by the heuristic
    /// (`ai::FirstThen`): the network where the tree starts, a cheap evaluator below.
    pub cheap: u32,
}

#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Kind {
    Random,
    Uniform,
    Heuristic,
    /// `net:<model.onnx>:N` (builds with the `onnx` feature).
    #[cfg_attr(not(feature = "onnx"), allow(dead_code))]
    Network,
    /// `level:<1-6>` in an `onnx` build: the shipped AI at that level, exactly as the
    /// Worker plays it (`ai::shipped::ShippedAi`), over the models in `$IRON_ARENA_MODELS`
    /// (default `models/`).
    #[cfg_attr(not(feature = "onnx"), allow(dead_code))]
    Shipped,
    /// `alphabeta:<depth>`: fixed-depth alpha-beta over the heuristic score (the
    /// sparring partner; `evaluations` holds the depth in plies; deterministic).
    AlphaBeta,
    /// The alpha-beta (`hybrid`, `hybridq`, `hlevel`, `hleaf`); `evaluations`
    /// holds the node budget.
    Hybrid,
}

/// The variety margin of `hybrid:N` players (pawns): the default level's.
const HYBRID_MARGIN: f32 = 0.05;

impl Spec {
    pub fn parse(s: &str) -> Result<Spec, String> {
        let (body, root) = match s.split_once('@') {
            Some((b, "puct")) => (b, RootPolicy::Puct),
            Some((b, "gumbel")) => (b, RootPolicy::Gumbel { m: 16 }),
            Some((_, r)) => return Err(format!("unknown root policy '{r}' (puct or gumbel)")),
            None => (s, RootPolicy::Puct),
        };
        #[cfg(feature = "onnx")]
        if let Some(rest) = body.strip_prefix("net:") {
            let (kind, prefix) = (Kind::Network, "net:");
            {
                let (path, n) = rest
                    .rsplit_once(':')
                    .ok_or_else(|| format!("'{s}': use {prefix}<model.onnx>:<evaluations>"))?;
                // Options after the budget: `+decisive`; `+ab=N` a searched value (N
                // alpha-beta positions per leaf over the shipped leaf score,
                // `ai::searched_value`) with `+w=PCT` its share (default 50).
                let mut options = n.split('+');
                let n = options.next().unwrap_or_default();
                let (mut decisive, mut ab, mut weight, mut cheap) = (false, None, 50u32, 0u32);
                for option in options {
                    let num = |v: &str| {
                        v.parse::<u32>().map_err(|_| format!("'{s}': expected a number in '+{option}'"))
                    };
                    if option == "decisive" {
                        decisive = true;
                    } else if let Some(v) = option.strip_prefix("ab=") {
                        ab = Some(num(v)?.max(1));
                    } else if let Some(v) = option.strip_prefix("w=") {
                        weight = num(v)?.min(100);
                    } else if let Some(v) = option.strip_prefix("cheap=") {
                        cheap = num(v)?;
                    } else {
                        return Err(format!(
                            "'{s}': unknown option '{option}' (+decisive, +ab=N, +w=PCT, +cheap=M)"
                        ));
                    }
                }
                let evaluations =
                    n.parse().map_err(|_| format!("'{s}': expected a number after the model"))?;
                let bytes = std::fs::read(path).map_err(|e| format!("{path}: {e}"))?;
                let net = ai::network::Network::load(&bytes, path)?;
                let leaf = match ab {
                    Some(_) => Some(std::sync::Arc::new(shipped_leaf(ai::level::LeafFile::V1)?)),
                    None => None,
                };
                let searched_value = ab.map(|nodes| ai::searched_value::SearchedValueConfig {
                    nodes: u64::from(nodes),
                    weight: weight as f32 / 100.0,
                });
                return Ok(Spec {
                    kind,
                    evaluations,
                    root,
                    net: Some(net),
                    hybrid: None,
                    leaf,
                    leaves: None,
                    level: None,
                    decisive,
                    margin_label: None,
                    delta_label: None,
                    tt_label: None,
                    searched_value,
                    cheap,
                });
            }
        }
        let (name, n) = body.split_once(':').unwrap_or((body, ""));
        let num = |n: &str| n.parse::<u32>().map_err(|_| format!("'{s}': expected a number after ':'"));
        let spec = match name {
            "random" => Spec::new(Kind::Random, 0, root),
            "uniform" => Spec::new(Kind::Uniform, num(n)?, root),
            "heuristic" => Spec::new(Kind::Heuristic, num(n)?, root),
            "alphabeta" => match num(n)? {
                d @ 1..=6 => Spec::new(Kind::AlphaBeta, d, root),
                _ => return Err(format!("'{s}': alphabeta depths are 1-6")),
            },
            "hybrid" | "hybridq" => {
                let cfg = PvsConfig {
                    nodes: u64::from(num(n)?.max(1)),
                    margin: HYBRID_MARGIN,
                    quiescence: if name == "hybridq" { 4 } else { 0 },
                    ..PvsConfig::default()
                };
                Spec::hybrid(cfg, root)
            }
            "hleaf" => {
                // hleaf:<leaf file>:<level>: the level's hybrid with the learned leaf score,
                // at the level's equal-time budget (`Level::alphabeta_leaf_config`).
                // `hleaf:<file>:<level>+nodes=N`: the level with another budget (experiments).
                let (path, l) = n.rsplit_once(':').ok_or_else(|| format!("'{s}': use hleaf:<file>:<level>"))?;
                // `+margin=CP`: another variety margin, in hundredths of a pawn; `+delta=CP`
                // another delta margin in the quiescence (0: none, the search before it).
                let mut options = l.split('+');
                let number = options.next().unwrap_or_default();
                let l = ai::level::level(num(number)? as u8).ok_or_else(|| format!("'{s}': levels are 1-6"))?;
                let mut cfg = l.alphabeta_leaf_config(0);
                let mut margin = None;
                let mut delta = None;
                let mut tt = None;
                for option in options {
                    if let Some(n) = option.strip_prefix("nodes=") {
                        cfg.nodes = u64::from(num(n)?.max(1));
                    } else if let Some(cp) = option.strip_prefix("delta=") {
                        let cp = num(cp)?;
                        cfg.delta = cp as f32 / 100.0;
                        delta = Some(cp);
                    } else if let Some(cp) = option.strip_prefix("margin=") {
                        let cp = num(cp)?;
                        cfg.margin = cp as f32 / 100.0;
                        margin = Some(cp);
                    } else if let Some(bits) = option.strip_prefix("tt=") {
                        let bits = num(bits)?.clamp(4, 24);
                        cfg.tt_bits = bits;
                        tt = Some(bits);
                    } else if let Some(r) = option.strip_prefix("null=") {
                        cfg.null_move = num(r)?;
                    } else if let Some(cp) = option.strip_prefix("dial=") {
                        cfg.dial_bonus = num(cp)? as f32 / 100.0;
                    } else if let Some(cp) = option.strip_prefix("recallpen=") {
                        cfg.recall_penalty = num(cp)? as f32 / 100.0;
                    } else if let Some(cp) = option.strip_prefix("trade=") {
                        cfg.trade_bonus = num(cp)? as f32 / 100.0;
                    } else if let Some(cp) = option.strip_prefix("enemydial=") {
                        cfg.enemy_dial_bonus = num(cp)? as f32 / 100.0;
                    } else {
                        return Err(format!(
                            "'{s}': unknown option '{option}' (+nodes=N, +margin=CP, +delta=CP, +tt=BITS, +null=R, +dial=CP, +recallpen=CP, +trade=CP, +enemydial=CP)"
                        ));
                    }
                }
                let bytes = std::fs::read(path).map_err(|e| format!("{path}: {e}"))?;
                let net = ai::leafnet::LeafNet::from_bytes(&bytes).map_err(|e| format!("{path}: {e}"))?;
                let mut spec = Spec::hybrid(cfg, root);
                spec.leaf = Some(std::sync::Arc::new(net));
                spec.margin_label = margin;
                spec.delta_label = delta;
                spec.tt_label = tt;
                spec
            }
            "hlevel" => {
                let l = ai::level::level(num(n)? as u8).ok_or_else(|| format!("'{s}': levels are 1-6"))?;
                Spec::hybrid(l.alphabeta_config(0), root)
            }
            "level" => {
                let l = ai::level::level(num(n)? as u8).ok_or_else(|| format!("'{s}': levels are 1-6"))?;
                Spec::level(l, root)?
            }
            _ => {
                return Err(format!(
                    "unknown player '{s}' (random, uniform:N, heuristic:N, level:N, alphabeta:D, hybrid:N, hybridq:N, hlevel:N, hleaf:<leaf.bin>:N, net:<onnx>:N)"
                ))
            }
        };
        Ok(spec)
    }

    fn new(kind: Kind, evaluations: u32, root: RootPolicy) -> Spec {
        Spec {
            kind,
            evaluations,
            root,
            #[cfg(feature = "onnx")]
            net: None,
            hybrid: None,
            leaf: None,
            #[cfg(feature = "onnx")]
            leaves: None,
            level: None,
            decisive: false,
            margin_label: None,
            delta_label: None,
            tt_label: None,
            searched_value: None,
            cheap: 0,
        }
    }

    /// `level:N`: the shipped AI with the shipped models (`onnx` builds).
    #[cfg(feature = "onnx")]
    fn level(l: ai::level::Level, root: RootPolicy) -> Result<Spec, String> {
        let bytes = read_shipped(SHIPPED_NETWORK).map_err(|e| format!("level:{}: {e}", l.number))?;
        let net = ai::network::Network::load(&bytes, SHIPPED_NETWORK)?;
        let leaves =
            ai::level::Leaves::load_all(read_shipped).map_err(|e| format!("level:{}: {e}", l.number))?;
        let mut spec = Spec::new(Kind::Shipped, l.number.into(), root);
        spec.net = Some(net);
        spec.leaves = Some(std::sync::Arc::new(leaves));
        spec.level = Some(l);
        Ok(spec)
    }

    /// `level:N` without the network (a build without `onnx`): the level's alpha-beta
    /// over the heuristic, what the browser's AI plays (`ai::level::play_level`).
    #[cfg(not(feature = "onnx"))]
    fn level(l: ai::level::Level, root: RootPolicy) -> Result<Spec, String> {
        let mut spec = Spec::hybrid(l.alphabeta_config(0), root);
        spec.level = Some(l);
        Ok(spec)
    }

    fn hybrid(cfg: PvsConfig, root: RootPolicy) -> Spec {
        let mut spec = Spec::new(Kind::Hybrid, cfg.nodes.min(u64::from(u32::MAX)) as u32, root);
        spec.hybrid = Some(cfg);
        spec
    }

    /// What a person is told they play: a level by its number, name and engine (the
    /// reply's engine names), any other player by its label.
    pub fn describe(&self) -> String {
        match self.level {
            Some(l) if self.kind == Kind::Shipped => {
                format!("level {} {}, {}", l.number, l.name, l.engine.name())
            }
            Some(l) => format!("level {} {}, alphabeta-heuristic", l.number, l.name),
            None => self.label(),
        }
    }

    pub fn label(&self) -> String {
        let root = match self.root {
            RootPolicy::Puct => "",
            RootPolicy::Gumbel { .. } => "@gumbel",
        };
        match self.kind {
            Kind::Random => "random".into(),
            Kind::Uniform => format!("uniform:{}{root}", self.evaluations),
            Kind::Heuristic => format!("heuristic:{}{root}", self.evaluations),
            Kind::Network => {
                let d = if self.decisive { "+decisive" } else { "" };
                let v = self
                    .searched_value
                    .map(|c| format!("+ab{}w{}", c.nodes, (c.weight * 100.0).round()))
                    .unwrap_or_default();
                let c = if self.cheap > 0 { format!("+cheap{}", self.cheap) } else { String::new() };
                format!("net:{}{d}{v}{c}{root}", self.evaluations)
            }
            Kind::AlphaBeta => format!("alphabeta:{}", self.evaluations),
            Kind::Shipped => format!("level:{}", self.evaluations),
            Kind::Hybrid => {
                let q = if self.hybrid.is_some_and(|c| c.quiescence > 0) { "q" } else { "" };
                let q =
                    if self.hybrid.is_some_and(|c| c.reductions) { format!("{q}r") } else { q.to_owned() };
                let leaf = if self.leaf.is_some() { "leaf" } else { "" };
                let m = self.margin_label.map(|cp| format!("+m{cp}")).unwrap_or_default();
                let d = self.delta_label.map(|cp| format!("+d{cp}")).unwrap_or_default();
                let t = self.tt_label.map(|bits| format!("+t{bits}")).unwrap_or_default();
                format!("hybrid{q}{leaf}:{}{m}{d}{t}", self.evaluations)
            }
        }
    }

    /// The move to play and, for searching players, the search's result (an alpha-beta's
    /// as [`pvs_record`] makes it).
    pub fn choose(&self, game: &Game, seed: u64) -> (Option<Move>, Option<ai::SearchResult>) {
        let moves = game.legal_moves();
        if moves.is_empty() {
            return (None, None);
        }
        if self.kind == Kind::Random {
            let mut r = ai::rng::Rng::new(seed);
            return (Some(moves[r.below(moves.len())]), None);
        }
        let history: Vec<u64> = game.history().iter().map(|p| p.hash()).collect();
        #[cfg(feature = "onnx")]
        if let (Kind::Shipped, Some(net), Some(leaves), Some(level)) =
            (self.kind, &self.net, &self.leaves, &self.level)
        {
            let choice = ai::shipped::ShippedAi::new(net, leaves).choose(game, level, seed);
            return (choice.unwrap_or_else(|e| panic!("level:{}: {e}", level.number)).mv, None);
        }
        if self.kind == Kind::AlphaBeta {
            let r = ai::alphabeta::alphabeta(game.position(), &history, self.evaluations);
            return (r.best, None);
        }
        if let (Kind::Hybrid, Some(template)) = (self.kind, self.hybrid) {
            let cfg = PvsConfig { seed, ..template };
            let leaf = self.leaf.as_deref();
            let r = ai::pvs::search_with_leaf(game.position(), &history, leaf, &cfg);
            return (r.best, Some(pvs_record(&r)));
        }
        let cfg = SearchConfig {
            evaluations: self.evaluations.max(1),
            root: self.root,
            seed,
            decisive: self.decisive,
            ..SearchConfig::default()
        };
        let r = match self.kind {
            Kind::Uniform => search(game.position(), &history, &mut Uniform, &cfg),
            #[cfg(feature = "onnx")]
            Kind::Network => match &self.net {
                Some(net) => {
                    let e = ai::network::NetworkEvaluator::new(net.clone());
                    let first = self.evaluations.max(1);
                    let cfg = SearchConfig { evaluations: first.saturating_add(self.cheap), ..cfg };
                    match (self.searched_value, self.leaf.as_deref()) {
                        (Some(config), Some(leaf)) => {
                            let a = ai::searched_value::SearchedValue { inner: e, leaf, config };
                            let mut e = ai::FirstThen { a, b: Heuristic, first };
                            search(game.position(), &history, &mut e, &cfg)
                        }
                        _ => search(
                            game.position(),
                            &history,
                            &mut ai::FirstThen { a: e, b: Heuristic, first },
                            &cfg,
                        ),
                    }
                }
                None => search(game.position(), &history, &mut Heuristic, &cfg),
            },
            _ => search(game.position(), &history, &mut Heuristic, &cfg),
        };
        (r.best, Some(r))
    }
}

/// A shipped model file's bytes, from `$IRON_ARENA_MODELS` (default `models/`).
#[cfg(feature = "onnx")]
fn read_shipped(file: &str) -> Result<Vec<u8>, String> {
    let dir = std::env::var("IRON_ARENA_MODELS").unwrap_or_else(|_| "models".into());
    let path = std::path::Path::new(&dir).join(file);
    std::fs::read(&path).map_err(|e| format!("{}: {e} (set IRON_ARENA_MODELS)", path.display()))
}

/// A shipped leaf score (`net:…+ab=N`'s searched value: leaf-v1).
#[cfg(feature = "onnx")]
fn shipped_leaf(which: ai::level::LeafFile) -> Result<ai::leafnet::LeafNet, String> {
    ai::leafnet::LeafNet::from_bytes(&read_shipped(which.file())?)
        .map_err(|e| format!("{}: {e}", which.file()))
}

/// An alpha-beta's result as a self-play record (`selfplay`, for the learned leaf score's
/// data): its best move as the policy, its score as the value on the heuristic evaluator's
/// scale (`tanh(pawns / 8)`). No visit counts, so a match never samples from it: the move
/// played is the search's own (with its level's variety), the same as without a record.
fn pvs_record(r: &ai::pvs::PvsResult) -> ai::SearchResult {
    let best = r.search_best.or(r.best);
    ai::SearchResult {
        best: r.best,
        moves: best.into_iter().collect(),
        visits: Vec::new(),
        policy: best.map(|_| 1.0).into_iter().collect(),
        value: (r.score / 8.0).tanh(),
        evaluations: u32::try_from(r.nodes).unwrap_or(u32::MAX),
        simulations: 0,
    }
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;

    #[test]
    fn a_leaf_level_takes_another_budget_and_refuses_unknown_options() {
        let leaf = concat!(env!("CARGO_MANIFEST_DIR"), "/../../models/leaf-v1.bin");
        let level = ai::level::level(4).unwrap();
        let shipped = Spec::parse(&format!("hleaf:{leaf}:4")).unwrap();
        assert_eq!(shipped.hybrid, Some(level.alphabeta_leaf_config(0)));
        let more = Spec::parse(&format!("hleaf:{leaf}:4+nodes=90000")).unwrap();
        assert_eq!(more.hybrid, Some(PvsConfig { nodes: 90_000, ..level.alphabeta_leaf_config(0) }));
        assert_eq!(more.label(), "hybridqrleaf:90000");
        let e = Spec::parse(&format!("hleaf:{leaf}:4+prune")).unwrap_err();
        assert!(e.contains("unknown option 'prune' (+nodes=N, +margin=CP, +delta=CP, +tt=BITS, +null=R, +dial=CP, +recallpen=CP, +trade=CP, +enemydial=CP)"), "{e}");
        let wide = Spec::parse(&format!("hleaf:{leaf}:4+nodes=9000+margin=40")).unwrap();
        let cfg = PvsConfig { nodes: 9_000, margin: 0.4, ..level.alphabeta_leaf_config(0) };
        assert_eq!(wide.hybrid, Some(cfg));
        assert_eq!(wide.label(), "hybridqrleaf:9000+m40");
        // The search before the quiescence's delta pruning, for comparisons.
        let before = Spec::parse(&format!("hleaf:{leaf}:4+delta=0")).unwrap();
        assert_eq!(before.hybrid, Some(PvsConfig { delta: 0.0, ..level.alphabeta_leaf_config(0) }));
        assert_eq!(before.label(), "hybridqrleaf:72000+d0");
        // Another transposition table (2^BITS entries), named in the label so that a ladder
        // keeps it apart from the level as it ships.
        let table = Spec::parse(&format!("hleaf:{leaf}:4+tt=20")).unwrap();
        assert_eq!(table.hybrid, Some(PvsConfig { tt_bits: 20, ..level.alphabeta_leaf_config(0) }));
        assert_eq!(table.label(), "hybridqrleaf:72000+t20");
        assert!(Spec::parse(&format!("hleaf:{leaf}:4+nodes=x")).is_err());
    }

    /// `net:…+ab=N+w=PCT` names a network MCTS whose leaf value is blended with a small
    /// alpha-beta's (`ai::searched_value`); bad options are refused by name.
    #[cfg(feature = "onnx")]
    #[test]
    fn a_network_player_takes_a_searched_value() {
        std::env::set_var("IRON_ARENA_MODELS", concat!(env!("CARGO_MANIFEST_DIR"), "/../../models"));
        let net = concat!(env!("CARGO_MANIFEST_DIR"), "/../../models/net-v8.onnx");
        let p = Spec::parse(&format!("net:{net}:48+decisive+ab=300+w=75")).unwrap();
        assert!(p.decisive && p.leaf.is_some());
        let c = p.searched_value.unwrap();
        assert_eq!((c.nodes, c.weight), (300, 0.75));
        assert_eq!(p.label(), "net:48+decisive+ab300w75");
        assert_eq!(Spec::parse(&format!("net:{net}:8+ab=100")).unwrap().searched_value.unwrap().weight, 0.5);
        assert!(Spec::parse(&format!("net:{net}:8")).unwrap().searched_value.is_none());
        let e = Spec::parse(&format!("net:{net}:8+ab=x")).unwrap_err();
        assert!(e.contains("expected a number in '+ab=x'"), "{e}");
        let e = Spec::parse(&format!("net:{net}:8+deep")).unwrap_err();
        assert!(e.contains("unknown option 'deep' (+decisive, +ab=N, +w=PCT, +cheap=M)"), "{e}");
        let c = Spec::parse(&format!("net:{net}:8+decisive+cheap=500")).unwrap();
        assert_eq!((c.cheap, c.label()), (500, "net:8+decisive+cheap500".to_owned()));
        // It plays: a legal move from the start.
        let game = Game::new(engine::Position::start(engine::Faction::Axiom, engine::Faction::Blades));
        let mv = p.choose(&game, 1).0.unwrap();
        assert!(game.legal_moves().contains(&mv));
    }

    /// `level:1` is the network MCTS with decisive moves at level 1's budget, so its
    /// ladder rows can be played (and relabelled) as `net:…:8+decisive`: the same move
    /// for the same game and seed.
    #[cfg(feature = "onnx")]
    #[test]
    fn a_network_player_with_decisive_moves_plays_as_level_one() {
        let net = concat!(env!("CARGO_MANIFEST_DIR"), "/../../models/net-v8.onnx");
        let ai::level::Engine::NetworkMcts { evaluations, heuristic } = ai::level::level(1).unwrap().engine
        else {
            panic!("level 1 is the network's MCTS")
        };
        let player = Spec::parse(&format!("net:{net}:{evaluations}+decisive+cheap={heuristic}")).unwrap();
        assert!(player.decisive);
        assert_eq!(player.label(), format!("net:{evaluations}+decisive+cheap{heuristic}"));
        assert!(!Spec::parse(&format!("net:{net}:{evaluations}")).unwrap().decisive);
        assert!(Spec::parse(&format!("net:{net}:{evaluations}+sure")).is_err());
        plays_as_level(&player, 1, engine::Faction::Blades, engine::Faction::Axiom);
    }

    /// `player` and `level:N` (the shipped AI over the committed models) choose the same
    /// move for the same game and seed, for six plies of a game between them.
    #[cfg(feature = "onnx")]
    fn plays_as_level(player: &Spec, n: u8, south: engine::Faction, north: engine::Faction) {
        std::env::set_var("IRON_ARENA_MODELS", concat!(env!("CARGO_MANIFEST_DIR"), "/../../models"));
        let level = Spec::parse(&format!("level:{n}")).unwrap();
        let mut game = Game::new(engine::Position::start(south, north));
        for seed in 0..6 {
            let (a, b) = (player.choose(&game, seed).0, level.choose(&game, seed).0);
            assert_eq!(a, b, "level {n}, seed {seed}");
            game.play(a.unwrap()).unwrap();
        }
    }

    /// `level:2` is the network MCTS whose first leaves the network scores and the rest
    /// the heuristic, so its ladder rows can be played as `net:…:48+decisive+cheap=4000`:
    /// the same move for the same game and seed.
    #[cfg(feature = "onnx")]
    #[test]
    fn a_network_player_with_cheap_leaves_plays_as_level_two() {
        let net = concat!(env!("CARGO_MANIFEST_DIR"), "/../../models/net-v8.onnx");
        let ai::level::Engine::NetworkMcts { evaluations, heuristic } = ai::level::level(2).unwrap().engine
        else {
            panic!("level 2 is the network's MCTS")
        };
        assert!(heuristic > 0, "level 2 scores its deeper leaves by the heuristic");
        let player = Spec::parse(&format!("net:{net}:{evaluations}+decisive+cheap={heuristic}")).unwrap();
        plays_as_level(&player, 2, engine::Faction::Clockwork, engine::Faction::Axiom);
    }
}
