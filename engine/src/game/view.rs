//! What a viewer may see of a game (docs/api.md#game-view). Nothing here reveals the
//! stock's order, another seat's hand or, before the end, the seed.

use serde::{Deserialize, Serialize};

use super::{ActionKind, DealEnd, DrawSource, Game, Phase, Seat, Standing, Status, Viewer};
use crate::card::Card;
use crate::contract::ContractView;
use crate::reading::{MeldKind, Reading};
use crate::ruleset::{Ruleset, Variant};

/// Whose turn and which half of it.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "utoipa", derive(utoipa::ToSchema))]
pub struct TurnView {
    /// The player in turn.
    pub seat: Seat,
    /// `draw` before the draw, `play` after it.
    pub phase: Phase,
}

/// The viewer's own seat and hand.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "utoipa", derive(utoipa::ToSchema))]
pub struct YouView {
    /// The viewer's seat.
    pub seat: Seat,
    /// The viewer's cards.
    pub hand: Vec<Card>,
    /// Freed wilds that must reach the table before this turn ends.
    #[serde(default)]
    pub must_play: Vec<Card>,
    /// `may_i`, in turn: this turn's table plays, each of which may be taken back on its own
    /// ([`super::Action::TakeBack`] with a `play`) when `can_take_back` says so.
    #[serde(default)]
    pub plays: Vec<TurnPlayView>,
}

/// A table play of this turn (`may_i` taking back).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "utoipa", derive(utoipa::ToSchema))]
pub struct TurnPlayView {
    /// Its index among this turn's plays: the `play` of [`super::Action::TakeBack`].
    pub play: u32,
    /// The play as it was made.
    pub action: super::Action,
    /// Whether taking it back alone is accepted now (not while a later play depends on it).
    pub can_take_back: bool,
}

/// A seat as every viewer sees it.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "utoipa", derive(utoipa::ToSchema))]
pub struct PlayerView {
    /// The seat.
    pub seat: Seat,
    /// Cards in hand.
    pub hand_count: usize,
    /// Has gone down this deal.
    pub down: bool,
    /// Running total (in `push` partnerships: the team's).
    pub total: i32,
    /// Has left the game.
    pub left: bool,
    /// `push` partnerships: team 0 (seats 0 and 2) or 1 (seats 1 and 3).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub team: Option<u8>,
    /// Claims won this deal.
    pub claims: u32,
}

/// A meld on the table.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "utoipa", derive(utoipa::ToSchema))]
pub struct MeldView {
    /// Its id.
    pub id: u32,
    /// Who laid it.
    pub owner: Seat,
    /// `set` or `run`.
    pub kind: MeldKind,
    /// Its cards in table order (runs low to high).
    pub cards: Vec<Card>,
    /// The full reading: what every card represents.
    pub reading: Reading,
}

/// The discard pile.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "utoipa", derive(utoipa::ToSchema))]
pub struct DiscardView {
    /// The top card, if any.
    pub top: Option<Card>,
    /// Cards in the pile.
    pub count: usize,
    /// Dead after a claim until the next discard: nobody may take it.
    pub dead: bool,
}

/// "May I?" as it stands.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "utoipa", derive(utoipa::ToSchema))]
pub struct ClaimsView {
    /// The discard on offer, if one may be claimed.
    pub offered: Option<Card>,
    /// Seats whose claim waits for the stock draw.
    pub pending: Vec<Seat>,
    /// Seats that passed on the discard on offer ("No, go on").
    #[serde(default)]
    pub passed: Vec<Seat>,
}

/// How the last deal ended, as its `deal_ended` event said: every hand's cards left, revealed
/// at a deal's end as at a real table, what each cost, and the totals after it.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "utoipa", derive(utoipa::ToSchema))]
pub struct LastDeal {
    /// 1-based deal number.
    pub deal: u8,
    /// How it ended: who went out, or the stock ran out.
    pub end: DealEnd,
    /// Cards left in each hand (empty for the player who went out and for leavers).
    pub hands: Vec<Vec<Card>>,
    /// Each seat's score for the deal.
    pub scores: Vec<i32>,
    /// Totals after the deal.
    pub totals: Vec<i32>,
}

