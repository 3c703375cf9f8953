//! A studio's tournaments (docs/tournaments.md): made, listed, read and cancelled by the
//! studio; entered, read and withdrawn from by an entry's holder; and the tournament pass every
//! replica runs, which starts each round once across replicas and makes its tables' games.
//!
//! A round starts in one store transaction that moves the tournament's row on from the round
//! it read (`Tournaments::start_round`, a conditional update), so two replicas never both plan
//! it; the plan (the domain's `Movement`) is written with each table's game id, and the games
//! are made after the commit, each idempotently (a game whose id exists is left alone), then
//! marked made. A replica that stops in between leaves tables not made: the next pass of any
//! replica makes them from the plan.

use std::collections::BTreeMap;
use std::time::{Duration, Instant};

use actix_web::web;
use engine::bot::Level;
use engine::{GameConfig, Ruleset, Seed, Variant};
use futures_util::StreamExt;
use serde::{Deserialize, Serialize};
use serde_json::json;
use sha2::{Digest, Sha256};
use tokio::sync::broadcast::error::{RecvError, TryRecvError};
use uuid::Uuid;

use super::games::{new_game, random_seed};
use super::webhooks::{check_host, new_secret};
use crate::domain::{
    Applied, Format, HostedGame, Logged, Movement, Place, PlayerId, SeatKind, SeatRecord, TurnClock,
    level_name, round_results, round_seed,
};
use crate::error::ApiError;
use crate::server_keys::Tenant;
use crate::state::AppState;
use crate::store::{
    Closed, Closing, Entered, EntryRow, KeyRef, Lock, On, Outcome, StandingRow, Store, StoredResponse,
    TOURNAMENTS_DUE, TableRow, TournamentRow, Tournaments, now_ms,
};
use crate::wire::{
    Code, DealResult, EntryDeals, EntryState, EntryTable, EntryView, StandingView, StandingsPage,
    TournamentResponse, TournamentSpec, TournamentState, TournamentView, TournamentsPage,
    decode_standings_cursor, encode_standings_cursor, encode_tournament_cursor, rfc3339_us,
};

/// A tournament's rules as stored: every table's ruleset and turn clock.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
struct StoredRules {
    ruleset: Ruleset,
    clock: TurnClock,
}

/// Tournaments a pass looks at, at most.
const DUE_PER_PASS: i64 = 64;

/// Tables not made that a pass makes, at most.
const UNMADE_PER_PASS: i64 = 256;

/// The id under which `tenant`'s idempotency keys of `scope` (`tournaments`, or a
/// tournament's entries) are kept, apart from its games' and tickets'.
fn key_scope(tenant: &Tenant, scope: &str) -> Uuid {
    let digest =
        Sha256::digest(format!("continental:tournament-keys:{}:{scope}", tenant.as_str()).as_bytes());
    let mut bytes = [0u8; 16];
    bytes.copy_from_slice(&digest[..16]);
    uuid::Builder::from_random_bytes(bytes).into_uuid()
}

/// The scope of `tenant`'s idempotency keys of new tournaments.
pub fn tournament_keys(tenant: &Tenant) -> Uuid {
    key_scope(tenant, "tournaments")
}

/// The scope of `tenant`'s idempotency keys of entries into tournament `id`.
pub fn entry_keys(tenant: &Tenant, id: Uuid) -> Uuid {
    key_scope(tenant, &id.to_string())
}

/// Refuses a request without server keys configured: a tournament is a studio's.
fn keyed(state: &AppState) -> Result<(), ApiError> {
    if state.server_keys.enabled() {
        Ok(())
    } else {
        Err(super::ratings::needs_server_key())
    }
}

/// Makes a tournament of `tenant`, with the response of its idempotency key, if any.
///
/// # Errors
/// Without server keys, `player_needs_server_key`; a webhook host the service does not
/// deliver to; a bot level this server does not seat; the store's failure.
pub async fn create_tournament(
    state: &AppState,
    tenant: &Tenant,
    spec: TournamentSpec,
    key: Option<&KeyRef>,
) -> Result<StoredResponse, ApiError> {
    keyed(state)?;
    if let Some(url) = &spec.webhook_url {
        check_host(&url.0, state.asynchronous.webhook_allow_private).await?;
    }
    state.bots.may_seat([spec.bot_level])?;
    let now = now_ms();
    let webhook_secret = spec.webhook_url.as_ref().map(|_| new_secret());
    let row = TournamentRow {
        id: Uuid::new_v4(),
        tenant: tenant.as_str().to_owned(),
        name: spec.name,
        variant: spec.ruleset.variant().id().to_owned(),
        rules: serde_json::to_string(&StoredRules {
            ruleset: spec.ruleset,
            clock: spec.clock,
        })?,
        table_size: i64::from(spec.table_size),
        format: spec.format.as_str().to_owned(),
        rounds: i64::from(spec.rounds),
        deals_per_round: i64::from(spec.deals_per_round),
        starts_at: spec.starts_at,
        max_entrants: i64::from(spec.max_entrants),
        bot_level: level_name(spec.bot_level),
        round_seconds: i64::from(spec.round_seconds),
        webhook_url: spec.webhook_url.map(|u| u.0.to_string()),
        webhook_secret: webhook_secret.clone(),
        secret: random_seed().to_hex(),
        status: "open".to_owned(),
        round: 0,
        round_deadline: None,
        due_at: Some(spec.starts_at),
        created_at: now,
        entrants: 0,
    };
    let response = StoredResponse {
        status: 201,
        etag: None,
        body: serde_json::to_vec(&TournamentResponse {
            tournament: view(&row)?,
            webhook_secret,
        })?,
    };
    state
        .db
        .create_tournament(&row, key.map(|k| (k, &response)))
        .await?;
    tracing::info!(tournament = %row.id, tenant = %row.tenant, variant = %row.variant, "tournament made");
    Ok(response)
}

