//! Players' rules over a [`PlayerStore`]: the story mode (stage unlocking, progress, the
//! badge awarded once), Player Info totals, rating updates and periods, the leaderboard
//! and match-up statistics, display names and their clashes, and which player a
//! "Sign in with Discord" ends as (the guest merge). The areas' handlers (`crate::api`)
//! route, read cookies and call games' Durable Objects and Discord; the store's SQL is
//! `crate::sql_players`.

use std::collections::BTreeMap;

use engine::{Faction, Position, Side};
use serde::Serialize;

use crate::create::{CreateGame, SeatChoice};
use crate::error::{ApiError, ErrorCode};
use crate::model::{GameRecord, Mode, StageRef};
use crate::names;
use crate::player_store::{
    FinishedGame, GamesCursor, GamesPage, Merge, NameClaim, PlayerRow, PlayerStore, Progress, RatingCommit,
    SessionRow, StageDone, StoreError, StoreResult,
};
use crate::rating::{Game, Rating};
use crate::story::{self, Badge, Stage, Story};
use crate::tokens::Random;

// ---------------------------------------------------------------------------------------
// Responses

/// One stage as the player sees it.
#[derive(Clone, Debug, Serialize)]
pub struct StageView {
    pub index: usize,
    pub title: String,
    pub intro: String,
    pub side: Side,
    pub level: u8,
    pub goal: String,
    pub position: Position,
    pub completed: bool,
    pub unlocked: bool,
}

/// A story as the player sees it: which stages are unlocked and completed, the stage
/// being played, whether the badge is earned.
#[derive(Clone, Debug, Serialize)]
pub struct StoryView {
    pub id: String,
    pub title: String,
    pub faction: Faction,
    pub summary: String,
    pub badge: Badge,
    pub badge_earned: bool,
    pub completed: usize,
    pub current_game: Option<String>,
    pub current_stage: Option<usize>,
    pub stages: Vec<StageView>,
}

/// `GET /api/stories`.
#[derive(Clone, Debug, Serialize)]
pub struct StoriesView {
    pub stories: Vec<StoryView>,
}

#[derive(Clone, Copy, Debug, PartialEq, Serialize)]
pub struct RatingView {
    /// Rounded to a whole number (sent as a JSON number, as before: `1500.0`).
    pub rating: f64,
    pub deviation: f64,
    pub rated: bool,
}

#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize)]
pub struct Played {
    pub played: u32,
    pub won: u32,
}

#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct FactionTotals {
    pub faction: Faction,
    pub played: u32,
    pub won: u32,
}

#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct MatchupTotals {
    pub south: Faction,
    pub north: Faction,
    /// The player's side.
    pub side: Side,
    pub played: u32,
    pub won: u32,
}

#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct RecentGame {
    pub id: String,
    pub south: Faction,
    pub north: Faction,
    pub mode: Mode,
    pub side: Side,
    pub result: String,
    pub won: bool,
    pub rated: bool,
    pub self_play: bool,
    pub finished_at: Option<i64>,
    /// The game's record (`/api/games/<id>/record`).
    pub record: String,
}

/// `GET /api/players/<id>`: Player Info.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct PlayerInfo {
    pub id: String,
    pub name: Option<String>,
    pub discord_linked: bool,
    pub badges: Vec<Badge>,
    pub rating: RatingView,
    /// Totals, games against oneself aside.
    pub games: Played,
    pub by_faction: Vec<FactionTotals>,
    pub by_matchup: Vec<MatchupTotals>,
    /// A page of the finished games, latest first (against oneself included): the
    /// latest [`RECENT_GAMES`], or the page the query asked for.
    pub recent: Vec<RecentGame>,
    /// The next page's `before`, when there are older games.
    pub next: Option<GamesCursor>,
}

#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct LeaderboardEntry {
    pub rank: usize,
    pub id: String,
    pub name: Option<String>,
    pub rating: f64,
    pub deviation: f64,
    pub badges: Vec<Badge>,
}

/// `GET /api/leaderboard`.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Leaderboard {
    pub players: Vec<LeaderboardEntry>,
}

#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct MatchupStats {
    pub south: Faction,
    pub north: Faction,
    pub games: u64,
    pub south_wins: u64,
    pub north_wins: u64,
    pub draws: u64,
}

