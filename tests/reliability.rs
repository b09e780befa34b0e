//! Faults and abuse on the real runtime (issue 11): idle games end by alarm and free
//! capacity; D1 side effects (index, result, rating, story stage, badge) survive failing
//! writes and a runtime killed between the game's save and D1, and arrive exactly once;
//! two rated games of one player finishing together both count; the Cron Trigger's
//! housekeeping; the D1 migrations yield exactly schema.sql; a panic inside a game's
//! Durable Object loses nothing (src/shim.mjs rebuilds the objects); a damaged network
//! asset refuses AI games and changes nothing; an unchanged rebuild of the browser engine
//! leaves alone what running runtimes serve.
//!
//! Every wait polls a state the server exposes (the game view's `synced`, D1 rows, a
//! creation answer) against a deadline; none sleeps a fixed time.

#![allow(clippy::unwrap_used)] // tests: a panic is the failure report

use std::time::{Duration, Instant};

use serde_json::{json, Value};
use support::discord::{server_with, stand_in, Browser};
use support::{poll, poll_every, Server};

/// Polls `f` until it returns `Some`, for at most `secs` seconds.
fn count(s: &Server, sql: &str) -> u64 {
    s.d1(sql)[0]["n"].as_u64().unwrap()
}

/// Limits high enough that only the one under test can refuse.
const OPEN_LIMITS: [(&str, &str); 6] = [
    ("LIMIT_PER_IP_PER_MINUTE", "1000000"),
    ("LIMIT_PER_MINUTE", "1000000"),
    ("LIMIT_OPEN_GAMES_PER_CREATOR", "1000000"),
    ("LIMIT_JOINS_PER_IP_PER_MINUTE", "1000000"),
    ("LIMIT_AI_MOVES_PER_IP_PER_MINUTE", "1000000"),
    ("LIMIT_WS_PER_IP_PER_MINUTE", "1000000"),
];

// --- item 1: idle games end on their own and free capacity --------------------------------

/// Regression (issue 11 item 1): abandoned games kept `LIMIT_ACTIVE_GAMES` full forever,
/// so every creation answered `server_busy`. `IDLE_TEST_GAMES` sets how many (default 30;
/// the README reports a run with 1000).
#[test]
fn abandoned_games_end_by_alarm_and_creation_works_again_under_the_active_games_limit() {
    let n: usize = std::env::var("IDLE_TEST_GAMES").ok().and_then(|v| v.parse().ok()).unwrap_or(30);
    // The idle time must outlast the creation of all n games (checked below): generous,
    // as the machine may be busy. 30 games and 90 s, not 100 and 60: in clean-clone CI
    // runs on a slow machine, beside the other suites, 100 creations took 94-96 s (about
    // one a second), past the idle time; 30 then take about a third of it.
    let idle = (n / 2).max(90).to_string();
    let limit = n.to_string();
    let mut vars = OPEN_LIMITS.to_vec();
    vars.extend([
        ("LIMIT_ACTIVE_GAMES", limit.as_str()),
        ("IDLE_AI_GAME_SECONDS", idle.as_str()),
        ("OPEN_INVITE_SECONDS", idle.as_str()),
        ("IDLE_UNTIMED_GAME_SECONDS", idle.as_str()),
    ]);
    let s = Server::start(&vars);
    let t0 = Instant::now();
    // A third each: ai games nobody plays, link games nobody joins, untimed link games
    // joined and left.
    let kinds: Vec<usize> = (0..n).map(|i| i % 3).collect();
    let ids: Vec<(usize, String)> = std::thread::scope(|sc| {
        let chunks: Vec<Vec<usize>> = kinds.chunks(n.div_ceil(4)).map(<[usize]>::to_vec).collect();
        let handles: Vec<_> = chunks
            .into_iter()
            .map(|chunk| {
                let s = &s;
                sc.spawn(move || {
                    chunk
                        .into_iter()
                        .map(|kind| {
                            let id = match kind {
                                0 => s.create(json!({"south": "clockwork", "north": "blades", "mode": "ai", "seat": "south"}))
                                    ["id"]
                                    .as_str()
                                    .unwrap()
                                    .to_owned(),
                                1 => s.create(json!({"south": "axiom", "north": "blades", "mode": "link", "seat": "south"}))
                                    ["id"]
                                    .as_str()
                                    .unwrap()
                                    .to_owned(),
                                _ => s.link_game("blades", "axiom", None).0,
                            };
                            (kind, id)
                        })
                        .collect::<Vec<_>>()
                })
            })
            .collect();
        handles.into_iter().flat_map(|h| h.join().unwrap()).collect()
    });
    let created_in = t0.elapsed();
    assert_eq!(ids.len(), n);
    assert!(
        created_in.as_secs() + 2 < idle.parse::<u64>().unwrap(),
        "creating {n} games took {created_in:?}, longer than the idle time: the check below would race"
    );
    // Full: the next creation is refused with a wait.
    let r = s.post("/api/games", None, &json!({"south": "clockwork", "north": "blades", "mode": "ai"}));
    assert_eq!((r.status, r.error()), (503, "server_busy".to_owned()), "{}", r.text);
    assert!(r.retry_after.is_some());
    // After the idle time every one of them ended on its own, and creation works again.
    // Tried once a second: the wait is about the idle time, and each refused creation is a
    // request's work for the runtime (tried every 200 ms, the test took 27 CPU-s; now 18).
    let t1 = Instant::now();
    poll_every(Duration::from_secs(1), "creation to work again", idle.parse::<u64>().unwrap() + 120, || {
        let r = s.post(
            "/api/games",
            None,
            &json!({"south": "clockwork", "north": "blades", "mode": "ai", "seat": "south"}),
        );
        (r.status == 201).then_some(())
    });
    let (freed_after, waited) = (t0.elapsed(), t1.elapsed());
    poll("every abandoned game to be indexed as finished", 120, || {
        (count(&s, "SELECT COUNT(*) AS n FROM games WHERE result IS NULL") == 1).then_some(())
    });
    println!(
        "{n} abandoned games: created in {created_in:?}; creation refused, then accepted again {freed_after:?} \
         after the first creation ({waited:?} after the refusal; idle time {idle} s); all indexed as finished \
         {:?} after the first creation",
        t0.elapsed()
    );
    // With a reason players can read, in the game view.
    for (kind, id) in ids.iter().take(3) {
        let st = s.state(id);
        let want = match kind {
            0 => json!({"text": "north wins: abandoned", "winner": "north", "reason": "abandoned"}),
            1 => json!({"text": "aborted: never joined", "winner": null, "reason": "never joined"}),
            _ => json!({"text": "north wins: abandoned", "winner": "north", "reason": "abandoned"}),
        };
        assert_eq!(st["result"], want, "{st}");
        assert_eq!(st["synced"], true);
    }
    assert_eq!(
        count(&s, "SELECT COUNT(*) AS n FROM games WHERE reason = 'never joined'"),
        kinds.iter().filter(|k| **k == 1).count() as u64
    );
}

