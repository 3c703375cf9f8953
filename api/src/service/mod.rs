//! The use cases, one function each: read or change a game in one store transaction, with
//! the table deciding and the engine refereeing. No HTTP here but the responses kept for
//! idempotency keys, which must be written in the same transaction as the change.

mod bots;
mod deadlines;
mod events;
mod games;
mod hints;
mod moves;
mod pace;
mod rematch;
mod replay;
mod studio;
mod webhooks;

pub use bots::{Bots, play_bots};
pub use deadlines::{sweep_deadlines, time_out_due};
pub use events::{events_for, live_events, redact};
pub use games::{create_game, exists, join_game, load_for_reader, load_for_seat};
pub use hints::hints;
pub use moves::{act, autopilot};
pub use pace::{Pacer, pace_bots};
pub use rematch::{Asker, rematch};
pub use replay::replay;
pub use studio::{end_game, list_games, reissue_token, seat_bot, spectator_token, webhook_status};
pub use webhooks::{deliver_webhooks, sign};

use uuid::Uuid;

use crate::domain::{Applied, Table};
use crate::error::ApiError;
use crate::metrics::Metrics;
use crate::server_keys::Tenant;
use crate::state::AppState;
use crate::store::{BotTableLimit, NewEvent, SeatRow, Store, now_ms};

/// The calendar year (UTC) now: the engine reads no clock, so the service gives it the year
/// a game starts in and the year of each request to resume (docs/rules.md#suspension).
pub fn utc_year() -> i32 {
    time::OffsetDateTime::now_utc().year()
}

/// The seats of `table` as the seats table mirrors them: each one's name and who plays it.
fn seat_rows(table: &Table) -> impl Iterator<Item = SeatRow> + '_ {
    table.seats.iter().enumerate().map(|(i, s)| SeatRow {
        seat: i as i64,
        name: s.name.clone(),
        kind: table.played_by(i).to_owned(),
    })
}

/// Who plays each seat of `table` ([`Table::played_by`]), taken before a change so that the
/// rows it changes are written with it ([`seats_changed`]).
fn played_by(table: &Table) -> Vec<&'static str> {
    (0..table.seats.len()).map(|i| table.played_by(i)).collect()
}

/// The rows of the seats whose player a change turned from `before` (see [`played_by`]): a
/// seat handed to autopilot or taken back, a player who left.
fn seats_changed(before: &[&str], table: &Table) -> Vec<SeatRow> {
    seat_rows(table)
        .zip(before)
        .filter(|(row, was)| row.kind != **was)
        .map(|(row, _)| row)
        .collect()
}

/// The limit a change must be admitted under: on a server open to anyone, one that leaves
/// `table` to bots alone when it was not (`was_alone`) (docs/operations.md#bots).
/// Such a server has one tenant, the default.
fn bot_table_limit(state: &AppState, was_alone: bool, table: &Table) -> Option<BotTableLimit> {
    (!state.server_keys.enabled() && !was_alone && table.bots_alone()).then(|| BotTableLimit {
        tenant: Tenant::default().as_str().to_owned(),
        limit: state.limits.open_bot_tables,
    })
}

/// The row of seat `seat` only: what a join or a vacated seat changes.
fn seat_row(table: &Table, seat: u8) -> Vec<SeatRow> {
    seat_rows(table).filter(|s| s.seat == i64::from(seat)).collect()
}

/// Counts the bots' proposals the game refused in a change (`Applied::bots_refused`, each
/// played around and logged by the table). A change decided again after a write conflict
/// counts its refusals again: each was a proposal refused.
fn count_refused(metrics: &Metrics, applied: &Applied) {
    for level in &applied.bots_refused {
        metrics.bot_move_refused(&crate::wire::level_name(*level));
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
                public: webhook.then(|| serde_json::to_string(&e.public())).transpose()?,
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
    use engine::{Action, GameConfig, Ruleset, Seat, Seed, Variant};

    use super::*;
    use crate::domain::{SeatKind, SeatRecord};

    #[test]
    fn a_bots_refused_move_is_counted_by_its_level() {
        let seat = |kind, level| SeatRecord {
            name: Some("Ann".into()),
            kind,
            generation: 0,
            timeouts: 0,
            level,
            autopilot: None,
            reserved: false,
            reserve_ms: None,
        };
        let mut config = GameConfig::new(Ruleset::default_for(Variant::MayI), 2);
        config.first_dealer = Some(Seat(0));
        let seats = vec![
            seat(SeatKind::Player, None),
            seat(SeatKind::Bot, Some(Level::Hard)),
        ];
        let mut table = Table::new(config, Seed::from_u64(3), seats).expect("a table");
        table.start_if_full(2026).expect("dealt");
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
