//! Display names: validated at the edge, stored as given, always rendered as text (never
//! HTML) by the client, and only ever bound as SQL parameters.

use crate::error::ApiError;

pub const MIN_LEN: usize = 2;
pub const MAX_LEN: usize = 24;

/// A valid display name: 2–24 characters of letters (any script), digits, spaces and
/// `-_.'`, no leading, trailing or repeated spaces, no control characters.
pub fn validate(raw: &str) -> Result<String, ApiError> {
    let bad = |why: &str| ApiError::new(422, "invalid_name", format!("display name {why}"));
    let n = raw.chars().count();
    if !(MIN_LEN..=MAX_LEN).contains(&n) {
        return Err(bad(&format!("must be {MIN_LEN} to {MAX_LEN} characters long")));
    }
    if raw.starts_with(' ') || raw.ends_with(' ') || raw.contains("  ") {
        return Err(bad("may not start or end with a space or have two in a row"));
    }
    if let Some(c) = raw.chars().find(|&c| !(c.is_alphanumeric() || " -_.'".contains(c))) {
        return Err(bad(&format!("may not contain {c:?}: use letters, digits, spaces and - _ . '")));
    }
    Ok(raw.to_owned())
}

/// A name a player chooses: [`validate`], and not in the guests' `Guest-…` form (that
/// would pass for another, unnamed player).
pub fn validate_chosen(raw: &str) -> Result<String, ApiError> {
    let name = validate(raw)?;
    if name.to_lowercase().starts_with("guest-") {
        return Err(ApiError::new(422, "invalid_name", "names starting with 'Guest-' are kept for guests"));
    }
    Ok(name)
}

/// `name` with a short tag from the player's id (`Name-1a2b`), for a Discord name that
/// another player already shows; stays within [`MAX_LEN`].
pub fn disambiguate(name: &str, player_id: &str) -> String {
    let tag: String = player_id.chars().take(4).collect();
    let keep: String = name.chars().take(MAX_LEN - 1 - tag.chars().count()).collect();
    format!("{}-{tag}", keep.trim_end())
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;

    #[test]
    fn chosen_names_may_not_pose_as_guests_and_tags_fit() {
        assert_eq!(validate_chosen("Ada").unwrap(), "Ada");
        for bad in ["Guest-1a2b3c", "guest-x", "GUEST-Ada"] {
            assert_eq!(validate_chosen(bad).unwrap_err().code, "invalid_name", "{bad}");
        }
        assert_eq!(disambiguate("Ada", "0123456789abcdef01234567"), "Ada-0123");
        let long = disambiguate(&"x".repeat(MAX_LEN), "abcdef");
        assert_eq!(long.chars().count(), MAX_LEN);
        assert!(validate(&long).is_ok() && long.ends_with("-abcd"));
    }

    #[test]
    fn accepts_ordinary_names_in_any_script() {
        for ok in ["Toby", "Zoë_Ma", "O'Neil-2", "Łukasz K.", "東京", "ab"] {
            assert_eq!(validate(ok).unwrap(), ok);
        }
    }

    #[test]
    fn refuses_html_sql_control_and_length_abuse() {
        for bad in [
            "<script>alert(1)</script>",
            "Robert'); DROP TABLE players;--",
            "a",
            &"x".repeat(25),
            &"y".repeat(10_000),
            " lead",
            "trail ",
            "two  spaces",
            "tab\there",
            "nul\0",
            "emoji 🙂",
        ] {
            let e = validate(bad).unwrap_err();
            assert_eq!((e.status, e.code), (422, "invalid_name"), "{bad}");
        }
    }
}
