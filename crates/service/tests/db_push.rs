//! Web Push subscriptions (`service::db::push`) and Discord direct messages
//! (`service::db::discord_dm`) on real SQLite made by the real migrations, foreign keys
//! on; and the `push_seen` statements of a game's Durable Object (its storage is SQLite).

#![allow(clippy::unwrap_used)] // tests: a panic is the failure report

use engine::{Faction, Side};
use serde_json::Value;
use service::db::discord_dm;
use service::db::push::{self, Delivery};
use service::http::PlayerRef;
use service::model::{Controller, GameRecord, Mode, Seat};
use service::push::{DiscordDm, Keys, Seen, Subscription, Unsubscribed};
use service::sql::{Sql, Stmt};
use service::sqlite::{block_on, Sqlite};
use service::ErrorCode;

const T0: i64 = 1_700_000_000_000;

fn db() -> Sqlite {
    Sqlite::migrated().unwrap()
}

fn player(db: &Sqlite, id: &str, discord: Option<&str>) {
    db.conn()
        .execute(
            "INSERT INTO players (id, discord_id, created_at) VALUES (?1, ?2, ?3)",
            rusqlite::params![id, discord, T0],
        )
        .unwrap();
}

fn merge(db: &Sqlite, from: &str, into: &str) {
    db.conn().execute("INSERT INTO player_merges (from_id, into_id) VALUES (?1, ?2)", [from, into]).unwrap();
}

fn sub(endpoint: &str, key: &str) -> Subscription {
    Subscription {
        endpoint: endpoint.into(),
        keys: Keys { p256dh: format!("p-{key}"), auth: format!("a-{key}") },
    }
}

fn query(db: &Sqlite, sql: &str) -> Vec<Value> {
    block_on(db.all(Stmt::new(sql.to_owned()))).unwrap().into_iter().map(Value::Object).collect()
}

/// `player`'s endpoints, newest first.
fn endpoints(db: &Sqlite, player: &str) -> Vec<String> {
    query(
        db,
        &format!(
            "SELECT endpoint FROM push_subscriptions WHERE player_id = '{player}' ORDER BY created_at DESC"
        ),
    )
    .iter()
    .map(|r| r["endpoint"].as_str().unwrap().to_owned())
    .collect()
}

#[test]
fn a_subscription_is_stored_moved_to_its_last_subscriber_and_each_player_keeps_its_ten_newest() {
    let db = db();
    player(&db, "p", None);
    player(&db, "q", None);
    for n in 0..12 {
        block_on(push::subscribe(&db, "p", &sub(&format!("https://push.example/{n:02}"), "k"), T0 + n))
            .unwrap();
    }
    let kept = endpoints(&db, "p");
    assert_eq!(kept.len(), 10, "{kept:?}");
    assert_eq!((kept[0].as_str(), kept[9].as_str()), ("https://push.example/11", "https://push.example/02"));
    // The same browser subscribed again for another player, with new keys: it moves.
    block_on(push::subscribe(&db, "q", &sub("https://push.example/11", "new"), T0 + 20)).unwrap();
    assert_eq!(endpoints(&db, "q"), ["https://push.example/11"]);
    assert_eq!(endpoints(&db, "p").len(), 9);
    assert_eq!(block_on(push::subscriptions(&db, "q")).unwrap(), [sub("https://push.example/11", "new")]);
    // A player that does not exist cannot subscribe (the foreign key), and the batch is
    // one transaction: nothing of it stays.
    assert!(block_on(push::subscribe(&db, "ghost", &sub("https://push.example/x", "k"), T0)).is_err());
    assert!(endpoints(&db, "ghost").is_empty());
}