// --- item 2: side effects that survive D1 failures and a crash -----------------------------

/// Plays the last stage of the Axiom story, which the search wins against the random AI
/// (seeded by the harness's `AI_SEED`, the search by the ply: the same game every run);
/// returns the game id.
fn win_last_stage(s: &Server, b: &mut Browser, last: usize) -> String {
    let r = b.send("POST", &s.url(&format!("/api/stories/axiom/stages/{last}")), None);
    assert_eq!(r.status, 201, "{}", r.body);
    let created: Value = serde_json::from_str(&r.body).unwrap();
    let state = support::play_out(s, &created);
    assert_eq!(state["stage"]["verdict"], "won", "{state}");
    created["id"].as_str().unwrap().to_owned()
}

/// Players signed in with Discord as the given stand-in users: (browser, player id).
fn two_players(s: &Server, users: [&str; 2]) -> Vec<(Browser, String)> {
    users
        .iter()
        .map(|u| {
            let mut b = Browser::new();
            b.me(s);
            assert_eq!(b.sign_in(s, u, false).status, 302);
            let id = b.me(s)["id"].as_str().unwrap().to_owned();
            (b, id)
        })
        .collect()
}

/// A rated game of `a` (South) against `b`, one move played: (id, a's token, b's token).
fn rated_game(s: &Server, a: &mut Browser, b: &mut Browser) -> (String, String, String) {
    let body =
        json!({"south": "clockwork", "north": "blades", "mode": "link", "seat": "south", "rated": true});
    let r = a.send("POST", &s.url("/api/games"), Some(&body));
    assert_eq!(r.status, 201, "{}", r.body);
    let c: Value = serde_json::from_str(&r.body).unwrap();
    let id = c["id"].as_str().unwrap().to_owned();
    let join = json!({ "invite": c["invite_url"].as_str().unwrap().split("#invite=").nth(1).unwrap() });
    let r = b.send("POST", &s.url(&format!("/api/games/{id}/join")), Some(&join));
    assert_eq!(r.status, 200, "{}", r.body);
    let b_token = serde_json::from_str::<Value>(&r.body).unwrap()["token"].as_str().unwrap().to_owned();
    let a_token = c["token"].as_str().unwrap().to_owned();
    let mv = s.state(&id)["legal_moves"][0].as_str().unwrap().to_owned();
    assert_eq!(s.play(&id, &a_token, &mv, 0).status, 200);
    (id, a_token, b_token)
}

/// A's rating after winning `wins` rated games in a row against fresh opponents.
fn after_wins(wins: usize) -> service::rating::Rating {
    use service::rating::{Game as Rated, Rating};
    let fresh = Rating::default();
    (0..wins).fold(fresh, |r, _| r.update(&[Rated { opponent: fresh, score: 1.0 }]))
}

fn assert_rating(s: &Server, player: &str, want: service::rating::Rating, version: u64) {
    let r = s.d1(&format!("SELECT rating, rating_dev, rating_version FROM players WHERE id = '{player}'"))[0]
        .clone();
    assert!((r["rating"].as_f64().unwrap() - want.rating).abs() < 1e-6, "{r} vs {want:?}");
    assert!((r["rating_dev"].as_f64().unwrap() - want.deviation).abs() < 1e-6, "{r} vs {want:?}");
    assert_eq!(r["rating_version"], version, "{r}: updates applied");
}

