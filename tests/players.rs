//! Players on the real runtime with the local D1: the story mode (stages won and saved,
//! Exit Stage, Reset Story Progress, a completed story's badge awarded once, progress
//! kept when a guest signs in with Discord), rated link games (Glicko-2 applied once,
//! leaderboard), Player Info, the match-up statistics, and the lessons completed (kept on
//! the account, seen from a second browser signed in to it).
//!
//! Stages are played by a native heuristic search against `AI_ENGINE = "random"`, so a
//! test can win them; the stage logic and the D1 writes are the production ones. The
//! random AI is seeded (the harness's `AI_SEED`) and the search's seed is the ply, so each
//! stage game is the same on every run.

#![allow(clippy::unwrap_used)] // tests: a panic is the failure report

use serde_json::{json, Value};
use support::discord::{self, Browser};
use support::Server;

/// The binary's shared runtime (see `support::shared`): Discord sign-in against the shared
/// stand-in, and the random AI. Each test uses Discord user ids of its own.
///
/// A finished game writes D1 in the same request, but that write can fail and be left to
/// the game's outbox retry: here it did, about once in 40 runs on a loaded machine, when
/// a test wrote the runtime's SQLite file directly while another's game ended (that test
/// now has its own runtime). So the tests wait for a finished game's `synced` before
/// reading what it writes ([`Server::synced`]), and a retry comes after 1 s, not a minute.
fn shared() -> &'static Server {
    discord::shared_with(&[("AI_ENGINE", "random"), ("D1_RETRY_SECONDS", "1")]).0
}

fn get(b: &mut Browser, s: &Server, path: &str) -> Value {
    let r = b.send("GET", &s.url(path), None);
    assert_eq!(r.status, 200, "{path}: {}", r.body);
    serde_json::from_str(&r.body).unwrap()
}

fn story(b: &mut Browser, s: &Server, id: &str) -> Value {
    let all = get(b, s, "/api/stories");
    all["stories"].as_array().unwrap().iter().find(|st| st["id"] == id).unwrap().clone()
}

/// Starts a stage and plays it out with a heuristic search; returns the final state.
fn play_stage(s: &Server, b: &mut Browser, story: &str, stage: usize) -> Value {
    let r = b.send("POST", &s.url(&format!("/api/stories/{story}/stages/{stage}")), None);
    assert_eq!(r.status, 201, "{}", r.body);
    let created: Value = serde_json::from_str(&r.body).unwrap();
    assert_eq!(created["state"]["stage"]["story"], story);
    support::play_out(s, &created)
}

/// Plays a stage, which the search wins against the seeded random AI; returns once D1
/// has the result (and so the story's progress).
fn win_stage(s: &Server, b: &mut Browser, story: &str, stage: usize) -> Value {
    let end = play_stage(s, b, story, stage);
    assert_eq!(end["stage"]["verdict"], "won", "{end}");
    s.synced(end["id"].as_str().unwrap());
    end
}

