//! The use cases, one function each: read or change a game in one store transaction, with
//! the table deciding and the engine refereeing. No HTTP here but the responses kept for
//! idempotency keys, which must be written in the same transaction as the change.

mod backlog;
mod bots;
mod deadlines;
mod events;
mod games;
mod hints;
mod matchmaking;
mod moves;
#[cfg(test)]
mod non_interference;
mod pace;
mod players;
mod ratings;
mod rematch;
mod replay;
mod studio;
mod tournaments;
mod waits;
mod webhooks;

pub use backlog::count_backlog;
pub use bots::play_bots;
pub use deadlines::{sweep_deadlines, time_out_due};
pub use events::{events_for, live_events, redact};
pub use games::{create_game, exists, join_game, load_for_reader, load_for_seat};
pub use hints::hints;
pub use matchmaking::{
    Pass, cancel_ticket, create_ticket, match_pass, match_periodically, seat_with_bots_now, ticket,
    ticket_events,
};
pub use moves::{act, autopilot};
pub use pace::pace_bots;
pub use players::{around, bot_ratings, leaderboard, player, player_games};
pub use ratings::{needs_server_key, rate, rate_due, rate_games};
pub use rematch::{Asker, rematch};
pub use replay::replay;
pub use studio::{end_game, list_games, reissue_token, seat_bot, spectator_token, webhook_status};
pub use tournaments::{
    cancel_tournament, create_tournament, enter, entry, entry_deals, entry_keys, entry_standings,
    run_tournaments, standings, tournament, tournament_keys, tournament_pass, tournaments, withdraw,
};
pub use webhooks::{deliver_webhooks, sign};

use uuid::Uuid;

use crate::domain::{Applied, HostedGame};
use crate::error::ApiError;
use crate::metrics::Metrics;
use crate::server_keys::Tenant;
use crate::state::AppState;
use crate::store::{BOT_TABLE_HOLD_SECS, BotTableLimit, GameUpdate, NewEvent, SeatRow, Store, now_ms};

/// The calendar year (UTC) now: the engine reads no clock, so the service gives it the year
/// a game starts in and the year of each request to resume (docs/rules.md#suspension).
pub fn utc_year() -> i32 {
    time::OffsetDateTime::now_utc().year()
}

/// The seats of `table` as the seats table mirrors them: each one's name and who plays it.
fn seat_rows(table: &HostedGame) -> impl Iterator<Item = SeatRow> + '_ {
    table.seats.iter().enumerate().map(|(i, s)| SeatRow {
        seat: i as i64,
        name: s.name.clone(),
        kind: table.played_by(i).to_owned(),
        player: s.player.as_ref().map(|p| p.as_str().to_owned()),
    })
}

/// Who plays each seat of `table` ([`HostedGame::played_by`]), taken before a change so that the
/// rows it changes are written with it ([`seats_changed`]).
fn played_by(table: &HostedGame) -> Vec<&'static str> {
    (0..table.seats.len()).map(|i| table.played_by(i)).collect()
}

/// The rows of the seats whose player a change turned from `before` (see [`played_by`]): a
/// seat handed to autopilot or taken back, a player who left.
fn seats_changed(before: &[&str], table: &HostedGame) -> Vec<SeatRow> {
    seat_rows(table)
        .zip(before)
        .filter(|(row, was)| row.kind != **was)
        .map(|(row, _)| row)
        .collect()
}

/// The limit a change must be admitted under: on a server open to anyone, one that leaves
/// `table` to bots alone when it was not (`was_alone`), in play or already played to its end
/// (docs/operations.md#bots). Such a server has one tenant, the default.
fn bot_table_limit(state: &AppState, was_alone: bool, table: &HostedGame) -> Option<BotTableLimit> {
    (!state.server_keys.enabled() && !was_alone && table.bots_only())
        .then(|| open_bot_table_limit(state, &Tenant::default()))
}

/// The open server's limit on tables of bots alone of `tenant`, now.
fn open_bot_table_limit(state: &AppState, tenant: &Tenant) -> BotTableLimit {
    BotTableLimit {
        tenant: tenant.as_str().to_owned(),
        limit: state.limits.open_bot_tables,
        finished_since: crate::store::now() - BOT_TABLE_HOLD_SECS,
    }
}

/// The row of seat `seat` only: what a join or a vacated seat changes.
fn seat_row(table: &HostedGame, seat: u8) -> Vec<SeatRow> {
    seat_rows(table).filter(|s| s.seat == i64::from(seat)).collect()
}

impl GameUpdate {
    /// What writing `game` as it now stands changes, at `version` (the old one plus the
    /// actions accepted; the same for a change that is not a move), with the status and state
    /// it now has, its `events` (from [`event_rows`]) and the row's `next_due` time
    /// ([`HostedGame::due_at`]). No seat rows, no response kept for a key and no limit on
    /// tables of bots: a change that has them adds them ([`GameUpdate::with_seats`],
    /// [`GameUpdate::with_response`], [`GameUpdate::with_bot_tables`]).
    ///
    /// # Errors
    /// The state cannot be written as JSON.
    pub(crate) fn of(
        game: &HostedGame,
        version: i64,
        events: Vec<NewEvent>,
        next_due: Option<i64>,
    ) -> Result<GameUpdate, ApiError> {
        Self::keeping_status(game.status(), game, version, events, next_due)
    }

