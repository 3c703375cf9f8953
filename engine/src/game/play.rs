//! The rules of each action (docs/rules.md#turn, and §2 to §5 of docs/rules.md).

use super::{
    Action, ActionError, DealEnd, DrawSource, Event, Game, LaidMeld, Offer, Phase, Seat, Snapshot, Status,
    TableMeld, TurnPlay, TurnPlayView, TurnState,
};
use crate::card::Card;
use crate::contract::{ContractCode, ContractReason, check_proposed};
use crate::reading::{self, Designation, MeldError, MeldKind, ProposedMeld, Reading, RunEnd, Stands};
use crate::ruleset::{ClaimLimits, Restock, Ruleset, WildSwap};

/// Takes `cards` out of `hand` as a multiset, or names the ones missing (hand untouched).
pub(super) fn take_cards(hand: &mut Vec<Card>, cards: &[Card]) -> Result<(), ActionError> {
    let mut left = hand.clone();
    let mut missing = Vec::new();
    for c in cards {
        match left.iter().position(|h| h == c) {
            Some(i) => {
                left.swap_remove(i);
            }
            None => missing.push(*c),
        }
    }
    if !missing.is_empty() {
        return Err(ActionError::CardNotInHand(missing));
    }
    // Keep the remaining cards in their original order.
    let mut result = Vec::with_capacity(left.len());
    let mut taken = cards.to_vec();
    for c in hand.iter() {
        if let Some(i) = taken.iter().position(|t| t == c) {
            taken.swap_remove(i);
        } else {
            result.push(*c);
        }
    }
    *hand = result;
    Ok(())
}

/// `contract_7` (docs/rules.md#contract_7-play): a table play may not leave the hand empty, for the
/// last card must be discarded. `cards_left` is the size of the hand the play would leave.
pub(super) fn check_last_card(rules: &Ruleset, cards_left: usize) -> Result<(), ActionError> {
    if rules.keeps_last_card() && cards_left == 0 {
        return Err(ActionError::FinalDiscardRequired);
    }
    Ok(())
}

fn meld_error(meld: Option<usize>, e: MeldError) -> ActionError {
    match e {
        MeldError::Illegal(reasons) => ActionError::IllegalMeld { meld, reasons },
        MeldError::Ambiguous(readings) => ActionError::AmbiguousMeld { meld, readings },
    }
}

/// The places a wild could be laid off on `reading`: the set's rank (anything on a wild
/// trio), or either free end of a run.
pub fn wild_places(reading: &Reading) -> Vec<Stands> {
    match (reading.suit(), reading.span()) {
        (Some(suit), Some((low, high))) => {
            let mut out = Vec::new();
            if reading.len() < reading::MAX_RUN {
                if low > 1 {
                    out.push(Stands::Card(Card::in_run(low - 1, suit)));
                }
                if high < 14 {
                    out.push(Stands::Card(Card::in_run(high + 1, suit)));
                }
            }
            out
        }
        _ => vec![reading.rank().map_or(Stands::Any, Stands::Rank)],
    }
}

/// A new three-card meld of `wild` with two cards of `hand`, pinned so that it reads one way,
/// if there is one. Any longer meld holding the wild contains such a three-card meld, so this
/// says whether the wild can start a new meld at all.
pub fn meld_with(rules: &Ruleset, hand: &[Card], wild: Card) -> Option<ProposedMeld> {
    let mut cards = hand.to_vec();
    cards.sort();
    cards.dedup();
    for (k, &a) in cards.iter().enumerate() {
        let again = hand.iter().filter(|c| **c == a).count() > 1;
        let seconds = if again { &cards[k..] } else { &cards[k + 1..] };
        for &b in seconds {
            let proposed = ProposedMeld {
                cards: vec![wild, a, b],
                kind: None,
                wilds: Vec::new(),
            };
            if let Some(reading) = reading::analyse(rules, &proposed).readings.first() {
                return Some(reading.pinned(rules));
            }
        }
    }
    None
}

impl Game {
    /// The refusals that depend only on who acts and when.
    pub(super) fn precheck(&self, seat: Seat, action: &Action) -> Result<(), ActionError> {
        match (self.status, action) {
            (Status::Finished | Status::Void, _) => return Err(ActionError::GameOver),
            (Status::Suspended, Action::Resume { .. }) | (Status::Playing, _) => {}
            (Status::Suspended, _) => return Err(ActionError::Suspended),
        }
        if seat.index() >= self.players() {
            return Err(ActionError::UnknownSeat(seat.0));
        }
        if !self.active[seat] {
            return Err(ActionError::SeatLeft);
        }
        match action {
            Action::Suspend {} => self.check_suspend(seat),
            Action::Resume { year } => self.check_resume(seat, *year),
            Action::Leave {} => Ok(()),
            Action::Claim {} | Action::Pass {} => self.check_claim(seat),
            _ if seat != self.turn => Err(ActionError::NotYourTurn),
            Action::Draw { .. } if self.phase != Phase::Draw => {
                Err(ActionError::WrongPhase("you have already drawn this turn"))
            }
            Action::Discard { .. }
            | Action::LayOff { .. }
            | Action::Swap { .. }
            | Action::MoveJoker { .. }
            | Action::TakeBack { .. }
                if self.phase != Phase::Play =>
            {
                Err(ActionError::WrongPhase("draw a card first"))
            }
            _ => Ok(()),
        }
    }