#[test]
fn a_won_stage_is_saved_and_kept_when_the_guest_signs_in_with_discord() {
    let s = shared();
    let mut a = Browser::new();
    let all = get(&mut a, s, "/api/stories");
    assert_eq!(all["stories"].as_array().unwrap().len(), 3);
    let cw = story(&mut a, s, "clockwork");
    assert!(cw["stages"].as_array().unwrap().len() >= 5);
    assert_eq!(
        (cw["completed"].as_u64(), &cw["stages"][0]["unlocked"], &cw["stages"][1]["unlocked"]),
        (Some(0), &json!(true), &json!(false))
    );

    for (path, status, code) in [
        ("/api/stories/clockwork/stages/1", 403, "stage_locked"),
        ("/api/stories/clockwork/stages/99", 404, "not_found"),
        ("/api/stories/clockwork/stages/x", 404, "not_found"),
        ("/api/stories/robots/stages/0", 404, "not_found"),
    ] {
        let r = a.send("POST", &s.url(path), None);
        assert_eq!(r.status, status, "{path}: {}", r.body);
        assert!(r.body.contains(code), "{path}: {}", r.body);
    }

    let end = win_stage(s, &mut a, "clockwork", 0);
    assert_eq!(end["result"]["winner"], end["stage"]["player"]);
    let cw = story(&mut a, s, "clockwork");
    assert_eq!(cw["completed"], 1, "{cw}");
    assert_eq!(cw["current_game"], Value::Null);
    assert_eq!(cw["stages"][1]["unlocked"], true);
    let me = a.me(s);
    let rows = s.d1(&format!(
        "SELECT completed FROM story_progress WHERE player_id = '{}' AND story_id = 'clockwork'",
        me["id"].as_str().unwrap()
    ));
    assert_eq!(rows[0]["completed"], 1);
    // The game is indexed under the player.
    let info = get(&mut a, s, &format!("/api/players/{}", me["id"].as_str().unwrap()));
    assert!(info["games"]["played"].as_u64().unwrap() >= 1, "{info}");

    // The Discord account already exists (another browser); this guest signs in to it:
    // the guest's progress moves to the account.
    let mut b = Browser::new();
    b.me(s);
    assert_eq!(b.sign_in(s, "77", false).status, 302);
    let account = b.me(s)["id"].clone();
    assert_eq!(story(&mut b, s, "clockwork")["completed"], 0);
    assert_eq!(a.sign_in(s, "77", false).status, 302);
    assert_eq!(a.me(s)["id"], account);
    assert_eq!(story(&mut a, s, "clockwork")["completed"], 1, "progress carried over");
    assert_eq!(story(&mut b, s, "clockwork")["completed"], 1, "the same player on both browsers");
}

#[test]
fn exit_stage_and_reset_story_progress() {
    let s = shared();
    let mut a = Browser::new();
    a.me(s);
    win_stage(s, &mut a, "blades", 0);
    let r = a.send("POST", &s.url("/api/stories/blades/stages/1"), None);
    assert_eq!(r.status, 201, "{}", r.body);
    let game = serde_json::from_str::<Value>(&r.body).unwrap()["id"].as_str().unwrap().to_owned();
    assert_eq!(story(&mut a, s, "blades")["current_game"], game.as_str());

    // Exit Stage: the stage's game ends as a loss; completed stages are kept.
    let r = a.send("POST", &s.url("/api/stories/blades/exit"), None);
    assert_eq!(r.status, 200, "{}", r.body);
    let st: Value = serde_json::from_str(&r.body).unwrap();
    assert_eq!((st["completed"].as_u64(), &st["current_game"]), (Some(1), &Value::Null));
    let g = s.state(&game);
    assert_eq!((g["status"].as_str(), g["result"]["reason"].as_str()), (Some("finished"), Some("abandoned")));
    assert_eq!(g["stage"]["verdict"], "lost");

    // Reset Story Progress needs the confirmation; then everything is locked again.
    let r = a.send("POST", &s.url("/api/stories/blades/reset"), Some(&json!({ "confirm": false })));
    assert_eq!(r.status, 422, "{}", r.body);
    assert!(r.body.contains("confirmation_required"));
    let r = a.send("POST", &s.url("/api/stories/blades/reset"), Some(&json!({ "sure": true })));
    assert_eq!(r.status, 400, "{}", r.body);
    assert_eq!(story(&mut a, s, "blades")["completed"], 1, "refused resets change nothing");
    let r = a.send("POST", &s.url("/api/stories/blades/reset"), Some(&json!({ "confirm": true })));
    assert_eq!(r.status, 200, "{}", r.body);
    assert_eq!(serde_json::from_str::<Value>(&r.body).unwrap()["completed"], 0);
    assert_eq!(a.send("POST", &s.url("/api/stories/blades/stages/1"), None).status, 403);
}

