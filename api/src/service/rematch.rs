//! The next game at a table: made once, by whichever seat or studio asks first, on any
//! replica; each player then takes their own seat of it.

use uuid::Uuid;

use super::games::{new_game, random_seed};
use super::{event_rows, seat_row};
use crate::auth::Claims;
use crate::domain::{Applied, HostedGame, Logged, SeatRecord, TableEvent};
use crate::error::ApiError;
use crate::server_keys::Tenant;
use crate::state::AppState;
use crate::store::{GameRow, GameUpdate, Lock, On, Outcome, Store, StoreError, now_ms};
use crate::wire::RematchResponse;

/// Who asks for a rematch.
pub enum Asker {
    /// A player of the finished game, with their seat token.
    Seat(Claims),
    /// The studio that owns it, with its server key.
    Studio(Tenant),
}

/// The rematch of finished game `id`: made by the first call (its id written on the finished
/// game by a conditional write, so that two replicas at once agree on one), created if it is
/// not yet, and for a seat the seat taken with a token of its own.
///
/// # Errors
/// A missing game (or another tenant's), a token whose seat is not a player's, a game that is
/// not finished, a rematch seat given to a bot, the store's failure.
pub async fn rematch(state: &AppState, id: Uuid, asker: Asker) -> Result<RematchResponse, ApiError> {
    let claims = match &asker {
        Asker::Seat(claims) => Some(claims),
        Asker::Studio(_) => None,
    };
    let decide = |row: &GameRow| mark(row, claims);
    let (next, finished) = match &asker {
        // A player's ask is a seat's action; a studio's, one of its calls on its game.
        Asker::Seat(_) => state.db.transact(On::game(id), Lock::Optimistic, decide).await?,
        Asker::Studio(tenant) => {
            let on = On::game(id).of_tenant(tenant.as_str());
            state.db.transact(on, Lock::Row, decide).await?
        }
    }
    .ok_or(StoreError::GameNotFound(id))?;
    state.outbox.notify_one();
    let created = create(state, id, next, &finished).await?;
    let Some(claims) = claims else {
        return Ok(RematchResponse {
            id: next,
            seat: None,
            token: None,
            status: created,
        });
    };
    take_seat(state, next, claims.seat).await
}

/// Decides the rematch on the finished game's row: its id as already written, or a fresh one
/// written now with a `rematch` event.
fn mark(row: &GameRow, claims: Option<&Claims>) -> Result<Outcome<(Uuid, HostedGame)>, ApiError> {
    let mut table = HostedGame::load(row.id, &row.state)?;
    if let Some(c) = claims {
        table.check_player(c.seat, c.generation)?;
    }
    let (next, fresh) = table.rematch_id(Uuid::new_v4)?;
    let update = if fresh {
        let events = event_rows(
            Applied::table([Logged::Table(TableEvent::Rematch { id: next })]),
            row.webhook_url.is_some(),
        )?;
        Some(GameUpdate::keeping_status(
            row.status,
            &table,
            row.version + 1,
            events,
            row.next_due,
        )?)
    } else {
        None
    };
    Ok(Outcome {
        update,
        value: (next, table),
    })
}

/// Creates rematch `next` of game `id` unless it exists: the first caller's insert stands,
/// a later one (or one racing it on another replica) writes nothing. Answers its status.
async fn create(
    state: &AppState,
    id: Uuid,
    next: Uuid,
    finished: &HostedGame,
) -> Result<crate::domain::GameStatus, ApiError> {
    if let Some(row) = state.db.game(next).await? {
        return Ok(HostedGame::load(row.id, &row.state)?.status());
    }
    let origin = state.db.origin(id).await?.ok_or(StoreError::GameNotFound(id))?;
    let mut table = finished.rematch(random_seed())?;
    super::ratings::rate_seats(state, &origin.tenant, &mut table).await?;
    state
        .bots
        .may_seat(table.seats.iter().filter_map(SeatRecord::plays_as))?;
    // Only a table of bots deals at once: players' seats wait for them.
    let started = table.start_if_full(super::utc_year())?;
    let now = now_ms();
    table.rearm(started.turn_passed, now, state.second_ms());
    let version = 1 + started.actions;
    // No limit on tables of bots alone: a rematch of bots alone is asked for by its studio,
    // with a server key, and a server with keys has no such limit (docs/operations.md#bots).
    super::count_refused(&state.metrics, &started);
    let new = new_game(
        next,
        &origin.tenant,
        &table,
        version,
        started,
        origin.webhook,
        table.due_at(now, state.second_ms()),
    )?;
    if state.db.create_game(&new, None).await? {
        state.metrics.game_created(&new.game.variant);
        state.outbox.notify_one();
        if table.bot_due().is_some() {
            state.bots.wake(next);
        }
        state.pace.arm(next, table.bot_at);
        tracing::info!(game = %id, rematch = %next, "rematch created");
        return Ok(table.status());
    }
    let row = state.db.game(next).await?.ok_or(StoreError::GameNotFound(next))?;
    Ok(HostedGame::load(row.id, &row.state)?.status())
}

/// `seat` of rematch `next` taken by its player, who asked: a `seat_joined` event the first
/// time, and the deal when it was the last seat the game waited for; a token for it each time.
async fn take_seat(state: &AppState, next: Uuid, seat: u8) -> Result<RematchResponse, ApiError> {
    let (response, bot_at) = state
        .db
        .transact(On::game(next), Lock::Optimistic, |row| {
            let mut table = HostedGame::load(row.id, &row.state)?;
            let asked_now = table.take_reserved(seat)?;
            let record = table.seats.get(usize::from(seat));
            let generation = record.map_or(0, |s| s.generation);
            let token = state.keys.issue(next, seat, generation)?;
            if !asked_now {
                return Ok(Outcome {
                    update: None,
                    value: (
                        RematchResponse {
                            id: next,
                            seat: Some(seat),
                            token: Some(token),
                            status: table.status(),
                        },
                        None,
                    ),
                });
            }
            let joined = Logged::Table(TableEvent::SeatJoined {
                seat,
                name: record.and_then(|s| s.name.clone()).unwrap_or_default(),
            });
            let started = table.start_if_full(super::utc_year())?;
            let now = now_ms();
            table.rearm(started.turn_passed, now, state.second_ms());
            super::count_refused(&state.metrics, &started);
            let version = row.version + 1 + started.actions;
            Ok::<_, ApiError>(Outcome {
                update: Some(
                    GameUpdate::of(
                        &table,
                        version,
                        event_rows(started.after([joined]), row.webhook_url.is_some())?,
                        table.due_at(now, state.second_ms()),
                    )?
                    .with_seats(seat_row(&table, seat)),
                ),
                value: (
                    RematchResponse {
                        id: next,
                        seat: Some(seat),
                        token: Some(token),
                        status: table.status(),
                    },
                    table.bot_at,
                ),
            })
        })
        .await?
        .ok_or(StoreError::GameNotFound(next))?;
    state.outbox.notify_one();
    // The deal may have brought a bot that thinks apart to its turn.
    state.bots.wake(next);
    state.pace.arm(next, bot_at);
    Ok(response)
}
