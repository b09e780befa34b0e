//! Where players live: D1 in production (`src/player_store.rs`, bound parameters only),
//! memory in tests ([`MemoryPlayers`]). The rules that read and write them are in
//! [`crate::players`]; a store only reads rows and applies writes, each write one
//! transaction that re-checks its own precondition (the current stage game, the rating
//! versions, a free name key) so that a race or a retry cannot apply a change twice.
//!
//! The trait is async because D1 is; the Worker is single-threaded (wasm), so the
//! futures need no `Send` bound.

use std::cell::RefCell;
use std::collections::BTreeMap;

use engine::{Faction, Side};

use crate::error::ApiError;
use crate::model::{FinishReason, Mode};
use crate::rating::Rating;
use crate::story::Badge;

pub use crate::sql::{StoreError, StoreResult};

impl From<StoreError> for ApiError {
    fn from(e: StoreError) -> ApiError {
        ApiError::new(503, "storage_unavailable", e.0)
    }
}

/// A player's row.
#[derive(Clone, Debug, PartialEq)]
pub struct PlayerRow {
    pub id: String,
    pub display_name: Option<String>,
    pub discord_id: Option<String>,
    pub rating: Rating,
    /// When a rated game last moved the rating; `None`: never rated.
    pub rated_at: Option<i64>,
    /// Bumped by every rating update (the compare-and-set of [`RatingCommit`]).
    pub rating_version: i64,
}

impl PlayerRow {
    /// A new player as the schema's defaults make it.
    pub fn new(id: &str, display_name: &str) -> PlayerRow {
        PlayerRow {
            id: id.to_owned(),
            display_name: Some(display_name.to_owned()),
            discord_id: None,
            rating: Rating::default(),
            rated_at: None,
            rating_version: 0,
        }
    }
}

/// A player's progress in one story.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Progress {
    /// Stages completed: the next stage to play.
    pub completed: usize,
    /// The stage game being played, whose result alone can advance the story.
    pub current_game: Option<String>,
    pub current_stage: Option<usize>,
}

/// A finished game one of whose seats is the player (Player Info).
#[derive(Clone, Debug, PartialEq)]
pub struct FinishedGame {
    pub id: String,
    pub south: Faction,
    pub north: Faction,
    pub mode: Mode,
    pub south_player: Option<String>,
    pub north_player: Option<String>,
    pub winner: Option<Side>,
    /// The record's result line (`south wins: timeout`, `aborted: never joined`, …).
    pub result: String,
    /// Why it ended (`None`: a reason this version does not know).
    pub reason: Option<FinishReason>,
    pub finished_at: Option<i64>,
    /// Whether its result was applied to the ratings.
    pub rated: bool,
}

/// Finished games counted together: one row per distinct combination of the columns
/// the match-up statistics filter on (a few hundred rows at most, however many games).
#[derive(Clone, Debug, PartialEq)]
pub struct Tally {
    pub south: Faction,
    pub north: Faction,
    pub mode: Mode,
    pub winner: Option<Side>,
    /// Why they ended (`None`: a reason this version does not know).
    pub reason: Option<FinishReason>,
    /// At least one move was played.
    pub moved: bool,
    /// Both seats are the same player.
    pub self_play: bool,
    pub games: u64,
}

/// A stage game's result, applied only while `game` is the player's current stage game
/// (the write clears it, so a retry applies nothing).
#[derive(Clone, Debug, PartialEq)]
pub struct StageDone {
    /// The player (already resolved through merges).
    pub player: String,
    pub story: String,
    pub game: String,
    /// Stages completed after this result (never less than before).
    pub completed: usize,
    /// The badge earned, if this result completed the story.
    pub badge: Option<Badge>,
    pub at: i64,
}

/// New ratings for a rated game's two players, applied only if the game is not rated yet
/// and neither player's `rating_version` moved since `version` was read.
#[derive(Clone, Debug, PartialEq)]
pub struct RatingCommit {
    pub game: String,
    pub at: i64,
    /// `(player, version read, new rating)` for south then north.
    pub players: [(String, i64, Rating); 2],
}