/// `GET /api/stats/matchups`: every match-up, in `Faction::ALL` order.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct Matchups {
    pub matchups: Vec<MatchupStats>,
    pub counted: &'static str,
}

/// `/api/me` and `POST /api/me/name`: the session's player (`id: null` without one).
#[derive(Clone, Debug, Default, PartialEq, Serialize)]
pub struct Me {
    pub id: Option<String>,
    pub name: Option<String>,
    pub discord_linked: bool,
    pub badges: Vec<Badge>,
    /// Whether Sign in with Discord is configured (`/api/me` only).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub discord_available: Option<bool>,
}

/// `POST /api/auth/logout` and `…/all`: how many sessions ended (a whole number: it
/// was sent as `2.0` before, against the documented integer).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
pub struct SignedOut {
    pub signed_out: bool,
    pub sessions_ended: u64,
}

// ---------------------------------------------------------------------------------------
// Story mode

/// A story by id (404 naming it, cut to 40 characters).
pub fn find_story(id: &str) -> Result<&'static Story, ApiError> {
    story::embedded()
        .get(id)
        .ok_or_else(|| ApiError::not_found(format!("no story '{}'", id.chars().take(40).collect::<String>())))
}

/// A story as `player` sees it (without a player: as a new player does).
pub async fn story_view<S: PlayerStore>(
    store: &S,
    st: &Story,
    player: Option<&str>,
) -> StoreResult<StoryView> {
    let (p, earned) = match player {
        Some(id) => (store.progress(id, &st.id).await?, store.has_badge(id, &st.badge.id).await?),
        None => (Progress::default(), false),
    };
    Ok(view(st, &p, earned))
}

/// Stage `i` is completed when `i < completed`, unlocked when `i <= completed`: stages
/// unlock in order, one at a time.
fn view(st: &Story, p: &Progress, badge_earned: bool) -> StoryView {
    let completed = p.completed.min(st.stages.len());
    StoryView {
        id: st.id.clone(),
        title: st.title.clone(),
        faction: st.faction,
        summary: st.summary.clone(),
        badge: st.badge.clone(),
        badge_earned,
        completed,
        current_game: p.current_game.clone(),
        current_stage: p.current_stage,
        stages: st
            .stages
            .iter()
            .enumerate()
            .map(|(i, s)| StageView {
                index: i,
                title: s.title.clone(),
                intro: s.intro.clone(),
                side: s.side,
                level: s.level,
                goal: s.goal_text(),
                position: s.position,
                completed: i < completed,
                unlocked: i <= completed,
            })
            .collect(),
    }
}

/// Every story as `player` sees it.
/// Every story as `player` sees it: two queries (all its progress, all its badges),
/// however many stories there are.
pub async fn stories<S: PlayerStore>(store: &S, player: Option<&str>) -> StoreResult<StoriesView> {
    let (progress, badges) = match player {
        Some(id) => (store.all_progress(id).await?, badges(store, id).await?),
        None => (Vec::new(), Vec::new()),
    };
    let stories = story::embedded()
        .all()
        .iter()
        .map(|st| {
            let p = progress.iter().find(|(s, _)| *s == st.id).map(|(_, p)| p.clone()).unwrap_or_default();
            view(st, &p, badges.iter().any(|b| b.id == st.badge.id))
        })
        .collect();
    Ok(StoriesView { stories })
}

/// The stage `index` (as the path gives it) of `st`: 404 for no such stage.
pub fn find_stage<'a>(st: &'a Story, index: &str) -> Result<(usize, &'a Stage), ApiError> {
    let i: usize =
        index.parse().map_err(|_| ApiError::not_found(format!("no stage '{index}' in this story")))?;
    let stage =
        st.stage(i).ok_or_else(|| ApiError::not_found(format!("story '{}' has no stage {i}", st.id)))?;
    Ok((i, stage))
}

/// Stages unlock in order: stage `i` may be started once `i` stages are completed
/// (403 `stage_locked` before).
pub async fn check_unlocked<S: PlayerStore>(
    store: &S,
    st: &Story,
    i: usize,
    player: &str,
) -> Result<(), ApiError> {
    let p = store.progress(player, &st.id).await?;
    if i > p.completed {
        return Err(ApiError::new(
            ErrorCode::StageLocked,
            format!("stage {} unlocks when stage {} is completed", i + 1, i),
        ));
    }
    Ok(())
}