/// Checks that the stage game's story progress, badge and result, and the rated game's
/// result and ratings, are in D1 exactly once.
fn assert_delivered_once(s: &Server, stage_game: &str, rated: &str, players: [&str; 3], last: usize) {
    let [stager, winner, loser] = players;
    assert_eq!(
        s.d1(&format!("SELECT result FROM games WHERE id = '{rated}'"))[0]["result"],
        "south wins: resignation"
    );
    assert_eq!(count(s, &format!("SELECT COUNT(*) AS n FROM rated_games WHERE game_id = '{rated}'")), 1);
    assert_eq!(count(s, "SELECT COUNT(*) AS n FROM rated_games"), 1);
    assert_rating(s, winner, after_wins(1), 1);
    use service::rating::{Game as Rated, Rating};
    let fresh = Rating::default();
    assert_rating(s, loser, fresh.update(&[Rated { opponent: fresh, score: 0.0 }]), 1);
    let row = s.d1(&format!("SELECT result, reason FROM games WHERE id = '{stage_game}'"))[0].clone();
    assert!(
        row["result"].as_str().unwrap().starts_with("south wins")
            || row["result"].as_str().unwrap().starts_with("north wins"),
        "{row}"
    );
    assert_stage_won_once(s, stager, last);
}

/// A guest whose Axiom story stands just before stage `last` (its last stage, so a win
/// awards the badge): (browser, player id).
fn stager_before_stage(s: &Server, last: usize) -> (Browser, String) {
    let mut stager = Browser::new();
    let stager_id = stager.me(s)["id"].as_str().unwrap().to_owned();
    s.d1(&format!(
        "INSERT INTO story_progress (player_id, story_id, completed, updated_at) VALUES ('{stager_id}', 'axiom', {last}, 0)"
    ));
    (stager, stager_id)
}

/// The win of the Axiom story's stage `last` is in D1 once: progress past it, no current
/// stage game, one badge.
fn assert_stage_won_once(s: &Server, stager: &str, last: usize) {
    let p = s.d1(&format!(
        "SELECT completed, current_game FROM story_progress WHERE player_id = '{stager}' AND story_id = 'axiom'"
    ))[0]
        .clone();
    assert_eq!((p["completed"].as_u64(), &p["current_game"]), (Some(last as u64 + 1), &Value::Null), "{p}");
    assert_eq!(count(s, &format!("SELECT COUNT(*) AS n FROM player_badges WHERE player_id = '{stager}'")), 1);
}

/// D1 writes fail: attempt 1 before writing anything, attempt 2 after writing everything
/// (so the retry finds it all done); attempt 3 succeeds. Each arrives exactly once.
#[test]
fn failing_d1_writes_are_retried_by_the_alarm_and_deliver_result_rating_stage_and_badge_exactly_once() {
    let (discord, _) = stand_in();
    let mut vars = OPEN_LIMITS.to_vec();
    vars.extend([("AI_ENGINE", "random"), ("FAULT_D1", "before,after"), ("D1_RETRY_SECONDS", "1")]);
    let s = server_with(&discord, &vars);
    let mut players = two_players(&s, ["1", "2"]);
    let last = 5;
    let (mut stager, stager_id) = stager_before_stage(&s, last);
    let stage_game = win_last_stage(&s, &mut stager, last);
    let (a_id, b_id) = (players[0].1.clone(), players[1].1.clone());
    let (pa, pb) = players.split_at_mut(1);
    let (rated, _a_token, b_token) = rated_game(&s, &mut pa[0].0, &mut pb[0].0);
    let r = s.post(&format!("/api/games/{rated}/resign"), Some(&b_token), &json!({}));
    assert_eq!(r.status, 200, "{}", r.text);
    // The first attempt failed (before writing), so the answer says a write is owed.
    assert_eq!(r.json()["state"]["synced"], false);
    for id in [&stage_game, &rated] {
        poll("the game's D1 writes to be done", 60, || (s.state(id)["synced"] == true).then_some(()));
    }
    assert_delivered_once(&s, &stage_game, &rated, [&stager_id, &a_id, &b_id], last);
    let log = s.log();
    assert!(
        log.contains("injected D1 fault (before writing)")
            && log.contains("injected D1 fault (after writing)"),
        "{log}"
    );
}

/// Regression: a story stage won while D1 was failing (the win's write awaiting the
/// alarm's retry) was lost for good when the player left the story, or started a stage,
/// before that retry: leaving forgot the current stage game, and only the current stage
/// game's result counts, so the retry recorded nothing. Leaving now has the game write
/// what it owes first (or answers 503 and forgets nothing).
#[test]
fn leaving_a_story_right_after_a_win_whose_write_failed_keeps_the_win() {
    let mut vars = OPEN_LIMITS.to_vec();
    vars.extend([("AI_ENGINE", "random"), ("FAULT_D1", "before"), ("D1_RETRY_SECONDS", "3600")]);
    let s = Server::start(&vars);
    let last = 5;
    let (mut stager, stager_id) = stager_before_stage(&s, last);
    let stage_game = win_last_stage(&s, &mut stager, last);
    assert_eq!(s.state(&stage_game)["synced"], false, "the win's write failed; its retry is an hour away");
    let r = stager.send("POST", &s.url("/api/stories/axiom/exit"), None);
    assert_eq!(r.status, 200, "{}", r.body);
    assert_stage_won_once(&s, &stager_id, last);
    assert_eq!(s.state(&stage_game)["synced"], true);
}

