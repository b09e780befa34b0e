//! The API's request and response in plain Rust: what the Worker glue converts from and
//! to `worker::Request` / `worker::Response`.

use std::borrow::Cow;

use serde::de::{self, DeserializeOwned, MapAccess, SeqAccess, Visitor};
use serde::{Deserialize, Deserializer, Serialize};
use serde_json::Value;

use crate::error::{ApiError, ErrorBody, ErrorCode, GENERIC_MESSAGE};

/// Bodies above this are refused with 413 before parsing.
pub const MAX_BODY_BYTES: usize = 8 * 1024;

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Method {
    Get,
    Post,
    /// Only `PUT /api/me/lessons/{id}` takes it (an idempotent record).
    Put,
    Other,
}

#[derive(Clone, Debug)]
pub struct ApiRequest {
    pub method: Method,
    /// The URL path, e.g. `/api/games/abc/moves`.
    pub path: String,
    /// The `Authorization: Bearer` token, if any.
    pub bearer: Option<String>,
    pub body: Vec<u8>,
    /// `https://host` of the request, for invite links.
    pub origin: String,
    /// The player of the request's session, as the Worker resolved it (never taken from
    /// the client: the Worker strips and sets the header that carries it).
    pub player: Option<PlayerRef>,
}

impl ApiRequest {
    /// A bare `GET` (no path, body or credential): a read of the game's state.
    pub fn get() -> ApiRequest {
        ApiRequest {
            method: Method::Get,
            path: String::new(),
            bearer: None,
            body: Vec::new(),
            origin: String::new(),
            player: None,
        }
    }
}

/// A player as a request's session identifies it.
#[derive(Clone, Debug, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct PlayerRef {
    pub id: String,
    /// Signed in with Discord (needed for rated games).
    pub linked: bool,
}

/// A response's body. JSON is only ever made from a typed value: [`ApiResponse::of`]
/// serialises it once, and an error stays an [`ApiError`] until it is written.
#[derive(Clone, Debug, PartialEq)]
pub enum Body {
    /// A JSON document, as [`ApiResponse::of`] serialised it.
    Json(String),
    /// An error answer (`Error` in the OpenAPI document, see [`ApiError::body`]), kept
    /// typed so that [`ApiResponse::for_client`] redacts it by its code.
    Error(Box<ApiError>),
    Text(String),
}

#[derive(Clone, Debug, PartialEq)]
pub struct ApiResponse {
    pub status: u16,
    pub body: Body,
    pub retry_after: Option<u32>,
}

impl ApiResponse {
    pub fn text(status: u16, s: String) -> ApiResponse {
        ApiResponse { status, body: Body::Text(s), retry_after: None }
    }

    /// A typed body, serialised once (a body that cannot be is a 500, never a panic).
    pub fn of<T: Serialize + ?Sized>(status: u16, body: &T) -> ApiResponse {
        match serde_json::to_string(body) {
            Ok(json) => ApiResponse { status, body: Body::Json(json), retry_after: None },
            Err(e) => ApiResponse::error(&ApiError::internal(format!("response not serialisable: {e}"))),
        }
    }

    /// An answer another part of the API wrote (a game object's, which the Worker passes
    /// on): an `Error` body is read back into its [`ApiError`], so that its code still
    /// decides what a client sees ([`ApiResponse::for_client`]); any other JSON is kept as
    /// the text it is. Not JSON at all: the error of reading it.
    pub fn relayed(status: u16, json: String) -> Result<ApiResponse, serde_json::Error> {
        /// An `Error` body as written.
        #[derive(serde::Deserialize)]
        #[serde(deny_unknown_fields)]
        struct Written {
            error: ErrorCode,
            message: String,
            #[serde(default)]
            state: Option<Box<crate::model::GameView>>,
        }
        serde_json::from_str::<serde::de::IgnoredAny>(&json)?;
        let body = match serde_json::from_str::<Written>(&json) {
            Ok(w) if status >= 400 => {
                let e = ApiError { state: w.state, ..ApiError::new(w.error, w.message) };
                Body::Error(Box::new(e))
            }
            _ => Body::Json(json),
        };
        Ok(ApiResponse { status, body, retry_after: None })
    }

    /// The answer to an error: its code's status, its `Error` body, its `Retry-After`.
    pub fn error(e: &ApiError) -> ApiResponse {
        ApiResponse { status: e.status(), body: Body::Error(Box::new(e.clone())), retry_after: e.retry_after }
    }

