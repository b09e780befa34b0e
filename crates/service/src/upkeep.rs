//! Games that end on their own and side effects that survive a crash.
//!
//! - **Timers.** A game's Durable Object has one alarm, and it serves every purpose: the
//!   correspondence deadline, the idle end (an `ai` game untouched for days, a link game
//!   whose invite nobody claimed, an untimed link game nobody moves in), and the retry of
//!   D1 writes the game still owes. [`next_alarm`] is the earliest of them; [`expire`]
//!   applies whichever is due (the deadline first: the clock is law).
//! - **The outbox.** A change that owes D1 a write (creation, a join, the end of the game)
//!   marks [`Outbox`] in the same save as the change ([`mark`]). The glue arms the alarm
//!   for [`next_alarm`] (which includes the retry) *before* it writes D1, and clears the
//!   mark only after D1 succeeded ([`flushed`]); a failure backs off ([`failed`]). A crash
//!   anywhere in between leaves the mark and the alarm, so the writes happen later — and
//!   as every D1 write is idempotent, exactly once in effect.

use engine::Side;

use crate::model::{Controller, Finish, FinishReason, GameRecord, Mode, Outbox};

const DAY_MS: i64 = 86_400_000;

/// The idle and retry delays (wrangler vars; tests use seconds).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Timers {
    /// An `ai` game untouched this long ends: its player abandoned it.
    pub idle_ai_ms: i64,
    /// A link game whose invite nobody claimed this long is aborted.
    pub open_invite_ms: i64,
    /// A joined link game without a time control that nobody moves in this long ends:
    /// the side to move abandoned it.
    pub idle_untimed_ms: i64,
    /// The first retry of a failed D1 write; it doubles with each failure (up to 32×).
    pub retry_ms: i64,
}

impl Default for Timers {
    fn default() -> Timers {
        Timers {
            idle_ai_ms: 7 * DAY_MS,
            open_invite_ms: 7 * DAY_MS,
            idle_untimed_ms: 30 * DAY_MS,
            retry_ms: 60_000,
        }
    }
}

impl Timers {
    /// No idle end at all: only the deadline expires a game.
    pub fn deadline_only() -> Timers {
        Timers {
            idle_ai_ms: i64::MAX,
            open_invite_ms: i64::MAX,
            idle_untimed_ms: i64::MAX,
            ..Timers::default()
        }
    }
}

/// Why an idle game ends.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum IdleEnd {
    /// The side that stopped playing loses (reason `abandoned`).
    Abandoned(Side),
    /// Nobody claimed the invite: no winner (`aborted: never joined`).
    NeverJoined,
}

/// The last time anyone played in the game (its creation if nobody has).
pub fn last_activity(rec: &GameRecord) -> i64 {
    rec.moves.last().map_or(rec.created_at, |m| m.at).max(rec.created_at)
}

/// When the game ends for idleness, and how (None: finished, or a deadline governs it).
pub fn idle_at(rec: &GameRecord, t: &Timers) -> Option<(i64, IdleEnd)> {
    if rec.result.is_some() {
        return None;
    }
    if !rec.seats_filled() {
        return Some((rec.created_at.saturating_add(t.open_invite_ms), IdleEnd::NeverJoined));
    }
    let last = last_activity(rec);
    match rec.mode {
        Mode::Ai => {
            let human = Side::ALL
                .into_iter()
                .find(|s| rec.seat(*s).controller == Controller::Human)
                .unwrap_or(Side::South);
            Some((last.saturating_add(t.idle_ai_ms), IdleEnd::Abandoned(human)))
        }
        Mode::Link if rec.days_per_move.is_none() => {
            Some((last.saturating_add(t.idle_untimed_ms), IdleEnd::Abandoned(rec.position.turn())))
        }
        Mode::Link => None,
    }
}

/// When a pending D1 write is retried: `since` plus the retry delay, doubled per failure.
pub fn retry_at(ob: &Outbox, t: &Timers) -> i64 {
    ob.since.saturating_add(t.retry_ms.saturating_mul(1 << ob.attempts.min(5)))
}

/// The one alarm: the earliest of the deadline, the idle end and the outbox retry.
pub fn next_alarm(rec: &GameRecord, t: &Timers) -> Option<i64> {
    let deadline = rec.deadline.filter(|_| rec.result.is_none());
    let idle = idle_at(rec, t).map(|(at, _)| at);
    let retry = rec.outbox.as_ref().map(|ob| retry_at(ob, t));
    [deadline, idle, retry].into_iter().flatten().min()
}

/// Marks that the game owes D1 its current state (in the same save as the change). The
/// mark's number is new for the game's life (records saved before `last_mark` existed
/// continue from their outbox's number).
pub fn mark(rec: &mut GameRecord, now: i64) {
    let (seq, ip_hash) = rec.outbox.as_ref().map_or((0, None), |ob| (ob.seq, ob.ip_hash.clone()));
    rec.last_mark = rec.last_mark.max(seq) + 1;
    rec.outbox = Some(Outbox { seq: rec.last_mark, since: now, attempts: 0, ip_hash });
}

/// D1 took everything up to mark `seq`: clears the outbox unless a later change marked
/// it again meanwhile (that change is flushed on its own). Returns whether it cleared.
pub fn flushed(rec: &mut GameRecord, seq: u64) -> bool {
    if rec.outbox.as_ref().is_some_and(|ob| ob.seq == seq) {
        rec.outbox = None;
        return true;
    }
    false
}

/// A D1 write for mark `seq` failed at `now`: counts it, so the retry backs off.
pub fn failed(rec: &mut GameRecord, seq: u64, now: i64) {
    if let Some(ob) = rec.outbox.as_mut().filter(|ob| ob.seq == seq) {
        ob.attempts = ob.attempts.saturating_add(1);
        ob.since = now;
    }
}

/// Ends the game if a timer is due at `now`: the deadline first (the side to move
/// forfeits on time), then idleness. Marks the outbox. Returns whether it ended it.
pub fn expire(rec: &mut GameRecord, now: i64, t: &Timers) -> bool {
    if rec.result.is_some() {
        return false;
    }
    let finish = match (rec.deadline, idle_at(rec, t)) {
        (Some(d), _) if now >= d => {
            Finish::win(rec.position.turn().opponent(), FinishReason::TimeForfeit, now)
        }
        (_, Some((at, end))) if now >= at => match end {
            IdleEnd::Abandoned(loser) => Finish::win(loser.opponent(), FinishReason::Abandoned, now),
            IdleEnd::NeverJoined => Finish::aborted(FinishReason::NeverJoined, now),
        },
        _ => return false,
    };
    rec.result = Some(finish);
    rec.deadline = None;
    rec.draw_offer = None;
    mark(rec, now);
    true
}

/// Whether the deadline has passed (a move, draw or resignation now must first forfeit).
pub fn deadline_passed(rec: &GameRecord, now: i64) -> bool {
    rec.result.is_none() && rec.deadline.is_some_and(|d| now >= d)
}

/// Whether a finished game moves ratings: not when it ended before it began (aborted by
/// a player, or an invite nobody claimed).
pub fn counts_for_rating(finish: &crate::model::Finish) -> bool {
    !finish.reason.is_abort()
}
