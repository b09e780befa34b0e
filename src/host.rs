//! The runtime bound to the service's [`Host`] port: D1, Durable Object stubs by name,
//! `fetch`, vars and secrets, the clock, `crypto.getRandomValues` and the console; and a
//! `worker` request as the service's [`Incoming`].

use std::time::Duration;

use futures_util::future::Either;
use service::api::Incoming;
use service::host::{Host, Namespace, Outgoing, Reply};
use service::http::{too_large, Method, MAX_BODY_BYTES};
use service::tokens::Random;
use service::{ApiError, ErrorCode};
use worker::js_sys::Uint8Array;
use worker::{Env, Request, RequestInit};

use crate::d1::D1;

/// How long an outgoing call may take, its answer included. Discord and push services
/// answer in well under a second; ten leaves room for a slow moment without letting a
/// server that never answers keep the event open.
pub const FETCH_TIMEOUT: Duration = Duration::from_secs(10);

/// Randomness from the platform (crypto.getRandomValues through getrandom).
pub struct OsRandom;

impl Random for OsRandom {
    fn fill(&mut self, buf: &mut [u8]) -> std::result::Result<(), ApiError> {
        getrandom::fill(buf).map_err(|e| {
            ApiError::new(ErrorCode::NoRandomness, format!("secure randomness is unavailable: {e}"))
        })
    }
}

/// A D1 (or other storage binding) failure: 503 `storage_unavailable`. Its detail (SQL,
/// binding text) goes to the log only: the client sees the generic message.
pub fn storage(e: worker::Error) -> ApiError {
    ApiError::new(ErrorCode::StorageUnavailable, e.to_string())
}

pub fn now_ms() -> i64 {
    worker::Date::now().as_millis() as i64
}

/// The Worker's environment as the service's host.
pub struct WorkerHost<'a> {
    pub env: &'a Env,
    db: D1,
}

impl<'a> WorkerHost<'a> {
    /// 503 `storage_unavailable` without the D1 binding.
    pub fn new(env: &'a Env) -> Result<Self, ApiError> {
        let db = env.d1("DB").map_err(storage)?;
        Ok(WorkerHost { env, db: D1(db) })
    }
}

fn out_method(m: Method) -> worker::Method {
    match m {
        Method::Get => worker::Method::Get,
        Method::Put => worker::Method::Put,
        _ => worker::Method::Post,
    }
}

impl Host for WorkerHost<'_> {
    type Db = D1;

    fn db(&self) -> &D1 {
        &self.db
    }

    fn var(&self, name: &str) -> Option<String> {
        let secret = self.env.secret(name).map(|v| v.to_string());
        secret.or_else(|_| self.env.var(name).map(|v| v.to_string())).ok()
    }

    fn now_ms(&self) -> i64 {
        now_ms()
    }

    fn random(&self, buf: &mut [u8]) -> Result<(), ApiError> {
        OsRandom.fill(buf)
    }

    fn log(&self, line: &str) {
        worker::console_error!("{line}");
    }

    async fn object(
        &self,
        ns: Namespace,
        name: &str,
        path: &str,
        body: String,
        headers: &[(&str, String)],
    ) -> Result<(u16, String), String> {
        let (binding, host) = match ns {
            Namespace::Games => ("GAMES", "game"),
            Namespace::Limiter => ("LIMITER", "limiter"),
            Namespace::Lobby => ("LOBBY", "lobby"),
        };
        let sent = async {
            let mut init = RequestInit::new();
            init.with_method(worker::Method::Post);
            if !body.is_empty() {
                init.with_body(Some(body.into()));
            }
            let req = Request::new_with_init(&format!("https://{host}{path}"), &init)?;
            req.headers().set("Content-Type", "application/json")?;
            for (k, v) in headers {
                req.headers().set(k, v)?;
            }
            let stub = self.env.durable_object(binding)?.id_from_name(name)?.get_stub()?;
            let mut resp = stub.fetch_with_request(req).await?;
            // Read to the end: an unread body keeps the event open.
            Ok::<_, worker::Error>((resp.status_code(), resp.text().await?))
        };
        sent.await.map_err(|e| e.to_string())
    }

    /// An outgoing call (a push service, Discord), abandoned after [`FETCH_TIMEOUT`]
    /// with its answer unread: a server that never answers fails the call instead of
    /// holding the event (and with sign-in, the browser) open.
    async fn fetch(&self, out: Outgoing) -> Result<Reply, String> {
        let controller = worker::AbortController::default();
        let signal = controller.signal();
        let sent = async {
            let mut init = RequestInit::new();
            init.with_method(out_method(out.method));
            if out.method == Method::Post {
                init.with_body(Some(Uint8Array::from(out.body.as_slice()).into()));
            }
            let req = Request::new_with_init(&out.url, &init)?;
            for (k, v) in &out.headers {
                req.headers().set(k, v)?;
            }
            let mut resp = worker::Fetch::Request(req).send_with_signal(&signal).await?;
            Ok::<_, worker::Error>((resp.status_code(), resp.bytes().await?))
        };
        #[cfg(feature = "test-hooks")]
        let limit = crate::config::fetch_timeout(self.env).unwrap_or(FETCH_TIMEOUT);
        #[cfg(not(feature = "test-hooks"))]
        let limit = FETCH_TIMEOUT;
        let (sent, timeout) = (std::pin::pin!(sent), worker::Delay::from(limit));
        match futures_util::future::select(sent, timeout).await {
            Either::Left((sent, _)) => sent.map_err(|e| e.to_string()),
            Either::Right(((), _)) => {
                controller.abort();
                Err(format!("no answer within {} ms", limit.as_millis()))
            }
        }
    }

    fn with_network(&self) -> bool {
        cfg!(feature = "net")
    }
}

