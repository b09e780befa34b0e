-- Migration 0004: chosen display names by their normalised form (service::names::key:
-- NFKC, lowercase): the primary key makes two look-alike names impossible, even when
-- chosen at once. Guests' `Guest-…` names have no row (no one can choose one).
CREATE TABLE IF NOT EXISTS player_names (
    name_key   TEXT PRIMARY KEY,
    player_id  TEXT NOT NULL UNIQUE REFERENCES players(id)
);
