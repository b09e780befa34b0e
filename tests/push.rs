//! Web Push on the real runtime against a local stand-in push service that checks each
//! push's VAPID JWT and decrypts its `aes128gcm` payload with the subscription's private
//! keys: your turn in a correspondence game (also when the opponent joins), a draw offer,
//! the end of the game; a subscription answered 410 Gone is removed; unsubscribe.

#![allow(clippy::unwrap_used)] // tests: a panic is the failure report

use serde_json::{json, Value};
use support::discord::Browser;
use support::push::{key_pair, PushService};
use support::{legal, Server};

fn post(b: &mut Browser, s: &Server, path: &str, body: Value) -> (u16, Value) {
    let r = b.send("POST", &s.url(path), Some(&body));
    (r.status, serde_json::from_str(&r.body).unwrap_or(Value::Null))
}

fn subscriptions(s: &Server, endpoint: &str) -> u64 {
    let sql = format!("SELECT COUNT(*) AS n FROM push_subscriptions WHERE endpoint = '{endpoint}'");
    s.d1(&sql)[0]["n"].as_u64().unwrap()
}

/// A correspondence link game (a day per move) made by `creator`, South: its id and invite.
fn correspondence_game(creator: &mut Browser, s: &Server) -> (String, String) {
    let (st, c) = post(
        creator,
        s,
        "/api/games",
        json!({"south": "axiom", "north": "blades", "mode": "link", "seat": "south", "days_per_move": 1}),
    );
    assert_eq!(st, 201, "{c}");
    let id = c["id"].as_str().unwrap().to_owned();
    let invite = c["invite_url"].as_str().unwrap().split("#invite=").nth(1).unwrap().to_owned();
    (id, invite)
}

#[test]
fn pushes_are_signed_encrypted_sent_on_turns_offers_and_results_and_410_removes() {
    let push = PushService::start();
    // A key made for this test only (never a real secret).
    let (vapid_private, vapid_public) = key_pair("iron-arena test VAPID key");
    let s = Server::start(&[
        ("VAPID_PRIVATE_KEY", vapid_private.as_str()),
        ("VAPID_SUBJECT", "mailto:test@iron-arena.example"),
        ("PUSH_ALLOW_HTTP", "on"),
    ]);
    let key = s.get("/api/push/key").json();
    assert_eq!(
        (key["available"].as_bool(), key["public_key"].as_str()),
        (Some(true), Some(vapid_public.as_str()))
    );

    let (mut a, mut b) = (Browser::new(), Browser::new());
    a.me(&s);
    b.me(&s);
    let (sub_a, sub_b) = (push.subscription("a"), push.subscription("b"));
    let mut bad = sub_a.clone();
    bad["keys"]["auth"] = json!("c2hvcnQ");
    let (st, r) = post(&mut a, &s, "/api/me/push", json!({ "subscription": bad }));
    assert_eq!((st, r["error"].as_str()), (422, Some("invalid_subscription")), "{r}");
    assert_eq!(post(&mut a, &s, "/api/me/push", json!({ "subscription": sub_a })).0, 200);
    assert_eq!(post(&mut b, &s, "/api/me/push", json!({ "subscription": sub_b })).0, 200);

    // A correspondence game: when B joins, it is A's (South's) move.
    let (id, invite) = correspondence_game(&mut a, &s);
    assert_eq!(post(&mut b, &s, &format!("/api/games/{id}/join"), json!({ "invite": invite })).0, 200);
    let r = push.wait_for("a", "your_turn", &id);
    assert_eq!(r.vapid_key, vapid_public);
    assert_eq!(r.subject, "mailto:test@iron-arena.example");
    assert_eq!(r.payload["url"], format!("/g/{id}"));
    assert!(r.payload["body"].as_str().unwrap().contains("Axiom vs Blades"), "{:?}", r.payload);

    // A moves: B's turn.
    let state = s.state(&id);
    let (st, _) =
        post(&mut a, &s, &format!("/api/games/{id}/moves"), json!({"move": legal(&state)[0], "ply": 0}));
    assert_eq!(st, 200);
    push.wait_for("b", "your_turn", &id);
    // B offers a draw: A hears of it.
    assert_eq!(post(&mut b, &s, &format!("/api/games/{id}/draw"), json!({"action": "offer"})).0, 200);
    push.wait_for("a", "draw_offer", &id);

    // A's browser has gone away (410): A resigns; both are told; A's subscription is removed.
    push.set_gone("a");
    assert_eq!(post(&mut a, &s, &format!("/api/games/{id}/resign"), json!({})).0, 200);
    let over = push.wait_for("b", "game_over", &id);
    assert!(over.payload["body"].as_str().unwrap().contains("north wins: resignation"), "{:?}", over.payload);
    let gone = push.wait_for("a", "game_over", &id);
    assert_eq!(gone.status, 410);
    let endpoint_a = sub_a["endpoint"].as_str().unwrap();
    support::poll("the 410 subscription to be removed", 20, || {
        (subscriptions(&s, endpoint_a) == 0).then_some(())
    });
    // Each event once: one your_turn for A, one for B, one draw offer, two results.
    let kinds: Vec<String> = push
        .received()
        .iter()
        .map(|r| format!("{}:{}", r.subscription, r.payload["kind"].as_str().unwrap()))
        .collect();
    let mut sorted = kinds.clone();
    sorted.sort();
    assert_eq!(
        sorted,
        ["a:draw_offer", "a:game_over", "a:your_turn", "b:game_over", "b:your_turn"],
        "{kinds:?}"
    );
    assert!(push.errors().is_empty(), "{:?}", push.errors());

    // Unsubscribe: only the player's own subscription.
    let endpoint_b = sub_b["endpoint"].as_str().unwrap();
    let (_, r) = post(&mut a, &s, "/api/me/push/unsubscribe", json!({ "endpoint": endpoint_b }));
    assert_eq!(r["unsubscribed"], false);
    let (_, r) = post(&mut b, &s, "/api/me/push/unsubscribe", json!({ "endpoint": endpoint_b }));
    assert_eq!(r["unsubscribed"], true);
    assert_eq!(subscriptions(&s, endpoint_b), 0);
}

