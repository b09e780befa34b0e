//! The lobby's order of lists: the lobby object reads the open-challenge list from D1
//! for a change (to push to every socket) or for one socket (its first list, or one it
//! asked for), and reads interleave across awaits. A read that finishes after a newer
//! list went to all is stale and dropped; a read for one socket that an older push to
//! all would overtake goes to all instead.

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
}

impl Reads {
    /// A read for a push to all begins: its number.
    pub fn begin_push(&mut self) -> u64 {
        self.began += 1;
        self.pushing.insert(self.began);
        self.began
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
