//! Arranging and reading back rows of the real schema for the player store's tests:
//! every database is `Sqlite::migrated()` (the real `migrations/`, foreign keys on), so a
//! row arranged here must satisfy the schema as D1 would (a game's players exist, every
//! NOT NULL column is set). Each test file uses the helpers it needs.

#![allow(dead_code)] // shared by several test crates, each using a part
#![allow(clippy::unwrap_used)] // tests: a panic is the failure report

use std::future::Future;

use engine::{Faction, Side};
use rusqlite::{params, OptionalExtension};
use service::model::{FinishReason, Mode};
use service::player_store::{PlayerRow, PlayerStore, Progress, SessionRow};
use service::rating::Rating;
use service::sql_players::SqlPlayers;
use service::sqlite::{self, Sqlite};
use service::story::Badge;

/// xorshift64*: deterministic, distinct bytes for every call (a seeded stand-in for the
/// platform's randomness).
#[derive(Debug)]
pub struct SeededRng(pub u64);

impl service::tokens::Random for SeededRng {
    fn fill(&mut self, buf: &mut [u8]) -> Result<(), service::error::ApiError> {
        for chunk in buf.chunks_mut(8) {
            let mut x = self.0;
            x ^= x >> 12;
            x ^= x << 25;
            x ^= x >> 27;
            self.0 = x;
            chunk.copy_from_slice(&x.wrapping_mul(0x2545_f491_4f6c_dd1d).to_le_bytes()[..chunk.len()]);
        }
        Ok(())
    }
}

/// Drives a store future to its end (SQLite never waits).
pub fn run<F: Future>(f: F) -> F::Output {
    sqlite::block_on(f)
}

/// Ids as the service makes them: 24 lowercase hex digits.
pub fn pid(n: u32) -> String {
    format!("{n:024x}")
}

/// A fresh database made by the real migrations.
pub fn db() -> Sqlite {
    Sqlite::migrated().unwrap()
}

/// A fresh database with these `(id, display name)` players, as the schema's defaults
/// make them (PlayerRow::new).
pub fn db_with(players: &[(&str, &str)]) -> Sqlite {
    let db = db();
    for (id, name) in players {
        insert_player(&db, id, name);
    }
    db
}

pub fn insert_player(db: &Sqlite, id: &str, name: &str) {
    db.conn()
        .execute("INSERT INTO players (id, display_name, created_at) VALUES (?1, ?2, 0)", params![id, name])
        .unwrap();
}

pub fn set_discord(db: &Sqlite, id: &str, discord: &str) {
    let n =
        db.conn().execute("UPDATE players SET discord_id = ?1 WHERE id = ?2", params![discord, id]).unwrap();
    assert_eq!(n, 1, "no player {id}");
}

/// A player linked to a Discord account.
pub fn discord_player(db: &Sqlite, id: &str, name: &str, discord: &str) {
    insert_player(db, id, name);
    set_discord(db, id, discord);
}

/// Sets a player's rating and `rated_at` (its version untouched).
pub fn set_rating(db: &Sqlite, id: &str, r: Rating, rated_at: Option<i64>) {
    let n = db
        .conn()
        .execute(
            "UPDATE players SET rating = ?1, rating_dev = ?2, volatility = ?3, rated_at = ?4 WHERE id = ?5",
            params![r.rating, r.deviation, r.volatility, rated_at, id],
        )
        .unwrap();
    assert_eq!(n, 1, "no player {id}");
}

/// A `games` row, the columns the players' pages read.
#[derive(Clone, Debug, PartialEq)]
pub struct GameRow {
    pub id: String,
    pub south: Faction,
    pub north: Faction,
    pub mode: Mode,
    pub south_player: Option<String>,
    pub north_player: Option<String>,
    pub winner: Option<Side>,
    pub result: Option<String>,
    pub reason: Option<FinishReason>,
    pub finished_at: Option<i64>,
    pub plies: u32,
}

/// A finished link game, Clockwork against Blades, 10 plies, the reason read off the
/// result line as the game stores it beside it.
pub fn game(id: u32, south: &str, north: &str, winner: Option<Side>, result: &str, at: i64) -> GameRow {
    GameRow {
        id: pid(id),
        south: Faction::Clockwork,
        north: Faction::Blades,
        mode: Mode::Link,
        south_player: Some(south.to_owned()),
        north_player: Some(north.to_owned()),
        winner,
        result: Some(result.to_owned()),
        reason: result.split_once(": ").and_then(|(_, r)| serde_json::from_value(serde_json::json!(r)).ok()),
        finished_at: Some(at),
        plies: 10,
    }
}

fn text<T: serde::Serialize>(v: T) -> String {
    serde_json::to_value(v).unwrap().as_str().unwrap().to_owned()
}

pub fn insert_game(db: &Sqlite, g: &GameRow) {
    db.conn()
        .execute(
            "INSERT INTO games (id, south_faction, north_faction, mode, south_player, north_player, \
                 created_at, finished_at, result, winner, reason, plies) \
             VALUES (?1, ?2, ?3, ?4, ?5, ?6, 0, ?7, ?8, ?9, ?10, ?11)",
            params![
                g.id,
                g.south.name(),
                g.north.name(),
                text(g.mode),
                g.south_player,
                g.north_player,
                g.finished_at,
                g.result,
                g.winner.map(Side::name),
                g.reason.map(text),
                g.plies,
            ],
        )
        .unwrap();
}

