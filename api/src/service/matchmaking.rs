//! Quick play (docs/api.md#matchmaking): tickets queued, read and cancelled, and the matching
//! worker every replica runs, which forms tables from waiting tickets (`domain::match_tickets`)
//! and makes their games.
//!
//! A pool (a tenant's waiting tickets of equal rules and asynchrony) is matched only when it is
//! due: when a ticket arrived or left (the ticket's own transaction marks it, and the hub wakes
//! every replica's worker), or when the clock alone could seat someone (the time its last pass
//! stored: a wait reaching the bots' time, a window widening, a ticket expiring;
//! `domain::next_change`). An idle pool costs nothing. A due pool is matched in one store
//! transaction that holds its row and marks each seated ticket with its planned game and seat
//! before it commits (`Tickets::match_pool`); each game is made after, idempotently (a game
//! whose id exists is left alone), and only then are its tickets `matched`. A replica that
//! stops in between leaves tickets `placing`: the next pass of any replica makes their game
//! from the plan they carry. So a ticket is in one game or none, whichever replica formed its
//! table.

use std::collections::{BTreeMap, BTreeSet};
use std::convert::Infallible;
use std::time::{Duration, Instant};

use actix_web::web::{self, Bytes};
use engine::bot::Level;
use engine::{GameConfig, Ruleset, Variant};
use futures_util::{Stream, StreamExt};
use serde::{Deserialize, Serialize};
use strum::IntoEnumIterator;
use tokio::sync::broadcast::error::{RecvError, TryRecvError};
use tracing::Instrument;
use uuid::Uuid;

use super::games::{new_game, random_seed};
use super::webhooks::{check_host, new_secret};
use crate::domain::{
    Applied, BotLevels, HostedGame, Logged, MatchRules, MatchSeat, MatchedSeat, Participant, PlayerId,
    Rating, SeatKind, SeatRecord, TableEvent, TableSizes, Ticket, TicketStatus, TurnClock, match_tickets,
    match_tickets_now, next_change,
};
use crate::error::ApiError;
use crate::server_keys::Tenant;
use crate::state::AppState;
use crate::store::{
    KeyRef, POOL_BATCH, POOLS_DUE, Placement, Pool, PoolDecision, Store, StoredResponse, Subscription,
    TicketRow, Tickets, now_ms,
};
use crate::telemetry::traces;
use crate::wire::{
    Code, StreamFailure, TicketBots, TicketMatch, TicketResponse, TicketSpec, TicketState, TicketView,
    rfc3339_us,
};

/// How long a table may stay `placing` before any replica's pass makes its game: the replica
/// that formed it makes it at once, unless it stopped.
const PLACING_GRACE_MS: i64 = 5_000;

/// Games a pass makes at once: enough to overlap their round trips, few enough to leave the
/// pool's connections to the requests.
const PLACING_AT_ONCE: usize = 4;

/// Pools a pass matches at once, each in a transaction of its own: a large pool holds up one
/// of these, not the others.
const POOLS_AT_ONCE: usize = 4;

/// Pools of one tenant a round of a pass takes, and pools in all: every tenant's soonest due
/// before any tenant's next, so that one tenant's pools never hold up another's.
const POOLS_PER_TENANT: i64 = 8;
const POOLS_PER_ROUND: i64 = 64;

/// A ticket's rules as stored: the ruleset and the turn clock its game gets. Tickets meet only
/// when these are equal.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
struct StoredRules {
    ruleset: Ruleset,
    clock: TurnClock,
}

/// A seat of a table formed, as stored on its tickets: what makes its game again after a
/// replica stopped.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
enum PlanSeat {
    /// The ticket's player.
    Ticket(Uuid),
    /// A bot of this level.
    Bot(Level),
}

