//! [`PlayerStore`] over the [`Sql`] port: every statement about players, sessions,
//! stories, badges, ratings, names and merges, with its parameters bound. The rules that
//! read and write them are in [`crate::players`]; here only rows and writes. Every write
//! is one batch (one transaction) that re-checks its precondition in SQL, so a race with
//! another Worker or a retried call applies nothing twice. Run by D1 in the Worker and by
//! real SQLite over the real migrations in the native tests.

use serde::de::DeserializeOwned;
use serde::Deserialize;

use crate::model::{FinishReason, Mode};
use crate::player_store::{
    FinishedGame, GamesPage, MatchupCount, Merge, NameClaim, PlayerRow, PlayerStore, Progress, RatingCommit,
    SessionRow, SideTotals, StageDone,
};
use crate::rating::Rating;
use crate::sql::{self, int, marks, Param, Sql, Stmt, StoreError, StoreResult, MAX_PARAMS};
use crate::story::Badge;

/// A SQL database as a [`PlayerStore`].
#[derive(Debug)]
pub struct SqlPlayers<S>(pub S);

/// A name-checked text column (a faction, side or mode as the schema's CHECK allows).
fn parse<T: DeserializeOwned>(v: &str) -> StoreResult<T> {
    serde_json::from_value(serde_json::Value::String(v.to_owned()))
        .map_err(|e| StoreError(format!("unexpected value {v:?} in the database: {e}")))
}

/// A stored finish reason; one this version does not know reads as `None` (an old row
/// must not make a whole page fail).
fn reason(v: Option<&str>) -> Option<FinishReason> {
    v.and_then(|r| parse(r).ok())
}

/// A counter read back (never negative, as the triggers keep it; a drifted row reads 0).
fn count(v: f64) -> u32 {
    u32::try_from(int(v)).unwrap_or(0)
}

/// One seat's finished games of player `?1` in Player Info's order, at most `?2`, from
/// `before` on (an empty string or `?3`/`?4`'s condition): walked down its index
/// (`games_finished_by_south` / `_north`, migrations/0010_stats_counters.sql), whose
/// `WHERE` the query repeats word for word so that SQLite may use it.
macro_rules! seat_page {
    ($seat:literal, $before:literal) => {
        concat!(
            "SELECT id FROM (SELECT id FROM games WHERE ",
            $seat,
            " = ?1 AND result IS NOT NULL AND COALESCE(reason, '') NOT IN ('by a player', 'never joined') ",
            $before,
            " ORDER BY COALESCE(finished_at, 0) DESC, id DESC LIMIT ?2)"
        )
    };
}

/// A page of Player Info's finished games (see [`seat_page`]): at most `?2` from each
/// seat's index, at most `?2` in all (a game against oneself is in both, once in the
/// `IN`), each with whether it was rated. Bounded by the page, not by the history.
macro_rules! finished_games {
    ($before:literal) => {
        concat!(
            "SELECT g.id, g.south_faction, g.north_faction, g.mode, g.south_player, g.north_player, \
                 g.winner, g.result, g.reason, g.finished_at, \
                 EXISTS (SELECT 1 FROM rated_games r WHERE r.game_id = g.id) AS rated \
             FROM games g WHERE g.id IN (",
            seat_page!("south_player", $before),
            " UNION ALL ",
            seat_page!("north_player", $before),
            ") ORDER BY COALESCE(g.finished_at, 0) DESC, g.id DESC LIMIT ?2"
        )
    };
}

/// The first page of a player's finished games: `?1` the player, `?2` the page's size.
pub const FINISHED_GAMES: &str = finished_games!("");

/// A later page: older than the cursor `?3` (end time), `?4` (id). Written as a range on
/// the end time (which the index seeks to) and the tie-break on the id, not as a row value
/// over the expression, which SQLite would only filter with, walking every newer game.
pub const FINISHED_GAMES_BEFORE: &str =
    finished_games!("AND COALESCE(finished_at, 0) <= ?3 AND (COALESCE(finished_at, 0) < ?3 OR id < ?4)");

/// A player's totals: its `player_totals` rows, read by the primary key's prefix.
pub const PLAYER_TOTALS: &str =
    "SELECT south_faction, north_faction, side, played, won FROM player_totals WHERE player_id = ?1";

/// The match-up statistics: the `matchup_totals` rows (at most nine).
pub const MATCHUP_COUNTS: &str =
    "SELECT south_faction, north_faction, games, south_wins, north_wins, draws FROM matchup_totals";

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

