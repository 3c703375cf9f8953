//! Turn deadlines: when the seat in turn lets its deadline pass, the server plays its turn.
//! Any replica may do it: due games are found without a lock, then each is claimed on its own
//! row (`FOR UPDATE SKIP LOCKED`, one game's shard on a cluster) and re-checked inside the
//! transaction, which makes each expiry count once. A game is also due when a bot that thinks
//! apart is in turn and no replica has played it within a second: the sweep hands it to this
//! replica's bot worker (`service::bots`), which leases it before it thinks; and at a person's
//! table when the paced move of the seat the server plays in turn is due (`HostedGame::bot_at`): the
//! replica that wrote the change before it plays it on time (`service::pace`), the sweep is the
//! backstop. What is due on a claimed game is a [`Due`], each kind done by its own handler.
//!
//! A timeout that hands the last person's seat to a bot leaves the table to bots alone: on a
//! server open to anyone it is admitted under the limit on such tables, and where none is free
//! the game is called off as abandoned instead (docs/operations.md#bots). Such a table's bots
//! then play its whole game in a change of its own ([`Due::PlayOut`]), at most
//! [`PLAY_OUTS_PER_PASS`] a pass, so that no turn clock waits behind many of them.

use std::time::{Duration, Instant};

use futures_util::StreamExt;
use tracing::Instrument;
use uuid::Uuid;

use super::event_rows;
use super::waits::Schedule;
use crate::domain::HostedGame;
use crate::error::ApiError;
use crate::state::AppState;
use crate::store::{GameRow, GameUpdate, Lock, On, Outcome, Store, StoreError, now_ms};
use crate::telemetry::traces;

/// Games a sweep looks at in one batch.
const DUE_BATCH: i64 = 32;

/// Due games of a batch claimed at once, each in a transaction of its own: a burst of tables
/// due together (hundreds called off at one moment) passes in a fraction of the time, so a
/// clock due just after them is not late by their sum.
const DUE_AT_ONCE: usize = 4;

/// Tables of bots alone a pass plays out at most ([`Due::PlayOut`]), after every other game
/// due: each is its whole game's CPU at once (tens of milliseconds,
/// docs/operations.md#bot-table-cpu), which a turn clock due next would wait for; the others
/// wait for the next pass, nobody being at their tables.
const PLAY_OUTS_PER_PASS: usize = 1;

/// Plays the turn of every game whose deadline has passed (see [`time_out`]), page after page
/// of due games found without a lock, [`DUE_AT_ONCE`] of a page claimed at once, so that a game this replica cannot take (another
/// replica holds it, its bot is not this replica's to think for, it does not load) never holds
/// up the ones behind it; then plays out at most [`PLAY_OUTS_PER_PASS`] of the tables of bots
/// alone it met, after every other game due. Returns how many this replica played.
///
/// # Errors
/// The store's failure to find due games (a game that fails is set aside if it does not load,
/// else logged and left to the next pass).
pub async fn time_out_due(state: &AppState) -> Result<usize, ApiError> {
    let mut played = 0;
    // Tables to play out, met on the way: played last, so that no clock due waits for them.
    let mut play_outs = Vec::new();
    let mut after = None;
    let now = now_ms();
    loop {
        let due = state.db.due_games(now, after, DUE_BATCH).await?;
        // This replica's bot worker has the game in hand already: nothing to do, and nothing
        // written while it waits for a thread.
        let took: Vec<(Uuid, Took)> =
            futures_util::stream::iter(due.iter().filter(|g| !state.bots.holds(g.id)))
                .map(|game| async move { (game.id, time_out_one(state, game.id, now, false).await) })
                .buffer_unordered(DUE_AT_ONCE)
                .collect()
                .await;
        for (id, took) in took {
            match took {
                Took::Game | Took::PlayedOut => played += 1,
                Took::PlayOutDue if play_outs.len() < PLAY_OUTS_PER_PASS => play_outs.push(id),
                Took::PlayOutDue | Took::Nothing => {}
            }
        }
        // A short page was the last.
        match due.last() {
            Some(&last) if due.len() as i64 == DUE_BATCH => after = Some(last),
            _ => break,
        }
    }
    for id in play_outs {
        if time_out_one(state, id, now, true).await == Took::PlayedOut {
            played += 1;
        }
    }
    Ok(played)
}

