//! `service::player_store::PlayerStore` over D1: SQL, bound parameters and the mapping of
//! rows, nothing else (the rules are in `service::players`, tested natively). Every write
//! is one batch (one transaction) that re-checks its precondition in SQL, so a race with
//! another Worker or a retried call applies nothing twice.

use serde::de::DeserializeOwned;
use serde::Deserialize;
use service::model::{FinishReason, Mode};
use service::player_store::{
    FinishedGame, Merge, NameClaim, PlayerRow, PlayerStore, Progress, RatingCommit, SessionRow, StageDone,
    StoreError, StoreResult, Tally,
};
use service::rating::Rating;
use service::story::Badge;
use worker::wasm_bindgen::JsValue;
use worker::{D1Database, D1PreparedStatement};

use crate::glue;

/// The most parameters D1 binds to one statement.
const D1_MAX_PARAMS: usize = 100;

/// The D1 database as a [`PlayerStore`].
pub struct D1Players<'a>(pub &'a D1Database);

fn err(e: worker::Error) -> StoreError {
    StoreError(e.to_string())
}

fn s(v: &str) -> JsValue {
    JsValue::from_str(v)
}

fn n(v: f64) -> JsValue {
    JsValue::from_f64(v)
}

/// D1 numbers arrive as JavaScript numbers.
fn int(v: f64) -> i64 {
    v as i64
}

/// A name-checked text column (a faction, side or mode as the schema's CHECK allows).
fn parse<T: DeserializeOwned>(v: &str) -> StoreResult<T> {
    serde_json::from_value(serde_json::Value::String(v.to_owned()))
        .map_err(|e| StoreError(format!("unexpected value {v:?} in D1: {e}")))
}

/// A stored finish reason; one this version does not know reads as `None` (an old row
/// must not make a whole page fail).
fn reason(v: Option<&str>) -> Option<FinishReason> {
    v.and_then(|r| parse(r).ok())
}

#[derive(Deserialize)]
struct PlayerSql {
    id: String,
    display_name: Option<String>,
    discord_id: Option<String>,
    rating: f64,
    rating_dev: f64,
    volatility: f64,
    rated_at: Option<f64>,
    rating_version: f64,
}

const PLAYER_COLUMNS: &str =
    "id, display_name, discord_id, rating, rating_dev, volatility, rated_at, rating_version";

impl From<PlayerSql> for PlayerRow {
    fn from(r: PlayerSql) -> PlayerRow {
        PlayerRow {
            id: r.id,
            display_name: r.display_name,
            discord_id: r.discord_id,
            rating: Rating { rating: r.rating, deviation: r.rating_dev, volatility: r.volatility },
            rated_at: r.rated_at.map(int),
            rating_version: int(r.rating_version),
        }
    }
}

#[derive(Deserialize)]
struct ProgressSql {
    #[serde(default)]
    story_id: String,
    completed: f64,
    current_game: Option<String>,
    current_stage: Option<f64>,
}

impl ProgressSql {
    fn progress(&self) -> Progress {
        Progress {
            completed: self.completed.max(0.0) as usize,
            current_game: self.current_game.clone(),
            current_stage: self.current_stage.map(|c| c.max(0.0) as usize),
        }
    }
}

impl D1Players<'_> {
    fn stmt(&self, sql: &str, args: &[JsValue]) -> StoreResult<D1PreparedStatement> {
        self.0.prepare(sql).bind(args).map_err(err)
    }

    fn strs(&self, sql: &str, args: &[&str]) -> StoreResult<D1PreparedStatement> {
        self.stmt(sql, &args.iter().map(|a| s(a)).collect::<Vec<_>>())
    }

    async fn rows<T: DeserializeOwned>(&self, sql: &str, args: &[JsValue]) -> StoreResult<Vec<T>> {
        glue::d1_rows(self.0, sql, args).await.map_err(err)
    }

    async fn first<T: DeserializeOwned>(&self, sql: &str, args: &[JsValue]) -> StoreResult<Option<T>> {
        self.stmt(sql, args)?.first(None).await.map_err(err)
    }

    async fn exists(&self, sql: &str, args: &[JsValue]) -> StoreResult<bool> {
        Ok(self.first::<serde_json::Value>(sql, args).await?.is_some())
    }

    async fn batch(&self, stmts: Vec<D1PreparedStatement>) -> StoreResult<()> {
        self.0.batch(stmts).await.map_err(err)?;
        Ok(())
    }
}