    /// Plays `action` by its rule. [`Game::precheck`] has passed: [`Game::apply`] checks it
    /// once, and a play made again after a take back was checked when it was first made, by
    /// the same seat in the same turn and phase. A refusal leaves the game as it was: every
    /// rule checks before it changes anything ([`Game::apply_in_place`] relies on it).
    pub(super) fn act(&mut self, seat: Seat, action: Action, ev: &mut Vec<Event>) -> Result<(), ActionError> {
        match action {
            Action::Suspend {} => {
                self.ask(seat, Status::Suspended, ev);
                Ok(())
            }
            Action::Resume { .. } => {
                self.ask(seat, Status::Playing, ev);
                Ok(())
            }
            Action::Leave {} => {
                self.leave(seat, ev);
                Ok(())
            }
            Action::Claim {} => self.claim(seat, ev),
            Action::Pass {} => self.pass(seat, ev),
            Action::Draw { source } => self.draw(seat, source, ev),
            Action::Meld { melds } => self.meld(seat, melds, ev),
            Action::LayOff {
                meld_id,
                cards,
                wilds,
            } => self.lay_off(seat, meld_id, &cards, &wilds, ev),
            Action::Swap { meld_id, card, end } => self.swap(seat, meld_id, card, end, ev),
            Action::MoveJoker {
                from_meld,
                end,
                to_meld,
                to_end,
            } => self.move_joker(seat, from_meld, end, to_meld, to_end, ev),
            Action::TakeBack { play: None } => self.take_back(seat, None, ev),
            Action::TakeBack { play: Some(play) } => self.take_back_play(seat, play, ev),
            Action::Discard { card } => self.discard_card(seat, card, ev),
        }
    }

    /// docs/rules.md#suspension: `may_i`, between deals, once per seat.
    pub(super) fn check_suspend(&self, seat: Seat) -> Result<(), ActionError> {
        if !self.rules().can_suspend() {
            return Err(ActionError::NotInVariant(
                "only may_i games are suspended and resumed",
            ));
        }
        if !self.between_deals() {
            return Err(ActionError::NotBetweenDeals);
        }
        if self.suspend_requests.contains(&seat) {
            return Err(ActionError::AlreadyAsked("suspend"));
        }
        Ok(())
    }

    /// docs/rules.md#suspension: a suspended game resumes only within the calendar year it started
    /// in.
    pub(super) fn check_resume(&self, seat: Seat, year: i32) -> Result<(), ActionError> {
        if self.status != Status::Suspended {
            return Err(ActionError::NotSuspended);
        }
        if let Some(started) = self.config.start_year
            && year > started
        {
            return Err(ActionError::SuspensionExpired { started, year });
        }
        if self.resume_requests.contains(&seat) {
            return Err(ActionError::AlreadyAsked("resume"));
        }
        Ok(())
    }

    /// Whether every seat still in the game is in `asked`.
    fn all_asked(&self, asked: &[Seat]) -> bool {
        (0..self.players())
            .map(Game::seat_of)
            .filter(|s| self.active[s.index()])
            .all(|s| asked.contains(&s))
    }

    /// `seat` asks to suspend (`to` is [`Status::Suspended`]) or to resume (`to` is
    /// [`Status::Playing`]); once every seat still in the game has asked, the game goes `to`.
    fn ask(&mut self, seat: Seat, to: Status, ev: &mut Vec<Event>) {
        let resume = to == Status::Playing;
        let asked = if resume {
            &mut self.resume_requests
        } else {
            &mut self.suspend_requests
        };
        asked.push(seat);
        let asked = asked.clone();
        ev.push(if resume {
            Event::ResumeAsked { seat }
        } else {
            Event::SuspendAsked { seat }
        });
        if self.all_asked(&asked) {
            self.suspend_requests.clear();
            self.resume_requests.clear();
            self.status = to;
            ev.push(if resume { Event::Resumed } else { Event::Suspended });
        }
    }

    fn require_play(&self) -> Result<(), ActionError> {
        match self.phase {
            Phase::Play => Ok(()),
            Phase::Draw => Err(ActionError::WrongPhase("draw a card first")),
        }
    }

    // The predicates below decide both an action (`act`) and whether it is listed
    // (`legal_actions`), so the two cannot disagree. Each assumes `seat` is in turn.

    /// Whether the player in turn may draw from `source` now.
    pub(super) fn check_draw(&self, source: DrawSource) -> Result<(), ActionError> {
        if self.phase != Phase::Draw {
            return Err(ActionError::WrongPhase("you have already drawn this turn"));
        }
        match source {
            DrawSource::Discard if self.discard.is_empty() => Err(ActionError::DiscardEmpty),
            DrawSource::Discard if self.dead => Err(ActionError::DiscardDead),
            DrawSource::Discard | DrawSource::Stock => Ok(()),
        }
    }

    /// Whether `seat` may lay melds down at this point of its turn: after drawing, or before
    /// it where the variant goes out all at once and the player has not drawn this deal.
    pub(super) fn check_meld_phase(&self, seat: Seat) -> Result<(), ActionError> {
        if !self.rules().goes_out_all_at_once() {
            return self.require_play();
        }
        if self.phase == Phase::Draw && self.draws[seat.index()] > 0 {
            return Err(ActionError::WrongPhase(
                "only a player who has not drawn yet this deal may go out before drawing",
            ));
        }
        Ok(())
    }