/// [`time_out`] for the pass: a game that fails is set aside if it does not load, else logged
/// and left to the next pass ([`Took::Nothing`]).
async fn time_out_one(state: &AppState, id: Uuid, now: i64, may_play_out: bool) -> Took {
    match time_out(state, id, now, may_play_out)
        .instrument(traces::pass("deadlines"))
        .await
    {
        Ok(took) => took,
        Err(e) if super::set_aside_if_broken(state, id, &e, "turn deadlines").await => Took::Nothing,
        // Its worker lost since it was found, on a cluster, say: tried again next pass.
        Err(e) => {
            tracing::warn!(game = %id, error = %e, "a due turn could not be played; trying again next pass");
            Took::Nothing
        }
    }
}

/// What a claim did with its game.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Took {
    /// Nothing: another replica holds it, or it is no longer due.
    Nothing,
    /// A table of bots alone is due to be played out, and was left so ([`Due::PlayOut`]).
    PlayOutDue,
    /// What was due is done.
    Game,
    /// A table of bots alone was played out ([`Due::PlayOut`]).
    PlayedOut,
}

/// Does what is due on game `id` at `now` if it is still due and no other replica holds it
/// ([`Due`], each kind by its own handler), then what follows the commit ([`Then::follow`]).
/// A table of bots alone due to be played out is played only if `may_play_out`, else left
/// due. A timeout that would leave a table to bots alone where the open server's limit is
/// full calls the game off instead, in a second claim ([`OnFull::CallOff`]).
///
/// # Errors
/// The store's failure; a stored game that does not read.
pub async fn time_out(state: &AppState, id: Uuid, now: i64, may_play_out: bool) -> Result<Took, ApiError> {
    let at = At {
        now,
        second_ms: state.second_ms(),
    };
    let claim = |on_full: OnFull| {
        state.db.transact(On::game(id), Lock::Due { now }, move |row| {
            decide(state, row, at, may_play_out, on_full).map_err(Refused::Other)
        })
    };
    let then = match claim(OnFull::Refuse).await {
        // Nothing was written: decided again, calling the game off.
        Err(Refused::Full(_)) => claim(OnFull::CallOff).await,
        claimed => claimed,
    }
    .map_err(ApiError::from)?;
    Ok(then.map_or(Took::Nothing, |then| then.follow(state, id)))
}

/// Does what is due on the game read as `row` (see [`time_out`]).
fn decide(
    state: &AppState,
    row: &GameRow,
    at: At,
    may_play_out: bool,
    on_full: OnFull,
) -> Result<Outcome<Then>, ApiError> {
    let mut table = HostedGame::load(row.id, &row.state)?;
    match Due::on(&mut table, row, at.now) {
        Due::BotHandOff { paced } => hand_bot_over(state, row, &table, paced, at),
        Due::PlayOut if may_play_out => play_out(state, row, table, at),
        // Left due, for the end of the pass or a later one: nothing written.
        Due::PlayOut => Ok(Outcome {
            update: None,
            value: Then {
                play_out_due: true,
                ..Then::default()
            },
        }),
        Due::PacedMove => play_paced_move(state, row, table, at),
        Due::TurnClock => time_out_turn(state, row, table, at, on_full),
        Due::Nothing => rearm_clock(row, table, at),
    }
}

/// What a timeout that would leave its table to bots alone does when the open server's limit
/// on such tables is full (docs/operations.md#bots).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum OnFull {
    /// The write is refused ([`Refused::Full`]), and nothing written.
    Refuse,
    /// The game is called off as abandoned ([`HostedGame::abandon`]).
    CallOff,
}

/// Why a claim failed: the open server's limit on tables of bots alone was full, or anything
/// else.
enum Refused {
    /// [`StoreError::BotTablesFull`].
    Full(u32),
    /// Any other failure.
    Other(ApiError),
}