/// A stage's game: an `ai` game (never rated) from the stage's position, the player in
/// the stage's seat against the AI at the stage's level, and the stage it plays.
pub fn stage_game(st: &Story, index: usize, stage: &Stage) -> (CreateGame, StageRef) {
    let pos = stage.position;
    let game = CreateGame {
        south: pos.faction(Side::South),
        north: pos.faction(Side::North),
        seat: if stage.side == Side::South { SeatChoice::South } else { SeatChoice::North },
        mode: Mode::Ai,
        days_per_move: None,
        level: Some(stage.level),
        rated: false,
    };
    let stage_ref = StageRef {
        story: st.id.clone(),
        stage: index,
        title: stage.title.clone(),
        player: stage.side,
        goal: stage.goal,
    };
    (game, stage_ref)
}

/// The stage game `player` is playing in `story`, to end before another starts or the
/// story is left: its id, whether it names a game at all, and the player's other ids
/// (the guests merged into it, whose games name them).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct CurrentStage {
    pub game: String,
    pub valid: bool,
    pub aliases: Vec<String>,
}

pub async fn current_stage<S: PlayerStore>(
    store: &S,
    story: &str,
    player: &str,
) -> StoreResult<Option<CurrentStage>> {
    let Some(game) = store.progress(player, story).await?.current_game else { return Ok(None) };
    let valid = crate::game::valid_id(&game);
    let aliases = if valid { store.aliases(player).await? } else { Vec::new() };
    Ok(Some(CurrentStage { game, valid, aliases }))
}

/// `POST /api/stories/<id>/reset` needs `{"confirm": true}`.
pub fn check_reset_confirmation(body: &[u8]) -> Result<(), ApiError> {
    #[derive(serde::Deserialize)]
    #[serde(deny_unknown_fields)]
    struct Confirm {
        confirm: bool,
    }
    let c: Confirm = crate::http::parse_json(body)?;
    if !c.confirm {
        return Err(ApiError::new(
            ErrorCode::ConfirmationRequired,
            "resetting a story's progress needs {\"confirm\": true}",
        ));
    }
    Ok(())
}

/// A finished stage game: a win advances the player's progress (never backwards) and,
/// for the story's last stage, awards its badge. Only the player's current stage game
/// counts and the write clears it, so a repeated call (an alarm retry) changes nothing
/// and the badge is awarded exactly once.
pub async fn record_stage<S: PlayerStore>(
    store: &S,
    rec: &GameRecord,
    won: bool,
    now: i64,
) -> StoreResult<()> {
    let Some(st) = rec.stage.as_ref() else { return Ok(()) };
    let Some(seat_player) = rec.seat(st.player).player.as_deref() else { return Ok(()) };
    // A guest merged since the game began is its account now.
    let player = store.resolve(seat_player).await?;
    let p = store.progress(&player, &st.story).await?;
    if p.current_game.as_deref() != Some(rec.id.as_str()) {
        return Ok(());
    }
    let story = story::embedded().get(&st.story);
    let badge = story.filter(|s| won && st.stage + 1 == s.stages.len()).map(|s| s.badge.clone());
    let completed = if won { p.completed.max(st.stage + 1) } else { p.completed };
    store
        .finish_stage(&StageDone {
            player,
            story: st.story.clone(),
            game: rec.id.clone(),
            completed,
            badge,
            at: now,
        })
        .await
}

// ---------------------------------------------------------------------------------------
// Ratings

/// Glicko-2 rating periods are this long: a player's deviation grows by one period's
/// worth for each whole period without rated games (at most 100 counted).
pub const RATING_PERIOD_MS: i64 = 14 * 86_400_000;

/// How often [`apply_rating`] reads the ratings again when a concurrent update moved them.
pub const RATING_CAS_TRIES: usize = 8;

/// The rating a player plays with at `now`: its stored one, after the rating periods it
/// sat out since `rated_at`.
pub fn current_rating(r: Rating, rated_at: Option<i64>, now: i64) -> Rating {
    let idle = rated_at.map_or(0, |t| ((now - t).max(0) / RATING_PERIOD_MS) as u32);
    r.after_inactivity(idle.min(100))
}