#[test]
fn an_unsubscribe_removes_only_the_players_own_endpoint_and_needs_a_session() {
    let db = db();
    player(&db, "p", None);
    player(&db, "q", None);
    block_on(push::subscribe(&db, "p", &sub("https://push.example/p", "k"), T0)).unwrap();
    let un = |player: Option<&str>, e: &str| block_on(push::unsubscribe(&db, player, e)).unwrap();
    assert_eq!(un(None, "https://push.example/p"), Unsubscribed { unsubscribed: false });
    assert_eq!(un(Some("q"), "https://push.example/p"), Unsubscribed { unsubscribed: false }, "not q's");
    assert_eq!(endpoints(&db, "p").len(), 1);
    assert_eq!(un(Some("p"), "https://push.example/p"), Unsubscribed { unsubscribed: true });
    assert_eq!(un(Some("p"), "https://push.example/p"), Unsubscribed { unsubscribed: false }, "gone");
}

#[test]
fn a_seats_subscriptions_are_its_accounts_through_a_merge_at_most_ten() {
    let db = db();
    player(&db, "acct", None);
    merge(&db, "guest", "acct");
    for n in 0..10 {
        block_on(push::subscribe(&db, "acct", &sub(&format!("https://push.example/{n}"), "k"), T0 + n))
            .unwrap();
    }
    assert_eq!(
        block_on(push::subscriptions(&db, "guest")).unwrap().len(),
        10,
        "the guest's seat: the account's"
    );
    assert_eq!(block_on(push::subscriptions(&db, "acct")).unwrap().len(), 10);
    assert!(block_on(push::subscriptions(&db, "nobody")).unwrap().is_empty());
    // More than ten are never stored, but never more than ten are read either.
    db.conn()
        .execute(
            "INSERT INTO push_subscriptions (endpoint, player_id, p256dh, auth, created_at) VALUES ('https://push.example/extra', 'acct', 'p', 'a', 0)",
            [],
        )
        .unwrap();
    assert_eq!(block_on(push::subscriptions(&db, "acct")).unwrap().len(), 10);
}

#[test]
fn a_push_answered_404_or_410_removes_the_subscription_and_others_keep_it() {
    let db = db();
    player(&db, "p", None);
    for e in ["a", "b", "c", "d"] {
        block_on(push::subscribe(&db, "p", &sub(&format!("https://push.example/{e}"), "k"), T0)).unwrap();
    }
    let answered = |e: &str, status| {
        block_on(push::answered(&db, &format!("https://push.example/{e}"), status)).unwrap()
    };
    assert_eq!(answered("a", 201), Delivery::Delivered);
    assert_eq!(answered("b", 410), Delivery::Gone);
    assert_eq!(answered("c", 404), Delivery::Gone);
    assert_eq!(answered("d", 500), Delivery::Refused(500));
    assert_eq!(answered("d", 429), Delivery::Refused(429));
    let mut left = endpoints(&db, "p");
    left.sort();
    assert_eq!(left, ["https://push.example/a", "https://push.example/d"]);
    assert_eq!(block_on(push::forget(&db, "https://push.example/a")).unwrap(), 1);
    assert_eq!(block_on(push::forget(&db, "https://push.example/a")).unwrap(), 0);
}

/// The Durable Object's `push_seen` statements, on SQLite as its storage is: the table
/// made when first used (twice is harmless), the row stored, replaced and read back; an
/// unreadable row counts as none.
#[test]
fn the_seen_row_of_a_games_object_is_stored_replaced_and_read_back() {
    let local = Sqlite::empty().unwrap();
    assert_eq!(push::load_seen(&local), None);
    let first = Seen { ply: 3, seated: true, draw_offer: Some(Side::North), finished: false };
    push::store_seen(&local, &first);
    assert_eq!(push::load_seen(&local), Some(first));
    let later = Seen { ply: 4, seated: true, draw_offer: None, finished: true };
    push::store_seen(&local, &later);
    assert_eq!(push::load_seen(&local), Some(later));
    assert_eq!(query(&local, "SELECT COUNT(*) AS n FROM push_seen")[0]["n"], 1, "one row");
    local.conn().execute("UPDATE push_seen SET seen = 'not json'", []).unwrap();
    assert_eq!(push::load_seen(&local), None);
}

