//! The session's own settings and lists: "My games" (`GET /api/me/games`, from the D1
//! index: `crate::db::me_games`), Web Push subscriptions (`GET /api/push/key`, `POST
//! /api/me/push`, `POST /api/me/push/unsubscribe`: `crate::db::push`), Discord direct
//! messages (`GET|POST /api/me/discord-dm`: `crate::db::discord_dm`), the lessons
//! completed (`GET /api/me/lessons`, `PUT /api/me/lessons/{id}`: `crate::db::lessons`);
//! and the session's player as the Worker forwards it to a game's object, with the guests
//! merged into it (a seat taken as a guest stays the player's after sign-in).

use serde::Deserialize;

use crate::db::{discord_dm, lessons, me_games, push as subs};
use crate::error::{ApiError, ErrorCode};
use crate::host::Host;
use crate::http::{Method, PlayerRef};
use crate::notify;
use crate::objects::GameObjects;
use crate::ports::Games;
use crate::push::{PushKey, Subscribed, Subscription};
use crate::store::GameStore;

use super::session::{current_player, player_or_guest, session};
use super::{Answer, Incoming, Res};

/// `GET /api/me/games`: the session's ongoing and recent games, most urgent first: the
/// rows from the D1 index, each unfinished link game's status from its own object (which
/// alone is written by a move). A game whose object does not answer is listed without
/// its status (as seated, nobody's turn known) and the failure logged.
pub async fn games(h: &impl Host, req: &impl Incoming) -> Res {
    let Some(player) = current_player(h, req).await? else {
        return Ok(Answer::of(200, &crate::me_games::MyGames::default()));
    };
    let rows = me_games::rows(h.db(), Some(&player.id), h.now_ms()).await?;
    let objects = GameObjects(h);
    let mut live = Vec::with_capacity(rows.len());
    for row in rows {
        if row.mode != "link" || row.result.is_some() {
            live.push(row);
            continue;
        }
        match objects.status(&row.id).await {
            Ok(st) => live.push(row.with_status(&st)),
            Err(e) => {
                h.log(&format!("My games: no status from game {}: {e:?}", row.id));
                live.push(row);
            }
        }
    }
    Ok(Answer::of(200, &crate::me_games::list(live, &player.id)))
}

/// `GET /api/me/discord-dm` → `{"available", "enabled"}`; `POST` `{"enabled": bool}`.
pub async fn discord_dm(h: &impl Host, req: &mut impl Incoming) -> Res {
    let player = current_player(h, req).await?;
    let bot = notify::bot_token(h).is_some();
    let dm = match req.method() {
        Method::Get => discord_dm::get(h.db(), player.as_ref(), bot).await?,
        Method::Post => {
            discord_dm::post(h.db(), player.as_ref(), bot, &req.body().await?, h.now_ms()).await?
        }
        Method::Put | Method::Other => {
            return Err(ApiError::new(ErrorCode::MethodNotAllowed, "use GET or POST"))
        }
    };
    Ok(Answer::of(200, &dm))
}

/// `GET /api/me/lessons` → `{"completed": [id, …]}`; `PUT /api/me/lessons/{id}` records
/// the lesson completed (no body: the path says it all) and answers the same list. The
/// session's player only: one is never made here.
pub async fn lessons(h: &impl Host, req: &impl Incoming, path: &str) -> Res {
    let player = session(h, req).await?.map(|s| s.player);
    // The area's two routes: the list, or one lesson's record (`…/lessons/{id}`).
    let done = match (req.method(), path.strip_prefix("/api/me/lessons/")) {
        (Method::Get, None) => lessons::get(h.db(), player.as_deref()).await?,
        (Method::Put, Some(id)) => lessons::put(h.db(), player.as_deref(), id, h.now_ms()).await?,
        _ => {
            return Err(ApiError::new(ErrorCode::MethodNotAllowed, "use GET for the list, PUT for a lesson"))
        }
    };
    Ok(Answer::of(200, &done))
}