/// A finished rated game: both players' ratings are updated, exactly once (the store's
/// compare-and-set on the game's marker and both players' `rating_version`). Another
/// rated game of the same player may finish at the same moment (in another Durable
/// Object): then the ratings are read again, up to [`RATING_CAS_TRIES`] times.
pub async fn apply_rating<S: PlayerStore>(store: &S, rec: &GameRecord, now: i64) -> StoreResult<()> {
    let (Some(result), true) = (rec.result.as_ref(), rec.rated) else { return Ok(()) };
    if !crate::upkeep::counts_for_rating(result) {
        return Ok(());
    }
    let (Some(south), Some(north)) = (rec.seats[0].player.as_deref(), rec.seats[1].player.as_deref()) else {
        return Ok(());
    };
    let score_south = match result.winner {
        Some(Side::South) => 1.0,
        Some(Side::North) => 0.0,
        None => 0.5,
    };
    for _ in 0..RATING_CAS_TRIES {
        if store.rating_applied(&rec.id).await? {
            return Ok(());
        }
        let (Some(s), Some(n)) = (store.player(south).await?, store.player(north).await?) else {
            // A player gone (never in practice: only guests are deleted, and rated games
            // need Discord-linked players): nothing to rate.
            return Ok(());
        };
        let (rs, rn) = (current_rating(s.rating, s.rated_at, now), current_rating(n.rating, n.rated_at, now));
        let new_s = rs.update(&[Game { opponent: rn, score: score_south }]);
        let new_n = rn.update(&[Game { opponent: rs, score: 1.0 - score_south }]);
        let commit = RatingCommit {
            game: rec.id.clone(),
            at: now,
            players: [(s.id, s.rating_version, new_s), (n.id, n.rating_version, new_n)],
        };
        if store.commit_rating(&commit).await? {
            return Ok(());
        }
    }
    Err(StoreError(format!("rating update for {} kept conflicting; will retry", rec.id)))
}

// ---------------------------------------------------------------------------------------
// Player Info, leaderboard, statistics

fn badges_by_player(rows: Vec<(String, Badge)>) -> BTreeMap<String, Vec<Badge>> {
    let mut by: BTreeMap<String, Vec<Badge>> = BTreeMap::new();
    for (p, b) in rows {
        by.entry(p).or_default().push(b);
    }
    by
}

/// A player's badges, in the order earned.
pub async fn badges<S: PlayerStore>(store: &S, player: &str) -> StoreResult<Vec<Badge>> {
    Ok(store.badges_of(&[player]).await?.into_iter().map(|(_, b)| b).collect())
}

/// How many finished games Player Info lists without `?limit=`, and at most.
pub const RECENT_GAMES: u32 = 10;
pub const MAX_RECENT_GAMES: u32 = 50;

/// Player Info's page from its URL query: `before` (a `next` it gave) and `limit` (1 to
/// [`MAX_RECENT_GAMES`], default [`RECENT_GAMES`]); other parameters are ignored. 400
/// `invalid_page` for a cursor it did not give, a limit out of range, or either twice.
pub fn games_page(query: &str) -> Result<GamesPage, ApiError> {
    let (mut before, mut limit) = (None, None);
    for (k, v) in form_urlencoded::parse(query.as_bytes()) {
        let slot = match k.as_ref() {
            "before" => &mut before,
            "limit" => &mut limit,
            _ => continue,
        };
        if slot.replace(v.into_owned()).is_some() {
            return Err(ApiError::new(ErrorCode::InvalidPage, format!("'{k}' is given twice")));
        }
    }
    let limit = match limit {
        None => RECENT_GAMES,
        Some(l) => l.parse().ok().filter(|n| (1..=MAX_RECENT_GAMES).contains(n)).ok_or_else(|| {
            let shown: String = l.chars().take(20).collect();
            ApiError::new(
                ErrorCode::InvalidPage,
                format!("limit '{shown}' is not a whole number from 1 to {MAX_RECENT_GAMES}"),
            )
        })?,
    };
    Ok(GamesPage { before: before.as_deref().map(str::parse).transpose()?, limit })
}