impl From<StoreError> for Refused {
    fn from(e: StoreError) -> Self {
        match e {
            StoreError::BotTablesFull(limit) => Refused::Full(limit),
            e => Refused::Other(e.into()),
        }
    }
}

impl From<Refused> for ApiError {
    fn from(refused: Refused) -> Self {
        match refused {
            Refused::Full(limit) => StoreError::BotTablesFull(limit).into(),
            Refused::Other(e) => e,
        }
    }
}

/// What is due on a game the pass claimed, read from its state at the pass's time. The row's
/// next due time ([`crate::store::GameRow::next_due`]) is the earliest of them.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Due {
    /// A bot that thinks apart is in turn and no replica has played it within the grace, or
    /// the lease of the replica that took it ran out: this replica's bot worker takes it up,
    /// if it thinks. `paced` when its paced move's time brought it in turn.
    BotHandOff {
        /// It became due by its pace time (`HostedGame::bot_at`), cleared by the hand-off.
        paced: bool,
    },
    /// At a person's table, the paced move of the seat the server plays in turn.
    PacedMove,
    /// No person is left at the table, and a bot that plays within a change is in turn: the
    /// bots play the game out ([`HostedGame::play_out_due`]).
    PlayOut,
    /// The seat in turn let its turn clock run out: the server plays its turn.
    TurnClock,
    /// Nothing any more: another replica moved the game on since it was found.
    Nothing,
}

impl Due {
    /// What is due on `table`, stored as `row`, at `now`. A paced move's time that has come is
    /// taken off `table`: whatever is due next is read without it.
    fn on(table: &mut HostedGame, row: &GameRow, now: i64) -> Due {
        let paced = table.bot_at.is_some_and(|at| at <= now);
        if paced {
            table.bot_at = None;
        }
        // The row's due time is the turn's deadline the claim found due; the state must
        // agree, or another replica has already moved the game on.
        let clock_ran_out = table.deadline.is_some_and(|d| d <= now) && table.deadline == row.next_due;
        if table.bot_due().is_some() {
            Due::BotHandOff { paced }
        } else if table.play_out_due() {
            Due::PlayOut
        } else if paced {
            Due::PacedMove
        } else if clock_ran_out {
            Due::TurnClock
        } else {
            Due::Nothing
        }
    }
}

/// The pass's time (unix ms) and how long a second lasts (1000 but in tests).
#[derive(Clone, Copy)]
struct At {
    now: i64,
    second_ms: i64,
}

/// What follows the commit of what was due.
#[derive(Clone, Copy, Default)]
struct Then {
    /// The seat in turn timed out: counted.
    timed_out: bool,
    /// Events were written: the outbox has work.
    played: bool,
    /// A bot that thinks apart is in turn, for this replica's bot worker.
    bot_due: bool,
    /// The paced move of the seat the server plays, for this replica's timer.
    bot_at: Option<i64>,
    /// This replica took the game (`false`: a bot handed over with no bot worker here, or a
    /// table to play out left for a later pass).
    taken: bool,
    /// The table of bots alone was played out.
    played_out: bool,
    /// The table of bots alone is due to be played out, and was left so.
    play_out_due: bool,
}

impl Then {
    /// Tells this replica's workers what the commit left them; returns what this replica did.
    fn follow(self, state: &AppState, id: Uuid) -> Took {
        if self.timed_out {
            state.metrics.turn_timed_out();
        }
        if self.played {
            state.outbox.notify_one();
        }
        if self.bot_due {
            state.bots.wake(id);
        }
        state.pace.arm(id, self.bot_at);
        match (self.taken, self.played_out) {
            _ if self.play_out_due => Took::PlayOutDue,
            (false, _) => Took::Nothing,
            (true, false) => Took::Game,
            (true, true) => Took::PlayedOut,
        }
    }
}

