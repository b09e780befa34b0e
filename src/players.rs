//! Players' pages and the story mode: stories and progress, starting, exiting and
//! resetting stages, Player Info, the leaderboard and the match-up statistics. Reads and
//! progress live in D1 (bound parameters only); a stage's game is an ordinary `ai` game
//! in its own Durable Object, whose result alone advances the story (`index::record_stage`).

use serde::Deserialize;
use serde_json::{json, Value};
use service::create::{CreateGame, SeatChoice};
use service::http::PlayerRef;
use service::model::{Mode, StageRef};
use service::story::{self, Story};
use service::ApiError;
use worker::wasm_bindgen::JsValue;
use worker::{D1Database, Env, Method, Request, Response};

use crate::accounts::{current_player, player_if_any, player_or_guest, with_cookie};
use crate::game_object::{AbandonCall, CreateCall, ABANDON_PATH, CREATE_PATH};
use crate::glue::{self, OsRandom};
use crate::router::{check_load, internal_call};
use service::tokens::Random;

type Res<T> = std::result::Result<T, ApiError>;

fn internal(e: worker::Error) -> ApiError {
    ApiError::new(503, "storage_unavailable", e.to_string())
}

fn s(v: &str) -> JsValue {
    JsValue::from_str(v)
}

pub async fn handle(req: &mut Request, env: &Env, path: &str) -> Res<Response> {
    let db = env.d1("DB").map_err(internal)?;
    let parts: Vec<&str> = path.trim_start_matches("/api/").split('/').collect();
    let method = req.method();
    match (method, parts.as_slice()) {
        // A read: without a session, the stories as a new player sees them (no guest made).
        (Method::Get, ["stories"]) => {
            let player = player_if_any(req, &db).await?.unwrap_or_default();
            let mut out = Vec::new();
            for st in story::embedded().all() {
                out.push(story_json(&db, st, &player).await?);
            }
            json_response(&json!({ "stories": out }), None)
        }
        (Method::Post, ["stories", id, "stages", n]) => {
            let st = find_story(id)?;
            let index: usize =
                n.parse().map_err(|_| ApiError::not_found(format!("no stage '{n}' in this story")))?;
            start_stage(req, env, &db, st, index).await
        }
        (Method::Post, ["stories", id, action @ ("exit" | "reset")]) => {
            let st = find_story(id)?;
            if *action == "reset" {
                #[derive(Deserialize)]
                #[serde(deny_unknown_fields)]
                struct Confirm {
                    confirm: bool,
                }
                let api = glue::api_request(req).await?;
                let c: Confirm = service::http::parse_json(&api.body)?;
                if !c.confirm {
                    return Err(ApiError::new(
                        422,
                        "confirmation_required",
                        "resetting a story's progress needs {\"confirm\": true}",
                    ));
                }
            }
            let (player, cookie) = player_or_guest(req, &db).await?;
            abandon_current(env, &db, &st.id, &player).await?;
            if *action == "reset" {
                db.prepare(
                    "UPDATE story_progress SET completed = 0, current_game = NULL, current_stage = NULL, \
                         updated_at = ?3 WHERE player_id = ?1 AND story_id = ?2",
                )
                .bind(&[s(&player), s(&st.id), JsValue::from_f64(glue::now_ms() as f64)])
                .map_err(internal)?
                .run()
                .await
                .map_err(internal)?;
            }
            json_response(&story_json(&db, st, &player).await?, cookie.as_deref())
        }
        (Method::Get, ["players", id]) => {
            if !service::game::valid_id(id) {
                return Err(ApiError::not_found("no such player"));
            }
            json_response(&player_info(&db, id).await?, None)
        }
        (Method::Get, ["leaderboard"]) => json_response(&leaderboard(&db).await?, None),
        (Method::Get, ["stats", "matchups"]) => json_response(&matchups(&db).await?, None),
        (_, ["stories", ..] | ["players", ..] | ["leaderboard"] | ["stats", "matchups"]) => {
            Err(ApiError::new(405, "method_not_allowed", "this method is not allowed on this route"))
        }
        _ => Err(ApiError::not_found(format!("no route {path}"))),
    }
}

/// Every row of a query (bound parameters only).
async fn rows<T: serde::de::DeserializeOwned>(db: &D1Database, sql: &str, args: &[JsValue]) -> Res<Vec<T>> {
    glue::d1_rows(db, sql, args).await.map_err(internal)
}

