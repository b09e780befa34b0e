//! Accounts without the runtime: session cookies, OAuth2 `state` and PKCE (RFC 7636),
//! and Discord's authorize URL. The Worker glue stores sessions and states in D1 (by
//! hash only) and talks to Discord at configurable base URLs.

use sha2::{Digest, Sha256};

/// `__Host-`: the browser keeps it only if Secure, host-only (no Domain) and `Path=/`, so
/// a sibling subdomain cannot plant or overwrite it.
pub const SESSION_COOKIE: &str = "__Host-ia_session";
/// The name sessions had before: no longer read (a cookie without the `__Host-` prefix can
/// be planted by a sibling subdomain), only cleared at sign-out.
pub const LEGACY_SESSION_COOKIE: &str = "ia_session";
/// Sessions last 180 days.
pub const SESSION_MAX_AGE_S: i64 = 180 * 24 * 3600;
/// An OAuth `state` must come back within 10 minutes.
pub const STATE_MAX_AGE_MS: i64 = 10 * 60 * 1000;

/// base64url without padding (RFC 4648 §5).
pub fn base64url(bytes: &[u8]) -> String {
    use base64::Engine as _;
    base64::engine::general_purpose::URL_SAFE_NO_PAD.encode(bytes)
}

/// The PKCE S256 code challenge of a verifier.
pub fn pkce_challenge(verifier: &str) -> String {
    base64url(&Sha256::digest(verifier.as_bytes()))
}

/// Everything but RFC 3986's unreserved characters is percent-encoded.
const COMPONENT: &percent_encoding::AsciiSet =
    &percent_encoding::NON_ALPHANUMERIC.remove(b'-').remove(b'.').remove(b'_').remove(b'~');

/// Percent-encodes a query component (RFC 3986 unreserved characters pass).
pub fn encode(s: &str) -> String {
    percent_encoding::utf8_percent_encode(s, COMPONENT).to_string()
}

/// Discord's authorization URL for the `identify` scope with `state` and PKCE.
pub fn authorize_url(
    authorize_base: &str,
    client_id: &str,
    redirect_uri: &str,
    state: &str,
    verifier: &str,
) -> String {
    format!(
        "{authorize_base}?response_type=code&client_id={}&scope=identify&redirect_uri={}&state={}&code_challenge={}&code_challenge_method=S256&prompt=consent",
        encode(client_id),
        encode(redirect_uri),
        encode(state),
        pkce_challenge(verifier)
    )
}

/// The token-exchange form body (application/x-www-form-urlencoded).
pub fn token_form(
    client_id: &str,
    client_secret: &str,
    code: &str,
    redirect_uri: &str,
    verifier: &str,
) -> String {
    format!(
        "grant_type=authorization_code&client_id={}&client_secret={}&code={}&redirect_uri={}&code_verifier={}",
        encode(client_id),
        encode(client_secret),
        encode(code),
        encode(redirect_uri),
        encode(verifier)
    )
}

/// The session token in a `Cookie` header, if any: the `__Host-` cookie only.
pub fn session_from_cookie(header: Option<&str>) -> Option<String> {
    let header = header?;
    let find = |name: &str| {
        header
            .split(';')
            .filter_map(|kv| kv.trim().split_once('='))
            .find(|(k, _)| *k == name)
            .map(|(_, v)| v.trim().to_owned())
            .filter(|v| v.len() == 64 && v.bytes().all(|b| b.is_ascii_hexdigit()))
    };
    find(SESSION_COOKIE)
}

/// `Set-Cookie` for a session: HttpOnly (no script reads it), Secure, SameSite=Lax (sent on
/// the top-level redirect back from Discord, never on cross-site subrequests).
pub fn session_cookie(token: &str) -> String {
    format!("{SESSION_COOKIE}={token}; Path=/; Max-Age={SESSION_MAX_AGE_S}; HttpOnly; Secure; SameSite=Lax")
}

/// Clears the session cookie (and the legacy one): two `Set-Cookie` values.
pub fn clear_cookies() -> [String; 2] {
    [SESSION_COOKIE, LEGACY_SESSION_COOKIE]
        .map(|name| format!("{name}=; Path=/; Max-Age=0; HttpOnly; Secure; SameSite=Lax"))
}

/// A query parameter of a URL's query string (application/x-www-form-urlencoded:
/// decoded for `%XX` and `+`; invalid escapes are kept as written).
pub fn query_param(query: &str, name: &str) -> Option<String> {
    form_urlencoded::parse(query.as_bytes()).find(|(k, _)| k == name).map(|(_, v)| v.into_owned())
}