fn link_game() -> GameRecord {
    let seat = |p: &str| Seat {
        controller: Controller::Human,
        token_hash: Some("h".into()),
        player: Some(p.into()),
    };
    let seats = [seat("s"), Seat { token_hash: None, player: None, ..seat("n") }];
    GameRecord {
        invite_hash: Some("i".into()),
        days_per_move: Some(1),
        ..GameRecord::new("g1", Faction::Clockwork, Faction::Blades, Mode::Link, seats, 0)
    }
}

/// After a change, in the game's object: each change notified once (what was seen is
/// stored in the object's storage), nothing for a game first seen, nothing for AI games
/// (whose storage gets no table).
#[test]
fn a_change_is_notified_once_and_ai_games_notify_nothing() {
    let local = Sqlite::empty().unwrap();
    let mut rec = link_game();
    assert!(push::after_change(&local, &rec).is_empty(), "first seen: nothing");
    rec.seats[1] =
        Seat { controller: Controller::Human, token_hash: Some("h".into()), player: Some("n".into()) };
    let notices = push::after_change(&local, &rec);
    let kinds: Vec<(&str, &str)> = notices.iter().map(|n| (n.player.as_str(), n.kind)).collect();
    assert_eq!(kinds, [("s", "your_turn")], "the opponent joined: South's move");
    assert!(push::after_change(&local, &rec).is_empty(), "nothing twice");
    let ai = Sqlite::empty().unwrap();
    rec.mode = Mode::Ai;
    assert!(push::after_change(&ai, &rec).is_empty());
    assert!(query(&ai, "SELECT name FROM sqlite_master").is_empty(), "no storage for an AI game");
}

/// Regression (stop 48): a correspondence rematch is made with both seats taken and its
/// first mover's clock running, and a game first seen notified nothing: the player who
/// offered the rematch and went offline never heard that it was accepted and their move,
/// and could lose on time. A game first seen seated tells its side to move.
#[test]
fn a_game_first_seen_with_both_seats_taken_tells_its_side_to_move() {
    let local = Sqlite::empty().unwrap();
    let mut rec = link_game();
    rec.seats[1] =
        Seat { controller: Controller::Human, token_hash: Some("h".into()), player: Some("n".into()) };
    rec.invite_hash = None;
    let notices = push::after_change(&local, &rec);
    let kinds: Vec<(&str, &str)> = notices.iter().map(|n| (n.player.as_str(), n.kind)).collect();
    assert_eq!(kinds, [("s", "your_turn")]);
    assert!(push::after_change(&local, &rec).is_empty(), "nothing twice");
    // Without days per move, no clock runs and no turn is told, as for any move.
    let live = Sqlite::empty().unwrap();
    rec.days_per_move = None;
    assert!(push::after_change(&live, &rec).is_empty());
}

/// Regression (stop 48): a player who joined their own invite sat on both sides, and the
/// end of the game was told to each side: twice to the same player.
#[test]
fn a_player_on_both_sides_is_told_of_the_end_once() {
    let local = Sqlite::empty().unwrap();
    let mut rec = link_game();
    rec.seats[1] =
        Seat { controller: Controller::Human, token_hash: Some("h2".into()), player: Some("s".into()) };
    assert_eq!(push::after_change(&local, &rec).len(), 1, "the turn, once");
    rec.result = Some(service::model::Finish::win(Side::North, service::model::FinishReason::Resignation, 5));
    let notices = push::after_change(&local, &rec);
    let kinds: Vec<(&str, &str)> = notices.iter().map(|n| (n.player.as_str(), n.kind)).collect();
    assert_eq!(kinds, [("s", "game_over")]);
}

fn linked(id: &str) -> PlayerRef {
    PlayerRef { id: id.into(), linked: true }
}

