//! Web Push in pure Rust (compiles to wasm32): message encryption with `aes128gcm`
//! (RFC 8291 over RFC 8188) and VAPID (RFC 8292: an ES256 JWT for the push service),
//! plus the receiving side (decryption, JWT verification) that the tests' stand-in push
//! service uses. Randomness (the ephemeral key and the salt) comes from the caller's
//! [`Random`] (getrandom in the Worker), so everything here is deterministic to test.

use aes_gcm::aead::{Aead, KeyInit, Payload};
use aes_gcm::{Aes128Gcm, Nonce};
use hkdf::Hkdf;
use p256::ecdsa::signature::{Signer, Verifier};
use p256::ecdsa::{Signature, SigningKey, VerifyingKey};
use p256::elliptic_curve::sec1::ToEncodedPoint;
use p256::{PublicKey, SecretKey};
use serde::{Deserialize, Serialize};
use sha2::Sha256;

use crate::accounts::base64url;
use crate::error::{ApiError, ErrorCode};
use crate::tokens::Random;

/// The record size announced in the header (one record carries the whole message).
pub const RECORD_SIZE: u32 = 4096;
/// The largest plaintext one record holds: the record size less the tag (16) and the
/// padding delimiter (1).
pub const MAX_PLAINTEXT: usize = RECORD_SIZE as usize - 17;
/// How long a VAPID JWT is valid (RFC 8292 allows at most 24 hours).
pub const VAPID_TTL_S: i64 = 12 * 3600;

/// Why a push could not be built or read.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("{0}")]
pub struct PushError(pub String);

fn err(s: impl Into<String>) -> PushError {
    PushError(s.into())
}

/// Decodes base64url (padding and standard-alphabet characters accepted: browsers and
/// libraries differ), with the `base64` crate after mapping `+`/`/` to `-`/`_`.
pub fn base64url_decode(s: &str) -> Result<Vec<u8>, PushError> {
    use base64::engine::{general_purpose::GeneralPurpose, DecodePaddingMode, GeneralPurposeConfig};
    use base64::Engine as _;
    const LENIENT: GeneralPurpose = GeneralPurpose::new(
        &base64::alphabet::URL_SAFE,
        GeneralPurposeConfig::new()
            .with_decode_padding_mode(DecodePaddingMode::Indifferent)
            .with_decode_allow_trailing_bits(true),
    );
    let url: String = s
        .chars()
        .map(|c| match c {
            '+' => '-',
            '/' => '_',
            c => c,
        })
        .collect();
    LENIENT.decode(url).map_err(|_| err("not base64url"))
}

/// A browser's push subscription (`PushSubscription.toJSON()`), checked.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Subscription {
    pub endpoint: String,
    pub keys: Keys,
}

#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Keys {
    /// The user agent's P-256 public key, uncompressed, base64url.
    pub p256dh: String,
    /// The 16-byte authentication secret, base64url.
    pub auth: String,
}

impl Subscription {
    /// Validates a subscription from a client: an `https` endpoint (or, where `allow_http`
    /// is set for local tests, `http`), a valid P-256 point and a 16-byte secret.
    pub fn validate(self, allow_http: bool) -> Result<Subscription, ApiError> {
        let bad = |m: &str| ApiError::new(ErrorCode::InvalidSubscription, m.to_owned());
        if self.endpoint.len() > 1024 {
            return Err(bad("the endpoint is too long"));
        }
        let http_ok = allow_http && self.endpoint.starts_with("http://");
        if !(self.endpoint.starts_with("https://") || http_ok) || audience(&self.endpoint).is_none() {
            return Err(bad("the endpoint must be an https URL"));
        }
        let key = base64url_decode(&self.keys.p256dh).map_err(|_| bad("keys.p256dh is not base64url"))?;
        if key.len() != 65 || PublicKey::from_sec1_bytes(&key).is_err() {
            return Err(bad("keys.p256dh is not an uncompressed P-256 public key"));
        }
        let auth = base64url_decode(&self.keys.auth).map_err(|_| bad("keys.auth is not base64url"))?;
        if auth.len() != 16 {
            return Err(bad("keys.auth must be 16 bytes"));
        }
        Ok(self)
    }
}