/// A pending sign-in read back at the callback (single-use: the store deletes it as it
/// reads it): it must exist, have been started by this browser's session (`token_hash`)
/// and come back within [`STATE_MAX_AGE_MS`]. 403 `bad_state` otherwise.
pub fn check_pending(
    pending: Option<(&str, i64)>,
    token_hash: &str,
    now: i64,
) -> Result<(), crate::ApiError> {
    let bad = |why: &str| crate::ApiError::new(crate::ErrorCode::BadState, why.to_owned());
    let (session_hash, created_at) = pending.ok_or_else(|| bad("unknown or already used sign-in state"))?;
    if !crate::tokens::same(session_hash, token_hash) {
        return Err(bad("this sign-in was started by another browser"));
    }
    if now - created_at > STATE_MAX_AGE_MS {
        return Err(bad("the sign-in took too long; please try again"));
    }
    Ok(())
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;

    #[test]
    fn pkce_matches_rfc7636_appendix_b() {
        assert_eq!(
            pkce_challenge("dBjftJeZ4CVP-mB92K27uhbUJU1p1r_wW1gFWFOEjXk"),
            "E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM"
        );
    }

    #[test]
    fn cookies_are_parsed_strictly() {
        let t = "a".repeat(64);
        assert_eq!(session_from_cookie(Some(&format!("x=1; __Host-ia_session={t}; y=2"))), Some(t.clone()));
        // Regression (issue 30): the legacy name, which any sibling subdomain can set, was
        // read as a session.
        assert_eq!(session_from_cookie(Some(&format!("ia_session={t}"))), None, "legacy name not read");
        let u = "b".repeat(64);
        assert_eq!(session_from_cookie(Some(&format!("ia_session={t}; __Host-ia_session={u}"))), Some(u));
        assert_eq!(session_from_cookie(Some("__Host-ia_session=short")), None);
        assert_eq!(session_from_cookie(None), None);
        let c = session_cookie(&t);
        assert!(c.contains("HttpOnly") && c.contains("Secure") && c.contains("SameSite=Lax"));
        // __Host- rules: Secure, Path=/, no Domain.
        assert!(c.starts_with("__Host-") && c.contains("Path=/;") && !c.contains("Domain"));
        assert!(clear_cookies().iter().all(|c| c.contains("Max-Age=0")));
    }

    #[test]
    fn a_pending_sign_in_must_exist_belong_to_this_browser_and_be_recent() {
        let mine = crate::tokens::hash("mine");
        assert!(check_pending(Some((&mine, 1_000)), &mine, 1_000 + STATE_MAX_AGE_MS).is_ok());
        let cases = [
            (None, "unknown or already used"),
            (Some((crate::tokens::hash("theirs"), 1_000)), "another browser"),
            (Some((mine.clone(), 999)), "took too long"),
        ];
        for (pending, why) in cases {
            let e = check_pending(
                pending.as_ref().map(|(h, t)| (h.as_str(), *t)),
                &mine,
                1_000 + STATE_MAX_AGE_MS,
            )
            .unwrap_err();
            assert_eq!((e.status(), e.code), (403, crate::ErrorCode::BadState));
            assert!(e.message.contains(why), "{}", e.message);
        }
    }

    #[test]
    fn urls_are_encoded() {
        let u = authorize_url(
            "https://d/oauth2/authorize",
            "123",
            "http://127.0.0.1:8787/api/auth/discord/callback",
            "s t",
            "v",
        );
        assert!(u.contains("redirect_uri=http%3A%2F%2F127.0.0.1%3A8787%2Fapi%2Fauth%2Fdiscord%2Fcallback"));
        assert!(
            u.contains("state=s%20t")
                && u.contains("scope=identify")
                && u.contains("code_challenge_method=S256")
        );
        assert_eq!(query_param("code=a%20b&state=x+y", "code").as_deref(), Some("a b"));
        assert_eq!(query_param("code=a&state=x+y", "state").as_deref(), Some("x y"));
        assert_eq!(query_param("code=%zz", "code").as_deref(), Some("%zz"));
        assert_eq!(query_param("code=%", "code").as_deref(), Some("%"));
        assert_eq!(query_param("code=%é1", "code").as_deref(), Some("%é1"));
        assert_eq!(query_param("state=%E2%9C%93&code=%41", "code").as_deref(), Some("A"), "a last escape");
        assert_eq!(query_param("state=%E2%9C%93", "state").as_deref(), Some("\u{2713}"));
        assert_eq!(query_param("code=a", "state"), None);
        assert_eq!(base64url(b"\xfb\xff"), "-_8");
        assert_eq!(encode("a b/~é"), "a%20b%2F~%C3%A9");
    }
}
