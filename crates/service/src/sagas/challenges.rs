//! Open challenges: post, list, cancel, and the accept saga — claim the challenge, make
//! the link game for the poster, join it for the accepter, tell the poster; each step
//! that fails undoes the claim, so the challenge can be accepted again.

use crate::challenge::{self, Accepted, Cancelled, ChallengeView, PostChallenge, Posted};
use crate::db_challenges::{self as db, ChallengeRow, NewChallenge};
use crate::error::{ApiError, ErrorCode};
use crate::game::Created;
use crate::http::PlayerRef;
use crate::ports::{CallError, Capacity, CreateCall, Games, Notifier};
use crate::sql::Sql;
use crate::tokens::Random;

/// Posts from one address bucket in an hour (guests are cheap to make, addresses less so).
pub const MAX_POSTS_PER_ADDRESS_PER_HOUR: u32 = 30;
/// Open challenges from one address bucket at once (fresh guests share it): enough for a
/// household, too few to fill the public list.
pub const MAX_OPEN_PER_ADDRESS: u32 = 6;

const HOUR_MS: i64 = 3_600_000;

/// The open challenges at `now`, newest first (at most 50).
pub async fn list(db: &impl Sql, now: i64) -> Result<Vec<ChallengeView>, ApiError> {
    Ok(db::open(db, now).await?.iter().filter_map(ChallengeRow::view).collect())
}

/// Posts `spec` for `poster` (already resolved from the session, a guest made if none)
/// from address bucket `ip_hash`; it expires `ttl_ms` after `now`.
pub async fn post(
    db: &impl Sql,
    rng: &mut dyn Random,
    now: i64,
    ttl_ms: i64,
    poster: &PlayerRef,
    ip_hash: &str,
    spec: &PostChallenge,
) -> Result<Posted, ApiError> {
    if spec.rated && !poster.linked {
        return Err(ApiError::new(
            ErrorCode::SignInRequired,
            "rated challenges are for players signed in with Discord",
        ));
    }
    let id = rng.id()?;
    let spec_json = serde_json::to_string(spec).map_err(|e| ApiError::internal(e.to_string()))?;
    let expires = now + ttl_ms;
    let new = NewChallenge {
        id: &id,
        poster: &poster.id,
        spec_json: &spec_json,
        ip_hash,
        created_at: now,
        expires_at: expires,
    };
    let caps = db::PostCaps {
        open_per_player: challenge::MAX_OPEN_PER_PLAYER,
        open_per_address: MAX_OPEN_PER_ADDRESS,
        posts_per_player: challenge::MAX_POSTS_PER_HOUR,
        posts_per_address: MAX_POSTS_PER_ADDRESS_PER_HOUR,
        since: now - HOUR_MS,
    };
    if !db::insert_under(db, &new, caps).await? {
        return Err(refusal(db, poster, ip_hash, now).await);
    }
    let row = ChallengeRow {
        id: id.clone(),
        poster_id: poster.id.clone(),
        poster_name: None,
        spec: spec_json,
        created_at: now as f64,
        expires_at: expires as f64,
    };
    let challenge = row.view().ok_or_else(|| ApiError::internal("a posted challenge does not read back"))?;
    Ok(Posted { challenge })
}

/// Why a post was refused, read after the conditional insert refused it: the counts as
/// they are now (an address past its hourly budget counts as a player past theirs).
async fn refusal(db: &impl Sql, poster: &PlayerRef, ip_hash: &str, now: i64) -> ApiError {
    let c = match db::post_counts(db, &poster.id, ip_hash, now, now - HOUR_MS).await {
        Ok(c) => c,
        Err(e) => return e.into(),
    };
    if c.open_by_address >= MAX_OPEN_PER_ADDRESS && c.open < challenge::MAX_OPEN_PER_PLAYER {
        return ApiError::new(
            ErrorCode::TooManyChallenges,
            format!(
                "your address already has {} open challenges (at most {MAX_OPEN_PER_ADDRESS}); wait for one to be accepted or expire",
                c.open_by_address
            ),
        );
    }
    let open = c.open;
    let posted =
        if c.by_address >= MAX_POSTS_PER_ADDRESS_PER_HOUR { challenge::MAX_POSTS_PER_HOUR } else { c.posted };
    match challenge::may_post(open, posted) {
        Err(e) => e,
        // Under every cap now: one of them was full when the insert ran (a post in
        // between was cancelled or accepted).
        Ok(()) => ApiError::new(ErrorCode::TooManyChallenges, "too many open challenges; please try again"),
    }
}

/// Cancels the player's own open challenge `id`.
pub async fn cancel(db: &impl Sql, id: &str, player: Option<&str>) -> Result<Cancelled, ApiError> {
    let Some(player) = player else { return Err(ApiError::not_found("no such challenge of yours")) };
    if !db::cancel(db, id, player).await? {
        return Err(ApiError::not_found("no such open challenge of yours"));
    }
    Ok(Cancelled { cancelled: true })
}

fn gone() -> ApiError {
    ApiError::new(ErrorCode::ChallengeGone, "this challenge was accepted, cancelled or has expired")
}

fn failed(what: &str) -> ApiError {
    ApiError::new(ErrorCode::ChallengeFailed, format!("the game could not be {what}; try again"))
}

/// What an acceptance needs beyond D1.
#[derive(Debug)]
pub struct AcceptPorts<'a, G, C, N> {
    pub games: &'a G,
    pub capacity: &'a C,
    pub notifier: &'a N,
}

