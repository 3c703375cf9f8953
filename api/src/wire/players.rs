//! Players, their ratings and leaderboards on the wire (docs/api.md#players,
//! docs/api.md#leaderboards).

use engine::Variant;
use engine::bot::Level;
use serde::{Deserialize, Serialize};
use utoipa::{IntoParams, ToSchema};

use super::cursor::{Bound, Unopened};
use super::studio::cursor_refused;
use super::studio::{DEFAULT_LIMIT, MAX_LIMIT};
use super::{Code, CursorSeal, Invalid};
use crate::domain::{Rating, RatingChange};
use crate::store::BoardCursor;

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

/// `GET /v1/players/{id}` response: the player's rating in each variant they were rated in,
/// and their record at the key's tenant.
#[derive(Debug, Serialize, Deserialize, ToSchema)]
#[schema(example = json!({"player": "u-123", "ratings": [{"variant": "may_i",
    "rating": {"mean": 27.3, "deviation": 3.1, "display": 1638}, "conservative": 1080, "games": 12}],
    "record": {"games": 14, "finished": 12, "won": 5}}))]
pub struct PlayerResponse {
    /// The studio's id of the player.
    pub player: String,
    /// A rating per variant the player was rated in, by variant id.
    pub ratings: Vec<PlayerRatingView>,
    /// Their games at the tenant.
    pub record: RecordView,
}

/// A player's rating in one variant.
#[derive(Debug, Serialize, Deserialize, ToSchema)]
pub struct PlayerRatingView {
    /// The variant.
    #[schema(value_type = String, example = "may_i")]
    pub variant: Variant,
    /// The rating.
    pub rating: RatingView,
    /// The mean less three deviations on the display scale: what leaderboards sort by.
    pub conservative: i64,
    /// Rated games played in the variant.
    pub games: i64,
}

/// A player's games at a tenant, counted.
#[derive(Debug, Serialize, Deserialize, ToSchema)]
pub struct RecordView {
    /// Games with a seat naming the player.
    pub games: i64,
    /// Of those, the finished ones.
    pub finished: i64,
    /// Rated games won (their seat, or in push's partnerships their team, placed first).
    pub won: i64,
}

/// `GET /v1/bots` response: every bot level's rating in every variant, at the tenant asked.
#[derive(Debug, Serialize, Deserialize, ToSchema)]
#[schema(example = json!({"bots": [
    {"variant": "may_i", "level": "easy", "rating": {"mean": 21.0, "deviation": 1.2, "display": 1260}},
    {"variant": "may_i", "level": "hard", "rating": {"mean": 27.3, "deviation": 1.1, "display": 1638}}]}))]
pub struct BotsResponse {
    /// A row per variant and level, variants in the order `GET /v1/rulesets` lists them, levels
    /// from the weakest.
    pub bots: Vec<BotRatingView>,
}

/// A bot level's rating in one variant.
#[derive(Debug, Serialize, Deserialize, ToSchema)]
pub struct BotRatingView {
    /// The variant.
    #[schema(value_type = String, example = "may_i")]
    pub variant: Variant,
    /// The level (https://github.com/continental-rummy/continental/blob/main/docs/bots.md).
    #[schema(schema_with = crate::domain::level_schema)]
    pub level: Level,
    /// The level's rating: its seeded figure until rated games against the tenant's people
    /// move it.
    pub rating: RatingView,
}

/// The query of a page of games or of a leaderboard.
#[derive(Debug, Deserialize, IntoParams)]
#[serde(deny_unknown_fields)]
#[into_params(parameter_in = Query)]
pub struct PageQuery {
    /// Entries per page, 1 to 200 (default 50).
    #[param(example = 50, minimum = 1, maximum = 200)]
    pub limit: Option<u32>,
    /// The `next_cursor` of the page before.
    #[param(
        pattern = r"^[A-Za-z0-9_-]{64}$",
        example = "AAZg62WzvkBvHB9Tik5MOZ0MP49bDmoRLXEWQrcmsEQBYnyp-6wy9chTD7GQPMTb"
    )]
    pub cursor: Option<String>,
}

