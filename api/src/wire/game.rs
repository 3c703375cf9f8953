//! The game as one seat may see it, on the wire (docs/api.md#game-view).

use engine::bot::Level;
use engine::{Board, PlayerView, Seat, TurnView, View, Viewer, YouView};
use serde::{Deserialize, Serialize};
use utoipa::ToSchema;
use uuid::Uuid;

use crate::domain::{GameStatus, HostedGame, SeatKind};

/// Whose turn and at which point, with the server's deadline for it.
#[derive(Debug, Serialize, Deserialize, ToSchema)]
pub struct Turn {
    /// The seat in turn and the phase.
    #[serde(flatten)]
    pub turn: TurnView,
    /// With `options.turn_seconds`: when the server plays this turn if the seat has not
    /// (RFC 3339, UTC): after `turn_seconds`, and then the seat's reserve (`bank_seconds`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schema(example = "2026-11-24T09:30:00Z")]
    pub deadline: Option<String>,
    /// Until when the discard on offer stays on offer before the seat in turn, which the
    /// server plays, takes its turn (RFC 3339, UTC, in milliseconds): while a person may claim
    /// it ("May I?"), for `options.claim_window_seconds` from the discard
    /// (https://github.com/continental-rummy/continental/blob/main/docs/api.md#the-claim-window-and-the-bots-pace);
    /// null otherwise.
    #[serde(default)]
    #[schema(example = "2026-11-24T09:30:03.250Z")]
    pub claim_until: Option<String>,
}

/// One seat as everyone sees it: the engine's view of it, with who sits there.
#[derive(Debug, Serialize, Deserialize, ToSchema)]
pub struct Player {
    /// What the engine shows of the seat.
    #[serde(flatten)]
    pub view: PlayerView,
    /// The name, once known.
    pub name: Option<String>,
    /// `player`, `open` or `bot`.
    #[schema(example = "player")]
    pub kind: SeatKind,
    /// Turns in a row the server played for this seat because its deadline passed (0 again
    /// after a move of its own).
    pub timeouts: u32,
    /// A bot's level (https://github.com/continental-rummy/continental/blob/main/docs/bots.md); null for any other seat.
    #[schema(schema_with = crate::domain::optional_level_schema)]
    pub level: Option<Level>,
    /// A player's seat handed to a bot: the bot's level, until the player acts or takes the
    /// seat back (https://github.com/continental-rummy/continental/blob/main/docs/api.md#autopilot); null while the player plays it.
    #[schema(schema_with = crate::domain::optional_level_schema)]
    pub autopilot: Option<Level>,
    /// In a rematch waiting for its players: this player's seat is kept for them until they
    /// ask for it (`POST /v1/games/{id}/rematch` on the game before).
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub reserved: bool,
    /// With `options.bank_seconds`: the seconds of reserve this seat has left (those its turn
    /// has drawn on are counted when the turn ends).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schema(example = 42.5)]
    pub bank_seconds_left: Option<f64>,
    /// The rating in this variant of whoever sits here, as it was when they sat down: a seat
    /// naming a player shows the player's (the initial one if they have none), a bot its
    /// level's; null for any other seat.
    #[serde(default)]
    pub rating: Option<super::RatingView>,
    /// Once a finished, rated game (or one its studio ended rated) has been rated: this seat's
    /// rating before and after it; null until then, and for unrated games.
    #[serde(default)]
    pub rating_change: Option<super::RatingChangeView>,
}

/// The game as one seat may see it: the engine's view, with the service's own fields.
#[derive(Debug, Serialize, Deserialize, ToSchema)]
#[schema(example = json!({
    "id": "bb40d2b9-9000-48b2-bf84-e29ac77d3084", "variant": "may_i",
    "options": {"claims_disabled_last_deals": 0, "deuces_wild": false, "first_upcard_claims": true, "max_claims_per_deal": null},
    "status": "playing", "version": 1, "deal": 1, "deals": 7, "dealer": 2,
    "turn": {"seat": 0, "phase": "draw"},
    "you": {"seat": 0, "hand": ["JS", "KC", "JH", "8D", "KD", "5S", "9D", "AD", "7H", "3D", "8S", "TD"], "must_play": [], "plays": []},
    "players": [
        {"seat": 0, "name": "Ann", "kind": "player", "hand_count": 12, "down": false, "total": 0, "left": false, "claims": 0, "timeouts": 0, "level": null, "autopilot": null},
        {"seat": 1, "name": "Bob", "kind": "player", "hand_count": 12, "down": false, "total": 0, "left": false, "claims": 0, "timeouts": 0, "level": null, "autopilot": null},
        {"seat": 2, "name": "Bot 3", "kind": "bot", "hand_count": 12, "down": false, "total": 0, "left": false, "claims": 0, "timeouts": 0, "level": "hard", "autopilot": null}],
    "table": [], "discard": {"top": "9S", "count": 1, "dead": false}, "stock_count": 71,
    "claims": {"offered": "9S", "pending": []},
    "contract": {"description": "a set of 3+, a set of 3+", "melds": [{"kind": "set", "min_len": 3}, {"kind": "set", "min_len": 3}], "go_out": false},
    "scores": [],
    "legal_actions": [{"type": "draw", "source": "stock"}, {"type": "draw", "source": "discard"}, {"type": "leave"}],
    "suspend_requests": [], "resume_requests": [],
    "seed_commitment": "f5411ec7e51e46159c654bdbdf3cc20785a217b87384810ed2e541dc0016943a"
}))]
pub struct GameView {
    /// Game id.
    pub id: Uuid,
    /// The variant's options in force.
    #[schema(value_type = super::options::HouseOptions)]
    pub options: serde_json::Value,
    /// `waiting`, `playing`, `suspended`, `finished` or `void`.
    #[schema(example = "playing")]
    pub status: GameStatus,
    /// Incremented by every accepted action; also the `ETag`.
    pub version: i64,
    /// Whose turn, while playing.
    pub turn: Option<Turn>,
    /// The viewer's seat and hand (empty while the game waits for players); null for a
    /// spectator.
    pub you: Option<YouView>,
    /// Every seat.
    pub players: Vec<Player>,
    /// Whether the game is rated when it finishes, or when its studio ends it rated (its
    /// creator asked: `rated`).
    #[serde(default)]
    pub rated: bool,
    /// The next game at this table, once asked for (`POST /v1/games/{id}/rematch`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub rematch: Option<Uuid>,
    /// The deal, the melds, the piles, the contract, the scores.
    #[serde(flatten)]
    pub board: Board,
}

