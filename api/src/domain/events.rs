//! What a game's event log holds: the engine's events and the table's own.

use engine::bot::Level;
use engine::{Event, Seat, Standing, Viewer};
use serde::{Deserialize, Serialize};

use super::GameStatus;

/// The table's own events, logged next to the engine's.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, utoipa::ToSchema)]
#[serde(tag = "type", rename_all = "snake_case")]
pub enum TableEvent {
    /// Someone took an open seat.
    SeatJoined {
        /// The seat.
        seat: u8,
        /// The name they sit under.
        name: String,
    },
    /// A player gave their seat up before the deal: it is open again.
    SeatVacated {
        /// The seat.
        seat: u8,
    },
    /// The turn passed: this seat is now to play (also the first turn of each deal).
    Turn {
        /// The seat now in turn.
        seat: u8,
    },
    /// The seat in turn let its deadline pass: the server plays its turn as a bot would.
    TimedOut {
        /// The seat that timed out.
        seat: u8,
    },
    /// A player handed their seat to a bot, or the house did after `autopilot_after_timeouts`
    /// timeouts in a row: the server plays it until the player acts or takes it back.
    AutopilotOn {
        /// The seat.
        seat: u8,
        /// The bot's level.
        #[schema(schema_with = level_schema)]
        level: Level,
    },
    /// The player took their seat back (by asking, or by a move of their own).
    AutopilotOff {
        /// The seat.
        seat: u8,
    },
    /// The game was called off before it was over (a `game_finished` as `void` follows): by
    /// its studio, or by a server open to anyone when its last person abandoned it with no
    /// room for one more table of bots alone
    /// (https://github.com/continental-rummy/continental/blob/main/docs/operations.md#abandoned).
    CalledOff {
        /// Why: as the studio gave it, or the server's reason, beginning `abandoned:`.
        reason: String,
        /// The studio ended the rated game rated: its `standings` are rated as a finished
        /// game's, and each seat's `rating_change` follows in the view.
        #[serde(default)]
        rated: bool,
        /// When `rated`: the standings as the game was called off (the totals of the deals
        /// played to their end).
        #[serde(default, skip_serializing_if = "Option::is_none")]
        standings: Option<Vec<Standing>>,
    },
    /// The studio put a bot in this seat: its tokens no longer open it, the bot plays it.
    BotSeated {
        /// The seat.
        seat: u8,
        /// How well the bot plays.
        #[schema(schema_with = level_schema)]
        level: Level,
    },
    /// The next game at this table was made: each player asks for their seat in it with
    /// `POST /v1/games/{id}/rematch` on this game.
    Rematch {
        /// The new game's id.
        id: uuid::Uuid,
    },
    /// Quick play made this game from waiting tickets
    /// (https://github.com/continental-rummy/continental/blob/main/docs/api.md#matchmaking): the first
    /// event of such a game. Each seat says whose ticket sits there; the ticket and the player
    /// are shown only to the studio's webhook, never to a seat or a spectator (a ticket's id
    /// opens its seat's token).
    Matched {
        /// Each ticket's seat.
        seats: Vec<MatchedSeat>,
    },
    /// The game is over.
    GameFinished {
        /// `finished`, or `void` when fewer than two players finished.
        #[schema(schema_with = finished_or_void)]
        status: GameStatus,
    },
}

/// A seat quick play gave a ticket.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, utoipa::ToSchema)]
pub struct MatchedSeat {
    /// The seat.
    pub seat: u8,
    /// The ticket seated there: in the webhook's copy only, else `null`.
    pub ticket: Option<uuid::Uuid>,
    /// The studio's player of that ticket: in the webhook's copy only, else `null`.
    pub player: Option<String>,
}

/// The schema of a bot's level: `easy`, `normal` or `hard`, from [`Level`] itself.
pub fn level_schema() -> utoipa::openapi::Object {
    use strum::IntoEnumIterator;
    let names: Vec<String> = Level::iter()
        .filter_map(|l| serde_json::to_value(l).ok()?.as_str().map(str::to_owned))
        .collect();
    utoipa::openapi::ObjectBuilder::new()
        .schema_type(utoipa::openapi::Type::String)
        .enum_values(Some(names))
        .build()
}

/// A level's name on the wire, as in the metrics' and the spans' labels: its serde name.
pub fn level_name(level: Level) -> String {
    serde_json::to_value(level)
        .ok()
        .and_then(|v| v.as_str().map(str::to_owned))
        .unwrap_or_default()
}

/// The schema of a level or `null`.
pub fn optional_level_schema() -> utoipa::openapi::Object {
    let mut schema = level_schema();
    schema.schema_type = utoipa::openapi::schema::SchemaType::from_iter([
        utoipa::openapi::Type::String,
        utoipa::openapi::Type::Null,
    ]);
    if let Some(values) = &mut schema.enum_values {
        values.push(serde_json::Value::Null);
    }
    schema
}

/// The schema of [`TableEvent::GameFinished`]'s `status`: the two ways a game ends.
fn finished_or_void() -> utoipa::openapi::Object {
    utoipa::openapi::ObjectBuilder::new()
        .schema_type(utoipa::openapi::Type::String)
        .enum_values(Some(
            GameStatus::ALL
                .into_iter()
                .filter(|s| s.is_over())
                .map(GameStatus::as_str),
        ))
        .build()
}

/// One entry of a game's event log.
#[derive(Clone, Debug, Serialize, Deserialize)]
#[serde(untagged)]
pub enum Logged {
    /// A move or a deal, as the engine tells it.
    Engine(Event),
    /// A change of the seats.
    Table(TableEvent),
}

impl Logged {
    /// The seat the entry is about, for the events table's `seat` column.
    pub fn seat(&self) -> Option<Seat> {
        match self {
            Logged::Engine(e) => e.seat(),
            Logged::Table(
                TableEvent::SeatJoined { seat, .. }
                | TableEvent::SeatVacated { seat }
                | TableEvent::Turn { seat }
                | TableEvent::TimedOut { seat }
                | TableEvent::AutopilotOn { seat, .. }
                | TableEvent::AutopilotOff { seat }
                | TableEvent::BotSeated { seat, .. },
            ) => Some(Seat(*seat)),
            Logged::Table(
                TableEvent::GameFinished { .. }
                | TableEvent::CalledOff { .. }
                | TableEvent::Rematch { .. }
                | TableEvent::Matched { .. },
            ) => None,
        }
    }

    /// The entry as someone with no hand sees it (a spectator, a webhook): every private card
    /// hidden.
    pub fn public(&self) -> Logged {
        self.redacted_for(Viewer::Spectator)
    }

    /// The entry as the studio's webhook receives it: as a spectator sees it, but for the
    /// tickets and players of a `matched` table, which are the studio's own.
    pub fn for_studio(&self) -> Logged {
        match self {
            Logged::Table(e @ TableEvent::Matched { .. }) => Logged::Table(e.clone()),
            other => other.public(),
        }
    }

    /// The entry as `viewer` may see it: the engine's redaction for its events; the table's
    /// own events are public, but for a `matched` table's tickets and players.
    pub fn redacted_for(&self, viewer: Viewer) -> Logged {
        match self {
            Logged::Engine(e) => Logged::Engine(e.redacted_for(viewer)),
            Logged::Table(TableEvent::Matched { seats }) => Logged::Table(TableEvent::Matched {
                seats: seats
                    .iter()
                    .map(|s| MatchedSeat {
                        seat: s.seat,
                        ticket: None,
                        player: None,
                    })
                    .collect(),
            }),
            Logged::Table(e) => Logged::Table(e.clone()),
        }
    }
}