/// Tournament `id` of `tenant`.
///
/// # Errors
/// `tournament_not_found`; the store's failure.
pub async fn tournament(state: &AppState, tenant: &Tenant, id: Uuid) -> Result<TournamentView, ApiError> {
    keyed(state)?;
    let row = state
        .db
        .tournament(Some(tenant.as_str()), id)
        .await?
        .ok_or_else(|| not_found(id))?;
    view(&row)
}

/// A page of `tenant`'s tournaments, newest first, after `after`.
///
/// # Errors
/// The store's failure.
pub async fn tournaments(
    state: &AppState,
    tenant: &Tenant,
    limit: u32,
    after: Option<(i64, Uuid)>,
) -> Result<TournamentsPage, ApiError> {
    keyed(state)?;
    let mut rows = state
        .db
        .list_tournaments(tenant.as_str(), i64::from(limit), after)
        .await?;
    let more = rows.len() > usize::try_from(limit).unwrap_or(usize::MAX);
    rows.truncate(usize::try_from(limit).unwrap_or(usize::MAX));
    let next_cursor = more.then(|| rows.last()).flatten().map(|last| {
        encode_tournament_cursor(state.keys.cursors(), tenant.as_str(), last.created_at, last.id)
    });
    Ok(TournamentsPage {
        tournaments: rows.iter().map(view).collect::<Result<_, _>>()?,
        next_cursor,
    })
}

/// Cancels `tenant`'s tournament `id` before its start: done also when cancelled before.
///
/// # Errors
/// `tournament_not_found`; `tournament_started` once it started or its start time came; the
/// store's failure.
pub async fn cancel_tournament(state: &AppState, tenant: &Tenant, id: Uuid) -> Result<(), ApiError> {
    keyed(state)?;
    match state.db.cancel_tournament(tenant.as_str(), id, now_ms()).await? {
        Closed::Done => Ok(()),
        Closed::NotFound => Err(not_found(id)),
        Closed::Started => Err(started()),
    }
}

fn not_found(id: Uuid) -> ApiError {
    ApiError::not_found(Code::TournamentNotFound, format!("no tournament {id}"))
}

fn entry_not_found(id: Uuid, entry: Uuid) -> ApiError {
    ApiError::not_found(
        Code::EntryNotFound,
        format!("no entry {entry} of tournament {id}"),
    )
}

/// Tournament `id` (of `tenant`, with a server key) and its entry `entry`, as an entry's
/// holder reads them.
async fn tournament_and_entry(
    state: &AppState,
    tenant: Option<&Tenant>,
    id: Uuid,
    entry: Uuid,
) -> Result<(TournamentRow, EntryRow), ApiError> {
    let t = state
        .db
        .tournament(tenant.map(Tenant::as_str), id)
        .await?
        .ok_or_else(|| not_found(id))?;
    let row = state
        .db
        .entry(id, entry)
        .await?
        .ok_or_else(|| entry_not_found(id, entry))?;
    Ok((t, row))
}

fn started() -> ApiError {
    ApiError::conflict(
        Code::TournamentStarted,
        "the tournament has started (or its start time has come): its field is settled",
    )
}

/// Enters `player` as `name` into `tenant`'s tournament `id`, with the response of its
/// idempotency key.
///
/// # Errors
/// `tournament_not_found`; `tournament_started`; `tournament_cancelled`; `already_entered`;
/// `tournament_full`; the store's failure.
pub async fn enter(
    state: &AppState,
    tenant: &Tenant,
    id: Uuid,
    player: PlayerId,
    name: String,
    key: Option<&KeyRef>,
) -> Result<StoredResponse, ApiError> {
    keyed(state)?;
    // What the entry shows of its tournament is settled when it is made: its name, start and
    // rounds (its status and round are read again by the store's checks below).
    let t = state
        .db
        .tournament(Some(tenant.as_str()), id)
        .await?
        .ok_or_else(|| not_found(id))?;
    let now = now_ms();
    let entry = EntryRow {
        tournament_id: id,
        id: Uuid::new_v4(),
        player: String::from(player),
        name,
        status: "entered".to_owned(),
        place: None,
        created_at: now,
    };
    let response = StoredResponse {
        status: 201,
        etag: None,
        body: serde_json::to_vec(&entry_view(&t, TournamentState::Open, entry.clone(), None)?)?,
    };
    match state
        .db
        .enter(tenant.as_str(), &entry, now, key.map(|k| (k, &response)))
        .await?
    {
        Entered::Done => Ok(response),
        Entered::NotFound => Err(not_found(id)),
        Entered::Started => Err(started()),
        Entered::NotOpen(_) => Err(cancelled(id)),
        Entered::Twice => Err(ApiError::conflict(
            Code::AlreadyEntered,
            "this player has entered the tournament already: read their entry",
        )),
        Entered::Full => Err(ApiError::conflict(
            Code::TournamentFull,
            "the tournament has as many entrants as it takes",
        )),
    }
}

/// A tournament table's record or spectators asked for before every table of its round is
/// over.
pub(super) fn round_not_over() -> ApiError {
    ApiError::conflict(
        Code::RoundNotOver,
        "a tournament table's record and spectators open once every table of its round is over",
    )
}

fn cancelled(id: Uuid) -> ApiError {
    ApiError::conflict(
        Code::TournamentCancelled,
        format!("tournament {id} was cancelled"),
    )
}

/// The entry `entry` of tournament `id` (of `tenant`, with a server key; the entry's id is
/// its capability without one), with its table and seat token in the round being played.
///
/// # Errors
/// `tournament_not_found`; `entry_not_found`; the store's failure.
pub async fn entry(
    state: &AppState,
    tenant: Option<&Tenant>,
    id: Uuid,
    entry: Uuid,
) -> Result<EntryView, ApiError> {
    let (t, row) = tournament_and_entry(state, tenant, id, entry).await?;
    let table = match (row.place, row.status.as_str(), t.round) {
        (Some(place), "entered", round) if round > 0 => seat_of(state, &t, place).await?,
        _ => None,
    };
    entry_view(&t, status_of(&t.status)?, row, table)
}