/// Regression: the index row took whichever snapshot of a game landed last. Two flushes
/// of one game can be in flight at once (its Durable Object takes requests while D1 is
/// awaited) and land in either order, so an older snapshot landing last could set a
/// finished game's row back to unfinished (result NULL), for good. Here the older
/// snapshot is the creation's, written again by its retry after the row holds a later
/// state of the game (40 plies, written directly).
#[test]
fn an_older_snapshot_of_a_game_never_overwrites_a_newer_index_row() {
    let s = Server::start(&[("AI_ENGINE", "random"), ("FAULT_D1", "after"), ("D1_RETRY_SECONDS", "3600")]);
    let c = s.create(json!({"south": "clockwork", "north": "blades", "mode": "ai", "seat": "south"}));
    let id = c["id"].as_str().unwrap().to_owned();
    // The creation's write landed and was reported failed: its retry is owed.
    assert_eq!(s.state(&id)["synced"], false);
    let row = |col: &str| s.d1(&format!("SELECT {col} AS v FROM games WHERE id = '{id}'"))[0]["v"].clone();
    assert_eq!(row("plies"), 0);
    s.d1(&format!("UPDATE games SET plies = 40, created_at = created_at - 7200000 WHERE id = '{id}'"));
    // The Cron Trigger wakes it (older than an hour, by the index), and it retries.
    assert_eq!(s.get("/cdn-cgi/handler/scheduled?cron=0+*+*+*+*").status, 200);
    poll("the retried write", 30, || (s.state(&id)["synced"] == true).then_some(()));
    assert_eq!(row("plies"), 40, "the older snapshot (0 plies) left the newer row as it was");
    assert!(s.log().contains("injected D1 fault (after writing)"));
}

/// The runtime is killed after the game saved its result and before D1 was written
/// (`FAULT_D1 = crash` skips the write; then the process group is killed). Restarted,
/// the game's alarm writes everything, with no request touching the game.
#[test]
fn a_runtime_killed_between_the_game_save_and_d1_loses_nothing() {
    let (discord, _) = stand_in();
    let mut vars = OPEN_LIMITS.to_vec();
    vars.extend([("AI_ENGINE", "random"), ("FAULT_D1", "crash"), ("D1_RETRY_SECONDS", "1")]);
    let mut s = server_with(&discord, &vars);
    let mut players = two_players(&s, ["1", "2"]);
    let last = 5;
    let (mut stager, stager_id) = stager_before_stage(&s, last);
    let stage_game = win_last_stage(&s, &mut stager, last);
    let (a_id, b_id) = (players[0].1.clone(), players[1].1.clone());
    let (pa, pb) = players.split_at_mut(1);
    let (rated, _, b_token) = rated_game(&s, &mut pa[0].0, &mut pb[0].0);
    assert_eq!(s.post(&format!("/api/games/{rated}/resign"), Some(&b_token), &json!({})).status, 200);
    // The games are saved and finished; D1 has none of their results.
    for id in [&stage_game, &rated] {
        let st = s.state(id);
        assert_eq!((&st["status"], &st["synced"]), (&json!("finished"), &json!(false)));
        assert_eq!(
            count(&s, &format!("SELECT COUNT(*) AS n FROM games WHERE id = '{id}' AND result IS NOT NULL")),
            0
        );
    }
    assert_eq!(count(&s, "SELECT COUNT(*) AS n FROM player_badges"), 0);
    assert_eq!(count(&s, "SELECT COUNT(*) AS n FROM rated_games"), 0);
    s.set_var("FAULT_D1", None);
    s.restart();
    // Only the alarms run now: D1 is polled directly.
    poll("the alarms to deliver the results", 90, || {
        (count(&s, "SELECT COUNT(*) AS n FROM games WHERE result IS NOT NULL") == 2
            && count(&s, "SELECT COUNT(*) AS n FROM rated_games") == 1
            && count(&s, "SELECT COUNT(*) AS n FROM player_badges") == 1)
            .then_some(())
    });
    for id in [&stage_game, &rated] {
        poll("the outbox to clear", 30, || (s.state(id)["synced"] == true).then_some(()));
    }
    assert_delivered_once(&s, &stage_game, &rated, [&stager_id, &a_id, &b_id], last);
}

// --- item 3: two rated games of one player finishing together -----------------------------

/// Regression (issue 11 item 3): the rating update read both ratings and wrote them back,
/// so two rated games of one player finishing together could lose one update.
#[test]
fn two_rated_games_of_one_player_finishing_together_both_update_the_rating() {
    let (discord, _) = stand_in();
    let s = server_with(&discord, &OPEN_LIMITS);
    for round in 0..3 {
        let mut players = two_players(&s, [&format!("{round}0"), &format!("{round}1")]);
        let mut third = two_players(&s, [&format!("{round}2"), &format!("{round}3")]);
        let a_id = players[0].1.clone();
        let (pa, pb) = players.split_at_mut(1);
        let (g1, _, t1) = rated_game(&s, &mut pa[0].0, &mut pb[0].0);
        let (g2, _, t2) = rated_game(&s, &mut pa[0].0, &mut third[0].0);
        // Both opponents resign at the same moment.
        std::thread::scope(|sc| {
            let s = &s;
            let h: Vec<_> = [(g1.clone(), t1), (g2.clone(), t2)]
                .into_iter()
                .map(|(g, t)| {
                    sc.spawn(move || s.post(&format!("/api/games/{g}/resign"), Some(&t), &json!({})).status)
                })
                .collect();
            for h in h {
                assert_eq!(h.join().unwrap(), 200);
            }
        });
        for g in [&g1, &g2] {
            poll("the rating writes", 30, || (s.state(g)["synced"] == true).then_some(()));
        }
        // A won twice against fresh opponents: both updates are in, one after the other.
        assert_rating(&s, &a_id, after_wins(2), 2);
    }
}