/// A page of a leaderboard.
#[derive(Debug, Deserialize, IntoParams)]
#[serde(deny_unknown_fields)]
#[into_params(parameter_in = Query)]
pub struct BoardQuery {
    /// Entries per page, 1 to 200 (default 50).
    #[param(example = 50, minimum = 1, maximum = 200)]
    pub limit: Option<u32>,
    /// The `next_cursor` of the page before (a cursor this server gave the key's tenant for
    /// this variant's board; any other text is `400 invalid_cursor`).
    #[param(
        pattern = r"^[A-Za-z0-9_-]{54,735}$",
        example = "QDkAAAAAAABwbGF5ZXI6dS0xMjOh_OQ2OFT_iIz_S454ddYAwmgjkEEqjPc"
    )]
    pub cursor: Option<String>,
    /// The page around this player (the studio's id): their rank, and the entries just above
    /// and below them (`player` and `players` in the answer). Not with `cursor`.
    #[param(
        example = "u-123",
        min_length = 1,
        max_length = 128,
        pattern = r"^[^\x00-\x1f\x7f-\x9f]*$"
    )]
    pub around: Option<String>,
}

impl BoardQuery {
    /// The page's size.
    ///
    /// # Errors
    /// `invalid_limit` outside 1 to 200.
    pub fn limit(&self) -> Result<u32, Invalid> {
        PageQuery {
            limit: self.limit,
            cursor: None,
        }
        .limit()
    }
}

impl PageQuery {
    /// The page's size.
    ///
    /// # Errors
    /// `invalid_limit` outside 1 to 200.
    pub fn limit(&self) -> Result<u32, Invalid> {
        let limit = self.limit.unwrap_or(DEFAULT_LIMIT);
        if !(1..=MAX_LIMIT).contains(&limit) {
            return Err(Invalid::new(
                Code::InvalidLimit,
                format!("`limit` is 1 to {MAX_LIMIT}"),
            ));
        }
        Ok(limit)
    }
}

/// `POST /v1/leaderboards/{variant}/tokens` response: a token that reads one board.
#[derive(Debug, Serialize, Deserialize, ToSchema)]
#[schema(example = json!({"variant": "may_i", "token": "eyJ0eXAiOiJKV1QiLCJhbGciOiJIUzI1NiJ9…",
    "expires_at": "2026-12-31T12:00:00Z", "page": "/play#/board/eyJ0eXAiOiJKV1QiLCJhbGciOiJIUzI1NiJ9…"}))]
pub struct BoardTokenResponse {
    /// The board it reads: this variant's, at the key's tenant.
    pub variant: Variant,
    /// `Authorization: Bearer <token>` on `GET /v1/leaderboards/{variant}` reads that board and
    /// nothing else, with no server key, until it expires.
    pub token: String,
    /// When the token stops working (RFC 3339, UTC); removing every key of the tenant stops it
    /// sooner.
    pub expires_at: String,
    /// The board in the browser (`/play`), for the studio to link its players to: the token
    /// rides in the address's fragment, which a browser never sends to a server.
    pub page: String,
}

/// `GET /v1/leaderboards/{variant}` response: a page of the tenant's players.
#[derive(Debug, Serialize, Deserialize, ToSchema)]
#[schema(example = json!({"entries": [{"rank": 1, "player": "u-123",
    "rating": {"mean": 31.0, "deviation": 2.0, "display": 1860}, "conservative": 1500, "games": 40}],
    "next_cursor": null}))]
pub struct LeaderboardPage {
    /// The players, by `conservative` down, equal values by player id.
    pub entries: Vec<LeaderboardEntry>,
    /// The `cursor` of the next page (after the last entry); null on the last page.
    pub next_cursor: Option<String>,
    /// With `around`: the player's own entry (also among `entries`), with their rank.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub player: Option<LeaderboardEntry>,
    /// With `around`: how many players are on the board.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub players: Option<u64>,
}

