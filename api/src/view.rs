//! The game as one seat may see it, on the wire (API.md "Fields clients rely on").

use engine::{LegalAction, Seat, Viewer};
use serde::{Deserialize, Serialize};
use utoipa::ToSchema;
use uuid::Uuid;

use crate::dto::{ContractView, ReadingView};
use crate::play::{SeatKind, StoredGame};

/// Whose turn and at which point.
#[derive(Debug, Serialize, Deserialize, ToSchema)]
pub struct TurnDto {
    /// The seat in turn.
    pub seat: u8,
    /// `draw` before the draw, `play` after it.
    #[schema(example = "draw")]
    pub phase: String,
}

/// The viewer's own seat and hand.
#[derive(Debug, Serialize, Deserialize, ToSchema)]
pub struct YouDto {
    /// The viewer's seat.
    pub seat: u8,
    /// The viewer's cards (empty while the game waits for players).
    #[schema(example = json!(["7H", "7S", "JK", "QD"]))]
    pub hand: Vec<String>,
    /// Cards that must go to the table before the turn ends (a freed wild).
    pub must_play: Vec<String>,
    /// `may_i`, in turn: this turn's table plays, each of which may be taken back on its own
    /// with `POST /v1/games/{id}/take_back` `{"play": n}`.
    pub plays: Vec<TurnPlayDto>,
}

/// A table play made this turn (`may_i` taking back).
#[derive(Debug, Serialize, Deserialize, ToSchema)]
pub struct TurnPlayDto {
    /// Its index among this turn's plays: the `play` to send to `take_back`.
    pub play: u32,
    /// The play as it was made (an action: `type` `meld`, `layoff` or `swap` and its fields).
    #[schema(value_type = Object, example = json!({"type": "layoff", "meld_id": 1, "cards": ["3H"]}))]
    pub action: serde_json::Value,
    /// Whether taking it back alone is accepted now (not while a later play depends on it).
    pub can_take_back: bool,
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
    pub kind: String,
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
}

/// A meld on the table.
#[derive(Debug, Serialize, Deserialize, ToSchema)]
pub struct TableMeldDto {
    /// Id to lay off on or swap in.
    pub id: u32,
    /// The seat that laid it.
    pub owner: u8,
    /// `set` or `run`.
    pub kind: String,
    /// Cards in table order.
    pub cards: Vec<String>,
    /// What every card stands for.
    pub reading: ReadingView,
}

/// The discard pile.
#[derive(Debug, Serialize, Deserialize, ToSchema)]
pub struct DiscardDto {
    /// The top card, or null.
    pub top: Option<String>,
    /// Cards in the pile.
    pub count: usize,
    /// Whether it is dead (a claim took the top card until the next discard).
    pub dead: bool,
}

/// Claims ("May I?").
#[derive(Debug, Serialize, Deserialize, ToSchema)]
pub struct ClaimsDto {
    /// The discard on offer, if any.
    pub offered: Option<String>,
    /// Seats that asked for it, in order.
    pub pending: Vec<u8>,
}

/// Something the viewer may do now. Draw, claim, discard and leave are exact; meld, layoff
/// and swap say the phase allows them (the cards decide).
#[derive(Debug, Serialize, Deserialize, ToSchema)]
pub struct LegalActionDto {
    /// `draw`, `claim`, `meld`, `layoff`, `swap`, `move_joker`, `take_back`, `discard`, `leave`.
    #[serde(rename = "type")]
    #[schema(example = "draw")]
    pub kind: String,
    /// `draw`: `stock` or `discard`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub source: Option<String>,
    /// `meld`: whether it would be going down with the contract.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub contract: Option<bool>,
    /// `layoff`, `swap`, `move_joker`: the melds it may concern.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub meld_ids: Option<Vec<u32>>,
    /// `discard`: the cards that may be discarded.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cards: Option<Vec<String>>,
}

/// A final place.
#[derive(Debug, Serialize, Deserialize, ToSchema)]
pub struct StandingDto {
    /// Seat.
    pub seat: u8,
    /// 1 is first; equal totals share a place.
    pub place: usize,
    /// Final total.
    pub total: i32,
    /// Whether the seat left the game.
    pub left: bool,
}