pub fn insert_badge(db: &Sqlite, b: &Badge) {
    db.conn()
        .execute(
            "INSERT INTO badges (id, name, description) VALUES (?1, ?2, ?3)",
            params![b.id, b.name, b.description],
        )
        .unwrap();
}

pub fn award(db: &Sqlite, player: &str, badge: &str, at: i64) {
    db.conn()
        .execute(
            "INSERT INTO player_badges (player_id, badge_id, awarded_at) VALUES (?1, ?2, ?3)",
            params![player, badge, at],
        )
        .unwrap();
}

pub fn insert_progress(db: &Sqlite, player: &str, story: &str, p: &Progress) {
    db.conn()
        .execute(
            "INSERT INTO story_progress (player_id, story_id, completed, current_game, current_stage, updated_at) \
             VALUES (?1, ?2, ?3, ?4, ?5, 0)",
            params![
                player,
                story,
                i64::try_from(p.completed).unwrap(),
                p.current_game,
                p.current_stage.map(|c| i64::try_from(c).unwrap())
            ],
        )
        .unwrap();
}

pub fn insert_session(db: &Sqlite, s: &SessionRow) {
    db.conn()
        .execute(
            "INSERT INTO sessions (token_hash, player_id, created_at, expires_at) VALUES (?1, ?2, ?3, ?4)",
            params![s.token_hash, s.player, s.created_at, s.expires_at],
        )
        .unwrap();
}

pub fn insert_name(db: &Sqlite, key: &str, player: &str) {
    db.conn()
        .execute("INSERT INTO player_names (name_key, player_id) VALUES (?1, ?2)", params![key, player])
        .unwrap();
}

/// A guest `from` merged into `into` earlier.
pub fn insert_merge(db: &Sqlite, from: &str, into: &str) {
    db.conn()
        .execute("INSERT INTO player_merges (from_id, into_id) VALUES (?1, ?2)", params![from, into])
        .unwrap();
}

/// The game's rating marked applied at `at`.
pub fn mark_rated(db: &Sqlite, game: &str, at: i64) {
    db.conn()
        .execute("INSERT INTO rated_games (game_id, applied_at) VALUES (?1, ?2)", params![game, at])
        .unwrap();
}

/// A player's row as the store reads it (`None`: no such row).
pub fn player(db: &Sqlite, id: &str) -> Option<PlayerRow> {
    run(SqlPlayers(db).player(id)).unwrap()
}

pub fn display_name(db: &Sqlite, id: &str) -> Option<String> {
    player(db, id).unwrap().display_name
}

/// When the player earned the badge (`None`: not earned).
pub fn awarded_at(db: &Sqlite, player: &str, badge: &str) -> Option<i64> {
    db.conn()
        .query_row(
            "SELECT awarded_at FROM player_badges WHERE player_id = ?1 AND badge_id = ?2",
            params![player, badge],
            |r| r.get(0),
        )
        .optional()
        .unwrap()
}

/// Every name key row, `(key, player)`, by key.
pub fn names(db: &Sqlite) -> Vec<(String, String)> {
    let mut s = db.conn().prepare("SELECT name_key, player_id FROM player_names ORDER BY name_key").unwrap();
    s.query_map([], |r| Ok((r.get(0)?, r.get(1)?))).unwrap().map(Result::unwrap).collect()
}

/// Every session, by token hash.
pub fn sessions(db: &Sqlite) -> Vec<SessionRow> {
    let mut s = db
        .conn()
        .prepare("SELECT token_hash, player_id, created_at, expires_at FROM sessions ORDER BY token_hash")
        .unwrap();
    s.query_map([], |r| {
        Ok(SessionRow {
            token_hash: r.get(0)?,
            player: r.get(1)?,
            created_at: r.get(2)?,
            expires_at: r.get(3)?,
        })
    })
    .unwrap()
    .map(Result::unwrap)
    .collect()
}

/// Every merge, `(from, into)`, by `from`.
pub fn merges(db: &Sqlite) -> Vec<(String, String)> {
    let mut s = db.conn().prepare("SELECT from_id, into_id FROM player_merges ORDER BY from_id").unwrap();
    s.query_map([], |r| Ok((r.get(0)?, r.get(1)?))).unwrap().map(Result::unwrap).collect()
}

/// A game's two seats' players.
pub fn seats(db: &Sqlite, game: &str) -> (Option<String>, Option<String>) {
    db.conn()
        .query_row("SELECT south_player, north_player FROM games WHERE id = ?1", [game], |r| {
            Ok((r.get(0)?, r.get(1)?))
        })
        .unwrap()
}

/// The one number a query answers (`SELECT COUNT(*) …`).
pub fn number(db: &Sqlite, sql: &str, args: &[&str]) -> i64 {
    db.conn().query_row(sql, rusqlite::params_from_iter(args), |r| r.get(0)).unwrap()
}