/// One player on a leaderboard.
#[derive(Clone, Debug, Serialize, Deserialize, ToSchema)]
pub struct LeaderboardEntry {
    /// Their place on the board, from 1.
    pub rank: u64,
    /// The studio's id of the player.
    pub player: String,
    /// Their rating in the variant.
    pub rating: RatingView,
    /// The mean less three deviations on the display scale: what the board sorts by.
    pub conservative: i64,
    /// Rated games played in the variant.
    pub games: i64,
}

/// What a leaderboard's cursor is sealed as (docs/api.md#cursors): bound to its tenant and
/// its variant's board.
const LEADERBOARD: &str = "leaderboard";

/// A leaderboard's cursor as the opaque text clients send back: the last row's conservative
/// value (its IEEE bits, 8 bytes big-endian) and its participant key, a pure keyset, bound to
/// `tenant` and `variant`'s board and sealed ([`CursorSeal`]).
pub fn encode_board_cursor(
    seal: &CursorSeal,
    tenant: &str,
    variant: Variant,
    cursor: &BoardCursor,
) -> String {
    let mut bytes = Vec::with_capacity(8 + cursor.participant.len());
    bytes.extend_from_slice(&cursor.conservative.to_bits().to_be_bytes());
    bytes.extend_from_slice(cursor.participant.as_bytes());
    let bound = Bound {
        tenant,
        board: variant.id(),
    };
    seal.seal(LEADERBOARD, bound, &bytes)
}

/// Reads a cursor of `tenant`'s leaderboard in `variant` sent back.
///
/// # Errors
/// `invalid_cursor` for anything [`encode_board_cursor`] did not write with this seal for this
/// tenant and variant, saying which (the variant it was given for, when it was another).
pub fn decode_board_cursor(
    seal: &CursorSeal,
    tenant: &str,
    variant: Variant,
    text: &str,
) -> Result<BoardCursor, Invalid> {
    let reads = format!("the {} leaderboard", variant.id());
    let bound = |v: Variant| Bound {
        tenant,
        board: v.id(),
    };
    let bytes = seal.open(LEADERBOARD, bound(variant), text).map_err(|why| {
        let given = Variant::ALL
            .into_iter()
            .find(|v| seal.open(LEADERBOARD, bound(*v), text).is_ok())
            .map_or_else(
                || "of another leaderboard".to_owned(),
                |v| format!("of the {} leaderboard", v.id()),
            );
        cursor_refused(why, &reads, &given)
    })?;
    let invalid = || cursor_refused(Unopened::NotGiven, &reads, "");
    if bytes.len() < 8 {
        return Err(invalid());
    }
    let (bits, key) = bytes.split_at(8);
    let conservative = f64::from_bits(u64::from_be_bytes(bits.try_into().map_err(|_| invalid())?));
    let participant = String::from_utf8(key.to_vec()).map_err(|_| invalid())?;
    Ok(BoardCursor {
        conservative,
        participant,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_board_cursor_reads_back_on_its_tenants_board_only() {
        let seal = CursorSeal::new(b"the server's secret");
        let cursor = BoardCursor {
            conservative: -1.25e-3,
            participant: "player:ännä".into(),
        };
        let text = encode_board_cursor(&seal, "acme", Variant::MayI, &cursor);
        assert_eq!(
            decode_board_cursor(&seal, "acme", Variant::MayI, &text).expect("its own"),
            cursor
        );
        let detail = |tenant: &str, variant: Variant, text: &str| {
            decode_board_cursor(&seal, tenant, variant, text)
                .expect_err(text)
                .detail
        };
        assert!(
            detail("acme", Variant::Push, &text)
                .contains("of the may_i leaderboard, not for the push leaderboard")
        );
        assert!(detail("beta", Variant::MayI, &text).contains("another tenant"));
        for made_up in [
            "",
            "!!",
            "AAAA",
            &"A".repeat(24),
            &"A".repeat(43),
            &"-".repeat(400),
        ] {
            assert!(
                detail("acme", Variant::MayI, made_up).contains("not a next_cursor"),
                "{made_up:?}"
            );
        }
    }
}