/// Player Info: name, badges, rating, games played and won (overall, by faction, by
/// match-up and side; a game against oneself is listed but not counted), and a page of
/// its finished games. Four bounded reads, whatever the player's history: the player, its
/// badges, its counters (`player_totals`, at most 18 rows) and one more game than the page
/// (to know whether there is a next).
pub async fn player_info<S: PlayerStore>(
    store: &S,
    id: &str,
    page: &GamesPage,
) -> Result<PlayerInfo, ApiError> {
    if !crate::game::valid_id(id) {
        return Err(ApiError::not_found("no such player"));
    }
    let p = store.player(id).await?.ok_or_else(|| ApiError::not_found("no such player"))?;
    let mut totals = store.player_totals(id).await?;
    // Sorted by names (south, north, side), as the page lists them.
    totals.sort_by_key(|t| (t.south.name(), t.north.name(), t.side.name()));
    let mut by_faction: BTreeMap<&'static str, (Faction, Played)> = BTreeMap::new();
    let mut total = Played::default();
    for t in &totals {
        total.played += t.played;
        total.won += t.won;
        let mine = if t.side == Side::South { t.south } else { t.north };
        // Sorted by name, as the page lists them.
        let f = &mut by_faction.entry(mine.name()).or_insert((mine, Played::default())).1;
        f.played += t.played;
        f.won += t.won;
    }
    let mut games = store.finished_games(id, &GamesPage { limit: page.limit + 1, ..page.clone() }).await?;
    let more = games.len() > page.limit as usize;
    games.truncate(page.limit as usize);
    let next = if more { games.last().map(FinishedGame::cursor) } else { None };
    let recent = games
        .iter()
        .map(|g| {
            let side = if g.south_player.as_deref() == Some(id) { Side::South } else { Side::North };
            RecentGame {
                id: g.id.clone(),
                south: g.south,
                north: g.north,
                mode: g.mode,
                side,
                result: g.result.clone(),
                won: g.winner == Some(side),
                rated: g.rated,
                self_play: g.south_player.is_some() && g.south_player == g.north_player,
                finished_at: g.finished_at,
                record: format!("/api/games/{}/record", g.id),
            }
        })
        .collect();
    Ok(PlayerInfo {
        id: id.to_owned(),
        name: p.display_name,
        discord_linked: p.discord_id.is_some(),
        badges: badges(store, id).await?,
        rating: RatingView {
            rating: p.rating.rating.round(),
            deviation: p.rating.deviation.round(),
            rated: p.rated_at.is_some(),
        },
        games: total,
        by_faction: by_faction
            .into_values()
            .map(|(faction, n)| FactionTotals { faction, played: n.played, won: n.won })
            .collect(),
        by_matchup: totals
            .into_iter()
            .map(|t| MatchupTotals {
                south: t.south,
                north: t.north,
                side: t.side,
                played: t.played,
                won: t.won,
            })
            .collect(),
        recent,
        next,
    })
}

/// How many players the leaderboard shows.
pub const LEADERBOARD_SIZE: u32 = 50;

/// The best-rated players (those with at least one rated game), with their badges: two
/// queries for the whole page, whatever its size.
pub async fn leaderboard<S: PlayerStore>(store: &S) -> StoreResult<Leaderboard> {
    let top = store.top_rated(LEADERBOARD_SIZE).await?;
    let ids: Vec<&str> = top.iter().map(|p| p.id.as_str()).collect();
    let mut badges =
        if ids.is_empty() { BTreeMap::new() } else { badges_by_player(store.badges_of(&ids).await?) };
    Ok(Leaderboard {
        players: top
            .iter()
            .enumerate()
            .map(|(i, p)| LeaderboardEntry {
                rank: i + 1,
                id: p.id.clone(),
                name: p.display_name.clone(),
                rating: p.rating.rating.round(),
                deviation: p.rating.deviation.round(),
                badges: badges.remove(&p.id).unwrap_or_default(),
            })
            .collect(),
    })
}

const COUNTED: &str =
    "finished link games (human vs human, two different players) with at least one move, aborted games aside";

/// Finished human-vs-human games per match-up: link games in which a move was played,
/// between two different players, aborted games aside. Read from the counters the games
/// rows' triggers keep (`matchup_totals`, at most nine rows), never from the games.
pub async fn matchups<S: PlayerStore>(store: &S) -> StoreResult<Matchups> {
    let counts = store.matchup_counts().await?;
    let mut out = Vec::new();
    for south in Faction::ALL {
        for north in Faction::ALL {
            let c = counts.iter().find(|c| c.south == south && c.north == north);
            out.push(MatchupStats {
                south,
                north,
                games: c.map_or(0, |c| c.games),
                south_wins: c.map_or(0, |c| c.south_wins),
                north_wins: c.map_or(0, |c| c.north_wins),
                draws: c.map_or(0, |c| c.draws),
            });
        }
    }
    Ok(Matchups { matchups: out, counted: COUNTED })
}

