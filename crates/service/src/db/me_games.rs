//! My games across devices: the page's rows from the index (`games` joined with the link
//! games' `game_status` and the players' names), the `game_status` row a link game
//! writes after each change, and the guests merged into a player (their ids, sent to a
//! game's Durable Object, where a seat taken as such a guest stays the player's).

use serde::Deserialize;

use crate::db::index;
use crate::me_games::{self, MyGames, Row};
use crate::model::{GameRecord, Mode};
use crate::sql::{self, Sql, Stmt, StoreResult};

/// The page's rows: `?1` the player, `?2` finished after, `?3` at most.
pub const LIST: &str =
    "SELECT g.id, g.mode, g.south_faction, g.north_faction, g.south_player, g.north_player, \
                    sp.display_name AS south_name, np.display_name AS north_name, g.days_per_move, \
                    g.created_at, g.finished_at, g.result, g.winner, g.reason, \
                    COALESCE(t.plies, g.plies) AS plies, t.turn, t.seated, t.deadline, t.draw_offer, t.updated_at \
             FROM games g \
             LEFT JOIN game_status t ON t.game_id = g.id \
             LEFT JOIN players sp ON sp.id = g.south_player \
             LEFT JOIN players np ON np.id = g.north_player \
             WHERE (g.south_player = ?1 OR g.north_player = ?1) AND (g.result IS NULL OR g.finished_at > ?2) \
             ORDER BY (g.result IS NULL) DESC, COALESCE(g.finished_at, g.created_at) DESC LIMIT ?3";

/// A link game's status upsert: a snapshot with fewer plies than the row's is older and
/// changes nothing.
pub const STATUS: &str =
    "INSERT INTO game_status (game_id, turn, deadline, draw_offer, plies, updated_at, seated) \
         VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7) \
         ON CONFLICT(game_id) DO UPDATE SET turn = excluded.turn, deadline = excluded.deadline, \
             seated = excluded.seated, \
             draw_offer = excluded.draw_offer, plies = excluded.plies, updated_at = excluded.updated_at \
         WHERE excluded.plies >= game_status.plies";

/// The guests merged into `?1`, at most 50.
pub const ALIASES: &str = "SELECT from_id FROM player_merges WHERE into_id = ?1 LIMIT 50";

/// `GET /api/me/games`: the player's ongoing games and those finished in the last
/// [`me_games::RECENT_MS`] (at most [`me_games::MAX_GAMES`]), most urgent first. A
/// browser without a session (`None`) has none.
pub async fn list(db: &impl Sql, player: Option<&str>, now_ms: i64) -> StoreResult<MyGames> {
    let Some(player) = player else { return Ok(MyGames::default()) };
    let since = now_ms - me_games::RECENT_MS;
    let rows: Vec<Row> =
        sql::rows(db, Stmt::new(LIST).bind(player).bind(since).bind(me_games::MAX_GAMES)).await?;
    Ok(me_games::list(rows, player))
}

/// After a change to a game: for a link game, its `game_status` row (whose turn,
/// deadline, draw offer, whether the invited seat is taken) and, unless the change
/// already wrote it (`indexed`: a creation or an end, written by the outbox), its index
/// row too (a join binds the second seat's player). Idempotent: a failure is the
/// caller's to log, and the next change writes both again. Other games have no status.
pub async fn sync(db: &impl Sql, rec: &GameRecord, indexed: bool, now_ms: i64) -> StoreResult<()> {
    if rec.mode != Mode::Link {
        return Ok(());
    }
    if !indexed {
        index::upsert(db, rec, None).await?;
    }
    write_status(db, rec, now_ms).await
}

/// The `game_status` row of `rec` as of `now_ms` (see [`STATUS`]): no side to move once
/// the game is over.
pub async fn write_status(db: &impl Sql, rec: &GameRecord, now_ms: i64) -> StoreResult<()> {
    let side = |s: Option<engine::Side>| s.map(|s| s.name());
    let turn = if rec.result.is_none() { Some(rec.position.turn()) } else { None };
    db.run(
        Stmt::new(STATUS)
            .bind(rec.id.as_str())
            .bind(side(turn))
            .bind(rec.deadline)
            .bind(side(rec.draw_offer))
            .bind(rec.moves.len())
            .bind(now_ms)
            .bind(i64::from(rec.seats_filled())),
    )
    .await?;
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