/// Regression: (re)starting a stage when the stage game being played could not be ended
/// answered 503 `stage_not_ended` and left the new game, never handed out, open until it
/// idled out (counted against the creation limits). It is now withdrawn at once: aborted.
#[test]
fn a_stage_start_that_cannot_end_the_game_being_played_withdraws_the_new_one() {
    // Its own runtime: the test writes D1's file directly.
    let own = Server::start(&[("AI_ENGINE", "random")]);
    let s = &own;
    let mut a = Browser::new();
    let me = a.me(s)["id"].as_str().unwrap().to_owned();
    let r = a.send("POST", &s.url("/api/stories/clockwork/stages/0"), None);
    assert_eq!(r.status, 201, "{}", r.body);
    // A game that refuses to end as a stage: the progress is made to name an ordinary AI
    // game of the player's (its Exit Stage call answers 409 `not_a_stage`).
    let body = json!({"south": "clockwork", "north": "blades", "mode": "ai", "seat": "south"});
    let r = a.send("POST", &s.url("/api/games"), Some(&body));
    assert_eq!(r.status, 201, "{}", r.body);
    let other = serde_json::from_str::<Value>(&r.body).unwrap()["id"].as_str().unwrap().to_owned();
    s.d1(&format!(
        "UPDATE story_progress SET current_game = '{other}' WHERE player_id = '{me}' AND story_id = 'clockwork'"
    ));
    let before: Vec<String> =
        s.d1("SELECT id FROM games").iter().map(|r| r["id"].as_str().unwrap().to_owned()).collect();
    assert_eq!(before.len(), 2);

    let r = a.send("POST", &s.url("/api/stories/clockwork/stages/0"), None);
    assert_eq!(r.status, 503, "{}", r.body);
    assert!(r.body.contains("stage_not_ended"), "{}", r.body);
    // What was being played is as it was.
    assert_eq!(story(&mut a, s, "clockwork")["current_game"], other.as_str());
    assert_eq!(s.state(&other)["status"], "ongoing");
    // The game the refused request made is over: aborted, no winner, indexed so.
    let made = support::poll("the refused start's game in the index", 20, || {
        let rows = s.d1("SELECT id FROM games");
        rows.iter().map(|r| r["id"].as_str().unwrap().to_owned()).find(|id| !before.contains(id))
    });
    let st = s.state(&made);
    assert_eq!(
        (&st["result"]["text"], &st["result"]["winner"]),
        (&json!("aborted: by a player"), &Value::Null),
        "{st}"
    );
    s.synced(&made);
    let open = s.d1("SELECT COUNT(*) AS n FROM games WHERE result IS NULL");
    assert_eq!(open[0]["n"], 2, "only the two games started before are open");
}

#[test]
fn completing_a_story_awards_its_badge_exactly_once() {
    // Its own runtime: the test writes D1's file directly (the stages before the last), and
    // on the shared one that write could lock out another test's write in the same instant.
    let own = Server::start(&[("AI_ENGINE", "random")]);
    let s = &own;
    let mut a = Browser::new();
    let me = a.me(s);
    let id = me["id"].as_str().unwrap();
    assert_eq!(me["badges"], json!([]));
    let ax = story(&mut a, s, "axiom");
    let last = ax["stages"].as_array().unwrap().len() - 1;
    // Every stage but the last is done (each stage's own win is tested above).
    s.d1(&format!(
        "INSERT INTO story_progress (player_id, story_id, completed, updated_at) VALUES ('{id}', 'axiom', {last}, 0)"
    ));
    win_stage(s, &mut a, "axiom", last);
    let ax = story(&mut a, s, "axiom");
    assert_eq!((ax["completed"].as_u64(), &ax["badge_earned"]), (Some(last as u64 + 1), &json!(true)));
    let badge = &ax["badge"];
    assert_eq!(a.me(s)["badges"], json!([badge]), "the badge is shown with the player");
    // Winning the last stage again awards nothing more.
    win_stage(s, &mut a, "axiom", last);
    assert_eq!(a.me(s)["badges"].as_array().unwrap().len(), 1);
    assert_eq!(s.d1(&format!("SELECT COUNT(*) AS n FROM player_badges WHERE player_id = '{id}'"))[0]["n"], 1);
    let info = get(&mut a, s, &format!("/api/players/{id}"));
    assert_eq!(info["badges"], json!([badge]));
}

