//! Load generator for the API: many link games in parallel, each played move by move
//! (every move validated by the engine in its Durable Object); reports moves per second
//! and the latency of a validated move. `scripts/load.sh` starts a local runtime and
//! runs this; or point it at any server:
//!
//! `cargo run --release -p runtime-tests --example load -- http://127.0.0.1:8787 [clients] [games-per-client] [plies]`

#![allow(clippy::unwrap_used)] // a load tool: a failure aborts with its message

use std::time::{Duration, Instant};

use serde_json::{json, Value};

fn agent() -> ureq::Agent {
    ureq::Agent::config_builder()
        .http_status_as_error(false)
        .timeout_global(Some(Duration::from_secs(30)))
        .build()
        .into()
}

fn post(a: &ureq::Agent, url: &str, token: Option<&str>, body: &Value) -> (u16, Value) {
    let mut r = a.post(url).header("Content-Type", "application/json");
    if let Some(t) = token {
        r = r.header("Authorization", &format!("Bearer {t}"));
    }
    let mut resp = r.send(body.to_string()).unwrap();
    let status = resp.status().as_u16();
    let text = resp.body_mut().read_to_string().unwrap();
    (status, serde_json::from_str(&text).unwrap_or(Value::Null))
}

/// Plays `games` games of up to `plies` plies; returns the latency of every move.
fn client(base: &str, games: usize, plies: usize) -> Vec<Duration> {
    let a = agent();
    let mut lat = Vec::new();
    for _ in 0..games {
        let (st, c) = post(
            &a,
            &format!("{base}/api/games"),
            None,
            &json!({"south": "blades", "north": "clockwork", "mode": "link", "seat": "south"}),
        );
        assert_eq!(st, 201, "create: {c}");
        let id = c["id"].as_str().unwrap().to_owned();
        let invite = c["invite_url"].as_str().unwrap().split("#invite=").nth(1).unwrap().to_owned();
        let (st, j) = post(&a, &format!("{base}/api/games/{id}/join"), None, &json!({ "invite": invite }));
        assert_eq!(st, 200, "join: {j}");
        let tokens = [c["token"].as_str().unwrap().to_owned(), j["token"].as_str().unwrap().to_owned()];
        let mut state = j["state"].clone();
        for ply in 0..plies {
            if state["status"] != "ongoing" {
                break;
            }
            let moves = state["legal_moves"].as_array().unwrap();
            let mv = moves[(ply * 7 + 3) % moves.len()].as_str().unwrap().to_owned();
            let t = Instant::now();
            let (st, r) = post(
                &a,
                &format!("{base}/api/games/{id}/moves"),
                Some(&tokens[ply % 2]),
                &json!({"move": mv, "ply": ply}),
            );
            lat.push(t.elapsed());
            assert_eq!(st, 200, "move {mv}: {r}");
            state = r["state"].clone();
        }
    }
    lat
}

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let base = args.first().cloned().unwrap_or_else(|| "http://127.0.0.1:8787".into());
    let num = |i: usize, d: usize| args.get(i).and_then(|s| s.parse().ok()).unwrap_or(d);
    let (clients, games, plies) = (num(1, 16), num(2, 4), num(3, 40));
    let t = Instant::now();
    let handles: Vec<_> = (0..clients)
        .map(|_| {
            let base = base.clone();
            std::thread::spawn(move || client(&base, games, plies))
        })
        .collect();
    let mut lat: Vec<Duration> = handles.into_iter().flat_map(|h| h.join().unwrap()).collect();
    let wall = t.elapsed().as_secs_f64();
    lat.sort();
    let pct = |p: f64| lat[((lat.len() as f64 * p) as usize).min(lat.len() - 1)].as_secs_f64() * 1000.0;
    println!(
        "{clients} clients x {games} games, up to {plies} plies each: {} validated moves in {wall:.1} s",
        lat.len()
    );
    println!("moves/s (incl. game creation and join): {:.0}", lat.len() as f64 / wall);
    println!(
        "move latency ms: p50 {:.1}  p90 {:.1}  p99 {:.1}  max {:.1}",
        pct(0.5),
        pct(0.9),
        pct(0.99),
        pct(1.0)
    );
}
