-- Migration number: 0010 	 statistics counters
-- Player Info read every finished game of the player per request, and the match-up
-- statistics grouped the whole games table per request: reads that grow with history
-- (issue 30). Counters instead, kept by triggers in the same statement as the games row
-- they follow (like 0008's load counters), so they cannot drift from it whatever writes
-- the row: the index upsert at a game's end, a guest merged into an account, a removal.
--
-- What counts is what the scans counted (service::players): a finished game, not aborted
-- (reason 'by a player' or 'never joined', FinishReason::is_abort), not against oneself
-- (both seats the same player). The match-up statistics count only `link` games in which
-- a move was played. A player's rows are per match-up and side (at most 18 per player);
-- a row whose count falls to zero goes.
CREATE TABLE IF NOT EXISTS player_totals (
    player_id      TEXT NOT NULL,
    south_faction  TEXT NOT NULL,
    north_faction  TEXT NOT NULL,
    side           TEXT NOT NULL CHECK (side IN ('south', 'north')),
    played         INTEGER NOT NULL DEFAULT 0,
    won            INTEGER NOT NULL DEFAULT 0,
    PRIMARY KEY (player_id, south_faction, north_faction, side)
) WITHOUT ROWID;

CREATE TABLE IF NOT EXISTS matchup_totals (
    south_faction  TEXT NOT NULL,
    north_faction  TEXT NOT NULL,
    games          INTEGER NOT NULL DEFAULT 0,
    south_wins     INTEGER NOT NULL DEFAULT 0,
    north_wins     INTEGER NOT NULL DEFAULT 0,
    draws          INTEGER NOT NULL DEFAULT 0,
    PRIMARY KEY (south_faction, north_faction)
) WITHOUT ROWID;

INSERT INTO player_totals (player_id, south_faction, north_faction, side, played, won)
    SELECT south_player, south_faction, north_faction, 'south', COUNT(*), SUM(winner IS 'south') FROM games
    WHERE result IS NOT NULL AND COALESCE(reason, '') NOT IN ('by a player', 'never joined')
        AND COALESCE(south_player = north_player, 0) = 0 AND south_player IS NOT NULL
    GROUP BY south_player, south_faction, north_faction
    ON CONFLICT (player_id, south_faction, north_faction, side) DO UPDATE SET played = excluded.played, won = excluded.won;
INSERT INTO player_totals (player_id, south_faction, north_faction, side, played, won)
    SELECT north_player, south_faction, north_faction, 'north', COUNT(*), SUM(winner IS 'north') FROM games
    WHERE result IS NOT NULL AND COALESCE(reason, '') NOT IN ('by a player', 'never joined')
        AND COALESCE(south_player = north_player, 0) = 0 AND north_player IS NOT NULL
    GROUP BY north_player, south_faction, north_faction
    ON CONFLICT (player_id, south_faction, north_faction, side) DO UPDATE SET played = excluded.played, won = excluded.won;
INSERT INTO matchup_totals (south_faction, north_faction, games, south_wins, north_wins, draws)
    SELECT south_faction, north_faction, COUNT(*), SUM(winner IS 'south'), SUM(winner IS 'north'), SUM(winner IS NULL)
    FROM games
    WHERE result IS NOT NULL AND COALESCE(reason, '') NOT IN ('by a player', 'never joined')
        AND COALESCE(south_player = north_player, 0) = 0 AND mode = 'link' AND plies > 0
    GROUP BY south_faction, north_faction
    ON CONFLICT (south_faction, north_faction) DO UPDATE SET games = excluded.games,
        south_wins = excluded.south_wins, north_wins = excluded.north_wins, draws = excluded.draws;

-- A row that arrives finished (the index upsert of a game first seen at its end) counts.
CREATE TRIGGER IF NOT EXISTS totals_on_insert AFTER INSERT ON games WHEN NEW.result IS NOT NULL
BEGIN
    INSERT INTO player_totals (player_id, south_faction, north_faction, side, played, won)
        SELECT NEW.south_player, NEW.south_faction, NEW.north_faction, 'south', 1, NEW.winner IS 'south'
        WHERE NEW.south_player IS NOT NULL AND COALESCE(NEW.reason, '') NOT IN ('by a player', 'never joined')
            AND COALESCE(NEW.south_player = NEW.north_player, 0) = 0
        ON CONFLICT (player_id, south_faction, north_faction, side) DO UPDATE SET played = played + 1, won = won + excluded.won;
    INSERT INTO player_totals (player_id, south_faction, north_faction, side, played, won)
        SELECT NEW.north_player, NEW.south_faction, NEW.north_faction, 'north', 1, NEW.winner IS 'north'
        WHERE NEW.north_player IS NOT NULL AND COALESCE(NEW.reason, '') NOT IN ('by a player', 'never joined')
            AND COALESCE(NEW.south_player = NEW.north_player, 0) = 0
        ON CONFLICT (player_id, south_faction, north_faction, side) DO UPDATE SET played = played + 1, won = won + excluded.won;
    INSERT INTO matchup_totals (south_faction, north_faction, games, south_wins, north_wins, draws)
        SELECT NEW.south_faction, NEW.north_faction, 1, NEW.winner IS 'south', NEW.winner IS 'north', NEW.winner IS NULL
        WHERE NEW.mode = 'link' AND NEW.plies > 0 AND COALESCE(NEW.reason, '') NOT IN ('by a player', 'never joined')
            AND COALESCE(NEW.south_player = NEW.north_player, 0) = 0
        ON CONFLICT (south_faction, north_faction) DO UPDATE SET games = games + 1,
            south_wins = south_wins + excluded.south_wins, north_wins = north_wins + excluded.north_wins,
            draws = draws + excluded.draws;
END;

-- A finished row's removal uncounts it, as it was.
CREATE TRIGGER IF NOT EXISTS totals_on_delete AFTER DELETE ON games WHEN OLD.result IS NOT NULL
BEGIN
    UPDATE player_totals SET played = played - 1, won = won - (OLD.winner IS 'south')
        WHERE player_id = OLD.south_player AND south_faction = OLD.south_faction
            AND north_faction = OLD.north_faction AND side = 'south'
            AND COALESCE(OLD.reason, '') NOT IN ('by a player', 'never joined')
            AND COALESCE(OLD.south_player = OLD.north_player, 0) = 0;
    UPDATE player_totals SET played = played - 1, won = won - (OLD.winner IS 'north')
        WHERE player_id = OLD.north_player AND south_faction = OLD.south_faction
            AND north_faction = OLD.north_faction AND side = 'north'
            AND COALESCE(OLD.reason, '') NOT IN ('by a player', 'never joined')
            AND COALESCE(OLD.south_player = OLD.north_player, 0) = 0;
    DELETE FROM player_totals WHERE player_id IN (OLD.south_player, OLD.north_player) AND played = 0;
    UPDATE matchup_totals SET games = games - 1, south_wins = south_wins - (OLD.winner IS 'south'),
            north_wins = north_wins - (OLD.winner IS 'north'), draws = draws - (OLD.winner IS NULL)
        WHERE south_faction = OLD.south_faction AND north_faction = OLD.north_faction
            AND OLD.mode = 'link' AND OLD.plies > 0 AND COALESCE(OLD.reason, '') NOT IN ('by a player', 'never joined')
            AND COALESCE(OLD.south_player = OLD.north_player, 0) = 0;
END;

-- The end of a game (its result set), and any change to what counts of a finished row
-- (a seat's player rewritten by a guest merge, which may also make it a game against
-- oneself): the row as it was is uncounted, the row as it is counted. Unfinished rows
-- (a join, a move's plies) fire nothing.
CREATE TRIGGER IF NOT EXISTS totals_on_update AFTER UPDATE OF result, winner, reason, mode, plies,
        south_faction, north_faction, south_player, north_player ON games
    WHEN (OLD.result IS NOT NULL OR NEW.result IS NOT NULL)
        AND (OLD.result IS NOT NEW.result OR OLD.winner IS NOT NEW.winner OR OLD.reason IS NOT NEW.reason
            OR OLD.mode IS NOT NEW.mode OR OLD.plies IS NOT NEW.plies OR OLD.south_faction IS NOT NEW.south_faction
            OR OLD.north_faction IS NOT NEW.north_faction OR OLD.south_player IS NOT NEW.south_player
            OR OLD.north_player IS NOT NEW.north_player)
BEGIN
    UPDATE player_totals SET played = played - 1, won = won - (OLD.winner IS 'south')
        WHERE player_id = OLD.south_player AND south_faction = OLD.south_faction
            AND north_faction = OLD.north_faction AND side = 'south' AND OLD.result IS NOT NULL
            AND COALESCE(OLD.reason, '') NOT IN ('by a player', 'never joined')
            AND COALESCE(OLD.south_player = OLD.north_player, 0) = 0;
    UPDATE player_totals SET played = played - 1, won = won - (OLD.winner IS 'north')
        WHERE player_id = OLD.north_player AND south_faction = OLD.south_faction
            AND north_faction = OLD.north_faction AND side = 'north' AND OLD.result IS NOT NULL
            AND COALESCE(OLD.reason, '') NOT IN ('by a player', 'never joined')
            AND COALESCE(OLD.south_player = OLD.north_player, 0) = 0;
    DELETE FROM player_totals WHERE player_id IN (OLD.south_player, OLD.north_player) AND played = 0;
    UPDATE matchup_totals SET games = games - 1, south_wins = south_wins - (OLD.winner IS 'south'),
            north_wins = north_wins - (OLD.winner IS 'north'), draws = draws - (OLD.winner IS NULL)
        WHERE south_faction = OLD.south_faction AND north_faction = OLD.north_faction AND OLD.result IS NOT NULL
            AND OLD.mode = 'link' AND OLD.plies > 0 AND COALESCE(OLD.reason, '') NOT IN ('by a player', 'never joined')
            AND COALESCE(OLD.south_player = OLD.north_player, 0) = 0;
    INSERT INTO player_totals (player_id, south_faction, north_faction, side, played, won)
        SELECT NEW.south_player, NEW.south_faction, NEW.north_faction, 'south', 1, NEW.winner IS 'south'
        WHERE NEW.south_player IS NOT NULL AND NEW.result IS NOT NULL
            AND COALESCE(NEW.reason, '') NOT IN ('by a player', 'never joined')
            AND COALESCE(NEW.south_player = NEW.north_player, 0) = 0
        ON CONFLICT (player_id, south_faction, north_faction, side) DO UPDATE SET played = played + 1, won = won + excluded.won;
    INSERT INTO player_totals (player_id, south_faction, north_faction, side, played, won)
        SELECT NEW.north_player, NEW.south_faction, NEW.north_faction, 'north', 1, NEW.winner IS 'north'
        WHERE NEW.north_player IS NOT NULL AND NEW.result IS NOT NULL
            AND COALESCE(NEW.reason, '') NOT IN ('by a player', 'never joined')
            AND COALESCE(NEW.south_player = NEW.north_player, 0) = 0
        ON CONFLICT (player_id, south_faction, north_faction, side) DO UPDATE SET played = played + 1, won = won + excluded.won;
    INSERT INTO matchup_totals (south_faction, north_faction, games, south_wins, north_wins, draws)
        SELECT NEW.south_faction, NEW.north_faction, 1, NEW.winner IS 'south', NEW.winner IS 'north', NEW.winner IS NULL
        WHERE NEW.result IS NOT NULL AND NEW.mode = 'link' AND NEW.plies > 0
            AND COALESCE(NEW.reason, '') NOT IN ('by a player', 'never joined')
            AND COALESCE(NEW.south_player = NEW.north_player, 0) = 0
        ON CONFLICT (south_faction, north_faction) DO UPDATE SET games = games + 1,
            south_wins = south_wins + excluded.south_wins, north_wins = north_wins + excluded.north_wins,
            draws = draws + excluded.draws;
END;

-- Player Info's list of finished games, a page at a time: each seat's games walked in
-- the list's order (end time, then id, latest first) from the page's cursor, aborted
-- games not in it. The match-up index served only the statistics' scan.
CREATE INDEX IF NOT EXISTS games_finished_by_south ON games (south_player, COALESCE(finished_at, 0), id)
    WHERE result IS NOT NULL AND COALESCE(reason, '') NOT IN ('by a player', 'never joined');
CREATE INDEX IF NOT EXISTS games_finished_by_north ON games (north_player, COALESCE(finished_at, 0), id)
    WHERE result IS NOT NULL AND COALESCE(reason, '') NOT IN ('by a player', 'never joined');
DROP INDEX IF EXISTS games_by_matchup;