/// An action a seat may take now: its type, and where it helps, the choices.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "utoipa", derive(utoipa::ToSchema))]
#[serde(tag = "type", rename_all = "snake_case")]
pub enum LegalAction {
    /// Draw from this source.
    Draw {
        /// Stock or discard.
        source: DrawSource,
    },
    /// Ask for the top discard.
    Claim,
    /// Pass on the top discard: no claim ("No, go on").
    Pass,
    /// Lay melds: the contract (`contract: true`), later melds in `push`, or going out in
    /// `continental`.
    Meld {
        /// Whether this would be going down with the contract.
        contract: bool,
    },
    /// Lay off onto one of these melds.
    #[serde(rename = "layoff")]
    LayOff {
        /// Ids of melds on the table.
        meld_ids: Vec<u32>,
    },
    /// Replace a wild in one of these melds.
    Swap {
        /// Ids of melds holding a wild this seat may replace.
        meld_ids: Vec<u32>,
    },
    /// `contract_7`: move an end joker of one of these runs to another run.
    MoveJoker {
        /// Ids of the seat's runs with a joker at an end.
        meld_ids: Vec<u32>,
    },
    /// `may_i`: take back this turn's table plays, all at once; one by one with
    /// [`super::Action::TakeBack`] with a `play`, listed in [`YouView::plays`].
    TakeBack,
    /// Discard one of these cards.
    Discard {
        /// The cards that may be discarded.
        cards: Vec<Card>,
    },
    /// Leave the game.
    Leave,
    /// `may_i`, between deals: ask to suspend the game.
    Suspend,
    /// Ask to resume the suspended game.
    Resume,
}

impl LegalAction {
    /// The kind of action this is: its `type` in JSON is the kind's name.
    pub fn kind(&self) -> ActionKind {
        match self {
            LegalAction::Draw { .. } => ActionKind::Draw,
            LegalAction::Claim => ActionKind::Claim,
            LegalAction::Pass => ActionKind::Pass,
            LegalAction::Meld { .. } => ActionKind::Meld,
            LegalAction::LayOff { .. } => ActionKind::LayOff,
            LegalAction::Swap { .. } => ActionKind::Swap,
            LegalAction::MoveJoker { .. } => ActionKind::MoveJoker,
            LegalAction::TakeBack => ActionKind::TakeBack,
            LegalAction::Discard { .. } => ActionKind::Discard,
            LegalAction::Leave => ActionKind::Leave,
            LegalAction::Suspend => ActionKind::Suspend,
            LegalAction::Resume => ActionKind::Resume,
        }
    }
}

/// A game as one viewer may see it: the seats, and the game around them.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "utoipa", derive(utoipa::ToSchema))]
pub struct View {
    /// Whose turn, while playing.
    pub turn: Option<TurnView>,
    /// The viewer's seat and hand (absent for a spectator).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub you: Option<YouView>,
    /// Every seat.
    pub players: Vec<PlayerView>,
    /// Everything else, the same for every seat but `legal_actions`.
    #[serde(flatten)]
    pub board: Board,
}

