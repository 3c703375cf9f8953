//! A studio's back end on the wire: listing its games, reissued seat tokens, spectator tokens.

use serde::{Deserialize, Serialize};
use utoipa::{IntoParams, ToSchema};
use uuid::Uuid;

use engine::{TurnView, Variant};

use super::cursor::{Bound, Unopened};
use super::{Code, CursorSeal, Invalid};
use crate::domain::{GameStatus, PlayerId, SeatKind};
use crate::store::{Cursor, GameListing};

/// Games on a page when `limit` is not given.
pub const DEFAULT_LIMIT: u32 = 50;
/// Most games on a page.
pub const MAX_LIMIT: u32 = 200;

/// `GET /v1/games` query.
#[derive(Debug, Deserialize, IntoParams)]
#[serde(deny_unknown_fields)]
#[into_params(parameter_in = Query)]
pub struct ListGamesQuery {
    /// Only games in this status: `waiting`, `playing`, `suspended`, `finished` or `void`.
    #[param(example = "playing")]
    pub status: Option<GameStatus>,
    /// Only games with a seat naming this player (the studio's id, 1 to 128 characters).
    #[param(
        example = "u-123",
        min_length = 1,
        max_length = 128,
        pattern = r"^[^\x00-\x1f\x7f-\x9f]*$"
    )]
    pub player: Option<String>,
    /// Games per page, 1 to 200 (default 50).
    #[param(example = 50, minimum = 1, maximum = 200)]
    pub limit: Option<u32>,
    /// The `next_cursor` of the page before.
    #[param(
        pattern = r"^[A-Za-z0-9_-]{64}$",
        example = "AAZg62WzvkBvHB9Tik5MOZ0MP49bDmoRLXEWQrcmsEQBYnyp-6wy9chTD7GQPMTb"
    )]
    pub cursor: Option<String>,
}

/// What a listing's cursor is sealed as (docs/api.md#cursors).
const LISTING: &str = "games";

/// The board a listing's cursor is bound to besides its tenant: the listing's filters (a
/// player's id holds no control character, so the line break parts the two).
fn listing_board(listing: &GameListing) -> String {
    format!(
        "{}\n{}",
        listing.status.map_or("", GameStatus::as_str),
        listing.player.as_ref().map_or("", PlayerId::as_str)
    )
}

/// The reason a cursor refused by [`CursorSeal::open`] is given, for `reads` (what the request
/// reads) and `other_board` (what a cursor of another board of the tenant is).
pub(super) fn cursor_refused(why: Unopened, reads: &str, other_board: &str) -> Invalid {
    let detail = match why {
        Unopened::NotGiven => format!("`cursor` is not a next_cursor this server gave for {reads}"),
        Unopened::OtherTenant => {
            "`cursor` is a next_cursor this server gave another tenant: a cursor reads only with a key of the tenant it was given to".to_owned()
        }
        Unopened::OtherBoard => format!("`cursor` is a next_cursor {other_board}, not for {reads}"),
    };
    Invalid::new(Code::InvalidCursor, format!("{detail}: start again without one"))
}

/// A cursor as the opaque text clients send back: the creation time (8 bytes, big-endian) and
/// the id (16 bytes), bound to `tenant` and the listing's filters and sealed ([`CursorSeal`]):
/// 64 characters of unpadded base64url.
pub fn encode_cursor(seal: &CursorSeal, tenant: &str, listing: &GameListing, cursor: &Cursor) -> String {
    let mut bytes = [0u8; 24];
    bytes[..8].copy_from_slice(&cursor.created_us.to_be_bytes());
    bytes[8..].copy_from_slice(cursor.id.as_bytes());
    let board = listing_board(listing);
    seal.seal(
        LISTING,
        Bound {
            tenant,
            board: &board,
        },
        &bytes,
    )
}

/// Reads a cursor sent back for `tenant`'s `listing` (its filters; its own cursor aside).
///
/// # Errors
/// `invalid_cursor` for anything [`encode_cursor`] did not write with this seal for this
/// tenant and these filters, saying which.
pub fn decode_cursor(
    seal: &CursorSeal,
    tenant: &str,
    listing: &GameListing,
    text: &str,
) -> Result<Cursor, Invalid> {
    let board = listing_board(listing);
    let reads = "this listing of games";
    let bytes = seal
        .open(
            LISTING,
            Bound {
                tenant,
                board: &board,
            },
            text,
        )
        .map_err(|why| cursor_refused(why, reads, "of a listing with other filters (`status`, `player`)"))?;
    let invalid = || cursor_refused(Unopened::NotGiven, reads, "");
    let bytes: [u8; 24] = bytes.try_into().map_err(|_| invalid())?;
    let (at, id) = bytes.split_at(8);
    Ok(Cursor {
        created_us: i64::from_be_bytes(at.try_into().map_err(|_| invalid())?),
        id: Uuid::from_slice(id).map_err(|_| invalid())?,
    })
}