    /// The answer as a client may see it, and the line to log. A server-side failure (5xx,
    /// see [`crate::ErrorCode::message_is_public`]) keeps its status and code but its message,
    /// which can carry storage, network or internal text, is logged and replaced by
    /// [`crate::error::GENERIC_MESSAGE`] (and a state is dropped). Everything else passes
    /// unchanged. The Worker calls this on every answer, its own and its objects'.
    pub fn for_client(self) -> (ApiResponse, Option<String>) {
        match self.body {
            Body::Error(e) if !e.code.message_is_public() => {
                let log = e.to_string();
                let redacted = ApiError { message: GENERIC_MESSAGE.to_owned(), state: None, ..*e };
                (ApiResponse { body: Body::Error(Box::new(redacted)), ..self }, Some(log))
            }
            body => (ApiResponse { body, ..self }, None),
        }
    }

    /// The body as it is written: its `Content-Type` and text.
    pub fn content(&self) -> (&'static str, Cow<'_, str>) {
        match &self.body {
            Body::Json(json) => (JSON, Cow::Borrowed(json)),
            Body::Error(e) => (JSON, Cow::Owned(error_json(e))),
            Body::Text(text) => ("text/plain; charset=utf-8", Cow::Borrowed(text)),
        }
    }

    /// The JSON body parsed, to inspect it (tests); `None` for a text body.
    pub fn json_body(&self) -> Option<Value> {
        let (content_type, text) = self.content();
        if content_type == JSON {
            serde_json::from_str(&text).ok()
        } else {
            None
        }
    }
}

const JSON: &str = "application/json";

/// An error's `Error` JSON. Its parts always serialise (a code, strings, a game view); if
/// the view ever did not, the error is still written, without it.
fn error_json(e: &ApiError) -> String {
    serde_json::to_string(&e.body())
        .or_else(|_| serde_json::to_string(&ErrorBody { state: None, ..e.body() }))
        .unwrap_or_default()
}

/// An empty JSON object, `{}`: the answer that has nothing to say (the alarm's, when no
/// timer was due).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize)]
pub struct Empty {}

impl From<Result<ApiResponse, ApiError>> for ApiResponse {
    fn from(r: Result<ApiResponse, ApiError>) -> ApiResponse {
        r.unwrap_or_else(|e| ApiResponse::error(&e))
    }
}

/// The body of a request that takes none (resign, abort, take back): nothing, or an empty
/// JSON object (what many clients send by default). Anything else is refused, so a
/// malformed request changes nothing.
pub fn parse_empty(body: &[u8]) -> Result<(), ApiError> {
    #[derive(Deserialize)]
    #[serde(deny_unknown_fields)]
    struct NoFields {}
    if body.iter().all(u8::is_ascii_whitespace) {
        return Ok(());
    }
    parse_json::<NoFields>(body).map(|NoFields {}| ())
}

/// `GET /api/health` (`Health`): the Worker is up.
#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Serialize)]
pub struct Health {
    pub ok: bool,
}

/// Parses a JSON body into `T`, with errors that name the problem.
pub fn parse_json<T: DeserializeOwned>(body: &[u8]) -> Result<T, ApiError> {
    if body.len() > MAX_BODY_BYTES {
        return Err(too_large());
    }
    if body.iter().all(u8::is_ascii_whitespace) {
        return Err(ApiError::new(ErrorCode::InvalidJson, "the request needs a JSON body"));
    }
    // Two steps so the error says which is wrong: the JSON itself, or its shape. (serde
    // alone would also read a struct from an array, and calls some type errors syntax.)
    let value = unique_json(body).map_err(|e| match e.classify() {
        // The one data error a plain read can give: a key repeated (`UniqueKeys`).
        serde_json::error::Category::Data => {
            ApiError::new(ErrorCode::InvalidBody, format!("request body: {e}"))
        }
        _ => ApiError::new(ErrorCode::InvalidJson, format!("request body is not JSON: {e}")),
    })?;
    if !value.is_object() {
        return Err(ApiError::new(ErrorCode::InvalidBody, "request body must be a JSON object"));
    }
    serde_json::from_value(value)
        .map_err(|e| ApiError::new(ErrorCode::InvalidBody, format!("request body: {e}")))
}

/// JSON read as a [`Value`], refusing an object that repeats a key (at any depth, keys
/// compared after unescaping). A plain read into a `Value` keeps the last of two equal
/// keys without a word, and RFC 8259 leaves what they mean to the reader: one client or
/// proxy may act on the first while the API acted on the last. The error is a data error
/// (`Category::Data`) naming the key.
pub fn unique_json(bytes: &[u8]) -> Result<Value, serde_json::Error> {
    serde_json::from_slice::<UniqueKeys>(bytes).map(|u| u.0)
}

/// A [`Value`] read by [`UniqueKeysVisitor`]: the same value `Value` reads, or the error
/// of its first repeated key.
struct UniqueKeys(Value);

impl<'de> Deserialize<'de> for UniqueKeys {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<UniqueKeys, D::Error> {
        d.deserialize_any(UniqueKeysVisitor).map(UniqueKeys)
    }
}