/// Regression (stop 48): notices were sent inside the request that made the change, one
/// subscription after another, with no timeout: a player whose push endpoint never
/// answers held up the opponent's requests (their join, move, resignation), and one
/// unreachable endpoint (an error, not a 404/410) kept that player's other devices from
/// every notice. Now the game's object sends them after its answer (`waitUntil`), each
/// subscription on its own, and an outgoing call is abandoned after a timeout. (Fails
/// with the notices sent before the answer: the join waits on the held push past the
/// test client's 30 s; and with one failure ending the loop: no push to `a`.)
#[test]
fn a_slow_or_dead_push_endpoint_holds_up_no_request_and_silences_no_other_device() {
    let push = PushService::start();
    let (vapid_private, _) = key_pair("iron-arena test VAPID key");
    // Outgoing calls may wait longer than this test's HTTP client (30 s): a request that
    // waited on its notices would get no answer.
    let s = Server::start(&[
        ("VAPID_PRIVATE_KEY", vapid_private.as_str()),
        ("PUSH_ALLOW_HTTP", "on"),
        ("FAULT_FETCH_TIMEOUT_MS", "120000"),
    ]);
    let (mut a, mut b) = (Browser::new(), Browser::new());
    a.me(&s);
    b.me(&s);
    // A's devices, oldest first: one whose address refuses connections (nothing listens
    // on the discard port), one whose push service holds every push, then a working one.
    let mut dead = push.subscription("dead");
    dead["endpoint"] = json!("http://127.0.0.1:9/push/dead");
    let held = push.subscription("held");
    push.hold("held");
    for sub in [dead, held, push.subscription("a")] {
        assert_eq!(post(&mut a, &s, "/api/me/push", json!({ "subscription": sub })).0, 200);
    }
    let (id, invite) = correspondence_game(&mut a, &s);
    // B's join makes it A's move: answered while A's held push is still unanswered.
    let (st, joined) = post(&mut b, &s, &format!("/api/games/{id}/join"), json!({ "invite": invite }));
    assert_eq!(st, 200, "{joined}");
    push.wait_held("held");
    push.release("held");
    push.wait_for("held", "your_turn", &id);
    push.wait_for("a", "your_turn", &id);
    assert!(push.errors().is_empty(), "{:?}", push.errors());
}