/// The game as one seat may see it.
#[derive(Debug, Serialize, Deserialize, ToSchema)]
#[schema(example = json!({
    "id": "bb40d2b9-9000-48b2-bf84-e29ac77d3084", "variant": "may_i",
    "options": {"claims_disabled_last_deals": 0, "deuces_wild": false, "max_claims_per_deal": null},
    "status": "playing", "version": 1, "deal": 1, "deals": 7, "dealer": 2,
    "turn": {"seat": 0, "phase": "draw"},
    "you": {"seat": 0, "hand": ["JS", "KC", "JH", "8D", "KD", "5S", "9D", "AD", "7H", "3D", "8S", "TD"], "must_play": []},
    "players": [
        {"seat": 0, "name": "Ann", "kind": "player", "hand_count": 12, "down": false, "total": 0, "left": false, "claims": 0},
        {"seat": 1, "name": "Bob", "kind": "player", "hand_count": 12, "down": false, "total": 0, "left": false, "claims": 0},
        {"seat": 2, "name": "Bot 3", "kind": "bot", "hand_count": 12, "down": false, "total": 0, "left": false, "claims": 0}],
    "table": [], "discard": {"top": "9S", "count": 1, "dead": false}, "stock_count": 71,
    "claims": {"offered": "9S", "pending": []},
    "contract": {"description": "a set of 3+, a set of 3+", "melds": [{"kind": "set", "min_len": 3}, {"kind": "set", "min_len": 3}], "go_out": false},
    "scores": [],
    "legal_actions": [{"type": "draw", "source": "stock"}, {"type": "draw", "source": "discard"}, {"type": "leave"}],
    "seed_commitment": "f5411ec7e51e46159c654bdbdf3cc20785a217b87384810ed2e541dc0016943a"
}))]
pub struct GameView {
    /// Game id.
    pub id: Uuid,
    /// `may_i`, `contract_7`, `continental` or `push`.
    #[schema(example = "may_i")]
    pub variant: String,
    /// The variant's options in force.
    #[schema(value_type = Object)]
    pub options: serde_json::Value,
    /// `waiting`, `playing`, `finished` or `void`.
    #[schema(example = "playing")]
    pub status: String,
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
    /// The viewer's seat and hand.
    pub you: YouDto,
    /// Every seat.
    pub players: Vec<PlayerDto>,
    /// Melds on the table.
    pub table: Vec<TableMeldDto>,
    /// The discard pile.
    pub discard: DiscardDto,
    /// Cards in the stock.
    pub stock_count: usize,
    /// Pending claims.
    pub claims: ClaimsDto,
    /// This deal's contract (null while waiting).
    pub contract: Option<ContractView>,
    /// Scores of each finished deal, per seat.
    pub scores: Vec<Vec<i32>>,
    /// What the viewer may do now.
    pub legal_actions: Vec<LegalActionDto>,
    /// Final places, once finished.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub standings: Option<Vec<StandingDto>>,
    /// SHA-256 of the seed (hex), published at creation.
    pub seed_commitment: String,
    /// The seed (hex), revealed once the game is over.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub seed: Option<String>,
}

fn cards(cards: &[engine::Card]) -> Vec<String> {
    cards.iter().map(ToString::to_string).collect()
}

fn legal(a: &LegalAction) -> LegalActionDto {
    let mut dto = LegalActionDto {
        kind: String::new(),
        source: None,
        contract: None,
        meld_ids: None,
        cards: None,
    };
    dto.kind = match a {
        LegalAction::Draw { source } => {
            dto.source = Some(
                match source {
                    engine::DrawSource::Stock => "stock",
                    engine::DrawSource::Discard => "discard",
                }
                .to_owned(),
            );
            "draw"
        }
        LegalAction::Claim => "claim",
        LegalAction::Meld { contract } => {
            dto.contract = Some(*contract);
            "meld"
        }
        LegalAction::LayOff { meld_ids } => {
            dto.meld_ids = Some(meld_ids.clone());
            "layoff"
        }
        LegalAction::Swap { meld_ids } => {
            dto.meld_ids = Some(meld_ids.clone());
            "swap"
        }
        LegalAction::MoveJoker { meld_ids } => {
            dto.meld_ids = Some(meld_ids.clone());
            "move_joker"
        }
        LegalAction::TakeBack => "take_back",
        LegalAction::Discard { cards: c } => {
            dto.cards = Some(cards(c));
            "discard"
        }
        LegalAction::Leave => "leave",
    }
    .to_owned();
    dto
}

