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

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;

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