impl ListGamesQuery {
    /// The listing `tenant` asked for, its cursor opened with `seal`.
    ///
    /// # Errors
    /// `invalid_limit`, `invalid_player`, `invalid_cursor`.
    pub fn listing(self, seal: &CursorSeal, tenant: &str) -> Result<GameListing, Invalid> {
        let limit = self.limit.unwrap_or(DEFAULT_LIMIT);
        if !(1..=MAX_LIMIT).contains(&limit) {
            return Err(Invalid::new(
                Code::InvalidLimit,
                format!("`limit` is 1 to {MAX_LIMIT}"),
            ));
        }
        let mut listing = GameListing {
            status: self.status,
            player: self.player.map(super::player_id).transpose()?,
            limit,
            after: None,
        };
        listing.after = self
            .cursor
            .as_deref()
            .map(|c| decode_cursor(seal, tenant, &listing, c))
            .transpose()?;
        Ok(listing)
    }
}

/// A seat in a listing.
#[derive(Debug, Serialize, Deserialize, ToSchema)]
pub struct ListedSeat {
    /// Seat index from 0.
    pub seat: u8,
    /// The name, once known.
    pub name: Option<String>,
    /// `player`, `open` or `bot`.
    #[schema(value_type = String, example = "player")]
    pub kind: SeatKind,
    /// A bot's level (https://github.com/continental-rummy/continental/blob/main/docs/bots.md); absent for any other seat.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schema(schema_with = crate::domain::level_schema)]
    pub level: Option<engine::bot::Level>,
}

/// A game in a listing.
#[derive(Debug, Serialize, Deserialize, ToSchema)]
pub struct ListedGame {
    /// Game id.
    pub id: Uuid,
    /// The variant.
    pub variant: Variant,
    /// Where the game is.
    pub status: GameStatus,
    /// The game's version (its `ETag`).
    pub version: i64,
    /// When it was created (RFC 3339, UTC).
    #[schema(example = "2026-11-23T06:00:00.123456Z")]
    pub created_at: String,
    /// Every seat.
    pub seats: Vec<ListedSeat>,
    /// Whose turn, while playing.
    pub turn: Option<TurnView>,
    /// The stored game does not load (`corrupt_game`): the listing shows what its row says
    /// (no seats, no turn), and reading the game answers `500 corrupt_game`.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub corrupt: bool,
}

/// `GET /v1/games` response.
#[derive(Debug, Serialize, Deserialize, ToSchema)]
#[schema(example = json!({"games": [{"id": "6f1c1f53-8a4e-4c39-9d0c-3f8f5b0e6a11", "variant": "may_i", "status": "playing",
    "version": 4, "created_at": "2026-11-23T06:00:00.123456Z",
    "seats": [{"seat": 0, "name": "Ann", "kind": "player"}, {"seat": 1, "name": "Bob", "kind": "player"}, {"seat": 2, "name": "Bot 3", "kind": "bot", "level": "hard"}],
    "turn": {"seat": 1, "phase": "draw"}}],
    "next_cursor": "AAZg62WzvkBvHB9Tik5MOZ0MP49bDmoRLXEWQrcmsEQBYnyp-6wy9chTD7GQPMTb"}))]
pub struct GamesPage {
    /// The tenant's games, newest first.
    pub games: Vec<ListedGame>,
    /// The `cursor` of the next page; null on the last page.
    pub next_cursor: Option<String>,
}

/// `POST /v1/games/{id}/seats/{seat}/token` response.
#[derive(Debug, Serialize, Deserialize, ToSchema)]
#[schema(example = json!({"id": "6f1c1f53-8a4e-4c39-9d0c-3f8f5b0e6a11", "seat": 1, "token": "eyJ0eXAiOiJKV1QiLCJhbGciOiJIUzI1NiJ9…"}))]
pub struct SeatTokenResponse {
    /// The game.
    pub id: Uuid,
    /// The seat.
    pub seat: u8,
    /// The seat's new token; every earlier one is refused from now on.
    pub token: String,
}

/// `POST /v1/games/{id}/spectators` response.
#[derive(Debug, Serialize, Deserialize, ToSchema)]
#[schema(example = json!({"id": "6f1c1f53-8a4e-4c39-9d0c-3f8f5b0e6a11", "token": "eyJ0eXAiOiJKV1QiLCJhbGciOiJIUzI1NiJ9…"}))]
pub struct SpectatorTokenResponse {
    /// The game.
    pub id: Uuid,
    /// A token that reads the game's view, events and stream with every hand hidden.
    pub token: String,
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_cursor_round_trips_on_its_listing_and_any_other_text_is_refused() {
        let seal = CursorSeal::new(b"the server's secret");
        let c = Cursor {
            created_us: 1_795_414_000_123_456,
            id: Uuid::new_v4(),
        };
        let listing = GameListing {
            status: Some(GameStatus::Playing),
            player: Some(PlayerId::try_from("u-123").expect("an id")),
            limit: 50,
            after: None,
        };
        let good = encode_cursor(&seal, "acme", &listing, &c);
        assert_eq!(
            decode_cursor(&seal, "acme", &listing, &good).expect("round trip"),
            c
        );
        assert_eq!(good.len(), 64);
        let refused = |tenant: &str, listing: &GameListing, text: &str| {
            let invalid = decode_cursor(&seal, tenant, listing, text).expect_err(text);
            assert_eq!(invalid.code, Code::InvalidCursor.into(), "{text}");
            invalid.detail
        };
        assert!(refused("beta", &listing, &good).contains("another tenant"));
        for other in [
            GameListing {
                status: None,
                ..listing.clone()
            },
            GameListing {
                player: None,
                ..listing.clone()
            },
            GameListing {
                player: Some(PlayerId::try_from("u-124").expect("an id")),
                ..listing.clone()
            },
        ] {
            assert!(
                refused("acme", &other, &good).contains("other filters"),
                "{other:?}"
            );
        }
        for bad in [
            String::new(),
            "!!".into(),
            "bm9wZQ".into(),
            "A".repeat(32),
            "A".repeat(64),
            format!("{good}A"),
            good[..63].to_owned(),
            format!("{}+", &good[..63]),
            format!(" {}", &good[..63]),
            encode_cursor(&CursorSeal::new(b"another server's secret"), "acme", &listing, &c),
        ] {
            assert!(
                refused("acme", &listing, &bad).contains("not a next_cursor"),
                "{bad}"
            );
        }
    }
}