// --- a panic inside a game's Durable Object -------------------------------------------------

/// A panic traps the wasm instance: src/shim.mjs then lets the glue start a fresh instance
/// and rebuilds each Durable Object from its constructor arguments (its state is in
/// storage) on the next call. The panicking request gets a JSON 500 and changes nothing;
/// the same game, another game made before the trap, and a new game all go on.
#[test]
fn a_panic_in_a_game_object_is_a_500_and_every_game_goes_on() {
    let s = Server::start(&[("FAULT_PANIC", "/draw")]);
    let (id, south, north) = s.link_game("clockwork", "blades", None);
    let (other, other_south, _) = s.link_game("axiom", "blades", None);
    let first = s.state(&id)["legal_moves"][0].as_str().unwrap().to_owned();
    assert_eq!(s.play(&id, &south, &first, 0).status, 200);

    let r = s.post(&format!("/api/games/{id}/draw"), Some(&north), &json!({}));
    assert_eq!((r.status, r.error()), (500, "internal".to_owned()), "{}", r.text);
    poll("the panic in the runtime's log", 10, || {
        s.log().contains("injected panic (FAULT_PANIC)").then_some(())
    });

    // The same game, rebuilt from storage: nothing of the draw request was applied.
    let st = s.state(&id);
    assert_eq!(
        (st["ply"].as_u64(), &st["status"], &st["draw_offer"]),
        (Some(1), &json!("ongoing"), &Value::Null)
    );
    let reply = st["legal_moves"][0].as_str().unwrap().to_owned();
    assert_eq!(s.play(&id, &north, &reply, 1).status, 200);
    assert_eq!(s.state(&id)["ply"], 2);
    // A game made before the trap, and a new one (whose AI replies in the request).
    let mv = s.state(&other)["legal_moves"][0].as_str().unwrap().to_owned();
    assert_eq!(s.play(&other, &other_south, &mv, 0).status, 200);
    let c = s.create(json!({"south": "blades", "north": "axiom", "mode": "ai", "seat": "south", "level": 1}));
    let mv = c["state"]["legal_moves"][0].as_str().unwrap().to_owned();
    let r = s.play(c["id"].as_str().unwrap(), c["token"].as_str().unwrap(), &mv, 0);
    assert_eq!(r.status, 200, "{}", r.text);
    assert!(r.json()["ai_move"].is_string(), "{}", r.text);
}

// --- the network as a static asset ---------------------------------------------------------

