//! Seat and invite tokens: 256 random bits, shown once, stored only as SHA-256 hashes,
//! compared in constant time. The randomness comes from the caller (getrandom in the
//! Worker), so this module stays pure and testable.

use sha2::{Digest, Sha256};
use subtle::ConstantTimeEq;

use crate::error::ApiError;

/// Bytes of randomness in a token.
pub const TOKEN_BYTES: usize = 32;

/// A source of unguessable bytes (getrandom in production, seeded in tests). Failing is
/// an error the request reports (503), never a reason to use guessable bytes.
pub trait Random {
    fn fill(&mut self, buf: &mut [u8]) -> Result<(), ApiError>;

    fn token(&mut self) -> Result<String, ApiError> {
        let mut b = [0u8; TOKEN_BYTES];
        self.fill(&mut b)?;
        Ok(hex(&b))
    }

    /// A short unguessable id (96 bits) for URLs.
    fn id(&mut self) -> Result<String, ApiError> {
        let mut b = [0u8; 12];
        self.fill(&mut b)?;
        Ok(hex(&b))
    }

    fn below(&mut self, n: u32) -> Result<u32, ApiError> {
        let mut b = [0u8; 4];
        self.fill(&mut b)?;
        // Modulo bias is irrelevant for the small n used (seat choice, placeholder AI).
        Ok(u32::from_le_bytes(b) % n.max(1))
    }
}

pub fn hex(bytes: &[u8]) -> String {
    const DIGITS: &[u8; 16] = b"0123456789abcdef";
    let mut s = String::with_capacity(bytes.len() * 2);
    for b in bytes {
        s.push(DIGITS[(b >> 4) as usize] as char);
        s.push(DIGITS[(b & 15) as usize] as char);
    }
    s
}

/// The stored form of a token.
pub fn hash(token: &str) -> String {
    hex(&Sha256::digest(token.as_bytes()))
}

/// Equality of two secrets (or their hashes) in constant time.
pub fn same(a: &str, b: &str) -> bool {
    a.as_bytes().ct_eq(b.as_bytes()).into()
}

/// Whether `presented` is the token whose hash is `stored`, in constant time.
pub fn matches(presented: &str, stored: &str) -> bool {
    let h = hash(presented);
    h.as_bytes().ct_eq(stored.as_bytes()).into()
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;

    struct Counter(u8);
    impl Random for Counter {
        fn fill(&mut self, buf: &mut [u8]) -> Result<(), ApiError> {
            for b in buf {
                self.0 = self.0.wrapping_add(1);
                *b = self.0;
            }
            Ok(())
        }
    }

    #[test]
    fn tokens_are_hex_and_verify_only_against_their_hash() {
        let mut r = Counter(0);
        let t = r.token().unwrap();
        assert_eq!(t.len(), 64);
        let h = hash(&t);
        assert_ne!(h, t, "only the hash is stored");
        assert!(matches(&t, &h));
        assert!(!matches(&r.token().unwrap(), &h));
        assert!(!matches("", &h));
        assert_eq!(hash("abc"), "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
    }
}
