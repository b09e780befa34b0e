//! The D1 index of games: one row per game (match-up, mode, timestamps, result), used
//! for capacity counts now and for statistics, player pages and ratings later. Only
//! bound parameters reach SQL.

use service::create::Load;
use service::model::GameRecord;
use worker::wasm_bindgen::JsValue;
use worker::{D1Database, Result};

/// Counts for the capacity check: unfinished games overall, and those of this creator
/// (the games its player sits in; without a session, those created from its address
/// bucket). The per-minute rates are the limiter's (`crate::limiter`).
pub async fn load(db: &D1Database, ip_hash: &str, creator: Option<&str>) -> Result<Load> {
    #[derive(serde::Deserialize)]
    struct Row {
        mine: u32,
        active: u32,
    }
    let row: Option<Row> = db
        .prepare(
            "SELECT (SELECT COUNT(*) FROM games WHERE result IS NULL AND CASE WHEN ?2 IS NULL \
                       THEN creator_ip_hash = ?1 ELSE (south_player = ?2 OR north_player = ?2) END) AS mine, \
                    (SELECT COUNT(*) FROM games WHERE result IS NULL) AS active",
        )
        .bind(&[JsValue::from_str(ip_hash), opt_str(creator)])?
        .first(None)
        .await?;
    Ok(row.map_or_else(Load::default, |r| Load { active_games: r.active, open_by_creator: r.mine }))
}

fn opt_str(s: Option<&str>) -> JsValue {
    s.map_or(JsValue::NULL, JsValue::from_str)
}

/// Writes the game's row (idempotent: safe to repeat after a failure).
pub async fn upsert(db: &D1Database, rec: &GameRecord, ip_hash: Option<&str>) -> Result<()> {
    let result = rec.result.as_ref();
    db.prepare(
        "INSERT INTO games (id, south_faction, north_faction, mode, days_per_move, creator_ip_hash, \
                            created_at, finished_at, result, winner, reason, plies, south_player, north_player) \
         VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, \
                 (SELECT id FROM players WHERE id = COALESCE((SELECT into_id FROM player_merges WHERE from_id = ?13), ?13)), \
                 (SELECT id FROM players WHERE id = COALESCE((SELECT into_id FROM player_merges WHERE from_id = ?14), ?14))) \
         ON CONFLICT(id) DO UPDATE SET finished_at = excluded.finished_at, result = excluded.result, \
             winner = excluded.winner, reason = excluded.reason, plies = excluded.plies, \
             south_player = COALESCE(excluded.south_player, south_player), \
             north_player = COALESCE(excluded.north_player, north_player)",
    )
    .bind(&[
        JsValue::from_str(&rec.id),
        JsValue::from_str(rec.south.name()),
        JsValue::from_str(rec.north.name()),
        JsValue::from_str(match rec.mode {
            service::model::Mode::Ai => "ai",
            service::model::Mode::Link => "link",
        }),
        rec.days_per_move.map_or(JsValue::NULL, |d| JsValue::from_f64(f64::from(d))),
        opt_str(ip_hash),
        JsValue::from_f64(rec.created_at as f64),
        result.map_or(JsValue::NULL, |f| JsValue::from_f64(f.at as f64)),
        opt_str(result.map(|f| f.text.as_str())),
        opt_str(result.and_then(|f| f.winner).map(|w| w.name())),
        opt_str(result.map(|f| f.reason.as_str())),
        JsValue::from_f64(rec.moves.len() as f64),
        opt_str(rec.seats[0].player.as_deref()),
        opt_str(rec.seats[1].player.as_deref()),
    ])?
    .run()
    .await?;
    Ok(())
}

/// The player a (possibly merged-away guest) id stands for, as SQL over parameter `?n`.
fn resolved(n: u8) -> String {
    format!("COALESCE((SELECT into_id FROM player_merges WHERE from_id = ?{n}), ?{n})")
}

/// A finished story stage: a win advances the player's progress and, for the story's
/// last stage, awards its badge. Only the player's current stage game counts, and the
/// update clears it, so a repeated call (an alarm retry) changes nothing.
pub async fn record_stage(db: &D1Database, rec: &GameRecord, won: bool, now_ms: i64) -> Result<()> {
    let Some(st) = rec.stage.as_ref() else { return Ok(()) };
    let Some(player) = rec.seat(st.player).player.as_deref() else { return Ok(()) };
    let p = resolved(1);
    let args = |extra: &[JsValue]| {
        let mut v = vec![JsValue::from_str(player), JsValue::from_str(&st.story), JsValue::from_str(&rec.id)];
        v.extend_from_slice(extra);
        v
    };
    let mut batch = Vec::new();
    let story = service::story::embedded().get(&st.story);
    if let Some(story) = story.filter(|s| won && st.stage + 1 == s.stages.len()) {
        let b = &story.badge;
        batch.push(
            db.prepare("INSERT OR IGNORE INTO badges (id, name, description) VALUES (?1, ?2, ?3)").bind(
                &[JsValue::from_str(&b.id), JsValue::from_str(&b.name), JsValue::from_str(&b.description)],
            )?,
        );
        batch.push(
            db.prepare(format!(
                "INSERT OR IGNORE INTO player_badges (player_id, badge_id, awarded_at) \
                 SELECT {p}, ?4, ?5 WHERE EXISTS (SELECT 1 FROM story_progress \
                     WHERE player_id = {p} AND story_id = ?2 AND current_game = ?3)"
            ))
            .bind(&args(&[JsValue::from_str(&b.id), JsValue::from_f64(now_ms as f64)]))?,
        );
    }
    let completed = if won { st.stage as f64 + 1.0 } else { 0.0 };
    batch.push(
        db.prepare(format!(
            "UPDATE story_progress SET completed = max(completed, ?4), current_game = NULL, \
                 current_stage = NULL, updated_at = ?5 \
             WHERE player_id = {p} AND story_id = ?2 AND current_game = ?3"
        ))
        .bind(&args(&[JsValue::from_f64(completed), JsValue::from_f64(now_ms as f64)]))?,
    );
    db.batch(batch).await?;
    Ok(())
}