/// A statement whose parameters are all text.
fn strs(sql: &'static str, args: &[&str]) -> Stmt {
    args.iter().fold(Stmt::new(sql), |s, a| s.bind(*a))
}

fn insert_session(r: &SessionRow) -> Stmt {
    Stmt::new("INSERT INTO sessions (token_hash, player_id, created_at, expires_at) VALUES (?1, ?2, ?3, ?4)")
        .bind(&r.token_hash)
        .bind(&r.player)
        .bind(r.created_at)
        .bind(r.expires_at)
}

impl<S: Sql> SqlPlayers<S> {
    async fn player_where(&self, clause: &str, arg: &str) -> StoreResult<Option<PlayerRow>> {
        let stmt = Stmt::new(format!("SELECT {PLAYER_COLUMNS} FROM players WHERE {clause} = ?1")).bind(arg);
        Ok(sql::first::<PlayerSql>(&self.0, stmt).await?.map(PlayerRow::from))
    }

    async fn batch(&self, stmts: Vec<Stmt>) -> StoreResult<()> {
        self.0.batch(stmts).await?;
        Ok(())
    }
}

impl<S: Sql> PlayerStore for SqlPlayers<S> {
    async fn session_player(&self, token_hash: &str, now: i64) -> StoreResult<Option<String>> {
        #[derive(Deserialize)]
        struct Row {
            player_id: String,
        }
        let stmt = Stmt::new("SELECT player_id FROM sessions WHERE token_hash = ?1 AND expires_at > ?2")
            .bind(token_hash)
            .bind(now);
        Ok(sql::first::<Row>(&self.0, stmt).await?.map(|r| r.player_id))
    }

    async fn create_guest(&self, p: &PlayerRow, session: &SessionRow) -> StoreResult<()> {
        self.batch(vec![
            Stmt::new("INSERT INTO players (id, display_name, created_at) VALUES (?1, ?2, ?3)")
                .bind(&p.id)
                .bind(p.display_name.as_deref())
                .bind(session.created_at),
            insert_session(session),
        ])
        .await
    }

    async fn start_session(&self, session: &SessionRow, replacing: &str) -> StoreResult<()> {
        self.batch(vec![
            strs("DELETE FROM sessions WHERE token_hash = ?1", &[replacing]),
            insert_session(session),
        ])
        .await
    }

    async fn end_session(&self, token_hash: &str) -> StoreResult<u64> {
        self.0.run(strs("DELETE FROM sessions WHERE token_hash = ?1", &[token_hash])).await
    }

    async fn end_sessions_of(&self, player: &str) -> StoreResult<u64> {
        self.0.run(strs("DELETE FROM sessions WHERE player_id = ?1", &[player])).await
    }

    async fn player(&self, id: &str) -> StoreResult<Option<PlayerRow>> {
        self.player_where("id", id).await
    }

    async fn player_by_discord(&self, discord_id: &str) -> StoreResult<Option<PlayerRow>> {
        self.player_where("discord_id", discord_id).await
    }

    async fn top_rated(&self, limit: u32) -> StoreResult<Vec<PlayerRow>> {
        let stmt = Stmt::new(format!(
            "SELECT {PLAYER_COLUMNS} FROM players WHERE rated_at IS NOT NULL ORDER BY rating DESC, id LIMIT ?1"
        ))
        .bind(limit);
        Ok(sql::rows::<PlayerSql>(&self.0, stmt).await?.into_iter().map(PlayerRow::from).collect())
    }

    async fn badges_of(&self, players: &[&str]) -> StoreResult<Vec<(String, Badge)>> {
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
        for chunk in players.chunks(MAX_PARAMS) {
            let stmt = Stmt::new(format!(
                "SELECT pb.player_id, b.id, b.name, b.description FROM player_badges pb \
                     JOIN badges b ON b.id = pb.badge_id \
                 WHERE pb.player_id IN ({}) ORDER BY pb.awarded_at, b.id",
                marks(1, chunk.len())
            ));
            let stmt = chunk.iter().fold(stmt, |s, p| s.bind(*p));
            let rows: Vec<Row> = sql::rows(&self.0, stmt).await?;
            out.extend(
                rows.into_iter()
                    .map(|r| (r.player_id, Badge { id: r.id, name: r.name, description: r.description })),
            );
        }
        Ok(out)
    }

    async fn has_badge(&self, player: &str, badge: &str) -> StoreResult<bool> {
        let stmt =
            strs("SELECT 1 AS x FROM player_badges WHERE player_id = ?1 AND badge_id = ?2", &[player, badge]);
        sql::exists(&self.0, stmt).await
    }

