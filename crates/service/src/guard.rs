//! Abuse guards without the runtime: what a write must carry (`Content-Type`, `Origin`),
//! client-address buckets (IPv6 by /64) and their keyed hashes, the sliding-window rate
//! limit the limiter Durable Object applies atomically, and the byte cap on bodies.

use std::net::IpAddr;

use hmac::{Hmac, Mac};
use sha2::Sha256;

use crate::error::{ApiError, ErrorCode};
use crate::http::MAX_BODY_BYTES;

/// Whether a `Content-Type` header value is JSON (`application/json`, any parameters).
pub fn is_json(content_type: Option<&str>) -> bool {
    content_type
        .and_then(|c| c.split(';').next())
        .is_some_and(|m| m.trim().eq_ignore_ascii_case("application/json"))
}

/// What a write (any method but GET/HEAD) must carry before anything else is read:
/// `Content-Type: application/json` (415 otherwise: a cross-site form or `text/plain`
/// POST cannot be sent without a CORS preflight, which this API never grants), and
/// when it is authenticated by the session cookie, an `Origin` equal to the API's own
/// (403 otherwise: the cookie alone does not prove the page that sent it).
pub fn check_write(
    content_type: Option<&str>,
    origin: Option<&str>,
    own_origin: &str,
    has_cookie: bool,
) -> Result<(), ApiError> {
    if !is_json(content_type) {
        return Err(ApiError::new(
            ErrorCode::UnsupportedMediaType,
            "writes must be sent as 'Content-Type: application/json'",
        ));
    }
    if has_cookie && origin.map(str::trim) != Some(own_origin) {
        return Err(ApiError::new(
            ErrorCode::BadOrigin,
            "a request that carries the session cookie must come from this site (Origin)",
        ));
    }
    Ok(())
}

/// The rate-limit bucket of a client address: IPv4 addresses one by one, IPv6 by /64
/// (one subscriber usually holds a whole /64), IPv4-mapped IPv6 as IPv4; anything
/// unparseable shares one bucket.
pub fn ip_bucket(ip: &str) -> String {
    match ip.trim().parse::<IpAddr>() {
        Ok(IpAddr::V4(v4)) => v4.to_string(),
        Ok(IpAddr::V6(v6)) => match v6.to_ipv4_mapped() {
            Some(v4) => v4.to_string(),
            None => {
                let s = v6.segments();
                format!("{:x}:{:x}:{:x}:{:x}::/64", s[0], s[1], s[2], s[3])
            }
        },
        Err(_) => "unknown".to_owned(),
    }
}

/// The wider buckets an IPv6 address's /64 sits in, /56 then /48 (one subscriber's
/// allocation is often a /56 or a /48: 256 or 65 536 /64s); none for IPv4.
pub fn wider_buckets(ip: &str) -> Vec<String> {
    match ip.trim().parse::<IpAddr>() {
        Ok(IpAddr::V6(v6)) if v6.to_ipv4_mapped().is_none() => {
            let s = v6.segments();
            vec![
                format!("{:x}:{:x}:{:x}:{:x}::/56", s[0], s[1], s[2], s[3] & 0xff00),
                format!("{:x}:{:x}:{:x}::/48", s[0], s[1], s[2]),
            ]
        }
        _ => Vec::new(),
    }
}

/// HMAC-SHA256 of `msg` under `key`, as hex: what is stored for a client address
/// (never the address, never a plain hash that a table of all IPv4 addresses reverses).
pub fn keyed_hash(key: &[u8], msg: &str) -> String {
    // HMAC accepts keys of any length; `new_from_slice` cannot fail for it.
    let mut mac = match <Hmac<Sha256> as Mac>::new_from_slice(key) {
        Ok(m) => m,
        Err(_) => unreachable_hmac(),
    };
    mac.update(msg.as_bytes());
    crate::tokens::hex(&mac.finalize().into_bytes())
}

#[cold]
fn unreachable_hmac() -> ! {
    panic!("HMAC-SHA256 takes keys of any length")
}

/// The stored form of a client address: the keyed hash of its bucket.
pub fn ip_key(key: &[u8], ip: &str) -> String {
    keyed_hash(key, &ip_bucket(ip))
}

/// One sliding-window rate limit: at most `limit` hits per `window_ms`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct Rate {
    pub limit: u32,
    pub window_ms: i64,
}

/// The limiter's answer.
#[derive(Clone, Debug, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct Decision {
    pub allowed: bool,
    /// Seconds until a hit would be allowed (when refused).
    pub retry_after_s: u32,
}