/// Queues a ticket of `tenant`, with the response of its idempotency key, if any.
///
/// # Errors
/// A webhook host the service does not deliver to; `already_waiting`; the store's failure.
pub async fn create_ticket(
    state: &AppState,
    tenant: &Tenant,
    spec: TicketSpec,
    key: Option<&KeyRef>,
) -> Result<StoredResponse, ApiError> {
    let TicketSpec {
        player,
        name,
        ruleset,
        clock,
        sizes,
        asynchronous,
        webhook_url,
    } = spec;
    if let Some(url) = &webhook_url {
        check_host(&url.0, state.asynchronous.webhook_allow_private).await?;
    }
    let rating = player_rating(state, tenant, ruleset.variant(), player.as_ref()).await?;
    let settings = &state.matchmaking;
    let ttl = if asynchronous {
        settings.async_ticket_ttl
    } else {
        settings.ticket_ttl
    };
    let now = now_ms();
    let webhook_secret = webhook_url.as_ref().map(|_| new_secret());
    let ticket = TicketRow {
        tenant: tenant.as_str().to_owned(),
        id: Uuid::new_v4(),
        player: player.map(String::from),
        name,
        variant: ruleset.variant().id().to_owned(),
        rules: serde_json::to_string(&StoredRules {
            ruleset: ruleset.clone(),
            clock,
        })?,
        sizes: serde_json::to_string(&sizes.iter().collect::<Vec<_>>())?,
        asynchronous,
        rating_mean: rating.mean,
        rating_deviation: rating.deviation,
        webhook_url: webhook_url.map(|u| u.0.to_string()),
        webhook_secret: webhook_secret.clone(),
        status: TicketStatus::Waiting,
        created_at: now,
        expires_at: now.saturating_add(i64::try_from(ttl.as_millis()).unwrap_or(i64::MAX)),
        matched_at: None,
        game_id: None,
        seat: None,
        plan: None,
    };
    let response = StoredResponse {
        status: 201,
        etag: None,
        body: serde_json::to_vec(&TicketResponse {
            ticket: view(state, &ticket, now, false).await?,
            webhook_secret,
        })?,
    };
    state
        .db
        .create_ticket(&ticket, key.map(|k| (k, &response)))
        .await?;
    tracing::debug!(ticket = %ticket.id, tenant = %ticket.tenant, variant = %ticket.variant, "ticket queued");
    Ok(response)
}

/// Ticket `id`, as its holder reads it: of `tenant` only, when the request has a server key.
/// A cancelled ticket is gone: only a stream that followed it saw it cancelled.
///
/// # Errors
/// `ticket_not_found`; `ticket_cancelled`; the store's failure.
pub async fn ticket(state: &AppState, tenant: Option<&Tenant>, id: Uuid) -> Result<TicketView, ApiError> {
    let view = current(state, tenant, id).await?;
    if view.status == TicketState::Cancelled {
        return Err(ApiError::gone(
            Code::TicketCancelled,
            format!("ticket {id} was cancelled: queue a new one to play"),
        ));
    }
    Ok(view)
}

/// Ticket `id` in whatever status it is.
async fn current(state: &AppState, tenant: Option<&Tenant>, id: Uuid) -> Result<TicketView, ApiError> {
    let row = state
        .db
        .ticket(tenant.map(Tenant::as_str), id)
        .await?
        .ok_or_else(|| not_found(id))?;
    view(state, &row, now_ms(), true).await
}

/// Seats waiting ticket `id` (of `tenant` only, when the request has a server key) now, with
/// the people it can find and bots for the other seats, as the matching pass seats a ticket
/// whose bots' wait is reached, in the same transaction on the pool's row: a ticket is in one
/// game or none whoever seats it. Returns the ticket, matched (or waiting, in the rare case
/// its game could not be made at once: the matching worker makes it).
///
/// # Errors
/// `ticket_not_found`; `ticket_cancelled`; `ticket_matched`; `ticket_expired`;
/// `no_quick_play_bots` on a server that seats no bots at quick play or none of the variant;
/// the store's failure.
pub async fn seat_with_bots_now(
    state: &AppState,
    tenant: Option<&Tenant>,
    id: Uuid,
) -> Result<TicketView, ApiError> {
    let row = waiting_ticket(state, tenant, id).await?;
    if state.matchmaking.bots_after.is_none() {
        return Err(ApiError::conflict(
            Code::NoQuickPlayBots,
            "this server seats no bots at quick play: the ticket waits for people",
        ));
    }
    let rules: StoredRules = serde_json::from_str(&row.rules)?;
    let variant = rules.ruleset.variant();
    let bots = bot_levels(state, &row.tenant, variant).await?;
    if bots.nearest(variant, row.rating_mean).is_none() {
        return Err(ApiError::conflict(
            Code::NoQuickPlayBots,
            format!("this server seats no bot that plays {variant}: the ticket waits for people"),
        ));
    }
    let pool = pool_of(&row);
    let settings = match_rules(state);
    let now = now_ms();
    let soonest =
        now.saturating_add(i64::try_from(state.matchmaking.interval.as_millis()).unwrap_or(i64::MAX));
    let decided = state
        .db
        .match_ticket_now(&pool, id, now, |rows| {
            decide(rows, &rules, &bots, &settings, now, soonest, Some(id))
        })
        .await?;
    let Some((rows, decision)) = decided else {
        // A pass or a cancel settled it first.
        waiting_ticket(state, tenant, id).await?;
        return Err(ApiError::unexpected("a waiting ticket was not found in its pool"));
    };
    place_all(state, placed(rows, &decision)).await;
    let view = current(state, tenant, id).await?;
    if view.status == TicketState::Expired {
        return Err(expired(id));
    }
    Ok(view)
}