/// Accepts challenge `id` for `accepter`: the saga. In order, and what a failure leaves:
/// 1. the challenge must be open and the accepter allowed (nothing written);
/// 2. the capacity check of every creation, before the claim (refused: the challenge
///    stays open, nothing written);
/// 3. the claim, atomic: of two accepters one wins, the other is told it is gone;
/// 4. the link game, made for the poster, then joined for the accepter (either fails:
///    the game, if it was made, is withdrawn, the claim released, and the challenge can
///    be accepted again);
/// 5. the poster is notified (best effort).
pub async fn accept<G: Games, C: Capacity, N: Notifier>(
    db: &impl Sql,
    ports: &AcceptPorts<'_, G, C, N>,
    rng: &mut dyn Random,
    now: i64,
    id: &str,
    accepter: &PlayerRef,
    origin: &str,
) -> Result<Accepted, ApiError> {
    let open = db::find_open(db, id, now).await?.ok_or_else(gone)?;
    let spec: PostChallenge =
        serde_json::from_str(&open.spec).map_err(|e| ApiError::internal(e.to_string()))?;
    challenge::may_accept(&open.poster_id, &accepter.id, spec.rated, accepter.linked)?;
    let game_id = rng.id()?;
    let ip_hash = ports.capacity.admit(&game_id, Some(&accepter.id)).await?;
    if !db::claim(db, id, &game_id, &accepter.id, now).await? {
        ports.capacity.release(&game_id).await;
        return Err(gone());
    }
    let place = Place { game: &game_id, ip_hash: &ip_hash };
    match start_game(ports.games, rng, origin, &spec, &open.poster_id, place, accepter).await {
        Ok(joined) => {
            ports.notifier.challenge_accepted(&open.poster_id, &game_id).await;
            Ok(joined)
        }
        Err(e) => {
            // The game may exist (its creation or join went unanswered, or the join was
            // refused): withdrawn first, so the challenge offered again never leaves two
            // live games. Best effort: a game left open idles out.
            let _ = ports.games.withdraw(&game_id).await;
            // Best effort: a release that fails too leaves the challenge claimed by a game
            // that never started, which expires with it (and the place is swept).
            let _ = db::release(db, id, &game_id).await;
            ports.capacity.release(&game_id).await;
            Err(e)
        }
    }
}

/// Stale claims released per run (the hourly housekeeping; the next run continues).
pub const STALE_CLAIMS_PER_RUN: i64 = 100;

/// Offers again the challenges whose accept died between the claim and the game (the
/// Worker stopped mid-request: [`db::stale_claims`]); run by the hourly housekeeping.
/// Each claim's game is asked where it stands first:
/// - none (404): nothing was made;
/// - made and never joined (or already over): withdrawn, as a failed accept does, so it
///   never lives beside the challenge's next game;
/// - both seats taken and unfinished: a real game whose index row is late (its object
///   retries D1 on its alarm), which the players may be playing: the claim stays.
///
/// A released claim's crashed reservation is dropped with it, and the lobby told. A game
/// object that does not answer, or fails, keeps its claim for the next run. The number
/// released.
pub async fn release_stale_claims<N: Notifier>(
    db: &impl Sql,
    games: &impl Games,
    notifier: &N,
    now: i64,
) -> Result<u32, ApiError> {
    let mut released = 0;
    for claim in db::stale_claims(db, now, STALE_CLAIMS_PER_RUN).await? {
        match games.status(&claim.game_id).await {
            Ok(st) if st.seated && st.turn.is_some() => continue,
            Ok(_) => {
                if games.withdraw(&claim.game_id).await.is_err() {
                    continue;
                }
            }
            Err(CallError::Refused(r)) if r.status == 404 => {}
            Err(_) => continue,
        }
        crate::db::index::release(db, &claim.game_id).await?;
        db::release(db, &claim.id, &claim.game_id).await?;
        released += 1;
    }
    if released > 0 {
        notifier.lobby_changed().await;
    }
    Ok(released)
}

/// The place the capacity check admitted: the game's id, and the address bucket (the
/// accepter's) its index row counts it under.
#[derive(Clone, Copy)]
struct Place<'a> {
    game: &'a str,
    ip_hash: &'a str,
}

/// Makes the link game for the poster and joins it for the accepter.
async fn start_game(
    games: &impl Games,
    rng: &mut dyn Random,
    origin: &str,
    spec: &PostChallenge,
    poster: &str,
    place: Place<'_>,
    accepter: &PlayerRef,
) -> Result<Accepted, ApiError> {
    let game_id = place.game;
    let call = CreateCall {
        id: game_id.to_owned(),
        game: spec.game(rng)?,
        origin: origin.to_owned(),
        ip_hash: place.ip_hash.to_owned(),
        creator: Some(PlayerRef { id: poster.to_owned(), linked: spec.rated }),
        start: None,
        stage: None,
    };
    let created: Created = games.create(&call).await.map_err(|e| logged(e, failed("created")))?;
    let invite = created.invite_token().ok_or_else(|| failed("created"))?;
    let joined = games.join(game_id, invite, accepter).await.map_err(|e| logged(e, failed("joined")))?;
    Ok(Accepted { game: game_id.to_owned(), seat: joined.seat, token: joined.token, state: joined.state })
}

/// The answer for a failed call: `to`, its message naming what the object said (logged
/// with the 5xx, never shown to the client).
fn logged(e: CallError, to: ApiError) -> ApiError {
    let detail = match e {
        CallError::Refused(r) => format!("refused with {}", r.status),
        CallError::NoAnswer(why) => format!("no answer: {why}"),
    };
    ApiError { message: format!("{} ({detail})", to.message), ..to }
}