    /// Whether the player in turn may discard now: after drawing, with no freed wild left to
    /// play.
    pub(super) fn check_discard(&self) -> Result<(), ActionError> {
        self.require_play()?;
        match self.turn_state.must_play.first() {
            Some(&w) => Err(ActionError::FreedWildInHand(w)),
            None => Ok(()),
        }
    }

    /// Whether the player in turn may take back the table plays of this turn.
    pub(super) fn check_take_back(&self) -> Result<(), ActionError> {
        if !self.rules().takes_back() {
            return Err(ActionError::NotInVariant(
                "only may_i lets a player take back table plays",
            ));
        }
        self.require_play()?;
        match self.turn_state.snapshot {
            Some(_) => Ok(()),
            None => Err(ActionError::NothingToTakeBack),
        }
    }

    /// Takes the stock's top card, turning the discard pile over the first time it runs out
    /// (as the variant says). `None` means the deal has ended for want of a card.
    fn take_stock_card(&mut self, ev: &mut Vec<Event>) -> Option<Card> {
        if self.stock.is_empty() {
            let turned: Vec<Card> = match self.rules().restock() {
                Restock::WholePileOnce if self.exhaustions == 0 => std::mem::take(&mut self.discard),
                Restock::AllButTop if self.discard.len() > 1 => {
                    let top = self.discard.pop().expect("more than one card");
                    std::mem::replace(&mut self.discard, vec![top])
                }
                _ => Vec::new(),
            };
            self.exhaustions += 1;
            if turned.is_empty() {
                self.end_deal(DealEnd::StockExhausted, ev);
                return None;
            }
            // Turned over without shuffling: the pile's bottom card becomes the stock's top.
            self.stock = turned.into_iter().rev().collect();
            self.public.stock_turned_over();
            if self.discard.is_empty() {
                self.offer = None;
                self.dead = false;
                self.refuse_pending("gone", ev);
            }
            ev.push(Event::StockTurnedOver {
                stock_count: self.stock.len(),
            });
        }
        self.stock.pop()
    }

    /// `card` came off the stock to `seat`: in view of all when the stock is the turned-over
    /// pile, whose order every seat knows.
    fn drew_from_stock(&mut self, seat: Seat, card: Card) {
        if self.stock_is_public() {
            self.public.took(seat, card);
        }
    }

    fn refuse_pending(&mut self, reason: &str, ev: &mut Vec<Event>) {
        for seat in std::mem::take(&mut self.pending) {
            ev.push(Event::ClaimRefused {
                seat,
                reason: reason.to_owned(),
            });
        }
    }

    fn draw(&mut self, seat: Seat, source: DrawSource, ev: &mut Vec<Event>) -> Result<(), ActionError> {
        self.check_draw(source)?;
        let i = seat.index();
        match source {
            DrawSource::Discard => {
                let card = self.discard.pop().expect("not empty");
                self.hands[i].push(card);
                self.public.took(seat, card);
                self.offer = None;
                self.refuse_pending("taken", ev);
                ev.push(Event::Drew {
                    seat,
                    source,
                    card: Some(card),
                });
            }
            DrawSource::Stock if self.rules().push_draw() && !self.discard.is_empty() => {
                // The push draw: the top discard and a face-down stock card go to the left.
                // With one stock card left they still go, and the drawer's own draw then
                // finds the stock empty, which ends the deal (docs/rules.md#push-draw).
                let Some(pushed) = self.take_stock_card(ev) else {
                    return Ok(());
                };
                let top = self.discard.pop().expect("not empty");
                let to = self.next_active(seat);
                self.hands[to].extend([top, pushed]);
                self.public.took(to, top);
                self.drew_from_stock(to, pushed);
                ev.push(Event::Pushed {
                    from: seat,
                    to,
                    discard: top,
                    stock: Some(pushed),
                });
                let Some(card) = self.take_stock_card(ev) else {
                    return Ok(());
                };
                self.hands[i].push(card);
                self.drew_from_stock(seat, card);
                ev.push(Event::Drew {
                    seat,
                    source,
                    card: Some(card),
                });
            }
            DrawSource::Stock => {
                let Some(card) = self.take_stock_card(ev) else {
                    return Ok(());
                };
                self.hands[i].push(card);
                self.drew_from_stock(seat, card);
                ev.push(Event::Drew {
                    seat,
                    source,
                    card: Some(card),
                });
                self.settle_claims(ev);
            }
        }
        self.draws[i] += 1;
        self.phase = Phase::Play;
        Ok(())
    }

    /// At the stock draw: the pending claimant nearest in rotation after the player in turn
    /// wins the discard; the others are refused (docs/rules.md#claims).
    fn settle_claims(&mut self, ev: &mut Vec<Event>) {
        if self.pending.is_empty() {
            return;
        }
        if self.offer.is_none() {
            self.refuse_pending("gone", ev);
            return;
        }
        if self.stock.is_empty() {
            self.refuse_pending("stock_empty", ev);
            return;
        }
        let order = self.rotation_from(self.turn);
        let winner = order
            .into_iter()
            .find(|s| self.pending.contains(s))
            .expect("pending claimants are active seats");
        self.pending.retain(|s| *s != winner);
        self.refuse_pending("outranked", ev);
        self.award_claim(winner, ev);
    }

