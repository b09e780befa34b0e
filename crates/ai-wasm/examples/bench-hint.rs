//! The browser AI's search time natively, the other half of `tests/e2e/bench-hint.mjs`
//! (which times the same calls in headless Chromium): for each of the AI benchmarks' nine
//! positions (`ai::bench`), `best_move` at `level` (default 4, the hint's), one warm-up
//! round then `rounds` timed ones (default 5). Prints one JSON object per position:
//! `{"start": IAPN, "move": IAMN, "ms": [..]}`.
//!   cargo run --release -p ai-wasm --example bench-hint -- [level] [rounds]

use std::time::Instant;

fn main() -> Result<(), String> {
    let mut args = std::env::args().skip(1);
    let level: u8 = args.next().and_then(|a| a.parse().ok()).unwrap_or(4);
    let rounds: usize = args.next().and_then(|a| a.parse().ok()).unwrap_or(5);
    for pos in ai::bench::positions() {
        let start = engine::iapn::format(&pos);
        let mut answer = ai_wasm::best_move(&start, Vec::new(), level, 0)?;
        let mut ms = Vec::new();
        for _ in 0..rounds {
            let t = Instant::now();
            answer = ai_wasm::best_move(&start, Vec::new(), level, 0)?;
            ms.push(t.elapsed().as_secs_f64() * 1000.0);
        }
        let answer: serde_json::Value = serde_json::from_str(&answer).map_err(|e| e.to_string())?;
        println!("{}", serde_json::json!({ "start": start, "move": answer["move"], "ms": ms }));
    }
    Ok(())
}
