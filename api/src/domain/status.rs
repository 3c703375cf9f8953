//! Where a game is, in the words clients read.

use serde::{Deserialize, Serialize};
use utoipa::ToSchema;

/// Where a game is: `waiting` for players, `playing`, `suspended` between deals (`may_i`),
/// `finished` with standings, or `void` (fewer than two players finished). The document's
/// name for the values of `status`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize, ToSchema)]
#[serde(rename_all = "snake_case")]
pub enum GameStatus {
    /// Open seats are still to be taken.
    Waiting,
    /// Deals are being played.
    Playing,
    /// Every seat asked to suspend between deals; play resumes when every seat asks again.
    Suspended,
    /// Every deal was played; `standings` are known.
    Finished,
    /// Fewer than two players finished: no standings.
    Void,
}

impl GameStatus {
    /// Every status, in the order a game goes through them.
    pub const ALL: [GameStatus; 5] = [
        GameStatus::Waiting,
        GameStatus::Playing,
        GameStatus::Suspended,
        GameStatus::Finished,
        GameStatus::Void,
    ];

    /// Its name, as stored and as clients read it.
    pub const fn as_str(self) -> &'static str {
        match self {
            GameStatus::Waiting => "waiting",
            GameStatus::Playing => "playing",
            GameStatus::Suspended => "suspended",
            GameStatus::Finished => "finished",
            GameStatus::Void => "void",
        }
    }

    /// The status named `name`, if any.
    pub fn named(name: &str) -> Option<GameStatus> {
        GameStatus::ALL.into_iter().find(|s| s.as_str() == name)
    }

    /// Whether the game is over: nothing more will happen in it.
    pub const fn is_over(self) -> bool {
        matches!(self, GameStatus::Finished | GameStatus::Void)
    }
}

#[cfg(test)]
mod tests {
    use super::GameStatus;

    #[test]
    fn each_status_is_named_as_serde_writes_it() {
        for s in GameStatus::ALL {
            assert_eq!(serde_json::to_value(s).expect("a status"), s.as_str());
            assert_eq!(GameStatus::named(s.as_str()), Some(s));
        }
        assert_eq!(GameStatus::named("over"), None);
    }
}