    fn award_claim(&mut self, seat: Seat, ev: &mut Vec<Event>) {
        let card = self.discard.pop().expect("the offered card is on top");
        let penalty = self.stock.pop().expect("claims are refused on an empty stock");
        self.hands[seat].extend([card, penalty]);
        self.public.took(seat, card);
        self.drew_from_stock(seat, penalty);
        self.dead = true;
        self.offer = None;
        self.claims_won[seat] += 1;
        ev.push(Event::ClaimWon {
            seat,
            card,
            penalty: Some(penalty),
        });
    }

    /// Whether `seat` may ask "May I?" now, and why not.
    pub(super) fn check_claim(&self, seat: Seat) -> Result<(), ActionError> {
        let rules = self.rules();
        let Some(ClaimLimits {
            disabled_last_deals: disabled_last,
            max_per_deal: max,
        }) = rules.claim_limits()
        else {
            return Err(ActionError::NotInVariant("this variant has no claims"));
        };
        if self.deal + disabled_last > rules.deals() {
            return Err(ActionError::ClaimNotAllowed(
                "no claims in the last deals of this game",
            ));
        }
        if seat == self.turn {
            return Err(ActionError::ClaimNotAllowed(
                "the player in turn may simply take the discard",
            ));
        }
        let Some(offer) = self.offer else {
            return Err(ActionError::ClaimNotAllowed("no discard is on offer"));
        };
        if offer.discarder == Some(seat) {
            return Err(ActionError::ClaimNotAllowed(
                "you may not claim back your own discard",
            ));
        }
        if self.pending.contains(&seat) {
            return Err(ActionError::ClaimNotAllowed("you have already asked"));
        }
        if self.passed.contains(&seat) {
            return Err(ActionError::ClaimNotAllowed("you have passed on this discard"));
        }
        if max.is_some_and(|m| self.claims_won[seat] >= m) {
            return Err(ActionError::ClaimNotAllowed(
                "you have made all the claims allowed this deal",
            ));
        }
        if self.stock.is_empty() {
            return Err(ActionError::ClaimNotAllowed("the stock is empty"));
        }
        Ok(())
    }

    fn claim(&mut self, seat: Seat, ev: &mut Vec<Event>) -> Result<(), ActionError> {
        self.check_claim(seat)?;
        match self.phase {
            Phase::Draw => {
                self.pending.push(seat);
                ev.push(Event::ClaimAsked { seat });
            }
            // After the stock draw a claim is settled at once.
            Phase::Play => self.award_claim(seat, ev),
        }
        Ok(())
    }

    /// "No, go on": `seat`, who could claim the discard on offer, says it will not; its claim
    /// is then refused until the next discard (docs/rules.md#claims).
    fn pass(&mut self, seat: Seat, ev: &mut Vec<Event>) -> Result<(), ActionError> {
        self.check_claim(seat)?;
        self.passed.push(seat);
        ev.push(Event::Passed { seat });
        Ok(())
    }

    /// Records the table as it is before a table play (taking back): before the first one
    /// for taking back the whole turn, and in `may_i` before each one, with the play itself.
    fn note_table_play(&mut self, seat: Seat, action: impl FnOnce() -> Action) {
        let before = || Snapshot {
            hand: self.hands[seat].clone(),
            table: self.table.clone(),
            down: self.down[seat],
            next_meld_id: self.next_meld_id,
            must_play: self.turn_state.must_play.clone(),
        };
        if self.rules().takes_back() {
            let play = TurnPlay {
                action: action(),
                before: before(),
            };
            self.turn_state.plays.push(play);
        }
        if self.turn_state.snapshot.is_none() {
            self.turn_state.snapshot = Some(Box::new(before()));
        }
    }

    /// Puts the player's hand and the table back as `snap` has them.
    fn restore(&mut self, seat: Seat, snap: Snapshot) {
        let i = seat.index();
        self.hands[i] = snap.hand;
        self.table = snap.table;
        self.down[i] = snap.down;
        self.next_meld_id = snap.next_meld_id;
        self.turn_state.must_play = snap.must_play;
    }

    /// Freed wilds leave `must_play` as copies of them reach the table.
    fn played_to_table(&mut self, cards: &[Card]) {
        for c in cards {
            if let Some(i) = self.turn_state.must_play.iter().position(|m| m == c) {
                self.turn_state.must_play.swap_remove(i);
            }
        }
    }