/// [`Due::BotHandOff`]: nothing is written, but a paced turn's hand-off clears `bot_at` in the
/// stored game, so that the bot worker (`service::bots`), which leases the game before it
/// thinks, finds the bot due.
fn hand_bot_over(
    state: &AppState,
    row: &GameRow,
    table: &HostedGame,
    paced: bool,
    at: At,
) -> Result<Outcome<Then>, ApiError> {
    let thinks = state.bots.thinks;
    let update = match paced && thinks {
        true => Some(GameUpdate::keeping_status(
            row.status,
            table,
            row.version,
            Vec::new(),
            table.due_at(at.now, at.second_ms),
        )?),
        false => None,
    };
    Ok(Outcome {
        update,
        value: Then {
            bot_due: thinks,
            taken: thinks,
            ..Then::default()
        },
    })
}

/// [`Due::PacedMove`]: the bot in turn makes its move, then the bots' claims as after any
/// change.
fn play_paced_move(
    state: &AppState,
    row: &GameRow,
    mut table: HostedGame,
    at: At,
) -> Result<Outcome<Then>, ApiError> {
    let before = super::played_by(&table);
    let applied = table.play_paced()?;
    super::count_refused(&state.metrics, &applied);
    table.rearm(applied.turn_passed, at.now, at.second_ms);
    let version = row.version + applied.actions;
    let events = event_rows(applied, row.webhook_url.is_some())?;
    tracing::debug!(game = %row.id, version, "paced bot moved");
    write_played(&table, &before, version, events, at, false)
}

/// [`Due::PlayOut`]: the bots play the table's game out, in one change.
fn play_out(
    state: &AppState,
    row: &GameRow,
    mut table: HostedGame,
    at: At,
) -> Result<Outcome<Then>, ApiError> {
    let before = super::played_by(&table);
    let applied = table.play_out()?;
    super::count_refused(&state.metrics, &applied);
    table.rearm(applied.turn_passed, at.now, at.second_ms);
    let version = row.version + applied.actions.max(1);
    let events = event_rows(applied, row.webhook_url.is_some())?;
    tracing::info!(game = %row.id, version, "a table of bots alone played out");
    let mut outcome = write_played(&table, &before, version, events, at, false)?;
    outcome.value.played_out = true;
    Ok(outcome)
}

/// [`Due::TurnClock`]: a `timed_out` event, the seat's turn as the bot would play it, the bots
/// after it, and a fresh deadline for the next turn. When the seat was the last person's and
/// goes to a bot, the bots do not play here ([`Due::PlayOut`] follows); on an open server the
/// write is then admitted under the limit on tables of bots alone, and where that is full the
/// game is called off instead (`on_full`).
fn time_out_turn(
    state: &AppState,
    row: &GameRow,
    mut table: HostedGame,
    at: At,
    on_full: OnFull,
) -> Result<Outcome<Then>, ApiError> {
    let before = super::played_by(&table);
    let was_alone = table.bots_alone();
    let Some(applied) = table.time_out()? else {
        return rearm_clock(row, table, at);
    };
    let limit = super::bot_table_limit(state, was_alone, &table);
    if limit.is_some() && on_full == OnFull::CallOff {
        return call_off_abandoned(row, at);
    }
    super::count_refused(&state.metrics, &applied);
    // Whatever the bot did, the next turn (or this one, should it still be in turn) gets a
    // fresh deadline: an expired one would be played again.
    table.deadline = None;
    table.rearm(true, at.now, at.second_ms);
    // The timeout itself changes the view (`timeouts`): at least one version.
    let version = row.version + applied.actions.max(1);
    let events = event_rows(applied, row.webhook_url.is_some())?;
    let played = !events.is_empty();
    tracing::info!(game = %row.id, version, played, "turn deadline passed");
    let mut outcome = write_played(&table, &before, version, events, at, true)?;
    outcome.update = outcome.update.map(|update| update.with_bot_tables(limit));
    Ok(outcome)
}

/// [`Due::TurnClock`] where the timeout would leave the table to bots alone and the open
/// server plays as many as it may: a `timed_out` event, then the game called off as abandoned
/// ([`HostedGame::abandon`]), read again from `row` as it was before the timeout was tried.
fn call_off_abandoned(row: &GameRow, at: At) -> Result<Outcome<Then>, ApiError> {
    let mut table = HostedGame::load(row.id, &row.state)?;
    let before = super::played_by(&table);
    let Some(applied) = table.abandon()? else {
        return rearm_clock(row, table, at);
    };
    table.rearm(applied.turn_passed, at.now, at.second_ms);
    let version = row.version + applied.actions.max(1);
    let events = event_rows(applied, row.webhook_url.is_some())?;
    tracing::info!(game = %row.id, version, "turn deadline passed: the table abandoned to the bots, called off");
    write_played(&table, &before, version, events, at, true)
}