impl D1Players<'_> {
    fn insert_session(&self, r: &SessionRow) -> StoreResult<D1PreparedStatement> {
        self.stmt(
            "INSERT INTO sessions (token_hash, player_id, created_at, expires_at) VALUES (?1, ?2, ?3, ?4)",
            &[s(&r.token_hash), s(&r.player), n(r.created_at as f64), n(r.expires_at as f64)],
        )
    }

    async fn changes(&self, sql: &str, arg: &str) -> StoreResult<u64> {
        let r = self.strs(sql, &[arg])?.run().await.map_err(err)?;
        Ok(r.meta().ok().flatten().and_then(|m| m.changes).map_or(1, |c| c as u64))
    }
}

impl PlayerStore for D1Players<'_> {
    async fn session_player(&self, token_hash: &str, now: i64) -> StoreResult<Option<String>> {
        #[derive(Deserialize)]
        struct Row {
            player_id: String,
        }
        let row: Option<Row> = self
            .first(
                "SELECT player_id FROM sessions WHERE token_hash = ?1 AND expires_at > ?2",
                &[s(token_hash), n(now as f64)],
            )
            .await?;
        Ok(row.map(|r| r.player_id))
    }

    async fn create_guest(&self, p: &PlayerRow, session: &SessionRow) -> StoreResult<()> {
        self.batch(vec![
            self.stmt(
                "INSERT INTO players (id, display_name, created_at) VALUES (?1, ?2, ?3)",
                &[s(&p.id), p.display_name.as_deref().map_or(JsValue::NULL, s), n(session.created_at as f64)],
            )?,
            self.insert_session(session)?,
        ])
        .await
    }

    async fn start_session(&self, session: &SessionRow, replacing: &str) -> StoreResult<()> {
        self.batch(vec![
            self.strs("DELETE FROM sessions WHERE token_hash = ?1", &[replacing])?,
            self.insert_session(session)?,
        ])
        .await
    }

    async fn end_session(&self, token_hash: &str) -> StoreResult<u64> {
        self.changes("DELETE FROM sessions WHERE token_hash = ?1", token_hash).await
    }

    async fn end_sessions_of(&self, player: &str) -> StoreResult<u64> {
        self.changes("DELETE FROM sessions WHERE player_id = ?1", player).await
    }

    async fn player(&self, id: &str) -> StoreResult<Option<PlayerRow>> {
        let sql = format!("SELECT {PLAYER_COLUMNS} FROM players WHERE id = ?1");
        Ok(self.first::<PlayerSql>(&sql, &[s(id)]).await?.map(PlayerRow::from))
    }

    async fn player_by_discord(&self, discord_id: &str) -> StoreResult<Option<PlayerRow>> {
        let sql = format!("SELECT {PLAYER_COLUMNS} FROM players WHERE discord_id = ?1");
        Ok(self.first::<PlayerSql>(&sql, &[s(discord_id)]).await?.map(PlayerRow::from))
    }

    async fn top_rated(&self, limit: u32) -> StoreResult<Vec<PlayerRow>> {
        let sql = format!(
            "SELECT {PLAYER_COLUMNS} FROM players WHERE rated_at IS NOT NULL ORDER BY rating DESC, id LIMIT ?1"
        );
        Ok(self
            .rows::<PlayerSql>(&sql, &[n(f64::from(limit))])
            .await?
            .into_iter()
            .map(PlayerRow::from)
            .collect())
    }

    async fn badges_of(&self, players: &[&str]) -> StoreResult<Vec<(String, Badge)>> {
        if players.is_empty() {
            return Ok(Vec::new());
        }
        #[derive(Deserialize)]
        struct Row {
            player_id: String,
            id: String,
            name: String,
            description: String,
        }
        // One query for all of them: `IN (?1, ?2, …)`, the ids bound. D1 binds at most
        // 100 parameters, so a longer list takes one query per 100 (a player's badges are
        // all in its chunk, in the order earned).
        let mut out = Vec::new();
        for chunk in players.chunks(D1_MAX_PARAMS) {
            let marks: Vec<String> = (1..=chunk.len()).map(|i| format!("?{i}")).collect();
            let sql = format!(
                "SELECT pb.player_id, b.id, b.name, b.description FROM player_badges pb \
                     JOIN badges b ON b.id = pb.badge_id \
                 WHERE pb.player_id IN ({}) ORDER BY pb.awarded_at, b.id",
                marks.join(", ")
            );
            let args: Vec<JsValue> = chunk.iter().map(|p| s(p)).collect();
            let rows: Vec<Row> = self.rows(&sql, &args).await?;
            out.extend(
                rows.into_iter()
                    .map(|r| (r.player_id, Badge { id: r.id, name: r.name, description: r.description })),
            );
        }
        Ok(out)
    }

    async fn has_badge(&self, player: &str, badge: &str) -> StoreResult<bool> {
        self.exists(
            "SELECT 1 AS x FROM player_badges WHERE player_id = ?1 AND badge_id = ?2",
            &[s(player), s(badge)],
        )
        .await
    }

    async fn finished_games(&self, player: &str) -> StoreResult<Vec<FinishedGame>> {
        #[derive(Deserialize)]
        struct Row {
            id: String,
            south_faction: String,
            north_faction: String,
            mode: String,
            south_player: Option<String>,
            north_player: Option<String>,
            winner: Option<String>,
            result: String,
            reason: Option<String>,
            finished_at: Option<f64>,
            rated: f64,
        }
        let rows: Vec<Row> = self
            .rows(
                "SELECT g.id, g.south_faction, g.north_faction, g.mode, g.south_player, g.north_player, \
                         g.winner, g.result, g.reason, g.finished_at, \
                         EXISTS (SELECT 1 FROM rated_games r WHERE r.game_id = g.id) AS rated \
                 FROM games g WHERE (g.south_player = ?1 OR g.north_player = ?1) AND g.result IS NOT NULL \
                 ORDER BY g.finished_at DESC",
                &[s(player)],
            )
            .await?;
        rows.into_iter()
            .map(|r| {
                Ok(FinishedGame {
                    id: r.id,
                    south: parse(&r.south_faction)?,
                    north: parse(&r.north_faction)?,
                    mode: parse::<Mode>(&r.mode)?,
                    south_player: r.south_player,
                    north_player: r.north_player,
                    winner: r.winner.as_deref().map(parse).transpose()?,
                    result: r.result,
                    reason: reason(r.reason.as_deref()),
                    finished_at: r.finished_at.map(int),
                    rated: r.rated != 0.0,
                })
            })
            .collect()
    }

    async fn tallies(&self) -> StoreResult<Vec<Tally>> {
        #[derive(Deserialize)]
        struct Row {
            south_faction: String,
            north_faction: String,
            mode: String,
            winner: Option<String>,
            reason: Option<String>,
            moved: f64,
            self_play: f64,
            games: f64,
        }
        // Aggregated in SQL: a few hundred rows at most, whatever the number of games.
        let rows: Vec<Row> = self
            .rows(
                "SELECT south_faction, north_faction, mode, winner, reason, plies > 0 AS moved, \
                         COALESCE(south_player = north_player, 0) AS self_play, COUNT(*) AS games \
                 FROM games WHERE result IS NOT NULL \
                 GROUP BY south_faction, north_faction, mode, winner, reason, moved, self_play",
                &[],
            )
            .await?;
        rows.into_iter()
            .map(|r| {
                Ok(Tally {
                    south: parse(&r.south_faction)?,
                    north: parse(&r.north_faction)?,
                    mode: parse(&r.mode)?,
                    winner: r.winner.as_deref().map(parse).transpose()?,
                    reason: reason(r.reason.as_deref()),
                    moved: r.moved != 0.0,
                    self_play: r.self_play != 0.0,
                    games: r.games as u64,
                })
            })
            .collect()
    }

    async fn resolve(&self, id: &str) -> StoreResult<String> {
        #[derive(Deserialize)]
        struct Row {
            into_id: String,
        }
        let row: Option<Row> =
            self.first("SELECT into_id FROM player_merges WHERE from_id = ?1", &[s(id)]).await?;
        Ok(row.map_or_else(|| id.to_owned(), |r| r.into_id))
    }

    async fn aliases(&self, player: &str) -> StoreResult<Vec<String>> {
        #[derive(Deserialize)]
        struct Row {
            from_id: String,
        }
        let rows: Vec<Row> =
            self.rows("SELECT from_id FROM player_merges WHERE into_id = ?1", &[s(player)]).await?;
        Ok(rows.into_iter().map(|r| r.from_id).collect())
    }

    async fn progress(&self, player: &str, story: &str) -> StoreResult<Progress> {
        let row: Option<ProgressSql> = self
            .first(
                "SELECT completed, current_game, current_stage FROM story_progress \
                 WHERE player_id = ?1 AND story_id = ?2",
                &[s(player), s(story)],
            )
            .await?;
        Ok(row.map(|r| r.progress()).unwrap_or_default())
    }

    async fn all_progress(&self, player: &str) -> StoreResult<Vec<(String, Progress)>> {
        let rows: Vec<ProgressSql> = self
            .rows(
                "SELECT story_id, completed, current_game, current_stage FROM story_progress WHERE player_id = ?1",
                &[s(player)],
            )
            .await?;
        Ok(rows.into_iter().map(|r| (r.story_id.clone(), r.progress())).collect())
    }

    async fn set_current_stage(
        &self,
        player: &str,
        story: &str,
        game: &str,
        stage: usize,
        at: i64,
    ) -> StoreResult<()> {
        self.stmt(
            "INSERT INTO story_progress (player_id, story_id, completed, current_game, current_stage, updated_at) \
             VALUES (?1, ?2, 0, ?3, ?4, ?5) ON CONFLICT(player_id, story_id) DO UPDATE SET \
                 current_game = excluded.current_game, current_stage = excluded.current_stage, \
                 updated_at = excluded.updated_at",
            &[s(player), s(story), s(game), n(stage as f64), n(at as f64)],
        )?
        .run()
        .await
        .map_err(err)?;
        Ok(())
    }

    async fn clear_current_game(&self, player: &str, story: &str, game: &str) -> StoreResult<()> {
        self.strs(
            "UPDATE story_progress SET current_game = NULL, current_stage = NULL \
             WHERE player_id = ?1 AND story_id = ?2 AND current_game = ?3",
            &[player, story, game],
        )?
        .run()
        .await
        .map_err(err)?;
        Ok(())
    }

    async fn reset_story(&self, player: &str, story: &str, at: i64) -> StoreResult<()> {
        self.stmt(
            "UPDATE story_progress SET completed = 0, current_game = NULL, current_stage = NULL, \
                 updated_at = ?3 WHERE player_id = ?1 AND story_id = ?2",
            &[s(player), s(story), n(at as f64)],
        )?
        .run()
        .await
        .map_err(err)?;
        Ok(())
    }

    async fn finish_stage(&self, d: &StageDone) -> StoreResult<()> {
        let at = n(d.at as f64);
        let mut batch = Vec::new();
        // Every statement applies only while `game` is the current stage game; the last
        // clears it.
        if let Some(b) = &d.badge {
            batch.push(self.strs(
                "INSERT OR IGNORE INTO badges (id, name, description) VALUES (?1, ?2, ?3)",
                &[&b.id, &b.name, &b.description],
            )?);
            batch.push(self.stmt(
                "INSERT OR IGNORE INTO player_badges (player_id, badge_id, awarded_at) \
                 SELECT ?1, ?4, ?5 WHERE EXISTS (SELECT 1 FROM story_progress \
                     WHERE player_id = ?1 AND story_id = ?2 AND current_game = ?3)",
                &[s(&d.player), s(&d.story), s(&d.game), s(&b.id), at.clone()],
            )?);
        }
        batch.push(self.stmt(
            "UPDATE story_progress SET completed = max(completed, ?4), current_game = NULL, \
                 current_stage = NULL, updated_at = ?5 \
             WHERE player_id = ?1 AND story_id = ?2 AND current_game = ?3",
            &[s(&d.player), s(&d.story), s(&d.game), n(d.completed as f64), at],
        )?);
        self.batch(batch).await
    }

    async fn rating_applied(&self, game: &str) -> StoreResult<bool> {
        self.exists("SELECT game_id FROM rated_games WHERE game_id = ?1", &[s(game)]).await
    }

    async fn commit_rating(&self, c: &RatingCommit) -> StoreResult<bool> {
        let (game, at) = (s(&c.game), n(c.at as f64));
        // The marker row goes in only if both versions are as read; each rating moves
        // only if this marker (this game, this attempt's time) went in.
        let set = |(id, version, r): &(String, i64, Rating)| {
            self.stmt(
                "UPDATE players SET rating = ?1, rating_dev = ?2, volatility = ?3, rated_at = ?4, \
                     rating_version = rating_version + 1 \
                 WHERE id = ?5 AND rating_version = ?6 \
                   AND EXISTS (SELECT 1 FROM rated_games WHERE game_id = ?7 AND applied_at = ?4)",
                &[
                    n(r.rating),
                    n(r.deviation),
                    n(r.volatility),
                    at.clone(),
                    s(id),
                    n(*version as f64),
                    game.clone(),
                ],
            )
        };
        let [south, north] = &c.players;
        self.batch(vec![
            self.stmt(
                "INSERT INTO rated_games (game_id, applied_at) SELECT ?1, ?2 \
                 WHERE (SELECT rating_version FROM players WHERE id = ?3) = ?4 \
                   AND (SELECT rating_version FROM players WHERE id = ?5) = ?6",
                &[game.clone(), at.clone(), s(&south.0), n(south.1 as f64), s(&north.0), n(north.1 as f64)],
            )?,
            set(south)?,
            set(north)?,
        ])
        .await?;
        self.rating_applied(&c.game).await
    }

    async fn name_taken(&self, name: &NameClaim, player: &str) -> StoreResult<bool> {
        self.exists(
            "SELECT player_id AS id FROM player_names WHERE name_key = ?3 AND player_id != ?2 \
             UNION ALL SELECT id FROM players WHERE lower(display_name) = lower(?1) AND id != ?2 LIMIT 1",
            &[s(&name.name), s(player), s(&name.key)],
        )
        .await
    }

    async fn claim_name(&self, player: &str, name: &NameClaim) -> StoreResult<bool> {
        // The primary key on the normalised name settles a race between two players
        // choosing look-alike names at once: the batch is one transaction.
        let claimed = self
            .0
            .batch(vec![
                self.strs("DELETE FROM player_names WHERE player_id = ?1", &[player])?,
                self.strs(
                    "INSERT INTO player_names (name_key, player_id) VALUES (?1, ?2)",
                    &[&name.key, player],
                )?,
                self.strs("UPDATE players SET display_name = ?1 WHERE id = ?2", &[&name.name, player])?,
            ])
            .await;
        match claimed {
            Ok(_) => Ok(true),
            Err(e) if e.to_string().contains("UNIQUE") => Ok(false),
            Err(e) => Err(err(e)),
        }
    }

    async fn merge_guest(&self, m: &Merge) -> StoreResult<()> {
        let (a, g) = (m.account.as_str(), m.guest.as_str());
        let mut batch = vec![
            self.strs(
                "INSERT OR IGNORE INTO player_badges (player_id, badge_id, awarded_at) \
                 SELECT ?1, badge_id, awarded_at FROM player_badges WHERE player_id = ?2",
                &[a, g],
            )?,
            self.strs("DELETE FROM player_badges WHERE player_id = ?1", &[g])?,
        ];
        for (story, p) in &m.progress {
            // `max` and `COALESCE` keep a result recorded meanwhile on the account.
            batch.push(self.stmt(
                "INSERT INTO story_progress (player_id, story_id, completed, current_game, current_stage, updated_at) \
                 VALUES (?1, ?2, ?3, ?4, ?5, ?6) ON CONFLICT(player_id, story_id) DO UPDATE SET \
                     completed = max(completed, excluded.completed), \
                     current_game = COALESCE(excluded.current_game, current_game), \
                     current_stage = COALESCE(excluded.current_stage, current_stage), \
                     updated_at = excluded.updated_at",
                &[
                    s(a),
                    s(story),
                    n(p.completed as f64),
                    p.current_game.as_deref().map_or(JsValue::NULL, s),
                    p.current_stage.map_or(JsValue::NULL, |c| n(c as f64)),
                    n(m.at as f64),
                ],
            )?);
        }
        batch.extend([
            self.strs("DELETE FROM story_progress WHERE player_id = ?1", &[g])?,
            self.strs("INSERT OR REPLACE INTO player_merges (from_id, into_id) VALUES (?2, ?1)", &[a, g])?,
            self.strs("UPDATE player_merges SET into_id = ?1 WHERE into_id = ?2", &[a, g])?,
            self.strs("UPDATE games SET south_player = ?1 WHERE south_player = ?2", &[a, g])?,
            self.strs("UPDATE games SET north_player = ?1 WHERE north_player = ?2", &[a, g])?,
            self.strs("UPDATE sessions SET player_id = ?1 WHERE player_id = ?2", &[a, g])?,
            // Every row that references the guest moves to the account before the guest
            // goes: D1 enforces the foreign keys, so one left behind fails the whole batch.
            // A guest's notifications and challenges are the account's from now on.
            self.strs("UPDATE push_subscriptions SET player_id = ?1 WHERE player_id = ?2", &[a, g])?,
            self.strs("UPDATE challenges SET poster_id = ?1 WHERE poster_id = ?2", &[a, g])?,
            self.strs("UPDATE challenges SET accepted_by = ?1 WHERE accepted_by = ?2", &[a, g])?,
            self.strs("DELETE FROM player_names WHERE player_id = ?1", &[g])?,
            // Only a guest is ever deleted (the condition holds by construction).
            self.strs("DELETE FROM players WHERE id = ?1 AND discord_id IS NULL", &[g])?,
        ]);
        self.batch(batch).await
    }

    async fn bind_discord(&self, guest: &str, discord_id: &str, name: Option<&NameClaim>) -> StoreResult<()> {
        let mut batch = vec![self.strs(
            "UPDATE players SET discord_id = ?1 WHERE id = ?2 AND discord_id IS NULL",
            &[discord_id, guest],
        )?];
        if let Some(name) = name {
            // Replaces a guest name, if no one holds the key meanwhile.
            batch.push(self.strs(
                "INSERT OR IGNORE INTO player_names (name_key, player_id) \
                 SELECT ?1, ?2 WHERE EXISTS (SELECT 1 FROM players WHERE id = ?2 AND display_name LIKE 'Guest-%')",
                &[&name.key, guest],
            )?);
            batch.push(self.strs(
                "UPDATE players SET display_name = ?1 WHERE id = ?2 AND display_name LIKE 'Guest-%' \
                 AND EXISTS (SELECT 1 FROM player_names WHERE name_key = ?3 AND player_id = ?2)",
                &[&name.name, guest, &name.key],
            )?);
        }
        self.batch(batch).await
    }

    async fn create_discord_player(
        &self,
        id: &str,
        guest_name: &str,
        discord_id: &str,
        name: &NameClaim,
        at: i64,
    ) -> StoreResult<()> {
        self.batch(vec![
            self.stmt(
                "INSERT INTO players (id, display_name, discord_id, created_at) VALUES (?1, ?2, ?3, ?4)",
                &[s(id), s(guest_name), s(discord_id), n(at as f64)],
            )?,
            self.strs(
                "INSERT OR IGNORE INTO player_names (name_key, player_id) VALUES (?1, ?2)",
                &[&name.key, id],
            )?,
            self.strs(
                "UPDATE players SET display_name = ?1 WHERE id = ?2 \
                 AND EXISTS (SELECT 1 FROM player_names WHERE name_key = ?3 AND player_id = ?2)",
                &[&name.name, id, &name.key],
            )?,
        ])
        .await
    }
}
