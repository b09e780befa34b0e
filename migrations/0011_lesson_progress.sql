-- Migration number: 0011 	 lesson progress
-- "Learn the pieces" (issue 31, item 3): the lessons a player has completed, kept on the
-- account as well as in the browser, so that another browser (or a cleared one) shows
-- them done. One row per player and lesson: the primary key makes a repeated completion
-- (a retry, a second browser, the page merging its local progress) change nothing, and
-- the first time is the one kept (INSERT … ON CONFLICT DO NOTHING, service::db::lessons).
-- The rows are the player's alone and nothing else refers to them, so they go with the
-- player's row (ON DELETE CASCADE): an empty guest swept by the housekeeping takes its
-- lessons with it instead of failing the sweep on the foreign key. A guest merged into an
-- account has its rows moved to the account first (service::sql_players::merge_guest).
CREATE TABLE IF NOT EXISTS lesson_progress (
    player_id     TEXT NOT NULL REFERENCES players(id) ON DELETE CASCADE,
    lesson_id     TEXT NOT NULL,
    completed_at  INTEGER NOT NULL,
    PRIMARY KEY (player_id, lesson_id)
) WITHOUT ROWID;