/// The game around its seats, as one viewer may see it: the deal, the melds, the piles, the
/// contract, the scores. Before the first deal (a table still waiting for players) the deal's
/// own fields are empty.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "utoipa", derive(utoipa::ToSchema))]
pub struct Board {
    /// `may_i`, `contract_7`, `continental` or `push`.
    #[cfg_attr(feature = "utoipa", schema(example = "may_i"))]
    pub variant: Variant,
    /// 1-based deal number (null before the first deal).
    pub deal: Option<u8>,
    /// Deals in the game.
    pub deals: u8,
    /// The dealer's seat (null before the first deal).
    pub dealer: Option<Seat>,
    /// Melds on the table.
    pub table: Vec<MeldView>,
    /// The discard pile.
    pub discard: DiscardView,
    /// Cards in the stock.
    pub stock_count: usize,
    /// Pending claims.
    pub claims: ClaimsView,
    /// This deal's contract (null before the first deal).
    pub contract: Option<ContractView>,
    /// Scores of each finished deal, per seat.
    pub scores: Vec<Vec<i32>>,
    /// How the last deal ended, with every hand's cards left: null until a deal has ended.
    pub last_deal: Option<LastDeal>,
    /// The cards that are wild in this game, each once: what a table marks as wild (the
    /// engine alone reads melds).
    pub wilds: Vec<Card>,
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

impl View {
    /// A table of `seats` seats under `rules` before its first deal: no cards anywhere yet.
    pub fn before_deal(rules: &Ruleset, seats: usize, viewer: Viewer, seed_commitment: String) -> View {
        View {
            turn: None,
            you: match viewer {
                Viewer::Seat(seat) if seat.index() < seats => Some(YouView {
                    seat,
                    hand: Vec::new(),
                    must_play: Vec::new(),
                    plays: Vec::new(),
                }),
                _ => None,
            },
            players: (0..seats)
                .map(|i| PlayerView {
                    seat: Game::seat_of(i),
                    hand_count: 0,
                    down: false,
                    total: 0,
                    left: false,
                    team: None,
                    claims: 0,
                })
                .collect(),
            board: Board {
                variant: rules.variant(),
                deal: None,
                deals: rules.deals(),
                dealer: None,
                table: Vec::new(),
                discard: DiscardView::default(),
                stock_count: 0,
                claims: ClaimsView::default(),
                contract: None,
                scores: Vec::new(),
                last_deal: None,
                wilds: rules.wild_cards(),
                legal_actions: Vec::new(),
                standings: None,
                suspend_requests: Vec::new(),
                resume_requests: Vec::new(),
                seed_commitment,
                seed: None,
            },
        }
    }
}

impl Game {
    /// The game as `viewer` may see it.
    pub fn view(&self, viewer: Viewer) -> View {
        let rules = self.rules();
        let team = |i: usize| rules.team_of(i);
        let you = match viewer {
            Viewer::Seat(s) if s.index() < self.players() => Some(YouView {
                seat: s,
                hand: self.hands[s].clone(),
                must_play: if s == self.turn {
                    self.turn_state.must_play.clone()
                } else {
                    Vec::new()
                },
                plays: self.turn_plays(s),
            }),
            _ => None,
        };
        View {
            turn: self.turn().map(|(seat, phase)| TurnView { seat, phase }),
            you,
            players: (0..self.players())
                .map(|i| PlayerView {
                    seat: Game::seat_of(i),
                    hand_count: self.hands[i].len(),
                    down: self.down[i],
                    total: self.totals[i],
                    left: !self.active[i],
                    team: team(i),
                    claims: self.claims_won[i],
                })
                .collect(),
            board: Board {
                variant: rules.variant(),
                deal: Some(self.deal),
                deals: rules.deals(),
                dealer: Some(self.dealer),
                table: self
                    .table
                    .iter()
                    .map(|m| MeldView {
                        id: m.id,
                        owner: m.owner,
                        kind: m.reading.kind(),
                        cards: m.reading.cards().collect(),
                        reading: m.reading.clone(),
                    })
                    .collect(),
                discard: DiscardView {
                    top: self.discard.last().copied(),
                    count: self.discard.len(),
                    dead: self.dead,
                },
                stock_count: self.stock.len(),
                claims: ClaimsView {
                    offered: self.offer.map(|o| o.card),
                    pending: self.pending.clone(),
                    passed: self.passed.clone(),
                },
                contract: Some(ContractView::from(&rules.contract(self.deal))),
                scores: self.deal_scores.clone(),
                last_deal: self.last_deal.clone(),
                wilds: rules.wild_cards(),
                legal_actions: match viewer {
                    Viewer::Seat(s) => self.legal_actions(s),
                    Viewer::Spectator => Vec::new(),
                },
                standings: self.standings.clone(),
                suspend_requests: self.suspend_requests.clone(),
                resume_requests: self.resume_requests.clone(),
                seed_commitment: self.commitment(),
                seed: self.revealed_seed().map(super::Seed::to_hex),
            },
        }
    }

    /// What `seat` may do now. Draw, claim, discard, take back and leave are exact: each one listed
    /// is accepted as it stands. Meld, lay off, swap and joker moves say that the phase allows
    /// them; the cards decide. `leave` is always listed for a seat still in a game being played, so
    /// no seat is ever without a legal action (a player holding a freed wild may not discard,
    /// docs/rules.md#may_i-wild-swap and #push-rescue, but may still leave). The plays of this turn
    /// that `take_back` with a `play` accepts are listed in the view's `you.plays`.
    pub fn legal_actions(&self, seat: Seat) -> Vec<LegalAction> {
        let mut out = Vec::new();
        if self.status == Status::Suspended && self.is_active(seat) {
            // The year is the caller's: `resume` is listed while this seat has not asked.
            if !self.resume_requests.contains(&seat) {
                out.push(LegalAction::Resume);
            }
            return out;
        }
        if self.status != Status::Playing || !self.is_active(seat) {
            return out;
        }
        if self.check_suspend(seat).is_ok() {
            out.push(LegalAction::Suspend);
        }
        if self.check_claim(seat).is_ok() {
            out.push(LegalAction::Claim);
            out.push(LegalAction::Pass);
        }
        if seat == self.turn {
            match self.phase {
                Phase::Draw => self.draw_phase_actions(seat, &mut out),
                Phase::Play => self.play_phase_actions(seat, &mut out),
            }
        }
        out.push(LegalAction::Leave);
        out
    }