pub async fn push(h: &impl Host, req: &mut impl Incoming, path: &str) -> Res {
    match (req.method(), path) {
        (Method::Get, "/api/push/key") => {
            let key = notify::vapid(h).map(|v| v.public_key());
            Ok(Answer::of(200, &PushKey { available: key.is_some(), public_key: key }))
        }
        (Method::Post, "/api/me/push") => {
            #[derive(Deserialize)]
            #[serde(deny_unknown_fields)]
            struct Body {
                subscription: Subscription,
            }
            let body: Body = super::json(req).await?;
            let sub = body.subscription.validate(notify::allow_http(h))?;
            if notify::vapid(h).is_none() {
                // Not a server failure: this server simply offers no notifications.
                return Err(ApiError::not_found("notifications are not offered by this server"));
            }
            let (player, cookie) = player_or_guest(h, req).await?;
            subs::subscribe(h.db(), &player, &sub, h.now_ms()).await?;
            Ok(Answer::ok(&Subscribed { subscribed: true }, cookie))
        }
        (Method::Post, "/api/me/push/unsubscribe") => {
            #[derive(Deserialize)]
            #[serde(deny_unknown_fields)]
            struct Body {
                endpoint: String,
            }
            let body: Body = super::json(req).await?;
            let player = current_player(h, req).await?;
            let done =
                subs::unsubscribe(h.db(), player.as_ref().map(|p| p.id.as_str()), &body.endpoint).await?;
            Ok(Answer::of(200, &done))
        }
        (_, "/api/push/key" | "/api/me/push" | "/api/me/push/unsubscribe") => {
            Err(ApiError::new(ErrorCode::MethodNotAllowed, "wrong method for this route"))
        }
        _ => Err(ApiError::not_found(format!("no route {path}"))),
    }
}

/// The session's player (and its merged-in guests) to forward to a game's object, for
/// requests that may act for a seat (`crate::db::me_games::forwards`). `None` when the
/// request needs none (or has no session).
pub async fn forwarded(
    h: &impl Host,
    req: &impl Incoming,
    join: bool,
) -> Result<Option<(PlayerRef, Vec<String>)>, ApiError> {
    let bearer = req.header("Authorization").is_some();
    if !me_games::forwards(req.method() == Method::Post, bearer, join) {
        return Ok(None);
    }
    let Some(player) = current_player(h, req).await? else { return Ok(None) };
    let aliases = me_games::forwarded_aliases(h.db(), &player.id, join).await?;
    Ok(Some((player, aliases)))
}

/// Inside the game's object: when a seat of this game is held by one of the player's
/// merged-in guest ids (`aliases`, the forwarded header), the request acts as that id
/// (`crate::db::me_games::acting_alias`).
pub fn resolve_alias(player: &mut Option<PlayerRef>, aliases: Option<&str>, store: &dyn GameStore) {
    let (Some(player), Some(list)) = (player.as_mut(), aliases) else { return };
    let aliases = me_games::parse_aliases(list);
    if aliases.is_empty() {
        return; // the record need not be read
    }
    let Ok(Some(rec)) = store.load() else { return };
    if let Some(a) = me_games::acting_alias(&rec, &player.id, &aliases) {
        player.id = a.to_owned();
    }
}

/// After a change to a game, in its object (`local` its storage): a link game's index
/// row when what other players read of it changed (`crate::db::me_games::sync`: a join,
/// never a move; a failure is logged and the next change writes it again), then the
/// notifications.
pub async fn changed(
    h: &impl Host,
    local: &impl crate::local::LocalSql,
    rec: &crate::model::GameRecord,
    indexed: bool,
) -> Vec<crate::push::Notice> {
    if let Err(e) = me_games::sync(h.db(), local, rec, indexed).await {
        h.log(&format!("index write failed for {}: {e}", rec.id));
    }
    notify::after_change(local, rec)
}
