//! Iron Arena's game service: everything the HTTP API decides, as plain Rust.
//!
//! The Workers module (`src/` at the repository root) is glue: it turns a `worker`
//! request into an [`http::ApiRequest`], gives the game's Durable Object storage to
//! [`game::handle`] through the [`store::GameStore`] trait, and turns the
//! [`http::ApiResponse`] back. So every rule of the API (authorisation, stale plies,
//! idempotent retries, results, deadlines, capacity) is tested natively without a runtime.

pub mod accounts;
pub mod admission;
pub mod ai;
pub mod api;
pub mod challenge;
pub mod config;
pub mod create;
pub mod db;
pub mod db_challenges;
pub mod error;
pub mod error_code;
pub mod finish;
pub mod game;
pub mod guard;
pub mod host;
pub mod http;
pub mod lessons;
pub mod lobby;
pub mod local;
pub mod me_games;
pub mod model;
pub mod names;
#[cfg(feature = "net")]
pub mod net_ai;
pub mod net_assets;
pub mod net_bench;
pub mod notify;
pub mod object;
pub mod objects;
pub mod player_store;
pub mod players;
pub mod ports;
pub mod push;
pub mod rating;
pub mod rematch;
pub mod routes;
pub mod sagas;
pub mod seeded_ai;
pub mod sockets;
pub mod sql;
pub mod sql_players;
#[cfg(feature = "sqlite")]
pub mod sqlite;
pub mod store;
pub mod story;
pub mod time;
pub mod tokens;
pub mod upkeep;

pub use error::{ApiError, ErrorCode};