/// A guest merged into the Discord-linked `account` (a sign-in on a second browser).
#[derive(Clone, Debug, PartialEq)]
pub struct Merge {
    pub guest: String,
    pub account: String,
    /// The account's progress after the merge, per story the guest had progress in.
    pub progress: Vec<(String, Progress)>,
    pub at: i64,
}

/// A browser's session: the SHA-256 of its cookie token (the token itself is never
/// stored) and its player.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SessionRow {
    pub token_hash: String,
    pub player: String,
    pub created_at: i64,
    pub expires_at: i64,
}

/// A display name and its uniqueness key ([`crate::names::key`]).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct NameClaim {
    pub name: String,
    pub key: String,
}

#[allow(async_fn_in_trait)] // single-threaded wasm: callers never need the futures to be Send
pub trait PlayerStore {
    /// The player of the session with this token hash, unless it expired by `now`.
    async fn session_player(&self, token_hash: &str, now: i64) -> StoreResult<Option<String>>;
    /// A new guest and its first session, in one transaction.
    async fn create_guest(&self, player: &PlayerRow, session: &SessionRow) -> StoreResult<()>;
    /// A new session, ending the one with hash `replacing` in the same transaction.
    async fn start_session(&self, session: &SessionRow, replacing: &str) -> StoreResult<()>;
    /// Ends one session; how many ended.
    async fn end_session(&self, token_hash: &str) -> StoreResult<u64>;
    /// Ends every session of the player; how many ended.
    async fn end_sessions_of(&self, player: &str) -> StoreResult<u64>;

    async fn player(&self, id: &str) -> StoreResult<Option<PlayerRow>>;
    async fn player_by_discord(&self, discord_id: &str) -> StoreResult<Option<PlayerRow>>;
    /// Rated players (`rated_at` set), best rating first (ties by id), at most `limit`.
    async fn top_rated(&self, limit: u32) -> StoreResult<Vec<PlayerRow>>;
    /// The badges of all of `players` (one query; D1: one per 100 players), each player's
    /// in the order earned.
    async fn badges_of(&self, players: &[&str]) -> StoreResult<Vec<(String, Badge)>>;
    async fn has_badge(&self, player: &str, badge: &str) -> StoreResult<bool>;
    /// The player's finished games, latest first.
    async fn finished_games(&self, player: &str) -> StoreResult<Vec<FinishedGame>>;
    /// Every finished game, counted by [`Tally`]'s columns.
    async fn tallies(&self) -> StoreResult<Vec<Tally>>;

    /// The player a (possibly merged-away guest) id stands for.
    async fn resolve(&self, id: &str) -> StoreResult<String>;
    /// The guests merged into `player`.
    async fn aliases(&self, player: &str) -> StoreResult<Vec<String>>;
    /// Progress in a story (all zero without a row).
    async fn progress(&self, player: &str, story: &str) -> StoreResult<Progress>;
    /// Every story the player has progress in.
    async fn all_progress(&self, player: &str) -> StoreResult<Vec<(String, Progress)>>;
    /// `game` becomes the stage game being played (a row is made if none).
    async fn set_current_stage(
        &self,
        player: &str,
        story: &str,
        game: &str,
        stage: usize,
        at: i64,
    ) -> StoreResult<()>;
    /// Forgets the stage game being played, if it is still `game`.
    async fn clear_current_game(&self, player: &str, story: &str, game: &str) -> StoreResult<()>;
    /// Progress back to zero, no stage game.
    async fn reset_story(&self, player: &str, story: &str, at: i64) -> StoreResult<()>;
    /// Applies a stage result in one transaction (see [`StageDone`]).
    async fn finish_stage(&self, done: &StageDone) -> StoreResult<()>;

    async fn rating_applied(&self, game: &str) -> StoreResult<bool>;
    /// The compare-and-set of [`RatingCommit`], in one transaction; `Ok(true)` when the
    /// game's rating is applied afterwards (by this call or an earlier one).
    async fn commit_rating(&self, commit: &RatingCommit) -> StoreResult<bool>;

