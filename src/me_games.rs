//! Games on every device (its statements and rules: `service::db::me_games`):
//! `GET /api/me/games` from the D1 index, the per-change `game_status` row of link games,
//! and the session's player forwarded to a game's Durable Object with the ids of guests
//! merged into it (a seat taken as a guest stays the player's after sign-in).

use service::db::me_games;
use service::http::{ApiRequest, PlayerRef};
use service::model::GameRecord;
use service::store::GameStore;
use service::ApiError;
use worker::{Env, Request, Response};

use crate::d1::D1;
use crate::glue::{self, storage as internal, Res};

/// Carries the ids of guests merged into the session's player (comma-separated), from the
/// Worker to a game's Durable Object. Stripped from every incoming request by the router.
pub const ALIASES_HEADER: &str = "X-Iron-Player-Aliases";

/// `GET /api/me/games`: the session's ongoing and recent games, most urgent first.
pub async fn list(req: &Request, env: &Env) -> Res<Response> {
    let db = env.d1("DB").map_err(internal)?;
    let player = crate::accounts::current_player(req, &db).await?;
    let games = me_games::list(&D1(&db), player.as_ref().map(|p| p.id.as_str()), glue::now_ms()).await?;
    let mut r = Response::from_json(&games).map_err(|e| ApiError::internal(e.to_string()))?;
    r.headers_mut().set("Cache-Control", "no-store").map_err(|e| ApiError::internal(e.to_string()))?;
    Ok(r)
}

/// After a change to a game (`service::db::me_games::sync`): a link game's
/// `game_status` row, and its index row unless the change wrote it. A failure is logged
/// and the next change writes them again.
pub async fn sync(env: &Env, rec: &GameRecord, indexed: bool) {
    let result = match env.d1("DB") {
        Ok(db) => me_games::sync(&D1(&db), rec, indexed, glue::now_ms()).await.map_err(|e| e.0),
        Err(e) => Err(e.to_string()),
    };
    if let Err(e) = result {
        worker::console_error!("game_status write failed for {}: {e}", rec.id);
    }
}

/// The session's player (and its merged-in guests) forwarded to a game's Durable Object,
/// for requests that may act for a seat (`service::db::me_games::forwards`). `None` when
/// the request needs none (or has no session).
pub async fn forwarded(req: &Request, env: &Env, join: bool) -> Res<Option<(PlayerRef, Vec<String>)>> {
    let post = req.method() == worker::Method::Post;
    let bearer = req.headers().get("Authorization").ok().flatten().is_some();
    if !me_games::forwards(post, bearer, join) {
        return Ok(None);
    }
    let db = env.d1("DB").map_err(internal)?;
    let Some(player) = crate::accounts::current_player(req, &db).await? else { return Ok(None) };
    let aliases = me_games::forwarded_aliases(&D1(&db), &player.id, join).await?;
    Ok(Some((player, aliases)))
}

/// Inside the Durable Object: when a seat of this game is held by one of the player's
/// merged-in guest ids, the request acts as that id (`service::db::me_games::acting_alias`).
pub fn resolve_alias(req: &Request, api: &mut ApiRequest, store: &dyn GameStore) {
    let Some(player) = api.player.as_mut() else { return };
    let Some(list) = req.headers().get(ALIASES_HEADER).ok().flatten() else { return };
    let aliases = me_games::parse_aliases(&list);
    if aliases.is_empty() {
        return; // the record need not be read
    }
    let Ok(Some(rec)) = store.load() else { return };
    if let Some(a) = me_games::acting_alias(&rec, &player.id, &aliases) {
        player.id = a.to_owned();
    }
}