fn hkdf_expand(prk: &Hkdf<Sha256>, info: &[u8], out: &mut [u8]) -> Result<(), PushError> {
    prk.expand(info, out).map_err(|_| err("hkdf length"))
}

/// The content encryption key and nonce (RFC 8291 section 3.4, RFC 8188 section 2.2).
fn derive(
    ecdh_secret: &[u8],
    auth: &[u8],
    ua_public: &[u8],
    as_public: &[u8],
    salt: &[u8],
) -> Result<([u8; 16], [u8; 12]), PushError> {
    let mut key_info = Vec::with_capacity(14 + 65 + 65);
    key_info.extend_from_slice(b"WebPush: info\0");
    key_info.extend_from_slice(ua_public);
    key_info.extend_from_slice(as_public);
    let mut ikm = [0u8; 32];
    hkdf_expand(&Hkdf::<Sha256>::new(Some(auth), ecdh_secret), &key_info, &mut ikm)?;
    let prk = Hkdf::<Sha256>::new(Some(salt), &ikm);
    let mut cek = [0u8; 16];
    let mut nonce = [0u8; 12];
    hkdf_expand(&prk, b"Content-Encoding: aes128gcm\0", &mut cek)?;
    hkdf_expand(&prk, b"Content-Encoding: nonce\0", &mut nonce)?;
    Ok((cek, nonce))
}

/// Encrypts `plaintext` for a subscription's keys with the given ephemeral private key
/// and salt (RFC 8291): the `aes128gcm` body (header with salt, record size and the
/// ephemeral public key as key id, then one record).
pub fn encrypt_with(
    plaintext: &[u8],
    ua_public: &[u8],
    auth: &[u8],
    as_private: &[u8],
    salt: &[u8; 16],
) -> Result<Vec<u8>, PushError> {
    if plaintext.len() > MAX_PLAINTEXT {
        return Err(err("the payload is too large for one record"));
    }
    let ua = PublicKey::from_sec1_bytes(ua_public).map_err(|_| err("bad subscription key"))?;
    let secret = SecretKey::from_slice(as_private).map_err(|_| err("bad ephemeral key"))?;
    let as_public = secret.public_key().to_encoded_point(false);
    let shared = p256::ecdh::diffie_hellman(secret.to_nonzero_scalar(), ua.as_affine());
    let (cek, nonce) = derive(shared.raw_secret_bytes(), auth, ua_public, as_public.as_bytes(), salt)?;
    let mut record = Vec::with_capacity(plaintext.len() + 1);
    record.extend_from_slice(plaintext);
    record.push(2); // the last (only) record's padding delimiter, no padding
    let sealed = Aes128Gcm::new(&cek.into())
        .encrypt(Nonce::from_slice(&nonce), Payload { msg: &record, aad: b"" })
        .map_err(|_| err("encryption failed"))?;
    let mut body = Vec::with_capacity(16 + 4 + 1 + 65 + sealed.len());
    body.extend_from_slice(salt);
    body.extend_from_slice(&RECORD_SIZE.to_be_bytes());
    body.push(65);
    body.extend_from_slice(as_public.as_bytes());
    body.extend_from_slice(&sealed);
    Ok(body)
}

/// [`encrypt_with`] with a fresh ephemeral key and salt from `rng`.
pub fn encrypt(plaintext: &[u8], sub: &Subscription, rng: &mut dyn Random) -> Result<Vec<u8>, ApiError> {
    let to_api = |e: PushError| ApiError::internal(format!("push encryption: {e}"));
    let ua_public = base64url_decode(&sub.keys.p256dh).map_err(to_api)?;
    let auth = base64url_decode(&sub.keys.auth).map_err(to_api)?;
    let mut salt = [0u8; 16];
    rng.fill(&mut salt)?;
    // A uniformly random 32-byte string is a valid scalar except with negligible
    // probability (zero or at least the group order): draw again then.
    for _ in 0..4 {
        let mut key = [0u8; 32];
        rng.fill(&mut key)?;
        if SecretKey::from_slice(&key).is_ok() {
            return encrypt_with(plaintext, &ua_public, &auth, &key, &salt).map_err(to_api);
        }
    }
    Err(ApiError::internal("push encryption: no valid ephemeral key"))
}

