//! The API's first level of routes: which handler a request goes to, by method and path
//! (matchit, the router axum is built on). Each area routes its own rest.

use crate::error::{ApiError, ErrorCode};
use crate::http::Method;

/// Where a request goes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Area {
    OpenApi,
    Health,
    /// `POST /api/games`.
    CreateGame,
    /// `POST /api/ai/bench`, where switched on.
    AiBench,
    /// `GET /api/me/games`.
    MyGames,
    Challenges,
    DiscordDm,
    Push,
    /// `GET /api/me/lessons`, `PUT /api/me/lessons/{id}`: the lessons completed.
    Lessons,
    /// `/api/me`, `/api/me/…`, `/api/auth/…`: the session, names, sign-in.
    Accounts,
    /// `/api/games/{id}/…`: the game's own object.
    Game,
    /// Stories, Player Info, the leaderboard, the match-up statistics.
    Players,
}

#[derive(Clone, Copy)]
enum Entry {
    Any(Area),
    /// Only with this method; any other goes to the fallback area, if any, or is 405.
    Only(Method, Area, Option<Area>),
}

fn table() -> matchit::Router<Entry> {
    use Area::*;
    use Entry::{Any, Only};
    let mut r = matchit::Router::new();
    let routes: [(&str, Entry); 22] = [
        ("/api/openapi.json", Only(Method::Get, OpenApi, None)),
        ("/api/health", Only(Method::Get, Health, None)),
        ("/api/games", Only(Method::Post, CreateGame, None)),
        ("/api/games/{id}", Any(Game)),
        ("/api/games/{id}/{*rest}", Any(Game)),
        ("/api/ai/bench", Only(Method::Post, AiBench, None)),
        ("/api/me/games", Only(Method::Get, MyGames, Some(Accounts))),
        ("/api/challenges", Any(Challenges)),
        ("/api/challenges/{*rest}", Any(Challenges)),
        ("/api/me/discord-dm", Any(DiscordDm)),
        ("/api/push/key", Any(Push)),
        ("/api/me/push", Any(Push)),
        ("/api/me/push/unsubscribe", Any(Push)),
        ("/api/me/lessons", Any(Lessons)),
        ("/api/me/lessons/{id}", Any(Lessons)),
        ("/api/me", Any(Accounts)),
        ("/api/me/{*rest}", Any(Accounts)),
        ("/api/auth/{*rest}", Any(Accounts)),
        ("/api/stories", Any(Players)),
        ("/api/stories/{*rest}", Any(Players)),
        ("/api/players/{*rest}", Any(Players)),
        ("/api/leaderboard", Any(Players)),
    ];
    for (path, entry) in routes {
        // The table is fixed: a conflict in it is a bug the unit test below shows.
        let _ = r.insert(path, entry);
    }
    let _ = r.insert("/api/stats/matchups", Any(Players));
    r
}

/// The area of `method path`: 404 for a path the API does not have, 405 for a method a
/// route does not take.
pub fn area(method: Method, path: &str) -> Result<Area, ApiError> {
    thread_local! {
        static TABLE: matchit::Router<Entry> = table();
    }
    let entry = TABLE.with(|t| t.at(path).map(|m| *m.value));
    match entry {
        Ok(Entry::Any(a)) => Ok(a),
        Ok(Entry::Only(m, a, _)) if m == method => Ok(a),
        Ok(Entry::Only(_, _, Some(fallback))) => Ok(fallback),
        Ok(Entry::Only(_, Area::CreateGame, None)) => {
            Err(ApiError::new(ErrorCode::MethodNotAllowed, "use POST to create a game"))
        }
        // The bench is not a route where it is not switched on, nor with another method.
        Ok(Entry::Only(_, _, None)) | Err(_) => Err(ApiError::not_found(format!("no route {path}"))),
    }
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;

    #[test]
    fn every_route_reaches_its_area() {
        let g = "/api/games/0123456789abcdef01234567";
        for (method, path, want) in [
            (Method::Get, "/api/openapi.json", Area::OpenApi),
            (Method::Get, "/api/health", Area::Health),
            (Method::Post, "/api/games", Area::CreateGame),
            (Method::Get, g, Area::Game),
            (Method::Post, &format!("{g}/moves") as &str, Area::Game),
            (Method::Post, "/api/ai/bench", Area::AiBench),
            (Method::Get, "/api/me/games", Area::MyGames),
            (Method::Post, "/api/me/games", Area::Accounts),
            (Method::Get, "/api/challenges", Area::Challenges),
            (Method::Post, "/api/challenges/abc/accept", Area::Challenges),
            (Method::Get, "/api/me/discord-dm", Area::DiscordDm),
            (Method::Get, "/api/push/key", Area::Push),
            (Method::Post, "/api/me/push/unsubscribe", Area::Push),
            (Method::Get, "/api/me/lessons", Area::Lessons),
            (Method::Put, "/api/me/lessons/cog", Area::Lessons),
            (Method::Put, "/api/me/lessons/cog/x", Area::Accounts),
            (Method::Get, "/api/me", Area::Accounts),
            (Method::Post, "/api/me/name", Area::Accounts),
            (Method::Get, "/api/auth/discord/callback", Area::Accounts),
            (Method::Get, "/api/stories", Area::Players),
            (Method::Post, "/api/stories/clockwork/stages/0", Area::Players),
            (Method::Get, "/api/players/abc", Area::Players),
            (Method::Get, "/api/leaderboard", Area::Players),
            (Method::Get, "/api/stats/matchups", Area::Players),
        ] {
            assert_eq!(area(method, path).unwrap(), want, "{method:?} {path}");
        }
    }

    #[test]
    fn unknown_paths_are_404_and_wrong_methods_405() {
        for path in ["/api", "/api/", "/api/nope", "/api/games/", "/api/statsx", "/api/stats/other"] {
            let e = area(Method::Get, path).unwrap_err();
            assert_eq!((e.status(), e.code), (404, ErrorCode::NotFound), "{path}");
        }
        assert_eq!(area(Method::Get, "/api/games").unwrap_err().status(), 405);
        assert_eq!(area(Method::Post, "/api/health").unwrap_err().status(), 404);
        assert_eq!(area(Method::Get, "/api/ai/bench").unwrap_err().status(), 404);
    }
}