/// Applies one hit at `now` to the stored hit times `hits` (any order): drops those
/// outside the window, then admits the hit (and records it) if fewer than `limit`
/// remain. Run inside one Durable Object with no await between read and write, the
/// count cannot be raced past the limit.
pub fn hit(hits: &mut Vec<i64>, now: i64, rate: Rate) -> Decision {
    hit_n(hits, now, rate, 1)
}

/// [`hit`] of weight `n` (a request that costs `n` units, e.g. an AI move by its level's
/// budget): admitted whole if `n` more fit under the limit, recorded as `n` hits.
pub fn hit_n(hits: &mut Vec<i64>, now: i64, rate: Rate, n: u32) -> Decision {
    hits.retain(|&t| t > now - rate.window_ms && t <= now + rate.window_ms);
    let n = n.max(1);
    if hits.len() as u64 + u64::from(n) <= u64::from(rate.limit) {
        hits.extend(std::iter::repeat_n(now, n as usize));
        return Decision { allowed: true, retry_after_s: 0 };
    }
    // The oldest hits leave the window first; `n` slots free when the
    // (len - limit + n)-th oldest leaves. More than the limit never fits: the whole window.
    hits.sort_unstable();
    let over = (hits.len() + n as usize).saturating_sub(rate.limit as usize);
    let free_at = match over.checked_sub(1).and_then(|i| hits.get(i)) {
        Some(t) if n <= rate.limit => t + rate.window_ms,
        _ => now + rate.window_ms,
    };
    let wait_ms = (free_at - now).max(1);
    Decision { allowed: false, retry_after_s: ((wait_ms + 999) / 1000).clamp(1, u32::MAX as i64) as u32 }
}

/// One game's open WebSockets from one address bucket, as the bucket's limiter holds
/// them: a lease that the game renews whenever it reports its count, and that lapses
/// at `expires_at` (a lost close report cannot lock the address out for longer).
#[derive(Clone, Debug, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct SocketLease {
    /// The game's Durable Object id.
    pub game: String,
    pub count: u32,
    pub expires_at: i64,
}

/// How long a socket lease lasts after its game last reported it.
pub const WS_LEASE_MS: i64 = 3_600_000;

/// How long a refused WebSocket open is told to wait.
pub const WS_RETRY_AFTER_S: u32 = 30;

/// A game asks for one more socket from the address bucket; `have` is how many it holds
/// open from the bucket now. Lapsed leases are dropped first; the game's count is the
/// larger of its lease and `have` (two opens racing in one game cannot count one); the
/// socket is admitted if all leases together stay below `cap`, and the game's lease is
/// then renewed until `now + ttl_ms` with one more. A refusal changes nothing but the
/// drop of lapsed leases.
pub fn ws_acquire(
    leases: &mut Vec<SocketLease>,
    game: &str,
    have: u32,
    now: i64,
    cap: u32,
    ttl_ms: i64,
) -> Decision {
    leases.retain(|l| l.expires_at > now && l.expires_at <= now + ttl_ms);
    let mine = leases.iter().find(|l| l.game == game).map_or(0, |l| l.count).max(have);
    let others: u64 = leases.iter().filter(|l| l.game != game).map(|l| u64::from(l.count)).sum();
    if others + u64::from(mine) >= u64::from(cap) {
        return Decision { allowed: false, retry_after_s: WS_RETRY_AFTER_S };
    }
    ws_report(leases, game, mine + 1, now, ttl_ms);
    Decision { allowed: true, retry_after_s: 0 }
}

/// A game reports how many sockets it holds open from the bucket (after a close: the
/// rest), which replaces its lease. Zero removes it; lapsed leases (and any dated past
/// `now + ttl_ms`, after a clock step back) are dropped.
pub fn ws_report(leases: &mut Vec<SocketLease>, game: &str, count: u32, now: i64, ttl_ms: i64) {
    leases.retain(|l| l.expires_at > now && l.expires_at <= now + ttl_ms && l.game != game);
    if count > 0 {
        leases.push(SocketLease { game: game.to_owned(), count, expires_at: now + ttl_ms });
    }
}

/// 503 `server_busy` with `Retry-After`, for a refused limiter hit.
pub fn busy(why: &str, retry_after_s: u32) -> ApiError {
    ApiError::new(ErrorCode::ServerBusy, format!("Too many requests ({why}); please try again later."))
        .with_retry_after(retry_after_s.max(1))
}

