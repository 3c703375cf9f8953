//! A studio's own name for one of its players: an opaque, bounded string, read once at the edge.

use serde::{Deserialize, Serialize};

/// Longest player id, in bytes.
pub const MAX_PLAYER_ID_CHARS: usize = 128;

/// A studio's id for one of its players (`"u-123"`): opaque to the service, compared byte for
/// byte, between 1 and [`MAX_PLAYER_ID_CHARS`] bytes, without control characters. The only way
/// to one is [`PlayerId::try_from`].
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(try_from = "String", into = "String")]
pub struct PlayerId(String);

/// Why a string is not a player id.
#[derive(Clone, Copy, Debug, PartialEq, Eq, thiserror::Error)]
pub enum PlayerIdError {
    /// The empty string.
    #[error("a player id is not empty")]
    Empty,
    /// Longer than [`MAX_PLAYER_ID_CHARS`].
    #[error("a player id is at most {MAX_PLAYER_ID_CHARS} characters")]
    TooLong,
    /// A control character (a line break, a tab, NUL...).
    #[error("a player id has no control characters")]
    Control,
}

impl PlayerId {
    /// The id as the studio wrote it.
    pub fn as_str(&self) -> &str {
        &self.0
    }
}

impl TryFrom<String> for PlayerId {
    type Error = PlayerIdError;
    fn try_from(s: String) -> Result<Self, Self::Error> {
        if s.is_empty() {
            Err(PlayerIdError::Empty)
        } else if s.chars().count() > MAX_PLAYER_ID_CHARS {
            Err(PlayerIdError::TooLong)
        } else if s.chars().any(char::is_control) {
            Err(PlayerIdError::Control)
        } else {
            Ok(PlayerId(s))
        }
    }
}

impl TryFrom<&str> for PlayerId {
    type Error = PlayerIdError;
    fn try_from(s: &str) -> Result<Self, Self::Error> {
        PlayerId::try_from(s.to_owned())
    }
}

impl From<PlayerId> for String {
    fn from(id: PlayerId) -> String {
        id.0
    }
}

impl std::fmt::Display for PlayerId {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.0)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_player_id_is_bounded_and_printable() {
        let rows: [(&str, Result<(), PlayerIdError>, &str); 6] = [
            ("u-123", Ok(()), "a plain id"),
            ("ännä@example.com", Ok(()), "any printable text"),
            ("", Err(PlayerIdError::Empty), "empty"),
            ("a\nb", Err(PlayerIdError::Control), "a line break"),
            ("x\u{0}", Err(PlayerIdError::Control), "NUL"),
            (&"x".repeat(MAX_PLAYER_ID_CHARS), Ok(()), "the longest"),
        ];
        for (text, expected, why) in rows {
            assert_eq!(PlayerId::try_from(text).map(|_| ()), expected, "{why}");
        }
        assert!(
            PlayerId::try_from("é".repeat(MAX_PLAYER_ID_CHARS)).is_ok(),
            "counted in characters, as the document's maxLength counts"
        );
        assert_eq!(
            PlayerId::try_from("é".repeat(MAX_PLAYER_ID_CHARS + 1)),
            Err(PlayerIdError::TooLong),
            "one character too many"
        );
    }

    #[test]
    fn a_player_id_reads_back_through_serde_with_the_same_checks() {
        let id: PlayerId = serde_json::from_str("\"u-123\"").expect("valid");
        assert_eq!(id.as_str(), "u-123");
        assert_eq!(serde_json::to_string(&id).expect("serialises"), "\"u-123\"");
        assert!(
            serde_json::from_str::<PlayerId>("\"\"").is_err(),
            "load is validation"
        );
    }
}
