-- Iron Arena's D1 schema, in full, as it stands: exactly what the migrations in
-- migrations/ produce when applied in order (`wrangler d1 migrations apply DB`, run by
-- scripts/run.sh and the test harness; tests/reliability.rs checks the two agree). To change
-- the schema, add a migration (never edit a shipped one) and update this file to match.

CREATE TABLE IF NOT EXISTS players (
    id            TEXT PRIMARY KEY,
    display_name  TEXT,
    discord_id    TEXT UNIQUE,
    created_at    INTEGER NOT NULL,
    rating        REAL NOT NULL DEFAULT 1500,
    rating_dev    REAL NOT NULL DEFAULT 350,
    volatility    REAL NOT NULL DEFAULT 0.06,
    rated_at      INTEGER,
    -- Bumped by every rating update (compare-and-set: service::players::apply_rating).
    rating_version INTEGER NOT NULL DEFAULT 0
);

-- One row per game, written by the game's Durable Object at creation and at the end.
CREATE TABLE IF NOT EXISTS games (
    id               TEXT PRIMARY KEY,
    south_faction    TEXT NOT NULL CHECK (south_faction IN ('clockwork', 'blades', 'axiom')),
    north_faction    TEXT NOT NULL CHECK (north_faction IN ('clockwork', 'blades', 'axiom')),
    mode             TEXT NOT NULL CHECK (mode IN ('ai', 'link')),
    days_per_move    INTEGER,
    south_player     TEXT REFERENCES players(id),
    north_player     TEXT REFERENCES players(id),
    creator_ip_hash  TEXT,
    created_at       INTEGER NOT NULL,
    finished_at      INTEGER,
    result           TEXT,
    winner           TEXT CHECK (winner IN ('south', 'north')),
    reason           TEXT,
    plies            INTEGER NOT NULL DEFAULT 0
);
CREATE INDEX IF NOT EXISTS games_by_creation ON games (created_at, creator_ip_hash);
CREATE INDEX IF NOT EXISTS games_unfinished ON games (result) WHERE result IS NULL;

CREATE TABLE IF NOT EXISTS badges (
    id           TEXT PRIMARY KEY,
    name         TEXT NOT NULL,
    description  TEXT NOT NULL
);

CREATE TABLE IF NOT EXISTS player_badges (
    player_id   TEXT NOT NULL REFERENCES players(id),
    badge_id    TEXT NOT NULL REFERENCES badges(id),
    awarded_at  INTEGER NOT NULL,
    PRIMARY KEY (player_id, badge_id)
);

-- Browser sessions (guests included): only the SHA-256 of the cookie's token is stored.
CREATE TABLE IF NOT EXISTS sessions (
    token_hash  TEXT PRIMARY KEY,
    player_id   TEXT NOT NULL REFERENCES players(id),
    created_at  INTEGER NOT NULL,
    expires_at  INTEGER NOT NULL
);
CREATE INDEX IF NOT EXISTS sessions_by_player ON sessions (player_id);
CREATE INDEX IF NOT EXISTS sessions_by_expiry ON sessions (expires_at);

-- Pending "Sign in with Discord": single-use state (by hash), bound to the session that
-- started it, with its PKCE verifier.
CREATE TABLE IF NOT EXISTS oauth_states (
    state_hash    TEXT PRIMARY KEY,
    session_hash  TEXT NOT NULL,
    verifier      TEXT NOT NULL,
    created_at    INTEGER NOT NULL
);
CREATE INDEX IF NOT EXISTS oauth_states_by_age ON oauth_states (created_at);

-- Story mode: per player and story, how many stages are completed (the next stage to
-- play) and the stage game being played, if any. Only that game's result can advance it.
CREATE TABLE IF NOT EXISTS story_progress (
    player_id      TEXT NOT NULL REFERENCES players(id),
    story_id       TEXT NOT NULL,
    completed      INTEGER NOT NULL DEFAULT 0,
    current_game   TEXT,
    current_stage  INTEGER,
    updated_at     INTEGER NOT NULL,
    PRIMARY KEY (player_id, story_id)
);