    async fn finished_games(&self, player: &str, page: &GamesPage) -> StoreResult<Vec<FinishedGame>> {
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
        let stmt = match &page.before {
            None => Stmt::new(FINISHED_GAMES).bind(player).bind(page.limit),
            Some(c) => Stmt::new(FINISHED_GAMES_BEFORE).bind(player).bind(page.limit).bind(c.at).bind(&c.id),
        };
        let rows: Vec<Row> = sql::rows(&self.0, stmt).await?;
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

    async fn player_totals(&self, player: &str) -> StoreResult<Vec<SideTotals>> {
        #[derive(Deserialize)]
        struct Row {
            south_faction: String,
            north_faction: String,
            side: String,
            played: f64,
            won: f64,
        }
        let rows: Vec<Row> = sql::rows(&self.0, strs(PLAYER_TOTALS, &[player])).await?;
        rows.into_iter()
            .map(|r| {
                Ok(SideTotals {
                    south: parse(&r.south_faction)?,
                    north: parse(&r.north_faction)?,
                    side: parse(&r.side)?,
                    played: count(r.played),
                    won: count(r.won),
                })
            })
            .collect()
    }

    async fn matchup_counts(&self) -> StoreResult<Vec<MatchupCount>> {
        #[derive(Deserialize)]
        struct Row {
            south_faction: String,
            north_faction: String,
            games: f64,
            south_wins: f64,
            north_wins: f64,
            draws: f64,
        }
        let rows: Vec<Row> = sql::rows(&self.0, Stmt::new(MATCHUP_COUNTS)).await?;
        rows.into_iter()
            .map(|r| {
                Ok(MatchupCount {
                    south: parse(&r.south_faction)?,
                    north: parse(&r.north_faction)?,
                    games: count(r.games).into(),
                    south_wins: count(r.south_wins).into(),
                    north_wins: count(r.north_wins).into(),
                    draws: count(r.draws).into(),
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
            sql::first(&self.0, strs("SELECT into_id FROM player_merges WHERE from_id = ?1", &[id])).await?;
        Ok(row.map_or_else(|| id.to_owned(), |r| r.into_id))
    }

    async fn aliases(&self, player: &str) -> StoreResult<Vec<String>> {
        #[derive(Deserialize)]
        struct Row {
            from_id: String,
        }
        let rows: Vec<Row> =
            sql::rows(&self.0, strs("SELECT from_id FROM player_merges WHERE into_id = ?1", &[player]))
                .await?;
        Ok(rows.into_iter().map(|r| r.from_id).collect())
    }

    async fn progress(&self, player: &str, story: &str) -> StoreResult<Progress> {
        let row: Option<ProgressSql> = sql::first(
            &self.0,
            strs(
                "SELECT completed, current_game, current_stage FROM story_progress \
                 WHERE player_id = ?1 AND story_id = ?2",
                &[player, story],
            ),
        )
        .await?;
        Ok(row.map(|r| r.progress()).unwrap_or_default())
    }

    async fn all_progress(&self, player: &str) -> StoreResult<Vec<(String, Progress)>> {
        let rows: Vec<ProgressSql> = sql::rows(
            &self.0,
            strs(
                "SELECT story_id, completed, current_game, current_stage FROM story_progress WHERE player_id = ?1",
                &[player],
            ),
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
        let stmt = strs(
            "INSERT INTO story_progress (player_id, story_id, completed, current_game, current_stage, updated_at) \
             VALUES (?1, ?2, 0, ?3, ?4, ?5) ON CONFLICT(player_id, story_id) DO UPDATE SET \
                 current_game = excluded.current_game, current_stage = excluded.current_stage, \
                 updated_at = excluded.updated_at",
            &[player, story, game],
        );
        self.0.run(stmt.bind(stage).bind(at)).await?;
        Ok(())
    }

    async fn clear_current_game(&self, player: &str, story: &str, game: &str) -> StoreResult<()> {
        let stmt = strs(
            "UPDATE story_progress SET current_game = NULL, current_stage = NULL \
             WHERE player_id = ?1 AND story_id = ?2 AND current_game = ?3",
            &[player, story, game],
        );
        self.0.run(stmt).await?;
        Ok(())
    }

    async fn reset_story(&self, player: &str, story: &str, at: i64) -> StoreResult<()> {
        let stmt = strs(
            "UPDATE story_progress SET completed = 0, current_game = NULL, current_stage = NULL, \
                 updated_at = ?3 WHERE player_id = ?1 AND story_id = ?2",
            &[player, story],
        );
        self.0.run(stmt.bind(at)).await?;
        Ok(())
    }

    async fn finish_stage(&self, d: &StageDone) -> StoreResult<()> {
        let mut batch = Vec::new();
        // Every statement applies only while `game` is the current stage game; the last
        // clears it.
        if let Some(b) = &d.badge {
            batch.push(strs(
                "INSERT OR IGNORE INTO badges (id, name, description) VALUES (?1, ?2, ?3)",
                &[&b.id, &b.name, &b.description],
            ));
            batch.push(
                strs(
                    "INSERT OR IGNORE INTO player_badges (player_id, badge_id, awarded_at) \
                     SELECT ?1, ?4, ?5 WHERE EXISTS (SELECT 1 FROM story_progress \
                         WHERE player_id = ?1 AND story_id = ?2 AND current_game = ?3)",
                    &[&d.player, &d.story, &d.game, &b.id],
                )
                .bind(d.at),
            );
        }
        batch.push(
            strs(
                "UPDATE story_progress SET completed = max(completed, ?4), current_game = NULL, \
                     current_stage = NULL, updated_at = ?5 \
                 WHERE player_id = ?1 AND story_id = ?2 AND current_game = ?3",
                &[&d.player, &d.story, &d.game],
            )
            .bind(d.completed)
            .bind(d.at),
        );
        self.batch(batch).await
    }

    async fn rating_applied(&self, game: &str) -> StoreResult<bool> {
        sql::exists(&self.0, strs("SELECT game_id FROM rated_games WHERE game_id = ?1", &[game])).await
    }

    async fn commit_rating(&self, c: &RatingCommit) -> StoreResult<bool> {
        // The marker row goes in only if both versions are as read; each rating moves
        // only if this marker (this game, this attempt's time) went in.
        let set = |(id, version, r): &(String, i64, Rating)| {
            Stmt::new(
                "UPDATE players SET rating = ?1, rating_dev = ?2, volatility = ?3, rated_at = ?4, \
                     rating_version = rating_version + 1 \
                 WHERE id = ?5 AND rating_version = ?6 \
                   AND EXISTS (SELECT 1 FROM rated_games WHERE game_id = ?7 AND applied_at = ?4)",
            )
            .bind(r.rating)
            .bind(r.deviation)
            .bind(r.volatility)
            .bind(c.at)
            .bind(id)
            .bind(*version)
            .bind(&c.game)
        };
        let [south, north] = &c.players;
        self.batch(vec![
            Stmt::new(
                "INSERT INTO rated_games (game_id, applied_at) SELECT ?1, ?2 \
                 WHERE (SELECT rating_version FROM players WHERE id = ?3) = ?4 \
                   AND (SELECT rating_version FROM players WHERE id = ?5) = ?6",
            )
            .bind(&c.game)
            .bind(c.at)
            .bind(&south.0)
            .bind(south.1)
            .bind(&north.0)
            .bind(north.1),
            set(south),
            set(north),
        ])
        .await?;
        self.rating_applied(&c.game).await
    }

    async fn name_taken(&self, name: &NameClaim, player: &str) -> StoreResult<bool> {
        let stmt = strs(
            "SELECT player_id AS id FROM player_names WHERE name_key = ?3 AND player_id != ?2 \
             UNION ALL SELECT id FROM players WHERE lower(display_name) = lower(?1) AND id != ?2 LIMIT 1",
            &[&name.name, player, &name.key],
        );
        sql::exists(&self.0, stmt).await
    }

    async fn claim_name(&self, player: &str, name: &NameClaim) -> StoreResult<bool> {
        // The primary key on the normalised name settles a race between two players
        // choosing look-alike names at once: the batch is one transaction.
        let claimed = self
            .0
            .batch(vec![
                strs("DELETE FROM player_names WHERE player_id = ?1", &[player]),
                strs("INSERT INTO player_names (name_key, player_id) VALUES (?1, ?2)", &[&name.key, player]),
                strs("UPDATE players SET display_name = ?1 WHERE id = ?2", &[&name.name, player]),
            ])
            .await;
        match claimed {
            Ok(_) => Ok(true),
            Err(e) if e.is_unique_violation() => Ok(false),
            Err(e) => Err(e),
        }
    }

    async fn merge_guest(&self, m: &Merge) -> StoreResult<()> {
        let (a, g) = (m.account.as_str(), m.guest.as_str());
        let mut batch = vec![
            strs(
                "INSERT OR IGNORE INTO player_badges (player_id, badge_id, awarded_at) \
                 SELECT ?1, badge_id, awarded_at FROM player_badges WHERE player_id = ?2",
                &[a, g],
            ),
            strs("DELETE FROM player_badges WHERE player_id = ?1", &[g]),
        ];
        for (story, p) in &m.progress {
            // `max` and `COALESCE` keep a result recorded meanwhile on the account.
            batch.push(
                Stmt::new(
                    "INSERT INTO story_progress (player_id, story_id, completed, current_game, current_stage, updated_at) \
                     VALUES (?1, ?2, ?3, ?4, ?5, ?6) ON CONFLICT(player_id, story_id) DO UPDATE SET \
                         completed = max(completed, excluded.completed), \
                         current_game = COALESCE(excluded.current_game, current_game), \
                         current_stage = COALESCE(excluded.current_stage, current_stage), \
                         updated_at = excluded.updated_at",
                )
                .bind(a)
                .bind(story)
                .bind(p.completed)
                .bind(p.current_game.as_deref())
                .bind(p.current_stage.map(Param::from))
                .bind(m.at),
            );
        }
        batch.extend([
            strs("DELETE FROM story_progress WHERE player_id = ?1", &[g]),
            strs("INSERT OR REPLACE INTO player_merges (from_id, into_id) VALUES (?2, ?1)", &[a, g]),
            strs("UPDATE player_merges SET into_id = ?1 WHERE into_id = ?2", &[a, g]),
            strs("UPDATE games SET south_player = ?1 WHERE south_player = ?2", &[a, g]),
            strs("UPDATE games SET north_player = ?1 WHERE north_player = ?2", &[a, g]),
            strs("UPDATE sessions SET player_id = ?1 WHERE player_id = ?2", &[a, g]),
            // Every row that references the guest moves to the account before the guest
            // goes: D1 enforces the foreign keys, so one left behind fails the whole batch.
            // A guest's notifications and challenges are the account's from now on.
            strs("UPDATE push_subscriptions SET player_id = ?1 WHERE player_id = ?2", &[a, g]),
            strs("UPDATE challenges SET poster_id = ?1 WHERE poster_id = ?2", &[a, g]),
            strs("UPDATE challenges SET accepted_by = ?1 WHERE accepted_by = ?2", &[a, g]),
            strs("DELETE FROM player_names WHERE player_id = ?1", &[g]),
            // The lessons the guest completed are the account's too (the account's own
            // time kept where both did one); the guest's rows would go with it anyway
            // (ON DELETE CASCADE), so they must be copied first.
            strs(
                "INSERT INTO lesson_progress (player_id, lesson_id, completed_at) \
                 SELECT ?1, lesson_id, completed_at FROM lesson_progress WHERE player_id = ?2 \
                 ON CONFLICT (player_id, lesson_id) DO NOTHING",
                &[a, g],
            ),
            // Only a guest is ever deleted (the condition holds by construction).
            strs("DELETE FROM players WHERE id = ?1 AND discord_id IS NULL", &[g]),
        ]);
        self.batch(batch).await
    }

    async fn bind_discord(&self, guest: &str, discord_id: &str, name: Option<&NameClaim>) -> StoreResult<()> {
        let mut batch = vec![strs(
            "UPDATE players SET discord_id = ?1 WHERE id = ?2 AND discord_id IS NULL",
            &[discord_id, guest],
        )];
        if let Some(name) = name {
            // Replaces a guest name, if no one holds the key meanwhile.
            batch.push(strs(
                "INSERT OR IGNORE INTO player_names (name_key, player_id) \
                 SELECT ?1, ?2 WHERE EXISTS (SELECT 1 FROM players WHERE id = ?2 AND display_name LIKE 'Guest-%')",
                &[&name.key, guest],
            ));
            batch.push(strs(
                "UPDATE players SET display_name = ?1 WHERE id = ?2 AND display_name LIKE 'Guest-%' \
                 AND EXISTS (SELECT 1 FROM player_names WHERE name_key = ?3 AND player_id = ?2)",
                &[&name.name, guest, &name.key],
            ));
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
            strs(
                "INSERT INTO players (id, display_name, discord_id, created_at) VALUES (?1, ?2, ?3, ?4)",
                &[id, guest_name, discord_id],
            )
            .bind(at),
            strs(
                "INSERT OR IGNORE INTO player_names (name_key, player_id) VALUES (?1, ?2)",
                &[&name.key, id],
            ),
            strs(
                "UPDATE players SET display_name = ?1 WHERE id = ?2 \
                 AND EXISTS (SELECT 1 FROM player_names WHERE name_key = ?3 AND player_id = ?2)",
                &[&name.name, id, &name.key],
            ),
        ])
        .await
    }
}