    /// Whether a player other than `player` holds `name`'s key, or shows `name` with
    /// ASCII case ignored (names set before the key existed).
    async fn name_taken(&self, name: &NameClaim, player: &str) -> StoreResult<bool>;
    /// Sets the player's chosen name and moves its key, in one transaction; `Ok(false)`
    /// when another player holds the key (a look-alike chosen at the same moment).
    async fn claim_name(&self, player: &str, name: &NameClaim) -> StoreResult<bool>;

    /// Moves the guest's badges, progress, games, sessions and aliases to the account,
    /// records the merge and deletes the guest (only a player with no Discord id).
    async fn merge_guest(&self, merge: &Merge) -> StoreResult<()>;
    /// Links the guest to `discord_id` (if it has none yet) and, when `name` is given,
    /// replaces its `Guest-…` name by it if the key is free.
    async fn bind_discord(&self, guest: &str, discord_id: &str, name: Option<&NameClaim>) -> StoreResult<()>;
    /// A new player linked to `discord_id`, shown as `name` if its key is free, else as
    /// `guest_name`.
    async fn create_discord_player(
        &self,
        id: &str,
        guest_name: &str,
        discord_id: &str,
        name: &NameClaim,
        at: i64,
    ) -> StoreResult<()>;
}

/// A game row as the memory store keeps it (the subset of D1's `games` that players use).
#[derive(Clone, Debug, PartialEq)]
pub struct MemoryGame {
    pub id: String,
    pub south: Faction,
    pub north: Faction,
    pub mode: Mode,
    pub south_player: Option<String>,
    pub north_player: Option<String>,
    pub winner: Option<Side>,
    pub result: Option<String>,
    pub reason: Option<FinishReason>,
    pub finished_at: Option<i64>,
    pub plies: u32,
}

/// The tables, in memory. Public so tests can arrange and inspect them.
#[derive(Clone, Debug, Default)]
pub struct Tables {
    pub players: BTreeMap<String, PlayerRow>,
    /// `(player, badge) -> awarded_at`.
    pub player_badges: BTreeMap<(String, String), i64>,
    pub badges: BTreeMap<String, Badge>,
    pub progress: BTreeMap<(String, String), Progress>,
    /// `game -> applied_at`.
    pub rated_games: BTreeMap<String, i64>,
    /// `guest -> account`.
    pub merges: BTreeMap<String, String>,
    /// `name key -> player`.
    pub names: BTreeMap<String, String>,
    /// By token hash.
    pub sessions: BTreeMap<String, SessionRow>,
    pub games: Vec<MemoryGame>,
}

/// An in-memory [`PlayerStore`] for tests, with the D1 store's transactional
/// preconditions. `before_commit` runs inside [`PlayerStore::commit_rating`] before the
/// compare-and-set (a test uses it to let a concurrent update win).
#[derive(Default)]
pub struct MemoryPlayers {
    pub t: RefCell<Tables>,
    #[allow(clippy::type_complexity)] // a test hook
    pub before_commit: RefCell<Option<Box<dyn FnMut(&mut Tables)>>>,
    /// Statements issued (reads and writes), to check the batching of the leaderboard.
    pub queries: std::cell::Cell<usize>,
}

impl std::fmt::Debug for MemoryPlayers {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("MemoryPlayers").field("t", &self.t).finish_non_exhaustive()
    }
}

impl MemoryPlayers {
    fn count(&self) {
        self.queries.set(self.queries.get() + 1);
    }

    fn resolved(t: &Tables, id: &str) -> String {
        t.merges.get(id).cloned().unwrap_or_else(|| id.to_owned())
    }
}

impl PlayerStore for MemoryPlayers {
    async fn session_player(&self, token_hash: &str, now: i64) -> StoreResult<Option<String>> {
        self.count();
        Ok(self.t.borrow().sessions.get(token_hash).filter(|s| s.expires_at > now).map(|s| s.player.clone()))
    }

    async fn create_guest(&self, player: &PlayerRow, session: &SessionRow) -> StoreResult<()> {
        self.count();
        let mut t = self.t.borrow_mut();
        t.players.insert(player.id.clone(), player.clone());
        t.sessions.insert(session.token_hash.clone(), session.clone());
        Ok(())
    }