/// The receiving side (a browser, or the tests' stand-in push service): decrypts an
/// `aes128gcm` body with the subscription's private key and secret.
pub fn decrypt(body: &[u8], ua_private: &[u8], auth: &[u8]) -> Result<Vec<u8>, PushError> {
    if body.len() < 21 {
        return Err(err("body too short"));
    }
    let salt = &body[..16];
    let rs = u32::from_be_bytes([body[16], body[17], body[18], body[19]]) as usize;
    let idlen = body[20] as usize;
    let header_len = 21 + idlen;
    if body.len() < header_len || idlen != 65 {
        return Err(err("bad header"));
    }
    let as_public = &body[21..header_len];
    let sealed = &body[header_len..];
    if sealed.len() > rs || sealed.len() < 17 {
        return Err(err("not exactly one record"));
    }
    let secret = SecretKey::from_slice(ua_private).map_err(|_| err("bad private key"))?;
    let ua_public = secret.public_key().to_encoded_point(false);
    let sender = PublicKey::from_sec1_bytes(as_public).map_err(|_| err("bad key id"))?;
    let shared = p256::ecdh::diffie_hellman(secret.to_nonzero_scalar(), sender.as_affine());
    let (cek, nonce) = derive(shared.raw_secret_bytes(), auth, ua_public.as_bytes(), as_public, salt)?;
    let mut record = Aes128Gcm::new(&cek.into())
        .decrypt(Nonce::from_slice(&nonce), Payload { msg: sealed, aad: b"" })
        .map_err(|_| err("decryption failed"))?;
    // Strip the padding: zeros, then the delimiter 2 (last record).
    while record.last() == Some(&0) {
        record.pop();
    }
    if record.pop() != Some(2) {
        return Err(err("bad padding delimiter"));
    }
    Ok(record)
}

/// The audience of an endpoint for VAPID: its origin (`scheme://host[:port]`).
pub fn audience(endpoint: &str) -> Option<String> {
    let (scheme, rest) = endpoint.split_once("://")?;
    if scheme != "https" && scheme != "http" {
        return None;
    }
    let host = rest.split(['/', '?', '#']).next()?;
    (!host.is_empty() && !host.contains('@')).then(|| format!("{scheme}://{host}"))
}

/// A VAPID key pair from its secret form (the 32-byte private scalar, base64url).
#[derive(Clone)]
pub struct Vapid {
    key: SigningKey,
}

impl core::fmt::Debug for Vapid {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        // Never the private key.
        f.debug_struct("Vapid").field("public_key", &self.public_key()).finish()
    }
}

impl Vapid {
    pub fn from_private(b64: &str) -> Result<Vapid, PushError> {
        let bytes = base64url_decode(b64.trim())?;
        let key = SigningKey::from_slice(&bytes).map_err(|_| err("not a P-256 private key"))?;
        Ok(Vapid { key })
    }

    /// The application server key (uncompressed point, base64url) that browsers pass to
    /// `PushManager.subscribe` as `applicationServerKey`.
    pub fn public_key(&self) -> String {
        base64url(VerifyingKey::from(&self.key).to_encoded_point(false).as_bytes())
    }

