//! Where a game's record lives: the Durable Object's SQLite storage in production, memory
//! in tests. Saving is all-or-nothing; the service saves before it answers.

use crate::model::GameRecord;

pub trait GameStore {
    fn load(&self) -> Result<Option<GameRecord>, String>;
    /// Writes `record` as it is (the store's own part: tests and the object's storage).
    fn save(&mut self, record: &GameRecord) -> Result<(), String>;

    /// Saves `record` as its next version ([`GameRecord::version`]): the only way the
    /// service writes a game, so a view made after it carries the saved version.
    fn save_next(&mut self, record: &mut GameRecord) -> Result<(), String> {
        record.version += 1;
        self.save(record)
    }
}

/// An in-memory store for tests; `fail_saves` simulates a storage failure.
#[derive(Debug, Default)]
pub struct MemoryStore {
    pub record: Option<GameRecord>,
    pub fail_saves: bool,
    pub saves: usize,
}

impl GameStore for MemoryStore {
    fn load(&self) -> Result<Option<GameRecord>, String> {
        Ok(self.record.clone())
    }

    fn save(&mut self, record: &GameRecord) -> Result<(), String> {
        if self.fail_saves {
            return Err("simulated storage failure".into());
        }
        self.saves += 1;
        self.record = Some(record.clone());
        Ok(())
    }
}
