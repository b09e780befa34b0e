//! Players for matches, self-play and the terminal game, named on the command line:
//! `random`, `uniform:<evaluations>`, `heuristic:<evaluations>`, `level:<1-6>`
//! (the in-request AI at that difficulty), `alphabeta:<depth>` (fixed-depth alpha-beta,
//! the sparring partner); PUCT at the root, or `@gumbel` for Gumbel sampling with
//! sequential halving. The hybrid (iterative-deepening alpha-beta over the heuristic
//! with a node budget, `ai::hybrid`): `hybrid:<nodes>`, `hybridq:<nodes>` (with a
//! capture quiescence), `hlevel:<1-6>` (the level's budget and variety), `hleaf:<leaf.bin>:<1-6>`
//! (the level with a learned leaf score, `ai::leafnet`, at its equal-time budget), and with the
//! network run once at the root (`onnx` builds) `hybridnet:<model.onnx>:<nodes>` and
//! `hlevelnet:<model.onnx>:<1-6>`, each with an optional `:<prior weight in pawns>`.

use ai::hybrid::HybridConfig;
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
    pub hybrid: Option<HybridConfig>,
    /// A hybrid player's learned leaf score (`hleaf:<file>:<level>`).
    pub leaf: Option<std::sync::Arc<ai::leafnet::LeafNet>>,
}

