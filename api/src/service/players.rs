//! A studio's players: their ratings and record, their games, and the leaderboards
//! (docs/api.md#players, docs/api.md#leaderboards). Reads only, each of the key's tenant.

use engine::Variant;
use engine::bot::Level;
use strum::IntoEnumIterator;

use crate::domain::{Participant, PlayerId};
use crate::error::ApiError;
use crate::server_keys::Tenant;
use crate::state::AppState;
use crate::store::{BoardCursor, BoardRow, GameListing, Store};
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

/// A page of a player's games at `tenant`, newest first: the tenant's listing of the games of
/// `listing`'s player.
///
/// # Errors
/// The store's failure.
pub async fn player_games(
    state: &AppState,
    tenant: &Tenant,
    listing: GameListing,
) -> Result<GamesPage, ApiError> {
    debug_assert!(listing.player.is_some(), "a player's listing names them");
    super::list_games(state, tenant, listing).await
}

/// A page of `tenant`'s leaderboard in `variant`, after `after` (the place of the last row of
/// the page before): the board as it stands now, each entry at its rank now.
///
/// # Errors
/// The store's failure.
pub async fn leaderboard(
    state: &AppState,
    tenant: &Tenant,
    variant: Variant,
    limit: u32,
    after: Option<BoardCursor>,
) -> Result<LeaderboardPage, ApiError> {
    let page = state
        .db
        .leaderboard(tenant.as_str(), variant, limit, after.as_ref())
        .await?;
    let mut rows = page.rows;
    let more = rows.len() > limit as usize;
    rows.truncate(limit as usize);
    let entries = entries(&rows, page.ahead + 1)?;
    Ok(LeaderboardPage {
        next_cursor: next_cursor(state, tenant, variant, more, &rows),
        entries,
        player: None,
        players: None,
    })
}

/// The page of `tenant`'s leaderboard in `variant` around `player`: `limit` entries at most,
/// half of them (rounded down) above the player, the player, the rest below, filled from the
/// other side where the board ends sooner; with the player's own entry and the board's size.
///
/// # Errors
/// `player_not_found` for a player with no rating in the variant at the tenant; the store's
/// failure.
pub async fn around(
    state: &AppState,
    tenant: &Tenant,
    variant: Variant,
    limit: u32,
    player: &PlayerId,
) -> Result<LeaderboardPage, ApiError> {
    let key = Participant::Player(player.clone()).key();
    // Enough rows either side to fill the page from the other when the board ends.
    let standing = state
        .db
        .standing(tenant.as_str(), variant, &key, limit - 1, limit - 1)
        .await?
        .ok_or_else(|| {
            ApiError::not_found(
                Code::PlayerNotFound,
                format!(
                    "player {player} has no rating in {} at this key's tenant: they are on its board once a rated game of it ends",
                    variant.id()
                ),
            )
        })?;
    let room = limit as usize - 1;
    let mut above = standing.above.len().min(limit as usize / 2);
    let below = standing.below.len().min(room - above);
    above = standing.above.len().min(room - below);
    let more = standing.below.len() > below;
    let first = (standing.ahead + 1).saturating_sub(above as u64).max(1);
    let mut rows = standing.above;
    rows.drain(..rows.len() - above);
    rows.push(standing.own);
    rows.extend(standing.below.into_iter().take(below));
    let entries = entries(&rows, first)?;
    let own = entries
        .iter()
        .find(|e| e.rank == standing.ahead + 1)
        .cloned()
        .ok_or_else(|| ApiError::unexpected("the player's own entry is on their page"))?;
    Ok(LeaderboardPage {
        next_cursor: next_cursor(state, tenant, variant, more, &rows),
        entries,
        player: Some(own),
        players: Some(standing.players),
    })
}

/// Board rows as entries, the first of rank `first`.
fn entries(rows: &[BoardRow], first: u64) -> Result<Vec<LeaderboardEntry>, ApiError> {
    rows.iter()
        .zip(first..)
        .map(|(row, rank)| {
            let Some(Participant::Player(player)) = Participant::from_key(&row.participant) else {
                return Err(ApiError::unexpected(format!(
                    "a leaderboard row of {}",
                    row.participant
                )));
            };
            Ok(LeaderboardEntry {
                rank,
                player: player.as_str().to_owned(),
                rating: row.rating.into(),
                conservative: row.rating.conservative_display(),
                games: row.games,
            })
        })
        .collect()
}

/// The cursor after `rows` of `tenant`'s board in `variant`, when `more` follow.
fn next_cursor(
    state: &AppState,
    tenant: &Tenant,
    variant: Variant,
    more: bool,
    rows: &[BoardRow],
) -> Option<String> {
    more.then(|| rows.last()).flatten().map(|last| {
        encode_board_cursor(
            state.keys.cursors(),
            tenant.as_str(),
            variant,
            &BoardCursor {
                conservative: last.conservative,
                participant: last.participant.clone(),
            },
        )
    })
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
        for (who, rating) in super::ratings::ratings_at(state, tenant.as_str(), variant, &levels).await? {
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