/// A request's header.
pub fn header(req: &Request, name: &str) -> Option<String> {
    req.headers().get(name).ok().flatten()
}

/// A request's method in the service's form.
pub fn method(req: &Request) -> Method {
    match req.method() {
        worker::Method::Get | worker::Method::Head => Method::Get,
        worker::Method::Post => Method::Post,
        worker::Method::Put => Method::Put,
        _ => Method::Other,
    }
}

/// `https://host` of a request.
pub fn origin(req: &Request) -> Result<String, ApiError> {
    let url = req.url().map_err(|e| ApiError::new(ErrorCode::BadUrl, e.to_string()))?;
    Ok(url.origin().ascii_serialization())
}

/// The keyed hash of a request's address bucket (`service::host::ip_key`).
pub fn ip_key(host: &WorkerHost<'_>, req: &Request) -> String {
    service::host::ip_key(host, client_ip(req).as_deref())
}

/// A request's client address, only from where the platform puts it
/// (`service::host::client_ip`; a game object's requests keep the Worker's URL and headers).
pub fn client_ip(req: &Request) -> Option<String> {
    service::host::client_ip(&origin(req).unwrap_or_default(), header(req, service::host::CLIENT_IP_HEADER))
}

/// A `worker` request as the service's [`Incoming`].
pub struct In<'a>(pub &'a mut Request);

impl Incoming for In<'_> {
    fn method(&self) -> Method {
        method(self.0)
    }

    fn path(&self) -> String {
        self.0.path()
    }

    fn query(&self) -> String {
        self.0.url().ok().and_then(|u| u.query().map(str::to_owned)).unwrap_or_default()
    }

    fn origin(&self) -> Result<String, ApiError> {
        origin(self.0)
    }

    fn header(&self, name: &str) -> Option<String> {
        header(self.0, name)
    }

    /// Refused (413) before reading where the length is declared, and while streaming
    /// otherwise (a chunked body is never read whole first).
    async fn body(&mut self) -> Result<Vec<u8>, ApiError> {
        use futures_util::StreamExt;
        let declared = self.header("Content-Length").and_then(|v| v.parse::<usize>().ok());
        if declared.is_some_and(|n| n > MAX_BODY_BYTES) {
            return Err(too_large());
        }
        // No body at all (a bodiless POST) reads as empty.
        let Ok(mut stream) = self.0.stream() else { return Ok(Vec::new()) };
        let mut body = service::guard::CappedBody::api();
        while let Some(chunk) = stream.next().await {
            let chunk = chunk.map_err(|e| ApiError::new(ErrorCode::UnreadableBody, e.to_string()))?;
            body.push(&chunk)?;
        }
        Ok(body.into_bytes())
    }
}