    async fn start_session(&self, session: &SessionRow, replacing: &str) -> StoreResult<()> {
        self.count();
        let mut t = self.t.borrow_mut();
        t.sessions.remove(replacing);
        t.sessions.insert(session.token_hash.clone(), session.clone());
        Ok(())
    }

    async fn end_session(&self, token_hash: &str) -> StoreResult<u64> {
        self.count();
        Ok(u64::from(self.t.borrow_mut().sessions.remove(token_hash).is_some()))
    }

    async fn end_sessions_of(&self, player: &str) -> StoreResult<u64> {
        self.count();
        let mut t = self.t.borrow_mut();
        let before = t.sessions.len();
        t.sessions.retain(|_, s| s.player != player);
        Ok((before - t.sessions.len()) as u64)
    }

    async fn player(&self, id: &str) -> StoreResult<Option<PlayerRow>> {
        self.count();
        Ok(self.t.borrow().players.get(id).cloned())
    }

    async fn player_by_discord(&self, discord_id: &str) -> StoreResult<Option<PlayerRow>> {
        self.count();
        Ok(self.t.borrow().players.values().find(|p| p.discord_id.as_deref() == Some(discord_id)).cloned())
    }

    async fn top_rated(&self, limit: u32) -> StoreResult<Vec<PlayerRow>> {
        self.count();
        let mut v: Vec<PlayerRow> =
            self.t.borrow().players.values().filter(|p| p.rated_at.is_some()).cloned().collect();
        v.sort_by(|a, b| b.rating.rating.total_cmp(&a.rating.rating).then_with(|| a.id.cmp(&b.id)));
        v.truncate(limit as usize);
        Ok(v)
    }

    async fn badges_of(&self, players: &[&str]) -> StoreResult<Vec<(String, Badge)>> {
        self.count();
        let t = self.t.borrow();
        let mut v: Vec<(i64, String, Badge)> = t
            .player_badges
            .iter()
            .filter(|((p, _), _)| players.contains(&p.as_str()))
            .filter_map(|((p, b), at)| t.badges.get(b).map(|b| (*at, p.clone(), b.clone())))
            .collect();
        v.sort_by(|a, b| a.0.cmp(&b.0).then_with(|| a.2.id.cmp(&b.2.id)));
        Ok(v.into_iter().map(|(_, p, b)| (p, b)).collect())
    }

    async fn has_badge(&self, player: &str, badge: &str) -> StoreResult<bool> {
        self.count();
        Ok(self.t.borrow().player_badges.contains_key(&(player.to_owned(), badge.to_owned())))
    }

    async fn finished_games(&self, player: &str) -> StoreResult<Vec<FinishedGame>> {
        self.count();
        let t = self.t.borrow();
        let mine = |g: &&MemoryGame| {
            g.south_player.as_deref() == Some(player) || g.north_player.as_deref() == Some(player)
        };
        let mut v: Vec<FinishedGame> = t
            .games
            .iter()
            .filter(mine)
            .filter_map(|g| {
                Some(FinishedGame {
                    id: g.id.clone(),
                    south: g.south,
                    north: g.north,
                    mode: g.mode,
                    south_player: g.south_player.clone(),
                    north_player: g.north_player.clone(),
                    winner: g.winner,
                    result: g.result.clone()?,
                    reason: g.reason,
                    finished_at: g.finished_at,
                    rated: t.rated_games.contains_key(&g.id),
                })
            })
            .collect();
        v.sort_by_key(|g| std::cmp::Reverse(g.finished_at));
        Ok(v)
    }

    async fn tallies(&self) -> StoreResult<Vec<Tally>> {
        self.count();
        let t = self.t.borrow();
        let mut v: Vec<Tally> = Vec::new();
        for g in &t.games {
            if g.result.is_none() {
                continue;
            }
            let row = Tally {
                south: g.south,
                north: g.north,
                mode: g.mode,
                winner: g.winner,
                reason: g.reason,
                moved: g.plies > 0,
                self_play: g.south_player.is_some() && g.south_player == g.north_player,
                games: 1,
            };
            match v.iter_mut().find(|r| Tally { games: r.games, ..row.clone() } == **r) {
                Some(r) => r.games += 1,
                None => v.push(row),
            }
        }
        Ok(v)
    }