/// Entry `row` of tournament `t` (whose status is `status`) as its holder reads it.
fn entry_view(
    t: &TournamentRow,
    status: TournamentState,
    row: EntryRow,
    table: Option<EntryTable>,
) -> Result<EntryView, ApiError> {
    let number = |n: i64| u32::try_from(n).map_err(ApiError::unexpected);
    Ok(EntryView {
        id: row.id,
        tournament_id: t.id,
        player: row.player,
        name: row.name,
        status: if row.status == "entered" {
            EntryState::Entered
        } else {
            EntryState::Withdrawn
        },
        tournament_status: status,
        tournament_name: t.name.clone(),
        variant: t.variant.parse::<Variant>().map_err(ApiError::unexpected)?,
        starts_at: rfc3339_us(t.starts_at.saturating_mul(1000)).unwrap_or_default(),
        rounds: number(t.rounds)?,
        round: number(t.round)?,
        place: row.place.map(number).transpose()?,
        table,
    })
}

/// The table and seat of the entrant at `place` in tournament `t`'s round being played, with
/// the seat's token while the seat is in its first generation. The movement says which table
/// holds the place, so one table is read, whatever the size of the field.
async fn seat_of(state: &AppState, t: &TournamentRow, place: i64) -> Result<Option<EntryTable>, ApiError> {
    let size = usize::try_from(t.table_size).map_err(ApiError::unexpected)?;
    let field = usize::try_from(t.entrants).map_err(ApiError::unexpected)?;
    let movement = Movement::new(field, size).map_err(ApiError::unexpected)?;
    let (table_no, _) = movement.seat_of(
        usize::try_from(place).map_err(ApiError::unexpected)?,
        usize::try_from(t.round - 1).map_err(ApiError::unexpected)?,
    );
    let table_no = i64::try_from(table_no).map_err(ApiError::unexpected)?;
    let Some(table) = state.db.round_table(t.id, t.round, table_no).await? else {
        return Ok(None);
    };
    let seats: Vec<Option<i64>> = serde_json::from_str(&table.seats)?;
    let seat = seats.iter().position(|s| *s == Some(place)).ok_or_else(|| {
        ApiError::unexpected(format!("place {place} is not at the table the movement gives it"))
    })?;
    let seat = u8::try_from(seat).map_err(ApiError::unexpected)?;
    // Not `made` alone: a table is marked with others after its game exists.
    let generation = match state.db.game(table.game_id).await? {
        Some(g) => HostedGame::load(g.id, &g.state)?.ticket_generation(seat),
        None => return Ok(None),
    };
    Ok(Some(EntryTable {
        round: u32::try_from(table.round).map_err(ApiError::unexpected)?,
        table: u32::try_from(table.table_no).map_err(ApiError::unexpected)?,
        game_id: table.game_id,
        seat,
        token: generation
            .map(|g| state.keys.issue(table.game_id, seat, g))
            .transpose()?,
        token_replaced: generation.is_none(),
    }))
}

/// Withdraws entry `entry` of tournament `id` before its start: done also when withdrawn
/// before.
///
/// # Errors
/// `tournament_not_found`, `entry_not_found`; `tournament_started`; the store's failure.
pub async fn withdraw(
    state: &AppState,
    tenant: Option<&Tenant>,
    id: Uuid,
    entry: Uuid,
) -> Result<(), ApiError> {
    state
        .db
        .tournament(tenant.map(Tenant::as_str), id)
        .await?
        .ok_or_else(|| not_found(id))?;
    match state.db.withdraw(id, entry, now_ms()).await? {
        Closed::Done => Ok(()),
        Closed::NotFound => Err(entry_not_found(id, entry)),
        Closed::Started => Err(started()),
    }
}

fn status_of(status: &str) -> Result<TournamentState, ApiError> {
    Ok(match status {
        "open" => TournamentState::Open,
        "running" => TournamentState::Running,
        "finished" => TournamentState::Finished,
        "cancelled" => TournamentState::Cancelled,
        other => {
            return Err(ApiError::unexpected(format!(
                "no tournament status is named {other:?}"
            )));
        }
    })
}

/// Tournament `row` as it is shown.
fn view(row: &TournamentRow) -> Result<TournamentView, ApiError> {
    let rules: StoredRules = serde_json::from_str(&row.rules)?;
    let number = |n: i64| u32::try_from(n).map_err(ApiError::unexpected);
    let time = |ms: i64| rfc3339_us(ms.saturating_mul(1000)).unwrap_or_default();
    Ok(TournamentView {
        id: row.id,
        name: row.name.clone(),
        variant: row.variant.parse::<Variant>().map_err(ApiError::unexpected)?,
        table_size: u8::try_from(row.table_size).map_err(ApiError::unexpected)?,
        format: Format::named(&row.format).ok_or_else(|| ApiError::unexpected("an unknown format"))?,
        rounds: number(row.rounds)?,
        deals_per_round: number(row.deals_per_round)?,
        starts_at: time(row.starts_at),
        max_entrants: number(row.max_entrants)?,
        entrants: number(row.entrants)?,
        turn_seconds: rules.clock.turn_seconds.unwrap_or_default(),
        round_seconds: number(row.round_seconds)?,
        bot_level: bot_level(row)?,
        status: status_of(&row.status)?,
        round: number(row.round)?,
        round_deadline: row.round_deadline.map(time),
        created_at: time(row.created_at),
    })
}

fn bot_level(row: &TournamentRow) -> Result<Level, ApiError> {
    crate::wire::level(&row.bot_level).map_err(ApiError::unexpected)
}

