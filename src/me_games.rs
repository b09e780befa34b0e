//! Games on every device (glue over `service::me_games`): `GET /api/me/games` from the D1
//! index, the per-change `game_status` row (whose turn, deadline, draw offer) of link
//! games, and the session's player forwarded to a game's Durable Object with the ids of
//! guests merged into it (a seat taken as a guest stays the player's after sign-in).

use service::http::{ApiRequest, PlayerRef};
use service::me_games::{self, MyGames, Row};
use service::model::{GameRecord, Mode};
use service::store::GameStore;
use service::ApiError;
use worker::wasm_bindgen::JsValue;
use worker::{D1Database, Env, Request, Response};

use crate::glue::{self, storage as internal, Res};

/// Carries the ids of guests merged into the session's player (comma-separated), from the
/// Worker to a game's Durable Object. Stripped from every incoming request by the router.
pub const ALIASES_HEADER: &str = "X-Iron-Player-Aliases";

/// `GET /api/me/games`: the session's ongoing games and those finished in the last
/// [`me_games::RECENT_MS`], most urgent first. A browser without a session has none.
pub async fn list(req: &Request, env: &Env) -> Res<Response> {
    let db = env.d1("DB").map_err(internal)?;
    let Some(player) = crate::accounts::current_player(req, &db).await? else {
        return json(&MyGames::default());
    };
    let since = glue::now_ms() - me_games::RECENT_MS;
    let rows: Vec<Row> = glue::d1_rows(
        &db,
        "SELECT g.id, g.mode, g.south_faction, g.north_faction, g.south_player, g.north_player, \
                    sp.display_name AS south_name, np.display_name AS north_name, g.days_per_move, \
                    g.created_at, g.finished_at, g.result, g.winner, g.reason, \
                    COALESCE(t.plies, g.plies) AS plies, t.turn, t.seated, t.deadline, t.draw_offer, t.updated_at \
             FROM games g \
             LEFT JOIN game_status t ON t.game_id = g.id \
             LEFT JOIN players sp ON sp.id = g.south_player \
             LEFT JOIN players np ON np.id = g.north_player \
             WHERE (g.south_player = ?1 OR g.north_player = ?1) AND (g.result IS NULL OR g.finished_at > ?2) \
             ORDER BY (g.result IS NULL) DESC, COALESCE(g.finished_at, g.created_at) DESC LIMIT ?3",
        &[
            JsValue::from_str(&player.id),
            JsValue::from_f64(since as f64),
            JsValue::from_f64(f64::from(me_games::MAX_GAMES)),
        ],
    )
    .await
    .map_err(internal)?;
    json(&me_games::list(rows, &player.id))
}

fn json(v: &impl serde::Serialize) -> Res<Response> {
    let mut r = Response::from_json(v).map_err(|e| ApiError::internal(e.to_string()))?;
    r.headers_mut().set("Cache-Control", "no-store").map_err(|e| ApiError::internal(e.to_string()))?;
    Ok(r)
}

/// After a change to a link game: its `game_status` row (whose turn, deadline, draw
/// offer) and its index row's players (a join binds the second seat). Idempotent; a
/// failure is logged and the next change writes it again.
pub async fn sync(env: &Env, rec: &GameRecord, indexed: bool) {
    if rec.mode != Mode::Link {
        return;
    }
    let result = async {
        let db = env.d1("DB")?;
        if !indexed {
            crate::index::upsert(&db, rec, None).await?;
        }
        write_status(&db, rec).await
    }
    .await;
    if let Err(e) = result {
        worker::console_error!("game_status write failed for {}: {e}", rec.id);
    }
}

async fn write_status(db: &D1Database, rec: &GameRecord) -> worker::Result<()> {
    let side = |s: Option<engine::Side>| s.map_or(JsValue::NULL, |s| JsValue::from_str(s.name()));
    let turn = if rec.result.is_none() { Some(rec.position.turn()) } else { None };
    db.prepare(
        "INSERT INTO game_status (game_id, turn, deadline, draw_offer, plies, updated_at, seated) \
         VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7) \
         ON CONFLICT(game_id) DO UPDATE SET turn = excluded.turn, deadline = excluded.deadline, \
             seated = excluded.seated, \
             draw_offer = excluded.draw_offer, plies = excluded.plies, updated_at = excluded.updated_at \
         WHERE excluded.plies >= game_status.plies",
    )
    .bind(&[
        JsValue::from_str(&rec.id),
        side(turn),
        rec.deadline.map_or(JsValue::NULL, |d| JsValue::from_f64(d as f64)),
        side(rec.draw_offer),
        JsValue::from_f64(rec.moves.len() as f64),
        JsValue::from_f64(glue::now_ms() as f64),
        JsValue::from_f64(if rec.seats_filled() { 1.0 } else { 0.0 }),
    ])?
    .run()
    .await?;
    Ok(())
}

/// The ids of guests merged into `player` (a guest that signed in on a browser where the
/// account already existed), at most 50.
pub async fn aliases(db: &D1Database, player: &str) -> Res<Vec<String>> {
    #[derive(serde::Deserialize)]
    struct R {
        from_id: String,
    }
    let rows: Vec<R> = glue::d1_rows(
        db,
        "SELECT from_id FROM player_merges WHERE into_id = ?1 LIMIT 50",
        &[JsValue::from_str(player)],
    )
    .await
    .map_err(internal)?;
    Ok(rows.into_iter().map(|r| r.from_id).collect())
}

/// The session's player (and its merged-in guests) forwarded to a game's Durable Object,
/// for requests that may act for a seat: a join always, other writes when they carry no
/// seat token. `None` when the request needs none (or has no session).
pub async fn forwarded(req: &Request, env: &Env, join: bool) -> Res<Option<(PlayerRef, Vec<String>)>> {
    let has_bearer = req.headers().get("Authorization").ok().flatten().is_some();
    if req.method() != worker::Method::Post || (has_bearer && !join) {
        return Ok(None);
    }
    let db = env.d1("DB").map_err(internal)?;
    let Some(player) = crate::accounts::current_player(req, &db).await? else { return Ok(None) };
    let aliases = if join { Vec::new() } else { aliases(&db, &player.id).await? };
    Ok(Some((player, aliases)))
}

/// Inside the Durable Object: when a seat of this game is held by one of the player's
/// merged-in guest ids, the request acts as that id (the seat is the player's).
pub fn resolve_alias(req: &Request, api: &mut ApiRequest, store: &dyn GameStore) {
    let Some(player) = api.player.as_mut() else { return };
    let Some(list) = req.headers().get(ALIASES_HEADER).ok().flatten() else { return };
    let aliases: Vec<&str> = list.split(',').filter(|a| service::game::valid_id(a)).collect();
    if aliases.is_empty() {
        return;
    }
    let Ok(Some(rec)) = store.load() else { return };
    let holds = |id: &str| rec.seats.iter().any(|s| s.player.as_deref() == Some(id));
    if holds(&player.id) {
        return;
    }
    if let Some(a) = aliases.into_iter().find(|a| holds(a)) {
        player.id = a.to_owned();
    }
}
