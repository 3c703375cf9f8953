//! The game's version on the wire: its `ETag`, `If-Match` and `If-None-Match`.

use actix_web::http::header::HeaderValue;

use super::{Code, Invalid};

/// The `ETag` of a game version.
pub fn etag(version: i64) -> String {
    format!("\"{version}\"")
}

/// Whether an `If-None-Match` value names `version` (then the answer is 304).
pub fn matches_if_none_match(value: &str, version: i64) -> bool {
    let tag = etag(version);
    value.split(',').any(|t| t.trim() == tag)
}

/// An `If-Match` precondition: act only if the game is at one of these versions.
#[derive(Clone, Debug)]
pub struct IfMatch(String);

/// `If-Match` names a version that is no longer current.
#[derive(Debug, thiserror::Error)]
#[error("the game is at version {current}, not {expected}: reload it and try again")]
pub struct StaleVersion {
    /// The version the client expected.
    pub expected: String,
    /// The version of the game now.
    pub current: i64,
}

impl TryFrom<&HeaderValue> for IfMatch {
    type Error = Invalid;

    fn try_from(value: &HeaderValue) -> Result<IfMatch, Invalid> {
        value
            .to_str()
            .map(|v| IfMatch(v.to_owned()))
            .map_err(|_| Invalid::new(Code::InvalidIfMatch, "If-Match must be an ETag like \"7\""))
    }
}

impl IfMatch {
    /// Checks the precondition against the game's `version`.
    ///
    /// # Errors
    /// [`StaleVersion`] unless it names `version` (or `*`).
    pub fn check(&self, version: i64) -> Result<(), StaleVersion> {
        let current = etag(version);
        let matches = self.0.split(',').map(str::trim).any(|t| {
            t == "*" || t == current || t.trim_start_matches("W/") == current || t == version.to_string()
        });
        if matches {
            Ok(())
        } else {
            Err(StaleVersion {
                expected: self.0.clone(),
                current: version,
            })
        }
    }
}