/// The tables of round `round` (from 1) of tournament `t` for its `entrants` (by place), by
/// the domain's movement, each with a fresh game id; none when nobody entered or the last
/// round is over.
fn plan_round(t: &TournamentRow, entrants: &[EntryRow]) -> Result<Vec<TableRow>, ApiError> {
    if entrants.is_empty() {
        return Ok(Vec::new());
    }
    let size = usize::try_from(t.table_size).map_err(ApiError::unexpected)?;
    let movement = Movement::new(entrants.len(), size).map_err(ApiError::unexpected)?;
    let round = usize::try_from(t.round - 1).map_err(ApiError::unexpected)?;
    movement
        .round(round)
        .into_iter()
        .enumerate()
        .map(|(n, seats)| {
            let seats: Vec<Option<i64>> = seats
                .into_iter()
                .map(|p| match p {
                    Place::Entrant(i) => i64::try_from(i).ok(),
                    Place::Bot => None,
                })
                .collect();
            Ok(TableRow {
                tournament_id: t.id,
                round: t.round,
                table_no: i64::try_from(n).map_err(ApiError::unexpected)?,
                game_id: Uuid::new_v4(),
                seats: serde_json::to_string(&seats)?,
                made: false,
            })
        })
        .collect()
}

/// Makes the game of `table` of tournament `t` unless it exists (another replica made it: the
/// insert of its id does nothing). Returns whether this call made it.
async fn make_table(
    state: &AppState,
    t: &TournamentRow,
    entrants: &BTreeMap<i64, &EntryRow>,
    table: &TableRow,
) -> Result<bool, ApiError> {
    let rules: StoredRules = serde_json::from_str(&t.rules)?;
    let level = bot_level(t)?;
    let places: Vec<Option<i64>> = serde_json::from_str(&table.seats)?;
    let mut seats = Vec::with_capacity(places.len());
    for place in places {
        let record = match place {
            Some(place) => {
                let e = entrants
                    .get(&place)
                    .ok_or_else(|| ApiError::unexpected(format!("no entrant at place {place}")))?;
                let player = PlayerId::try_from(e.player.clone()).map_err(ApiError::unexpected)?;
                SeatRecord::taken(SeatKind::Player, Some(e.name.clone()), None, Some(player))
            }
            None => SeatRecord::taken(SeatKind::Bot, None, Some(level), None),
        };
        seats.push(record);
    }
    let format = Format::named(&t.format).ok_or_else(|| ApiError::unexpected("an unknown format"))?;
    let secret = Seed::from_hex(&t.secret).map_err(ApiError::unexpected)?;
    let round = u32::try_from(table.round).map_err(ApiError::unexpected)?;
    let number = u32::try_from(table.table_no).map_err(ApiError::unexpected)?;
    let seed = Seed(round_seed(&secret.0, format, round, number));
    let config = GameConfig {
        ruleset: rules.ruleset.clone(),
        players: seats.len(),
        first_dealer: None,
        stacked_decks: None,
        start_year: None,
    };
    let mut game = HostedGame::new(config, seed, seats)?;
    game.set_clock(rules.clock);
    // Tournament games are not rated (docs/tournaments.md#scoring).
    game.rated = false;
    game.sealed = true;
    game.tournament = Some(t.id);
    game.check_players()?;
    super::ratings::rate_seats(state, &t.tenant, &mut game).await?;
    let started = game.start_if_full(super::utc_year())?;
    let now = now_ms();
    game.rearm(started.turn_passed, now, state.second_ms());
    let version = 1 + started.actions;
    super::count_refused(&state.metrics, &started);
    let webhook = t.webhook_url.clone().zip(t.webhook_secret.clone());
    let next_due = game.due_at(now, state.second_ms());
    let new = new_game(
        table.game_id,
        &t.tenant,
        &game,
        version,
        started,
        webhook,
        next_due,
    )?;
    let created = state.db.create_game(&new, None).await?;
    if created {
        state.metrics.game_created(&new.game.variant);
        state.outbox.notify_one();
        if game.bot_due().is_some() {
            state.bots.wake(table.game_id);
        }
        state.pace.arm(table.game_id, game.bot_at);
    }
    Ok(created)
}

/// How many tables of a round one replica makes at once: a round of thousands of tables is
/// made by several connections, and the pool keeps room for the players' own requests.
const TABLES_AT_ONCE: usize = 4;
/// How many tables made are marked so in one statement.
const MARKED_AT_ONCE: usize = 100;

/// Makes every table of a round just planned, [`TABLES_AT_ONCE`] at a time, and marks those
/// whose game exists made, [`MARKED_AT_ONCE`] at a time. An entrant's seat shows as soon as
/// its game exists; a table not marked is made again (idempotently) by the next pass.
async fn make_tables(state: &AppState, t: &TournamentRow, tables: &[TableRow]) -> Result<usize, ApiError> {
    let entrants = state.db.entrants(t.id).await?;
    let by_place: BTreeMap<i64, &EntryRow> = entrants.iter().filter_map(|e| Some((e.place?, e))).collect();
    let mut batches = std::pin::pin!(
        futures_util::stream::iter(tables)
            .map(|table| {
                let by_place = &by_place;
                async move {
                    match make_table(state, t, by_place, table).await {
                        Ok(created) => Some((table.game_id, created)),
                        Err(e) => {
                            tracing::warn!(tournament = %t.id, game = %table.game_id, error = %e, "a tournament table's game could not be made; trying again next pass");
                            None
                        }
                    }
                }
            })
            .buffer_unordered(TABLES_AT_ONCE)
            .ready_chunks(MARKED_AT_ONCE)
    );
    let mut made = 0;
    while let Some(batch) = batches.next().await {
        let games: Vec<Uuid> = batch.iter().flatten().map(|(game, _)| *game).collect();
        made += batch.iter().flatten().filter(|(_, created)| *created).count();
        state.db.tables_made(t.id, &games).await?;
    }
    Ok(made)
}

