//! Open challenges (glue over `service::challenge`), in D1: `GET /api/challenges` (the
//! public list), `POST /api/challenges` (post), `POST /api/challenges/{id}/accept` (makes a
//! link game: the poster's seat is bound to the poster, who plays it by session; the
//! accepter joins and gets a seat token), `POST /api/challenges/{id}/cancel`, and
//! `GET /api/challenges/ws` (the list, live: [`crate::lobby`]). A challenge expires after `CHALLENGE_SECONDS` (default a day). The poster is notified (Web Push).

use serde::Deserialize;
use serde_json::json;
use service::challenge::{
    self, Accepted, Cancelled, ChallengeList, ChallengeView, PostChallenge, Posted, Poster,
};
use service::http::PlayerRef;
use service::tokens::Random;
use service::ApiError;
use worker::wasm_bindgen::JsValue;
use worker::{D1Database, Env, Method, Request, RequestInit, Response};

use crate::game_object::{CreateCall, CREATE_PATH};
use crate::glue::{self, storage as internal, OsRandom, Res};

/// Posts from one address in an hour (guests are cheap to make, addresses less so).
const MAX_POSTS_PER_ADDRESS_PER_HOUR: u32 = 30;

fn ttl_ms(env: &Env) -> i64 {
    let s = env
        .var("CHALLENGE_SECONDS")
        .ok()
        .and_then(|v| v.to_string().trim().parse::<u64>().ok())
        .unwrap_or(challenge::DEFAULT_TTL_S);
    (s.min(30 * 86_400) * 1000) as i64
}

fn json_resp(status: u16, v: &impl serde::Serialize, cookie: Option<&str>) -> Res<Response> {
    let r = Response::from_json(v).map_err(|e| ApiError::internal(e.to_string()))?.with_status(status);
    crate::accounts::with_cookie(r, cookie)
}

pub async fn handle(req: &mut Request, env: &Env, path: &str) -> Res<Response> {
    let db = env.d1("DB").map_err(internal)?;
    let rest = path.trim_start_matches("/api/challenges").trim_start_matches('/');
    let parts: Vec<&str> = if rest.is_empty() { Vec::new() } else { rest.split('/').collect() };
    match (req.method(), parts.as_slice()) {
        (Method::Get, []) => json_resp(200, &ChallengeList { challenges: list(&db).await? }, None),
        (Method::Get, ["ws"]) => crate::lobby::connect(req, env).await,
        (Method::Post, []) => changed(env, post(req, env, &db).await).await,
        (Method::Post, [id, "accept"]) if service::game::valid_id(id) => {
            changed(env, accept(req, env, &db, id).await).await
        }
        (Method::Post, [id, "cancel"]) if service::game::valid_id(id) => {
            changed(env, cancel(req, &db, id).await).await
        }
        // An id that cannot be one names no challenge, whatever the method.
        (_, [id, "accept" | "cancel"]) if !service::game::valid_id(id) => {
            Err(ApiError::not_found("no such challenge"))
        }
        (_, [] | ["ws"] | [_, "accept" | "cancel"]) => {
            Err(ApiError::new(405, "method_not_allowed", "wrong method for this route"))
        }
        _ => Err(ApiError::not_found("no such challenge")),
    }
}

/// After a write: if it changed the list, the lobby pushes the new list to home pages (a
/// failed notification is logged, and the write's answer stands).
async fn changed(env: &Env, answer: Res<Response>) -> Res<Response> {
    if answer.is_ok() {
        crate::lobby::notify(env).await;
    }
    answer
}

#[derive(Deserialize)]
struct Row {
    id: String,
    poster_id: String,
    poster_name: Option<String>,
    spec: String,
    created_at: f64,
    expires_at: f64,
}

fn row_view(r: &Row) -> Option<ChallengeView> {
    let spec: PostChallenge = serde_json::from_str(&r.spec).ok()?;
    Some(ChallengeView {
        id: r.id.clone(),
        poster: Poster { id: r.poster_id.clone(), name: r.poster_name.clone() },
        south: spec.south,
        north: spec.north,
        seat: spec.seat,
        days_per_move: spec.days_per_move,
        rated: spec.rated,
        created_at: r.created_at as i64,
        expires_at: r.expires_at as i64,
    })
}

/// The open challenges, newest first (at most 50).
pub(crate) async fn list(db: &D1Database) -> Res<Vec<ChallengeView>> {
    let rows: Vec<Row> = glue::d1_rows(
        db,
        "SELECT c.id, c.poster_id, p.display_name AS poster_name, c.spec, c.created_at, c.expires_at \
         FROM challenges c LEFT JOIN players p ON p.id = c.poster_id \
         WHERE c.game_id IS NULL AND c.expires_at > ?1 ORDER BY c.created_at DESC LIMIT 50",
        &[JsValue::from_f64(glue::now_ms() as f64)],
    )
    .await
    .map_err(internal)?;
    Ok(rows.iter().filter_map(row_view).collect())
}

