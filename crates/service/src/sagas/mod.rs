//! The requests that span several objects: each a saga of steps over the ports
//! ([`crate::sql::Sql`] for D1, [`crate::ports`] for the games' objects, the limiters and
//! notifications), with what happens when a step fails written down beside it. The top
//! of the service: nothing else in it depends on these.

pub mod capacity;
pub mod challenges;
pub mod rematch;
pub mod signin;
pub mod stages;