    /// The signed JWT (ES256) for `audience`, expiring at `exp_s` (Unix seconds).
    pub fn jwt(&self, audience: &str, subject: &str, exp_s: i64) -> String {
        let header = base64url(br#"{"typ":"JWT","alg":"ES256"}"#);
        let claims = serde_json::json!({ "aud": audience, "exp": exp_s, "sub": subject });
        let signing_input = format!("{header}.{}", base64url(claims.to_string().as_bytes()));
        let sig: Signature = self.key.sign(signing_input.as_bytes());
        format!("{signing_input}.{}", base64url(&sig.to_bytes()))
    }

    /// The `Authorization` header value (RFC 8292 section 3): `vapid t=<jwt>, k=<key>`.
    pub fn authorization(&self, endpoint: &str, subject: &str, now_s: i64) -> Result<String, PushError> {
        let aud = audience(endpoint).ok_or_else(|| err("bad endpoint"))?;
        Ok(format!("vapid t={}, k={}", self.jwt(&aud, subject, now_s + VAPID_TTL_S), self.public_key()))
    }
}

/// The claims of a verified VAPID JWT.
#[derive(Clone, Debug, PartialEq, Eq, Deserialize)]
pub struct Claims {
    pub aud: String,
    pub exp: i64,
    pub sub: String,
}

/// The push service's check (RFC 8292 section 3/4): parses `vapid t=…, k=…`, verifies the
/// ES256 signature with `k`, the audience, and the expiry (in the future, at most 24 h).
/// Returns the claims and the public key.
pub fn verify_authorization(header: &str, audience: &str, now_s: i64) -> Result<(Claims, String), PushError> {
    let rest = header.strip_prefix("vapid ").ok_or_else(|| err("not a vapid authorization"))?;
    let (mut t, mut k) = (None, None);
    for part in rest.split(',') {
        match part.trim().split_once('=') {
            Some(("t", v)) => t = Some(v.trim()),
            Some(("k", v)) => k = Some(v.trim()),
            _ => return Err(err("bad vapid parameter")),
        }
    }
    let (t, k) = (t.ok_or_else(|| err("no t"))?, k.ok_or_else(|| err("no k"))?);
    let key = VerifyingKey::from_sec1_bytes(&base64url_decode(k)?).map_err(|_| err("bad k"))?;
    let mut parts = t.split('.');
    let (Some(h), Some(c), Some(s), None) = (parts.next(), parts.next(), parts.next(), parts.next()) else {
        return Err(err("not a JWT"));
    };
    let header: serde_json::Value =
        serde_json::from_slice(&base64url_decode(h)?).map_err(|_| err("bad JWT header"))?;
    if header["alg"] != "ES256" {
        return Err(err("alg is not ES256"));
    }
    let sig = Signature::from_slice(&base64url_decode(s)?).map_err(|_| err("bad signature encoding"))?;
    key.verify(format!("{h}.{c}").as_bytes(), &sig).map_err(|_| err("bad signature"))?;
    let claims: Claims = serde_json::from_slice(&base64url_decode(c)?).map_err(|_| err("bad claims"))?;
    if claims.aud != audience {
        return Err(err(format!("audience {} is not {audience}", claims.aud)));
    }
    if claims.exp <= now_s || claims.exp > now_s + 24 * 3600 {
        return Err(err("expired or too far in the future"));
    }
    if !(claims.sub.starts_with("mailto:") || claims.sub.starts_with("https://")) {
        return Err(err("sub is not a mailto: or https: URI"));
    }
    Ok((claims, k.to_owned()))
}

/// What a notification says, as JSON (the service worker shows it).
pub fn message(kind: &str, game: &str, title: &str, body: &str) -> Vec<u8> {
    serde_json::json!({ "kind": kind, "game": game, "title": title, "body": body, "url": format!("/g/{game}") })
        .to_string()
        .into_bytes()
}

/// What the game's Durable Object last notified about (kept in its own storage, so a
/// repeated change or an alarm retry notifies nothing twice).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Seen {
    pub ply: usize,
    pub seated: bool,
    pub draw_offer: Option<engine::Side>,
    pub finished: bool,
}

/// One notification: to a player (by id, as the seat holds it), a JSON payload.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Notice {
    pub player: String,
    pub kind: &'static str,
    pub payload: Vec<u8>,
}

fn faction_name(f: engine::Faction) -> String {
    let n = f.name();
    let mut c = n.chars();
    c.next().map(|h| h.to_ascii_uppercase().to_string() + c.as_str()).unwrap_or_default()
}

