//! "Learn the pieces" (issue 31, item 3): which lessons there are, for the progress kept
//! on the account (`GET /api/me/lessons`, `PUT /api/me/lessons/{id}`; the statements are
//! `crate::db::lessons`). The lessons themselves are the client's data
//! (`public/lessons.json`, played in the browser); the service reads only their ids, from
//! the same file built into the binary, so a lesson added there is known here without a
//! second list to keep in step, and an id no lesson has is refused before it is stored
//! (a player's rows are at most one per lesson).

use std::sync::OnceLock;

use serde::{Deserialize, Serialize};

use crate::error::ApiError;

/// The lessons file the client serves, built in.
const LESSONS_JSON: &str = include_str!("../../../public/lessons.json");

/// The most characters of a refused id an error message repeats.
const SHOWN_ID_CHARS: usize = 40;

/// The lesson ids of a lessons file, in its order (the order of the page and of
/// [`Lessons::completed`]): refused if the file does not parse, has no lesson, or has an
/// id twice or empty.
pub fn parse_ids(json: &str) -> Result<Vec<String>, String> {
    #[derive(Deserialize)]
    struct File {
        lessons: Vec<Lesson>,
    }
    // Everything but the id is the client's.
    #[derive(Deserialize)]
    struct Lesson {
        id: String,
    }
    let file: File = serde_json::from_str(json).map_err(|e| e.to_string())?;
    let ids: Vec<String> = file.lessons.into_iter().map(|l| l.id).collect();
    if ids.is_empty() {
        return Err("no lessons".into());
    }
    for (i, id) in ids.iter().enumerate() {
        if id.is_empty() || ids[..i].contains(id) {
            return Err(format!("lesson id '{id}' is empty or given twice"));
        }
    }
    Ok(ids)
}

/// The built-in lessons' ids, parsed once. The unit test below parses the same file, so
/// this cannot fail in a tested build.
pub fn ids() -> &'static [String] {
    static IDS: OnceLock<Vec<String>> = OnceLock::new();
    IDS.get_or_init(|| match parse_ids(LESSONS_JSON) {
        Ok(ids) => ids,
        Err(e) => panic!("public/lessons.json is invalid: {e}"),
    })
}

/// The lesson `id` names (as the path gives it): 404 naming it (cut to 40 characters)
/// when there is no such lesson.
pub fn find(id: &str) -> Result<&'static str, ApiError> {
    ids().iter().find(|l| *l == id).map(String::as_str).ok_or_else(|| {
        ApiError::not_found(format!("no lesson '{}'", id.chars().take(SHOWN_ID_CHARS).collect::<String>()))
    })
}

/// `GET /api/me/lessons` and `PUT /api/me/lessons/{id}`: the lessons the player has
/// completed, in the lessons' order.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Lessons {
    pub completed: Vec<String>,
}

impl Lessons {
    /// The known lessons among `stored` (ids read back from the store), in the lessons'
    /// order: a lesson since removed from the file is no longer listed.
    pub fn from_stored(stored: &[String]) -> Lessons {
        Lessons { completed: ids().iter().filter(|id| stored.contains(id)).cloned().collect() }
    }
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;
    use crate::ErrorCode;

    #[test]
    fn the_built_in_lessons_parse_and_each_is_found_by_its_id() {
        let all = ids();
        assert_eq!(all.len(), 22, "public/lessons.json's lessons");
        assert_eq!(all[0], "cog");
        for id in all {
            assert_eq!(find(id).unwrap(), id);
        }
    }

    #[test]
    fn an_unknown_id_is_404_naming_it_cut_short() {
        let e = find("nope").unwrap_err();
        assert_eq!((e.code, e.message.as_str()), (ErrorCode::NotFound, "no lesson 'nope'"));
        let long = "x".repeat(500);
        assert!(find(&long).unwrap_err().message.len() < 60);
        assert!(find("").is_err() && find("Cog").is_err(), "ids are matched exactly");
    }

    #[test]
    fn a_bad_lessons_file_is_refused_naming_why() {
        assert!(parse_ids("{}").is_err());
        assert_eq!(parse_ids(r#"{"lessons": []}"#).unwrap_err(), "no lessons");
        assert!(parse_ids(r#"{"lessons": [{"id": "a"}, {"id": "a"}]}"#).unwrap_err().contains("twice"));
        assert!(parse_ids(r#"{"lessons": [{"id": ""}]}"#).is_err());
        assert_eq!(parse_ids(r#"{"lessons": [{"id": "b", "x": 1}, {"id": "a"}]}"#).unwrap(), ["b", "a"]);
    }

    #[test]
    fn the_list_is_in_the_lessons_order_and_only_known_lessons() {
        let stored = ["gear".to_owned(), "gone".to_owned(), "cog".to_owned()];
        assert_eq!(Lessons::from_stored(&stored).completed, ["cog", "gear"]);
    }
}
