//! Discord direct messages (opt-in, for players signed in with Discord): who asked for
//! them, the switch of `GET`/`POST /api/me/discord-dm`, and whom a seat's message goes
//! to. The messages themselves are sent by the Worker (`fetch` to Discord's API).

use serde::Deserialize;

use crate::error::{ApiError, ErrorCode};
use crate::http::PlayerRef;
use crate::push::DiscordDm;
use crate::sql::{self, Sql, Stmt, StoreResult};

/// Whether `?1` asked for messages.
pub const ENABLED: &str = "SELECT player_id FROM discord_dm WHERE player_id = ?1";

/// Switched on for `?1` at `?2` (a repeat keeps the first time).
pub const ENABLE: &str = "INSERT OR IGNORE INTO discord_dm (player_id, created_at) VALUES (?1, ?2)";

/// Switched off for `?1`.
pub const DISABLE: &str = "DELETE FROM discord_dm WHERE player_id = ?1";

/// The Discord user to message for a seat's `?1`: through a merge (a guest since merged
/// into an account is that account), only if it asked and is signed in with Discord.
pub const RECIPIENT: &str = concat!(
    "SELECT p.discord_id FROM discord_dm d JOIN players p ON p.id = d.player_id WHERE d.player_id = ",
    super::resolved!("?1"),
    " AND p.discord_id IS NOT NULL"
);

/// Whether `player` asked for messages.
pub async fn enabled(db: &impl Sql, player: &str) -> StoreResult<bool> {
    sql::exists(db, Stmt::new(ENABLED).bind(player)).await
}

/// Switches messages on or off for `player`, at `now_ms`.
pub async fn set(db: &impl Sql, player: &str, on: bool, now_ms: i64) -> StoreResult<()> {
    let stmt = if on { Stmt::new(ENABLE).bind(player).bind(now_ms) } else { Stmt::new(DISABLE).bind(player) };
    db.run(stmt).await?;
    Ok(())
}

/// The Discord id to message for a seat's `player`, if any (see [`RECIPIENT`]).
pub async fn recipient(db: &impl Sql, player: &str) -> StoreResult<Option<String>> {
    #[derive(Deserialize)]
    struct Row {
        discord_id: String,
    }
    let row: Option<Row> = sql::first(db, Stmt::new(RECIPIENT).bind(player)).await?;
    Ok(row.map(|r| r.discord_id))
}

/// A notice's direct message: `Iron Arena: <title>: <body> (<url>)` from its Web Push
/// payload ([`crate::push::message`]); a missing field reads as empty.
pub fn text(payload: &[u8]) -> String {
    let v: serde_json::Value = serde_json::from_slice(payload).unwrap_or_default();
    format!(
        "Iron Arena: {}: {} ({})",
        v["title"].as_str().unwrap_or_default(),
        v["body"].as_str().unwrap_or_default(),
        v["url"].as_str().unwrap_or_default()
    )
}

/// Offered: to a player signed in with Discord, when the server has a bot (`bot`).
fn available(player: Option<&PlayerRef>, bot: bool) -> bool {
    player.is_some_and(|p| p.linked) && bot
}

/// `GET /api/me/discord-dm` for the session's `player` (`None`: no session).
pub async fn get(db: &impl Sql, player: Option<&PlayerRef>, bot: bool) -> Result<DiscordDm, ApiError> {
    let available = available(player, bot);
    let on = match player {
        Some(p) => enabled(db, &p.id).await?,
        None => false,
    };
    Ok(DiscordDm { available, enabled: on })
}

/// `POST /api/me/discord-dm` `{"enabled": bool}`: 400 for another body, 403 unless signed
/// in with Discord, 404 when the server has no bot; then the switch, at `now_ms`.
pub async fn post(
    db: &impl Sql,
    player: Option<&PlayerRef>,
    bot: bool,
    body: &[u8],
    now_ms: i64,
) -> Result<DiscordDm, ApiError> {
    #[derive(Deserialize)]
    #[serde(deny_unknown_fields)]
    struct Body {
        enabled: bool,
    }
    let body: Body = crate::http::parse_json(body)?;
    let available = available(player, bot);
    let p = player.filter(|p| p.linked).ok_or_else(|| {
        ApiError::new(ErrorCode::SignInRequired, "Discord messages are for players signed in with Discord")
    })?;
    if !bot {
        return Err(ApiError::not_found("Discord messages are not offered by this server"));
    }
    set(db, &p.id, body.enabled, now_ms).await?;
    Ok(DiscordDm { available, enabled: body.enabled })
}
