//! A studio's back end: its games listed, a seat's token reissued, a spectator's token, the
//! webhook's deliveries counted.

use engine::TurnView;
use engine::bot::Level;
use uuid::Uuid;

use super::webhooks::shown;
use crate::domain::{Applied, HostedGame, Participant, SeatKind, WebhookError};
use crate::error::ApiError;
use crate::server_keys::Tenant;
use crate::state::AppState;
use crate::store::{
    Cursor, GameListing, GameRow, GameUpdate, Lock, On, Outcome, SeatRow, Store, StoreError, now_ms,
};
use crate::wire::{
    EndReason, GamesPage, ListedGame, ListedSeat, SeatTokenResponse, SpectatorTokenResponse,
    StudioActionResponse, WebhookStatus, encode_cursor, rfc3339_us,
};

/// A page of `tenant`'s games, newest first.
///
/// # Errors
/// The store's failure; a stored game this release does not read.
pub async fn list_games(
    state: &AppState,
    tenant: &Tenant,
    listing: GameListing,
) -> Result<GamesPage, ApiError> {
    let mut rows = state.db.list_games(tenant.as_str(), &listing).await?;
    let more = rows.len() > listing.limit as usize;
    rows.truncate(listing.limit as usize);
    let next_cursor = more.then(|| rows.last()).flatten().map(|r| {
        encode_cursor(
            state.keys.cursors(),
            tenant.as_str(),
            &listing,
            &Cursor {
                created_us: r.created_us,
                id: r.game.id,
            },
        )
    });
    let games = rows
        .iter()
        .map(|r| {
            // One game that does not load leaves the others listed: it shows what its row says.
            let table = match HostedGame::load(r.game.id, &r.game.state) {
                Ok(table) => table,
                Err(e) => {
                    tracing::error!(game = %r.game.id, error = %e, "a listed game does not load");
                    return Ok(ListedGame {
                        id: r.game.id,
                        variant: r.game.variant.parse().map_err(ApiError::unexpected)?,
                        status: r.game.status,
                        version: r.game.version,
                        created_at: rfc3339(r.created_us),
                        seats: Vec::new(),
                        turn: None,
                        corrupt: true,
                    });
                }
            };
            Ok(ListedGame {
                id: r.game.id,
                variant: table.config.ruleset.variant(),
                status: table.status(),
                version: r.game.version,
                created_at: rfc3339(r.created_us),
                seats: table
                    .seats
                    .iter()
                    .enumerate()
                    .map(|(i, s)| ListedSeat {
                        seat: u8::try_from(i).unwrap_or(u8::MAX),
                        name: s.name.clone(),
                        kind: s.kind,
                        level: (s.kind == SeatKind::Bot).then(|| s.plays_as()).flatten(),
                    })
                    .collect(),
                turn: table
                    .game
                    .as_ref()
                    .and_then(|g| g.turn())
                    .map(|(seat, phase)| TurnView { seat, phase }),
                corrupt: false,
            })
        })
        .collect::<Result<Vec<_>, ApiError>>()?;
    Ok(GamesPage { games, next_cursor })
}

/// Microseconds since the epoch as RFC 3339 (UTC).
fn rfc3339(us: i64) -> String {
    rfc3339_us(us).unwrap_or_default()
}

/// A fresh token for `seat` of `tenant`'s game `id`: the seat's generation moves on in one
/// transaction, so every earlier token of the seat is refused by every replica from the commit on.
///
/// # Errors
/// A game that is not the tenant's (or none), a seat the game lacks, an open seat or a bot's,
/// the store's failure.
pub async fn reissue_token(
    state: &AppState,
    tenant: &Tenant,
    id: Uuid,
    seat: u8,
) -> Result<SeatTokenResponse, ApiError> {
    let response = state
        .db
        .transact(On::game(id).of_tenant(tenant.as_str()), Lock::Row, |row| {
            let mut table = HostedGame::load(row.id, &row.state)?;
            let generation = table.reissue(seat)?;
            let token = state.keys.issue(id, seat, generation)?;
            // Not a move: the version (and so every view and ETag) stays.
            Ok::<_, ApiError>(Outcome {
                update: Some(GameUpdate::keeping_status(
                    row.status,
                    &table,
                    row.version,
                    Vec::new(),
                    row.next_due,
                )?),
                value: SeatTokenResponse { id, seat, token },
            })
        })
        .await?
        .ok_or(StoreError::GameNotFound(id))?;
    tracing::info!(game = %id, seat, tenant = tenant.as_str(), "seat token reissued");
    Ok(response)
}

/// A spectator token for `tenant`'s game `id`.
///
/// # Errors
/// A game that is not the tenant's (or none), the store's failure.
pub async fn spectator_token(
    state: &AppState,
    tenant: &Tenant,
    id: Uuid,
) -> Result<SpectatorTokenResponse, ApiError> {
    let row = state
        .db
        .game_in(tenant.as_str(), id)
        .await?
        .ok_or(StoreError::GameNotFound(id))?;
    // A spectator of a tournament table would see deals other tables may still be playing.
    if HostedGame::load(row.id, &row.state)?.sealed {
        return Err(super::tournaments::round_not_over());
    }
    Ok(SpectatorTokenResponse {
        id,
        token: state.keys.issue_spectator(id)?,
    })
}

