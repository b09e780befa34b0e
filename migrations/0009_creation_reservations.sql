-- Migration number: 0009 	 creation reservations
-- The capacity check read the load counters, and the game's index row (what they count)
-- was written later by the new game's object: parallel creations by one player or one
-- address all read the same counts and passed the caps by the number in flight (issue 30).
-- A creation now reserves its place in one conditional statement that reads the counters
-- and counts itself (`service::db::index::RESERVE`): D1 runs one statement at a time, so
-- two reservations never see the same counts. A reservation counts like an unfinished game
-- (the total, its address bucket, its player) until the game's index row arrives (the row
-- then counts instead, in the same statement), the creation fails (released), or it is ten
-- minutes old (a crash between the reservation and the creation: swept by the next one).
CREATE TABLE IF NOT EXISTS creation_reservations (
    game_id     TEXT PRIMARY KEY,
    ip_hash     TEXT NOT NULL,
    player_id   TEXT,
    created_at  INTEGER NOT NULL
);
CREATE INDEX IF NOT EXISTS creation_reservations_by_age ON creation_reservations (created_at);

CREATE TRIGGER IF NOT EXISTS reservation_counts AFTER INSERT ON creation_reservations
BEGIN
    INSERT INTO load_counters (key, n) VALUES ('active', 1)
        ON CONFLICT(key) DO UPDATE SET n = n + 1;
    INSERT INTO load_counters (key, n) VALUES ('ip:' || NEW.ip_hash, 1)
        ON CONFLICT(key) DO UPDATE SET n = n + 1;
    INSERT INTO load_counters (key, n) SELECT 'player:' || NEW.player_id, 1 WHERE NEW.player_id IS NOT NULL
        ON CONFLICT(key) DO UPDATE SET n = n + 1;
END;

CREATE TRIGGER IF NOT EXISTS reservation_released AFTER DELETE ON creation_reservations
BEGIN
    UPDATE load_counters SET n = n - 1 WHERE key = 'active';
    UPDATE load_counters SET n = n - 1 WHERE key = 'ip:' || OLD.ip_hash;
    UPDATE load_counters SET n = n - 1 WHERE key = 'player:' || OLD.player_id;
END;

-- The game's row arrived: it counts from now on, and its reservation stops counting.
CREATE TRIGGER IF NOT EXISTS reservation_fulfilled AFTER INSERT ON games
BEGIN
    DELETE FROM creation_reservations WHERE game_id = NEW.id;
END;
