//! The lobby's order of lists: the lobby object reads the open-challenge list from D1
//! for a change (to push to every socket) or for one socket (its first list, or one it
//! asked for), and reads interleave across awaits. A read that finishes after a newer
//! list went to all is stale and dropped; a read for one socket that an older push to
//! all would overtake goes to all instead. The last list read after every announced
//! change answers `list` frames from memory ([`Reads::cached`]): a client asking again
//! costs no D1 query.

use std::collections::BTreeSet;

/// Where a finished read's list goes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Deliver {
    /// To every socket.
    All,
    /// To the socket it was read for.
    One,
    /// Nowhere: a newer list went out meanwhile.
    Nothing,
}

/// The lobby's reads, numbered in the order they began.
#[derive(Debug, Default)]
pub struct Reads {
    began: u64,
    pushed: u64,
    /// The reads for a push to all still under way.
    pushing: BTreeSet<u64>,
    /// The number of the last change announced (a push begun).
    announced: u64,
    /// The last list read after every announced change, and until when it holds (its
    /// first challenge's expiry): what a `list` frame is answered with, from memory.
    latest: Option<(String, i64)>,
}

impl Reads {
    /// A read for a push to all begins: its number.
    pub fn begin_push(&mut self) -> u64 {
        self.began += 1;
        self.pushing.insert(self.began);
        self.announced = self.began;
        self.latest = None;
        self.began
    }

    /// Keeps the list read by `seq` in memory if its read began with or after the last
    /// change announced (a change is in D1 before the lobby is told of it),
    /// valid until `valid_until` (the list's earliest expiry: expiry is not announced).
    pub fn remember(&mut self, seq: u64, msg: &str, valid_until: i64) {
        if seq >= self.announced {
            self.latest = Some((msg.to_owned(), valid_until));
        }
    }

    /// The list to answer a `list` frame with at `now`, from memory: none once a change
    /// has been announced since, or a listed challenge has expired (then D1 is read).
    pub fn cached(&self, now: i64) -> Option<&str> {
        self.latest.as_ref().filter(|(_, until)| now < *until).map(|(m, _)| m.as_str())
    }

    /// Whether a `list` frame that memory cannot answer is read from D1 for its socket:
    /// not while a push to all is under way, whose list reaches that socket too. (Read
    /// then, each frame was a D1 query, and each such read ending before the push went to
    /// every socket: a client repeating `list` after a change made the lobby broadcast.)
    pub fn read_for_frame(&self) -> bool {
        self.pushing.is_empty()
    }

    /// A read for one socket begins: its number.
    pub fn begin_one(&mut self) -> u64 {
        self.began += 1;
        self.began
    }

    /// Push read `seq` read its list: where the list goes.
    pub fn end_push(&mut self, seq: u64) -> Deliver {
        self.pushing.remove(&seq);
        self.claim_all(seq)
    }

    /// Push read `seq` failed: it pushes nothing, and holds back no other read.
    pub fn abandon_push(&mut self, seq: u64) {
        self.pushing.remove(&seq);
    }

    /// One socket's read `seq` ended: where its list goes. If a newer list went to all
    /// meanwhile, the socket has it; if an older push to all is still under way, it would
    /// overtake this list with a staler one, so this one goes to all.
    pub fn end_one(&mut self, seq: u64) -> Deliver {
        if self.pushing.first().is_some_and(|&older| older < seq) {
            return self.claim_all(seq);
        }
        if self.pushed < seq {
            Deliver::One
        } else {
            Deliver::Nothing
        }
    }

    fn claim_all(&mut self, seq: u64) -> Deliver {
        if seq > self.pushed {
            self.pushed = seq;
            Deliver::All
        } else {
            Deliver::Nothing
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_list_is_served_from_memory_until_a_change_is_announced_or_it_expires() {
        let mut r = Reads::default();
        let one = r.begin_one();
        r.remember(one, "list-1", 1_000);
        assert_eq!(r.cached(999), Some("list-1"));
        assert_eq!(r.cached(1_000), None, "a listed challenge expired: read again");
        // A read begun before an announced change is not kept: it may miss the change.
        let stale = r.begin_one();
        let push = r.begin_push();
        assert_eq!(r.cached(0), None, "an announced change empties the memory");
        r.remember(stale, "list-before-the-change", 1_000);
        assert_eq!(r.cached(0), None);
        r.remember(push, "list-of-the-push", 1_000);
        assert_eq!(r.cached(0), Some("list-of-the-push"), "the push's read began with the change");
        let (a, b) = (r.begin_push(), r.begin_push());
        r.remember(a, "older-push", 1_000);
        assert_eq!(r.cached(0), None, "a newer change was announced since the older push began");
        r.remember(b, "newer-push", 1_000);
        assert_eq!(r.cached(0), Some("newer-push"));
    }

    /// Regression (stop 48): `list` frames during a push each read D1, and each such read
    /// that ended before the push went to every socket.
    #[test]
    fn a_list_frame_is_not_read_again_while_a_push_is_under_way() {
        let mut r = Reads::default();
        assert!(r.read_for_frame());
        let push = r.begin_push();
        assert!(!r.read_for_frame(), "the push brings the list");
        assert_eq!(r.end_push(push), Deliver::All);
        assert!(r.read_for_frame());
        let failed = r.begin_push();
        r.abandon_push(failed);
        assert!(r.read_for_frame(), "a failed push holds nothing back");
    }

    #[test]
    fn a_stale_push_is_dropped_and_a_single_read_never_overtakes_a_newer_list() {
        let mut r = Reads::default();
        let (a, b) = (r.begin_push(), r.begin_push());
        assert_eq!(r.end_push(b), Deliver::All);
        assert_eq!(r.end_push(a), Deliver::Nothing, "older than what went out");
        // A failed push read pushes nothing and leaves the order as it was.
        let failed = r.begin_push();
        r.abandon_push(failed);
        let one = r.begin_one();
        assert_eq!(r.end_one(one), Deliver::One);
        let one = r.begin_one();
        assert_eq!(r.end_one(one), Deliver::One);
        // An older push still under way when a socket's read ends: that read goes to all,
        // and the older push is dropped when it ends.
        let older = r.begin_push();
        let one = r.begin_one();
        assert_eq!(r.end_one(one), Deliver::All);
        assert_eq!(r.end_push(older), Deliver::Nothing);
        // A socket's read that a newer push to all overtook: the socket has that list.
        let one = r.begin_one();
        let newer = r.begin_push();
        assert_eq!(r.end_push(newer), Deliver::All);
        assert_eq!(r.end_one(one), Deliver::Nothing);
    }
}