#[test]
fn discord_messages_are_switched_by_players_signed_in_with_discord_when_a_bot_is_configured() {
    let db = db();
    player(&db, "d", Some("1001"));
    player(&db, "g", None);
    let guest = PlayerRef { id: "g".into(), linked: false };
    let get = |p: Option<&PlayerRef>, bot| block_on(discord_dm::get(&db, p, bot)).unwrap();
    let post =
        |p: Option<&PlayerRef>, bot, body: &str| block_on(discord_dm::post(&db, p, bot, body.as_bytes(), T0));
    assert_eq!(get(None, true), DiscordDm { available: false, enabled: false });
    assert_eq!(get(Some(&guest), true), DiscordDm { available: false, enabled: false });
    assert_eq!(get(Some(&linked("d")), true), DiscordDm { available: true, enabled: false });
    assert_eq!(get(Some(&linked("d")), false), DiscordDm { available: false, enabled: false });
    // The body first (400), then who asks (403), then whether it is offered (404).
    assert_eq!(post(None, false, "{\"on\": true}").unwrap_err().status(), 400);
    assert_eq!(post(None, true, "{\"enabled\": true}").unwrap_err().status(), 403);
    let e = post(Some(&guest), true, "{\"enabled\": true}").unwrap_err();
    assert_eq!((e.status(), e.code), (403, ErrorCode::SignInRequired));
    assert_eq!(post(Some(&linked("d")), false, "{\"enabled\": true}").unwrap_err().status(), 404);
    assert!(!get(Some(&linked("d")), true).enabled, "nothing written by a refused switch");
    // On (twice: the first time stays), then off.
    assert_eq!(
        post(Some(&linked("d")), true, "{\"enabled\": true}").unwrap(),
        DiscordDm { available: true, enabled: true }
    );
    db.conn().execute("UPDATE discord_dm SET created_at = 1", []).unwrap();
    post(Some(&linked("d")), true, "{\"enabled\": true}").unwrap();
    assert_eq!(query(&db, "SELECT created_at FROM discord_dm")[0]["created_at"], 1);
    assert_eq!(get(Some(&linked("d")), true), DiscordDm { available: true, enabled: true });
    assert_eq!(
        post(Some(&linked("d")), true, "{\"enabled\": false}").unwrap(),
        DiscordDm { available: true, enabled: false }
    );
    assert!(!block_on(discord_dm::enabled(&db, "d")).unwrap());
}

#[test]
fn a_seats_discord_message_goes_to_its_account_through_a_merge_if_it_asked_and_is_linked() {
    let db = db();
    player(&db, "d", Some("1001"));
    player(&db, "unlinked", None);
    merge(&db, "guest", "d");
    let to = |p: &str| block_on(discord_dm::recipient(&db, p)).unwrap();
    assert_eq!(to("d"), None, "not asked");
    block_on(discord_dm::set(&db, "d", true, T0)).unwrap();
    assert_eq!(to("d").as_deref(), Some("1001"));
    assert_eq!(to("guest").as_deref(), Some("1001"), "the merged guest's seat");
    // A row for a player without a Discord account (unlinked since) sends nothing.
    block_on(discord_dm::set(&db, "unlinked", true, T0)).unwrap();
    assert_eq!(to("unlinked"), None);
    assert_eq!(to("nobody"), None);
    // A player that does not exist cannot switch it on (the foreign key).
    assert!(block_on(discord_dm::set(&db, "ghost", true, T0)).is_err());
}

#[test]
fn a_notices_direct_message_reads_its_push_payload() {
    let payload = service::push::message("your_turn", "g1", "Your move", "Clockwork vs Blades");
    let text = discord_dm::text(&payload);
    assert!(text.starts_with("Iron Arena: Your move: Clockwork vs Blades ("), "{text}");
    assert!(text.ends_with("/g/g1)"), "{text}");
    assert_eq!(discord_dm::text(b"not json"), "Iron Arena: :  ()");
}
