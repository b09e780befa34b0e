//! Every response a real-runtime suite sees is checked against `src/openapi.json`: the
//! path template and method must be documented, the status must be one of the operation's
//! responses, and a JSON body must validate against that response's schema (JSON Schema,
//! `$ref`s resolved). A mismatch panics in the test that saw it, so the document cannot
//! drift from what the Worker really answers.
//!
//! OpenAPI 3.0 schemas are JSON Schema draft 4 with a few changes; [`to_json_schema`]
//! undoes the one that matters for validation (`nullable`).

use std::collections::HashMap;
use std::sync::{Arc, Mutex, OnceLock};

use serde_json::{json, Map, Value};

/// The document, as the tests' source tree has it (the Worker serves the same file).
pub fn document() -> &'static Value {
    static DOC: OnceLock<Value> = OnceLock::new();
    DOC.get_or_init(|| {
        let text = std::fs::read_to_string(super::root().join("src/openapi.json")).unwrap();
        serde_json::from_str(&text).unwrap()
    })
}

/// Checks one response (see the module's doc); `url` may be absolute and carry a query.
/// Requests outside `/api/` (static assets, the stand-in services) are not checked.
pub fn check(method: &str, url: &str, status: u16, content_type: Option<&str>, body: &str) {
    if let Err(e) = verify(document(), method, url, status, content_type, body) {
        panic!("OpenAPI mismatch: {method} {url} → {status}: {e}\nbody: {}", clip(body));
    }
}

fn clip(s: &str) -> String {
    s.chars().take(2000).collect()
}

/// The path of a URL, without scheme, host or query.
fn path_of(url: &str) -> &str {
    let rest = url.split_once("://").map_or(url, |(_, r)| r.find('/').map_or("/", |i| &r[i..]));
    rest.split(['?', '#']).next().unwrap_or(rest)
}

/// The documented path template matching `path`, preferring the one with the most literal
/// segments (`/api/challenges/ws` over `/api/challenges/{id}`).
pub fn template<'a>(doc: &'a Value, path: &str) -> Option<&'a str> {
    let segs: Vec<&str> = path.split('/').collect();
    doc["paths"]
        .as_object()?
        .keys()
        .filter_map(|t| {
            let ts: Vec<&str> = t.split('/').collect();
            if ts.len() != segs.len() {
                return None;
            }
            let mut literal = 0;
            for (a, b) in ts.iter().zip(&segs) {
                if a.starts_with('{') && a.ends_with('}') {
                    if b.is_empty() {
                        return None;
                    }
                } else if a == b {
                    literal += 1;
                } else {
                    return None;
                }
            }
            Some((literal, t.as_str()))
        })
        .max_by_key(|(literal, _)| *literal)
        .map(|(_, t)| t)
}

/// The check itself, on any document (the unit test feeds it a wrong response).
pub fn verify(
    doc: &Value,
    method: &str,
    url: &str,
    status: u16,
    content_type: Option<&str>,
    body: &str,
) -> Result<(), String> {
    let path = path_of(url);
    if !path.starts_with("/api/") {
        return Ok(());
    }
    // What the document cannot list: any other path under /api/ is a 404, any other
    // method on a documented path a 405, each with an `Error` body.
    let Some(t) = template(doc, path) else {
        return undocumented(doc, 404, status, content_type, body)
            .map_err(|e| format!("the path {path} is not documented, and {e}"));
    };
    let op = &doc["paths"][t][method.to_ascii_lowercase()];
    if !op.is_object() {
        return undocumented(doc, 405, status, content_type, body)
            .map_err(|e| format!("{method} {t} is not documented, and {e}"));
    }
    let responses = &op["responses"];
    let code = status.to_string();
    let range = format!("{}XX", status / 100);
    let resp = [code.as_str(), range.as_str(), "default"]
        .into_iter()
        .find_map(|k| responses.get(k))
        .ok_or_else(|| format!("status {status} is not documented for {method} {t}"))?;
    let Some(content) = resp.get("content").and_then(Value::as_object) else {
        // Documented without a body (101, 302): nothing to validate.
        return Ok(());
    };
    let mime = content_type.unwrap_or_default().split(';').next().unwrap_or_default().trim().to_owned();
    let media = content.get(&mime).ok_or_else(|| {
        format!(
            "content type {mime:?} is not documented for {method} {t} {status} (documented: {:?})",
            content.keys().collect::<Vec<_>>()
        )
    })?;
    if mime != "application/json" {
        return Ok(());
    }
    let Some(schema) = media.get("schema") else { return Ok(()) };
    let instance: Value = serde_json::from_str(body).map_err(|e| format!("the body is not JSON: {e}"))?;
    let validator = validator(doc, &format!("{t} {method} {status}"), schema)?;
    let errors: Vec<String> = validator
        .iter_errors(&instance)
        .map(|e| format!("at '{}': {e}", e.instance_path()))
        .take(8)
        .collect();
    if errors.is_empty() {
        Ok(())
    } else {
        Err(format!("the body does not match the documented schema:\n  {}", errors.join("\n  ")))
    }
}