/// The AI's network is a static asset the module fetches and checks against the hash it
/// was built with (src/net.rs). A damaged one refuses `ai` games with 503
/// `ai_unavailable` and creates nothing; link games go on; with the asset right again
/// (a redeploy: a restart on the same state) the next `ai` game loads it and plays.
#[test]
fn a_damaged_network_or_leaf_asset_refuses_ai_games_creates_nothing_and_the_repaired_one_loads() {
    let root = support::root();
    let mut models: Vec<_> =
        std::fs::read_dir(root.join("public/models")).unwrap().map(|e| e.unwrap().path()).collect();
    models.sort_by_key(|p| (p.extension().is_some_and(|e| e == "bin"), p.clone()));
    assert_eq!(
        models.iter().map(|p| p.file_name().unwrap().to_str().unwrap()).collect::<Vec<_>>()[1..],
        ["leaf-v1.bin", "leaf-v3.bin"],
        "public/models/ holds the shipped network and leaf scores (scripts/build-worker.sh): {models:?}"
    );
    assert_eq!(models[0].extension().unwrap(), "onnx");
    let good = std::fs::read(&models[0]).unwrap();
    let name = models[0].file_name().unwrap().to_owned();
    // The leaf score of the top levels: loaded with the other, all or none, so a damaged one
    // refuses the default level too (no level plays a leaf score it was not measured with).
    let leaf_name = models[2].file_name().unwrap().to_owned();
    let good_leaf = std::fs::read(&models[2]).unwrap();
    // A copy of public/ with one byte of the network changed.
    let assets = std::env::temp_dir().join(format!("iron-arena-assets-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&assets);
    let copied =
        std::process::Command::new("cp").arg("-r").arg(root.join("public")).arg(&assets).status().unwrap();
    assert!(copied.success());
    let mut bad = good.clone();
    bad[good.len() / 2] ^= 0x5a;
    std::fs::write(assets.join("models").join(&name), &bad).unwrap();
    let mut s = Server::start_with_assets(&OPEN_LIMITS, Some(&assets));

    // The creator takes North, so the AI would open in the creating request.
    let ai = json!({"south": "clockwork", "north": "blades", "mode": "ai", "seat": "north"});
    let r = s.post("/api/games", None, &ai);
    assert_eq!((r.status, r.error()), (503, "ai_unavailable".to_owned()), "{}", r.text);
    poll("the log to name the hash that did not match", 30, || s.log().contains("has SHA-256").then_some(()));
    // Nothing was made: the only indexed game is the link game created after it.
    let link = s.create(json!({"south": "axiom", "north": "blades", "mode": "link", "seat": "south"}));
    let link_id = link["id"].as_str().unwrap().to_owned();
    let ids = poll("the link game's index row", 60, || {
        let rows = s.d1("SELECT id FROM games");
        (!rows.is_empty()).then_some(rows)
    });
    assert_eq!(ids, vec![json!({"id": link_id})]);

    // Repaired and redeployed (stopped and started on the same state, as a deploy starts
    // new isolates), the next `ai` game loads the network in its creating request.
    s.stop();
    std::fs::write(assets.join("models").join(&name), &good).unwrap();
    s.restart();
    let created = s.create(ai.clone());
    assert_eq!(created["ai"]["engine"], "alphabeta-leaf", "{created}");
    assert!(created["ai_move"].is_string(), "the AI opened: {created}");
    // Level 1 is MCTS over the network (tract in the request): it plays with the repaired
    // network, and below it is refused, not played by something else.
    let level1 = json!({"south": "clockwork", "north": "blades", "mode": "ai", "seat": "north", "level": 1});
    let created = s.create(level1.clone());
    assert_eq!(created["ai"]["engine"], "mcts-network-heuristic", "{created}");
    assert!(created["ai_move"].is_string(), "the network opened: {created}");

    // Regression: restarting a story stage while the network cannot load ended the stage
    // game being played (a loss, "abandoned") and then failed to create the new one, so the
    // player lost the game and got nothing. Now the stage being played stays as it was.
    let mut player = Browser::new();
    player.me(&s);
    let stage = "/api/stories/clockwork/stages/0";
    let r = player.send("POST", &s.url(stage), None);
    assert_eq!(r.status, 201, "{}", r.body);
    let playing = serde_json::from_str::<Value>(&r.body).unwrap()["id"].as_str().unwrap().to_owned();
    s.stop();
    std::fs::write(assets.join("models").join(&name), &bad).unwrap();
    s.restart(); // on a new port: URLs are made after it
    let r = player.send("POST", &s.url(stage), None);
    let error = serde_json::from_str::<Value>(&r.body).map(|b| b["error"].clone()).unwrap_or_default();
    assert_eq!((r.status, error.as_str()), (503, Some("ai_unavailable")), "{}", r.body);
    // The damaged network refuses a level-1 game (MCTS over it) with the same clear error.
    let r = s.post("/api/games", None, &level1);
    assert_eq!((r.status, r.error()), (503, "ai_unavailable".to_owned()), "{}", r.text);
    assert_eq!(s.state(&playing)["status"], "ongoing", "the stage game being played goes on");
    let stories: Value =
        serde_json::from_str(&player.send("GET", &s.url("/api/stories"), None).body).unwrap();
    let clockwork = stories["stories"].as_array().unwrap().iter().find(|st| st["id"] == "clockwork").unwrap();
    assert_eq!(clockwork["current_game"], playing.as_str(), "{clockwork}");

    // The leaf scores are checked the same way: the network intact, one byte of leaf-v3
    // changed, an `ai` game (the default level, which plays leaf-v1) is refused with the leaf
    // file's hash in the log.
    s.stop();
    std::fs::write(assets.join("models").join(&name), &good).unwrap();
    let mut bad_leaf = good_leaf.clone();
    bad_leaf[good_leaf.len() / 2] ^= 0x5a;
    std::fs::write(assets.join("models").join(&leaf_name), &bad_leaf).unwrap();
    s.restart();
    let r = s.post("/api/games", None, &ai);
    assert_eq!((r.status, r.error()), (503, "ai_unavailable".to_owned()), "{}", r.text);
    let leaf_file = leaf_name.to_str().unwrap().to_owned();
    poll("the log to name the leaf file whose hash did not match", 30, || {
        s.log().lines().any(|l| l.contains(&leaf_file) && l.contains("has SHA-256")).then_some(())
    });
    let _ = std::fs::remove_dir_all(&assets);
}

// --- item 7: housekeeping and schema evolution ---------------------------------------------

#[test]
fn the_cron_trigger_deletes_expired_sessions_stale_sign_in_states_and_empty_guests() {
    let s = Server::start(&[]);
    let now = std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).unwrap().as_millis() as i64;
    let old = now - 3_600_000;
    s.d1(&format!(
        "INSERT INTO players (id, created_at) VALUES ('guest-expired', {old}), ('guest-live', {old}), \
             ('guest-with-game', {old}), ('guest-with-story', {old}), ('guest-pushed', {old}); \
         INSERT INTO players (id, created_at, discord_id) VALUES ('discord-player', {old}, 'd1'); \
         INSERT INTO sessions (token_hash, player_id, created_at, expires_at) VALUES \
             ('s-expired', 'guest-expired', {old}, {}), ('s-live', 'guest-live', {old}, {}), \
             ('s-expired-2', 'guest-with-game', {old}, {}); \
         INSERT INTO games (id, south_faction, north_faction, mode, created_at, south_player) \
             VALUES ('g1', 'axiom', 'blades', 'ai', {old}, 'guest-with-game'); \
         INSERT INTO story_progress (player_id, story_id, completed, updated_at) VALUES ('guest-with-story', 'axiom', 1, {old}); \
         INSERT INTO oauth_states (state_hash, session_hash, verifier, created_at) VALUES \
             ('st-old', 's-live', 'v', {old}), ('st-new', 's-live', 'v', {now}); \
         INSERT INTO push_subscriptions (endpoint, player_id, p256dh, auth, created_at) VALUES \
             ('https://push.example/pushed', 'guest-pushed', 'k', 'a', {old}), \
             ('https://push.example/live', 'guest-live', 'k', 'a', {old});",
        now - 1,
        now + 3_600_000,
        now - 1,
    ));
    let r = s.get("/cdn-cgi/handler/scheduled?cron=0+*+*+*+*");
    assert_eq!(r.status, 200, "{}", r.text);
    let ids = |sql: &str| -> Vec<String> {
        s.d1(sql).iter().map(|r| r["id"].as_str().unwrap().to_owned()).collect()
    };
    // The guests go last; the sweep is done once they have gone.
    // Regression: a guest whose session had ended but who had subscribed to
    // notifications failed the whole guest delete (D1 enforces the foreign key), so no
    // empty guest went and the run stopped before waking games, every hour.
    poll("the sweep: only the empty guests gone, the one with a push subscription too", 30, || {
        let players = ids("SELECT id FROM players ORDER BY id");
        (players == ["discord-player", "guest-live", "guest-with-game", "guest-with-story"]).then_some(())
    });
    assert_eq!(ids("SELECT token_hash AS id FROM sessions ORDER BY 1"), ["s-live"]);
    assert_eq!(ids("SELECT state_hash AS id FROM oauth_states"), ["st-new"]);
    assert_eq!(
        ids("SELECT endpoint AS id FROM push_subscriptions"),
        ["https://push.example/live"],
        "with its subscription; a guest still signed in keeps its own"
    );
}

/// The housekeeping's safety net: a game whose alarm is not set for its idle end (made
/// with a long idle time, which has since been shortened — as games made before idle ends
/// existed have no such alarm) ends once the Cron Trigger wakes it.
#[test]
fn the_cron_trigger_wakes_unfinished_games_so_their_idle_end_is_not_missed() {
    let mut s = Server::start(&[]);
    let c = s.create(json!({"south": "clockwork", "north": "blades", "mode": "ai", "seat": "south"}));
    let id = c["id"].as_str().unwrap().to_owned();
    poll("the creation to be indexed", 30, || (s.state(&id)["synced"] == true).then_some(()));
    // Seven days from now, its alarm; the index says it is more than an hour old.
    s.d1(&format!("UPDATE games SET created_at = created_at - 7200000 WHERE id = '{id}'"));
    s.set_var("IDLE_AI_GAME_SECONDS", Some("1"));
    s.restart();
    assert!(s.state(&id)["result"].is_null(), "nothing ends it before the sweep");
    assert_eq!(s.get("/cdn-cgi/handler/scheduled?cron=0+*+*+*+*").status, 200);
    let st = poll("the woken game to end", 30, || {
        let st = s.state(&id);
        (!st["result"].is_null()).then_some(st)
    });
    assert_eq!(st["result"]["text"], "north wins: abandoned");
    poll("its result in the index", 30, || {
        (count(&s, &format!("SELECT COUNT(*) AS n FROM games WHERE id = '{id}' AND reason = 'abandoned'"))
            == 1)
            .then_some(())
    });
}

/// The schema's two forms agree: migrations/ applied in order (by wrangler, as run.sh and
/// the harness do) gives exactly the tables, columns, constraints and indexes of schema.sql.
#[test]
fn applying_the_migrations_in_order_yields_exactly_schema_sql() {
    let dir = std::env::temp_dir().join(format!("iron-arena-migrations-{}", std::process::id()));
    let (migrated, direct) = (dir.join("migrated"), dir.join("direct"));
    for d in [&migrated, &direct] {
        let _ = std::fs::remove_dir_all(d);
        std::fs::create_dir_all(d).unwrap();
    }
    support::apply_migrations(&migrated);
    support::d1_at(&direct, &["--file", "schema.sql"]);
    // Read from the SQLite files wrangler wrote: the test took 18 CPU-s with two more
    // `wrangler d1 execute`, now 13.
    let schema = |d: &std::path::Path| -> Vec<(String, String, String)> {
        support::d1_file(
            d,
            "SELECT type, name, sql FROM sqlite_master WHERE name NOT LIKE 'sqlite_%' \
             AND name NOT LIKE '_cf_%' AND name NOT LIKE 'd1_migrations%' ORDER BY type, name",
        )
        .iter()
        .map(|r| {
            (
                r["type"].as_str().unwrap().to_owned(),
                r["name"].as_str().unwrap().to_owned(),
                normalise(r["sql"].as_str().unwrap_or_default()),
            )
        })
        .collect()
    };
    let (a, b) = (schema(&migrated), schema(&direct));
    assert!(a.len() > 10, "{a:?}");
    for (x, y) in a.iter().zip(&b) {
        assert_eq!(x, y, "migrations vs schema.sql");
    }
    assert_eq!(a.len(), b.len(), "migrations: {a:?}\nschema.sql: {b:?}");
    let _ = std::fs::remove_dir_all(&dir);
}

/// SQL without comments, case or layout: `CREATE TABLE t (a INTEGER,b TEXT)`.
fn normalise(sql: &str) -> String {
    let no_comments: Vec<&str> = sql.lines().map(|l| l.split("--").next().unwrap_or_default()).collect();
    let joined = no_comments.join(" ").to_lowercase();
    let words: Vec<&str> = joined.split_whitespace().collect();
    let mut s = words.join(" ");
    for p in ["(", ")", ","] {
        s = s.replace(&format!(" {p}"), p).replace(&format!("{p} "), p);
    }
    s
}

/// Every file under `dir` (recursively) with what identifies its version: inode, size,
/// modification time. A file replaced, rewritten or touched shows a difference.
fn file_versions(
    dir: &std::path::Path,
) -> std::collections::BTreeMap<std::path::PathBuf, (u64, u64, i64, i64)> {
    use std::os::unix::fs::MetadataExt;
    let mut out = std::collections::BTreeMap::new();
    let mut todo = vec![dir.to_path_buf()];
    while let Some(d) = todo.pop() {
        for entry in std::fs::read_dir(&d).unwrap() {
            let path = entry.unwrap().path();
            let m = std::fs::symlink_metadata(&path).unwrap();
            if m.is_dir() {
                todo.push(path);
            } else {
                out.insert(path, (m.ino(), m.size(), m.mtime(), m.mtime_nsec()));
            }
        }
    }
    out
}

/// Regression: `scripts/build-web-engine.sh` rewrote `public/engine/` on every run, changed
/// or not, and every running `wrangler dev` serves `public/` and reloads its Worker when a
/// file there changes ("Reloading local server..."), dropping requests and WebSockets in
/// flight. `scripts/e2e.sh` runs it as it starts, beside the real-runtime suites
/// (`scripts/test.sh`), so their runtimes reloaded as their first tests ran (the likely
/// cause, not proven, of a create once answered with an empty body on a loaded machine).
/// An unchanged rebuild now leaves every file of `public/` as it was.
#[test]
fn an_unchanged_rebuild_of_the_browser_engine_touches_nothing_a_runtime_serves() {
    let root = support::root();
    let build = || {
        // As scripts/build-worker.sh runs it (test.sh lints the test binaries' build with
        // clippy-driver; inherited, it would make cargo build the engine again).
        let out = std::process::Command::new(root.join("scripts/build-web-engine.sh"))
            .env_remove("RUSTC_WORKSPACE_WRAPPER")
            .env_remove("CLIPPY_ARGS")
            .current_dir(&root)
            .output()
            .unwrap();
        assert!(
            out.status.success(),
            "build-web-engine.sh failed:\n{}",
            String::from_utf8_lossy(&out.stderr)
        );
    };
    // The first run makes the engine up to date (it is, after test.sh's module build).
    build();
    let before = file_versions(&root.join("public"));
    assert!(before.keys().any(|p| p.ends_with("engine/engine_wasm_bg.wasm")), "no engine in public/");
    build();
    let after = file_versions(&root.join("public"));
    let changed: Vec<_> = after.iter().filter(|(p, v)| before.get(*p) != Some(v)).map(|(p, _)| p).collect();
    assert!(changed.is_empty() && before.len() == after.len(), "an unchanged rebuild changed {changed:?}");
}

/// The runtime host (tests/support/runtime-host.mjs) runs every runtime of a test binary;
/// nothing outlives the test process: when its stdin closes (the process ended, however it
/// ended), it stops its runtimes and removes their state and its log, then exits.
#[test]
fn the_runtime_host_ends_its_runtimes_and_removes_their_state_when_its_test_process_ends() {
    use std::io::{BufRead, Write};
    let persist = std::env::temp_dir().join(format!("iron-arena-host-test-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&persist);
    std::fs::create_dir_all(&persist).unwrap();
    support::fresh_state(&persist);
    let log = persist.with_extension("log");
    let mut host = support::runtime_host_command(&log).spawn().unwrap();
    let mut stdin = host.stdin.take().unwrap();
    let mut stdout = std::io::BufReader::new(host.stdout.take().unwrap());
    let start = json!({ "id": 1, "op": "start", "persist": persist, "vars": {}, "assets": null });
    writeln!(stdin, "{start}").unwrap();
    let url = loop {
        let mut line = String::new();
        assert!(
            stdout.read_line(&mut line).unwrap() > 0,
            "the host ended: {}",
            std::fs::read_to_string(&log).unwrap()
        );
        if let Ok(reply) = serde_json::from_str::<Value>(&line) {
            break reply["url"].as_str().unwrap_or_else(|| panic!("no runtime: {reply}")).to_owned();
        }
    };
    let health = || support::agent().get(&format!("{url}/api/health")).call().map(|r| r.status());
    assert_eq!(health().unwrap(), 200);
    drop(stdin);
    let status = poll("the host to exit", 60, || host.try_wait().unwrap());
    assert!(status.success(), "the host exited with {status}");
    assert!(health().is_err(), "the runtime still answers after its host ended");
    assert!(!persist.exists(), "the runtime's state is left behind");
    assert!(!log.exists(), "the host's log is left behind");
}