async fn post(req: &mut Request, env: &Env, db: &D1Database) -> Res<Response> {
    let api = glue::api_request(req).await?;
    let spec = PostChallenge::parse(&api.body)?;
    let (player, cookie) = crate::accounts::player_or_guest(req, db).await?;
    if spec.rated && !crate::accounts::current_player(req, db).await?.is_some_and(|p| p.linked) {
        return Err(ApiError::new(
            403,
            "sign_in_required",
            "rated challenges are for players signed in with Discord",
        ));
    }
    let now = glue::now_ms();
    // The address bucket's keyed hash, as for games: never the address or its plain
    // SHA-256 (which a table of all IPv4 addresses reverses), and IPv6 by /64, so
    // rotating addresses within one subscriber's block shares one count.
    let ip = crate::limiter::ip_key(req, env);
    #[derive(Deserialize)]
    struct Counts {
        open: u32,
        posted: u32,
        by_address: u32,
    }
    let c: Option<Counts> = db
        .prepare(
            "SELECT (SELECT COUNT(*) FROM challenges WHERE poster_id = ?1 AND game_id IS NULL AND expires_at > ?2) AS open, \
                    (SELECT COUNT(*) FROM challenges WHERE poster_id = ?1 AND created_at > ?3) AS posted, \
                    (SELECT COUNT(*) FROM challenges WHERE ip_hash = ?4 AND created_at > ?3) AS by_address",
        )
        .bind(&[
            JsValue::from_str(&player),
            JsValue::from_f64(now as f64),
            JsValue::from_f64((now - 3_600_000) as f64),
            JsValue::from_str(&ip),
        ])
        .map_err(internal)?
        .first(None)
        .await
        .map_err(internal)?;
    let c = c.unwrap_or(Counts { open: 0, posted: 0, by_address: 0 });
    let posted =
        if c.by_address >= MAX_POSTS_PER_ADDRESS_PER_HOUR { challenge::MAX_POSTS_PER_HOUR } else { c.posted };
    challenge::may_post(c.open, posted)?;
    let id = OsRandom.id()?;
    let spec_json = serde_json::to_string(&spec).map_err(|e| ApiError::internal(e.to_string()))?;
    let expires = now + ttl_ms(env);
    db.prepare(
        "INSERT INTO challenges (id, poster_id, spec, ip_hash, created_at, expires_at) VALUES (?1, ?2, ?3, ?4, ?5, ?6)",
    )
    .bind(&[
        JsValue::from_str(&id),
        JsValue::from_str(&player),
        JsValue::from_str(&spec_json),
        JsValue::from_str(&ip),
        JsValue::from_f64(now as f64),
        JsValue::from_f64(expires as f64),
    ])
    .map_err(internal)?
    .run()
    .await
    .map_err(internal)?;
    let row = Row {
        id,
        poster_id: player,
        poster_name: None,
        spec: spec_json,
        created_at: now as f64,
        expires_at: expires as f64,
    };
    let challenge =
        row_view(&row).ok_or_else(|| ApiError::internal("a posted challenge does not read back"))?;
    json_resp(201, &Posted { challenge }, cookie.as_deref())
}

async fn changes(r: worker::D1Result) -> usize {
    r.meta().ok().flatten().and_then(|m| m.changes).unwrap_or(0)
}