#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Kind {
    Random,
    Uniform,
    Heuristic,
    /// `net:<model.onnx>:N` (builds with the `onnx` feature).
    #[cfg_attr(not(feature = "onnx"), allow(dead_code))]
    Network,
    /// `rootnet:<model.onnx>:N`: the heuristic, with the network's policy blended into
    /// the root's priors (one network run per move).
    #[cfg_attr(not(feature = "onnx"), allow(dead_code))]
    RootNetwork,
    /// `alphabeta:<depth>`: fixed-depth alpha-beta over the heuristic score (the
    /// sparring partner; `evaluations` holds the depth in plies; deterministic).
    AlphaBeta,
    /// The hybrid (`hybrid`, `hybridq`, `hlevel`, `hybridnet`, `hlevelnet`); `evaluations`
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
        // hleafnet:<model.onnx>:<leaf.bin>:<level>: what the Worker plays (the level's
        // equal-time budget, the learned leaf score, the network's prior at the root).
        #[cfg(feature = "onnx")]
        if let Some(rest) = body.strip_prefix("hleafnet:") {
            let mut parts = rest.splitn(3, ':');
            let (Some(model), Some(leaf), Some(l)) = (parts.next(), parts.next(), parts.next()) else {
                return Err(format!("'{s}': use hleafnet:<model.onnx>:<leaf.bin>:<level>"));
            };
            let l = l
                .parse::<u8>()
                .ok()
                .and_then(ai::level::level)
                .ok_or_else(|| format!("'{s}': levels are 1-6"))?;
            let bytes = std::fs::read(model).map_err(|e| format!("{model}: {e}"))?;
            let net = ai::network::Network::load(&bytes, model)?;
            let bytes = std::fs::read(leaf).map_err(|e| format!("{leaf}: {e}"))?;
            let leaf = ai::leafnet::LeafNet::from_bytes(&bytes).map_err(|e| format!("{leaf}: {e}"))?;
            let mut spec = Spec::hybrid(l.hybrid_leaf_config(0, true), root);
            spec.net = Some(net);
            spec.leaf = Some(std::sync::Arc::new(leaf));
            return Ok(spec);
        }
        #[cfg(feature = "onnx")]
        for prefix in ["hybridnet:", "hlevelnet:"] {
            if let Some(rest) = body.strip_prefix(prefix) {
                let (path, n) = rest
                    .rsplit_once(':')
                    .ok_or_else(|| format!("'{s}': use {prefix}<model.onnx>:<number>[:<prior pawns>]"))?;
                // An optional last field: the root prior's weight in pawns (experiments;
                // default `HYBRID_PRIOR_WEIGHT`).
                let (path, n, prior) = match path.rsplit_once(':') {
                    Some((p, m)) if !path.ends_with(".onnx") => {
                        let w: f32 =
                            n.parse().map_err(|_| format!("'{s}': expected a prior weight in pawns"))?;
                        (p, m, Some(w))
                    }
                    _ => (path, n, None),
                };
                let n: u32 = n.parse().map_err(|_| format!("'{s}': expected a number after the model"))?;
                let mut cfg = if prefix == "hlevelnet:" {
                    let l = u8::try_from(n)
                        .ok()
                        .and_then(ai::level::level)
                        .ok_or_else(|| format!("'{s}': levels are 1-6"))?;
                    l.hybrid_config(0, true)
                } else {
                    HybridConfig {
                        nodes: u64::from(n),
                        margin: HYBRID_MARGIN,
                        prior_weight: ai::level::HYBRID_PRIOR_WEIGHT,
                        ..HybridConfig::default()
                    }
                };
                if let Some(w) = prior {
                    cfg.prior_weight = w;
                }
                let bytes = std::fs::read(path).map_err(|e| format!("{path}: {e}"))?;
                let net = ai::network::Network::load(&bytes, path)?;
                let mut spec = Spec::new(Kind::Hybrid, cfg.nodes as u32, root);
                spec.hybrid = Some(cfg);
                spec.net = Some(net);
                return Ok(spec);
            }
        }
        #[cfg(feature = "onnx")]
        for (prefix, kind) in [("net:", Kind::Network), ("rootnet:", Kind::RootNetwork)] {
            if let Some(rest) = body.strip_prefix(prefix) {
                let (path, n) = rest
                    .rsplit_once(':')
                    .ok_or_else(|| format!("'{s}': use {prefix}<model.onnx>:<evaluations>"))?;
                let evaluations =
                    n.parse().map_err(|_| format!("'{s}': expected a number after the model"))?;
                let bytes = std::fs::read(path).map_err(|e| format!("{path}: {e}"))?;
                let net = ai::network::Network::load(&bytes, path)?;
                return Ok(Spec { kind, evaluations, root, net: Some(net), hybrid: None, leaf: None });
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
                let cfg = HybridConfig {
                    nodes: u64::from(num(n)?.max(1)),
                    margin: HYBRID_MARGIN,
                    quiescence: if name == "hybridq" { 4 } else { 0 },
                    ..HybridConfig::default()
                };
                Spec::hybrid(cfg, root)
            }
            "hleaf" => {
                // hleaf:<leaf file>:<level>: the level's hybrid with the learned leaf score,
                // at the level's equal-time budget (`Level::hybrid_leaf_config`).
                let (path, l) = n.rsplit_once(':').ok_or_else(|| format!("'{s}': use hleaf:<file>:<level>"))?;
                let l = ai::level::level(num(l)? as u8).ok_or_else(|| format!("'{s}': levels are 1-6"))?;
                let bytes = std::fs::read(path).map_err(|e| format!("{path}: {e}"))?;
                let net = ai::leafnet::LeafNet::from_bytes(&bytes).map_err(|e| format!("{path}: {e}"))?;
                let mut spec = Spec::hybrid(l.hybrid_leaf_config(0, false), root);
                spec.leaf = Some(std::sync::Arc::new(net));
                spec
            }
            "hlevel" => {
                let l = ai::level::level(num(n)? as u8).ok_or_else(|| format!("'{s}': levels are 1-6"))?;
                Spec::hybrid(l.hybrid_config(0, false), root)
            }
            "level" => {
                let l = ai::level::level(num(n)? as u8).ok_or_else(|| format!("'{s}': levels are 1-6"))?;
                Spec::new(Kind::Heuristic, l.evaluations, root)
            }
            _ => {
                return Err(format!(
                    "unknown player '{s}' (random, uniform:N, heuristic:N, level:N, alphabeta:D, hybrid:N, hybridq:N, hlevel:N, hleaf:<leaf.bin>:N, hybridnet:<onnx>:N, hlevelnet:<onnx>:N)"
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
        }
    }

    fn hybrid(cfg: HybridConfig, root: RootPolicy) -> Spec {
        let mut spec = Spec::new(Kind::Hybrid, cfg.nodes.min(u64::from(u32::MAX)) as u32, root);
        spec.hybrid = Some(cfg);
        spec
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
            Kind::Network => format!("net:{}{root}", self.evaluations),
            Kind::RootNetwork => format!("rootnet:{}{root}", self.evaluations),
            Kind::AlphaBeta => format!("alphabeta:{}", self.evaluations),
            Kind::Hybrid => {
                let q = if self.hybrid.is_some_and(|c| c.quiescence > 0) { "q" } else { "" };
                #[cfg(feature = "onnx")]
                let net = if self.net.is_some() { "net" } else { "" };
                #[cfg(not(feature = "onnx"))]
                let net = "";
                let leaf = if self.leaf.is_some() { "leaf" } else { "" };
                format!("hybrid{q}{net}{leaf}:{}", self.evaluations)
            }
        }
    }

    /// The move to play and, for searching players, the search's result.
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
        if self.kind == Kind::AlphaBeta {
            let r = ai::alphabeta::alphabeta(game.position(), &history, self.evaluations);
            return (r.best, None);
        }
        if let (Kind::Hybrid, Some(template)) = (self.kind, self.hybrid) {
            let cfg = HybridConfig { seed, ..template };
            #[cfg(feature = "onnx")]
            if let Some(net) = &self.net {
                let mut e = ai::network::NetworkEvaluator::new(net.clone());
                let leaf = self.leaf.as_deref();
                return (
                    ai::hybrid::search_with_leaf(game.position(), &history, Some(&mut e), leaf, &cfg).best,
                    None,
                );
            }
            let leaf = self.leaf.as_deref();
            return (ai::hybrid::search_with_leaf(game.position(), &history, None, leaf, &cfg).best, None);
        }
        let cfg = SearchConfig {
            evaluations: self.evaluations.max(1),
            root: self.root,
            seed,
            ..SearchConfig::default()
        };
        let r = match self.kind {
            Kind::Uniform => search(game.position(), &history, &mut Uniform, &cfg),
            #[cfg(feature = "onnx")]
            Kind::Network => match &self.net {
                Some(net) => {
                    let mut e = ai::network::NetworkEvaluator::new(net.clone());
                    search(game.position(), &history, &mut e, &cfg)
                }
                None => search(game.position(), &history, &mut Heuristic, &cfg),
            },
            #[cfg(feature = "onnx")]
            Kind::RootNetwork => match &self.net {
                Some(net) => {
                    let mut e = ai::network::RootPrior::new(net.clone(), Heuristic, 0.5);
                    search(game.position(), &history, &mut e, &cfg)
                }
                None => search(game.position(), &history, &mut Heuristic, &cfg),
            },
            _ => search(game.position(), &history, &mut Heuristic, &cfg),
        };
        (r.best, Some(r))
    }
}