-- Rated games whose result has been applied to the ratings (exactly once).
CREATE TABLE IF NOT EXISTS rated_games (
    game_id     TEXT PRIMARY KEY,
    applied_at  INTEGER NOT NULL
);

-- A guest merged into an existing Discord-linked player (signing in on a second browser):
-- results reported later for the guest's games go to that player.
CREATE TABLE IF NOT EXISTS player_merges (
    from_id  TEXT PRIMARY KEY,
    into_id  TEXT NOT NULL
);
CREATE INDEX IF NOT EXISTS players_by_rating ON players (rating DESC) WHERE rated_at IS NOT NULL;
CREATE INDEX IF NOT EXISTS games_by_south_player ON games (south_player, created_at);
CREATE INDEX IF NOT EXISTS games_by_north_player ON games (north_player, created_at);
-- Player Info's list of finished games, a page at a time: each seat's games walked in
-- the list's order (end time, then id, latest first) from the page's cursor, aborted
-- games not in it.
CREATE INDEX IF NOT EXISTS games_finished_by_south ON games (south_player, COALESCE(finished_at, 0), id)
    WHERE result IS NOT NULL AND COALESCE(reason, '') NOT IN ('by a player', 'never joined');
CREATE INDEX IF NOT EXISTS games_finished_by_north ON games (north_player, COALESCE(finished_at, 0), id)
    WHERE result IS NOT NULL AND COALESCE(reason, '') NOT IN ('by a player', 'never joined');
CREATE INDEX IF NOT EXISTS players_by_name ON players (lower(display_name));

-- Chosen display names by their normalised form (service::names::key: NFKC, lowercase):
-- the primary key makes two look-alike names impossible, even when chosen at once.
-- Guests' `Guest-…` names have no row (no one can choose one).
CREATE TABLE IF NOT EXISTS player_names (
    name_key   TEXT PRIMARY KEY,
    player_id  TEXT NOT NULL UNIQUE REFERENCES players(id)
);

-- Web Push subscriptions (issue 14): one row per browser that opted in, per player;
-- removed when the push service answers 404/410 or the browser unsubscribes.
CREATE TABLE IF NOT EXISTS push_subscriptions (
    endpoint    TEXT PRIMARY KEY,
    player_id   TEXT NOT NULL REFERENCES players(id),
    p256dh      TEXT NOT NULL,
    auth        TEXT NOT NULL,
    created_at  INTEGER NOT NULL
);
CREATE INDEX IF NOT EXISTS push_subscriptions_by_player ON push_subscriptions (player_id);

-- Open challenges (issue 14): posted to a public list, accepted (game_id and accepted_by
-- set in one conditional update), cancelled (deleted) or expired.
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

-- Discord direct messages (issue 14): players signed in with Discord who asked for a
-- message from the bot when it is their move, a draw is offered, a game ends.
CREATE TABLE IF NOT EXISTS discord_dm (
    player_id   TEXT PRIMARY KEY REFERENCES players(id),
    created_at  INTEGER NOT NULL
);

-- The capacity check's counters (unfinished games in all, by address bucket, by player),
-- kept by triggers in the same statement as the games rows they count: never a scan.
CREATE TABLE IF NOT EXISTS load_counters (
    key  TEXT PRIMARY KEY,
    n    INTEGER NOT NULL DEFAULT 0
);

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

-- Player Info's totals (per player, match-up and side) and the match-up statistics,
-- kept by triggers in the same statement as the games rows they count: never a scan.
-- What counts: a finished game, not aborted, not against oneself; the statistics count
-- only `link` games in which a move was played.
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

-- "Learn the pieces" (issue 31, item 3): the lessons each player has completed, once per
-- lesson (the first time kept). The rows go with their player's row (an empty guest swept);
-- a merged guest's move to the account first.
CREATE TABLE IF NOT EXISTS lesson_progress (
    player_id     TEXT NOT NULL REFERENCES players(id) ON DELETE CASCADE,
    lesson_id     TEXT NOT NULL,
    completed_at  INTEGER NOT NULL,
    PRIMARY KEY (player_id, lesson_id)
) WITHOUT ROWID;