/// Ticket `id` of `tenant`, still waiting; else refused by what became of it.
async fn waiting_ticket(state: &AppState, tenant: Option<&Tenant>, id: Uuid) -> Result<TicketRow, ApiError> {
    let row = state
        .db
        .ticket(tenant.map(Tenant::as_str), id)
        .await?
        .ok_or_else(|| not_found(id))?;
    still_waiting(row.status, id)?;
    Ok(row)
}

/// Refuses a ticket that no longer waits, by what became of it.
fn still_waiting(status: TicketStatus, id: Uuid) -> Result<(), ApiError> {
    match status {
        TicketStatus::Waiting => Ok(()),
        TicketStatus::Placing | TicketStatus::Matched => Err(ApiError::conflict(
            Code::TicketMatched,
            "this ticket is seated at a table already: read it for its seat",
        )),
        TicketStatus::Expired => Err(expired(id)),
        TicketStatus::Cancelled => Err(ApiError::gone(
            Code::TicketCancelled,
            format!("ticket {id} was cancelled: queue a new one to play"),
        )),
    }
}

fn expired(id: Uuid) -> ApiError {
    ApiError::conflict(
        Code::TicketExpired,
        format!("ticket {id} expired before it was seated: queue a new one to play"),
    )
}

/// The pool a ticket waits in.
fn pool_of(row: &TicketRow) -> Pool {
    Pool {
        tenant: row.tenant.clone(),
        rules: row.rules.clone(),
        asynchronous: row.asynchronous,
    }
}

/// Most tickets counted in a ticket's `waiting`: a bound on the read, whatever the pool holds.
const WAITING_COUNTED: i64 = 1_000;

/// Cancels ticket `id` (of `tenant` only, when the request has a server key): done when it was
/// waiting, and when it was cancelled or expired before.
///
/// # Errors
/// `ticket_not_found`; `ticket_matched` for a ticket seated at a table; the store's failure.
pub async fn cancel_ticket(state: &AppState, tenant: Option<&Tenant>, id: Uuid) -> Result<(), ApiError> {
    match state.db.cancel_ticket(tenant.map(Tenant::as_str), id).await? {
        None => Err(not_found(id)),
        Some(TicketStatus::Cancelled | TicketStatus::Expired) => Ok(()),
        Some(TicketStatus::Placing | TicketStatus::Matched) => Err(ApiError::conflict(
            Code::TicketMatched,
            "this ticket is seated at a table already: play the game, or leave it",
        )),
        // The cancel waits for a pass that holds the ticket, and the pass leaves it seated,
        // expired or free: a ticket still waiting after it is a store that went wrong.
        Some(TicketStatus::Waiting) => Err(ApiError::unexpected("a waiting ticket was not cancelled")),
    }
}

fn not_found(id: Uuid) -> ApiError {
    ApiError::not_found(Code::TicketNotFound, format!("no ticket {id}"))
}

