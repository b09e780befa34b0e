//! Players for matches, self-play and the terminal game, named on the command line:
//! `random`, `uniform:<evaluations>`, `heuristic:<evaluations>`, `level:<1-6>`
//! (the in-request AI at that difficulty), optionally `@puct` for a PUCT root.

use ai::{search, Heuristic, RootPolicy, SearchConfig, Uniform};
use engine::{Game, Move};

#[derive(Clone, Debug, PartialEq)]
pub struct Spec {
    pub kind: Kind,
    pub evaluations: u32,
    pub root: RootPolicy,
}

#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Kind {
    Random,
    Uniform,
    Heuristic,
}

impl Spec {
    pub fn parse(s: &str) -> Result<Spec, String> {
        let (body, root) = match s.split_once('@') {
            Some((b, "puct")) => (b, RootPolicy::Puct),
            Some((b, "gumbel")) => (b, RootPolicy::Gumbel { m: 16 }),
            Some((_, r)) => return Err(format!("unknown root policy '{r}' (puct or gumbel)")),
            None => (s, RootPolicy::Gumbel { m: 16 }),
        };
        let (name, n) = body.split_once(':').unwrap_or((body, ""));
        let num = |n: &str| {
            n.parse::<u32>()
                .map_err(|_| format!("'{s}': expected a number after ':'"))
        };
        let spec = match name {
            "random" => Spec {
                kind: Kind::Random,
                evaluations: 0,
                root,
            },
            "uniform" => Spec {
                kind: Kind::Uniform,
                evaluations: num(n)?,
                root,
            },
            "heuristic" => Spec {
                kind: Kind::Heuristic,
                evaluations: num(n)?,
                root,
            },
            "level" => {
                let l = ai::level::level(num(n)? as u8)
                    .ok_or_else(|| format!("'{s}': levels are 1-6"))?;
                Spec {
                    kind: Kind::Heuristic,
                    evaluations: l.evaluations,
                    root,
                }
            }
            _ => {
                return Err(format!(
                    "unknown player '{s}' (random, uniform:N, heuristic:N, level:N)"
                ))
            }
        };
        Ok(spec)
    }

    pub fn label(&self) -> String {
        let root = match self.root {
            RootPolicy::Puct => "@puct",
            RootPolicy::Gumbel { .. } => "",
        };
        match self.kind {
            Kind::Random => "random".into(),
            Kind::Uniform => format!("uniform:{}{root}", self.evaluations),
            Kind::Heuristic => format!("heuristic:{}{root}", self.evaluations),
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
        let cfg = SearchConfig {
            evaluations: self.evaluations.max(1),
            root: self.root,
            seed,
            ..SearchConfig::default()
        };
        let r = match self.kind {
            Kind::Uniform => search(game.position(), &history, &mut Uniform, &cfg),
            _ => search(game.position(), &history, &mut Heuristic, &cfg),
        };
        (r.best, Some(r))
    }
}
