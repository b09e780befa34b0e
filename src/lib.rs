//! Iron Arena's Workers module.
//!
//! For now this crate only re-exports the rules engine so the workspace has its final
//! shape: the backend issue turns it into the Cloudflare Workers module (crate `worker`),
//! a thin adapter over `engine` (and later `ai`).

pub use engine;