/// How the webhook deliveries of `tenant`'s game `id` stand.
///
/// # Errors
/// A game that is not the tenant's (or none), `no_webhook` when the game has none, the
/// store's failure.
pub async fn webhook_status(state: &AppState, tenant: &Tenant, id: Uuid) -> Result<WebhookStatus, ApiError> {
    let row = state
        .db
        .game_in(tenant.as_str(), id)
        .await?
        .ok_or(StoreError::GameNotFound(id))?;
    let url = row.webhook_url.ok_or(WebhookError::NoWebhook)?;
    let counts = state.db.webhook_counts(id).await?;
    Ok(WebhookStatus {
        url: shown(&url),
        delivered: counts.delivered,
        pending: counts.pending,
        failed: counts.failed,
        last_error: counts.last_error,
    })
}

/// Ends `tenant`'s game `id` before it is over: void, with a `called_off` event carrying
/// `reason` to every reader and the webhook. With `rated`, a rated game is rated on its
/// standings as they stand, queued for the rating pass in the write that ends it.
///
/// # Errors
/// A game that is not the tenant's (or none), a game not yet dealt or already over; with
/// `rated`, an unrated game or one whose first deal has not ended; the store's failure.
pub async fn end_game(
    state: &AppState,
    tenant: &Tenant,
    id: Uuid,
    reason: EndReason,
    rated: bool,
) -> Result<StudioActionResponse, ApiError> {
    let response = state
        .db
        .transact(On::game(id).of_tenant(tenant.as_str()), Lock::Row, |row| {
            let mut table = HostedGame::load(row.id, &row.state)?;
            let applied = table.call_off(reason.0.clone(), rated)?;
            let now = now_ms();
            table.rearm(applied.turn_passed, now, state.second_ms());
            studio_update(
                row,
                &table,
                applied,
                Vec::new(),
                table.due_at(now, state.second_ms()),
            )
        })
        .await?
        .ok_or(StoreError::GameNotFound(id))?;
    state.outbox.notify_one();
    tracing::info!(game = %id, tenant = tenant.as_str(), rated, "game ended by its studio");
    Ok(response)
}

/// Puts a bot of `level` in `seat` of `tenant`'s game `id`: the seat's generation moves on in
/// the game's own transaction, so that its tokens stop opening it on every replica from the
/// commit on; the bot plays at once if the seat is in turn (or was the last one awaited).
///
/// # Errors
/// A game that is not the tenant's (or none), a seat the game lacks, a game over, the
/// store's failure.
pub async fn seat_bot(
    state: &AppState,
    tenant: &Tenant,
    id: Uuid,
    seat: u8,
    level: Level,
) -> Result<StudioActionResponse, ApiError> {
    // The level's rating in the game's variant, which its seat shows, read before the
    // transaction (another tenant's game or none: the transaction answers).
    let rating = match state.db.game_in(tenant.as_str(), id).await? {
        Some(row) => {
            let who = Participant::Bot(level);
            Some(super::ratings::rating_of(state, tenant.as_str(), &row.variant, who).await?)
        }
        None => None,
    };
    let response = state
        .db
        .transact(On::game(id).of_tenant(tenant.as_str()), Lock::Row, |row| {
            let mut table = HostedGame::load(row.id, &row.state)?;
            state.bots.may_seat([level])?;
            let applied = table.seat_bot(seat, level, super::utc_year())?;
            if let Some(record) = table.seats.get_mut(usize::from(seat)) {
                record.rating = rating;
            }
            let now = now_ms();
            table.rearm(applied.turn_passed, now, state.second_ms());
            // No limit on tables of bots alone: a studio has a server key, and a server with
            // keys leaves its tables to each studio (docs/operations.md#bots).
            let seats = super::seat_row(&table, seat);
            let bot_at = table.bot_at;
            super::count_refused(&state.metrics, &applied);
            studio_update(row, &table, applied, seats, table.due_at(now, state.second_ms())).map(|o| {
                Outcome {
                    update: o.update,
                    value: (o.value, bot_at),
                }
            })
        })
        .await?
        .ok_or(StoreError::GameNotFound(id))?;
    let (response, bot_at) = response;
    state.outbox.notify_one();
    // A hard bot seated in turn thinks apart, after this commit.
    state.bots.wake(id);
    state.pace.arm(id, bot_at);
    tracing::info!(game = %id, seat, tenant = tenant.as_str(), "bot seated by the studio");
    Ok(response)
}

/// What a studio's change writes: `table` after `applied`, one version for the change itself
/// and one for each action it set off.
fn studio_update(
    row: &GameRow,
    table: &HostedGame,
    applied: Applied,
    seats: Vec<SeatRow>,
    next_due: Option<i64>,
) -> Result<Outcome<StudioActionResponse>, ApiError> {
    let version = row.version + 1 + applied.actions;
    let status = table.status();
    Ok(Outcome {
        update: Some(
            GameUpdate::of(
                table,
                version,
                super::event_rows(applied, row.webhook_url.is_some())?,
                next_due,
            )?
            .with_seats(seats),
        ),
        value: StudioActionResponse {
            id: row.id,
            status,
            version,
        },
    })
}