/// Accumulates a streamed body and refuses it (413) as soon as it passes `cap` bytes,
/// so a chunked body is never read whole first.
#[derive(Debug, Default)]
pub struct CappedBody {
    bytes: Vec<u8>,
    cap: usize,
}

impl CappedBody {
    pub fn new(cap: usize) -> CappedBody {
        CappedBody { bytes: Vec::new(), cap }
    }

    pub fn api() -> CappedBody {
        CappedBody::new(MAX_BODY_BYTES)
    }

    pub fn push(&mut self, chunk: &[u8]) -> Result<(), ApiError> {
        if self.bytes.len() + chunk.len() > self.cap {
            return Err(crate::http::too_large());
        }
        self.bytes.extend_from_slice(chunk);
        Ok(())
    }

    pub fn into_bytes(self) -> Vec<u8> {
        self.bytes
    }
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;

    #[test]
    fn a_weighted_hit_is_admitted_whole_or_not_at_all() {
        let rate = Rate { limit: 10, window_ms: 1000 };
        let mut hits = Vec::new();
        assert!(hit_n(&mut hits, 0, rate, 6).allowed);
        assert_eq!(hits.len(), 6);
        let refused = hit_n(&mut hits, 100, rate, 6);
        assert!(!refused.allowed, "6 more do not fit under 10");
        assert_eq!(hits.len(), 6, "nothing recorded for a refusal");
        assert_eq!(refused.retry_after_s, 1, "all 6 leave the window at 1000 ms");
        assert!(hit_n(&mut hits, 100, rate, 4).allowed, "4 do");
        assert!(!hit_n(&mut hits, 200, rate, 11).allowed, "more than the limit never fits");
        assert!(hit_n(&mut hits, 1001, rate, 6).allowed, "the first 6 left the window");
    }

    #[test]
    fn writes_need_json_and_cookie_writes_need_our_origin() {
        let own = "https://arena.example";
        assert!(check_write(Some("application/json"), None, own, false).is_ok());
        assert!(check_write(Some("Application/JSON; charset=utf-8"), None, own, false).is_ok());
        for ct in [
            None,
            Some("text/plain"),
            Some("application/x-www-form-urlencoded"),
            Some("multipart/form-data; boundary=x"),
            Some("application/jsonx"),
        ] {
            let e = check_write(ct, Some(own), own, true).unwrap_err();
            assert_eq!((e.status(), e.code), (415, ErrorCode::UnsupportedMediaType), "{ct:?}");
        }
        assert!(check_write(Some("application/json"), Some(own), own, true).is_ok());
        for origin in [None, Some("https://evil.example"), Some("null"), Some("https://arena.example.evil")] {
            let e = check_write(Some("application/json"), origin, own, true).unwrap_err();
            assert_eq!((e.status(), e.code), (403, ErrorCode::BadOrigin), "{origin:?}");
        }
        // Without a cookie there is no ambient authority to misuse: no Origin needed.
        assert!(check_write(Some("application/json"), Some("https://evil.example"), own, false).is_ok());
    }

    #[test]
    fn ipv6_is_bucketed_by_64_and_mapped_ipv4_as_ipv4() {
        assert_eq!(ip_bucket("203.0.113.7"), "203.0.113.7");
        assert_eq!(ip_bucket("2001:db8:1:2:aaaa::1"), "2001:db8:1:2::/64");
        assert_eq!(ip_bucket("2001:db8:1:2:ffff:ffff:ffff:ffff"), ip_bucket("2001:db8:1:2::"));
        assert_ne!(ip_bucket("2001:db8:1:3::1"), ip_bucket("2001:db8:1:2::1"));
        assert_eq!(ip_bucket("::ffff:203.0.113.7"), "203.0.113.7");
        assert_eq!(ip_bucket("not an ip"), "unknown");
        assert_eq!(ip_bucket(""), "unknown");
    }

    #[test]
    fn ip_hashes_are_keyed_hmac_sha256() {
        // RFC 4231 test case 2.
        assert_eq!(
            keyed_hash(b"Jefe", "what do ya want for nothing?"),
            "5bdcc146bf60754e6a042426089575c75a003f089d2739839dec58b964ec3843"
        );
        let a = ip_key(b"key-1", "2001:db8::1");
        assert_eq!(a, ip_key(b"key-1", "2001:db8::2"), "one /64, one key");
        assert_ne!(a, ip_key(b"key-2", "2001:db8::1"), "another key, another hash");
        assert_ne!(ip_key(b"k", "198.51.100.1"), crate::tokens::hash("198.51.100.1"), "never plain SHA-256");
    }