    /// As [`GameUpdate::of`], but the row keeps `status`, the one it was read with: for a
    /// change beside the play (a token reissued, a rematch asked, a bot handed to its worker)
    /// that must not move the game's status in the listings.
    ///
    /// # Errors
    /// The state cannot be written as JSON.
    pub(crate) fn keeping_status(
        status: crate::domain::GameStatus,
        game: &HostedGame,
        version: i64,
        events: Vec<NewEvent>,
        next_due: Option<i64>,
    ) -> Result<GameUpdate, ApiError> {
        Ok(GameUpdate {
            version,
            status,
            state: game.to_json()?,
            seats: Vec::new(),
            events,
            next_due,
            response: None,
            bot_tables: None,
            rated: game.rated_standings().is_some(),
            sealed: game.sealed,
        })
    }

    /// The same change, writing the rows of `seats` too (a seat joined, handed to autopilot,
    /// left).
    pub(crate) fn with_seats(self, seats: Vec<SeatRow>) -> GameUpdate {
        GameUpdate { seats, ..self }
    }

    /// The same change, keeping `response` for the request's idempotency key, if it has one.
    pub(crate) fn with_response(self, response: Option<crate::store::StoredResponse>) -> GameUpdate {
        GameUpdate { response, ..self }
    }

    /// The same change, written only under `bot_tables`, the limit on tables of bots alone,
    /// when it leaves the table to bots alone on an open server.
    pub(crate) fn with_bot_tables(self, bot_tables: Option<BotTableLimit>) -> GameUpdate {
        GameUpdate { bot_tables, ..self }
    }
}

/// Counts the bots' proposals the game refused in a change (`Applied::bots_refused`, each
/// played around and logged by the table). A change decided again after a write conflict
/// counts its refusals again: each was a proposal refused.
fn count_refused(metrics: &Metrics, applied: &Applied) {
    for level in &applied.bots_refused {
        metrics.bot_move_refused(&crate::domain::level_name(*level));
    }
}

/// What a change logged as rows of the events table, each with the step of the game's
/// record that begins there; with `webhook`, each with its public copy for the outbox.
fn event_rows(applied: Applied, webhook: bool) -> Result<Vec<NewEvent>, ApiError> {
    applied
        .entries()
        .map(|(e, step)| {
            Ok(NewEvent {
                seat: e.seat().map(|s| i64::from(s.0)),
                body: serde_json::to_string(&e)?,
                public: webhook
                    .then(|| serde_json::to_string(&e.for_studio()))
                    .transpose()?,
                step: step.as_ref().map(serde_json::to_string).transpose()?,
            })
        })
        .collect()
}

/// What a background pass does with game `id` it could not work on because of `error`: a game
/// whose stored state does not load is set aside (its deadline cleared, so that no pass finds
/// it due again; marked, counted, logged once with its id) and `true` answered, the pass then
/// going on with the next; any other failure is the caller's to log, and the game is tried
/// again next pass. A set-aside game is still listed, as `corrupt`, and answers
/// `corrupt_game` to every request.
pub(crate) async fn set_aside_if_broken(state: &AppState, id: Uuid, error: &ApiError, pass: &str) -> bool {
    if !matches!(error, ApiError::CorruptGame(_)) {
        return false;
    }
    match state.db.set_aside(id, now_ms()).await {
        // Logged by the one pass that marked it: once, whichever replica met it first.
        Ok(true) => {
            state.metrics.game_set_aside();
            tracing::error!(game = %id, pass, error = %crate::error::chain(error), "a stored game does not load: set aside");
        }
        Ok(false) => {}
        Err(e) => {
            tracing::warn!(game = %id, pass, error = %e, "a stored game does not load and could not be set aside; trying again next pass");
        }
    }
    true
}

#[cfg(test)]
mod tests {
    use engine::bot::Level;
    use engine::{Action, Seat};

    use super::*;

    #[test]
    fn a_bots_refused_move_is_counted_by_its_level() {
        let mut table = HostedGame::ann_and_a_hard_bot();
        let card = table.game().expect("a game").hand(Seat(1))[0];
        let applied = table
            .play_bot(Seat(1), Level::Hard, Some(Action::Discard { card }))
            .expect("played");
        let metrics = Metrics::new();
        let series = |level: &str| format!("continental_bot_moves_refused_total{{level=\"{level}\"}}");
        assert!(
            metrics.render().contains(&format!("{} 0", series("hard"))),
            "starts at 0"
        );
        count_refused(&metrics, &applied);
        let rows = event_rows(applied, false).expect("rows");
        assert!(!rows.is_empty(), "normal's move stood in and was logged");
        let text = metrics.render();
        assert!(text.contains(&format!("{} 1", series("hard"))), "{text}");
        assert!(text.contains(&format!("{} 0", series("normal"))), "{text}");
    }
}
