//! The browser AI's search natively, the other half of `tests/e2e/bench-hint.mjs` (which
//! times the same calls in headless Chromium, alternating with this process so both see
//! the same load on a shared machine). Prints the AI benchmarks' nine positions
//! (`ai::bench`) as IAPN, one a line, then an empty line; then for each line read, `<i>
//! <level>`, runs `best_move` on position `i` at `level` (seed 0) and prints
//! `{"move": IAMN, "ms": the call's time}`.
//!   cargo run --release -p ai-wasm --example bench-hint

use std::io::{BufRead, Write};
use std::time::Instant;

fn main() -> Result<(), String> {
    // The leaf scores, as the browser's worker loads them (public/ai-worker.js).
    for which in ai::level::LeafFile::ALL {
        let path = format!("models/{}", which.file());
        let leaf = std::fs::read(&path).map_err(|e| format!("{path}: {e}"))?;
        ai_wasm::set_leaf(which.file(), &leaf)?;
    }
    let starts: Vec<String> = ai::bench::positions().iter().map(engine::iapn::format).collect();
    let mut out = std::io::stdout().lock();
    let say = |out: &mut std::io::StdoutLock, line: &str| {
        writeln!(out, "{line}").and_then(|_| out.flush()).map_err(|e| e.to_string())
    };
    for s in &starts {
        say(&mut out, s)?;
    }
    say(&mut out, "")?;
    for line in std::io::stdin().lock().lines() {
        let line = line.map_err(|e| e.to_string())?;
        let mut words = line.split_whitespace().map(|w| w.parse::<usize>().unwrap_or(usize::MAX));
        let (Some(i), Some(level)) = (words.next(), words.next()) else { break };
        let start = starts.get(i).ok_or("no such position")?;
        let t = Instant::now();
        let answer = ai_wasm::best_move(start, Vec::new(), u8::try_from(level).unwrap_or(0), 0)?;
        let ms = t.elapsed().as_secs_f64() * 1000.0;
        let answer: serde_json::Value = serde_json::from_str(&answer).map_err(|e| e.to_string())?;
        say(&mut out, &serde_json::json!({ "move": answer["move"], "ms": ms }).to_string())?;
    }
    Ok(())
}