/// Starts the round after `from` of tournament `id`, if no replica did: plans it and makes
/// its tables. Returns the tables this call made.
async fn next_round(
    state: &AppState,
    id: Uuid,
    from: i64,
    ended: Option<String>,
    standings: &[StandingRow],
) -> Result<usize, ApiError> {
    // The round that ended, then the one that starts (or the end of a tournament nobody
    // entered): queued in the transaction that starts it.
    let notes = |t: &TournamentRow, tables: &[TableRow]| {
        let started = if tables.is_empty() {
            json!({"type": "tournament_finished", "tournament_id": t.id, "rounds": 0, "entrants": 0, "standings": []})
        } else {
            json!({"type": "round_started", "tournament_id": t.id, "round": t.round, "tables": tables.len()})
        };
        ended.into_iter().chain([started.to_string()]).collect()
    };
    let started = state
        .db
        .start_round(
            id,
            from,
            now_ms(),
            state.second_ms(),
            plan_round,
            Closing { standings, notes },
        )
        .await?;
    let Some((t, tables)) = started else {
        return Ok(0);
    };
    if tables.is_empty() {
        tracing::info!(tournament = %id, "tournament finished: nobody entered");
        return Ok(0);
    }
    tracing::info!(tournament = %id, round = t.round, tables = tables.len(), "tournament round started");
    make_tables(state, &t, &tables).await
}

/// Whether every table of tournament `t`'s round being played is over (finished or void):
/// its tables read once and their games counted in one statement, not read one by one, since
/// every game that ends asks again.
async fn round_over(state: &AppState, t: &TournamentRow) -> Result<bool, ApiError> {
    let tables = state.db.round_tables(t.id, t.round).await?;
    if tables.iter().any(|table| !table.made) {
        return Ok(false);
    }
    let games: Vec<Uuid> = tables.iter().map(|table| table.game_id).collect();
    Ok(state.db.games_over(&games).await? == games.len())
}

/// Opens the games of tournament `t`'s round that is over: each one's seed, record and
/// spectators, closed while other tables played the same deals.
async fn unseal(state: &AppState, t: &TournamentRow) -> Result<(), ApiError> {
    for table in state.db.round_tables(t.id, t.round).await? {
        state
            .db
            .transact(On::game(table.game_id), Lock::Row, |row| {
                let mut game = HostedGame::load(row.id, &row.state)?;
                if !game.sealed {
                    return Ok::<_, ApiError>(Outcome {
                        update: None,
                        value: (),
                    });
                }
                game.sealed = false;
                let next_due = game.due_at(now_ms(), state.second_ms());
                Ok(Outcome {
                    update: Some(crate::store::GameUpdate::of(
                        &game,
                        row.version + 1,
                        Vec::new(),
                        next_due,
                    )?),
                    value: (),
                })
            })
            .await?;
    }
    Ok(())
}

/// At a round's deadline: every person's seat of each table still playing is handed to
/// autopilot (the tournament's bot level), which plays it out.
async fn play_out(state: &AppState, t: &TournamentRow) -> Result<(), ApiError> {
    let level = bot_level(t)?;
    for table in state.db.round_tables(t.id, t.round).await? {
        let result = state
            .db
            .transact(On::game(table.game_id), Lock::Row, |row| {
                let mut game = HostedGame::load(row.id, &row.state)?;
                if matches!(
                    game.status(),
                    crate::domain::GameStatus::Finished | crate::domain::GameStatus::Void
                ) {
                    return Ok::<_, ApiError>(Outcome {
                        update: None,
                        value: (),
                    });
                }
                let mut applied = Applied::default();
                for seat in 0..game.seats.len() {
                    if game.seats[seat].kind == SeatKind::Player {
                        let seat = u8::try_from(seat).map_err(ApiError::unexpected)?;
                        let more = game.set_autopilot(engine::Seat(seat), Some(level))?;
                        applied.append(more);
                    }
                }
                let now = now_ms();
                game.rearm(applied.turn_passed, now, state.second_ms());
                let version = row.version + applied.actions;
                let next_due = game.due_at(now, state.second_ms());
                let events = super::event_rows(applied, row.webhook_url.is_some())?;
                Ok(Outcome {
                    update: Some(crate::store::GameUpdate::of(&game, version, events, next_due)?),
                    value: (),
                })
            })
            .await;
        match result {
            Ok(_) => {
                state.outbox.notify_one();
                state.bots.wake(table.game_id);
            }
            Err(e) => {
                tracing::warn!(tournament = %t.id, game = %table.game_id, error = %e, "a table could not be played out at its round's deadline")
            }
        }
    }
    state.db.deadline_passed(t.id, t.round).await?;
    tracing::info!(tournament = %t.id, round = t.round, "round deadline: tables still playing are played out by autopilot");
    Ok(())
}

/// What a tournament pass did.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Pass {
    /// Games this replica made.
    pub games: usize,
    /// When the soonest tournament is due next (unix ms), if any is.
    pub next_due: Option<i64>,
}