/// [`Due::Nothing`] (or a clock with no seat in turn any more): the game's times set again
/// from its state, an expired deadline replaced by a fresh one; no event, the same version.
fn rearm_clock(row: &GameRow, mut table: HostedGame, at: At) -> Result<Outcome<Then>, ApiError> {
    let before = super::played_by(&table);
    table.rearm(false, at.now, at.second_ms);
    if table.deadline.is_some_and(|d| d <= at.now) {
        table.deadline = None;
        table.rearm(true, at.now, at.second_ms);
    }
    tracing::info!(game = %row.id, version = row.version, played = false, "turn deadline passed");
    write_played(&table, &before, row.version, Vec::new(), at, false)
}

/// Writes `table` at `version` with `events` (the seats whose player changed from `before`
/// with it) and says what follows: when events were written, the outbox's work, the count of
/// a turn timed out if `timed_out`, and a bot that thinks apart now in turn.
fn write_played(
    table: &HostedGame,
    before: &[&str],
    version: i64,
    events: Vec<crate::store::NewEvent>,
    at: At,
    timed_out: bool,
) -> Result<Outcome<Then>, ApiError> {
    let played = !events.is_empty();
    let then = Then {
        timed_out: played && timed_out,
        played,
        bot_due: played && table.bot_due().is_some(),
        bot_at: table.bot_at,
        taken: true,
        played_out: false,
        play_out_due: false,
    };
    Ok(Outcome {
        update: Some(
            GameUpdate::of(table, version, events, table.due_at(at.now, at.second_ms))?
                // A seat handed to autopilot after its timeouts counts among the bots.
                .with_seats(super::seats_changed(before, table)),
        ),
        value: then,
    })
}

/// The sweeper each replica runs: plays every game whose deadline passed when the soonest
/// due time it knows comes (its own last read of the earliest deadline, or one a commit
/// announced), at most once a `floor` (a second) and at least once a `backstop`; a slow
/// pass is logged with how many turns it played and how long it took. Due times only move
/// later without an announcement (a lease, a clock set again), which its next read finds.
pub async fn sweep_deadlines(state: actix_web::web::Data<AppState>, floor: Duration, backstop: Duration) {
    let wakes = state.live.wakes();
    let mut schedule = Schedule::new(floor, backstop);
    loop {
        tokio::select! {
            () = tokio::time::sleep_until(schedule.next()) => {}
            () = wakes.due_heard() => {
                schedule.due_at(wakes.take_due());
                continue;
            }
        }
        schedule.ran();
        let started = Instant::now();
        match sweep_once(&state).await {
            Ok((turns, next)) => {
                schedule.due_at(next);
                if let Some(took_ms) = state.slow_pass(started) {
                    tracing::warn!(turns, took_ms, "slow pass over turn deadlines");
                }
            }
            Err(e) => {
                schedule.due_now();
                tracing::warn!(error = %e, took_ms = started.elapsed().as_millis(), "turn deadline sweep failed")
            }
        }
        schedule.due_at(wakes.take_due());
    }
}

/// One run of the sweep: when the earliest deadline has passed, every due game played
/// ([`time_out_due`]). Returns the turns played and the earliest deadline left (unix ms).
async fn sweep_once(state: &AppState) -> Result<(usize, Option<i64>), ApiError> {
    let earliest = async || -> Result<Option<i64>, ApiError> {
        let first = state.db.due_games(i64::MAX, None, 1).await?;
        Ok(first.first().map(|g| g.next_due))
    };
    match earliest().await? {
        Some(at) if at <= now_ms() => {}
        later => return Ok((0, later)),
    }
    let turns = time_out_due(state).await?;
    Ok((turns, earliest().await?))
}