/// The notifications a change of a link game calls for, and what is now seen: the side to
/// move of a correspondence game (days per move) when its turn comes (a move, or the
/// opponent joining), the opponent of a draw offer, both players when the game ends.
/// AI games notify nothing, nor do games first seen now, except one made with both seats
/// taken (a correspondence rematch): its first mover's clock is running, so they hear of
/// it as of an opponent joining.
pub fn notices(prev: Option<Seen>, rec: &crate::model::GameRecord) -> (Vec<Notice>, Seen) {
    use crate::model::{Controller, Mode};
    let now = Seen {
        ply: rec.moves.len(),
        seated: rec.seats_filled(),
        draw_offer: rec.draw_offer,
        finished: rec.result.is_some(),
    };
    let prev = match prev {
        Some(prev) => prev,
        None if now.seated && !now.finished => Seen { seated: false, draw_offer: None, ..now },
        None => return (Vec::new(), now),
    };
    if rec.mode != Mode::Link {
        return (Vec::new(), now);
    }
    let matchup = format!("{} vs {}", faction_name(rec.south), faction_name(rec.north));
    let mut out = Vec::new();
    let mut to = |side: engine::Side, kind: &'static str, title: &str, body: String| {
        let seat = rec.seat(side);
        if let (Controller::Human, Some(p)) = (seat.controller, &seat.player) {
            out.push(Notice { player: p.clone(), kind, payload: message(kind, &rec.id, title, &body) });
        }
    };
    if now.finished && !prev.finished {
        let text = rec.result.as_ref().map(|f| f.text.clone()).unwrap_or_default();
        for side in engine::Side::ALL {
            // A player who sat on both sides (their own invite) is told once.
            if side == engine::Side::North && rec.seat(side).player == rec.seat(engine::Side::South).player {
                continue;
            }
            to(side, "game_over", "Game over", format!("{matchup}: {text}"));
        }
        return (out, now);
    }
    if now.finished {
        return (out, now);
    }
    let turn = rec.position.turn();
    let moved = now.ply > prev.ply || (now.seated && !prev.seated);
    if moved && now.seated && rec.days_per_move.is_some() {
        to(turn, "your_turn", "Your move", format!("{matchup}: it is your turn (move {})", now.ply + 1));
    }
    if let Some(by) = now.draw_offer.filter(|by| prev.draw_offer != Some(*by)) {
        to(by.opponent(), "draw_offer", "Draw offered", format!("{matchup}: your opponent offers a draw"));
    }
    (out, now)
}

/// `GET /api/push/key`: whether this server sends Web Push, and its VAPID public key.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct PushKey {
    pub available: bool,
    pub public_key: Option<String>,
}

/// `POST /api/me/push`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
pub struct Subscribed {
    pub subscribed: bool,
}

/// `POST /api/me/push/unsubscribe`: whether a subscription of this player was removed.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
pub struct Unsubscribed {
    pub unsubscribed: bool,
}

/// `GET`/`POST /api/me/discord-dm`: Discord messages offered to this player (signed in
/// with Discord, a bot configured) and switched on.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
pub struct DiscordDm {
    pub available: bool,
    pub enabled: bool,
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;

    fn b(s: &str) -> Vec<u8> {
        base64url_decode(s).unwrap()
    }

    // RFC 8291 Appendix A.
    const PLAINTEXT: &str = "When I grow up, I want to be a watermelon";
    const AS_PRIVATE: &str = "yfWPiYE-n46HLnH0KqZOF1fJJU3MYrct3AELtAQ-oRw";
    const AS_PUBLIC: &str =
        "BP4z9KsN6nGRTbVYI_c7VJSPQTBtkgcy27mlmlMoZIIgDll6e3vCYLocInmYWAmS6TlzAC8wEqKK6PBru3jl7A8";
    const UA_PRIVATE: &str = "q1dXpw3UpT5VOmu_cf_v6ih07Aems3njxI-JWgLcM94";
    const UA_PUBLIC: &str =
        "BCVxsr7N_eNgVRqvHtD0zTZsEc6-VV-JvLexhqUzORcxaOzi6-AYWXvTBHm4bjyPjs7Vd8pZGH6SRpkNtoIAiw4";
    const AUTH: &str = "BTBZMqHH6r4Tts7J_aSIgg";
    const SALT: &str = "DGv6ra1nlYgDCS1FRnbzlw";
    const BODY: &str = "DGv6ra1nlYgDCS1FRnbzlwAAEABBBP4z9KsN6nGRTbVYI_c7VJSPQTBtkgcy27mlmlMoZIIgDll6e3vCYLocInmYWAmS6TlzAC8wEqKK6PBru3jl7A_yl95bQpu6cVPTpK4Mqgkf1CXztLVBSt2Ks3oZwbuwXPXLWyouBWLVWGNWQexSgSxsj_Qulcy4a-fN";

    #[test]
    fn rfc8291_appendix_a_encrypts_to_the_published_body() {
        let salt: [u8; 16] = b(SALT).try_into().unwrap();
        let body =
            encrypt_with(PLAINTEXT.as_bytes(), &b(UA_PUBLIC), &b(AUTH), &b(AS_PRIVATE), &salt).unwrap();
        assert_eq!(base64url(&body), BODY);
        assert_eq!(&body[21..86], b(AS_PUBLIC).as_slice());
    }

