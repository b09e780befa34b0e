//! Rematch on the real runtime: offered, declined, offered again, accepted; the new game
//! has the same match-up with the seats swapped, each player's token and account moved
//! to the other seat; against the AI one request starts it.

#![allow(clippy::unwrap_used)] // tests: a panic is the failure report

use serde_json::{json, Value};
use support::discord::Browser;
use support::{legal, Server};

/// The binary's shared runtime (see `support::shared`), with the random AI (the link game
/// has no AI to configure).
fn shared() -> &'static Server {
    support::shared(&[("AI_ENGINE", "random")])
}

fn post(b: &mut Browser, s: &Server, path: &str, body: Value) -> (u16, Value) {
    let r = b.send("POST", &s.url(path), Some(&body));
    (r.status, serde_json::from_str(&r.body).unwrap_or(Value::Null))
}

#[test]
fn a_link_game_rematch_is_offered_declined_accepted_with_seats_swapped() {
    let s = shared();
    let (mut a, mut b) = (Browser::new(), Browser::new());
    let pa = a.me(s)["id"].as_str().unwrap().to_owned();
    let pb = b.me(s)["id"].as_str().unwrap().to_owned();
    let (st, c) = post(
        &mut a,
        s,
        "/api/games",
        json!({"south": "clockwork", "north": "axiom", "mode": "link", "seat": "south", "days_per_move": 2}),
    );
    assert_eq!(st, 201, "{c}");
    let id = c["id"].as_str().unwrap().to_owned();
    let a_token = c["token"].as_str().unwrap().to_owned();
    let invite = c["invite_url"].as_str().unwrap().split("#invite=").nth(1).unwrap().to_owned();
    let (st, j) = post(&mut b, s, &format!("/api/games/{id}/join"), json!({ "invite": invite }));
    assert_eq!(st, 200, "{j}");
    let b_token = j["token"].as_str().unwrap().to_owned();
    let rematch = format!("/api/games/{id}/rematch");

    // Not before the game is over; not without a seat.
    let r = s.post(&rematch, Some(&a_token), &json!({"action": "offer"}));
    assert_eq!((r.status, r.error()), (409, "game_not_over".into()), "{}", r.text);
    let mv = legal(&s.state(&id))[0].clone();
    assert_eq!(s.play(&id, &a_token, &mv, 0).status, 200);
    assert_eq!(s.post(&format!("/api/games/{id}/resign"), Some(&a_token), &json!({})).status, 200);
    assert_eq!(s.post(&rematch, None, &json!({"action": "offer"})).status, 401);
    assert_eq!(s.post(&rematch, Some("not-a-seat"), &json!({"action": "offer"})).status, 403);
    let r = s.post(&rematch, Some(&a_token), &json!({"action": "dance"}));
    assert_eq!(r.status, 400, "{}", r.text);
    let r = s.post(&rematch, Some(&a_token), &json!({"action": "accept"}));
    assert_eq!((r.status, r.error()), (409, "no_rematch_offer".into()), "{}", r.text);

    // B (North) offers by session; the offer is in the public state; a second offer is 409.
    let (st, r) = post(&mut b, s, &rematch, json!({"action": "offer"}));
    assert_eq!(st, 200, "{r}");
    assert_eq!(s.state(&id)["rematch"]["offered_by"], "north");
    let (st, r) = post(&mut b, s, &rematch, json!({"action": "offer"}));
    assert_eq!((st, r["error"].as_str()), (409, Some("rematch_already_offered")), "{r}");
    // A declines; B offers again; A accepts with the seat token.
    let r = s.post(&rematch, Some(&a_token), &json!({"action": "decline"}));
    assert_eq!(r.status, 200, "{}", r.text);
    let st_after = s.state(&id);
    assert_eq!(
        (st_after["rematch"]["offered_by"].clone(), st_after["rematch"]["declined_by"].as_str()),
        (Value::Null, Some("south"))
    );
    assert_eq!(post(&mut b, s, &rematch, json!({"action": "offer"})).0, 200);
    let r = s.post(&rematch, Some(&a_token), &json!({"action": "accept"}));
    assert_eq!(r.status, 200, "{}", r.text);
    let accepted = r.json();
    let new_id = accepted["game"].as_str().unwrap().to_owned();
    assert_ne!(new_id, id);
    assert_eq!(accepted["seat"], "north", "A was South, now North");
    assert_eq!(s.state(&id)["rematch"]["game"], new_id.as_str(), "the old game points to the new one");
    // A repeated accept (or B's offer now) answers the same game.
    let again = s.post(&rematch, Some(&a_token), &json!({"action": "accept"}));
    assert_eq!(again.json()["game"], new_id.as_str());
    let (_, r) = post(&mut b, s, &rematch, json!({"action": "offer"}));
    assert_eq!(r["game"], new_id.as_str());

    // The new game: same match-up, seats and accounts swapped, both seats taken, timed.
    let g = s.state(&new_id);
    assert_eq!(
        (g["south"]["faction"].as_str(), g["north"]["faction"].as_str()),
        (Some("clockwork"), Some("axiom"))
    );
    assert_eq!(
        (g["south"]["player_id"].as_str(), g["north"]["player_id"].as_str()),
        (Some(pb.as_str()), Some(pa.as_str()))
    );
    assert_eq!((g["status"].as_str(), g["mode"].as_str()), (Some("ongoing"), Some("link")));
    assert!(g["deadline"].as_i64().is_some(), "{g}");
    assert_eq!(g["days_per_move"], 2);
    // Each token now holds the other side: B's (old North) moves first as South.
    let mv = legal(&g)[0].clone();
    let r = s.play(&new_id, &a_token, &mv, 0);
    assert_eq!((r.status, r.error()), (409, "not_your_turn".into()), "{}", r.text);
    assert_eq!(s.play(&new_id, &b_token, &mv, 0).status, 200);
    // And by session: A moves for North.
    let g = s.state(&new_id);
    let (st, r) =
        post(&mut a, s, &format!("/api/games/{new_id}/moves"), json!({"move": legal(&g)[0], "ply": 1}));
    assert_eq!(st, 200, "{r}");
}

