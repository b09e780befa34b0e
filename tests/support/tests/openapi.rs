//! The OpenAPI checker of the real-runtime harness (`tests/support/openapi.rs`), tested
//! without a runtime: a right response passes, and a wrong one — a missing or extra field,
//! a wrong type or value, an undocumented path, method, status or content type — fails.
//! Also: the document itself compiles (every response schema, every `$ref`).

#![allow(clippy::unwrap_used)]

use serde_json::{json, Value};
use support::openapi::{compile, document, template, verify};

/// A real finished game view, as `GET /api/games/{id}` answers it.
fn game_view() -> Value {
    json!({
        "id": "0123456789abcdef01234567",
        "mode": "link",
        "south": {"faction": "clockwork", "player": "human", "claimed": true, "player_id": null},
        "north": {"faction": "blades", "player": "human", "claimed": true, "player_id": "00112233445566778899aabb"},
        "start": "rnbqkbnr/9/9/9/9/9/9/9/RNBQKBNR w",
        "position": "rnbqkbnr/9/9/9/9/9/9/9/RNBQKBNR w",
        "ply": 0,
        "turn": "south",
        "moves": [],
        "legal_moves": [],
        "status": "finished",
        "result": {"text": "north wins: resignation", "winner": "north", "reason": "resignation"},
        "rules_result": "ongoing",
        "days_per_move": null,
        "level": null,
        "deadline": null,
        "draw_offer": null,
        "created_at": 1_700_000_000_000_i64,
        "rated": false,
        "rematch": null,
        "synced": true,
        "assisted": false,
        "version": 7,
        "stage": null,
    })
}

fn check_game(body: &Value) -> Result<(), String> {
    verify(
        document(),
        "GET",
        "http://127.0.0.1:1/api/games/0123456789abcdef01234567",
        200,
        Some("application/json"),
        &body.to_string(),
    )
}

#[test]
fn every_documented_response_schema_compiles() {
    let doc = document();
    let mut n = 0;
    for (path, ops) in doc["paths"].as_object().unwrap() {
        for (method, op) in ops.as_object().unwrap() {
            for (status, resp) in op["responses"].as_object().unwrap_or(&serde_json::Map::new()) {
                for (mime, media) in resp["content"].as_object().unwrap_or(&serde_json::Map::new()) {
                    if let Some(schema) = media.get("schema") {
                        compile(doc, schema)
                            .unwrap_or_else(|e| panic!("{method} {path} {status} {mime}: {e}"));
                        n += 1;
                    }
                }
            }
        }
    }
    assert!(n > 100, "only {n} response schemas");
}

#[test]
fn a_right_response_passes_and_a_wrong_one_fails() {
    check_game(&game_view()).unwrap();
    // Each a plausible drift between the Worker and the document.
    let mut missing = game_view();
    missing.as_object_mut().unwrap().remove("synced");
    let mut extra = game_view();
    extra["secret"] = json!("token-hash");
    let mut wrong_type = game_view();
    wrong_type["ply"] = json!("0");
    let mut wrong_reason = game_view();
    wrong_reason["result"]["reason"] = json!("deadline");
    let mut wrong_status = game_view();
    wrong_status["status"] = json!("over");
    for (what, body) in [
        ("missing field", missing),
        ("extra field", extra),
        ("wrong type", wrong_type),
        ("undocumented reason", wrong_reason),
        ("undocumented status", wrong_status),
    ] {
        let e = check_game(&body).expect_err(what);
        assert!(e.contains("does not match"), "{what}: {e}");
    }
}

