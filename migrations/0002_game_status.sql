-- Migration 0002: link games in progress: whose turn it is, the deadline and a pending
-- draw offer, written by the game's Durable Object after every change (GET /api/me/games).
CREATE TABLE IF NOT EXISTS game_status (
    game_id     TEXT PRIMARY KEY,
    turn        TEXT CHECK (turn IN ('south', 'north')),
    -- 0 while the invited seat is open.
    seated      INTEGER NOT NULL DEFAULT 0,
    deadline    INTEGER,
    draw_offer  TEXT CHECK (draw_offer IN ('south', 'north')),
    plies       INTEGER NOT NULL DEFAULT 0,
    updated_at  INTEGER NOT NULL
);