    #[test]
    fn rfc8291_appendix_a_decrypts() {
        let plain = decrypt(&b(BODY), &b(UA_PRIVATE), &b(AUTH)).unwrap();
        assert_eq!(plain, PLAINTEXT.as_bytes());
        let mut tampered = b(BODY);
        let last = tampered.len() - 1;
        tampered[last] ^= 1;
        assert!(decrypt(&tampered, &b(UA_PRIVATE), &b(AUTH)).is_err());
        assert!(decrypt(&b(BODY), &b(UA_PRIVATE), &[0u8; 16]).is_err(), "a wrong secret fails");
    }

    struct Counter(u64);
    impl Random for Counter {
        fn fill(&mut self, buf: &mut [u8]) -> Result<(), ApiError> {
            for x in buf {
                self.0 ^= self.0 << 13;
                self.0 ^= self.0 >> 7;
                self.0 ^= self.0 << 17;
                *x = self.0 as u8;
            }
            Ok(())
        }
    }

    #[test]
    fn random_encryption_round_trips_and_differs_each_time() {
        let sub = Subscription {
            endpoint: "https://push.example/abc".into(),
            keys: Keys { p256dh: UA_PUBLIC.into(), auth: AUTH.into() },
        }
        .validate(false)
        .unwrap();
        let mut rng = Counter(1);
        let m = message("your_turn", "0123", "Your move", "Blades vs Axiom");
        let one = encrypt(&m, &sub, &mut rng).unwrap();
        let two = encrypt(&m, &sub, &mut rng).unwrap();
        assert_ne!(one, two);
        for body in [one, two] {
            assert_eq!(decrypt(&body, &b(UA_PRIVATE), &b(AUTH)).unwrap(), m);
        }
    }

    #[test]
    fn subscriptions_are_validated() {
        let sub = |endpoint: &str, p: &str, a: &str| Subscription {
            endpoint: endpoint.into(),
            keys: Keys { p256dh: p.into(), auth: a.into() },
        };
        assert!(sub("https://push.example/x", UA_PUBLIC, AUTH).validate(false).is_ok());
        assert!(sub("http://127.0.0.1:9/x", UA_PUBLIC, AUTH).validate(false).is_err());
        assert!(sub("http://127.0.0.1:9/x", UA_PUBLIC, AUTH).validate(true).is_ok());
        assert!(sub("javascript:alert(1)", UA_PUBLIC, AUTH).validate(true).is_err());
        assert!(sub("https://push.example/x", AUTH, AUTH).validate(false).is_err());
        assert!(sub("https://push.example/x", UA_PUBLIC, UA_PUBLIC).validate(false).is_err());
        let mut bad_point = b(UA_PUBLIC);
        bad_point[64] ^= 1;
        assert!(sub("https://push.example/x", &base64url(&bad_point), AUTH).validate(false).is_err());
    }

    #[test]
    fn vapid_jwt_verifies_and_tampering_fails() {
        let v = Vapid::from_private(AS_PRIVATE).unwrap();
        assert_eq!(v.public_key(), AS_PUBLIC);
        assert!(!format!("{v:?}").contains(AS_PRIVATE));
        let endpoint = "https://push.example:8443/send/abc?x=1";
        assert_eq!(audience(endpoint).unwrap(), "https://push.example:8443");
        let now = 1_800_000_000;
        let h = v.authorization(endpoint, "mailto:ops@iron-arena.example", now).unwrap();
        let (claims, k) = verify_authorization(&h, "https://push.example:8443", now).unwrap();
        assert_eq!((claims.exp, k.as_str()), (now + VAPID_TTL_S, AS_PUBLIC));
        assert!(verify_authorization(&h, "https://other.example", now).is_err(), "audience");
        assert!(verify_authorization(&h, "https://push.example:8443", now + VAPID_TTL_S).is_err(), "expired");
        // Another key's k, or a changed claim, fails the signature.
        let other = Vapid::from_private(UA_PRIVATE).unwrap();
        let swapped = h.replace(AS_PUBLIC, &other.public_key());
        assert!(verify_authorization(&swapped, "https://push.example:8443", now).is_err());
        let t = h.split("t=").nth(1).unwrap().split(',').next().unwrap();
        let parts: Vec<&str> = t.split('.').collect();
        let forged_claims = base64url(
            serde_json::json!({"aud": "https://push.example:8443", "exp": now + 60, "sub": "mailto:x@y"})
                .to_string()
                .as_bytes(),
        );
        let forged = h.replace(parts[1], &forged_claims);
        assert!(verify_authorization(&forged, "https://push.example:8443", now).is_err());
    }

