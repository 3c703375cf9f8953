//! The game as one seat may see it, on the wire (docs/api.md#game-view).

use engine::{
    Card, ClaimsView, DiscardView, LegalAction, MeldKind, Seat, Standing, TurnPlayView, TurnView, Variant,
    Viewer,
};
use serde::{Deserialize, Serialize};
use utoipa::ToSchema;
use uuid::Uuid;

use super::rules::{ContractView, ReadingView};
use crate::domain::{GameStatus, SeatKind, Table};

/// Whose turn and at which point, with the server's deadline for it.
#[derive(Debug, Serialize, Deserialize, ToSchema)]
pub struct TurnDto {
    /// The seat in turn and the phase.
    #[serde(flatten)]
    pub turn: TurnView,
    /// With `options.turn_seconds`: when the server plays this turn if the seat has not
    /// (RFC 3339, UTC).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schema(example = "2026-11-24T09:30:00Z")]
    pub deadline: Option<String>,
}

/// The viewer's own seat and hand.
#[derive(Debug, Serialize, Deserialize, ToSchema)]
pub struct YouDto {
    /// The viewer's seat.
    pub seat: u8,
    /// The viewer's cards (empty while the game waits for players).
    #[schema(example = json!(["7H", "7S", "JK", "QD"]))]
    pub hand: Vec<Card>,
    /// Cards that must go to the table before the turn ends (a freed wild).
    pub must_play: Vec<Card>,
    /// `may_i`, in turn: this turn's table plays, each of which may be taken back on its own
    /// with `POST /v1/games/{id}/take_back` `{"play": n}`.
    pub plays: Vec<TurnPlayView>,
}

/// One seat as everyone sees it.
#[derive(Debug, Serialize, Deserialize, ToSchema)]
pub struct PlayerDto {
    /// Seat index from 0.
    pub seat: u8,
    /// The name, once known.
    pub name: Option<String>,
    /// `player`, `open` or `bot`.
    #[schema(example = "player")]
    pub kind: SeatKind,
    /// Cards in hand.
    pub hand_count: usize,
    /// Whether the seat has gone down this deal.
    pub down: bool,
    /// Running total.
    pub total: i32,
    /// Whether the seat has left the game.
    pub left: bool,
    /// `push` partnerships: 0 or 1.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub team: Option<u8>,
    /// Claims won this deal.
    pub claims: u32,
    /// Turns in a row the server played for this seat because its deadline passed (0 again
    /// after a move of its own).
    pub timeouts: u32,
}

/// A meld on the table.
#[derive(Debug, Serialize, Deserialize, ToSchema)]
pub struct TableMeldDto {
    /// Id to lay off on or swap in.
    pub id: u32,
    /// The seat that laid it.
    pub owner: u8,
    /// `set` or `run`.
    pub kind: MeldKind,
    /// Cards in table order.
    pub cards: Vec<Card>,
    /// What every card stands for.
    pub reading: ReadingView,
}

/// The game as one seat may see it.
#[derive(Debug, Serialize, Deserialize, ToSchema)]
#[schema(example = json!({
    "id": "bb40d2b9-9000-48b2-bf84-e29ac77d3084", "variant": "may_i",
    "options": {"claims_disabled_last_deals": 0, "deuces_wild": false, "first_upcard_claims": true, "max_claims_per_deal": null},
    "status": "playing", "version": 1, "deal": 1, "deals": 7, "dealer": 2,
    "turn": {"seat": 0, "phase": "draw"},
    "you": {"seat": 0, "hand": ["JS", "KC", "JH", "8D", "KD", "5S", "9D", "AD", "7H", "3D", "8S", "TD"], "must_play": [], "plays": []},
    "players": [
        {"seat": 0, "name": "Ann", "kind": "player", "hand_count": 12, "down": false, "total": 0, "left": false, "claims": 0, "timeouts": 0},
        {"seat": 1, "name": "Bob", "kind": "player", "hand_count": 12, "down": false, "total": 0, "left": false, "claims": 0, "timeouts": 0},
        {"seat": 2, "name": "Bot 3", "kind": "bot", "hand_count": 12, "down": false, "total": 0, "left": false, "claims": 0, "timeouts": 0}],
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
    /// `may_i`, `contract_7`, `continental` or `push`.
    #[schema(example = "may_i")]
    pub variant: Variant,
    /// The variant's options in force.
    #[schema(value_type = super::options::HouseOptions)]
    pub options: serde_json::Value,
    /// `waiting`, `playing`, `suspended`, `finished` or `void`.
    #[schema(example = "playing")]
    pub status: GameStatus,
    /// Incremented by every accepted action; also the `ETag`.
    pub version: i64,
    /// 1-based deal number (null while waiting).
    pub deal: Option<u8>,
    /// Deals in the game.
    pub deals: u8,
    /// The dealer's seat (null while waiting).
    pub dealer: Option<u8>,
    /// Whose turn, while playing.
    pub turn: Option<TurnDto>,
    /// The viewer's seat and hand; null for a spectator.
    pub you: Option<YouDto>,
    /// Every seat.
    pub players: Vec<PlayerDto>,
    /// Melds on the table.
    pub table: Vec<TableMeldDto>,
    /// The discard pile.
    pub discard: DiscardView,
    /// Cards in the stock.
    pub stock_count: usize,
    /// Pending claims.
    pub claims: ClaimsView,
    /// This deal's contract (null while waiting).
    pub contract: Option<ContractView>,
    /// Scores of each finished deal, per seat.
    pub scores: Vec<Vec<i32>>,
    /// What the viewer may do now.
    pub legal_actions: Vec<LegalAction>,
    /// Final places, once finished.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub standings: Option<Vec<Standing>>,
    /// `may_i`, between deals: the seats that asked to suspend the game
    /// ([suspending](https://github.com/continental-rummy/continental/blob/main/docs/rules.md#suspension)).
    pub suspend_requests: Vec<Seat>,
    /// While suspended: the seats that asked to resume.
    pub resume_requests: Vec<Seat>,
    /// SHA-256 of the seed (hex), published at creation.
    pub seed_commitment: String,
    /// The seed (hex), revealed once the game is over.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub seed: Option<String>,
}