#[test]
fn undocumented_paths_methods_statuses_and_types_fail() {
    let doc = document();
    let err = |m: &str, url: &str, status: u16, ct: &str| {
        verify(doc, m, url, status, Some(ct), r#"{"error":"x","message":"y"}"#).unwrap_err()
    };
    // Any other path may only be a 404 Error, any other method a 405 Error.
    verify(
        doc,
        "GET",
        "/api/nowhere",
        404,
        Some("application/json"),
        r#"{"error":"not_found","message":"y"}"#,
    )
    .unwrap();
    verify(
        doc,
        "GET",
        "/api/games",
        405,
        Some("application/json"),
        r#"{"error":"method_not_allowed","message":"y"}"#,
    )
    .unwrap();
    assert!(err("GET", "/api/nowhere", 200, "application/json").contains("not documented"));
    assert!(err("DELETE", "/api/games/abc", 200, "application/json").contains("not documented"));
    let e =
        verify(doc, "GET", "/api/nowhere", 404, Some("application/json"), r#"{"error":"x"}"#).unwrap_err();
    assert!(e.contains("not an Error"), "{e}");
    assert!(err("GET", "/api/games/abc", 418, "application/json").contains("status 418"));
    assert!(err("GET", "/api/games/abc", 404, "text/html").contains("content type"));
    // An error body must be an Error.
    let e = verify(doc, "GET", "/api/games/abc", 404, Some("application/json"), r#"{"message":"y"}"#);
    assert!(e.unwrap_err().contains("does not match"));
    // Outside the API nothing is checked (static assets, stand-in services).
    verify(doc, "GET", "http://127.0.0.1:1/g/abc?x=1", 200, Some("text/html"), "<html>").unwrap();
}

#[test]
fn paths_match_their_most_literal_template() {
    let doc = document();
    assert_eq!(template(doc, "/api/challenges/ws"), Some("/api/challenges/ws"));
    assert_eq!(template(doc, "/api/challenges/abc/accept"), Some("/api/challenges/{id}/accept"));
    assert_eq!(template(doc, "/api/me/games"), Some("/api/me/games"));
    assert_eq!(template(doc, "/api/games/abc/moves"), Some("/api/games/{id}/moves"));
    assert_eq!(template(doc, "/api/games//moves"), None);
}

/// The document's finish reasons are the service's, spelt alike.
#[test]
fn finish_reasons_are_documented_as_the_service_writes_them() {
    let documented = &document()["components"]["schemas"]["FinishReason"]["enum"];
    let written: Vec<Value> = service::finish::FinishReason::ALL.iter().map(|r| json!(r.as_str())).collect();
    assert_eq!(documented, &Value::Array(written));
}

/// The document's error codes are the service's, in both directions: `Error.error`'s
/// enum is `ErrorCode::ALL` (so the response check refuses a code no answer carries and
/// accepts every code the Worker sends), its description names each code, and each
/// code's status is a documented response status of some operation (404 and 405 are
/// also the document's answer to any other path or method, as its description says).
#[test]
fn error_codes_are_documented_as_the_service_answers_them() {
    use service::ErrorCode;

    let doc = document();
    let error = &doc["components"]["schemas"]["Error"]["properties"]["error"];
    let documented: Vec<&str> =
        error["enum"].as_array().expect("Error.error has an enum").iter().filter_map(Value::as_str).collect();
    let sent: Vec<&str> = ErrorCode::ALL.iter().map(|c| c.as_str()).collect();
    let undocumented: Vec<&&str> = sent.iter().filter(|c| !documented.contains(c)).collect();
    let unknown: Vec<&&str> = documented.iter().filter(|c| !sent.contains(c)).collect();
    assert!(
        undocumented.is_empty() && unknown.is_empty(),
        "codes missing from the document's enum: {undocumented:?}; enum values that are no ErrorCode: {unknown:?}"
    );
    assert_eq!(documented, sent, "the enum lists the codes in ErrorCode::ALL's order");

    let description = error["description"].as_str().unwrap();
    for code in &sent {
        assert!(
            description.contains(&format!("`{code}`")),
            "Error.error's description does not name `{code}`"
        );
    }

    let mut statuses = std::collections::BTreeSet::new();
    for ops in doc["paths"].as_object().unwrap().values() {
        for op in ops.as_object().unwrap().values() {
            statuses.extend(op["responses"].as_object().into_iter().flat_map(|r| r.keys().cloned()));
        }
    }
    let info = doc["info"]["description"].as_str().unwrap();
    for &code in ErrorCode::ALL {
        let status = code.status().to_string();
        assert!(
            statuses.contains(&status) || info.contains(&format!("{status} `{code}`")),
            "`{code}` is answered with {status}, a status no operation documents"
        );
    }

    // What the real-runtime suites check every error body with: each code passes, any
    // other string fails.
    let check = |code: &str| {
        let body = json!({ "error": code, "message": "m" }).to_string();
        verify(doc, "GET", "/api/nowhere", 404, Some("application/json"), &body)
    };
    for code in &sent {
        check(code).unwrap_or_else(|e| panic!("{code}: {e}"));
    }
    assert!(check("not_a_code").unwrap_err().contains("not an Error"));
}

/// Counting bytes: deterministic "randomness" for the native answers below.
struct Counter(u8);

impl service::tokens::Random for Counter {
    fn fill(&mut self, buf: &mut [u8]) -> Result<(), service::ApiError> {
        for b in buf {
            self.0 = self.0.wrapping_add(37);
            *b = self.0;
        }
        Ok(())
    }
}

fn validate_component(name: &str, body: &Value) {
    let schema = json!({ "$ref": format!("#/components/schemas/{name}") });
    let v = compile(document(), &schema).unwrap();
    let errors: Vec<String> = v.iter_errors(body).map(|e| format!("{}: {e}", e.instance_path())).collect();
    assert!(errors.is_empty(), "{name}: {errors:?}\n{body}");
}

/// The service's typed answers, made natively (no runtime), are what the document says:
/// an `ai` game's creation, a move, the WebSocket message, a conflict and an error.
#[test]
fn the_service_answers_validate_against_the_document() {
    use service::game::{self, Ctx};
    use service::http::{ApiRequest, Method};
    use service::store::MemoryStore;

    let mut store = MemoryStore::default();
    let mut rng = Counter(0);
    let mut ai = service::ai::PlaceholderAi;
    let mut ctx = Ctx { now: 1_700_000_000_000, rng: &mut rng, ai: &mut ai, day_ms: 86_400_000 };
    let create = service::create::CreateGame::parse(
        br#"{"south": "clockwork", "north": "axiom", "mode": "ai", "seat": "north", "level": 2}"#,
    )
    .unwrap();
    let id = "0123456789abcdef01234567";
    let h = game::create(&mut store, id, &create, "https://example.com", &mut ctx);
    let created = h.response.json_body().unwrap().clone();
    assert_eq!(h.response.status, 201, "{created}");
    validate_component("CreateResponse", &created);
    assert!(created["ai_move"].is_string(), "the AI opened: {created}");

    let state = &created["state"];
    let mv = state["legal_moves"][0].as_str().unwrap();
    let req = |path: &str, body: &str| ApiRequest {
        method: Method::Post,
        path: path.to_owned(),
        bearer: created["token"].as_str().map(str::to_owned),
        body: body.as_bytes().to_vec(),
        origin: "https://example.com".into(),
        player: None,
    };
    let body = format!(r#"{{"move": "{mv}", "ply": {}}}"#, state["ply"]);
    let h = game::handle(&mut store, game::Route::Moves, &req("/api/games/x/moves", &body), &mut ctx);
    let moved = h.response.json_body().unwrap().clone();
    assert_eq!(h.response.status, 200, "{moved}");
    validate_component("MoveResponse", &moved);

    // Another move at the old ply: 409 `stale_ply`, with the current state.
    let other = state["legal_moves"][1].as_str().unwrap();
    let body = format!(r#"{{"move": "{other}", "ply": {}}}"#, state["ply"]);
    let h = game::handle(&mut store, game::Route::Moves, &req("/api/games/x/moves", &body), &mut ctx);
    assert_eq!(
        (h.response.status, h.response.json_body().unwrap()["error"].as_str()),
        (409, Some("stale_ply"))
    );
    validate_component("Error", &h.response.json_body().unwrap());
    assert!(h.response.json_body().unwrap()["state"].is_object());

    let rec = store.record.clone().unwrap();
    let view = rec.view(&rec.replay().unwrap());
    let msg = serde_json::to_value(service::model::StateMessage { state: view }).unwrap();
    assert_eq!(msg["type"], "state");
    validate_component("StateMessage", &msg);

    let h = game::handle(&mut store, game::Route::Resign, &req("/api/games/x/resign", ""), &mut ctx);
    let resigned = h.response.json_body().unwrap().clone();
    validate_component("StateEnvelope", &resigned);
    assert_eq!(resigned["state"]["result"]["reason"], "resignation");
}

/// The lessons' answers (issue 31, item 3): every built-in lesson listed validates, on
/// both routes, and a refused lesson's 404 is documented.
#[test]
fn lesson_progress_answers_validate_against_the_document() {
    let all = service::lessons::Lessons { completed: service::lessons::ids().to_vec() };
    let body = serde_json::to_value(&all).unwrap();
    validate_component("LessonProgress", &body);
    let json = Some("application/json");
    verify(document(), "GET", "http://127.0.0.1:1/api/me/lessons", 200, json, &body.to_string()).unwrap();
    verify(document(), "PUT", "http://127.0.0.1:1/api/me/lessons/cog", 200, json, &body.to_string()).unwrap();
    let refused = service::lessons::find("nope").unwrap_err();
    let refused = serde_json::to_string(&refused.body()).unwrap();
    verify(document(), "PUT", "http://127.0.0.1:1/api/me/lessons/nope", 404, json, &refused).unwrap();
    assert!(verify(
        document(),
        "POST",
        "http://127.0.0.1:1/api/me/lessons/cog",
        200,
        json,
        &body.to_string()
    )
    .is_err());
}

/// The list answers, made natively: `GET /api/me/games` from index rows (an ai game, a
/// finished link game, one waiting for its invite), the lobby's WebSocket message and
/// `GET /api/challenges`.
#[test]
fn list_answers_validate_against_the_document() {
    use service::challenge::{ChallengeList, ChallengeView, ChallengesMessage, FactionChoice, Poster};
    use service::create::SeatChoice;
    use service::me_games::{list, Row};

    let me = "00112233445566778899aabb";
    let you = "aabbccddeeff001122334455";
    let row = |id: &str, mode: &str| Row {
        id: id.into(),
        mode: mode.into(),
        south_faction: "clockwork".into(),
        north_faction: "axiom".into(),
        south_player: Some(me.into()),
        north_player: (mode == "link").then(|| you.into()),
        north_name: (mode == "link").then(|| "Ada".into()),
        created_at: 1_700_000_000_000.0,
        ..Row::default()
    };
    let rows = vec![
        row("0123456789abcdef01234567", "ai"),
        Row {
            result: Some("north wins: time forfeit".into()),
            winner: Some("north".into()),
            reason: Some("time forfeit".into()),
            finished_at: Some(1_700_000_100_000.0),
            days_per_move: Some(3.0),
            ..row("0123456789abcdef01234568", "link")
        },
        Row {
            seated: Some(0.0),
            north_player: None,
            turn: Some("south".into()),
            ..row("0123456789abcdef01234569", "link")
        },
    ];
    let games = serde_json::to_value(list(rows, me)).unwrap();
    assert_eq!(games["games"].as_array().unwrap().len(), 3, "{games}");
    assert_eq!(games["games"][2]["reason"], "time forfeit", "{games}");
    let schema = &document()["paths"]["/api/me/games"]["get"]["responses"]["200"]["content"]
        ["application/json"]["schema"];
    let errors: Vec<String> =
        compile(document(), schema).unwrap().iter_errors(&games).map(|e| e.to_string()).collect();
    assert!(errors.is_empty(), "{errors:?}\n{games}");

    let challenge = ChallengeView {
        id: "0123456789abcdef01234567".into(),
        poster: Poster { id: me.into(), name: None },
        south: FactionChoice::Random,
        north: FactionChoice::Blades,
        seat: SeatChoice::Random,
        days_per_move: Some(2),
        rated: false,
        created_at: 1_700_000_000_000,
        expires_at: 1_700_086_400_000,
    };
    let msg = serde_json::to_value(ChallengesMessage { challenges: vec![challenge.clone()] }).unwrap();
    assert_eq!(msg["type"], "challenges");
    validate_component("ChallengesMessage", &msg);
    let listed = serde_json::to_value(ChallengeList { challenges: vec![challenge] }).unwrap();
    let schema = &document()["paths"]["/api/challenges"]["get"]["responses"]["200"]["content"]
        ["application/json"]["schema"];
    assert!(compile(document(), schema).unwrap().is_valid(&listed), "{listed}");
}
