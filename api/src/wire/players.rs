//! Players, their ratings and leaderboards on the wire (docs/api.md#players,
//! docs/api.md#leaderboards).

use serde::{Deserialize, Serialize};
use utoipa::ToSchema;

use crate::domain::{Rating, RatingChange};

/// A rating as the API shows it everywhere: the model's mean and deviation, and the mean on
/// the display scale (https://github.com/continental-rummy/continental/blob/main/docs/ratings.md#display).
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize, ToSchema)]
#[schema(example = json!({"mean": 27.3, "deviation": 3.1, "display": 1638}))]
pub struct RatingView {
    /// The estimated skill on the model's scale (a new player: 25).
    pub mean: f64,
    /// How unsure the estimate is (a new player: 25/3); it narrows as games are rated.
    pub deviation: f64,
    /// The mean on the display scale, 60 points a unit: a new player shows 1500.
    pub display: i64,
}

impl From<Rating> for RatingView {
    fn from(r: Rating) -> Self {
        RatingView {
            mean: r.mean,
            deviation: r.deviation,
            display: r.display(),
        }
    }
}

/// A seat's rating before and after its finished, rated game.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize, ToSchema)]
pub struct RatingChangeView {
    /// The rating going in.
    pub before: RatingView,
    /// The rating the game left.
    pub after: RatingView,
}

impl From<RatingChange> for RatingChangeView {
    fn from(c: RatingChange) -> Self {
        RatingChangeView {
            before: c.before.into(),
            after: c.after.into(),
        }
    }
}
