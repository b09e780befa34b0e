//! Games on every device, on the real runtime: a game created in one browser (cookie
//! jar) is listed and playable from another signed in to the same account (through the
//! local stand-in Discord), by session, without the seat token; the seat token still
//! works; other sessions are refused.

#![allow(clippy::unwrap_used)] // tests: a panic is the failure report

use serde_json::{json, Value};
use support::discord::{server_with, stand_in, Browser};
use support::{legal, Server};

fn games(b: &mut Browser, s: &Server) -> Vec<Value> {
    let r = b.send("GET", &s.url("/api/me/games"), None);
    assert_eq!(r.status, 200, "{}", r.body);
    let v: Value = serde_json::from_str(&r.body).unwrap();
    v["games"].as_array().unwrap().clone()
}

fn find<'a>(list: &'a [Value], id: &str) -> &'a Value {
    list.iter().find(|g| g["id"] == id).unwrap_or_else(|| panic!("{id} not listed: {list:?}"))
}

fn post(b: &mut Browser, s: &Server, path: &str, body: Value) -> (u16, Value) {
    let r = b.send("POST", &s.url(path), Some(&body));
    (r.status, serde_json::from_str(&r.body).unwrap_or(Value::Null))
}

#[test]
fn a_game_created_in_one_browser_is_listed_and_playable_in_another() {
    let (discord, _) = stand_in();
    let s = server_with(&discord, &[("AI_ENGINE", "random")]);

    // Browser A signs in first; browser B plays an AI game as a guest, then signs in to
    // the same account (its guest is merged into A's player).
    let mut a = Browser::new();
    a.me(&s);
    assert_eq!(a.sign_in(&s, "777", false).status, 302);
    let mut b = Browser::new();
    let guest_b = b.me(&s)["id"].as_str().unwrap().to_owned();
    let (st, ai) = post(
        &mut b,
        &s,
        "/api/games",
        json!({"south": "clockwork", "north": "axiom", "mode": "ai", "seat": "south", "level": 1}),
    );
    assert_eq!(st, 201, "{ai}");
    let ai_id = ai["id"].as_str().unwrap().to_owned();
    assert_eq!(ai["state"]["south"]["player_id"], guest_b);
    assert_eq!(b.sign_in(&s, "777", false).status, 302);
    let player = a.me(&s)["id"].as_str().unwrap().to_owned();
    assert_eq!(b.me(&s)["id"], player, "one account on both browsers");

    // A creates a correspondence link game; a guest with no session joins it.
    let (st, link) = post(
        &mut a,
        &s,
        "/api/games",
        json!({"south": "blades", "north": "clockwork", "mode": "link", "seat": "south", "days_per_move": 3}),
    );
    assert_eq!(st, 201, "{link}");
    let id = link["id"].as_str().unwrap().to_owned();
    let south_token = link["token"].as_str().unwrap().to_owned();
    let invite = link["invite_url"].as_str().unwrap().split("#invite=").nth(1).unwrap().to_owned();
    let listed = games(&mut b, &s);
    assert_eq!(find(&listed, &id)["standing"], "waiting", "{listed:?}");
    let j = s.post(&format!("/api/games/{id}/join"), None, &json!({ "invite": invite }));
    assert_eq!(j.status, 200, "{}", j.text);
    let north_token = j.json()["token"].as_str().unwrap().to_owned();

    // Both browsers list it: South's move, with the deadline; B lists the AI game B
    // started as a guest too.
    for browser in [&mut a, &mut b] {
        let listed = games(browser, &s);
        let g = find(&listed, &id);
        assert_eq!((g["side"].as_str(), g["standing"].as_str()), (Some("south"), Some("your_turn")), "{g}");
        assert_eq!(g["your_turn"], true);
        assert!(g["deadline"].as_i64().unwrap() > 0, "{g}");
        assert_eq!(g["days_per_move"], 3);
        assert_eq!(find(&listed, &ai_id)["standing"], "your_turn");
    }

    // B moves for South by session, without the seat token.
    let state = s.state(&id);
    let mv = legal(&state)[0].clone();
    let (st, r) = post(&mut b, &s, &format!("/api/games/{id}/moves"), json!({"move": mv, "ply": 0}));
    assert_eq!(st, 200, "{r}");
    assert_eq!(r["state"]["ply"], 1);
    let listed = games(&mut a, &s);
    assert_eq!(find(&listed, &id)["standing"], "their_turn", "{listed:?}");
    // Not South's turn now: the session gets the same 409 a token would.
    let (st, r) = post(&mut a, &s, &format!("/api/games/{id}/moves"), json!({"move": mv, "ply": 1}));
    assert_eq!((st, r["error"].as_str()), (409, Some("not_your_turn")), "{r}");

    // North answers with its token; the list follows; A moves by session.
    let state = s.state(&id);
    let r = s.play(&id, &north_token, &legal(&state)[0], 1);
    assert_eq!(r.status, 200, "{}", r.text);
    let listed = games(&mut a, &s);
    assert_eq!(find(&listed, &id)["standing"], "your_turn");
    assert_eq!(listed[0]["id"], id, "the timed game whose move it is comes first: {listed:?}");
    let state = s.state(&id);
    let (st, r) =
        post(&mut a, &s, &format!("/api/games/{id}/moves"), json!({"move": legal(&state)[0], "ply": 2}));
    assert_eq!(st, 200, "{r}");

    // The seat token still works (scripts, guests).
    let state = s.state(&id);
    let r = s.play(&id, &north_token, &legal(&state)[0], 3);
    assert_eq!(r.status, 200, "{}", r.text);
    let state = s.state(&id);
    let r = s.play(&id, &south_token, &legal(&state)[0], 4);
    assert_eq!(r.status, 200, "{}", r.text);

    // A holds the AI game's seat through B's merged guest: A plays it by session.
    let state = s.state(&ai_id);
    let (st, r) =
        post(&mut a, &s, &format!("/api/games/{ai_id}/moves"), json!({"move": legal(&state)[0], "ply": 0}));
    assert_eq!(st, 200, "{r}");
    assert_eq!(r["state"]["ply"], 2, "the AI answered");

    // Another session holds no seat: 403; no session and no token: 401. A client cannot
    // claim a player with the internal headers.
    let mut c = Browser::new();
    c.me(&s);
    let state = s.state(&id);
    let ply = state["ply"].as_u64().unwrap();
    let (st, r) =
        post(&mut c, &s, &format!("/api/games/{id}/moves"), json!({"move": legal(&state)[0], "ply": ply}));
    assert_eq!((st, r["error"].as_str()), (403, Some("forbidden")), "{r}");
    let (st, _) = post(&mut c, &s, &format!("/api/games/{id}/resign"), json!({}));
    assert_eq!(st, 403);
    let r = s.post(&format!("/api/games/{id}/resign"), None, &json!({}));
    assert_eq!(r.status, 401, "{}", r.text);
    let forged = support::agent()
        .post(&s.url(&format!("/api/games/{id}/resign")))
        .header("Content-Type", "application/json")
        .header("X-Iron-Player", &player)
        .header("X-Iron-Player-Aliases", &guest_b)
        .send("{}")
        .unwrap();
    assert_eq!(forged.status().as_u16(), 401);
    assert!(games(&mut c, &s).is_empty());

    // Resigning by session ends it; it stays listed as finished, after the ongoing ones.
    let (st, r) = post(&mut b, &s, &format!("/api/games/{id}/resign"), json!({}));
    assert_eq!(st, 200, "{r}");
    assert_eq!(r["state"]["result"]["winner"], "north");
    let listed = games(&mut a, &s);
    let g = find(&listed, &id);
    assert_eq!((g["standing"].as_str(), g["winner"].as_str()), (Some("finished"), Some("north")), "{g}");
    assert_eq!(listed.last().unwrap()["id"], id);
}