    /// docs/rules.md#turn: in turn, before drawing, a draw from either pile where it is
    /// accepted; and in `continental` going out with the cards dealt
    /// (docs/rules.md#continental-going-out).
    fn draw_phase_actions(&self, seat: Seat, out: &mut Vec<LegalAction>) {
        for source in [DrawSource::Stock, DrawSource::Discard] {
            if self.check_draw(source).is_ok() {
                out.push(LegalAction::Draw { source });
            }
        }
        if self.check_meld_phase(seat).is_ok() {
            out.push(LegalAction::Meld { contract: true });
        }
    }

    /// docs/rules.md#turn: in turn, after drawing: the contract or a new meld
    /// (docs/rules.md#contracts), the table plays of a player who went down, taking back
    /// (docs/rules.md#taking-back) and the discard, with every distinct card it accepts.
    fn play_phase_actions(&self, seat: Seat, out: &mut Vec<LegalAction>) {
        let rules = self.rules();
        let down = self.down[seat];
        if rules.goes_out_all_at_once() || !down {
            out.push(LegalAction::Meld { contract: true });
        } else if rules.melds_after_going_down() {
            out.push(LegalAction::Meld { contract: false });
        }
        if down && !rules.goes_out_all_at_once() && !self.table.is_empty() {
            self.table_plays(seat, out);
        }
        if self.check_take_back().is_ok() {
            out.push(LegalAction::TakeBack);
        }
        if self.check_discard().is_ok() {
            let mut cards = self.hands[seat].clone();
            cards.sort();
            cards.dedup();
            out.push(LegalAction::Discard { cards });
        }
    }

    /// The plays on the melds of the table of a player who went down: lay-offs on any meld
    /// (docs/rules.md#may_i-after-down), wild swaps where the variant allows one
    /// (docs/rules.md#may_i-wild-swap, docs/rules.md#push-rescue) and joker moves
    /// (docs/rules.md#joker-moves).
    fn table_plays(&self, seat: Seat, out: &mut Vec<LegalAction>) {
        out.push(LegalAction::LayOff {
            meld_ids: self.table.iter().map(|m| m.id).collect(),
        });
        let swappable: Vec<u32> = self
            .table
            .iter()
            .filter(|m| self.swap_rule(seat, m).is_ok() && self.holds_swappable_wild(m))
            .map(|m| m.id)
            .collect();
        if !swappable.is_empty() {
            out.push(LegalAction::Swap { meld_ids: swappable });
        }
        if self.rules().moves_jokers() {
            let movable: Vec<u32> = self
                .table
                .iter()
                .filter(|m| self.joker_movable(seat, m))
                .map(|m| m.id)
                .collect();
            if !movable.is_empty() {
                out.push(LegalAction::MoveJoker { meld_ids: movable });
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use strum::IntoEnumIterator;

    use super::{ActionKind, DrawSource, LegalAction};

    /// A legal action of `kind`: the match is exhaustive, so a new kind of action is listed.
    fn sample(kind: ActionKind) -> LegalAction {
        match kind {
            ActionKind::Draw => LegalAction::Draw {
                source: DrawSource::Stock,
            },
            ActionKind::Claim => LegalAction::Claim,
            ActionKind::Pass => LegalAction::Pass,
            ActionKind::Meld => LegalAction::Meld { contract: true },
            ActionKind::LayOff => LegalAction::LayOff { meld_ids: vec![1] },
            ActionKind::Swap => LegalAction::Swap { meld_ids: vec![1] },
            ActionKind::MoveJoker => LegalAction::MoveJoker { meld_ids: vec![1] },
            ActionKind::TakeBack => LegalAction::TakeBack,
            ActionKind::Discard => LegalAction::Discard { cards: Vec::new() },
            ActionKind::Leave => LegalAction::Leave,
            ActionKind::Suspend => LegalAction::Suspend,
            ActionKind::Resume => LegalAction::Resume,
        }
    }

    #[test]
    fn every_kind_of_action_can_be_legal_under_its_own_name() {
        for kind in ActionKind::iter() {
            let legal = sample(kind);
            assert_eq!(legal.kind(), kind);
            let json = serde_json::to_value(&legal).expect("json");
            assert_eq!(json["type"], kind.name(), "{json}");
        }
    }
}