fn json_response(v: &Value, cookie: Option<&str>) -> Res<Response> {
    with_cookie(Response::from_json(v).map_err(|e| ApiError::internal(e.to_string()))?, cookie)
}

fn find_story(id: &str) -> Res<&'static Story> {
    story::embedded()
        .get(id)
        .ok_or_else(|| ApiError::not_found(format!("no story '{}'", id.chars().take(40).collect::<String>())))
}

#[derive(Deserialize)]
struct Progress {
    completed: f64,
    current_game: Option<String>,
    current_stage: Option<f64>,
}

async fn progress(db: &D1Database, story: &str, player: &str) -> Res<Progress> {
    let row: Option<Progress> = db
        .prepare(
            "SELECT completed, current_game, current_stage FROM story_progress \
             WHERE player_id = ?1 AND story_id = ?2",
        )
        .bind(&[s(player), s(story)])
        .map_err(internal)?
        .first(None)
        .await
        .map_err(internal)?;
    Ok(row.unwrap_or(Progress { completed: 0.0, current_game: None, current_stage: None }))
}

/// A story as the player sees it: the stages, which are unlocked and completed, the
/// stage being played, and whether the badge is earned.
async fn story_json(db: &D1Database, st: &Story, player: &str) -> Res<Value> {
    let p = progress(db, &st.id, player).await?;
    let completed = (p.completed as usize).min(st.stages.len());
    let earned: Option<Value> = db
        .prepare("SELECT badge_id FROM player_badges WHERE player_id = ?1 AND badge_id = ?2")
        .bind(&[s(player), s(&st.badge.id)])
        .map_err(internal)?
        .first(None)
        .await
        .map_err(internal)?;
    let stages: Vec<Value> = st
        .stages
        .iter()
        .enumerate()
        .map(|(i, stage)| {
            json!({
                "index": i,
                "title": stage.title,
                "intro": stage.intro,
                "side": stage.side,
                "level": stage.level,
                "goal": stage.goal_text(),
                "position": stage.position,
                "completed": i < completed,
                "unlocked": i <= completed,
            })
        })
        .collect();
    Ok(json!({
        "id": st.id,
        "title": st.title,
        "faction": st.faction,
        "summary": st.summary,
        "badge": st.badge,
        "badge_earned": earned.is_some(),
        "completed": completed,
        "current_game": p.current_game,
        "current_stage": p.current_stage.map(|c| c as usize),
        "stages": stages,
    }))
}

#[derive(Deserialize)]
struct Merged {
    from_id: String,
}

/// Ends the stage game being played, if any (a loss: "abandoned"), and forgets it.
async fn abandon_current(env: &Env, db: &D1Database, story: &str, player: &str) -> Res<()> {
    let p = progress(db, story, player).await?;
    if let Some(game) = p.current_game {
        if service::game::valid_id(&game) {
            // The guests merged into this player are it too (their stage games name them).
            let aliases: Vec<String> =
                rows::<Merged>(db, "SELECT from_id FROM player_merges WHERE into_id = ?1", &[s(player)])
                    .await?
                    .into_iter()
                    .map(|m| m.from_id)
                    .collect();
            let call = AbandonCall { player: player.to_owned(), aliases };
            let resp = internal_call(env, &game, ABANDON_PATH, &call).await?;
            let status = resp.status_code();
            if status != 200 && status != 404 {
                return Err(ApiError::new(
                    503,
                    "stage_not_ended",
                    "the stage being played could not be ended",
                ));
            }
        }
        db.prepare(
            "UPDATE story_progress SET current_game = NULL, current_stage = NULL \
             WHERE player_id = ?1 AND story_id = ?2 AND current_game = ?3",
        )
        .bind(&[s(player), s(story), s(&game)])
        .map_err(internal)?
        .run()
        .await
        .map_err(internal)?;
    }
    Ok(())
}

