//! The network AI's shipped files, checked before they are played: the Worker fetches the
//! model and the learned leaf scores from its static assets (`src/net.rs`) and hands the
//! bytes here. What arrives must be exactly the file the module was built and tested with
//! (a missing asset would otherwise come back as the single-page app's index.html), so
//! each is refused unless its SHA-256 is the module's. No tract here: the checks and the
//! leaf scores run in native tests; the model itself is built in [`crate::net_ai`].

use ai::leafnet::LeafNet;
use ai::level::{LeafFile, Leaves};
use sha2::{Digest, Sha256};

use crate::error::{ApiError, ErrorCode};

/// 503 `ai_unavailable`: the AI's files did not load (`why`), so no AI move is made.
pub fn unavailable(why: String) -> ApiError {
    ApiError::new(ErrorCode::AiUnavailable, format!("the AI's network did not load: {why}"))
}

/// The assets' answer for `file` (`status`): only a 200 carries the file.
pub fn answered(file: &str, status: u16) -> Result<(), ApiError> {
    if status != 200 {
        return Err(unavailable(format!("{file}: the assets answered {status}")));
    }
    Ok(())
}

/// `bytes` if their SHA-256 is `sha256` (lowercase hex), else 503 `ai_unavailable` naming
/// the file, its size and the hash that arrived.
pub fn verified<'a>(file: &str, bytes: &'a [u8], sha256: &str) -> Result<&'a [u8], ApiError> {
    let hash: String = Sha256::digest(bytes).iter().map(|b| format!("{b:02x}")).collect();
    if hash != sha256 {
        return Err(unavailable(format!(
            "{file} from the assets ({} bytes) has SHA-256 {hash}, not the module's {sha256}",
            bytes.len()
        )));
    }
    Ok(bytes)
}

/// The learned leaf score (`ai::leafnet`) from the asset `file`, checked against `sha256`.
pub fn leaf(file: &str, bytes: &[u8], sha256: &str) -> Result<LeafNet, ApiError> {
    LeafNet::from_bytes(verified(file, bytes, sha256)?).map_err(|e| unavailable(format!("{file}: {e}")))
}

/// The leaf score from the asset `file` (checked against `sha256`) into its place among
/// `leaves`; 500 if `file` is none of the levels' leaf files (`ai::level::LeafFile`: a
/// module built naming another file), 503 as [`leaf`] if the bytes are not that file.
pub fn load_leaf(leaves: &mut Leaves, file: &str, bytes: &[u8], sha256: &str) -> Result<(), ApiError> {
    let which = LeafFile::from_file(file)
        .ok_or_else(|| ApiError::internal(format!("{file} is not a leaf score the levels play")))?;
    leaves.set(which, leaf(file, bytes, sha256)?);
    Ok(())
}

/// 500: an engine that needs the leaf score ran in a request that did not load it first.
pub fn leaf_not_prepared() -> ApiError {
    ApiError::internal("the AI's leaf score was not prepared for this request")
}

/// 500: an engine that needs the network ran in a request that did not load it first.
pub fn network_not_prepared() -> ApiError {
    ApiError::internal("the AI's network was not prepared for this request")
}