    fn meld(&mut self, seat: Seat, melds: Vec<ProposedMeld>, ev: &mut Vec<Event>) -> Result<(), ActionError> {
        let i = seat.index();
        self.check_meld_phase(seat)?;
        if melds.is_empty() || melds.iter().any(|m| m.cards.is_empty()) {
            return Err(ActionError::NoCards);
        }
        let cards: Vec<Card> = melds.iter().flat_map(|m| m.cards.iter().copied()).collect();
        let mut hand = self.hands[i].clone();
        take_cards(&mut hand, &cards)?;
        check_last_card(self.rules(), hand.len())?;
        let was_down = self.down[i];
        let readings = if was_down {
            if !self.rules().melds_after_going_down() {
                return Err(ActionError::AlreadyDown);
            }
            let mut out = Vec::with_capacity(melds.len());
            for (k, m) in melds.iter().enumerate() {
                out.push(reading::read(self.rules(), m).map_err(|e| meld_error(Some(k), e))?);
            }
            out
        } else {
            check_proposed(self.rules(), self.deal, &melds).map_err(|r| self.contract_error(&melds, r))?
        };
        self.note_table_play(seat, || Action::Meld { melds: melds.clone() });
        self.hands[i] = hand;
        self.played_to_table(&cards);
        self.public.played(seat, &cards);
        let mut laid = Vec::with_capacity(readings.len());
        for reading in readings {
            let id = self.next_meld_id;
            self.next_meld_id += 1;
            self.table.push(TableMeld {
                id,
                owner: seat,
                reading: reading.clone(),
            });
            laid.push(LaidMeld { id, reading });
        }
        if !was_down {
            self.down[i] = true;
            self.turn_state.went_down = true;
        }
        ev.push(Event::Melded {
            seat,
            contract: !was_down,
            melds: laid,
        });
        if self.rules().goes_out_all_at_once() {
            // Going out: 15 cards down; after a draw the one left is discarded.
            if let Some(last) = self.hands[i].pop() {
                self.public.discarded(seat, last);
                self.discard.push(last);
                ev.push(Event::Discarded { seat, card: last });
            }
            self.end_deal(DealEnd::WentOut { seat }, ev);
        } else if self.hands[i].is_empty() {
            self.end_deal(DealEnd::WentOut { seat }, ev);
        }
        Ok(())
    }

    fn contract_error(&self, melds: &[ProposedMeld], reasons: Vec<ContractReason>) -> ActionError {
        if let Some(r) = reasons.iter().find(|r| r.code == ContractCode::IllegalMeld) {
            return ActionError::IllegalMeld {
                meld: r.meld,
                reasons: r.meld_reasons.clone(),
            };
        }
        if reasons.iter().any(|r| r.code == ContractCode::AmbiguousMeld) {
            let ambiguous = melds
                .iter()
                .enumerate()
                .map(|(k, m)| (k, reading::analyse(self.rules(), m).readings))
                .find(|(_, r)| r.len() > 1);
            if let Some((k, readings)) = ambiguous {
                return ActionError::AmbiguousMeld {
                    meld: Some(k),
                    readings,
                };
            }
        }
        ActionError::ContractNotMet(reasons)
    }

    fn meld_index(&self, id: u32) -> Result<usize, ActionError> {
        self.table
            .iter()
            .position(|m| m.id == id)
            .ok_or(ActionError::UnknownMeld(id))
    }

    /// The variant's rule on which melds `seat` may swap a natural card into: `may_i` runs,
    /// `push` any meld, `contract_7` the seat's own runs. The cards decide the rest.
    pub(super) fn swap_rule(&self, seat: Seat, meld: &TableMeld) -> Result<(), ActionError> {
        match self.rules().wild_swap() {
            WildSwap::JokerToRunEnd if meld.owner != seat => Err(ActionError::NotYourMeld(meld.id)),
            WildSwap::InRuns if meld.reading.kind() != MeldKind::Run => Err(ActionError::Swap(
                reading::SwapError::NotAllowed("wilds in sets are never replaced"),
            )),
            _ => Ok(()),
        }
    }

    /// Whether `meld` holds a wild a natural card could take the place of: any wild, or in
    /// `contract_7` a joker of a run; never in a wild trio.
    pub(super) fn holds_swappable_wild(&self, meld: &TableMeld) -> bool {
        let joker_only = self.rules().wild_swap() == WildSwap::JokerToRunEnd;
        let reading = &meld.reading;
        let fits = !joker_only || reading.kind() == MeldKind::Run;
        fits && !reading.is_wild_trio()
            && reading
                .slots()
                .iter()
                .any(|s| !s.natural && (!joker_only || s.card.is_joker()))
    }

    /// Whether `seat` may move a joker at an end of `meld` to another run (`contract_7`): the
    /// same test [`Reading::take_end_joker`] applies when the move is made.
    pub(super) fn joker_movable(&self, seat: Seat, meld: &TableMeld) -> bool {
        let min = self.rules().min_len(MeldKind::Run);
        meld.owner == seat
            && [RunEnd::Low, RunEnd::High]
                .into_iter()
                .any(|end| meld.reading.take_end_joker(end, min).is_ok())
    }

    /// Lay-offs and swaps: the variant allows table play, the player is down, it is the play
    /// phase.
    fn require_table_play(&self, seat: Seat) -> Result<(), ActionError> {
        if self.rules().goes_out_all_at_once() {
            return Err(ActionError::NotInVariant(
                "continental has no lay-offs: go out all at once",
            ));
        }
        self.require_play()?;
        if !self.down[seat] {
            return Err(ActionError::NotDown);
        }
        Ok(())
    }