    #[test]
    fn base64url_decodes_what_it_encodes() {
        for n in 0..40u8 {
            let v: Vec<u8> = (0..n).map(|i| i.wrapping_mul(37)).collect();
            assert_eq!(base64url_decode(&base64url(&v)).unwrap(), v);
        }
        assert!(base64url_decode("a b").is_err());
        // Padded and standard-alphabet forms decode the same bytes (browsers differ).
        assert_eq!(base64url_decode("-_8").unwrap(), vec![0xfb, 0xff]);
        assert_eq!(base64url_decode("+/8=").unwrap(), vec![0xfb, 0xff]);
    }

    #[test]
    fn notices_follow_turns_offers_and_results_once() {
        use crate::model::{Controller, Finish, FinishReason, GameRecord, Mode, MoveEntry, Seat};
        use engine::{Faction, Game, Side};
        let start = engine::Position::start(Faction::Clockwork, Faction::Blades);
        let seat = |p: &str| Seat {
            controller: Controller::Human,
            token_hash: Some("h".into()),
            player: Some(p.into()),
        };
        let seats = [seat("s"), Seat { token_hash: None, player: None, ..seat("n") }];
        let mut rec = GameRecord {
            invite_hash: Some("i".into()),
            days_per_move: Some(1),
            ..GameRecord::new("g1", Faction::Clockwork, Faction::Blades, Mode::Link, seats, 0)
        };
        let kinds = |n: &[Notice]| n.iter().map(|n| (n.player.clone(), n.kind)).collect::<Vec<_>>();
        let (n, seen) = notices(None, &rec);
        assert!(n.is_empty(), "creation notifies no one");
        // The opponent joins: South's move.
        rec.seats[1] = seat("n");
        let (n, seen) = notices(Some(seen), &rec);
        assert_eq!(kinds(&n), [("s".to_owned(), "your_turn")]);
        let v: serde_json::Value = serde_json::from_slice(&n[0].payload).unwrap();
        assert_eq!((v["game"].as_str(), v["url"].as_str()), (Some("g1"), Some("/g/g1")));
        assert!(v["body"].as_str().unwrap().contains("Clockwork vs Blades"), "{v}");
        assert!(notices(Some(seen), &rec).0.is_empty(), "nothing twice");
        // South moves: North's turn.
        let mut game = Game::new(start);
        let mv = game.legal_moves()[0];
        game.play(mv).unwrap();
        rec.moves.push(MoveEntry { mv, by: Side::South, at: 1 });
        rec.position = *game.position();
        let (n, seen) = notices(Some(seen), &rec);
        assert_eq!(kinds(&n), [("n".to_owned(), "your_turn")]);
        // North offers a draw: South hears of it.
        rec.draw_offer = Some(Side::North);
        let (n, seen) = notices(Some(seen), &rec);
        assert_eq!(kinds(&n), [("s".to_owned(), "draw_offer")]);
        // Resignation: both.
        rec.result = Some(Finish::win(Side::North, FinishReason::Resignation, 2));
        rec.draw_offer = None;
        let (n, seen) = notices(Some(seen), &rec);
        assert_eq!(kinds(&n), [("s".to_owned(), "game_over"), ("n".to_owned(), "game_over")]);
        assert!(notices(Some(seen), &rec).0.is_empty());
        // Untimed games do not notify turns; AI games nothing.
        rec.result = None;
        rec.days_per_move = None;
        let (n, _) = notices(Some(Seen { ply: 0, ..seen }), &rec);
        assert!(n.is_empty());
        rec.mode = Mode::Ai;
        rec.result = Some(Finish::win(Side::North, FinishReason::Resignation, 2));
        assert!(notices(Some(Seen { finished: false, ..seen }), &rec).0.is_empty());
    }
}
