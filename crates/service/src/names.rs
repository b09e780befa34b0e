//! Display names: validated at the edge, stored as given, always rendered as text (never
//! HTML) by the client, and only ever bound as SQL parameters.

use crate::error::{ApiError, ErrorCode};

pub const MIN_LEN: usize = 2;
pub const MAX_LEN: usize = 24;

/// A valid display name: 2–24 characters of letters (any script, with at most
/// [`MAX_MARKS`] combining marks on each), digits, spaces and `-_.'`, letters of one of
/// Latin, Greek and Cyrillic only, no leading, trailing or repeated spaces, no control
/// characters.
pub fn validate(raw: &str) -> Result<String, ApiError> {
    let bad = |why: &str| ApiError::new(ErrorCode::InvalidName, format!("display name {why}"));
    let n = raw.chars().count();
    if !(MIN_LEN..=MAX_LEN).contains(&n) {
        return Err(bad(&format!("must be {MIN_LEN} to {MAX_LEN} characters long")));
    }
    if raw.starts_with(' ') || raw.ends_with(' ') || raw.contains("  ") {
        return Err(bad("may not start or end with a space or have two in a row"));
    }
    if let Some(c) = raw.chars().find(|&c| invisible(c)) {
        return Err(bad(&format!("may not contain the invisible character U+{:04X}", u32::from(c))));
    }
    // A combining mark (an accent, an Indic vowel sign or virama) belongs to the letter
    // before it; alone, after a space or punctuation, it is refused.
    let mut prev_letter = false;
    for c in raw.chars() {
        let mark = unicode_normalization::char::is_combining_mark(c);
        if !(c.is_alphanumeric() || " -_.'".contains(c) || (mark && prev_letter)) {
            return Err(bad(&format!("may not contain {c:?}: use letters, digits, spaces and - _ . '")));
        }
        prev_letter = c.is_alphanumeric() || (mark && prev_letter);
    }
    if stacked_marks(raw) > MAX_MARKS {
        return Err(bad(&format!("may not stack more than {MAX_MARKS} combining marks on one letter")));
    }
    if let [a, b, ..] = confusable_scripts(raw).as_slice() {
        return Err(bad(&format!("may not mix {a} and {b} letters (they look alike)")));
    }
    Ok(raw.to_owned())
}

/// Combining marks one letter may carry: enough for any script's accents and vowel signs,
/// too few for the tall "stacked" text that covers the names around it.
pub const MAX_MARKS: usize = 2;

/// The longest run of combining marks in `s`.
fn stacked_marks(s: &str) -> usize {
    use unicode_normalization::char::is_combining_mark;
    let (mut run, mut longest) = (0, 0);
    for c in s.chars() {
        run = if is_combining_mark(c) { run + 1 } else { 0 };
        longest = longest.max(run);
    }
    longest
}

/// The scripts among Latin, Greek and Cyrillic that `s` has letters of: those three hold
/// the look-alikes (`a` and `а`, `o`, `ο` and `о`) that make one name pass for another, so a
/// name keeps to one of them (other scripts mix freely, e.g. Latin with CJK).
fn confusable_scripts(s: &str) -> Vec<&'static str> {
    let script = |c: char| match u32::from(c) {
        0x41..=0x5A | 0x61..=0x7A | 0xC0..=0x24F | 0x1E00..=0x1EFF | 0xFF21..=0xFF3A | 0xFF41..=0xFF5A => {
            Some("Latin")
        }
        0x370..=0x3FF | 0x1F00..=0x1FFF => Some("Greek"),
        0x400..=0x52F | 0x1C80..=0x1C8F | 0x2DE0..=0x2DFF | 0xA640..=0xA69F => Some("Cyrillic"),
        _ => None,
    };
    let mut found: Vec<&'static str> = Vec::new();
    for name in s.chars().filter(|c| c.is_alphabetic()).filter_map(script) {
        if !found.contains(&name) {
            found.push(name);
        }
    }
    found
}

/// Characters that show nothing (or nothing of their own): Unicode's
/// Default_Ignorable_Code_Point set (Unicode 15.1 DerivedCoreProperties: soft hyphen,
/// zero-width and joiner characters, bidi controls, variation selectors, Hangul fillers,
/// tags, …) and the blank look-alikes that are letters or symbols (Braille blank,
/// ideographic space). Some of them count as letters for `char::is_alphanumeric`.
pub fn invisible(c: char) -> bool {
    matches!(
        u32::from(c),
        0x00AD
            | 0x034F
            | 0x061C
            | 0x115F..=0x1160
            | 0x17B4..=0x17B5
            | 0x180B..=0x180F
            | 0x200B..=0x200F
            | 0x202A..=0x202E
            | 0x2060..=0x206F
            | 0x2800
            | 0x3000
            | 0x3164
            | 0xFE00..=0xFE0F
            | 0xFEFF
            | 0xFFA0
            | 0xFFF0..=0xFFF8
            | 0x1BCA0..=0x1BCA3
            | 0x1D173..=0x1D17A
            | 0xE0000..=0xE0FFF
    )
}