    fn lay_off(
        &mut self,
        seat: Seat,
        meld_id: u32,
        cards: &[Card],
        wilds: &[Designation],
        ev: &mut Vec<Event>,
    ) -> Result<(), ActionError> {
        self.require_table_play(seat)?;
        if cards.is_empty() {
            return Err(ActionError::NoCards);
        }
        let m = self.meld_index(meld_id)?;
        let i = seat.index();
        let mut hand = self.hands[i].clone();
        take_cards(&mut hand, cards)?;
        check_last_card(self.rules(), hand.len())?;
        let reading = self.table[m]
            .reading
            .lay_off(self.rules(), cards, wilds)
            .into_single()
            .map_err(|e| meld_error(None, e))?;
        // Recorded with every new wild pinned where it lies, so that making it again after an
        // earlier play is taken back puts it in the same place, or fails.
        let recorded = Action::LayOff {
            meld_id,
            cards: cards.to_vec(),
            wilds: reading.added_wilds(self.rules(), &self.table[m].reading),
        };
        self.note_table_play(seat, || recorded);
        self.hands[i] = hand;
        self.played_to_table(cards);
        self.public.played(seat, cards);
        self.table[m].reading = reading.clone();
        ev.push(Event::LaidOff {
            seat,
            meld_id,
            cards: cards.to_vec(),
            reading,
        });
        if self.hands[i].is_empty() {
            self.end_deal(DealEnd::WentOut { seat }, ev);
        }
        Ok(())
    }

    fn swap(
        &mut self,
        seat: Seat,
        meld_id: u32,
        card: Card,
        end: Option<RunEnd>,
        ev: &mut Vec<Event>,
    ) -> Result<(), ActionError> {
        self.require_table_play(seat)?;
        let m = self.meld_index(meld_id)?;
        let (hand, reading, freed) = self.swapped(seat, m, card, end)?;
        self.note_table_play(seat, || Action::Swap { meld_id, card, end });
        self.hands[seat.index()] = hand;
        self.played_to_table(&[card]);
        self.public.played(seat, &[card]);
        if let Some(f) = freed {
            self.turn_state.must_play.push(f);
            self.public.took(seat, f);
        }
        self.table[m].reading = reading.clone();
        ev.push(Event::Swapped {
            seat,
            meld_id,
            card,
            freed,
            reading,
        });
        Ok(())
    }

    /// What `seat` swapping `card` of its hand into the table's meld at index `m` would leave,
    /// whatever the turn: its hand, the meld's reading and the wild freed. The one test of a
    /// swap, for the move and for the hints.
    pub(super) fn swapped(
        &self,
        seat: Seat,
        m: usize,
        card: Card,
        end: Option<RunEnd>,
    ) -> Result<(Vec<Card>, Reading, Option<Card>), ActionError> {
        let mut hand = self.hands[seat.index()].clone();
        take_cards(&mut hand, &[card])?;
        let rules = self.rules().clone();
        self.swap_rule(seat, &self.table[m])?;
        let (reading, freed) = if rules.wild_swap() == WildSwap::JokerToRunEnd {
            // Contract_7 moves the joker to an end of a run the player dropped.
            check_last_card(self.rules(), hand.len())?;
            let r = self.table[m]
                .reading
                .move_joker_to_end(card, end)
                .map_err(ActionError::Swap)?;
            (r, None)
        } else {
            let (r, freed) = self.table[m]
                .reading
                .replace_wild(&rules, card)
                .map_err(ActionError::Swap)?;
            if !rules.takes_back() {
                // Without taking back (push), a rescue must never leave the turn unable to end: the
                // wild must fit on a meld of the table, or (new melds being allowed after the
                // contract, docs/rules.md#push-after-down) in a new meld with cards of the hand.
                let mut table: Vec<Reading> = self.table.iter().map(|t| t.reading.clone()).collect();
                table[m] = r.clone();
                let placeable = table.iter().any(|t| {
                    wild_places(t).into_iter().any(|place| {
                        t.lay_off(
                            &rules,
                            &[freed],
                            &[Designation {
                                card: freed,
                                represents: place,
                            }],
                        )
                        .is_legal()
                    })
                });
                if !placeable && meld_with(&rules, &hand, freed).is_none() {
                    return Err(ActionError::Swap(reading::SwapError::NotAllowed(
                        "the rescued wild could not be played anywhere on the table this turn",
                    )));
                }
            }
            hand.push(freed);
            (r, Some(freed))
        };
        Ok((hand, reading, freed))
    }

    fn move_joker(
        &mut self,
        seat: Seat,
        from_meld: u32,
        end: RunEnd,
        to_meld: u32,
        to_end: Option<RunEnd>,
        ev: &mut Vec<Event>,
    ) -> Result<(), ActionError> {
        if !self.rules().moves_jokers() {
            return Err(ActionError::NotInVariant(
                "only contract_7 moves jokers between runs",
            ));
        }
        self.require_table_play(seat)?;
        let from = self.meld_index(from_meld)?;
        let to = self.meld_index(to_meld)?;
        if self.table[from].owner != seat {
            return Err(ActionError::NotYourMeld(from_meld));
        }
        if from == to {
            return Err(ActionError::Swap(reading::SwapError::NotAllowed(
                "to move a joker within its run, swap a natural card for it",
            )));
        }
        let rules = self.rules().clone();
        let from_reading = self.table[from]
            .reading
            .take_end_joker(end, rules.min_len(MeldKind::Run))
            .map_err(ActionError::Swap)?;
        let target = &self.table[to].reading;
        if target.kind() != crate::reading::MeldKind::Run {
            return Err(ActionError::Swap(reading::SwapError::NotAllowed(
                "a joker moves only to another run",
            )));
        }
        let wilds: Vec<Designation> = match (to_end, target.suit(), target.span()) {
            (Some(e), Some(suit), Some((low, high))) => {
                let value = match e {
                    RunEnd::Low if low > 1 => low - 1,
                    RunEnd::High if high < 14 => high + 1,
                    _ => return Err(ActionError::Swap(reading::SwapError::EndBlocked)),
                };
                vec![Designation {
                    card: Card::JOKER,
                    represents: Stands::Card(Card::in_run(value, suit)),
                }]
            }
            _ => Vec::new(),
        };
        let to_reading = target
            .lay_off(&rules, &[Card::JOKER], &wilds)
            .into_single()
            .map_err(|e| meld_error(None, e))?;
        self.table[from].reading = from_reading.clone();
        self.table[to].reading = to_reading.clone();
        ev.push(Event::JokerMoved {
            seat,
            from_meld,
            end,
            to_meld,
            from_reading,
            to_reading,
        });
        Ok(())
    }

