-- Migration 0005: open challenges (issue 14): posted to a public list, accepted (game_id and
-- accepted_by set in one conditional update), cancelled (deleted) or expired.
CREATE TABLE IF NOT EXISTS challenges (
    id           TEXT PRIMARY KEY,
    poster_id    TEXT NOT NULL REFERENCES players(id),
    spec         TEXT NOT NULL,
    ip_hash      TEXT NOT NULL,
    created_at   INTEGER NOT NULL,
    expires_at   INTEGER NOT NULL,
    game_id      TEXT,
    accepted_by  TEXT
);
CREATE INDEX IF NOT EXISTS challenges_open ON challenges (expires_at) WHERE game_id IS NULL;
CREATE INDEX IF NOT EXISTS challenges_by_poster ON challenges (poster_id, created_at);
CREATE INDEX IF NOT EXISTS challenges_by_address ON challenges (ip_hash, created_at);