// ---------------------------------------------------------------------------------------
// Accounts: names and Discord sign-in

/// The session's player as `/api/me` shows it (404 if its row is gone).
pub async fn me<S: PlayerStore>(store: &S, player: &str) -> Result<Me, ApiError> {
    let p = store.player(player).await?.ok_or_else(|| ApiError::not_found("no such player"))?;
    Ok(Me {
        id: Some(p.id),
        name: p.display_name,
        discord_linked: p.discord_id.is_some(),
        badges: badges(store, player).await?,
        discord_available: None,
    })
}

/// A new session for `player`: a fresh token (for the cookie) and the row that stores
/// its hash, valid for [`crate::accounts::SESSION_MAX_AGE_S`].
pub fn new_session(rng: &mut impl Random, player: &str, now: i64) -> Result<(String, SessionRow), ApiError> {
    let token = rng.token()?;
    let row = SessionRow {
        token_hash: crate::tokens::hash(&token),
        player: player.to_owned(),
        created_at: now,
        expires_at: now + crate::accounts::SESSION_MAX_AGE_S * 1000,
    };
    Ok((token, row))
}

/// The live session of a cookie's token: `(player, token hash)`, `None` when unknown or
/// expired.
pub async fn session<S: PlayerStore>(
    store: &S,
    token: &str,
    now: i64,
) -> StoreResult<Option<(String, String)>> {
    let hash = crate::tokens::hash(token);
    Ok(store.session_player(&hash, now).await?.map(|p| (p, hash)))
}

/// A new guest (`Guest-…`, the default rating) with its first session: the player's id
/// and the session's token.
pub async fn new_guest<S: PlayerStore>(
    store: &S,
    rng: &mut impl Random,
    now: i64,
) -> Result<(String, String), ApiError> {
    let id = rng.id()?;
    let (token, session) = new_session(rng, &id, now)?;
    store.create_guest(&PlayerRow::new(&id, &guest_name(&id)), &session).await?;
    Ok((id, token))
}

/// Sign-in's fresh session: the token the browser held before (which a page or another
/// party may have planted or seen) ends in the same transaction. Returns the new token.
pub async fn fresh_session<S: PlayerStore>(
    store: &S,
    rng: &mut impl Random,
    player: &str,
    old_token_hash: &str,
    now: i64,
) -> Result<String, ApiError> {
    let (token, session) = new_session(rng, player, now)?;
    store.start_session(&session, old_token_hash).await?;
    Ok(token)
}

/// Sign out this browser's session, or (`everywhere`) every session of its player.
pub async fn sign_out<S: PlayerStore>(
    store: &S,
    session: Option<(&str, &str)>,
    everywhere: bool,
) -> StoreResult<SignedOut> {
    let ended = match session {
        Some((player, _)) if everywhere => store.end_sessions_of(player).await?,
        Some((_, hash)) => store.end_session(hash).await?,
        None => 0,
    };
    Ok(SignedOut { signed_out: true, sessions_ended: ended })
}

/// A guest's display name: `Guest-` and the first 6 characters of its id.
pub fn guest_name(id: &str) -> String {
    format!("Guest-{}", id.chars().take(6).collect::<String>())
}

fn claim(name: String) -> NameClaim {
    NameClaim { key: names::key(&name), name }
}

fn name_taken_error(name: &str) -> ApiError {
    ApiError::new(ErrorCode::NameTaken, format!("another player already shows the name '{name}'"))
}

/// `POST /api/me/name`: a valid chosen name that no other player shows (names are
/// compared NFKC-lowercased, and ASCII-case-insensitively against names set before the
/// key existed): 422 invalid, 409 `name_taken`, including when a look-alike is chosen
/// by another player at the same moment (the store's unique key decides).
pub async fn choose_name<S: PlayerStore>(store: &S, player: &str, raw: &str) -> Result<Me, ApiError> {
    let name = claim(names::validate_chosen(raw)?);
    if store.name_taken(&name, player).await? || !store.claim_name(player, &name).await? {
        return Err(name_taken_error(&name.name));
    }
    me(store, player).await
}

/// The Discord name as a display name: valid (else "Discord player"), and tagged
/// (`Name-1a2b`) if another player already shows it.
pub async fn discord_display_name<S: PlayerStore>(
    store: &S,
    discord_name: &str,
    player: &str,
) -> StoreResult<String> {
    let name = names::validate_chosen(discord_name).unwrap_or_else(|_| "Discord player".to_owned());
    Ok(if store.name_taken(&claim(name.clone()), player).await? {
        names::disambiguate(&name, player)
    } else {
        name
    })
}