/// `POST /v1/games/{id}/rematch` response.
#[derive(Debug, Serialize, Deserialize, ToSchema)]
#[schema(example = json!({"id": "0d8a3e8e-33c1-4c3a-9a51-7d7b3b1f2c55", "seat": 1, "token": "eyJ0eXAiOiJKV1QiLCJhbGciOiJIUzI1NiJ9…", "status": "waiting"}))]
pub struct RematchResponse {
    /// The rematch: the same id for every seat and every call.
    pub id: Uuid,
    /// A seat token's call: its own seat in the rematch (the same as in this game).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub seat: Option<u8>,
    /// A seat token's call: a token for that seat of the rematch. A server key's call gets
    /// none (`POST /v1/games/{id}/seats/{seat}/token` on the rematch makes one).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub token: Option<String>,
    /// `waiting` until every player's seat has asked, then `playing`.
    #[schema(example = "waiting")]
    pub status: GameStatus,
}

/// Most characters of the reason a studio gives for ending a game.
pub const MAX_REASON: usize = 200;

/// `POST /v1/games/{id}/end` request.
#[derive(Debug, Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
#[schema(example = json!({"reason": "a reported cheat"}))]
pub struct EndGameRequest {
    /// Why the game ends, as every reader and the webhook are told: 1 to 200 characters, not
    /// all spaces, no control character.
    #[schema(
        example = "a reported cheat",
        min_length = 1,
        max_length = 200,
        pattern = r"^[^\x00-\x1f\x7f-\x9f]*[^\x00-\x20\x7f-\x9f][^\x00-\x1f\x7f-\x9f]*$"
    )]
    pub reason: String,
    /// Rate the game on its standings as they stand: the totals of the deals played to their
    /// end, the deal in progress counting for nothing
    /// (https://github.com/continental-rummy/continental/blob/main/docs/ratings.md#rated-end).
    /// Only a rated game (`409 game_not_rated`) with a deal played to its end
    /// (`409 no_deal_ended`). `false` when left out: the game is void and never rated.
    #[serde(default)]
    pub rated: bool,
}

/// The reason a studio ends a game for, read: 1 to [`MAX_REASON`] characters, not all
/// spaces, no control character, kept without its outer spaces.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct EndReason(pub String);

impl TryFrom<EndGameRequest> for EndReason {
    type Error = Invalid;
    fn try_from(req: EndGameRequest) -> Result<Self, Invalid> {
        let reason = req.reason;
        let length = reason.chars().count();
        if !(1..=MAX_REASON).contains(&length)
            || reason.chars().any(char::is_control)
            || reason.chars().all(|c| c == ' ')
        {
            return Err(Invalid::new(
                Code::InvalidReason,
                format!(
                    "a reason is 1 to {MAX_REASON} characters, not all spaces, with no control character"
                ),
            ));
        }
        Ok(EndReason(reason.trim_matches(' ').to_owned()))
    }
}

/// `POST /v1/games/{id}/seats/{seat}/bot` request: the body may be empty (`{}`).
#[derive(Debug, Default, Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
#[schema(example = json!({"level": "hard"}))]
pub struct SeatBotRequest {
    /// How well the bot plays: `easy`, `normal` (when left out) or `hard`; another is
    /// `400 unknown_level`.
    #[serde(default, deserialize_with = "super::games::named_level")]
    #[schema(schema_with = crate::domain::level_schema)]
    pub level: Option<engine::bot::Level>,
}

/// `POST /v1/games/{id}/end` and `POST /v1/games/{id}/seats/{seat}/bot` response.
#[derive(Debug, Serialize, Deserialize, ToSchema)]
#[schema(example = json!({"id": "6f1c1f53-8a4e-4c39-9d0c-3f8f5b0e6a11", "status": "void", "version": 42}))]
pub struct StudioActionResponse {
    /// The game.
    pub id: Uuid,
    /// Where it stands now.
    #[schema(example = "void")]
    pub status: GameStatus,
    /// Its version now (also the `ETag` of its view).
    pub version: i64,
}