/// The answer to an undocumented path (404) or method (405): that status and an `Error`.
fn undocumented(
    doc: &Value,
    want: u16,
    status: u16,
    content_type: Option<&str>,
    body: &str,
) -> Result<(), String> {
    if status != want {
        return Err(format!("only {want} is expected there, not {status}"));
    }
    if !content_type.unwrap_or_default().starts_with("application/json") {
        return Err(format!("its {want} is not JSON ({content_type:?})"));
    }
    let instance: Value =
        serde_json::from_str(body).map_err(|e| format!("its {want} body is not JSON: {e}"))?;
    let schema = json!({ "$ref": "#/components/schemas/Error" });
    let errors: Vec<String> = validator(doc, &format!("undocumented {want}"), &schema)?
        .iter_errors(&instance)
        .map(|e| format!("at '{}': {e}", e.instance_path()))
        .collect();
    if errors.is_empty() {
        Ok(())
    } else {
        Err(format!("its {want} body is not an Error: {}", errors.join("; ")))
    }
}

/// A compiled validator for one response schema, cached per document and response.
fn validator(doc: &Value, key: &str, schema: &Value) -> Result<Arc<jsonschema::Validator>, String> {
    type Cache = Mutex<HashMap<(usize, String), Arc<jsonschema::Validator>>>;
    static CACHE: OnceLock<Cache> = OnceLock::new();
    let cache = CACHE.get_or_init(Cache::default);
    // The document's address tells the real document from a test's own.
    let k = (std::ptr::from_ref(doc) as usize, key.to_owned());
    if let Some(v) = cache.lock().unwrap().get(&k) {
        return Ok(v.clone());
    }
    let v = Arc::new(compile(doc, schema)?);
    cache.lock().unwrap().insert(k, v.clone());
    Ok(v)
}

/// The response schema as one draft 4 document: the schema itself at the root and the
/// document's components beside it, so `#/components/schemas/X` resolves.
pub fn compile(doc: &Value, schema: &Value) -> Result<jsonschema::Validator, String> {
    let mut root = match to_json_schema(schema) {
        Value::Object(m) => m,
        other => return Err(format!("a response schema is not an object: {other}")),
    };
    root.insert("components".to_owned(), json!({ "schemas": to_json_schema(&doc["components"]["schemas"]) }));
    jsonschema::draft4::new(&Value::Object(root))
        .map_err(|e| format!("the documented schema does not compile: {e}"))
}

/// OpenAPI 3.0 schema → JSON Schema: `nullable: true` becomes `null` among the allowed
/// types (and enum values); everything else is draft 4 already.
pub fn to_json_schema(v: &Value) -> Value {
    match v {
        Value::Array(a) => Value::Array(a.iter().map(to_json_schema).collect()),
        Value::Object(m) => {
            let mut out: Map<String, Value> = m.iter().map(|(k, v)| (k.clone(), to_json_schema(v))).collect();
            if out.remove("nullable") == Some(Value::Bool(true)) {
                if let Some(Value::Array(e)) = out.get_mut("enum") {
                    if !e.contains(&Value::Null) {
                        e.push(Value::Null);
                    }
                }
                match out.remove("type") {
                    Some(Value::String(t)) => {
                        out.insert("type".to_owned(), json!([t, "null"]));
                    }
                    Some(other) => {
                        out.insert("type".to_owned(), other);
                    }
                    None => return json!({ "anyOf": [{ "type": "null" }, Value::Object(out)] }),
                }
            }
            Value::Object(out)
        }
        other => other.clone(),
    }
}
