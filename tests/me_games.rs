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
