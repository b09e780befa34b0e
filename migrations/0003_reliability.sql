-- Migration 0003: ratings updated by compare-and-set (two rated games of one player
-- finishing together must not lose an update: each update bumps the version it read),
-- and indexes for the scheduled clean-up of expired sessions and sign-in states.
ALTER TABLE players ADD COLUMN rating_version INTEGER NOT NULL DEFAULT 0;
CREATE INDEX IF NOT EXISTS sessions_by_expiry ON sessions (expires_at);
CREATE INDEX IF NOT EXISTS oauth_states_by_age ON oauth_states (created_at);