    async fn resolve(&self, id: &str) -> StoreResult<String> {
        self.count();
        Ok(Self::resolved(&self.t.borrow(), id))
    }

    async fn aliases(&self, player: &str) -> StoreResult<Vec<String>> {
        self.count();
        Ok(self
            .t
            .borrow()
            .merges
            .iter()
            .filter(|(_, into)| *into == player)
            .map(|(g, _)| g.clone())
            .collect())
    }

    async fn progress(&self, player: &str, story: &str) -> StoreResult<Progress> {
        self.count();
        Ok(self.t.borrow().progress.get(&(player.to_owned(), story.to_owned())).cloned().unwrap_or_default())
    }

    async fn all_progress(&self, player: &str) -> StoreResult<Vec<(String, Progress)>> {
        self.count();
        Ok(self
            .t
            .borrow()
            .progress
            .iter()
            .filter(|((p, _), _)| p == player)
            .map(|((_, s), pr)| (s.clone(), pr.clone()))
            .collect())
    }

    async fn set_current_stage(
        &self,
        player: &str,
        story: &str,
        game: &str,
        stage: usize,
        _at: i64,
    ) -> StoreResult<()> {
        self.count();
        let mut t = self.t.borrow_mut();
        let p = t.progress.entry((player.to_owned(), story.to_owned())).or_default();
        p.current_game = Some(game.to_owned());
        p.current_stage = Some(stage);
        Ok(())
    }

    async fn clear_current_game(&self, player: &str, story: &str, game: &str) -> StoreResult<()> {
        self.count();
        if let Some(p) = self.t.borrow_mut().progress.get_mut(&(player.to_owned(), story.to_owned())) {
            if p.current_game.as_deref() == Some(game) {
                p.current_game = None;
                p.current_stage = None;
            }
        }
        Ok(())
    }

    async fn reset_story(&self, player: &str, story: &str, _at: i64) -> StoreResult<()> {
        self.count();
        if let Some(p) = self.t.borrow_mut().progress.get_mut(&(player.to_owned(), story.to_owned())) {
            *p = Progress::default();
        }
        Ok(())
    }

    async fn finish_stage(&self, done: &StageDone) -> StoreResult<()> {
        self.count();
        let mut t = self.t.borrow_mut();
        let key = (done.player.clone(), done.story.clone());
        let current = t.progress.get(&key).is_some_and(|p| p.current_game.as_deref() == Some(&done.game));
        if !current {
            return Ok(());
        }
        if let Some(b) = &done.badge {
            t.badges.entry(b.id.clone()).or_insert_with(|| b.clone());
            t.player_badges.entry((done.player.clone(), b.id.clone())).or_insert(done.at);
        }
        if let Some(p) = t.progress.get_mut(&key) {
            p.completed = p.completed.max(done.completed);
            p.current_game = None;
            p.current_stage = None;
        }
        Ok(())
    }

    async fn rating_applied(&self, game: &str) -> StoreResult<bool> {
        self.count();
        Ok(self.t.borrow().rated_games.contains_key(game))
    }

    async fn commit_rating(&self, c: &RatingCommit) -> StoreResult<bool> {
        self.count();
        if let Some(hook) = self.before_commit.borrow_mut().as_mut() {
            hook(&mut self.t.borrow_mut());
        }
        let mut t = self.t.borrow_mut();
        let as_read =
            c.players.iter().all(|(id, v, _)| t.players.get(id).is_some_and(|p| p.rating_version == *v));
        if as_read && !t.rated_games.contains_key(&c.game) {
            t.rated_games.insert(c.game.clone(), c.at);
            for (id, _, r) in &c.players {
                if let Some(p) = t.players.get_mut(id) {
                    p.rating = *r;
                    p.rated_at = Some(c.at);
                    p.rating_version += 1;
                }
            }
        }
        Ok(t.rated_games.contains_key(&c.game))
    }