#[test]
fn an_ai_game_rematch_starts_at_once_with_the_sides_swapped() {
    let s = shared();
    let c =
        s.create(json!({"south": "blades", "north": "clockwork", "mode": "ai", "seat": "south", "level": 2}));
    let id = c["id"].as_str().unwrap().to_owned();
    let token = c["token"].as_str().unwrap().to_owned();
    assert_eq!(s.post(&format!("/api/games/{id}/resign"), Some(&token), &json!({})).status, 200);
    let r = s.post(&format!("/api/games/{id}/rematch"), Some(&token), &json!({"action": "decline"}));
    assert_eq!(r.status, 422, "{}", r.text);
    let r = s.post(&format!("/api/games/{id}/rematch"), Some(&token), &json!({"action": "offer"}));
    assert_eq!(r.status, 200, "{}", r.text);
    let new_id = r.json()["game"].as_str().unwrap().to_owned();
    assert_eq!(r.json()["seat"], "north");
    let g = s.state(&new_id);
    assert_eq!((g["south"]["player"].as_str(), g["north"]["player"].as_str()), (Some("ai"), Some("human")));
    assert_eq!((g["south"]["faction"].as_str(), g["level"].as_u64()), (Some("blades"), Some(2)));
    assert_eq!(g["ply"], 1, "the AI, now South, moved first");
    let r = s.play(&new_id, &token, &legal(&g)[0], 1);
    assert_eq!(r.status, 200, "{}", r.text);
    assert_eq!(r.json()["state"]["ply"], 3);
}

/// Regression: a rematch request that died between saving its reservation and making the
/// new game (an evicted isolate, a deploy) left the rematch agreed with a game that did
/// not exist, for good: every later offer or accept answered with that id, which 404s.
/// Now each later offer or accept makes the game with the same id, or finds it made.
#[test]
fn a_rematch_whose_request_died_before_its_game_was_made_is_made_by_the_next_request() {
    let mut s = Server::start(&[("AI_ENGINE", "random"), ("FAULT_REMATCH", "crash")]);
    let c =
        s.create(json!({"south": "blades", "north": "clockwork", "mode": "ai", "seat": "south", "level": 2}));
    let id = c["id"].as_str().unwrap().to_owned();
    let token = c["token"].as_str().unwrap().to_owned();
    assert_eq!(s.post(&format!("/api/games/{id}/resign"), Some(&token), &json!({})).status, 200);
    let offer =
        |s: &Server| s.post(&format!("/api/games/{id}/rematch"), Some(&token), &json!({"action": "offer"}));
    let r = offer(&s);
    assert_eq!((r.status, r.error().as_str()), (503, "rematch_failed"), "{}", r.text);
    let reserved = s.state(&id)["rematch"]["game"].as_str().unwrap().to_owned();
    assert_eq!(s.get(&format!("/api/games/{reserved}")).status, 404, "reserved, not made");

    s.set_var("FAULT_REMATCH", None);
    s.restart();
    let r = offer(&s);
    assert_eq!(r.status, 200, "{}", r.text);
    assert_eq!(r.json()["game"], reserved.as_str(), "the reserved id, made now");
    let g = s.state(&reserved);
    assert_eq!((g["south"]["player"].as_str(), g["north"]["player"].as_str()), (Some("ai"), Some("human")));
    assert_eq!(g["ply"], 1, "the AI, now South, moved first");
    // Asked again: the same game as it is, nothing made or moved twice.
    let r = offer(&s);
    assert_eq!((r.status, r.json()["game"].as_str()), (200, Some(reserved.as_str())), "{}", r.text);
    assert_eq!(s.state(&reserved)["ply"], 1);
    let r = s.play(&reserved, &token, &legal(&g)[0], 1);
    assert_eq!(r.status, 200, "{}", r.text);
}