/// The form two names are compared in for uniqueness: NFKC (fullwidth and other
/// compatibility look-alikes fold to their plain letters), lowercased, NFKC again (so
/// the result is stable). `players.name_key` holds it under a unique index; guests'
/// `Guest-…` names have none (they cannot be chosen, so they cannot clash).
pub fn key(name: &str) -> String {
    use unicode_normalization::UnicodeNormalization;
    let folded: String = name.nfkc().collect::<String>().to_lowercase();
    folded.nfkc().collect()
}

/// Whether a stored display name is a chosen one (not a guest's `Guest-…` name, any
/// case): the names that have a normalised key in `player_names`.
pub fn is_chosen(name: &str) -> bool {
    !name.to_lowercase().starts_with("guest-")
}

/// A name a player chooses: [`validate`], and not in the guests' `Guest-…` form (that
/// would pass for another, unnamed player).
pub fn validate_chosen(raw: &str) -> Result<String, ApiError> {
    let name = validate(raw)?;
    if !is_chosen(&name) {
        return Err(ApiError::new(
            ErrorCode::InvalidName,
            "names starting with 'Guest-' are kept for guests",
        ));
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

    /// Regression (issue 30): names accepted look-alike scripts ("Аda" with a Cyrillic А
    /// passes for "Ada") and stacked combining marks.
    #[test]
    fn names_keep_to_one_confusable_script_and_stack_few_marks() {
        for good in ["Ada", "Дмитрий", "Σοφία", "Tanaka 太郎", "José", "Nguyễn", "हिन्दी", "Zoë-7"]
        {
            assert!(validate(good).is_ok(), "{good}: {:?}", validate(good).err());
        }
        let e = validate("\u{0410}da").unwrap_err();
        assert!(
            e.message.contains("Latin and Cyrillic") || e.message.contains("Cyrillic and Latin"),
            "{}",
            e.message
        );
        assert!(validate("P\u{03B1}ul").unwrap_err().message.contains("Greek"));
        assert!(validate("\u{0301}Ada").is_err(), "a mark with no letter before it");
        assert!(validate("Jose\u{0301}").is_ok(), "a decomposed accent");
        // Other_Alphabetic marks (Arabic, here) pass `is_alphanumeric`: three on one letter is a stack.
        assert!(validate("\u{0628}\u{064E}\u{0651}").is_ok(), "two marks: a vowel and a shadda");
        let e = validate("\u{0628}\u{064E}\u{064E}\u{064E}x").unwrap_err();
        assert!(e.message.contains("combining marks"), "{}", e.message);
    }

    #[test]
    fn chosen_names_may_not_pose_as_guests_and_tags_fit() {
        assert_eq!(validate_chosen("Ada").unwrap(), "Ada");
        for bad in ["Guest-1a2b3c", "guest-x", "GUEST-Ada"] {
            assert_eq!(validate_chosen(bad).unwrap_err().code, ErrorCode::InvalidName, "{bad}");
            assert!(!is_chosen(bad), "{bad}");
        }
        assert!(is_chosen("Ada") && is_chosen("Guest") && is_chosen("Guestx"));
        assert_eq!(disambiguate("Ada", "0123456789abcdef01234567"), "Ada-0123");
        let long = disambiguate(&"x".repeat(MAX_LEN), "abcdef");
        assert_eq!(long.chars().count(), MAX_LEN);
        assert!(validate(&long).is_ok() && long.ends_with("-abcd"));
    }

    #[test]
    fn invisible_and_default_ignorable_characters_are_refused() {
        for bad in [
            "Ada\u{200B}",         // zero-width space
            "A\u{200D}da",         // zero-width joiner
            "Ada\u{3164}",         // Hangul filler (a letter to is_alphanumeric)
            "\u{115F}\u{1160}Ada", // Hangul choseong/jungseong fillers
            "Ad\u{FFA0}a",         // halfwidth Hangul filler
            "Ada\u{FE0F}",         // variation selector
            "Ad\u{00AD}a",         // soft hyphen
            "\u{202E}adA",         // right-to-left override
            "Ada\u{E0041}",        // tag character
            "Ada\u{2800}",         // Braille blank
            "Ada\u{17B4}",         // Khmer inherent vowel
        ] {
            let e = validate(bad).unwrap_err();
            assert_eq!((e.status(), e.code), (422, ErrorCode::InvalidName), "{bad:?}");
        }
        assert!(invisible('\u{3164}') && !invisible('a') && !invisible('東'));
    }

    #[test]
    fn uniqueness_keys_fold_case_and_compatibility_forms() {
        assert_eq!(key("Ada"), key("ADA"));
        assert_eq!(key("Ａｄａ"), key("ada"), "fullwidth");
        assert_eq!(key("Zoë"), key("ZOË"));
        assert_eq!(key("Zoe\u{0308}"), key("Zoë"), "composed and decomposed");
        assert_eq!(key("ﬁsh"), key("fish"), "ligature");
        assert_ne!(key("Ada"), key("Ad a"));
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
            assert_eq!((e.status(), e.code), (422, ErrorCode::InvalidName), "{bad}");
        }
    }
}