/// One tournament pass: starts the tournaments whose start came, plays out the rounds whose
/// deadline came, starts the next round of those whose round is over (or finishes them), and
/// makes the tables left unmade.
///
/// # Errors
/// The store's failure to read what is due (a tournament that fails is logged and tried again
/// next pass).
pub async fn tournament_pass(state: &AppState) -> Result<Pass, ApiError> {
    let mut pass = Pass::default();
    let now = now_ms();
    for t in state.db.tournaments_due(now, DUE_PER_PASS).await? {
        let done = async {
            match t.status.as_str() {
                "open" if t.starts_at <= now => next_round(state, t.id, 0, None, &[]).await,
                "running" => {
                    if round_over(state, &t).await? {
                        unseal(state, &t).await?;
                        // The standings after the round, stored by the transaction that closes it.
                        let (rounds, standings) = standings_of(state, &t).await?;
                        let (ended, finished) = round_notes(&t, rounds, &standings);
                        let rows = standings
                            .iter()
                            .zip(0..)
                            .map(|(s, position)| StandingRow {
                                position,
                                rank: i64::from(s.rank),
                                player: s.player.clone(),
                                name: s.name.clone(),
                                score: s.score,
                            })
                            .collect::<Vec<_>>();
                        if t.round >= t.rounds {
                            let notes: Vec<String> = ended.into_iter().chain(finished).collect();
                            if state.db.finish_tournament(t.id, t.round, &notes, &rows).await? {
                                tracing::info!(tournament = %t.id, "tournament finished");
                            }
                            Ok(0)
                        } else {
                            next_round(state, t.id, t.round, ended, &rows).await
                        }
                    } else {
                        if t.round_deadline.is_some_and(|d| d <= now) && t.due_at.is_some() {
                            play_out(state, &t).await?;
                        }
                        Ok(0)
                    }
                }
                _ => Ok(0),
            }
        }
        .await;
        match done {
            Ok(made) => pass.games += made,
            Err(e) => {
                tracing::warn!(tournament = %t.id, error = %e, "a tournament could not be moved on; trying again next pass")
            }
        }
    }
    for table in state.db.unmade_tables(UNMADE_PER_PASS).await? {
        let Some(t) = state.db.tournament(None, table.tournament_id).await? else {
            continue;
        };
        match make_tables(state, &t, std::slice::from_ref(&table)).await {
            Ok(made) => pass.games += made,
            Err(e) => {
                tracing::warn!(tournament = %t.id, error = %e, "a tournament's tables could not be made")
            }
        }
    }
    pass.next_due = state.db.next_tournament_due().await?;
    Ok(pass)
}

/// How many entrants a `round_ended` webhook event lists (the top of the standings).
const ROUND_TOP: usize = 10;
/// How many entrants the `tournament_finished` webhook event lists: the rest are in the
/// standings' pages, which a receiver reads with the server key.
const FINAL_TOP: usize = 100;
/// How long a replica holds a tournament delivery it claimed (an attempt takes at most 5 s).
const NOTE_LEASE_MS: i64 = 30_000;

/// The webhook events of tournament `t`'s round that is over, when it has a webhook:
/// `round_ended` with the top of the standings, and `tournament_finished` with the final
/// standings' top (sent only after the last round).
fn round_notes(
    t: &TournamentRow,
    rounds: u32,
    standings: &[StandingView],
) -> (Option<String>, Option<String>) {
    if t.webhook_url.is_none() {
        return (None, None);
    }
    let top = |n: usize| &standings[..standings.len().min(n)];
    let ended = json!({"type": "round_ended", "tournament_id": t.id, "round": t.round,
        "entrants": standings.len(), "top": top(ROUND_TOP)});
    let finished = json!({"type": "tournament_finished", "tournament_id": t.id, "rounds": rounds,
        "entrants": standings.len(), "standings": top(FINAL_TOP)});
    (Some(ended.to_string()), Some(finished.to_string()))
}

/// Attempts the tournaments' own webhook deliveries that are due: each tournament's first
/// pending one, leased by a conditional update (one replica's), POSTed signed, and its outcome
/// recorded (delivered; retried with the games' backoff; given up after the games' time). A
/// tournament's next delivery waits for the one before it, so they arrive in order.
async fn deliver_notes(state: &AppState, client: &reqwest::Client) -> Result<usize, ApiError> {
    let mut sent = 0;
    // The next of a tournament's deliveries is due once the one before it is settled.
    for _ in 0..4 {
        let now = now_ms();
        let due = state.db.due_tournament_deliveries(now, DUE_PER_PASS).await?;
        if due.is_empty() {
            break;
        }
        for d in due {
            let lease = now + NOTE_LEASE_MS;
            if !state
                .db
                .lease_tournament_delivery(d.tournament_id, d.seq, now, lease)
                .await?
            {
                continue;
            }
            let event: serde_json::Value = serde_json::from_str(&d.event)?;
            let body = serde_json::to_vec(&json!({"id": d.id, "tournament_id": d.tournament_id,
                "seq": d.seq, "type": event["type"], "event": event}))?;
            let outcome =
                super::webhooks::post_signed(state, client, &d.webhook_url, &d.id, &d.webhook_secret, body)
                    .await;
            let (status, next, error) = match outcome {
                Ok(()) => ("delivered", lease, None),
                Err(e) => match super::webhooks::retry_at(state, d.attempts, d.created_at) {
                    Some(at) => ("pending", at, Some(e)),
                    None => ("failed", lease, Some(e)),
                },
            };
            if let Some(error) = &error {
                tracing::info!(tournament = %d.tournament_id, seq = d.seq, %error, status, "tournament webhook failed");
            }
            state
                .db
                .settle_tournament_delivery(d.tournament_id, d.seq, lease, status, next, error.as_deref())
                .await?;
            sent += 1;
        }
    }
    Ok(sent)
}

/// The tournament worker each replica runs: a pass when a tournament is made or cancelled on
/// any replica, or a commit ends a sealed table's game (its round may be over; both heard
/// through the hub), when the soonest due time it read comes (a start, a round's deadline),
/// and at least every `backstop`, which finds what an announcement missed.
pub async fn run_tournaments(state: web::Data<AppState>, backstop: Duration) {
    let mut wakeups = state.live.follow(TOURNAMENTS_DUE);
    let client = match super::webhooks::client(state.asynchronous.webhook_allow_private) {
        Ok(c) => Some(c),
        Err(e) => {
            tracing::error!(error = %e, "no webhook client: tournament webhooks stay queued");
            None
        }
    };
    loop {
        let started = Instant::now();
        let mut next_due = match tournament_pass(&state).await {
            Ok(pass) => {
                if let Some(took_ms) = state.slow_pass(started) {
                    tracing::warn!(games = pass.games, took_ms, "slow tournament pass");
                }
                pass.next_due
            }
            Err(e) => {
                tracing::warn!(error = %e, "tournament pass failed");
                None
            }
        };
        if let Some(client) = &client {
            let delivered = async {
                deliver_notes(&state, client).await?;
                Ok::<_, ApiError>(state.db.next_tournament_delivery().await?)
            };
            match delivered.await {
                Ok(Some(at)) => next_due = Some(next_due.map_or(at, |due| due.min(at))),
                Ok(None) => {}
                Err(e) => tracing::warn!(error = %e, "tournament webhooks failed"),
            }
        }
        let mut until = tokio::time::Instant::now() + backstop;
        if let Some(due) = next_due {
            let wait = Duration::from_millis(u64::try_from(due - now_ms()).unwrap_or(0));
            // A due time already past is acted on by the pass that read it: wait for the
            // backstop rather than read it again at once.
            if !wait.is_zero() {
                until = until.min(tokio::time::Instant::now() + wait);
            }
        }
        tokio::select! {
            () = tokio::time::sleep_until(until) => {}
            () = state.live.wakes().round_heard() => {}
            heard = wakeups.recv() => {
                if matches!(heard, Err(RecvError::Closed)) {
                    wakeups = state.live.follow(TOURNAMENTS_DUE);
                }
                while matches!(wakeups.try_recv(), Ok(_) | Err(TryRecvError::Lagged(_))) {}
            }
        }
    }
}