async fn start_stage(
    req: &mut Request,
    env: &Env,
    db: &D1Database,
    st: &Story,
    index: usize,
) -> Res<Response> {
    let stage = st
        .stage(index)
        .ok_or_else(|| ApiError::not_found(format!("story '{}' has no stage {index}", st.id)))?;
    let origin = glue::api_request(req).await?.origin;
    let (player, cookie) = player_or_guest(req, db).await?;
    let p = progress(db, &st.id, &player).await?;
    if index > p.completed as usize {
        return Err(ApiError::new(
            403,
            "stage_locked",
            format!("stage {} unlocks when stage {} is completed", index + 1, index),
        ));
    }
    let ip_hash = check_load(req, env, Some(&player)).await?;
    abandon_current(env, db, &st.id, &player).await?;
    let linked = current_player(req, db).await?.is_some_and(|p| p.linked);
    let pos = stage.position;
    let game = CreateGame {
        south: pos.faction(engine::Side::South),
        north: pos.faction(engine::Side::North),
        seat: if stage.side == engine::Side::South { SeatChoice::South } else { SeatChoice::North },
        mode: Mode::Ai,
        days_per_move: None,
        level: Some(stage.level),
        rated: false,
    };
    let id = OsRandom.id()?;
    let call = CreateCall {
        id: id.clone(),
        game,
        origin,
        ip_hash,
        creator: Some(PlayerRef { id: player.clone(), linked }),
        start: Some(pos),
        stage: Some(StageRef {
            story: st.id.clone(),
            stage: index,
            title: stage.title.clone(),
            player: stage.side,
            goal: stage.goal,
        }),
    };
    let mut resp = internal_call(env, &id, CREATE_PATH, &call).await?;
    let status = resp.status_code();
    let body: Value = resp.json().await.map_err(|e| ApiError::internal(e.to_string()))?;
    if status == 201 {
        db.prepare(
            "INSERT INTO story_progress (player_id, story_id, completed, current_game, current_stage, updated_at) \
             VALUES (?1, ?2, 0, ?3, ?4, ?5) ON CONFLICT(player_id, story_id) DO UPDATE SET \
                 current_game = excluded.current_game, current_stage = excluded.current_stage, \
                 updated_at = excluded.updated_at",
        )
        .bind(&[
            s(&player),
            s(&st.id),
            s(&id),
            JsValue::from_f64(index as f64),
            JsValue::from_f64(glue::now_ms() as f64),
        ])
        .map_err(internal)?
        .run()
        .await
        .map_err(internal)?;
    }
    let r = Response::from_json(&body).map_err(|e| ApiError::internal(e.to_string()))?.with_status(status);
    with_cookie(r, cookie.as_deref())
}

/// A player's badges, in the order earned: `[{id, name, description}]`.
pub async fn badges(db: &D1Database, player: &str) -> Res<Vec<Value>> {
    #[derive(Deserialize)]
    struct Row {
        id: String,
        name: String,
        description: String,
    }
    let found: Vec<Row> = rows(
        db,
        "SELECT b.id, b.name, b.description FROM player_badges pb JOIN badges b ON b.id = pb.badge_id \
             WHERE pb.player_id = ?1 ORDER BY pb.awarded_at, b.id",
        &[s(player)],
    )
    .await?;
    Ok(found
        .into_iter()
        .map(|r| json!({ "id": r.id, "name": r.name, "description": r.description }))
        .collect())
}