/// Every row of every D1 table, as text: what a write anywhere would change.
fn d1_digest(s: &Server) -> String {
    let tables = s.d1("SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE '\\_%' ESCAPE '\\' AND name NOT LIKE 'sqlite%' AND name != 'd1_migrations' ORDER BY name");
    tables
        .iter()
        .map(|t| {
            let name = t["name"].as_str().unwrap();
            // Sorted here, not by rowid: a WITHOUT ROWID table has none.
            let mut rows: Vec<String> =
                s.d1(&format!("SELECT * FROM {name}")).iter().map(Value::to_string).collect();
            rows.sort();
            format!("{name}: {rows:?}")
        })
        .collect::<Vec<_>>()
        .join("\n")
}

/// Issue 30: every move of a link game rewrote its `game_status` row in D1 (the whole
/// service's one writer). Moves, a draw offer and its decline now write only the game's
/// object; My games still shows whose turn it is, asked of the object.
#[test]
fn moves_a_draw_offer_and_its_decline_write_nothing_to_d1() {
    let s = Server::start(&[]);
    let mut a = Browser::new();
    a.me(&s);
    let (st, link) = post(
        &mut a,
        &s,
        "/api/games",
        json!({"south": "blades", "north": "axiom", "mode": "link", "seat": "south"}),
    );
    assert_eq!(st, 201, "{link}");
    let id = link["id"].as_str().unwrap().to_owned();
    let south = link["token"].as_str().unwrap().to_owned();
    let invite = link["invite_url"].as_str().unwrap().split("#invite=").nth(1).unwrap().to_owned();
    let j = s.post(&format!("/api/games/{id}/join"), None, &json!({ "invite": invite }));
    assert_eq!(j.status, 200, "{}", j.text);
    let north = j.json()["token"].as_str().unwrap().to_owned();
    // The join's writes are done before its answer: D1 is settled.
    let before = d1_digest(&s);
    assert!(before.contains(&id), "the game is indexed");
    let tokens = [&south, &north];
    for ply in 0..4u64 {
        let state = s.state(&id);
        let r = s.play(&id, tokens[ply as usize % 2], &legal(&state)[0], ply);
        assert_eq!(r.status, 200, "{}", r.text);
    }
    let offer = s.post(&format!("/api/games/{id}/draw"), Some(&south), &json!({ "action": "offer" }));
    assert_eq!(offer.status, 200, "{}", offer.text);
    assert_eq!(find(&games(&mut a, &s), &id)["draw_offer"], "south", "the offer shows in My games");
    let decline = s.post(&format!("/api/games/{id}/draw"), Some(&north), &json!({ "action": "decline" }));
    assert_eq!(decline.status, 200, "{}", decline.text);
    assert_eq!(d1_digest(&s), before, "a move, a draw offer or its decline wrote D1");
    // My games reads whose turn it is from the game's object.
    let g = &find(&games(&mut a, &s), &id).clone();
    assert_eq!((g["standing"].as_str(), g["turn"].as_str()), (Some("your_turn"), Some("south")), "{g}");
    assert!(g["draw_offer"].is_null(), "declined: {g}");
}