    async fn name_taken(&self, name: &NameClaim, player: &str) -> StoreResult<bool> {
        self.count();
        let t = self.t.borrow();
        let by_key = t.names.get(&name.key).is_some_and(|p| p != player);
        // SQLite's lower() folds ASCII only.
        let by_name = t.players.values().any(|p| {
            p.id != player && p.display_name.as_deref().is_some_and(|d| d.eq_ignore_ascii_case(&name.name))
        });
        Ok(by_key || by_name)
    }

    async fn claim_name(&self, player: &str, name: &NameClaim) -> StoreResult<bool> {
        self.count();
        let mut t = self.t.borrow_mut();
        if t.names.get(&name.key).is_some_and(|p| p != player) {
            return Ok(false);
        }
        t.names.retain(|_, p| p != player);
        t.names.insert(name.key.clone(), player.to_owned());
        if let Some(p) = t.players.get_mut(player) {
            p.display_name = Some(name.name.clone());
        }
        Ok(true)
    }

    async fn merge_guest(&self, m: &Merge) -> StoreResult<()> {
        self.count();
        let mut t = self.t.borrow_mut();
        let (g, a) = (m.guest.as_str(), m.account.as_str());
        let moved: Vec<((String, String), i64)> =
            t.player_badges.iter().filter(|((p, _), _)| p == g).map(|(k, at)| (k.clone(), *at)).collect();
        for ((_, b), at) in moved {
            t.player_badges.remove(&(g.to_owned(), b.clone()));
            t.player_badges.entry((a.to_owned(), b)).or_insert(at);
        }
        for (story, p) in &m.progress {
            let row = t.progress.entry((a.to_owned(), story.clone())).or_default();
            row.completed = row.completed.max(p.completed);
            row.current_game = p.current_game.clone().or(row.current_game.take());
            row.current_stage = p.current_stage.or(row.current_stage);
        }
        t.progress.retain(|(p, _), _| p != g);
        t.merges.insert(g.to_owned(), a.to_owned());
        for into in t.merges.values_mut() {
            if into == g {
                *into = a.to_owned();
            }
        }
        for game in &mut t.games {
            for seat in [&mut game.south_player, &mut game.north_player] {
                if seat.as_deref() == Some(g) {
                    *seat = Some(a.to_owned());
                }
            }
        }
        for s in t.sessions.values_mut() {
            if s.player == g {
                s.player = a.to_owned();
            }
        }
        t.names.retain(|_, p| p != g);
        if t.players.get(g).is_some_and(|p| p.discord_id.is_none()) {
            t.players.remove(g);
        }
        Ok(())
    }

    async fn bind_discord(&self, guest: &str, discord_id: &str, name: Option<&NameClaim>) -> StoreResult<()> {
        self.count();
        let mut t = self.t.borrow_mut();
        let Some(p) = t.players.get_mut(guest) else { return Ok(()) };
        if p.discord_id.is_none() {
            p.discord_id = Some(discord_id.to_owned());
        }
        let guest_named = p.display_name.as_deref().is_some_and(|d| !crate::names::is_chosen(d));
        if let Some(n) = name.filter(|_| guest_named) {
            if !t.names.contains_key(&n.key) {
                t.names.insert(n.key.clone(), guest.to_owned());
                if let Some(p) = t.players.get_mut(guest) {
                    p.display_name = Some(n.name.clone());
                }
            }
        }
        Ok(())
    }

    async fn create_discord_player(
        &self,
        id: &str,
        guest_name: &str,
        discord_id: &str,
        name: &NameClaim,
        _at: i64,
    ) -> StoreResult<()> {
        self.count();
        let mut t = self.t.borrow_mut();
        let mut p = PlayerRow::new(id, guest_name);
        p.discord_id = Some(discord_id.to_owned());
        if !t.names.contains_key(&name.key) {
            t.names.insert(name.key.clone(), id.to_owned());
            p.display_name = Some(name.name.clone());
        }
        t.players.insert(id.to_owned(), p);
        Ok(())
    }
}