/// The story progress of an account after a guest's is merged into it: per story, the
/// furthest of the two, and the guest's stage in play (else the account's).
pub fn merged_progress(
    account: &[(String, Progress)],
    guest: &[(String, Progress)],
) -> Vec<(String, Progress)> {
    guest
        .iter()
        .map(|(story, g)| {
            let a = account.iter().find(|(s, _)| s == story).map(|(_, p)| p.clone()).unwrap_or_default();
            let p = Progress {
                completed: a.completed.max(g.completed),
                current_game: g.current_game.clone().or(a.current_game),
                current_stage: g.current_stage.or(a.current_stage),
            };
            (story.clone(), p)
        })
        .collect()
}

/// Which player a sign-in with Discord account `discord_id` ends as, making it so.
///
/// - The session's player already has this Discord id: that player.
/// - The session's player is linked to another Discord id: it is left alone (never
///   re-bound, never merged); the sign-in switches to the player of this Discord id,
///   made if new.
/// - The session's player is a guest: if another player already has this Discord id (a
///   sign-in on another browser), the guest's progress, badges, games and sessions move
///   to it (only guests are ever merged); otherwise the guest becomes the account.
/// - No session: the player of this Discord id, made if new.
pub async fn link<S: PlayerStore>(
    store: &S,
    rng: &mut impl Random,
    current: Option<&str>,
    discord_id: &str,
    discord_name: &str,
    now: i64,
) -> Result<String, ApiError> {
    let by_discord = store.player_by_discord(discord_id).await?;
    let me = match current {
        Some(id) => store.player(id).await?,
        None => None,
    };
    if let Some(m) = me.as_ref().filter(|m| m.discord_id.as_deref() == Some(discord_id)) {
        return Ok(m.id.clone());
    }
    // The guest (if the session has one) that may be merged or become the account.
    let guest = me.filter(|m| m.discord_id.is_none());
    match (by_discord, guest) {
        (Some(account), Some(guest)) => {
            let progress = merged_progress(
                &store.all_progress(&account.id).await?,
                &store.all_progress(&guest.id).await?,
            );
            store
                .merge_guest(&Merge { guest: guest.id, account: account.id.clone(), progress, at: now })
                .await?;
            Ok(account.id)
        }
        (Some(account), None) => Ok(account.id),
        (None, Some(guest)) => {
            // The Discord name replaces a guest's `Guest-…` name, not a chosen one.
            let rename = match guest.display_name.as_deref() {
                Some(d) if names::is_chosen(d) => None,
                _ => Some(claim(discord_display_name(store, discord_name, &guest.id).await?)),
            };
            store.bind_discord(&guest.id, discord_id, rename.as_ref()).await?;
            Ok(guest.id)
        }
        (None, None) => {
            let id = rng.id()?;
            let name = claim(discord_display_name(store, discord_name, &id).await?);
            store.create_discord_player(&id, &guest_name(&id), discord_id, &name, now).await?;
            Ok(id)
        }
    }
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;

    #[test]
    fn a_page_is_read_from_the_query_or_refused_naming_why() {
        let id = "0123456789abcdef01234567";
        assert_eq!(games_page("").unwrap(), GamesPage { before: None, limit: RECENT_GAMES });
        assert_eq!(games_page("x=1&limit=50").unwrap().limit, 50, "other parameters are ignored");
        let p = games_page(&format!("before=5_{id}&limit=1")).unwrap();
        assert_eq!(p, GamesPage { before: Some(GamesCursor { at: 5, id: id.into() }), limit: 1 });
        for (q, says) in [
            ("limit=0", "from 1 to 50"),
            ("limit=51", "from 1 to 50"),
            ("limit=-1", "from 1 to 50"),
            ("limit=", "from 1 to 50"),
            ("limit=1e1", "from 1 to 50"),
            ("limit=1&limit=2", "'limit' is given twice"),
            ("before=", "not a cursor"),
            ("before=next", "not a cursor"),
        ] {
            let e = games_page(q).unwrap_err();
            assert_eq!(e.code, ErrorCode::InvalidPage, "{q}");
            assert!(e.message.contains(says), "{q}: {}", e.message);
        }
    }
}