async fn accept(req: &mut Request, env: &Env, db: &D1Database, id: &str) -> Res<Response> {
    let api = glue::api_request(req).await?;
    let (player, cookie) = crate::accounts::player_or_guest(req, db).await?;
    let linked = crate::accounts::current_player(req, db).await?.is_some_and(|p| p.linked);
    let now = glue::now_ms();
    #[derive(Deserialize)]
    struct Open {
        poster_id: String,
        spec: String,
    }
    let gone =
        || ApiError::new(409, "challenge_gone", "this challenge was accepted, cancelled or has expired");
    let open: Option<Open> = db
        .prepare(
            "SELECT poster_id, spec FROM challenges WHERE id = ?1 AND game_id IS NULL AND expires_at > ?2",
        )
        .bind(&[JsValue::from_str(id), JsValue::from_f64(now as f64)])
        .map_err(internal)?
        .first(None)
        .await
        .map_err(internal)?;
    let open = open.ok_or_else(gone)?;
    let spec: PostChallenge =
        serde_json::from_str(&open.spec).map_err(|e| ApiError::internal(e.to_string()))?;
    challenge::may_accept(&open.poster_id, &player, spec.rated, linked)?;
    // Accepting makes a game: the capacity limits of every creation (rates per address
    // and overall, unfinished games overall and of this player) apply, before the claim.
    crate::router::check_load(req, env, Some(&player)).await?;
    let mut rng = OsRandom;
    let game_id = rng.id()?;
    // Claimed atomically: of two accepters, one wins.
    let claimed = db
        .prepare(
            "UPDATE challenges SET game_id = ?1, accepted_by = ?2 WHERE id = ?3 AND game_id IS NULL AND expires_at > ?4",
        )
        .bind(&[
            JsValue::from_str(&game_id),
            JsValue::from_str(&player),
            JsValue::from_str(id),
            JsValue::from_f64(now as f64),
        ])
        .map_err(internal)?
        .run()
        .await
        .map_err(internal)?;
    if changes(claimed).await != 1 {
        return Err(gone());
    }
    match start_game(env, &api.origin, &spec, &open.poster_id, &game_id, &player, linked).await {
        Ok(joined) => {
            crate::push::notify_player(
                env,
                &open.poster_id,
                "challenge_accepted",
                &game_id,
                "Challenge accepted",
                "Your open challenge was accepted: the game has begun",
            )
            .await;
            json_resp(200, &joined, cookie.as_deref())
        }
        Err(e) => {
            // Release the claim so that someone can accept it again.
            let _ = db
                .prepare(
                    "UPDATE challenges SET game_id = NULL, accepted_by = NULL WHERE id = ?1 AND game_id = ?2",
                )
                .bind(&[JsValue::from_str(id), JsValue::from_str(&game_id)])
                .map_err(internal)?
                .run()
                .await;
            Err(e)
        }
    }
}

/// Creates the link game for the poster and joins it for the accepter; the accepter's
/// join answer (seat, token, state).
async fn start_game(
    env: &Env,
    origin: &str,
    spec: &PostChallenge,
    poster: &str,
    game_id: &str,
    accepter: &str,
    linked: bool,
) -> Res<Accepted> {
    let mut rng = OsRandom;
    let call = CreateCall {
        id: game_id.to_owned(),
        game: spec.game(&mut rng)?,
        origin: origin.to_owned(),
        ip_hash: "challenge".into(),
        creator: Some(PlayerRef { id: poster.to_owned(), linked: spec.rated }),
        start: None,
        stage: None,
    };
    let mut created = crate::router::internal_call(env, game_id, CREATE_PATH, &call).await?;
    let body: serde_json::Value = created.json().await.map_err(|e| ApiError::internal(e.to_string()))?;
    let invite = body["invite_url"]
        .as_str()
        .and_then(|u| u.split("#invite=").nth(1))
        .ok_or_else(|| ApiError::new(503, "challenge_failed", "the game could not be created; try again"))?
        .to_owned();
    let mut init = RequestInit::new();
    init.with_method(Method::Post)
        .with_body(Some(JsValue::from_str(&json!({ "invite": invite }).to_string())));
    let join =
        Request::new_with_init(&format!("https://game/api/games/{game_id}/join"), &init).map_err(internal)?;
    let h = join.headers();
    let set = |k: &str, v: &str| h.set(k, v).map_err(|e| ApiError::internal(e.to_string()));
    set("Content-Type", "application/json")?;
    set(glue::PLAYER_HEADER, &glue::player_header_value(&PlayerRef { id: accepter.to_owned(), linked }))?;
    let ns = env.durable_object("GAMES").map_err(internal)?;
    let stub = ns.id_from_name(game_id).map_err(internal)?.get_stub().map_err(internal)?;
    let mut resp = stub.fetch_with_request(join).await.map_err(internal)?;
    if resp.status_code() != 200 {
        return Err(ApiError::new(503, "challenge_failed", "the game could not be joined; try again"));
    }
    let joined: service::game::Joined = resp.json().await.map_err(|e| ApiError::internal(e.to_string()))?;
    Ok(Accepted { game: game_id.to_owned(), seat: joined.seat, token: joined.token, state: joined.state })
}

async fn cancel(req: &Request, db: &D1Database, id: &str) -> Res<Response> {
    let Some(player) = crate::accounts::current_player(req, db).await? else {
        return Err(ApiError::not_found("no such challenge of yours"));
    };
    let r = db
        .prepare("DELETE FROM challenges WHERE id = ?1 AND poster_id = ?2 AND game_id IS NULL")
        .bind(&[JsValue::from_str(id), JsValue::from_str(&player.id)])
        .map_err(internal)?
        .run()
        .await
        .map_err(internal)?;
    if changes(r).await != 1 {
        return Err(ApiError::not_found("no such open challenge of yours"));
    }
    json_resp(200, &Cancelled { cancelled: true }, None)
}
