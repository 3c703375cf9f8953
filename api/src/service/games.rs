//! Creating, joining and reading a game.

use engine::Seed;
use uuid::Uuid;

use super::webhooks::{check_host, new_secret};
use super::{event_rows, seat_row, seat_rows};
use crate::auth::{Claims, Reader};
use crate::domain::{Applied, HostedGame, Logged, Participant, SeatKind, SeatRecord, TableEvent};
use crate::error::ApiError;
use crate::server_keys::Tenant;
use crate::state::AppState;
use crate::store::{
    GameRow, GameUpdate, KeyRef, Lock, NewGame, On, Outcome, Store, StoreError, StoredResponse, now_ms,
};
use crate::wire::{
    CreateGameResponse, CreatedSeat, IfMatch, JoinResponse, Joining, NewGameSpec, SeatName, etag,
};

/// A fresh random seed.
pub(super) fn random_seed() -> Seed {
    use rand::RngCore;
    let mut bytes = [0u8; 32];
    rand::rng().fill_bytes(&mut bytes);
    Seed(bytes)
}

/// Builds and stores a new game of `tenant`, with the response of its idempotency key, if any.
///
/// # Errors
/// The engine's refusal of the setup; the store's failure.
pub async fn create_game(
    state: &AppState,
    tenant: &Tenant,
    spec: NewGameSpec,
    key: Option<&KeyRef>,
) -> Result<StoredResponse, ApiError> {
    if spec.names_players() && !state.server_keys.enabled() {
        return Err(super::ratings::needs_server_key());
    }
    let NewGameSpec {
        config,
        seed,
        seats,
        clock,
        webhook_url,
        rated,
    } = spec;
    if let Some(url) = &webhook_url {
        check_host(&url.0, state.asynchronous.webhook_allow_private).await?;
    }
    state
        .bots
        .may_seat(seats.iter().filter_map(SeatRecord::plays_as))?;
    // A server open to anyone plays only so many tables of bots alone: each costs CPU with no
    // person to wait for (docs/operations.md#bots). Counted as the game is inserted.
    let bot_tables = (!state.server_keys.enabled() && seats.iter().all(|s| s.kind == SeatKind::Bot))
        .then(|| super::open_bot_table_limit(state, tenant));
    let webhook = webhook_url.map(|u| (u.0.to_string(), new_secret()));
    let mut table = HostedGame::new(config, seed.unwrap_or_else(random_seed), seats)?;
    table.set_clock(clock);
    table.rated = rated;
    table.check_players()?;
    super::ratings::rate_seats(state, tenant.as_str(), &mut table).await?;
    // A game created full starts now. The bots may already have played: their accepted
    // actions count from version 1.
    let started = table.start_if_full(super::utc_year())?;
    let now = now_ms();
    table.rearm(started.turn_passed, now, state.second_ms());
    let version = 1 + started.actions;
    let id = Uuid::new_v4();
    let created = created_seats(state, id, &table)?;
    let next_due = table.due_at(now, state.second_ms());
    super::count_refused(&state.metrics, &started);
    let mut new = new_game(id, tenant.as_str(), &table, version, started, webhook, next_due)?;
    new.bot_tables = bot_tables;
    let response = StoredResponse {
        status: 201,
        etag: Some(etag(version)),
        body: serde_json::to_vec(&CreateGameResponse {
            id,
            variant: table.config.ruleset.variant(),
            status: table.status(),
            version,
            seats: created,
            seed_commitment: new.game.seed_commitment.clone(),
            webhook_secret: new.webhook.as_ref().map(|w| w.1.clone()),
        })?,
    };
    state.db.create_game(&new, key.map(|k| (k, &response))).await?;
    state.metrics.game_created(&new.game.variant);
    state.outbox.notify_one();
    if table.bot_due().is_some() {
        state.bots.wake(id);
    }
    state.pace.arm(id, table.bot_at);
    tracing::debug!(game = %id, variant = %new.game.variant, tenant = %new.tenant, "game created");
    Ok(response)
}