/// The view of ticket `row` at `now` (unix ms): for a waiting ticket, the bots its table gets
/// if nobody comes (the level the matcher would choose for the ticket alone); for a matched
/// ticket, its seat's token while the seat is still in its first generation (read from its
/// game): none once the studio reissued it or gave the seat to a bot.
async fn view(state: &AppState, row: &TicketRow, now: i64, stored: bool) -> Result<TicketView, ApiError> {
    let (status, until) = match row.status {
        TicketStatus::Waiting | TicketStatus::Placing => (TicketState::Waiting, now.min(row.expires_at)),
        TicketStatus::Matched => (TicketState::Matched, row.matched_at.unwrap_or(now)),
        TicketStatus::Expired => (TicketState::Expired, row.expires_at),
        TicketStatus::Cancelled => (TicketState::Cancelled, now.min(row.expires_at)),
    };
    let matched = match (row.status, row.game_id, row.seat) {
        (TicketStatus::Matched, Some(game), Some(seat)) => {
            let seat = u8::try_from(seat).map_err(ApiError::unexpected)?;
            let generation = match state.db.game(game).await? {
                Some(g) => HostedGame::load(g.id, &g.state)?.ticket_generation(seat),
                None => None,
            };
            Some(TicketMatch {
                game_id: game,
                seat,
                token: generation
                    .map(|generation| state.keys.issue(game, seat, generation))
                    .transpose()?,
                token_replaced: generation.is_none(),
            })
        }
        _ => None,
    };
    let variant: Variant = row.variant.parse().map_err(ApiError::unexpected)?;
    let bots = match (status, state.matchmaking.bots_after) {
        (TicketState::Waiting, Some(after)) => bot_levels(state, &row.tenant, variant)
            .await?
            .nearest(variant, row.rating_mean)
            .map(|(level, rating)| TicketBots {
                level,
                rating: rating.into(),
                after_seconds: after.as_secs(),
            }),
        _ => None,
    };
    // The others in its pool; the ticket itself is counted once stored and waiting.
    let waiting = match status {
        TicketState::Waiting => {
            let own = i64::from(stored && row.status == TicketStatus::Waiting);
            let counted = state
                .db
                .waiting_in_pool(&pool_of(row), WAITING_COUNTED + own)
                .await?;
            Some(u64::try_from(counted - own).unwrap_or(0))
        }
        _ => None,
    };
    let time = |ms: i64| rfc3339_us(ms.saturating_mul(1000)).unwrap_or_default();
    Ok(TicketView {
        id: row.id,
        status,
        variant,
        sizes: serde_json::from_str(&row.sizes)?,
        asynchronous: row.asynchronous,
        created_at: time(row.created_at),
        expires_at: time(row.expires_at),
        waited_seconds: (until - row.created_at).max(0) / 1000,
        bots,
        waiting,
        matched,
    })
}

/// The live view of ticket `id`: a `ticket` event now and at each change of its status, the
/// stream ending once it is matched, expired or cancelled.
///
/// # Errors
/// `ticket_not_found`; `too_many_streams`; the store's failure.
pub async fn ticket_events(
    state: web::Data<AppState>,
    tenant: Option<Tenant>,
    id: Uuid,
) -> Result<impl Stream<Item = Result<Bytes, Infallible>> + use<>, ApiError> {
    // Subscribed before the first read, so that no change after it is missed.
    let subscription = state.live.subscribe(id)?;
    let first = ticket(&state, tenant.as_ref(), id).await?;
    let open = state.metrics.stream_opened();
    let start = Follow {
        next: Some(first),
        sub: subscription,
        state,
        tenant,
        sent: None,
        done: false,
        _open: open,
    };
    Ok(futures_util::stream::unfold(start, move |mut f| async move {
        if f.done {
            return None;
        }
        loop {
            if let Some(view) = f.next.take()
                && f.sent != Some(view.status)
            {
                f.done = view.status != TicketState::Waiting;
                f.sent = Some(view.status);
                let data = serde_json::to_string(&view).unwrap_or_default();
                return Some((Ok(Bytes::from(format!("event: ticket\ndata: {data}\n\n"))), f));
            }
            let heartbeat = tokio::time::sleep(Duration::from_secs(15));
            let woken = tokio::select! {
                _ = f.sub.closing.wait_for(|c| *c) => Woken::Closing,
                signal = f.sub.signals.recv() => match signal {
                    Err(tokio::sync::broadcast::error::RecvError::Closed) => Woken::Closing,
                    // A change, a listener that reconnected, or a stream behind: read it again.
                    Ok(_) | Err(tokio::sync::broadcast::error::RecvError::Lagged(_)) => Woken::Changed,
                },
                () = heartbeat => Woken::Idle,
            };
            match woken {
                Woken::Closing => {
                    f.done = true;
                    return Some((Ok(Bytes::from(StreamFailure::ShuttingDown.message())), f));
                }
                Woken::Idle => return Some((Ok(Bytes::from_static(b": heartbeat\n\n")), f)),
                Woken::Changed => {}
            }
            match current(&f.state, f.tenant.as_ref(), id).await {
                Ok(view) => f.next = Some(view),
                Err(e) => {
                    tracing::warn!(ticket = %id, error = %e, "ticket stream cannot read the database");
                    f.done = true;
                    return Some((Ok(Bytes::from(StreamFailure::Unavailable.message())), f));
                }
            }
        }
    }))
}

/// A ticket stream's state between two messages.
struct Follow {
    /// A view read and not yet compared with the last one sent.
    next: Option<TicketView>,
    sub: Subscription,
    state: web::Data<AppState>,
    tenant: Option<Tenant>,
    /// The status last sent.
    sent: Option<TicketState>,
    /// The last message is sent: the stream ends.
    done: bool,
    /// Counted in `continental_open_streams` while the stream lives.
    _open: crate::metrics::StreamGuard,
}