    /// Takes back every table play of this turn (`play` names the one asked for, when it was
    /// going down, which comes back whole with everything after it).
    fn take_back(&mut self, seat: Seat, play: Option<u32>, ev: &mut Vec<Event>) -> Result<(), ActionError> {
        self.check_take_back()?;
        let Some(snap) = self.turn_state.snapshot.take() else {
            return Err(ActionError::NothingToTakeBack);
        };
        let before = self.hands[seat].clone();
        self.restore(seat, *snap);
        self.turn_state.went_down = false;
        self.turn_state.plays.clear();
        self.push_took_back(seat, &before, play, ev);
        Ok(())
    }

    /// Takes back one play of this turn: the game goes back to just before it, and every
    /// later play of the turn is made again as it was. What comes out is the table as if the
    /// play had never been made; if a later play cannot be made again without it, the take
    /// back is refused, so nothing is ever stranded (docs/rules.md#taking-back).
    fn take_back_play(&mut self, seat: Seat, play: u32, ev: &mut Vec<Event>) -> Result<(), ActionError> {
        if !self.rules().takes_back() {
            return Err(ActionError::NotInVariant(
                "only may_i lets a player take back table plays",
            ));
        }
        self.require_play()?;
        let k = usize::try_from(play).map_err(|_| ActionError::UnknownPlay(play))?;
        let Some(target) = self.turn_state.plays.get(k).cloned() else {
            return Err(ActionError::UnknownPlay(play));
        };
        if matches!(target.action, Action::Meld { .. }) {
            // Going down comes back only whole, and every later play of the turn needed it.
            return self.take_back(seat, Some(play), ev);
        }
        let later: Vec<TurnPlay> = self.turn_state.plays[k + 1..].to_vec();
        let before = self.hands[seat].clone();
        let mut next = self.clone();
        next.restore(seat, target.before);
        next.turn_state.plays.truncate(k);
        if k == 0 {
            next.turn_state.snapshot = None;
        }
        for (j, p) in (k + 1..).zip(later) {
            let mut replayed = Vec::new();
            if next.act(seat, p.action, &mut replayed).is_err() || next.status != Status::Playing {
                return Err(ActionError::TakeBackBlocked {
                    play,
                    later: u32::try_from(j).expect("a turn holds few plays"),
                });
            }
        }
        // What the table knows changes only by what came back and what went back (below), not
        // by the plays made again.
        let public = std::mem::take(&mut self.public);
        *self = next;
        self.public = public;
        self.push_took_back(seat, &before, Some(play), ev);
        Ok(())
    }

    /// The event of a take back: cards that came back to hand, and freed wilds that went
    /// from hand back to the table.
    fn push_took_back(&mut self, seat: Seat, before: &[Card], play: Option<u32>, ev: &mut Vec<Event>) {
        let mut returned = self.hands[seat].clone();
        let mut to_table = before.to_vec();
        returned.retain(|c| match to_table.iter().position(|h| h == c) {
            Some(k) => {
                to_table.swap_remove(k);
                false
            }
            None => true,
        });
        // Everybody saw the returned cards on the table: they are known to be in the hand now.
        returned.iter().for_each(|c| self.public.took(seat, *c));
        self.public.played(seat, &to_table);
        ev.push(Event::TookBack {
            seat,
            cards: returned,
            to_table,
            play,
        });
    }

    /// `may_i`: this turn's table plays of `seat` (empty unless it is their turn), each with
    /// whether [`Action::TakeBack`] with a `play` would take it back now.
    pub fn turn_plays(&self, seat: Seat) -> Vec<TurnPlayView> {
        if seat != self.turn || self.phase != Phase::Play || self.status != Status::Playing {
            return Vec::new();
        }
        (0u32..)
            .zip(&self.turn_state.plays)
            .map(|(k, p)| {
                let can_take_back = self.apply(seat, Action::TakeBack { play: Some(k) }).is_ok();
                TurnPlayView {
                    play: k,
                    action: p.action.clone(),
                    can_take_back,
                }
            })
            .collect()
    }

    fn discard_card(&mut self, seat: Seat, card: Card, ev: &mut Vec<Event>) -> Result<(), ActionError> {
        self.check_discard()?;
        let i = seat.index();
        take_cards(&mut self.hands[i], &[card])?;
        self.public.discarded(seat, card);
        self.discard.push(card);
        self.dead = false;
        self.pending.clear();
        self.passed.clear();
        self.offer = self.rules().has_claims().then_some(Offer {
            card,
            discarder: Some(seat),
        });
        ev.push(Event::Discarded { seat, card });
        if self.hands[i].is_empty() {
            self.end_deal(DealEnd::WentOut { seat }, ev);
        } else {
            self.next_turn(seat);
        }
        Ok(())
    }