/// The seats of new game `id` as its creator is told of them, each player's with its token.
fn created_seats(state: &AppState, id: Uuid, table: &HostedGame) -> Result<Vec<CreatedSeat>, ApiError> {
    let mut created = Vec::with_capacity(table.seats.len());
    for (i, s) in table.seats.iter().enumerate() {
        let seat = u8::try_from(i).map_err(ApiError::unexpected)?;
        let token = match s.kind {
            SeatKind::Player => Some(state.keys.issue(id, seat, s.generation)?),
            _ => None,
        };
        created.push(CreatedSeat {
            seat,
            name: s.name.clone(),
            kind: s.kind,
            token,
        });
    }
    Ok(created)
}

/// Game `id` of `tenant` as the store inserts it: `table` at `version`, its first `events`,
/// its webhook's URL and secret.
///
/// # Errors
/// Never in practice: every part serialises.
pub(super) fn new_game(
    id: Uuid,
    tenant: &str,
    table: &HostedGame,
    version: i64,
    events: Applied,
    webhook: Option<(String, String)>,
    next_due: Option<i64>,
) -> Result<NewGame, ApiError> {
    let events = event_rows(events, webhook.is_some())?;
    Ok(NewGame {
        tenant: tenant.to_owned(),
        game: GameRow {
            id,
            variant: table.config.ruleset.variant().id().to_owned(),
            status: table.status(),
            state: table.to_json()?,
            version,
            last_seq: i64::try_from(events.len()).map_err(ApiError::unexpected)?,
            seed: table.seed.to_hex(),
            seed_commitment: table.seed_commitment(),
            webhook_url: webhook.as_ref().map(|w| w.0.clone()),
            next_due,
        },
        seats: seat_rows(table).collect(),
        events,
        webhook,
        bot_tables: None,
        rated: table.rated,
    })
}

/// Takes the first open seat of game `id` in one transaction, with the response of its
/// idempotency key; the game deals when it was the last. A joining player's id comes with the
/// tenant of the request's server key (`tenant`): the game must be that tenant's.
///
/// # Errors
/// `stale_version`, `no_open_seat`, the players' checks, a missing game (or another
/// tenant's), the store's failure.
pub async fn join_game(
    state: &AppState,
    id: Uuid,
    joining: Joining,
    tenant: Option<&Tenant>,
    if_match: Option<IfMatch>,
    key: Option<&KeyRef>,
) -> Result<StoredResponse, ApiError> {
    let Joining {
        name: SeatName(name),
        player,
    } = joining;
    let on = match tenant {
        Some(tenant) => On::game(id).of_tenant(tenant.as_str()),
        None => On::game(id),
    };
    let player = with_rating(state, id, player, tenant).await?;
    state
        .db
        .transact(on.keyed(key), Lock::Optimistic, |row| {
            if let Some(m) = &if_match {
                m.check(row.version)?;
            }
            take_seat(state, row, &name, player.clone(), key)
        })
        .await
        .and_then(|done| done.ok_or_else(|| StoreError::GameNotFound(id).into()))
        .map(|(response, bot_due, bot_at)| {
            state.outbox.notify_one();
            if bot_due {
                state.bots.wake(id);
            }
            state.pace.arm(id, bot_at);
            response
        })
}

/// A joining player's id, with their rating in the game's variant.
type RatedPlayer = (crate::domain::PlayerId, crate::domain::Rating);

/// The joining player with their rating in game `id`'s variant, read before the join's
/// transaction (a rating changes only when a game of theirs is rated). A player's id needs
/// the tenant of a server key.
async fn with_rating(
    state: &AppState,
    id: Uuid,
    player: Option<crate::domain::PlayerId>,
    tenant: Option<&Tenant>,
) -> Result<Option<RatedPlayer>, ApiError> {
    match (player, tenant) {
        (Some(player), Some(tenant)) => {
            let row = state
                .db
                .game_in(tenant.as_str(), id)
                .await?
                .ok_or(StoreError::GameNotFound(id))?;
            let who = Participant::Player(player.clone());
            let rating = super::ratings::rating_of(state, tenant.as_str(), &row.variant, who).await?;
            Ok(Some((player, rating)))
        }
        (Some(_), None) => Err(super::ratings::needs_server_key()),
        (None, _) => Ok(None),
    }
}