/// Unix milliseconds as RFC 3339 (UTC, whole seconds rounded up: a deadline is never shown
/// earlier than it is).
fn rfc3339(ms: i64) -> Option<String> {
    let secs = ms.div_euclid(1000) + i64::from(ms.rem_euclid(1000) > 0);
    super::rfc3339_us(secs.checked_mul(1_000_000)?)
}

/// Unix milliseconds as RFC 3339 (UTC) to the millisecond.
fn rfc3339_ms(ms: i64) -> Option<String> {
    let at = time::OffsetDateTime::from_unix_timestamp_nanos(i128::from(ms) * 1_000_000).ok()?;
    let (date, clock) = (at.date(), at.time());
    Some(format!(
        "{:04}-{:02}-{:02}T{:02}:{:02}:{:02}.{:03}Z",
        date.year(),
        u8::from(date.month()),
        date.day(),
        clock.hour(),
        clock.minute(),
        clock.second(),
        clock.millisecond()
    ))
}

impl GameView {
    /// What `seat` sees of `stored` at `version`.
    pub fn of(id: Uuid, version: i64, stored: &HostedGame, seat: u8) -> GameView {
        GameView::as_seen_by(id, version, stored, Viewer::Seat(Seat(seat)))
    }

    /// What `viewer` sees of `stored` at `version`: a spectator sees no hand and has no `you`.
    pub fn as_seen_by(id: Uuid, version: i64, stored: &HostedGame, viewer: Viewer) -> GameView {
        let rules = &stored.config.ruleset;
        let View {
            turn,
            you,
            players,
            mut board,
        } = match &stored.game {
            Some(game) => game.view(viewer),
            None => View::before_deal(rules, stored.seats.len(), viewer, stored.seed_commitment()),
        };
        // A tournament table's seed stays closed until every table of its round is over.
        if stored.sealed {
            board.seed = None;
        }
        GameView {
            id,
            options: options_of(stored),
            status: stored.status(),
            version,
            turn: turn.map(|turn| Turn {
                turn,
                deadline: stored.deadline.and_then(rfc3339),
                claim_until: stored.claim_until.and_then(rfc3339_ms),
            }),
            you,
            players: players.into_iter().map(|view| player_at(stored, view)).collect(),
            rated: stored.rated,
            rematch: stored.rematch,
            board,
        }
    }
}

/// The options of `stored` as its view shows them: the ruleset's, and the table's clock and
/// pace (the claim window where the variant has claims).
fn options_of(stored: &HostedGame) -> serde_json::Value {
    let rules = &stored.config.ruleset;
    let mut options = match serde_json::to_value(rules) {
        Ok(serde_json::Value::Object(mut o)) => o.remove("options").unwrap_or_default(),
        _ => serde_json::Value::Null,
    };
    if let serde_json::Value::Object(o) = &mut options {
        let clock = [
            (super::options::TURN_SECONDS_OPTION, stored.turn_seconds),
            (super::options::BANK_SECONDS_OPTION, stored.bank_seconds),
            (
                super::options::AUTOPILOT_AFTER_TIMEOUTS_OPTION,
                stored.autopilot_after_timeouts,
            ),
        ];
        for (name, secs) in clock {
            if let Some(secs) = secs {
                o.insert(name.to_owned(), secs.into());
            }
        }
        o.insert(
            super::options::BOT_PACE_MS_OPTION.to_owned(),
            stored.bot_pace().into(),
        );
        if rules.has_claims() {
            o.insert(
                super::options::CLAIM_WINDOW_SECONDS_OPTION.to_owned(),
                stored.claim_window().into(),
            );
        }
    }
    options
}

/// The player at `view`'s seat of `stored`: what the engine shows of them, with who sits
/// there, their clock and their rating.
fn player_at(stored: &HostedGame, view: PlayerView) -> Player {
    let record = stored.seats.get(view.seat.index());
    let reserve = stored.reserve_left(view.seat);
    let change = stored
        .rating_changes
        .as_ref()
        .and_then(|c| c.get(view.seat.index()).copied().flatten());
    Player {
        view,
        name: record.and_then(|r| r.name.clone()),
        kind: record.map_or(SeatKind::Open, |r| r.kind),
        timeouts: record.map_or(0, |r| r.timeouts),
        level: record
            .filter(|r| r.kind == SeatKind::Bot)
            .and_then(|r| r.plays_as()),
        autopilot: record.and_then(|r| r.autopilot),
        reserved: record.is_some_and(|r| r.reserved),
        // Thousandths of a second, exact in a double.
        bank_seconds_left: reserve.map(|ms| ms as f64 / 1000.0),
        rating: record.and_then(|r| r.rating).map(Into::into),
        rating_change: change.map(Into::into),
    }
}