#[test]
fn rated_games_update_ratings_once_and_feed_the_leaderboard_player_info_and_statistics() {
    let s = shared();
    let (mut a, mut b, mut guest) = (Browser::new(), Browser::new(), Browser::new());
    // The statistics are global: this test's games are what they add (no other test of
    // this binary finishes a link game).
    let matchups = |b: &mut Browser| get(b, s, "/api/stats/matchups")["matchups"].as_array().unwrap().clone();
    let before = matchups(&mut guest);
    for (br, user) in [(&mut a, "1"), (&mut b, "2")] {
        br.me(s);
        assert_eq!(br.sign_in(s, user, false).status, 302);
    }
    guest.me(s);
    let (a_id, b_id) =
        (a.me(s)["id"].as_str().unwrap().to_owned(), b.me(s)["id"].as_str().unwrap().to_owned());
    let body =
        json!({"south": "clockwork", "north": "blades", "mode": "link", "seat": "south", "rated": true});
    let r = guest.send("POST", &s.url("/api/games"), Some(&body));
    assert_eq!((r.status, r.body.contains("sign_in_required")), (403, true), "{}", r.body);
    let r = a.send("POST", &s.url("/api/games"), Some(&body));
    assert_eq!(r.status, 201, "{}", r.body);
    let c: Value = serde_json::from_str(&r.body).unwrap();
    let (id, a_token) = (c["id"].as_str().unwrap().to_owned(), c["token"].as_str().unwrap().to_owned());
    let join = json!({ "invite": c["invite_url"].as_str().unwrap().split("#invite=").nth(1).unwrap() });
    let join_path = s.url(&format!("/api/games/{id}/join"));
    let r = guest.send("POST", &join_path, Some(&join));
    assert_eq!((r.status, r.body.contains("sign_in_required")), (403, true), "{}", r.body);
    let r = a.send("POST", &join_path, Some(&join));
    assert_eq!((r.status, r.body.contains("same_player")), (422, true), "{}", r.body);
    let r = b.send("POST", &join_path, Some(&join));
    assert_eq!(r.status, 200, "{}", r.body);
    let b_token = serde_json::from_str::<Value>(&r.body).unwrap()["token"].as_str().unwrap().to_owned();
    let st = s.state(&id);
    assert_eq!(
        (&st["rated"], &st["south"]["player_id"], &st["north"]["player_id"]),
        (&json!(true), &json!(a_id), &json!(b_id))
    );

    let mv = st["legal_moves"][0].as_str().unwrap();
    assert_eq!(s.play(&id, &a_token, mv, 0).status, 200);
    assert_eq!(s.post(&format!("/api/games/{id}/resign"), Some(&b_token), &json!({})).status, 200);
    s.synced(&id);

    // Glicko-2 from two fresh ratings, computed by the same module the paper's example checks.
    use service::rating::{Game as Rated, Rating};
    let fresh = Rating::default();
    let win = fresh.update(&[Rated { opponent: fresh, score: 1.0 }]);
    let loss = fresh.update(&[Rated { opponent: fresh, score: 0.0 }]);
    let row = |p: &str| {
        s.d1(&format!("SELECT rating, rating_dev, volatility FROM players WHERE id = '{p}'"))[0].clone()
    };
    for (p, want) in [(&a_id, win), (&b_id, loss)] {
        let r = row(p);
        assert!((r["rating"].as_f64().unwrap() - want.rating).abs() < 1e-6, "{r} vs {want:?}");
        assert!((r["rating_dev"].as_f64().unwrap() - want.deviation).abs() < 1e-6, "{r} vs {want:?}");
        assert!((r["volatility"].as_f64().unwrap() - want.volatility).abs() < 1e-9, "{r} vs {want:?}");
    }
    assert!(win.rating > 1600.0 && loss.rating < 1400.0);
    assert_eq!(s.d1(&format!("SELECT COUNT(*) AS n FROM rated_games WHERE game_id = '{id}'"))[0]["n"], 1);

    // The leaderboard is global: these two are on it, best first, and the guest (never
    // rated) is not.
    let lb = get(&mut guest, s, "/api/leaderboard");
    let listed = lb["players"].as_array().unwrap();
    let at = |p: &str| listed.iter().position(|x| x["id"] == p);
    let (a_at, b_at) = (at(&a_id).unwrap(), at(&b_id).unwrap());
    assert!(a_at < b_at, "best first: {lb}");
    assert_eq!(at(guest.me(s)["id"].as_str().unwrap()), None, "only rated players");
    assert_eq!(listed[a_at]["name"], "Player 1");
    assert!(listed[a_at]["badges"].is_array());

    let info = get(&mut guest, s, &format!("/api/players/{a_id}"));
    assert_eq!((info["games"]["played"].as_u64(), info["games"]["won"].as_u64()), (Some(1), Some(1)));
    assert_eq!(info["rating"]["rating"], win.rating.round());
    assert_eq!(info["by_faction"], json!([{"faction": "clockwork", "played": 1, "won": 1}]));
    assert_eq!(
        info["by_matchup"],
        json!([{"south": "clockwork", "north": "blades", "side": "south", "played": 1, "won": 1}])
    );
    assert_eq!(
        (info["recent"][0]["id"].as_str(), &info["recent"][0]["rated"]),
        (Some(id.as_str()), &json!(true))
    );
    let rec = s.get(info["recent"][0]["record"].as_str().unwrap());
    assert_eq!(rec.status, 200);
    assert!(rec.text.contains("south wins: resignation"), "{}", rec.text);
    assert_eq!(s.get("/api/players/0123456789abcdef01234567").status, 404);

    // An unrated link game between two guests counts in the statistics too; a game in
    // which no move was played does not.
    let (g2, south, _north) = s.link_game("axiom", "blades", None);
    let mv = s.state(&g2)["legal_moves"][0].as_str().unwrap().to_owned();
    assert_eq!(s.play(&g2, &south, &mv, 0).status, 200);
    assert_eq!(s.post(&format!("/api/games/{g2}/resign"), Some(&south), &json!({})).status, 200);
    let (g3, south3, _) = s.link_game("axiom", "blades", None);
    assert_eq!(s.post(&format!("/api/games/{g3}/resign"), Some(&south3), &json!({})).status, 200);
    s.synced(&g2);
    s.synced(&g3);
    let after = matchups(&mut guest);
    assert_eq!((before.len(), after.len()), (9, 9));
    // (games, South wins, North wins, draws) added to a match-up since the start.
    let added = |so: &str, no: &str| {
        let count = |m: &[Value], k: &str| {
            m.iter().find(|x| x["south"] == so && x["north"] == no).unwrap()[k].as_u64().unwrap()
        };
        let d = |k: &str| count(&after, k) - count(&before, k);
        (d("games"), d("south_wins"), d("north_wins"), d("draws"))
    };
    assert_eq!(added("clockwork", "blades"), (1, 1, 0, 0));
    assert_eq!(added("axiom", "blades"), (1, 0, 1, 0), "the game without a move does not count");
    assert_eq!(added("axiom", "axiom"), (0, 0, 0, 0));
    // Ratings were applied once: the players' rows are as computed above.
    assert!((row(&a_id)["rating"].as_f64().unwrap() - win.rating).abs() < 1e-6);
}