/// Unix milliseconds as RFC 3339 (UTC, whole seconds rounded up: a deadline is never shown
/// earlier than it is).
fn rfc3339(ms: i64) -> Option<String> {
    let secs = ms.div_euclid(1000) + i64::from(ms.rem_euclid(1000) > 0);
    super::rfc3339_us(secs.checked_mul(1_000_000)?)
}

impl GameView {
    /// What `seat` sees of `stored` at `version`.
    pub fn of(id: Uuid, version: i64, stored: &Table, seat: u8) -> GameView {
        GameView::as_seen_by(id, version, stored, Viewer::Seat(Seat(seat)))
    }

    /// What `viewer` sees of `stored` at `version`: a spectator sees no hand and has no `you`.
    pub fn as_seen_by(id: Uuid, version: i64, stored: &Table, viewer: Viewer) -> GameView {
        let no_hand = |seat: Seat| YouDto {
            seat: seat.0,
            hand: Vec::new(),
            must_play: Vec::new(),
            plays: Vec::new(),
        };
        let seat = match viewer {
            Viewer::Seat(s) => Some(s),
            Viewer::Spectator => None,
        };
        let rules = &stored.config.ruleset;
        let mut options = match serde_json::to_value(rules) {
            Ok(serde_json::Value::Object(mut o)) => o.remove("options").unwrap_or_default(),
            _ => serde_json::Value::Null,
        };
        if let (Some(secs), serde_json::Value::Object(o)) = (stored.turn_seconds, &mut options) {
            o.insert(super::options::TURN_SECONDS_OPTION.to_owned(), secs.into());
        }
        let timeouts = |i: usize| stored.seats.get(i).map_or(0, |s| s.timeouts);
        let seat_info = |i: usize| {
            stored
                .seats
                .get(i)
                .map_or((None, SeatKind::Open), |s| (s.name.clone(), s.kind))
        };
        let Some(game) = &stored.game else {
            return GameView {
                id,
                variant: rules.variant(),
                options,
                status: stored.status(),
                version,
                deal: None,
                deals: rules.deals(),
                dealer: None,
                turn: None,
                you: seat.map(no_hand),
                players: (0..stored.seats.len())
                    .map(|i| {
                        let (name, kind) = seat_info(i);
                        PlayerDto {
                            seat: u8::try_from(i).unwrap_or(u8::MAX),
                            name,
                            kind,
                            hand_count: 0,
                            down: false,
                            total: 0,
                            left: false,
                            team: None,
                            claims: 0,
                            timeouts: timeouts(i),
                        }
                    })
                    .collect(),
                table: Vec::new(),
                discard: DiscardView {
                    top: None,
                    count: 0,
                    dead: false,
                },
                stock_count: 0,
                claims: ClaimsView {
                    offered: None,
                    pending: Vec::new(),
                },
                contract: None,
                scores: Vec::new(),
                legal_actions: Vec::new(),
                standings: None,
                suspend_requests: Vec::new(),
                resume_requests: Vec::new(),
                seed_commitment: stored.seed_commitment(),
                seed: None,
            };
        };
        let v = game.view(viewer);
        GameView {
            id,
            variant: v.variant,
            options,
            status: stored.status(),
            version,
            deal: Some(v.deal),
            deals: v.deals,
            dealer: Some(v.dealer.0),
            turn: v.turn.map(|turn| TurnDto {
                turn,
                deadline: stored.deadline.and_then(rfc3339),
            }),
            you: seat.map(|s| {
                v.you.as_ref().map_or_else(
                    || no_hand(s),
                    |y| YouDto {
                        seat: y.seat.0,
                        hand: y.hand.clone(),
                        must_play: y.must_play.clone(),
                        plays: y.plays.clone(),
                    },
                )
            }),
            players: v
                .players
                .iter()
                .map(|p| {
                    let (name, kind) = seat_info(p.seat.index());
                    PlayerDto {
                        seat: p.seat.0,
                        name,
                        kind,
                        hand_count: p.hand_count,
                        down: p.down,
                        total: p.total,
                        left: p.left,
                        team: p.team,
                        claims: p.claims,
                        timeouts: timeouts(p.seat.index()),
                    }
                })
                .collect(),
            table: v
                .table
                .iter()
                .map(|m| TableMeldDto {
                    id: m.id,
                    owner: m.owner.0,
                    kind: m.kind,
                    cards: m.cards.clone(),
                    reading: ReadingView::from(&m.reading),
                })
                .collect(),
            discard: v.discard,
            stock_count: v.stock_count,
            claims: v.claims.clone(),
            contract: Some(ContractView::from(&v.contract)),
            scores: v.scores.clone(),
            legal_actions: v.legal_actions.clone(),
            standings: v.standings.clone(),
            suspend_requests: v.suspend_requests.clone(),
            resume_requests: v.resume_requests.clone(),
            seed_commitment: v.seed_commitment.clone(),
            seed: v.seed.clone(),
        }
    }
}
