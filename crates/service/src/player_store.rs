//! Where players live: [`crate::sql_players::SqlPlayers`], the SQL with bound parameters
//! only, run by D1 in the Worker and by real SQLite over the real migrations in the
//! native tests. The rules that read and write them are in
//! [`crate::players`]; a store only reads rows and applies writes, each write one
//! transaction that re-checks its own precondition (the current stage game, the rating
//! versions, a free name key) so that a race or a retry cannot apply a change twice.
//!
//! The trait is async because D1 is; the Worker is single-threaded (wasm), so the
//! futures need no `Send` bound.

use engine::{Faction, Side};

use crate::error::{ApiError, ErrorCode};
use crate::model::{FinishReason, Mode};
use crate::rating::Rating;
use crate::story::Badge;

pub use crate::sql::{StoreError, StoreResult};

impl From<StoreError> for ApiError {
    fn from(e: StoreError) -> ApiError {
        ApiError::new(ErrorCode::StorageUnavailable, e.0)
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

/// A finished game one of whose seats is the player (Player Info's list).
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

impl FinishedGame {
    /// The place of this game in the list (a page that ends here goes on from it).
    pub fn cursor(&self) -> GamesCursor {
        GamesCursor { at: self.finished_at.unwrap_or(0), id: self.id.clone() }
    }
}

/// A place in a player's finished games, listed latest first: by end time (`finished_at`,
/// none read as 0), then by id, both descending. A page `before` it starts with the next
/// older game, so a game finished meanwhile neither repeats nor shifts the pages.
///
/// On the wire (`?before=`, Player Info's `next`): `<at>_<id>`, e.g.
/// `1712345678901_0123456789abcdef01234567`, opaque to clients.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct GamesCursor {
    /// Milliseconds since the Unix epoch, within a JavaScript number's exact integers (D1
    /// binds numbers as doubles).
    pub at: i64,
    /// A game's id (24 lowercase hex digits).
    pub id: String,
}

/// The largest integer a double holds exactly (`Number.MAX_SAFE_INTEGER`).
const MAX_EXACT: i64 = (1 << 53) - 1;

impl std::fmt::Display for GamesCursor {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}_{}", self.at, self.id)
    }
}

impl serde::Serialize for GamesCursor {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.collect_str(self)
    }
}

impl std::str::FromStr for GamesCursor {
    type Err = ApiError;

    /// 400 `invalid_page` for anything [`GamesCursor`]'s `Display` does not write.
    fn from_str(s: &str) -> Result<GamesCursor, ApiError> {
        let bad = || {
            let shown: String = s.chars().take(60).collect();
            ApiError::new(ErrorCode::InvalidPage, format!("'{shown}' is not a cursor this API gave (`next`)"))
        };
        let (at, id) = s.split_once('_').ok_or_else(bad)?;
        // Digits only (no sign, no `+`): the form Display writes, at most 16 of them.
        let digits = at.strip_prefix('-').unwrap_or(at);
        if digits.is_empty() || digits.len() > 16 || !digits.bytes().all(|b| b.is_ascii_digit()) {
            return Err(bad());
        }
        let at: i64 = at.parse().map_err(|_| bad())?;
        let hex = id.len() == 24 && id.bytes().all(|b| matches!(b, b'0'..=b'9' | b'a'..=b'f'));
        if !hex || at.abs() > MAX_EXACT {
            return Err(bad());
        }
        Ok(GamesCursor { at, id: id.to_owned() })
    }
}

/// A page of a player's finished games: at most `limit`, latest first, older than
/// `before` when given.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct GamesPage {
    pub before: Option<GamesCursor>,
    pub limit: u32,
}

/// A player's counted games of one match-up, played on one side (`player_totals`, kept by
/// triggers beside the games rows: migrations/0010_stats_counters.sql).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SideTotals {
    pub south: Faction,
    pub north: Faction,
    /// The player's side.
    pub side: Side,
    pub played: u32,
    pub won: u32,
}

/// The counted games of one match-up (`matchup_totals`, kept by triggers beside the
/// games rows: migrations/0010_stats_counters.sql).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct MatchupCount {
    pub south: Faction,
    pub north: Faction,
    pub games: u64,
    pub south_wins: u64,
    pub north_wins: u64,
    pub draws: u64,
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
    /// A page of the player's finished games (aborted games aside, games against oneself
    /// included), latest first: at most `page.limit` rows read, whatever the player's
    /// history.
    async fn finished_games(&self, player: &str, page: &GamesPage) -> StoreResult<Vec<FinishedGame>>;
    /// The player's counted games by match-up and side (at most 18 rows).
    async fn player_totals(&self, player: &str) -> StoreResult<Vec<SideTotals>>;
    /// The counted games of every match-up that has any (at most 9 rows).
    async fn matchup_counts(&self) -> StoreResult<Vec<MatchupCount>>;

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

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;

    #[test]
    fn a_cursor_reads_back_what_it_writes_and_nothing_else() {
        let id = "0123456789abcdef01234567";
        for at in [0, 1_712_345_678_901, MAX_EXACT, -5] {
            let c = GamesCursor { at, id: id.to_owned() };
            assert_eq!(c.to_string().parse::<GamesCursor>().unwrap(), c);
        }
        assert_eq!(
            serde_json::to_value(GamesCursor { at: 7, id: id.to_owned() }).unwrap(),
            format!("7_{id}")
        );
        for bad in [
            "".to_owned(),
            "7".to_owned(),
            format!("7-{id}"),
            format!("+7_{id}"),
            format!(" 7_{id}"),
            format!("_{id}"),
            format!("-_{id}"),
            format!("7.0_{id}"),
            format!("{}_{id}", MAX_EXACT + 1),
            format!("12345678901234567_{id}"),
            format!("7_{}", id.to_uppercase()),
            format!("7_{id}0"),
            format!("7_{id}_1"),
            "7_zz3456789abcdef01234567".to_owned(),
        ] {
            let e = bad.parse::<GamesCursor>().unwrap_err();
            assert_eq!((e.status(), e.code), (400, ErrorCode::InvalidPage), "{bad:?}");
        }
    }
}