/// Player Info a page at a time (issue 30: it read every finished game of the player):
/// `limit` games, latest first, and `next` to ask for the older ones; the totals on every
/// page; a cursor or limit the route did not give is a 400 `invalid_page`.
#[test]
fn player_info_pages_its_finished_games_and_refuses_a_bad_page() {
    let s = shared();
    let mut b = Browser::new();
    let pid = b.me(s)["id"].as_str().unwrap().to_owned();
    let mut ids = Vec::new();
    for _ in 0..3 {
        let body = json!({"south": "axiom", "north": "clockwork", "mode": "ai", "seat": "south", "level": 1});
        let r = b.send("POST", &s.url("/api/games"), Some(&body));
        assert_eq!(r.status, 201, "{}", r.body);
        let c: Value = serde_json::from_str(&r.body).unwrap();
        let id = c["id"].as_str().unwrap().to_owned();
        assert_eq!(s.post(&format!("/api/games/{id}/resign"), c["token"].as_str(), &json!({})).status, 200);
        s.synced(&id);
        ids.push(id);
    }
    let page = |b: &mut Browser, q: &str| get(b, s, &format!("/api/players/{pid}?{q}"));
    let first = page(&mut b, "limit=2");
    let listed = |p: &Value| -> Vec<String> {
        p["recent"].as_array().unwrap().iter().map(|g| g["id"].as_str().unwrap().to_owned()).collect()
    };
    assert_eq!(listed(&first), [ids[2].clone(), ids[1].clone()], "latest first");
    assert_eq!((first["games"]["played"].as_u64(), first["games"]["won"].as_u64()), (Some(3), Some(0)));
    let next = first["next"].as_str().unwrap().to_owned();
    let last = page(&mut b, &format!("limit=2&before={next}"));
    assert_eq!(listed(&last), [ids[0].clone()]);
    assert_eq!((last["next"].clone(), last["games"].clone()), (Value::Null, first["games"].clone()));
    assert_eq!(listed(&page(&mut b, "")).len(), 3, "ten by default");

    for q in [
        "limit=0".to_owned(),
        "limit=51".to_owned(),
        "limit=two".to_owned(),
        "before=nope".to_owned(),
        format!("before={}", next.replace('_', "-")),
        format!("before={next}&before={next}"),
    ] {
        let r = b.send("GET", &s.url(&format!("/api/players/{pid}?{q}")), None);
        assert_eq!((r.status, r.body.contains("\"invalid_page\"")), (400, true), "{q}: {}", r.body);
    }
}

