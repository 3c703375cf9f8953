//! A studio's players: their ratings and record, their games, and the leaderboards
//! (docs/api.md#players, docs/api.md#leaderboards). Reads only, each of the key's tenant.

use engine::Variant;
use engine::bot::Level;
use strum::IntoEnumIterator;

use crate::domain::{Participant, PlayerId};
use crate::error::ApiError;
use crate::server_keys::Tenant;
use crate::state::AppState;
use crate::store::{BoardCursor, GameListing, Store};
use crate::wire::{
    BotRatingView, BotsResponse, Code, GamesPage, LeaderboardEntry, LeaderboardPage, PlayerRatingView,
    PlayerResponse, RecordView, encode_board_cursor,
};

/// `player`'s ratings and record at `tenant`.
///
/// # Errors
/// `player_not_found` for a player with no game and no rating there (another tenant's player
/// answers the same); the store's failure.
pub async fn player(
    state: &AppState,
    tenant: &Tenant,
    player: &PlayerId,
) -> Result<PlayerResponse, ApiError> {
    let record = state.db.player(tenant.as_str(), player).await?;
    if record.games == 0 && record.ratings.is_empty() {
        return Err(ApiError::not_found(
            Code::PlayerNotFound,
            format!("no game and no rating of player {player} at this key's tenant"),
        ));
    }
    let won = record.ratings.iter().map(|r| r.won).sum();
    let ratings = record
        .ratings
        .into_iter()
        .map(|r| {
            Ok(PlayerRatingView {
                variant: r.variant.parse().map_err(ApiError::unexpected)?,
                rating: r.rating.into(),
                conservative: r.rating.conservative_display(),
                games: r.games,
            })
        })
        .collect::<Result<_, ApiError>>()?;
    Ok(PlayerResponse {
        player: player.as_str().to_owned(),
        ratings,
        record: RecordView {
            games: record.games,
            finished: record.finished,
            won,
        },
    })
}

/// A page of `player`'s games at `tenant`, newest first: the tenant's listing of their games.
///
/// # Errors
/// The store's failure.
pub async fn player_games(
    state: &AppState,
    tenant: &Tenant,
    player: PlayerId,
    listing: GameListing,
) -> Result<GamesPage, ApiError> {
    let listing = GameListing {
        player: Some(player),
        ..listing
    };
    super::list_games(state, tenant, listing).await
}

/// A page of `tenant`'s leaderboard in `variant`, after `after` (the cursor of the page before
/// and the rank of its last row).
///
/// # Errors
/// The store's failure.
pub async fn leaderboard(
    state: &AppState,
    tenant: &Tenant,
    variant: Variant,
    limit: u32,
    after: Option<(BoardCursor, u64)>,
) -> Result<LeaderboardPage, ApiError> {
    let (cursor, ranked) = after.map_or((None, 0), |(c, r)| (Some(c), r));
    let mut rows = state
        .db
        .leaderboard(tenant.as_str(), variant, limit, cursor.as_ref())
        .await?;
    let more = rows.len() > limit as usize;
    rows.truncate(limit as usize);
    let mut entries = Vec::with_capacity(rows.len());
    for (row, rank) in rows.iter().zip(ranked + 1..) {
        let Some(Participant::Player(player)) = Participant::from_key(&row.participant) else {
            return Err(ApiError::unexpected(format!(
                "a leaderboard row of {}",
                row.participant
            )));
        };
        entries.push(LeaderboardEntry {
            rank,
            player: player.as_str().to_owned(),
            rating: row.rating.into(),
            conservative: row.rating.conservative_display(),
            games: row.games,
        });
    }
    let next_cursor = more.then(|| rows.last()).flatten().map(|last| {
        encode_board_cursor(
            &BoardCursor {
                conservative: last.conservative,
                participant: last.participant.clone(),
            },
            ranked + rows.len() as u64,
        )
    });
    Ok(LeaderboardPage { entries, next_cursor })
}

/// Every bot level's rating in every variant at `tenant`: its row, or its seed before any rated
/// game against the tenant's people.
///
/// # Errors
/// The store's failure.
pub async fn bot_ratings(state: &AppState, tenant: &Tenant) -> Result<BotsResponse, ApiError> {
    let levels: Vec<Participant> = Level::iter().map(Participant::Bot).collect();
    let mut bots = Vec::with_capacity(Variant::ALL.len() * levels.len());
    for variant in Variant::ALL {
        for (who, rating) in state.db.ratings(tenant.as_str(), variant, &levels).await? {
            let Participant::Bot(level) = who else {
                return Err(ApiError::unexpected(format!(
                    "a bot's rating answered for {}",
                    who.key()
                )));
            };
            bots.push(BotRatingView {
                variant,
                level,
                rating: rating.into(),
            });
        }
    }
    Ok(BotsResponse { bots })
}
