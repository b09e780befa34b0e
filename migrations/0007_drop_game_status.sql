-- Migration number: 0007 	 drop game_status
-- A link game's status (whose turn, deadline, draw offer) is no longer written to D1 after
-- every move: My games asks each unfinished game's own Durable Object (issue 30: D1 is one
-- writer for the whole service, and moves are its most frequent write).
DROP TABLE IF EXISTS game_status;