/// What woke a ticket stream.
enum Woken {
    Closing,
    Changed,
    Idle,
}

/// The rating a ticket of `player` carries: the player's in the variant at `tenant` (a new
/// player's when none is stored), or a new player's for a ticket that names none.
async fn player_rating(
    state: &AppState,
    tenant: &Tenant,
    variant: Variant,
    player: Option<&PlayerId>,
) -> Result<Rating, ApiError> {
    let Some(player) = player else {
        return Ok(Rating::initial());
    };
    let rated = super::ratings::ratings_at(
        state,
        tenant.as_str(),
        variant,
        &[Participant::Player(player.clone())],
    )
    .await?;
    Ok(rated.first().map_or_else(Rating::initial, |(_, r)| *r))
}

/// The bot levels that may fill a table of `variant` for `tenant`, with their ratings there:
/// those this server seats.
async fn bot_levels(state: &AppState, tenant: &str, variant: Variant) -> Result<BotLevels, ApiError> {
    let seated: Vec<Participant> = Level::iter()
        .filter(|l| state.bots.may_seat([*l]).is_ok())
        .map(Participant::Bot)
        .collect();
    let rated = super::ratings::ratings_at(state, tenant, variant, &seated).await?;
    Ok(BotLevels::new(rated.into_iter().filter_map(
        |(p, rating)| match p {
            Participant::Bot(level) => Some((variant, level, rating)),
            Participant::Player(_) => None,
        },
    )))
}

/// The matching settings as the matcher takes them.
fn match_rules(state: &AppState) -> MatchRules {
    MatchRules {
        bots_after: state.matchmaking.bots_after,
        ..MatchRules::default()
    }
}

/// What a matching pass did.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Pass {
    /// Games this replica made.
    pub games: usize,
    /// Pools this replica matched.
    pub pools: usize,
    /// When the soonest pool it found due later is due (unix ms), if any came due by the end of
    /// the horizon asked for.
    pub next_due: Option<i64>,
}

/// One matching pass: matches every pool due now, round after round while rounds find work
/// (each round reading the pools due by `horizon` from now). Returns what it did.
///
/// # Errors
/// The store's failure to list the pools (a pool that fails is logged and tried again when
/// the worker next wakes).
pub async fn match_pass(state: &AppState, horizon: Duration) -> Result<Pass, ApiError> {
    let mut pass = Pass::default();
    let horizon_ms = i64::try_from(horizon.as_millis()).unwrap_or(i64::MAX);
    loop {
        let now = now_ms();
        let due = state
            .db
            .due_pools(now.saturating_add(horizon_ms), POOLS_PER_TENANT, POOLS_PER_ROUND)
            .await?;
        pass.next_due = due.iter().map(|p| p.due_at).filter(|&at| at > now).min();
        let ready: Vec<Pool> = due
            .into_iter()
            .filter(|p| p.due_at <= now)
            .map(|p| p.pool)
            .collect();
        if ready.is_empty() {
            return Ok(pass);
        }
        let matched: Vec<Option<usize>> = futures_util::stream::iter(&ready)
            .map(|pool| async move {
                match match_pool(state, pool, now).await {
                    Ok(made) => made,
                    Err(e) => {
                        tracing::warn!(tenant = %pool.tenant, error = %e, "a pool of tickets could not be matched; trying again when the worker wakes");
                        None
                    }
                }
            })
            .buffer_unordered(POOLS_AT_ONCE)
            .collect()
            .await;
        let claimed = matched.iter().flatten().count();
        pass.pools += claimed;
        state.metrics.pools_matched(claimed);
        pass.games += matched.into_iter().flatten().sum::<usize>();
        // A round that claimed nothing found only pools other replicas hold (or failing ones):
        // theirs to finish.
        if claimed == 0 {
            return Ok(pass);
        }
    }
}

/// Matches one pool at `now` if it is still due, and makes the games of the tables formed.
/// Returns how many games it made; `None` when another replica holds the pool or matched it.
async fn match_pool(state: &AppState, pool: &Pool, now: i64) -> Result<Option<usize>, ApiError> {
    let rules: StoredRules = serde_json::from_str(&pool.rules)?;
    let bots = bot_levels(state, &pool.tenant, rules.ruleset.variant()).await?;
    let settings = match_rules(state);
    let soonest =
        now.saturating_add(i64::try_from(state.matchmaking.interval.as_millis()).unwrap_or(i64::MAX));
    let decided = state
        .db
        .match_pool(pool, now, |rows| {
            decide(rows, &rules, &bots, &settings, now, soonest, None)
        })
        .await?;
    let Some((rows, decision)) = decided else {
        return Ok(None);
    };
    if !decision.expired.is_empty() {
        tracing::info!(tenant = %pool.tenant, expired = decision.expired.len(), "tickets expired");
    }
    Ok(Some(place_all(state, placed(rows, &decision)).await))
}

