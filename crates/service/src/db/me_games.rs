//! My games across devices: the page's rows from the index (`games` and the players'
//! names; a link game's live status comes from its own object, `crate::api`), the index
//! row a link game rewrites when what other players read of it changes (a join), and the
//! guests merged into a player (their ids, sent to a game's Durable Object, where a seat
//! taken as such a guest stays the player's). A move writes nothing here: D1 is one
//! writer for the whole service, and moves are the most frequent write there is.

use serde::Deserialize;

use crate::db::index;
use crate::local::LocalSql;
use crate::me_games::{self, MyGames, Row};
use crate::model::{GameRecord, Mode};
use crate::sql::{self, Param, Sql, Stmt, StoreResult};

/// The page's rows: `?1` the player, `?2` finished after, `?3` at most.
pub const LIST: &str =
    "SELECT g.id, g.mode, g.south_faction, g.north_faction, g.south_player, g.north_player, \
                    sp.display_name AS south_name, np.display_name AS north_name, g.days_per_move, \
                    g.created_at, g.finished_at, g.result, g.winner, g.reason, \
                    g.plies \
             FROM games g \
             LEFT JOIN players sp ON sp.id = g.south_player \
             LEFT JOIN players np ON np.id = g.north_player \
             WHERE (g.south_player = ?1 OR g.north_player = ?1) AND (g.result IS NULL OR g.finished_at > ?2) \
             ORDER BY (g.result IS NULL) DESC, COALESCE(g.finished_at, g.created_at) DESC LIMIT ?3";

/// The guests merged into `?1`, at most 50.
pub const ALIASES: &str = "SELECT from_id FROM player_merges WHERE into_id = ?1 LIMIT 50";

/// `GET /api/me/games`'s rows from the index: the player's ongoing games and those
/// finished in the last [`me_games::RECENT_MS`] (at most [`me_games::MAX_GAMES`]). A
/// browser without a session (`None`) has none. The caller adds each unfinished link
/// game's live status ([`me_games::Row::with_status`]), then sorts ([`me_games::list`]).
pub async fn rows(db: &impl Sql, player: Option<&str>, now_ms: i64) -> StoreResult<Vec<Row>> {
    let Some(player) = player else { return Ok(Vec::new()) };
    let since = now_ms - me_games::RECENT_MS;
    sql::rows(db, Stmt::new(LIST).bind(player).bind(since).bind(me_games::MAX_GAMES)).await
}

/// The page itself: [`rows`] with `status` for each unfinished link game, sorted.
pub async fn list(db: &impl Sql, player: Option<&str>, now_ms: i64) -> StoreResult<MyGames> {
    let Some(who) = player else { return Ok(MyGames::default()) };
    Ok(me_games::list(rows(db, player, now_ms).await?, who))
}

/// In the game's object (`local`, its storage): what other players read of a link game
/// in the index, beside what the outbox writes (creation, end): its players and whether
/// every seat is taken.
fn index_key(rec: &GameRecord) -> String {
    let players: Vec<Option<&str>> = rec.seats.iter().map(|s| s.player.as_deref()).collect();
    serde_json::json!([players, rec.seats_filled()]).to_string()
}

const SYNCED_TABLE: &str =
    "CREATE TABLE IF NOT EXISTS index_synced (id INTEGER PRIMARY KEY, key TEXT NOT NULL)";
const SYNCED_LOAD: &str = "SELECT key FROM index_synced WHERE id = 1";
const SYNCED_STORE: &str =
    "INSERT INTO index_synced (id, key) VALUES (1, ?) ON CONFLICT(id) DO UPDATE SET key = excluded.key";

fn synced(local: &impl LocalSql) -> Option<String> {
    #[derive(Deserialize)]
    struct R {
        key: String,
    }
    let _ = local.run(SYNCED_TABLE, Vec::new());
    let row = local.all(SYNCED_LOAD, Vec::new()).ok()?.into_iter().next()?;
    sql::read::<R>(row).ok().map(|r| r.key)
}

fn remember_synced(local: &impl LocalSql, key: String) {
    let _ = local.run(SYNCED_TABLE, Vec::new());
    let _ = local.run(SYNCED_STORE, vec![Param::Text(key)]);
}

/// After a change to a link game, in its object: its index row, when what other players
/// read of it changed since the index was last written (a join binds the second seat's
/// player) and the change did not write it already (`indexed`: a creation or an end,
/// written by the outbox). A move, a draw offer or its answer changes none of that, and
/// writes nothing. What was written is remembered in the object's storage after the
/// write, so a failed write is retried by the next change (the caller logs it).
pub async fn sync(db: &impl Sql, local: &impl LocalSql, rec: &GameRecord, indexed: bool) -> StoreResult<()> {
    if rec.mode != Mode::Link {
        return Ok(());
    }
    let key = index_key(rec);
    // Read once: this runs after every change, moves included.
    if synced(local).as_deref() == Some(key.as_str()) {
        return Ok(());
    }
    if !indexed {
        index::upsert(db, rec, None).await?;
    }
    remember_synced(local, key);
    Ok(())
}

/// The ids of guests merged into `player` (a guest that signed in on a browser where the
/// account already existed), at most 50.
pub async fn aliases(db: &impl Sql, player: &str) -> StoreResult<Vec<String>> {
    #[derive(Deserialize)]
    struct R {
        from_id: String,
    }
    let rows: Vec<R> = sql::rows(db, Stmt::new(ALIASES).bind(player)).await?;
    Ok(rows.into_iter().map(|r| r.from_id).collect())
}

/// Whether a request to a game forwards the session's player to its Durable Object: a
/// POST that may act for a seat, that is a join always, another write only when it
/// carries no seat token (`bearer`).
pub fn forwards(post: bool, bearer: bool, join: bool) -> bool {
    post && (join || !bearer)
}

/// The aliases forwarded with the player: none for a join (a seat is taken as the
/// player itself), the merged-in guests otherwise ([`aliases`]).
pub async fn forwarded_aliases(db: &impl Sql, player: &str, join: bool) -> StoreResult<Vec<String>> {
    if join {
        return Ok(Vec::new());
    }
    aliases(db, player).await
}

/// The forwarded aliases (a comma-separated header value), those that are game ids'
/// form only.
pub fn parse_aliases(list: &str) -> Vec<&str> {
    list.split(',').filter(|a| crate::game::valid_id(a)).collect()
}

/// Inside the game's Durable Object: the id a request of `player` acts as. When no seat
/// of `rec` is the player's own and one is held by one of its merged-in guests
/// (`aliases`), that guest's id (the seat is the player's); `None` otherwise.
pub fn acting_alias<'a>(rec: &GameRecord, player: &str, aliases: &[&'a str]) -> Option<&'a str> {
    let holds = |id: &str| rec.seats.iter().any(|s| s.player.as_deref() == Some(id));
    if holds(player) {
        return None;
    }
    aliases.iter().copied().find(|a| holds(a))
}