/// Each deal's score of every seat of game `game` (`seats` seats), from its own event log:
/// the scores of each `deal_ended` event, `None` for a deal not scored (a game called off).
async fn deal_scores(state: &AppState, game: Uuid, seats: usize) -> Result<Vec<Vec<Option<i32>>>, ApiError> {
    let mut scores: Vec<Vec<Option<i32>>> = vec![Vec::new(); seats];
    for row in state.db.events_after(game, 0, i64::from(u32::MAX)).await? {
        let logged: Logged = serde_json::from_str(&row.body)?;
        if let Logged::Engine(engine::Event::DealEnded {
            deal,
            scores: of_deal,
            ..
        }) = logged
        {
            let at = usize::from(deal).saturating_sub(1);
            for (seat, score) in of_deal.into_iter().enumerate().take(seats) {
                if scores[seat].len() <= at {
                    scores[seat].resize(at + 1, None);
                }
                scores[seat][at] = Some(score);
            }
        }
    }
    Ok(scores)
}

/// A round that is over: each table with who sat where and its scores, seat by seat, deal by
/// deal.
struct RoundOver {
    tables: Vec<(TableRow, Vec<Option<i64>>)>,
    scores: Vec<Vec<Vec<Option<i32>>>>,
}

/// The rounds of tournament `t` whose every table is over, each with its tables and scores.
/// The round being played is not among them until its last table is over: nothing of its
/// deals is shown while a table still plays them.
async fn rounds_over(state: &AppState, t: &TournamentRow) -> Result<Vec<RoundOver>, ApiError> {
    let mut rounds = Vec::new();
    for round in 1..=t.round {
        if round == t.round && t.status != "finished" && !round_over(state, t).await? {
            break;
        }
        let mut over = RoundOver {
            tables: Vec::new(),
            scores: Vec::new(),
        };
        for table in state.db.round_tables(t.id, round).await? {
            let places: Vec<Option<i64>> = serde_json::from_str(&table.seats)?;
            over.scores
                .push(deal_scores(state, table.game_id, places.len()).await?);
            over.tables.push((table, places));
        }
        rounds.push(over);
    }
    Ok(rounds)
}

/// Each entrant's standing in tournament `t` after its rounds that are over, best first.
async fn standings_of(state: &AppState, t: &TournamentRow) -> Result<(u32, Vec<StandingView>), ApiError> {
    let format = Format::named(&t.format).ok_or_else(|| ApiError::unexpected("an unknown format"))?;
    let entrants = state.db.entrants(t.id).await?;
    let highest_wins = serde_json::from_str::<StoredRules>(&t.rules)?
        .ruleset
        .highest_total_wins();
    let rounds = rounds_over(state, t).await?;
    let mut totals: BTreeMap<i64, i64> = BTreeMap::new();
    for round in &rounds {
        let results = round_results(format, highest_wins, &round.scores);
        for ((_, places), seats) in round.tables.iter().zip(results) {
            for (place, result) in places.iter().zip(seats) {
                if let Some(place) = place {
                    *totals.entry(*place).or_default() += result;
                }
            }
        }
    }
    let mut rows: Vec<(i64, &EntryRow)> = entrants
        .iter()
        .filter_map(|e| Some((totals.get(&e.place?).copied().unwrap_or(0), e)))
        .collect();
    // Duplicate: more matchpoints first; points: the variant's better total first (fewer
    // penalty points, or in `continental` more paid); then by place.
    rows.sort_by_key(|(total, e)| {
        (
            if format == Format::Duplicate || highest_wins {
                -total
            } else {
                *total
            },
            e.place,
        )
    });
    let mut standings = Vec::with_capacity(rows.len());
    for (n, (total, e)) in rows.iter().enumerate() {
        let rank = match n.checked_sub(1).map(|m| rows[m].0) {
            Some(before) if before == *total => standings.last().map_or(1, |s: &StandingView| s.rank),
            _ => u32::try_from(n + 1).map_err(ApiError::unexpected)?,
        };
        #[expect(clippy::cast_precision_loss, reason = "matchpoints stay far below 2^52")]
        let score = match format {
            Format::Duplicate => *total as f64 / 2.0,
            Format::Points => *total as f64,
        };
        standings.push(StandingView {
            rank,
            player: e.player.clone(),
            name: e.name.clone(),
            score,
        });
    }
    Ok((
        u32::try_from(rounds.len()).map_err(ApiError::unexpected)?,
        standings,
    ))
}

/// A stored standing as the API shows it.
fn standing_view(s: StandingRow) -> Result<StandingView, ApiError> {
    Ok(StandingView {
        rank: u32::try_from(s.rank).map_err(ApiError::unexpected)?,
        player: s.player,
        name: s.name,
        score: s.score,
    })
}

