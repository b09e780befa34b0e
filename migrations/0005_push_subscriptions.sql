-- Migration 0005: Web Push subscriptions (issue 14): one row per browser that opted in,
-- per player; removed when the push service answers 404/410 or the browser unsubscribes.
CREATE TABLE IF NOT EXISTS push_subscriptions (
    endpoint    TEXT PRIMARY KEY,
    player_id   TEXT NOT NULL REFERENCES players(id),
    p256dh      TEXT NOT NULL,
    auth        TEXT NOT NULL,
    created_at  INTEGER NOT NULL
);
CREATE INDEX IF NOT EXISTS push_subscriptions_by_player ON push_subscriptions (player_id);