/// The tickets of `rows` that `decision` seated, as they are stored now.
fn placed(rows: Vec<TicketRow>, decision: &PoolDecision) -> Vec<TicketRow> {
    let seated: BTreeMap<Uuid, &Placement> = decision.placed.iter().map(|p| (p.ticket, p)).collect();
    rows.into_iter()
        .filter_map(|mut t| {
            let p = seated.get(&t.id)?;
            t.status = TicketStatus::Placing;
            t.game_id = Some(p.game);
            t.seat = Some(p.seat);
            t.plan = Some(p.plan.clone());
            Some(t)
        })
        .collect()
}

/// Makes the games of the seated `tickets`, [`PLACING_AT_ONCE`] at a time. Returns how many
/// this call made; a game that cannot be made now is logged and left `placing` for the next
/// pass.
async fn place_all(state: &AppState, tickets: Vec<TicketRow>) -> usize {
    futures_util::stream::iter(by_game(tickets))
        .map(|(game, tickets)| async move {
            match place(state, game, &tickets).await {
                Ok(created) => usize::from(created),
                Err(e) => {
                    tracing::warn!(game = %game, error = %e, "a matched table's game could not be made; trying again next pass");
                    0
                }
            }
        })
        .buffer_unordered(PLACING_AT_ONCE)
        .fold(0, |made, one| async move { made + one })
        .await
}

/// Tickets grouped by their planned game.
fn by_game(tickets: Vec<TicketRow>) -> BTreeMap<Uuid, Vec<TicketRow>> {
    let mut games: BTreeMap<Uuid, Vec<TicketRow>> = BTreeMap::new();
    for t in tickets {
        if let Some(game) = t.game_id {
            games.entry(game).or_default().push(t);
        }
    }
    games
}

/// What a pass does with a pool's waiting tickets at `now`: those past their time expire; the
/// others meet as `match_tickets` forms tables, each given a fresh game id, until it forms no
/// more; the pool is due again when the clock could seat one of those left
/// (`domain::next_change`) or expire it, at `soonest` at the earliest, or at once when it held
/// more tickets than a pass takes. Ticket `early`, if any, takes its bots now
/// (`domain::match_tickets_now`).
fn decide(
    rows: &[TicketRow],
    rules: &StoredRules,
    bots: &BotLevels,
    settings: &MatchRules,
    now: i64,
    soonest: i64,
    early: Option<Uuid>,
) -> Result<PoolDecision, ApiError> {
    let mut decision = PoolDecision::default();
    let mut waiting = Vec::with_capacity(rows.len());
    let mut expiry: Option<i64> = None;
    for row in rows {
        if row.expires_at <= now {
            decision.expired.push(row.id);
        } else {
            waiting.push(ticket_of(row, rules)?);
            expiry = Some(expiry.map_or(row.expires_at, |e| e.min(row.expires_at)));
        }
    }
    let at = time::OffsetDateTime::from_unix_timestamp_nanos(i128::from(now) * 1_000_000)
        .map_err(ApiError::unexpected)?;
    let mut tables = Vec::new();
    loop {
        let formed = match early {
            Some(early) => match_tickets_now(&waiting, early, bots, settings, at),
            None => match_tickets(&waiting, bots, settings, at),
        };
        if formed.is_empty() {
            break;
        }
        let seated: BTreeSet<Uuid> = formed
            .iter()
            .flat_map(|t| &t.seats)
            .filter_map(|s| match s {
                MatchSeat::Person(id) => Some(*id),
                MatchSeat::Bot { .. } => None,
            })
            .collect();
        waiting.retain(|t| !seated.contains(&t.id));
        tables.extend(formed);
    }
    let clock = next_change(&waiting, settings, at)
        .map(|t| i64::try_from(t.unix_timestamp_nanos() / 1_000_000).unwrap_or(i64::MAX));
    decision.next_due = if rows.len() >= usize::try_from(POOL_BATCH).unwrap_or(usize::MAX) {
        Some(now)
    } else {
        [clock, expiry.filter(|_| !waiting.is_empty())]
            .into_iter()
            .flatten()
            .min()
            .map(|at| at.max(soonest))
    };
    for table in tables {
        let game = Uuid::new_v4();
        let plan: Vec<PlanSeat> = table
            .seats
            .iter()
            .map(|s| match s {
                MatchSeat::Person(id) => PlanSeat::Ticket(*id),
                MatchSeat::Bot { level, .. } => PlanSeat::Bot(*level),
            })
            .collect();
        let text = serde_json::to_string(&plan)?;
        for (seat, s) in plan.iter().enumerate() {
            if let PlanSeat::Ticket(ticket) = s {
                decision.placed.push(Placement {
                    ticket: *ticket,
                    game,
                    seat: i64::try_from(seat).map_err(ApiError::unexpected)?,
                    plan: text.clone(),
                });
            }
        }
    }
    Ok(decision)
}

