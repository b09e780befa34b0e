//! Network commands (feature `onnx`): check a model against its trainer's reference
//! outputs, and measure evaluations per second.

use std::time::Instant;

use ai::network::Network;

fn load(path: &str) -> Result<Network, String> {
    let bytes = std::fs::read(path).map_err(|e| format!("{path}: {e}"))?;
    Network::load(&bytes, path)
}

/// `check-model <onnx> <reference.json>`: tract's outputs equal the trainer's.
pub fn check(model: &str, reference: &str) -> Result<String, String> {
    let net = load(model)?;
    let text = std::fs::read_to_string(reference).map_err(|e| format!("{reference}: {e}"))?;
    let c = net.check_reference(&text).map_err(|e| format!("{model}: {e}"))?;
    Ok(format!(
        "{model}: tract matches the reference on {} samples (max abs difference {:.2e})\n",
        c.samples, c.max_difference
    ))
}

/// `bench-net <onnx>`: network evaluations per second (batch 1, one thread).
pub fn bench(model: &str) -> Result<String, String> {
    let t = Instant::now();
    let net = load(model)?;
    let load_ms = t.elapsed().as_secs_f64() * 1000.0;
    let pos = engine::Position::start(engine::Faction::Clockwork, engine::Faction::Axiom);
    let planes = ai::encoding::encode(&pos);
    for _ in 0..20 {
        net.run(&planes)?;
    }
    let n = 300;
    let t = Instant::now();
    for _ in 0..n {
        net.run(&planes)?;
    }
    let secs = t.elapsed().as_secs_f64();
    // The same with one run state kept between runs (what the search's evaluator does).
    let mut session = net.session()?;
    let t = Instant::now();
    for _ in 0..n {
        session.run(&planes)?;
    }
    let kept = t.elapsed().as_secs_f64();
    Ok(format!(
        "{model}: load+optimise {load_ms:.0} ms; {:.0} evaluations/s ({:.3} ms each), native tract, batch 1; with a kept session {:.0} evaluations/s ({:.3} ms each)\n",
        n as f64 / secs,
        1000.0 * secs / n as f64,
        n as f64 / kept,
        1000.0 * kept / n as f64
    ))
}
