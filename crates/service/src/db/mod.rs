//! The Worker's D1 statements beyond the player store ([`crate::sql_players`]), one
//! module per concept, over the [`crate::sql::Sql`] port: the games index and the
//! capacity counts ([`index`]), My games (the index rows; the live status is each game object's) and the merged-in
//! guests' aliases ([`me_games`]), Web Push subscriptions ([`push`]), Discord direct
//! messages ([`discord_dm`]), the lessons completed ([`lessons`]), the pending sign-ins
//! ([`oauth`]) and the hourly sweep ([`housekeeping`]).
//!
//! Each statement is here, its parameters bound (never spliced), with the rules that
//! go with it (which rows a write may replace, which guests are empty, how many rows a
//! run touches). The Worker (`src/`) gets the binding, runs these over `crate::d1::D1`
//! and maps the answers; what needs the runtime stays there (`fetch` to Discord or a push
//! service, Durable Object stubs). The native tests run the same text on real SQLite made
//! by the real `migrations/`, foreign keys on (`crates/service/tests/db_*.rs`).
//!
//! Numbers read from D1 are JavaScript numbers, so rows read them as `f64`.

/// The merged-guest rule, written once: in SQL, the player that id `$p` (a parameter,
/// e.g. `"?1"`) stands for — the account a guest was merged into, else the id itself.
/// (The store's own reading of it is [`crate::player_store::PlayerStore::resolve`].)
macro_rules! resolved {
    ($p:literal) => {
        concat!("COALESCE((SELECT into_id FROM player_merges WHERE from_id = ", $p, "), ", $p, ")")
    };
}
pub(crate) use resolved;

pub mod discord_dm;
pub mod housekeeping;
pub mod index;
pub mod lessons;
pub mod me_games;
pub mod oauth;
pub mod push;