/// Stored ticket `row` as the matcher takes it.
fn ticket_of(row: &TicketRow, rules: &StoredRules) -> Result<Ticket, ApiError> {
    let sizes: Vec<usize> = serde_json::from_str(&row.sizes)?;
    Ok(Ticket {
        id: row.id,
        player: row
            .player
            .clone()
            .map(PlayerId::try_from)
            .transpose()
            .map_err(ApiError::unexpected)?,
        name: row.name.clone(),
        rating: Rating {
            mean: row.rating_mean,
            deviation: row.rating_deviation,
        },
        ruleset: rules.ruleset.clone(),
        sizes: TableSizes::new(&rules.ruleset, sizes).map_err(ApiError::unexpected)?,
        asynchronous: row.asynchronous,
        waiting_since: time::OffsetDateTime::from_unix_timestamp_nanos(
            i128::from(row.created_at) * 1_000_000,
        )
        .map_err(ApiError::unexpected)?,
    })
}

/// Makes game `game` from its seated `tickets` unless it exists (another replica made it
/// first), then marks them `matched`. Returns whether this call made it.
async fn place(state: &AppState, game: Uuid, tickets: &[TicketRow]) -> Result<bool, ApiError> {
    let first = tickets
        .first()
        .ok_or_else(|| ApiError::unexpected("a table without tickets"))?;
    let tenant = first.tenant.clone();
    if state.db.game(game).await?.is_some() {
        state.db.placed(&tenant, game).await?;
        return Ok(false);
    }
    let plan: Vec<PlanSeat> = serde_json::from_str(first.plan.as_deref().unwrap_or("[]"))?;
    let rules: StoredRules = serde_json::from_str(&first.rules)?;
    let by_id: BTreeMap<Uuid, &TicketRow> = tickets.iter().map(|t| (t.id, t)).collect();
    let keyed = state.server_keys.enabled();
    let mut seats = Vec::with_capacity(plan.len());
    let mut matched = Vec::new();
    let mut webhook = None;
    for (i, s) in plan.iter().enumerate() {
        let seat = u8::try_from(i).map_err(ApiError::unexpected)?;
        let record = match s {
            PlanSeat::Ticket(id) => {
                let t = by_id.get(id).ok_or_else(|| {
                    ApiError::unexpected(format!("ticket {id} of game {game} is not seated"))
                })?;
                if webhook.is_none() {
                    webhook = t.webhook_url.clone().zip(t.webhook_secret.clone());
                }
                // The tickets and players reach the studio's webhook only: on a server open to
                // anyone, the webhook of one ticket is no one else's to see.
                matched.push(MatchedSeat {
                    seat,
                    ticket: keyed.then_some(*id),
                    player: t.player.clone().filter(|_| keyed),
                });
                let player = t
                    .player
                    .clone()
                    .map(PlayerId::try_from)
                    .transpose()
                    .map_err(ApiError::unexpected)?;
                SeatRecord::taken(SeatKind::Player, Some(t.name.clone()), None, player)
            }
            PlanSeat::Bot(level) => SeatRecord::taken(SeatKind::Bot, None, Some(*level), None),
        };
        seats.push(record);
    }
    let config = GameConfig {
        ruleset: rules.ruleset.clone(),
        players: seats.len(),
        first_dealer: None,
        stacked_decks: None,
        start_year: None,
    };
    let mut table = HostedGame::new(config, random_seed(), seats)?;
    table.set_clock(rules.clock);
    // A studio's tickets each name a player: their game is rated, on their ratings.
    table.rated = keyed;
    table.check_players()?;
    super::ratings::rate_seats(state, &tenant, &mut table).await?;
    let started = table.start_if_full(super::utc_year())?;
    let now = now_ms();
    table.rearm(started.turn_passed, now, state.second_ms());
    let version = 1 + started.actions;
    super::count_refused(&state.metrics, &started);
    let events: Applied = started.after([Logged::Table(TableEvent::Matched { seats: matched })]);
    let next_due = table.due_at(now, state.second_ms());
    let new = new_game(game, &tenant, &table, version, events, webhook, next_due)?;
    let created = state.db.create_game(&new, None).await?;
    state.db.placed(&tenant, game).await?;
    if created {
        state.metrics.game_created(&new.game.variant);
        state.outbox.notify_one();
        if table.bot_due().is_some() {
            state.bots.wake(game);
        }
        state.pace.arm(game, table.bot_at);
        tracing::info!(game = %game, tenant = %tenant, tickets = tickets.len(), "quick play table made");
    }
    Ok(created)
}

