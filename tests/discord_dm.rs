//! Discord direct messages on the real runtime, against the local stand-in Discord: a
//! player signed in with Discord opts in and gets a message from the bot (bot token
//! checked by the stand-in) when it becomes their move and when the game ends; a player
//! who did not opt in gets none; guests cannot opt in.

#![allow(clippy::unwrap_used)] // tests: a panic is the failure report

use serde_json::{json, Value};
use support::discord::{server_with, stand_in, Browser};
use support::legal;

fn post(b: &mut Browser, s: &support::Server, path: &str, body: Value) -> (u16, Value) {
    let r = b.send("POST", &s.url(path), Some(&body));
    (r.status, serde_json::from_str(&r.body).unwrap_or(Value::Null))
}

#[test]
fn opted_in_discord_players_get_a_direct_message_on_their_turn_and_at_the_end() {
    let (discord, state) = stand_in();
    let s = server_with(&discord, &[("DISCORD_BOT_TOKEN", "test-bot-token")]);
    let (mut a, mut b, mut guest) = (Browser::new(), Browser::new(), Browser::new());
    a.me(&s);
    b.me(&s);
    guest.me(&s);
    assert_eq!(a.sign_in(&s, "1001", false).status, 302);
    assert_eq!(b.sign_in(&s, "1002", false).status, 302);
    let (st, r) = post(&mut guest, &s, "/api/me/discord-dm", json!({"enabled": true}));
    assert_eq!((st, r["error"].as_str()), (403, Some("sign_in_required")));
    let r = a.send("GET", &s.url("/api/me/discord-dm"), None);
    let v: Value = serde_json::from_str(&r.body).unwrap();
    assert_eq!((v["available"].as_bool(), v["enabled"].as_bool()), (Some(true), Some(false)));
    let (st, r) = post(&mut a, &s, "/api/me/discord-dm", json!({"enabled": true}));
    assert_eq!((st, r["enabled"].as_bool()), (200, Some(true)), "{r}");

    // A (South) creates a correspondence game; B joins: A's move, A gets a message.
    let (_, c) = post(
        &mut a,
        &s,
        "/api/games",
        json!({"south": "blades", "north": "axiom", "mode": "link", "seat": "south", "days_per_move": 1}),
    );
    let id = c["id"].as_str().unwrap().to_owned();
    let invite = c["invite_url"].as_str().unwrap().split("#invite=").nth(1).unwrap().to_owned();
    assert_eq!(post(&mut b, &s, &format!("/api/games/{id}/join"), json!({ "invite": invite })).0, 200);
    let wait = |n: usize| {
        support::poll(&format!("{n} direct messages"), 20, || {
            Some(state.lock().unwrap().messages.clone()).filter(|m| m.len() >= n)
        })
    };
    let m = wait(1);
    assert_eq!(m[0].0, "1001");
    assert!(m[0].1.contains("Your move") && m[0].1.contains(&format!("/g/{id}")), "{m:?}");

    // A moves (B did not opt in: no message); B resigns: A hears of the end.
    let state_now = s.state(&id);
    assert_eq!(
        post(&mut a, &s, &format!("/api/games/{id}/moves"), json!({"move": legal(&state_now)[0], "ply": 0}))
            .0,
        200
    );
    assert_eq!(post(&mut b, &s, &format!("/api/games/{id}/resign"), json!({})).0, 200);
    let m = wait(2);
    assert_eq!(m.len(), 2, "{m:?}");
    assert_eq!(m[1].0, "1001");
    assert!(m[1].1.contains("Game over") && m[1].1.contains("south wins: resignation"), "{m:?}");

    // Opting out stops them.
    let (_, r) = post(&mut a, &s, "/api/me/discord-dm", json!({"enabled": false}));
    assert_eq!(r["enabled"], false);
}