    fn next_turn(&mut self, after: Seat) {
        self.turn = self.next_active(after);
        self.phase = Phase::Draw;
        self.turn_state = TurnState::default();
    }

    fn leave(&mut self, seat: Seat, ev: &mut Vec<Event>) {
        let i = seat.index();
        self.active[i] = false;
        self.set_aside[i] = std::mem::take(&mut self.hands[i]);
        self.public.left(seat);
        self.pending.retain(|s| *s != seat);
        ev.push(Event::Left { seat });
        if self.active_count() < 2 {
            self.finish(ev);
            return;
        }
        if self.turn == seat {
            self.next_turn(seat);
            // The new player in turn cannot claim the discard they may simply take.
            let turn = self.turn;
            if self.pending.contains(&turn) {
                self.pending.retain(|s| *s != turn);
                ev.push(Event::ClaimRefused {
                    seat: turn,
                    reason: "taken".into(),
                });
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::bot::Level;
    use crate::{GameConfig, Seed, Variant};

    /// Actions to try on `game`: each seat's bot move and a spread of moves the rules take or
    /// refuse (draws, claims, every discard, lay-offs of single cards, a meld of any three).
    fn tries(game: &Game) -> Vec<(Seat, Action)> {
        let (turn, _) = game.turn().expect("playing");
        let mut out = Vec::new();
        for i in 0..game.players() {
            let seat = Game::seat_of(i);
            if let Some(a) = game.bot_choice(seat, Level::Normal) {
                out.push((seat, a));
            }
            out.push((seat, Action::Claim {}));
        }
        let hand = game.hand(turn);
        for source in [DrawSource::Stock, DrawSource::Discard] {
            out.push((turn, Action::Draw { source }));
        }
        for &card in hand {
            out.push((turn, Action::Discard { card }));
            for m in game.table() {
                out.push((
                    turn,
                    Action::LayOff {
                        meld_id: m.id,
                        cards: vec![card],
                        wilds: Vec::new(),
                    },
                ));
            }
        }
        out.push((
            turn,
            Action::Meld {
                melds: vec![ProposedMeld {
                    cards: hand.iter().take(3).copied().collect(),
                    kind: None,
                    wilds: Vec::new(),
                }],
            },
        ));
        out.push((turn, Action::TakeBack { play: None }));
        out.push((turn, Action::Discard { card: Card::JOKER }));
        out
    }

    #[test]
    fn apply_in_place_is_apply_and_a_refusal_changes_nothing() {
        let mut accepted = 0;
        let mut refused = 0;
        for variant in Variant::ALL {
            let config = GameConfig::new(Ruleset::default_for(variant), 4);
            let (mut game, _) = Game::new(config, Seed::from_u64(11)).expect("setup");
            for _ in 0..150 {
                if game.status() != Status::Playing {
                    break;
                }
                let mut next = None;
                for (seat, action) in tries(&game) {
                    let mut in_place = game.clone();
                    let mut events = Vec::new();
                    let got = in_place.apply_in_place(seat, action.clone(), &mut events);
                    match game.apply(seat, action.clone()) {
                        Ok((after, expected)) => {
                            assert_eq!(got, Ok(()), "{variant}: {action:?} by {seat}");
                            assert!(
                                in_place == after,
                                "{variant}: {action:?} by {seat}: the same game"
                            );
                            assert_eq!(events, expected, "{variant}: {action:?} by {seat}");
                            accepted += 1;
                            next.get_or_insert(after);
                        }
                        Err(e) => {
                            assert_eq!(got, Err(e), "{variant}: {action:?} by {seat}");
                            assert!(
                                in_place == game,
                                "{variant}: refused {action:?} by {seat} changed the game"
                            );
                            refused += 1;
                        }
                    }
                }
                game = next.expect("a bot or a draw moves the game on");
            }
        }
        assert!(
            accepted > 100 && refused > 1000,
            "{accepted} accepted, {refused} refused"
        );
    }

    #[test]
    fn hints_up_to_are_the_first_of_the_hints() {
        let mut compared = 0;
        for variant in Variant::ALL {
            let config = GameConfig::new(Ruleset::default_for(variant), 4);
            let (mut game, _) = Game::new(config, Seed::from_u64(12)).expect("setup");
            while game.status() == Status::Playing {
                for i in 0..game.players() {
                    let seat = Game::seat_of(i);
                    let all = game.hints(seat);
                    let first = game.hints_up_to(seat, 1);
                    assert_eq!(first.contract, all.contract, "{variant}");
                    assert_eq!(first.discard, all.discard, "{variant}");
                    assert_eq!(
                        first.layoffs[..],
                        all.layoffs[..all.layoffs.len().min(1)],
                        "{variant}"
                    );
                    compared += usize::from(all.layoffs.len() > 1);
                }
                let (turn, _) = game.turn().expect("playing");
                let action = game.bot_choice(turn, Level::Normal).expect("a bot in turn acts");
                game = game.apply(turn, action).expect("bots play legally").0;
            }
        }
        assert!(compared > 10, "hands with more than one lay-off: {compared}");
    }
}