/// Seats `name` (and `player`, rated) at the first open seat of the game read as `row`; the
/// game deals when it was the last. The value: the response kept for `key`, whether a bot
/// that thinks apart is then in turn, and when the server plays a paced seat.
fn take_seat(
    state: &AppState,
    row: &GameRow,
    name: &str,
    player: Option<RatedPlayer>,
    key: Option<&KeyRef>,
) -> Result<Outcome<(StoredResponse, bool, Option<i64>)>, ApiError> {
    let mut table = HostedGame::load(row.id, &row.state)?;
    let seat = table.join(name.to_owned(), player)?;
    let generation = table.seats.get(usize::from(seat)).map_or(0, |s| s.generation);
    let joined = Logged::Table(TableEvent::SeatJoined {
        seat,
        name: name.to_owned(),
    });
    // The last seat taken: the game starts now, in this year (docs/rules.md#suspension).
    let started = table.start_if_full(super::utc_year())?;
    let now = now_ms();
    table.rearm(started.turn_passed, now, state.second_ms());
    // The join, then every bot action the deal set off.
    let version = row.version + 1 + started.actions;
    super::count_refused(&state.metrics, &started);
    let events = event_rows(started.after([joined]), row.webhook_url.is_some())?;
    let response = StoredResponse {
        status: 200,
        etag: Some(etag(version)),
        body: serde_json::to_vec(&JoinResponse {
            id: row.id,
            seat,
            name: name.to_owned(),
            token: state.keys.issue(row.id, seat, generation)?,
            status: table.status(),
            version,
        })?,
    };
    Ok(Outcome {
        update: Some(
            GameUpdate::of(&table, version, events, table.due_at(now, state.second_ms()))?
                .with_seats(seat_row(&table, seat))
                .with_response(key.is_some().then(|| response.clone())),
        ),
        value: (response, table.bot_due().is_some(), table.bot_at),
    })
}

/// Fails with a 404 unless game `id` exists: an idempotency key is stored with its game, so
/// a keyed request for an unknown game must not reach the key.
///
/// # Errors
/// A missing game, the store's failure.
pub async fn exists(state: &AppState, id: Uuid) -> Result<(), ApiError> {
    state.db.game(id).await?.ok_or(StoreError::GameNotFound(id))?;
    Ok(())
}

/// What every read of a game starts with: the game, and the token's seat checked against it.
///
/// # Errors
/// A missing game; a token whose seat is no longer a player's.
pub async fn load_for_seat(
    state: &AppState,
    id: Uuid,
    claims: &Claims,
) -> Result<(GameRow, HostedGame), ApiError> {
    let row = state.db.game(id).await?.ok_or(StoreError::GameNotFound(id))?;
    let table = HostedGame::load(row.id, &row.state)?;
    table.check_player(claims.seat, claims.generation)?;
    Ok((row, table))
}

/// What every read of a game open to spectators starts with: the game, and a seat token's
/// seat checked against it (a spectator has no seat to check).
///
/// # Errors
/// A missing game; a seat token whose seat is no longer a player's.
pub async fn load_for_reader(
    state: &AppState,
    id: Uuid,
    reader: &Reader,
) -> Result<(GameRow, HostedGame), ApiError> {
    match reader {
        Reader::Seat(claims) => load_for_seat(state, id, claims).await,
        Reader::Spectator => {
            let row = state.db.game(id).await?.ok_or(StoreError::GameNotFound(id))?;
            let table = HostedGame::load(row.id, &row.state)?;
            Ok((row, table))
        }
    }
}