/// The matching worker each replica runs: a pass whenever a pool becomes due (a ticket arrived
/// or left on any replica, heard through the hub; or the soonest due time of a pool it read
/// comes), and every `backstop` (at least `interval`) one more (the pools due that no wakeup
/// announced, say those of a replica that stopped, and the tables left `placing`). Each pass
/// finds the pools due within `interval` by one indexed read, and when none is, the soonest
/// one's time by another; woken by a time, it reads the soonest first and passes only when one
/// is due: an idle replica makes two reads a backstop whatever waits. A slow pass is logged
/// with how many games it made and how long it took.
pub async fn match_periodically(state: web::Data<AppState>, interval: Duration, backstop: Duration) {
    let backstop_every = backstop.max(interval);
    let interval_ms = i64::try_from(interval.as_millis()).unwrap_or(i64::MAX);
    let mut wakeups = state.live.follow(POOLS_DUE);
    let mut backstop = tokio::time::Instant::now();
    // Woken by a ticket's announcement (or starting): a pass at once. Else by a time: a pass
    // only when the soonest pool stored is due within the interval.
    let mut announced = true;
    loop {
        let started = Instant::now();
        let soonest = match announced {
            true => None,
            false => match state.db.next_pool_due().await {
                Ok(at) => Some(at),
                Err(e) => {
                    tracing::debug!(error = %e, "the soonest pool due could not be read");
                    None
                }
            },
        };
        if tokio::time::Instant::now() >= backstop {
            backstop = tokio::time::Instant::now() + backstop_every;
            match state.db.placing(now_ms() - PLACING_GRACE_MS).await {
                Ok(stale) => {
                    place_all(&state, stale).await;
                }
                Err(e) => tracing::warn!(error = %e, "tables left placing could not be read"),
            }
        }
        let next_due = match soonest {
            // Nothing due within the interval: no pass.
            Some(at) if at.is_none_or(|at| at > now_ms().saturating_add(interval_ms)) => Ok(Pass {
                next_due: at,
                ..Pass::default()
            }),
            _ => {
                match_pass(&state, interval)
                    .instrument(traces::pass("matchmaking"))
                    .await
            }
        };
        let next_due = match next_due {
            Ok(pass) => {
                if let Some(took_ms) = state.slow_pass(started) {
                    tracing::warn!(
                        games = pass.games,
                        pools = pass.pools,
                        took_ms,
                        "slow matching pass"
                    );
                }
                pass.next_due
            }
            Err(e) => {
                tracing::warn!(error = %e, took_ms = started.elapsed().as_millis(), "matching pass failed");
                None
            }
        };
        // Nothing due within the interval: the soonest pool's time, stored by a pass of any
        // replica, so that it is matched on time without a read each interval. One due now
        // that this pass left (another replica holds it) is looked at again an interval on.
        let next_due = match (next_due, soonest) {
            (Some(at), _) => Some(at),
            (None, Some(_)) => None,
            (None, None) => match state.db.next_pool_due().await {
                Ok(at) => at.map(|at| at.max(now_ms().saturating_add(interval_ms))),
                Err(e) => {
                    tracing::debug!(error = %e, "the soonest pool due could not be read");
                    None
                }
            },
        };
        let mut until = backstop;
        if let Some(due) = next_due {
            let wait = Duration::from_millis(u64::try_from(due - now_ms()).unwrap_or(0));
            until = until.min(tokio::time::Instant::now() + wait);
        }
        tokio::select! {
            () = tokio::time::sleep_until(until) => announced = false,
            heard = wakeups.recv() => {
                announced = true;
                if matches!(heard, Err(RecvError::Closed)) {
                    wakeups = state.live.follow(POOLS_DUE);
                }
                // Whatever else came meanwhile is answered by the one pass that follows.
                while matches!(wakeups.try_recv(), Ok(_) | Err(TryRecvError::Lagged(_))) {}
            }
        }
    }
}
