//! The story mode's stage games: starting one, and ending the one being played (Exit
//! Stage, Reset). A stage's game is an ordinary `ai` game in its own object, whose result
//! alone advances the story ([`crate::players::record_stage`]).

use crate::error::{ApiError, ErrorCode};
use crate::http::{ApiResponse, PlayerRef};
use crate::player_store::PlayerStore;
use crate::players::{self as rules};
use crate::ports::{AbandonCall, CallError, Capacity, CreateCall, Games};
use crate::story::Story;
use crate::tokens::Random;

/// Ends the stage game being played, if any (a loss: "abandoned"), and forgets it. If the
/// game cannot be ended (a refusal, or no answer: the same to the player), the stage
/// stays as it was and the answer is 503 `stage_not_ended`.
pub async fn end_current(
    store: &impl PlayerStore,
    games: &impl Games,
    story: &str,
    player: &str,
) -> Result<(), ApiError> {
    let Some(current) = rules::current_stage(store, story, player).await? else { return Ok(()) };
    if current.valid {
        let call = AbandonCall { player: player.to_owned(), aliases: current.aliases };
        if games.abandon(&current.game, &call).await.is_err() {
            return Err(ApiError::new(ErrorCode::StageNotEnded, "the stage being played could not be ended"));
        }
    }
    store.clear_current_game(player, story, &current.game).await?;
    Ok(())
}

/// What a stage's start needs beyond the player store.
#[derive(Debug)]
pub struct StartPorts<'a, G, C> {
    pub games: &'a G,
    pub capacity: &'a C,
}

/// Starts stage `index` of `st` for `player`: the saga, answered with the creation's own
/// answer (201 and the player's seat, or the object's refusal as it is).
///
/// The new stage game first, then the end of the one being played: a creation that fails
/// (the network unavailable, an internal error) leaves the player's stage game as it was,
/// where ending it first lost it as an abandoned game with nothing in its place. If the
/// old one cannot be ended (or the new one not recorded as the stage's), the error is the
/// answer and the new game, never handed out, is withdrawn: it ends aborted at once
/// instead of staying open, counted against the creation limits, until it idled out
/// (which stays the fallback should the withdrawal fail too).
#[allow(clippy::too_many_arguments)] // the saga's inputs, each used once
pub async fn start<G: Games, C: Capacity>(
    store: &impl PlayerStore,
    ports: &StartPorts<'_, G, C>,
    rng: &mut dyn Random,
    now: i64,
    st: &Story,
    index: usize,
    player: &PlayerRef,
    origin: &str,
) -> Result<ApiResponse, ApiError> {
    let stage = st
        .stage(index)
        .ok_or_else(|| ApiError::not_found(format!("story '{}' has no stage {index}", st.id)))?;
    rules::check_unlocked(store, st, index, &player.id).await?;
    let id = rng.id()?;
    let ip_hash = ports.capacity.admit(&id, Some(&player.id)).await?;
    let (game, stage_ref) = rules::stage_game(st, index, stage);
    let call = CreateCall {
        id: id.clone(),
        game,
        origin: origin.to_owned(),
        ip_hash,
        creator: Some(player.clone()),
        start: Some(stage.position),
        stage: Some(stage_ref),
    };
    // A refusal (e.g. the network AI unavailable) is the answer, as the object gave it.
    let answer = match ports.games.create_answer(&call).await {
        Ok(answer) | Err(CallError::Refused(answer)) => answer,
        Err(CallError::NoAnswer(why)) => {
            ports.capacity.release(&id).await;
            return Err(ApiError::internal(why));
        }
    };
    if answer.status != 201 {
        ports.capacity.release(&id).await;
    }
    if answer.status == 201 {
        let handed_over = async {
            end_current(store, ports.games, &st.id, &player.id).await?;
            store.set_current_stage(&player.id, &st.id, &id, index, now).await?;
            Ok::<(), ApiError>(())
        };
        if let Err(e) = handed_over.await {
            // Best effort: should it fail too, the game ends as an idle one does.
            let _ = ports.games.withdraw(&id).await;
            return Err(e);
        }
    }
    Ok(answer)
}