/// A page of `tenant`'s tournament `id`'s standings: from `cursor`, or the page around
/// `player`.
///
/// # Errors
/// `tournament_not_found`; `invalid_cursor`; `player_not_found` for a `player` who has not
/// entered; the store's failure.
pub async fn standings(
    state: &AppState,
    tenant: &Tenant,
    id: Uuid,
    limit: u32,
    cursor: Option<&str>,
    player: Option<&PlayerId>,
) -> Result<StandingsPage, ApiError> {
    keyed(state)?;
    let t = state
        .db
        .tournament(Some(tenant.as_str()), id)
        .await?
        .ok_or_else(|| not_found(id))?;
    standings_page(state, &t, limit, cursor, player).await
}

/// A page of tournament `id`'s standings as the holder of its entry `entry` reads them (of
/// `tenant`'s tournament, with a server key): from `cursor` or the top, with the entrant's own
/// standing as `player` once a round is counted.
///
/// # Errors
/// `tournament_not_found`; `entry_not_found`; `invalid_cursor`; the store's failure.
pub async fn entry_standings(
    state: &AppState,
    tenant: Option<&Tenant>,
    id: Uuid,
    entry: Uuid,
    limit: u32,
    cursor: Option<&str>,
) -> Result<StandingsPage, ApiError> {
    let (t, row) = tournament_and_entry(state, tenant, id, entry).await?;
    let mut page = standings_page(state, &t, limit, cursor, None).await?;
    if page.rounds > 0 {
        page.player = state
            .db
            .standing_of(id, i64::from(page.rounds), &row.player)
            .await?
            .map(standing_view)
            .transpose()?;
    }
    Ok(page)
}

/// A page of tournament `t`'s standings stored when its last round closed: from `cursor`, or
/// the page around `player`. Its cursors are bound to the tournament's tenant, whoever reads.
async fn standings_page(
    state: &AppState,
    t: &TournamentRow,
    limit: u32,
    cursor: Option<&str>,
    player: Option<&PlayerId>,
) -> Result<StandingsPage, ApiError> {
    let id = t.id;
    // The standings stored when the last round closed: a page is a range of their index, a
    // player one row of it; no game's log is read.
    let round = state.db.standings_round(id).await?.unwrap_or(0);
    let rounds = u32::try_from(round).map_err(ApiError::unexpected)?;
    let entrants = if round == 0 {
        let placed = state
            .db
            .entrants(id)
            .await?
            .iter()
            .filter(|e| e.place.is_some())
            .count();
        i64::try_from(placed).map_err(ApiError::unexpected)?
    } else {
        t.entrants
    };
    let board = format!("{id}:{rounds}");
    let seal = state.keys.cursors();
    let (from, own) = match (cursor, player) {
        (Some(c), _) => (
            i64::from(decode_standings_cursor(seal, &t.tenant, &board, c)?),
            None,
        ),
        (None, Some(p)) => {
            let own = if round == 0 {
                None
            } else {
                state.db.standing_of(id, round, p.as_str()).await?
            };
            let own = own.ok_or_else(|| {
                ApiError::not_found(Code::PlayerNotFound, "this player has not entered the tournament")
            })?;
            (
                own.position.saturating_sub(i64::from(limit / 2)),
                Some(standing_view(own)?),
            )
        }
        (None, None) => (0, None),
    };
    let page = if round == 0 {
        Vec::new()
    } else {
        state.db.standings_page(id, round, from, i64::from(limit)).await?
    };
    let next = from + i64::try_from(page.len()).map_err(ApiError::unexpected)?;
    let next_cursor = (next < entrants)
        .then(|| u32::try_from(next).ok())
        .flatten()
        .map(|n| encode_standings_cursor(seal, &t.tenant, &board, n));
    let page = page
        .into_iter()
        .map(standing_view)
        .collect::<Result<Vec<_>, _>>()?;
    Ok(StandingsPage {
        format: Format::named(&t.format).ok_or_else(|| ApiError::unexpected("an unknown format"))?,
        rounds,
        entrants: u32::try_from(entrants).map_err(ApiError::unexpected)?,
        standings: page,
        next_cursor,
        player: own,
    })
}

/// Entry `entry`'s deals of tournament `id`'s rounds that are over: its score on each, and in
/// duplicate the same seat's at the other tables.
///
/// # Errors
/// `tournament_not_found`; `entry_not_found`; the store's failure.
pub async fn entry_deals(
    state: &AppState,
    tenant: Option<&Tenant>,
    id: Uuid,
    entry: Uuid,
) -> Result<EntryDeals, ApiError> {
    let (t, row) = tournament_and_entry(state, tenant, id, entry).await?;
    let duplicate = t.format == Format::Duplicate.as_str();
    let mut deals = Vec::new();
    let Some(place) = row.place else {
        return Ok(EntryDeals { deals });
    };
    for (n, round) in rounds_over(state, &t).await?.iter().enumerate() {
        let Some((at, seat)) = round.tables.iter().enumerate().find_map(|(at, (_, places))| {
            places
                .iter()
                .position(|p| *p == Some(place))
                .map(|seat| (at, seat))
        }) else {
            continue;
        };
        for (deal, score) in round.scores[at][seat].iter().enumerate() {
            let Some(score) = score else { continue };
            let others = match duplicate {
                true => round
                    .scores
                    .iter()
                    .enumerate()
                    .filter(|(other, _)| *other != at)
                    .filter_map(|(_, seats)| seats.get(seat)?.get(deal).copied().flatten())
                    .collect(),
                false => Vec::new(),
            };
            deals.push(DealResult {
                round: u32::try_from(n + 1).map_err(ApiError::unexpected)?,
                deal: u32::try_from(deal + 1).map_err(ApiError::unexpected)?,
                table: u32::try_from(round.tables[at].0.table_no).map_err(ApiError::unexpected)?,
                seat: u8::try_from(seat).map_err(ApiError::unexpected)?,
                score: *score,
                others,
            });
        }
    }
    Ok(EntryDeals { deals })
}