/// Learn the pieces' progress on the account (issue 31, item 3): without a session 401
/// (and no guest made); a guest's completion recorded once and listed; an unknown lesson
/// refused with nothing stored; and once signed in with Discord, the same list on a second
/// browser signed in to the same account.
#[test]
fn lesson_progress_is_kept_on_the_account_and_seen_from_another_browser() {
    let s = shared();
    let mut a = Browser::new();
    for (method, path) in [("GET", "/api/me/lessons"), ("PUT", "/api/me/lessons/cog")] {
        let r = a.send(method, &s.url(path), None);
        assert_eq!(r.status, 401, "{method} {path}: {}", r.body);
        assert!(r.body.contains("unauthorized"), "{}", r.body);
        assert!(a.cookie.is_none(), "no guest is made for it");
    }

    let id = a.me(s)["id"].as_str().unwrap().to_owned();
    assert_eq!(get(&mut a, s, "/api/me/lessons"), json!({ "completed": [] }));
    for _ in 0..2 {
        let r = a.send("PUT", &s.url("/api/me/lessons/sickle"), None);
        assert_eq!(
            (r.status, serde_json::from_str::<Value>(&r.body).unwrap()),
            (200, json!({ "completed": ["sickle"] }))
        );
    }
    let r = a.send("PUT", &s.url("/api/me/lessons/no-such-lesson"), None);
    assert_eq!(r.status, 404, "{}", r.body);
    assert!(r.body.contains("no lesson 'no-such-lesson'"), "{}", r.body);
    let rows = s.d1(&format!("SELECT lesson_id FROM lesson_progress WHERE player_id = '{id}'"));
    assert_eq!(rows.len(), 1, "recorded once, the unknown lesson not at all: {rows:?}");

    // Signed in with Discord (the guest becomes the account), then a second browser.
    assert_eq!(a.sign_in(s, "4101", false).status, 302);
    assert_eq!(a.send("PUT", &s.url("/api/me/lessons/cog"), None).status, 200);
    let mut b = Browser::new();
    assert_eq!(b.sign_in(s, "4101", false).status, 302);
    assert_eq!(get(&mut b, s, "/api/me/lessons"), json!({ "completed": ["cog", "sickle"] }));
}