impl GameView {
    /// What `seat` sees of `stored` at `version`.
    pub fn of(id: Uuid, version: i64, stored: &StoredGame, seat: u8) -> GameView {
        let rules = &stored.config.ruleset;
        let options = match serde_json::to_value(rules) {
            Ok(serde_json::Value::Object(mut o)) => o.remove("options").unwrap_or_default(),
            _ => serde_json::Value::Null,
        };
        let seat_info = |i: usize| {
            stored
                .seats
                .get(i)
                .map_or((None, SeatKind::Open.as_str().to_owned()), |s| {
                    (s.name.clone(), s.kind.as_str().to_owned())
                })
        };
        let Some(game) = &stored.game else {
            return GameView {
                id,
                variant: rules.variant().id().to_owned(),
                options,
                status: stored.status().to_owned(),
                version,
                deal: None,
                deals: rules.deals(),
                dealer: None,
                turn: None,
                you: YouDto {
                    seat,
                    hand: Vec::new(),
                    must_play: Vec::new(),
                    plays: Vec::new(),
                },
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
                        }
                    })
                    .collect(),
                table: Vec::new(),
                discard: DiscardDto {
                    top: None,
                    count: 0,
                    dead: false,
                },
                stock_count: 0,
                claims: ClaimsDto {
                    offered: None,
                    pending: Vec::new(),
                },
                contract: None,
                scores: Vec::new(),
                legal_actions: Vec::new(),
                standings: None,
                seed_commitment: stored.seed_commitment(),
                seed: None,
            };
        };
        let v = game.view(Viewer::Seat(Seat(seat)));
        GameView {
            id,
            variant: v.variant.id().to_owned(),
            options,
            status: stored.status().to_owned(),
            version,
            deal: Some(v.deal),
            deals: v.deals,
            dealer: Some(v.dealer.0),
            turn: v.turn.map(|t| TurnDto {
                seat: t.seat.0,
                phase: match t.phase {
                    engine::Phase::Draw => "draw",
                    engine::Phase::Play => "play",
                }
                .to_owned(),
            }),
            you: v.you.map_or(
                YouDto {
                    seat,
                    hand: Vec::new(),
                    must_play: Vec::new(),
                    plays: Vec::new(),
                },
                |y| YouDto {
                    seat: y.seat.0,
                    hand: cards(&y.hand),
                    must_play: cards(&y.must_play),
                    plays: y
                        .plays
                        .iter()
                        .map(|p| TurnPlayDto {
                            play: p.play,
                            action: serde_json::to_value(&p.action).unwrap_or_default(),
                            can_take_back: p.can_take_back,
                        })
                        .collect(),
                },
            ),
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
                    }
                })
                .collect(),
            table: v
                .table
                .iter()
                .map(|m| TableMeldDto {
                    id: m.id,
                    owner: m.owner.0,
                    kind: crate::dto::kind_str(m.kind).to_owned(),
                    cards: cards(&m.cards),
                    reading: ReadingView::from(&m.reading),
                })
                .collect(),
            discard: DiscardDto {
                top: v.discard.top.map(|c| c.to_string()),
                count: v.discard.count,
                dead: v.discard.dead,
            },
            stock_count: v.stock_count,
            claims: ClaimsDto {
                offered: v.claims.offered.map(|c| c.to_string()),
                pending: v.claims.pending.iter().map(|s| s.0).collect(),
            },
            contract: Some(ContractView::from(&v.contract)),
            scores: v.scores.clone(),
            legal_actions: v.legal_actions.iter().map(legal).collect(),
            standings: v.standings.as_ref().map(|s| {
                s.iter()
                    .map(|x| StandingDto {
                        seat: x.seat.0,
                        place: x.place,
                        total: x.total,
                        left: x.left,
                    })
                    .collect()
            }),
            seed_commitment: v.seed_commitment.clone(),
            seed: v.seed.clone(),
        }
    }
}