/// Player Info: name, badges, rating, games played and won by faction and match-up,
/// recent games with links to their records.
async fn player_info(db: &D1Database, id: &str) -> Res<Value> {
    #[derive(Deserialize)]
    struct P {
        display_name: Option<String>,
        rating: f64,
        rating_dev: f64,
        rated_at: Option<f64>,
        discord_id: Option<String>,
    }
    let p: P = db
        .prepare("SELECT display_name, rating, rating_dev, rated_at, discord_id FROM players WHERE id = ?1")
        .bind(&[s(id)])
        .map_err(internal)?
        .first(None)
        .await
        .map_err(internal)?
        .ok_or_else(|| ApiError::not_found("no such player"))?;
    #[derive(Deserialize)]
    struct G {
        id: String,
        south_faction: String,
        north_faction: String,
        mode: String,
        side: String,
        winner: Option<String>,
        result: String,
        finished_at: Option<f64>,
        rated: f64,
        self_play: f64,
    }
    let games: Vec<G> = rows(
        db,
        "SELECT g.id, g.south_faction, g.north_faction, g.mode, \
                 CASE WHEN g.south_player = ?1 THEN 'south' ELSE 'north' END AS side, \
                 g.winner, g.result, g.finished_at, \
                 EXISTS (SELECT 1 FROM rated_games r WHERE r.game_id = g.id) AS rated, \
                 COALESCE(g.south_player = g.north_player, 0) AS self_play \
             FROM games g WHERE (g.south_player = ?1 OR g.north_player = ?1) AND g.result IS NOT NULL \
                 AND g.result NOT LIKE 'aborted%' \
             ORDER BY g.finished_at DESC",
        &[s(id)],
    )
    .await?;
    let mut by_faction: std::collections::BTreeMap<String, (u32, u32)> = Default::default();
    let mut by_matchup: std::collections::BTreeMap<(String, String, String), (u32, u32)> = Default::default();
    let (mut played, mut won) = (0, 0);
    // A game against oneself (both seats the same player) is listed but not counted.
    for g in games.iter().filter(|g| g.self_play == 0.0) {
        let mine = if g.side == "south" { &g.south_faction } else { &g.north_faction };
        let w = u32::from(g.winner.as_deref() == Some(g.side.as_str()));
        played += 1;
        won += w;
        let f = by_faction.entry(mine.clone()).or_default();
        f.0 += 1;
        f.1 += w;
        let m =
            by_matchup.entry((g.south_faction.clone(), g.north_faction.clone(), g.side.clone())).or_default();
        m.0 += 1;
        m.1 += w;
    }
    Ok(json!({
        "id": id,
        "name": p.display_name,
        "discord_linked": p.discord_id.is_some(),
        "badges": badges(db, id).await?,
        "rating": { "rating": p.rating.round(), "deviation": p.rating_dev.round(), "rated": p.rated_at.is_some() },
        "games": { "played": played, "won": won },
        "by_faction": by_faction.into_iter().map(|(f, (n, w))| json!({ "faction": f, "played": n, "won": w })).collect::<Vec<_>>(),
        "by_matchup": by_matchup.into_iter().map(|((so, no, side), (n, w))| json!({
            "south": so, "north": no, "side": side, "played": n, "won": w,
        })).collect::<Vec<_>>(),
        "recent": games.iter().take(10).map(|g| json!({
            "id": g.id,
            "south": g.south_faction,
            "north": g.north_faction,
            "mode": g.mode,
            "side": g.side,
            "result": g.result,
            "won": g.winner.as_deref() == Some(g.side.as_str()),
            "rated": g.rated != 0.0,
            "self_play": g.self_play != 0.0,
            "finished_at": g.finished_at.map(|t| t as i64),
            "record": format!("/api/games/{}/record", g.id),
        })).collect::<Vec<_>>(),
    }))
}

/// The 50 best-rated players (those with at least one rated game), with their badges.
async fn leaderboard(db: &D1Database) -> Res<Value> {
    #[derive(Deserialize)]
    struct Row {
        id: String,
        display_name: Option<String>,
        rating: f64,
        rating_dev: f64,
    }
    let found: Vec<Row> = rows(
        db,
        "SELECT id, display_name, rating, rating_dev FROM players WHERE rated_at IS NOT NULL \
             ORDER BY rating DESC, id LIMIT 50",
        &[],
    )
    .await?;
    let mut out = Vec::new();
    for (i, r) in found.into_iter().enumerate() {
        out.push(json!({
            "rank": i + 1,
            "id": r.id,
            "name": r.display_name,
            "rating": r.rating.round(),
            "deviation": r.rating_dev.round(),
            "badges": badges(db, &r.id).await?,
        }));
    }
    Ok(json!({ "players": out }))
}

/// Finished human-vs-human games (link games in which a move was played) per match-up.
async fn matchups(db: &D1Database) -> Res<Value> {
    #[derive(Deserialize)]
    struct Row {
        south_faction: String,
        north_faction: String,
        games: f64,
        south_wins: f64,
        north_wins: f64,
        draws: f64,
    }
    let found: Vec<Row> = rows(
        db,
        "SELECT south_faction, north_faction, COUNT(*) AS games, \
                 SUM(winner = 'south') AS south_wins, SUM(winner = 'north') AS north_wins, \
                 SUM(winner IS NULL) AS draws \
             FROM games WHERE mode = 'link' AND result IS NOT NULL AND plies > 0 \
                 AND result NOT LIKE 'aborted%' \
                 AND NOT COALESCE(south_player = north_player, 0) \
             GROUP BY south_faction, north_faction",
        &[],
    )
    .await?;
    let mut out = Vec::new();
    for so in engine::Faction::ALL {
        for no in engine::Faction::ALL {
            let r = found.iter().find(|r| r.south_faction == so.name() && r.north_faction == no.name());
            let n = |f: fn(&Row) -> f64| r.map_or(0, |r| f(r) as u64);
            out.push(json!({
                "south": so.name(),
                "north": no.name(),
                "games": n(|r| r.games),
                "south_wins": n(|r| r.south_wins),
                "north_wins": n(|r| r.north_wins),
                "draws": n(|r| r.draws),
            }));
        }
    }
    Ok(
        json!({ "matchups": out, "counted": "finished link games (human vs human, two different players) with at least one move, aborted games aside" }),
    )
}
