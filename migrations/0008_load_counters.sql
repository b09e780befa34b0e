-- Migration number: 0008 	 load counters
-- The capacity check read `COUNT(*) FROM games WHERE result IS NULL` (and the creator's
-- count) before every creation: a scan that grows with the games table, on the one D1
-- writer (issue 30). Counters instead, kept by triggers in the same statement as the
-- games row they follow, so they cannot drift from it whatever writes the row (the
-- outbox's index upsert, a join, a guest merge): 'active' (unfinished games),
-- 'ip:<hash>' (unfinished games created from that address bucket), 'player:<id>'
-- (unfinished games the player sits in, once for a game against oneself).
CREATE TABLE IF NOT EXISTS load_counters (
    key  TEXT PRIMARY KEY,
    n    INTEGER NOT NULL DEFAULT 0
);

INSERT INTO load_counters (key, n)
    SELECT 'active', COUNT(*) FROM games WHERE result IS NULL
    ON CONFLICT(key) DO UPDATE SET n = excluded.n;
INSERT INTO load_counters (key, n)
    SELECT 'ip:' || creator_ip_hash, COUNT(*) FROM games
    WHERE result IS NULL AND creator_ip_hash IS NOT NULL GROUP BY creator_ip_hash
    ON CONFLICT(key) DO UPDATE SET n = excluded.n;
INSERT INTO load_counters (key, n)
    SELECT 'player:' || p, COUNT(*) FROM (
        SELECT south_player AS p, id FROM games WHERE result IS NULL AND south_player IS NOT NULL
        UNION
        SELECT north_player AS p, id FROM games WHERE result IS NULL AND north_player IS NOT NULL
    ) GROUP BY p
    ON CONFLICT(key) DO UPDATE SET n = excluded.n;

-- A new unfinished game counts for the game total, its address and its players.
CREATE TRIGGER IF NOT EXISTS load_on_insert AFTER INSERT ON games WHEN NEW.result IS NULL
BEGIN
    INSERT INTO load_counters (key, n) VALUES ('active', 1)
        ON CONFLICT(key) DO UPDATE SET n = n + 1;
    INSERT INTO load_counters (key, n) SELECT 'ip:' || NEW.creator_ip_hash, 1 WHERE NEW.creator_ip_hash IS NOT NULL
        ON CONFLICT(key) DO UPDATE SET n = n + 1;
    INSERT INTO load_counters (key, n) SELECT 'player:' || NEW.south_player, 1 WHERE NEW.south_player IS NOT NULL
        ON CONFLICT(key) DO UPDATE SET n = n + 1;
    INSERT INTO load_counters (key, n) SELECT 'player:' || NEW.north_player, 1
        WHERE NEW.north_player IS NOT NULL AND NEW.north_player IS NOT NEW.south_player
        ON CONFLICT(key) DO UPDATE SET n = n + 1;
END;

-- Its end (or its row's removal) frees what it counted: its players as they were.
CREATE TRIGGER IF NOT EXISTS load_on_finish AFTER UPDATE OF result ON games
    WHEN OLD.result IS NULL AND NEW.result IS NOT NULL
BEGIN
    UPDATE load_counters SET n = n - 1 WHERE key = 'active';
    UPDATE load_counters SET n = n - 1 WHERE key = 'ip:' || OLD.creator_ip_hash;
    UPDATE load_counters SET n = n - 1 WHERE key = 'player:' || OLD.south_player;
    UPDATE load_counters SET n = n - 1
        WHERE key = 'player:' || OLD.north_player AND OLD.north_player IS NOT OLD.south_player;
END;

CREATE TRIGGER IF NOT EXISTS load_on_delete AFTER DELETE ON games WHEN OLD.result IS NULL
BEGIN
    UPDATE load_counters SET n = n - 1 WHERE key = 'active';
    UPDATE load_counters SET n = n - 1 WHERE key = 'ip:' || OLD.creator_ip_hash;
    UPDATE load_counters SET n = n - 1 WHERE key = 'player:' || OLD.south_player;
    UPDATE load_counters SET n = n - 1
        WHERE key = 'player:' || OLD.north_player AND OLD.north_player IS NOT OLD.south_player;
END;

-- A seat's player bound (a join) or rewritten (a guest merged into an account) while the
-- game is unfinished: the old players stop counting it, the new ones start.
CREATE TRIGGER IF NOT EXISTS load_on_players AFTER UPDATE OF south_player, north_player ON games
    WHEN OLD.result IS NULL AND NEW.result IS NULL
        AND (OLD.south_player IS NOT NEW.south_player OR OLD.north_player IS NOT NEW.north_player)
BEGIN
    UPDATE load_counters SET n = n - 1 WHERE key = 'player:' || OLD.south_player;
    UPDATE load_counters SET n = n - 1
        WHERE key = 'player:' || OLD.north_player AND OLD.north_player IS NOT OLD.south_player;
    INSERT INTO load_counters (key, n) SELECT 'player:' || NEW.south_player, 1 WHERE NEW.south_player IS NOT NULL
        ON CONFLICT(key) DO UPDATE SET n = n + 1;
    INSERT INTO load_counters (key, n) SELECT 'player:' || NEW.north_player, 1
        WHERE NEW.north_player IS NOT NULL AND NEW.north_player IS NOT NEW.south_player
        ON CONFLICT(key) DO UPDATE SET n = n + 1;
END;