/// Glicko-2 rating periods are this long: a player's deviation grows by one period's
/// worth for each period without rated games.
pub const RATING_PERIOD_MS: i64 = 14 * 86_400_000;

/// A finished rated game: both players' ratings are updated, exactly once (the
/// `rated_games` row is inserted in the same transaction and a second insert fails).
pub async fn apply_rating(db: &D1Database, rec: &GameRecord, now_ms: i64) -> Result<()> {
    let (Some(result), true) = (rec.result.as_ref(), rec.rated) else { return Ok(()) };
    if !service::upkeep::counts_for_rating(result) {
        return Ok(());
    }
    let (Some(south), Some(north)) = (rec.seats[0].player.as_deref(), rec.seats[1].player.as_deref()) else {
        return Ok(());
    };
    // Compare-and-set: another rated game of the same player may finish at the same
    // moment (in another Durable Object). The write applies only if neither player's
    // `rating_version` moved since it was read; otherwise it reads again.
    for _ in 0..RATING_CAS_TRIES {
        if try_apply_rating(db, rec, result, [south, north], now_ms).await? {
            return Ok(());
        }
    }
    Err(worker::Error::RustError(format!("rating update for {} kept conflicting; will retry", rec.id)))
}

/// How often [`apply_rating`] re-reads the ratings when a concurrent update moved them.
const RATING_CAS_TRIES: usize = 8;

/// One compare-and-set attempt: `Ok(true)` when the game's rating is applied (now or
/// before), `Ok(false)` when a concurrent update won and the ratings must be read again.
async fn try_apply_rating(
    db: &D1Database,
    rec: &GameRecord,
    result: &service::model::Finish,
    players: [&str; 2],
    now_ms: i64,
) -> Result<bool> {
    use service::rating::{Game, Rating};
    #[derive(serde::Deserialize)]
    struct Row {
        rating: f64,
        rating_dev: f64,
        volatility: f64,
        rated_at: Option<f64>,
        rating_version: f64,
    }
    let done: Option<serde_json::Value> = db
        .prepare("SELECT game_id FROM rated_games WHERE game_id = ?1")
        .bind(&[JsValue::from_str(&rec.id)])?
        .first(None)
        .await?;
    if done.is_some() {
        return Ok(true);
    }
    let mut now_rating = Vec::new();
    let mut versions = Vec::new();
    for id in players {
        let row: Option<Row> = db
            .prepare(
                "SELECT rating, rating_dev, volatility, rated_at, rating_version FROM players WHERE id = ?1",
            )
            .bind(&[JsValue::from_str(id)])?
            .first(None)
            .await?;
        let Some(r) = row else { return Ok(true) };
        let idle = r.rated_at.map_or(0, |t| ((now_ms - t as i64).max(0) / RATING_PERIOD_MS) as u32);
        now_rating.push(
            Rating { rating: r.rating, deviation: r.rating_dev, volatility: r.volatility }
                .after_inactivity(idle.min(100)),
        );
        versions.push(r.rating_version);
    }
    let score_south = match result.winner {
        Some(engine::Side::South) => 1.0,
        Some(engine::Side::North) => 0.0,
        None => 0.5,
    };
    let new_south = now_rating[0].update(&[Game { opponent: now_rating[1], score: score_south }]);
    let new_north = now_rating[1].update(&[Game { opponent: now_rating[0], score: 1.0 - score_south }]);
    let (game, at) = (JsValue::from_str(&rec.id), JsValue::from_f64(now_ms as f64));
    // One transaction: the marker row goes in only if both versions are as read; each
    // rating moves only if this marker (this game, this attempt's time) went in.
    let set = |id: &str, r: Rating, version: f64| {
        db.prepare(
            "UPDATE players SET rating = ?1, rating_dev = ?2, volatility = ?3, rated_at = ?4, \
                 rating_version = rating_version + 1 \
             WHERE id = ?5 AND rating_version = ?6 \
               AND EXISTS (SELECT 1 FROM rated_games WHERE game_id = ?7 AND applied_at = ?4)",
        )
        .bind(&[
            JsValue::from_f64(r.rating),
            JsValue::from_f64(r.deviation),
            JsValue::from_f64(r.volatility),
            at.clone(),
            JsValue::from_str(id),
            JsValue::from_f64(version),
            game.clone(),
        ])
    };
    db.batch(vec![
        db.prepare(
            "INSERT INTO rated_games (game_id, applied_at) SELECT ?1, ?2 \
             WHERE (SELECT rating_version FROM players WHERE id = ?3) = ?4 \
               AND (SELECT rating_version FROM players WHERE id = ?5) = ?6",
        )
        .bind(&[
            game.clone(),
            at.clone(),
            JsValue::from_str(players[0]),
            JsValue::from_f64(versions[0]),
            JsValue::from_str(players[1]),
            JsValue::from_f64(versions[1]),
        ])?,
        set(players[0], new_south, versions[0])?,
        set(players[1], new_north, versions[1])?,
    ])
    .await?;
    let applied: Option<serde_json::Value> =
        db.prepare("SELECT game_id FROM rated_games WHERE game_id = ?1").bind(&[game])?.first(None).await?;
    Ok(applied.is_some())
}