    #[test]
    fn the_window_admits_up_to_the_limit_and_says_when_to_retry() {
        let rate = Rate { limit: 3, window_ms: 60_000 };
        let mut hits = Vec::new();
        for t in [0, 10_000, 20_000] {
            assert!(hit(&mut hits, t, rate).allowed);
        }
        let d = hit(&mut hits, 30_000, rate);
        assert_eq!(d, Decision { allowed: false, retry_after_s: 30 });
        assert_eq!(hits.len(), 3, "a refused hit is not recorded");
        // The first hit leaves the window at 60 s.
        assert!(!hit(&mut hits, 59_999, rate).allowed);
        assert!(hit(&mut hits, 60_001, rate).allowed);
        // A clock step back cannot park hits in the future forever.
        let mut future = vec![10_000_000; 3];
        assert!(hit(&mut future, 0, rate).allowed);
        // Zero means nothing passes; the wait is the window.
        let d = hit(&mut Vec::new(), 0, Rate { limit: 0, window_ms: 60_000 });
        assert_eq!(d, Decision { allowed: false, retry_after_s: 60 });
    }

    #[test]
    fn open_sockets_are_capped_across_games_and_leases_lapse() {
        let (cap, ttl) = (3, 60_000);
        let mut l = Vec::new();
        assert!(ws_acquire(&mut l, "a", 0, 0, cap, ttl).allowed);
        assert!(ws_acquire(&mut l, "b", 0, 1, cap, ttl).allowed);
        assert!(ws_acquire(&mut l, "a", 1, 2, cap, ttl).allowed);
        let d = ws_acquire(&mut l, "c", 0, 3, cap, ttl);
        assert_eq!(d, Decision { allowed: false, retry_after_s: WS_RETRY_AFTER_S });
        assert_eq!(l.iter().map(|x| x.count).sum::<u32>(), 3, "a refusal counts nothing");
        assert!(!l.iter().any(|x| x.game == "c"));
        // Game a's socket closes: a slot frees.
        ws_report(&mut l, "a", 1, 4, ttl);
        assert!(ws_acquire(&mut l, "c", 0, 5, cap, ttl).allowed);
        assert!(!ws_acquire(&mut l, "c", 1, 6, cap, ttl).allowed);
        // A game's report replaces its lease; zero removes it.
        ws_report(&mut l, "b", 0, 7, ttl);
        assert!(!l.iter().any(|x| x.game == "b"));
        assert!(ws_acquire(&mut l, "d", 0, 8, cap, ttl).allowed);
        // Two opens racing in one game (both saw `have` 0) still count two.
        let mut r = Vec::new();
        assert!(ws_acquire(&mut r, "g", 0, 0, cap, ttl).allowed);
        assert!(ws_acquire(&mut r, "g", 0, 0, cap, ttl).allowed);
        assert_eq!(r[0].count, 2);
        // A lease never renewed lapses: no address is locked out for good.
        let mut l = vec![SocketLease { game: "x".into(), count: 99, expires_at: 1000 }];
        assert!(!ws_acquire(&mut l, "y", 0, 999, cap, ttl).allowed);
        assert!(ws_acquire(&mut l, "y", 0, 1000, cap, ttl).allowed);
        assert_eq!(l.len(), 1);
        // A lease dated past now + ttl (a clock step back) is dropped too.
        let mut l = vec![SocketLease { game: "x".into(), count: 99, expires_at: i64::MAX }];
        assert!(ws_acquire(&mut l, "y", 0, 0, cap, ttl).allowed);
        // A cap of zero admits nothing.
        assert!(!ws_acquire(&mut Vec::new(), "a", 0, 0, 0, ttl).allowed);
    }

    #[test]
    fn bodies_are_capped_while_streaming() {
        let mut b = CappedBody::new(10);
        b.push(b"12345").unwrap();
        b.push(b"67890").unwrap();
        let e = b.push(b"x").unwrap_err();
        assert_eq!(e.status(), 413);
        let mut b = CappedBody::new(10);
        assert_eq!(b.push(&[0; 11]).unwrap_err().code, ErrorCode::BodyTooLarge);
        let mut b = CappedBody::api();
        b.push(b"{}").unwrap();
        assert_eq!(b.into_bytes(), b"{}");
    }
}