/// My games on a second device after a crash between the game's save and D1 (issue 30:
/// moves write only the game's object; its index row is owed through the outbox). The
/// runtime is killed while nothing of the game has reached D1 (`FAULT_D1 = crash` skips
/// the writes, creation and join included); restarted, the game's own alarm writes what it
/// owes, and the other device lists the game with the moves made meanwhile: whose turn it
/// is, then its end.
#[test]
fn my_games_on_a_second_device_survives_a_crash_between_the_games_save_and_d1() {
    let (discord, _) = stand_in();
    let mut s =
        server_with(&discord, &[("AI_ENGINE", "random"), ("FAULT_D1", "crash"), ("D1_RETRY_SECONDS", "1")]);
    let (mut a, mut b) = (Browser::new(), Browser::new());
    for device in [&mut a, &mut b] {
        device.me(&s);
        assert_eq!(device.sign_in(&s, "4242", false).status, 302);
    }
    assert_eq!(a.me(&s)["id"], b.me(&s)["id"], "one account on both devices");
    let (st, link) = post(
        &mut a,
        &s,
        "/api/games",
        json!({"south": "axiom", "north": "clockwork", "mode": "link", "seat": "south", "days_per_move": 2}),
    );
    assert_eq!(st, 201, "{link}");
    let id = link["id"].as_str().unwrap().to_owned();
    let invite = link["invite_url"].as_str().unwrap().split("#invite=").nth(1).unwrap().to_owned();
    let j = s.post(&format!("/api/games/{id}/join"), None, &json!({ "invite": invite }));
    assert_eq!(j.status, 200, "{}", j.text);
    let north = j.json()["token"].as_str().unwrap().to_owned();
    // South by session on device A, North by token: South to move at ply 2.
    let (st, r) = post(
        &mut a,
        &s,
        &format!("/api/games/{id}/moves"),
        json!({"move": legal(&s.state(&id))[0], "ply": 0}),
    );
    assert_eq!(st, 200, "{r}");
    assert_eq!(s.play(&id, &north, &legal(&s.state(&id))[0], 1).status, 200);
    assert_eq!(s.state(&id)["synced"], false, "nothing reached D1");
    assert!(s.d1(&format!("SELECT id FROM games WHERE id = '{id}'")).is_empty());

    s.set_var("FAULT_D1", None);
    s.restart();
    // No request touches the game: its alarm delivers what it owes.
    support::poll("the index row after the restart", 90, || {
        let listed = games(&mut b, &s);
        listed.iter().find(|g| g["id"] == id).cloned()
    });
    let listed = games(&mut b, &s);
    let g = find(&listed, &id);
    assert_eq!((g["side"].as_str(), g["standing"].as_str()), (Some("south"), Some("your_turn")), "{g}");
    assert!(g["deadline"].as_i64().unwrap() > 0, "{g}");
    // A move made on device B shows on device A; then North resigns: finished on both.
    let (st, r) = post(
        &mut b,
        &s,
        &format!("/api/games/{id}/moves"),
        json!({"move": legal(&s.state(&id))[0], "ply": 2}),
    );
    assert_eq!(st, 200, "{r}");
    assert_eq!(find(&games(&mut a, &s), &id)["standing"], "their_turn");
    assert_eq!(s.post(&format!("/api/games/{id}/resign"), Some(&north), &json!({})).status, 200);
    support::poll("the result in My games", 30, || {
        let g = find(&games(&mut a, &s), &id).clone();
        (g["standing"] == "finished").then_some(g)
    });
    assert_eq!(find(&games(&mut b, &s), &id)["winner"], "south");
}
