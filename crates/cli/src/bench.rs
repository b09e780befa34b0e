//! `iron-arena bench`: single-threaded perft speed, with and without leaf bulk-counting.

use std::time::Instant;

use engine::{iapn, perft, Faction, Position, Side};

const VECTORS: &str = include_str!("../../engine/tests/data/perft-vectors.txt");

struct Row {
    nodes: u64,
    secs: f64,
}

/// The median of `RUNS` timed runs: the machine is noisy, one run is not a figure.
fn measure(positions: &[Position], depth: u32, bulk: bool) -> Row {
    const RUNS: usize = 5;
    let mut times = Vec::with_capacity(RUNS);
    let mut nodes = 0;
    for _ in 0..RUNS {
        let t = Instant::now();
        nodes = positions
            .iter()
            .map(|p| if bulk { perft::perft(p, depth) } else { perft::perft_without_bulk(p, depth) })
            .sum();
        times.push(t.elapsed().as_secs_f64());
    }
    times.sort_by(f64::total_cmp);
    Row { nodes, secs: times[RUNS / 2] }
}

fn line(out: &mut String, label: &str, depth: u32, bulk: &Row, plain: &Row) {
    let mnps = |r: &Row| r.nodes as f64 / r.secs.max(1e-9) / 1e6;
    out.push_str(&format!(
        "{label:<22} depth {depth}  {:>11} nodes  bulk {:>7.2} Mn/s  no-bulk {:>7.2} Mn/s\n",
        bulk.nodes,
        mnps(bulk),
        mnps(plain)
    ));
}

pub fn run(quick: bool) -> String {
    let starts: Vec<Position> =
        Faction::ALL.iter().flat_map(|&s| Faction::ALL.iter().map(move |&n| Position::start(s, n))).collect();
    let middlegames: Vec<Position> = VECTORS
        .lines()
        .filter(|l| !l.starts_with('#') && !l.trim().is_empty())
        .filter_map(|l| l.split(" ;").next())
        .filter_map(|t| iapn::parse(t).ok())
        .filter(|p| *p != Position::start(p.faction(Side::South), p.faction(Side::North)))
        .collect();
    let mut out =
        String::from("perft speed, single thread, median of 5 runs (Mn/s = million leaf nodes per second)\n");
    let start_depths: &[u32] = if quick { &[3] } else { &[3, 4] };
    for &d in start_depths {
        let b = measure(&starts, d, true);
        let p = measure(&starts, d, false);
        line(&mut out, "9 start positions", d, &b, &p);
    }
    let mid_depth = if quick { 2 } else { 3 };
    let b = measure(&middlegames, mid_depth, true);
    let p = measure(&middlegames, mid_depth, false);
    line(&mut out, &format!("{} middlegames", middlegames.len()), mid_depth, &b, &p);
    out
}