struct UniqueKeysVisitor;

impl<'de> Visitor<'de> for UniqueKeysVisitor {
    type Value = Value;

    fn expecting(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("any JSON value")
    }

    fn visit_bool<E: de::Error>(self, v: bool) -> Result<Value, E> {
        Ok(Value::Bool(v))
    }

    fn visit_i64<E: de::Error>(self, v: i64) -> Result<Value, E> {
        Ok(Value::from(v))
    }

    fn visit_u64<E: de::Error>(self, v: u64) -> Result<Value, E> {
        Ok(Value::from(v))
    }

    fn visit_f64<E: de::Error>(self, v: f64) -> Result<Value, E> {
        Ok(Value::from(v))
    }

    fn visit_str<E: de::Error>(self, v: &str) -> Result<Value, E> {
        Ok(Value::String(v.to_owned()))
    }

    fn visit_string<E: de::Error>(self, v: String) -> Result<Value, E> {
        Ok(Value::String(v))
    }

    fn visit_unit<E: de::Error>(self) -> Result<Value, E> {
        Ok(Value::Null)
    }

    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Value, A::Error> {
        let mut items = Vec::new();
        while let Some(UniqueKeys(v)) = seq.next_element()? {
            items.push(v);
        }
        Ok(Value::Array(items))
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Value, A::Error> {
        let mut object = serde_json::Map::new();
        while let Some(key) = map.next_key::<String>()? {
            if object.contains_key(&key) {
                // Cut, as a key can be most of an 8 KiB body.
                let shown: String = key.chars().take(40).collect();
                return Err(de::Error::custom(format_args!("duplicate key {shown:?}")));
            }
            let UniqueKeys(v) = map.next_value()?;
            object.insert(key, v);
        }
        Ok(Value::Object(object))
    }
}

pub fn too_large() -> ApiError {
    ApiError::new(ErrorCode::BodyTooLarge, format!("request bodies are limited to {MAX_BODY_BYTES} bytes"))
}

/// The bearer token of an `Authorization` header value.
pub fn bearer(header: Option<&str>) -> Option<String> {
    let h = header?.trim();
    let (scheme, token) = h.split_once(' ')?;
    (scheme.eq_ignore_ascii_case("bearer") && !token.trim().is_empty()).then(|| token.trim().to_owned())
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;

    #[test]
    fn server_failures_lose_their_detail_but_keep_their_code() {
        let e = ApiError::new(ErrorCode::StorageUnavailable, "D1_ERROR: no such table: players at line 3");
        let (r, log) = ApiResponse::error(&e).for_client();
        let body = r.json_body().unwrap();
        assert_eq!((r.status, body["error"].as_str()), (503, Some("storage_unavailable")));
        assert_eq!(body["message"], crate::error::GENERIC_MESSAGE);
        assert!(!body.to_string().contains("D1") && !body.to_string().contains("players"));
        assert!(log.unwrap().contains("no such table: players"), "the detail is logged");
        let (r, _) = ApiResponse::error(&ApiError::internal("stored record unreadable: x")).for_client();
        assert_eq!(r.json_body().unwrap()["message"], crate::error::GENERIC_MESSAGE);
        // Written for players: unchanged, Retry-After kept.
        let busy = ApiError::new(ErrorCode::ServerBusy, "too many").with_retry_after(60);
        let (r, log) = ApiResponse::error(&busy).for_client();
        assert_eq!(
            (r.json_body().unwrap()["message"].as_str(), r.retry_after, log),
            (Some("too many"), Some(60), None)
        );
        // A 4xx names the problem.
        let bad = ApiError::new(ErrorCode::InvalidJson, "expected value at line 1");
        assert_eq!(ApiResponse::error(&bad).for_client().0, ApiResponse::error(&bad));
        // Text bodies and successes pass.
        let ok = ApiResponse::text(200, "record".into());
        assert_eq!(ok.clone().for_client(), (ok, None));
        let ok = ApiResponse::of(200, &Health { ok: true });
        assert_eq!(ok.clone().for_client(), (ok, None));
    }

    #[test]
    fn relayed_answers_pass_as_written_and_errors_stay_typed() {
        let created = r#"{"id":"x","token":"t"}"#;
        let r = ApiResponse::relayed(201, created.to_owned()).unwrap();
        assert_eq!((r.status, r.body), (201, Body::Json(created.to_owned())));
        let written = ApiResponse::error(&ApiError::new(ErrorCode::NotYourTurn, "it is north's turn"));
        let r = ApiResponse::relayed(409, written.content().1.into_owned()).unwrap();
        assert_eq!(r, written);
        // A relayed server failure is redacted by its code, like the Worker's own.
        let failed = r#"{"error":"storage_unavailable","message":"D1_ERROR: x"}"#;
        let (r, log) = ApiResponse::relayed(503, failed.to_owned()).unwrap().for_client();
        assert_eq!(r.json_body().unwrap()["message"], GENERIC_MESSAGE);
        assert!(log.unwrap().contains("D1_ERROR"));
        assert!(ApiResponse::relayed(500, "Internal Server Error".to_owned()).is_err());
    }

    #[derive(Debug, serde::Deserialize)]
    #[serde(deny_unknown_fields)]
    struct Sub {
        endpoint: String,
        keys: std::collections::BTreeMap<String, String>,
    }

    #[test]
    fn a_repeated_key_is_refused_at_any_depth_naming_it() {
        let refused = |body: &str, key: &str| {
            let e = parse_json::<Sub>(body.as_bytes()).unwrap_err();
            assert_eq!((e.status(), e.code), (400, ErrorCode::InvalidBody), "{body}: {e:?}");
            assert!(e.message.contains(&format!("duplicate key \"{key}\"")), "{body}: {}", e.message);
        };
        refused(r#"{"endpoint":"a","endpoint":"b","keys":{}}"#, "endpoint");
        // In a nested map, which a plain read kept the last of; equal once unescaped.
        refused(r#"{"endpoint":"a","keys":{"auth":"x","p256dh":"y","auth":"z"}}"#, "auth");
        refused(r#"{"endpoint":"a","keys":{},"\u0065ndpoint":"b"}"#, "endpoint");
        // Inside an array, and in a value the type never reads.
        let v = unique_json(br#"{"a":[1,{"b":1,"b":2}]}"#).unwrap_err();
        assert!(v.is_data() && v.to_string().contains("duplicate key \"b\""), "{v}");
        // A long key is named cut.
        let long = "k".repeat(500);
        let e = parse_json::<Sub>(format!(r#"{{"{long}":1,"{long}":2}}"#).as_bytes()).unwrap_err();
        assert!(
            e.message.contains(&format!("\"{}\"", "k".repeat(40))) && e.message.len() < 200,
            "{}",
            e.message
        );
    }

    #[test]
    fn unique_json_reads_what_a_plain_read_does() {
        for text in [
            r#"{"endpoint":"a","keys":{"auth":"x","p256dh":"y"}}"#,
            r#"[1,-2,3.5,18446744073709551615,-9223372036854775808,1e300,"\u00e9\n",true,false,null,[],{}]"#,
            r#"{"a":{"a":{"a":1}},"b":[{"a":1},{"a":2}]}"#,
            "  \"x\"  ",
        ] {
            let plain: Value = serde_json::from_str(text).unwrap();
            assert_eq!(unique_json(text.as_bytes()).unwrap(), plain, "{text}");
        }
        let sub: Sub = parse_json(br#"{"endpoint":"a","keys":{"auth":"x"}}"#).unwrap();
        assert_eq!((sub.endpoint.as_str(), sub.keys.len()), ("a", 1));
        // Syntax stays a syntax error (invalid_json), a shape error an invalid_body.
        for (bad, code) in [
            (&b"{\"a\":1,}"[..], ErrorCode::InvalidJson),
            (b"{\"a\" 1}", ErrorCode::InvalidJson),
            (br#"{"endpoint":1,"keys":{}}"#, ErrorCode::InvalidBody),
            (b"[]", ErrorCode::InvalidBody),
        ] {
            assert_eq!(parse_json::<Sub>(bad).unwrap_err().code, code, "{}", String::from_utf8_lossy(bad));
        }
        // Too deep is refused as before (serde_json's recursion limit), not a stack overflow.
        let deep = format!("{}{}", "[".repeat(10_000), "]".repeat(10_000));
        assert!(unique_json(deep.as_bytes()).unwrap_err().is_syntax());
    }

    #[test]
    fn bodies_are_written_once_from_typed_values() {
        let r = ApiResponse::of(201, &Health { ok: true });
        assert_eq!((r.status, r.body.clone()), (201, Body::Json(r#"{"ok":true}"#.into())));
        assert_eq!(r.content(), ("application/json", r#"{"ok":true}"#.into()));
        assert_eq!(ApiResponse::of(200, &Empty {}).content().1, "{}");
        let e = ApiResponse::error(&ApiError::new(ErrorCode::NotYourTurn, "it is north's turn"));
        assert_eq!(e.status, 409, "the code's status");
        assert_eq!(e.content().1, r#"{"error":"not_your_turn","message":"it is north's turn"}"#);
        assert_eq!(e.json_body().unwrap()["error"], "not_your_turn");
        let t = ApiResponse::text(200, "south wins".into());
        assert_eq!(t.content(), ("text/plain; charset=utf-8", "south wins".into()));
        assert_eq!(t.json_body(), None);
    }
}
