-- Migration 0006: Discord direct messages (issue 14): players signed in with Discord who
-- asked for a message from the bot when it is their move, a draw is offered, a game ends.
CREATE TABLE IF NOT EXISTS discord_dm (
    player_id   TEXT PRIMARY KEY REFERENCES players(id),
    created_at  INTEGER NOT NULL
);
