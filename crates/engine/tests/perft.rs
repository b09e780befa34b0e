//! Every line of the perft vectors (computed by an independent implementation from
//! docs/specification.md) must match, at every depth given (the engine is built with opt-level 3 in
//! test builds, so depth 4 of the start positions takes well under a second).

#![allow(clippy::unwrap_used)] // tests: a panic is the failure report

use engine::{iapn, perft};

const VECTORS: &str = include_str!("data/perft-vectors.txt");

struct Vector {
    line: usize,
    iapn: &'static str,
    counts: Vec<(u32, u64)>,
}

fn vectors() -> Vec<Vector> {
    VECTORS
        .lines()
        .enumerate()
        .filter(|(_, l)| !l.starts_with('#') && !l.trim().is_empty())
        .map(|(i, l)| {
            let mut parts = l.split(" ;");
            let iapn = parts.next().unwrap_or_default();
            let counts = parts
                .map(|p| {
                    let (d, n) = p.split_once(' ').unwrap_or_else(|| panic!("line {}: bad pair {p}", i + 1));
                    let d: u32 = d
                        .trim_start_matches('D')
                        .parse()
                        .unwrap_or_else(|_| panic!("line {}: depth {d}", i + 1));
                    (d, n.parse().unwrap_or_else(|_| panic!("line {}: count {n}", i + 1)))
                })
                .collect();
            Vector { line: i + 1, iapn, counts }
        })
        .collect()
}

fn check(max_depth: u32, min_depth: u32) -> usize {
    let mut failures = Vec::new();
    let mut checked = 0;
    for v in vectors() {
        let pos = iapn::parse(v.iapn).unwrap_or_else(|e| panic!("line {}: {e}", v.line));
        assert_eq!(iapn::format(&pos), v.iapn, "line {}: format(parse(s)) != s", v.line);
        for &(d, want) in &v.counts {
            if d < min_depth || d > max_depth {
                continue;
            }
            checked += 1;
            let got = perft::perft(&pos, d);
            if got != want {
                failures.push(format!("line {} depth {d}: want {want}, got {got}: {}", v.line, v.iapn));
            }
            if d <= 2 {
                assert_eq!(perft::perft_without_bulk(&pos, d), got, "bulk and plain perft differ");
            }
        }
    }
    assert!(failures.is_empty(), "{} perft mismatches:\n{}", failures.len(), failures.join("\n"));
    checked
}

#[test]
fn perft_vectors_match_every_line() {
    let n = check(4, 1);
    assert_eq!(n, 38 * 3 + 9, "38 lines with depths 1-3, nine start positions with depth 4");
}

#[test]
fn divide_sums_to_perft() {
    for v in vectors().iter().take(12) {
        let pos = iapn::parse(v.iapn).unwrap();
        let rows = perft::divide(&pos, 2);
        let sum: u64 = rows.iter().map(|(_, n)| n).sum();
        assert_eq!(sum, perft::perft(&pos, 2), "line {}", v.line);
        let texts: Vec<String> = rows.iter().map(|(m, _)| m.to_string()).collect();
        let mut sorted = texts.clone();
        sorted.sort();
        assert_eq!(texts, sorted);
    }
}
