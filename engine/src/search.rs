//! Searching a hand: melds that fulfil the contract, `continental`'s way out, and lay-offs.
//!
//! The search works on card counts, not on card lists: two `7H` are the same card, and wilds
//! are fungible, so a candidate meld is "these naturals, and this many wilds". Which wild
//! goes where is decided only once a whole answer is found, and every meld of the answer is
//! then read by [`analyse`](crate::analyse) with its kind and every wild designated, and the
//! whole by [`check_contract`](crate::check_contract): what the search returns is exactly what
//! the game accepts.

use std::collections::HashSet;

use crate::card::{Card, DISTINCT_CARDS, Rank, Suit};
use crate::contract::{self, Contract, GO_OUT_CARDS, GO_OUT_PATTERNS, Requirement};
use crate::reading::{self, Designation, MAX_RUN, MeldKind, ProposedMeld, Reading, Stands};
use crate::ruleset::{RanklessSet, Ruleset, WildLimit};

/// `continental`: how to go out.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct GoOut {
    /// The sequences laid down, already cut to one of the patterns (15 cards).
    pub melds: Vec<Reading>,
    /// The card to discard when the hand held 16; `None` for a hand of 15.
    pub discard: Option<Card>,
}

/// One card of a hand that can be laid off on a meld of the table.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Layoff {
    /// Index of the meld in the table given to [`find_layoffs`].
    pub meld: usize,
    /// The card from the hand.
    pub card: Card,
    /// The meld as it would lie with the card laid off.
    pub reading: Reading,
}

type Counts = [u8; DISTINCT_CARDS];

/// A meld being planned: its naturals, and holes for wilds not yet chosen.
#[derive(Clone, Debug)]
struct Plan {
    kind: MeldKind,
    /// A set's rank; `None` for an all-wild set.
    rank: Option<Rank>,
    /// A run's suit and the value (1..=14) of its first place.
    suit: Suit,
    low: u8,
    /// Runs: one entry per place, low to high. Sets: the naturals, then the holes.
    places: Vec<Option<Card>>,
}

impl Plan {
    fn holes(&self) -> usize {
        self.places.iter().filter(|p| p.is_none()).count()
    }
}

/// What the search needs to know about the rules, computed once.
struct Search<'a> {
    rules: &'a Ruleset,
    wild: [bool; DISTINCT_CARDS],
    wild_indices: Vec<usize>,
    /// States (step, counts, wilds owed, lengths left) known to lead nowhere.
    dead: HashSet<(u8, Counts, u8, [u8; 3]), std::hash::BuildHasherDefault<WordHasher>>,
}

impl<'a> Search<'a> {
    fn new(rules: &'a Ruleset) -> Search<'a> {
        let mut wild = [false; DISTINCT_CARDS];
        for (i, w) in wild.iter_mut().enumerate() {
            *w = rules.is_wild(Card::from_index(i));
        }
        let wild_indices = (0..DISTINCT_CARDS).filter(|&i| wild[i]).collect();
        Search {
            rules,
            wild,
            wild_indices,
            dead: HashSet::default(),
        }
    }

    fn wilds_left(&self, counts: &Counts) -> usize {
        self.wild_indices.iter().map(|&i| usize::from(counts[i])).sum()
    }

    /// The fewest naturals a meld of `len` cards needs (all-wild melds are planned apart).
    fn min_naturals(&self, len: usize) -> usize {
        match self.rules.wild_limit() {
            WildLimit::NotMoreThanNaturals => len.div_ceil(2),
            WildLimit::AtLeastOneNatural | WildLimit::Any => 1,
        }
    }

    /// Every plan of a meld of `kind` with exactly `len` cards from `counts`, with at most
    /// `budget` holes. Plans using the same naturals and as many holes are equivalent for
    /// the search, so only one of them is kept. Plans with fewer holes come first.
    fn plans(&self, kind: MeldKind, len: usize, counts: &Counts, budget: usize) -> Vec<Plan> {
        let mut out = Vec::new();
        if len == 0 || len > MAX_RUN {
            return out;
        }
        let min_nat = self.min_naturals(len).max(len.saturating_sub(budget));
        match kind {
            MeldKind::Set => {
                for rank in Rank::ALL {
                    let pool: [u8; 4] =
                        Suit::ALL.map(|suit| counts[Card::new(rank, suit).index()].min(len as u8));
                    let total: usize = pool.iter().map(|&c| usize::from(c)).sum();
                    for k in (min_nat..=len.min(total)).rev() {
                        let mut pick = [0u8; 4];
                        pick_suits(&pool, k, 0, &mut pick, &mut |pick| {
                            let mut places = Vec::with_capacity(len);
                            for (suit, &n) in Suit::ALL.iter().zip(pick) {
                                places.extend(std::iter::repeat_n(Some(Card::new(rank, *suit)), n.into()));
                            }
                            places.resize(len, None);
                            out.push(Plan {
                                kind,
                                rank: Some(rank),
                                suit: Suit::Clubs,
                                low: 0,
                                places,
                            });
                        });
                    }
                }
            }
            MeldKind::Run => {
                for suit in Suit::ALL {
                    for low in 1..=(15 - len) as u8 {
                        let cards: Vec<Card> = (0..len as u8).map(|i| Card::in_run(low + i, suit)).collect();
                        let present: Vec<usize> =
                            (0..len).filter(|&i| counts[cards[i].index()] > 0).collect();
                        if present.len() < min_nat {
                            continue;
                        }
                        // Subsets of the present places used as naturals, largest first.
                        let mut subsets: Vec<u32> = (0u32..1 << present.len())
                            .filter(|m| m.count_ones() as usize >= min_nat)
                            .collect();
                        subsets.sort_by_key(|m| std::cmp::Reverse(m.count_ones()));
                        for mask in subsets {
                            let mut places = vec![None; len];
                            for (bit, &i) in present.iter().enumerate() {
                                if mask & (1 << bit) != 0 {
                                    places[i] = Some(cards[i]);
                                }
                            }
                            out.push(Plan {
                                kind,
                                rank: None,
                                suit,
                                low,
                                places,
                            });
                        }
                    }
                }
            }
        }
        if self.rules.all_wild_allowed(kind) && len <= budget {
            out.push(self.all_wild(kind, len));
        }
        // Same naturals, same holes: the same for the search. (The naturals as counts of
        // each card, three bits each, 21 to a word, as `Naturals`: at most four of a card.)
        let mut seen: HashSet<[u64; 3], std::hash::BuildHasherDefault<WordHasher>> = HashSet::default();
        out.retain(|p| {
            let mut key = [0u64; 3];
            for c in p.places.iter().flatten() {
                key[c.index() / 21] += 1 << (3 * (c.index() % 21));
            }
            seen.insert(key)
        });
        out.sort_by_key(Plan::holes);
        out
    }

    /// A bound on the naturals that `k` melds of `kind`, `len` cards each, hold between them
    /// in any plans of [`Search::plans`] from `counts`: never fewer, quick to reckon, and
    /// enough to tell most hands that cannot meet a contract without searching them. A set
    /// holds at most `len` of its rank's cards, a run one card at each of its places; the
    /// bound adds the best `k` of those, a rank or a window counted again for its cards left
    /// over (two packs hold two of a card), overlapping windows each with all of theirs.
    fn most_naturals(&self, kind: MeldKind, len: usize, k: usize, counts: &Counts) -> usize {
        if len == 0 || len > MAX_RUN || k == 0 {
            return 0;
        }
        let mut each: Vec<usize> = Vec::new();
        match kind {
            MeldKind::Set => {
                for rank in Rank::ALL {
                    let mut held: usize = Suit::ALL
                        .iter()
                        .map(|&suit| usize::from(counts[Card::new(rank, suit).index()]))
                        .sum();
                    for _ in 0..k {
                        if held == 0 {
                            break;
                        }
                        each.push(held.min(len));
                        held = held.saturating_sub(len);
                    }
                }
            }
            MeldKind::Run => {
                let window = (1u16 << len) - 1;
                for suit in Suit::ALL {
                    for copy in 1..=k {
                        // Bit `v` for each run value 1..=14 held at least `copy` times.
                        let held = (1..=14u8)
                            .filter(|&v| usize::from(counts[Card::in_run(v, suit).index()]) >= copy)
                            .fold(0u16, |bits, v| bits | 1 << v);
                        if held == 0 {
                            break;
                        }
                        for low in 1..=(15 - len) as u8 {
                            let places = (held >> low & window).count_ones() as usize;
                            if places > 0 {
                                each.push(places);
                            }
                        }
                    }
                }
            }
        }
        each.sort_unstable_by(|a, b| b.cmp(a));
        each.iter().take(k).sum()
    }

    /// Whether melds of `reqs` might be planned from `counts` with `owed` wilds already
    /// promised: their places beyond [`Search::most_naturals`] are no more than the wilds
    /// left. `false` only where no plans of theirs fit together: the search would find
    /// nothing there.
    fn might_hold(&self, reqs: &[Requirement], counts: &Counts, owed: usize) -> bool {
        let mut places = 0;
        let mut naturals = 0;
        for (i, req) in reqs.iter().enumerate() {
            places += req.min_len;
            if reqs[..i].contains(req) {
                continue;
            }
            let k = reqs.iter().filter(|r| *r == req).count();
            naturals += self.most_naturals(req.kind, req.min_len, k, counts);
        }
        places + owed <= naturals + self.wilds_left(counts)
    }

    /// A meld of wilds only: sets of kings, runs of spades from the three (any will do).
    fn all_wild(&self, kind: MeldKind, len: usize) -> Plan {
        let low = if len + 2 <= 14 { 3 } else { 1 };
        Plan {
            kind,
            rank: (kind == MeldKind::Set && !self.rules.has_wild_trio()).then_some(Rank::King),
            suit: Suit::Spades,
            low,
            places: vec![None; len],
        }
    }

    /// Chooses wilds for the holes of `plans` from `counts` and reads every meld through
    /// [`reading::read`]. `None` if a meld does not read as exactly one reading.
    fn realise(&self, plans: &[Plan], counts: &Counts) -> Option<Vec<Reading>> {
        // Suited wilds (red aces, deuces) first: they may land where they stand for themselves.
        let mut pool: Vec<Card> = Vec::new();
        for &i in &self.wild_indices {
            pool.extend(std::iter::repeat_n(Card::from_index(i), counts[i].into()));
        }
        let mut pool = pool.into_iter();
        let mut readings = Vec::with_capacity(plans.len());
        for plan in plans {
            let mut cards = Vec::with_capacity(plan.places.len());
            let mut wilds = Vec::new();
            for (i, place) in plan.places.iter().enumerate() {
                let card = match place {
                    Some(c) => *c,
                    None => pool.next()?,
                };
                cards.push(card);
                if self.wild[card.index()] {
                    let represents = match (plan.kind, plan.rank) {
                        (MeldKind::Run, _) => Stands::Card(Card::in_run(plan.low + i as u8, plan.suit)),
                        (MeldKind::Set, Some(rank)) => Stands::Rank(rank),
                        (MeldKind::Set, None) => Stands::Any,
                    };
                    wilds.push(Designation { card, represents });
                }
            }
            let proposal = ProposedMeld {
                cards,
                kind: Some(plan.kind),
                wilds,
            };
            readings.push(reading::read(self.rules, &proposal).ok()?);
        }
        Some(readings)
    }

    /// Depth-first over the contract's requirements, every answer met handed to `found` until
    /// it says it has enough (`false`); `chosen` holds the plans so far. Whether anything was
    /// met below.
    fn contracts(
        &mut self,
        reqs: &[Requirement],
        step: usize,
        counts: &mut Counts,
        owed: usize,
        chosen: &mut Vec<Plan>,
        found: &mut dyn FnMut(Vec<Reading>) -> bool,
    ) -> Option<bool> {
        let Some(req) = reqs.get(step) else {
            let readings = self.realise(chosen, counts)?;
            let readings = contract::check(self.rules, &Contract::Melds(reqs.to_vec()), &readings).ok()?;
            return Some(found(readings));
        };
        let key = (step as u8, *counts, owed as u8, [0; 3]);
        if self.dead.contains(&key) {
            return None;
        }
        let mut any = false;
        let cards_left: usize = counts.iter().map(|&c| usize::from(c)).sum::<usize>() - owed;
        let still_needed: usize = reqs[step..].iter().map(|r| r.min_len).sum();
        if cards_left >= still_needed && self.might_hold(&reqs[step..], counts, owed) {
            let budget = self.wilds_left(counts) - owed;
            for plan in self.plans(req.kind, req.min_len, counts, budget) {
                take(counts, &plan);
                let holes = plan.holes();
                let affordable = owed + holes <= self.wilds_left(counts);
                chosen.push(plan);
                let more = if affordable {
                    self.contracts(reqs, step + 1, counts, owed + holes, chosen, found)
                } else {
                    None
                };
                let plan = chosen.pop().expect("the plan just pushed");
                give_back(counts, &plan);
                match more {
                    Some(false) => return Some(false),
                    Some(true) => any = true,
                    None => {}
                }
            }
        }
        if any {
            Some(true)
        } else {
            self.dead.insert(key);
            None
        }
    }

    /// Depth-first cover of `counts` by runs whose lengths make one of the patterns (`used`
    /// counts the 3-, 4- and 5-card pieces placed so far). Each step places the piece holding
    /// the first natural card left, or (once, with `may_discard`) discards it, so every cover
    /// is met once. The answer is the readings and the discard.
    fn go_out(
        &mut self,
        counts: &mut Counts,
        owed: usize,
        used: [u8; 3],
        may_discard: bool,
        chosen: &mut Vec<Plan>,
    ) -> Option<(Vec<Reading>, Option<Card>)> {
        let key = (u8::from(may_discard), *counts, owed as u8, used);
        if self.dead.contains(&key) {
            return None;
        }
        let anchor = (0..DISTINCT_CARDS).find(|&i| counts[i] > 0 && !self.wild[i]);
        if anchor.is_none() && GO_OUT_PATTERNS.iter().any(|p| pattern_counts(p) == used) {
            let rest: usize = counts.iter().map(|&c| usize::from(c)).sum();
            if rest == owed + usize::from(may_discard) {
                // A spare wild is the discard: a deuce before a joker, which pays more laid.
                let discard = may_discard
                    .then(|| self.wild_indices.iter().copied().find(|&i| counts[i] > 0))
                    .flatten();
                if let Some(i) = discard {
                    counts[i] -= 1;
                }
                let readings = self.realise(chosen, counts);
                if let Some(i) = discard {
                    counts[i] += 1;
                }
                let found = readings.filter(|r| contract::check(self.rules, &Contract::GoOut, r).is_ok());
                if let Some(readings) = found {
                    return Some((readings, discard.map(Card::from_index)));
                }
            }
        }
        let room: [bool; 3] = [0, 1, 2].map(|l| {
            let mut more = used;
            more[l] += 1;
            GO_OUT_PATTERNS.iter().any(|p| {
                let p = pattern_counts(p);
                (0..3).all(|i| more[i] <= p[i])
            })
        });
        let plans = match anchor {
            Some(i) => self.pieces_through(Card::from_index(i), counts, owed, room),
            None => self.wild_pieces(counts, owed, room),
        };
        for plan in plans {
            let len = plan.places.len();
            take(counts, &plan);
            let holes = plan.holes();
            let mut next = used;
            next[len - 3] += 1;
            let affordable = owed + holes <= self.wilds_left(counts);
            chosen.push(plan);
            let found = if affordable {
                self.go_out(counts, owed + holes, next, may_discard, chosen)
            } else {
                None
            };
            let plan = chosen.pop().expect("the plan just pushed");
            give_back(counts, &plan);
            if found.is_some() {
                return found;
            }
        }
        if let (Some(i), true) = (anchor, may_discard) {
            counts[i] -= 1;
            let found = self.go_out(counts, owed, used, false, chosen);
            counts[i] += 1;
            if let Some((readings, _)) = found {
                return Some((readings, Some(Card::from_index(i))));
            }
        }
        self.dead.insert(key);
        None
    }

    /// Runs of the lengths left that hold the natural `anchor` in its own place.
    fn pieces_through(&self, anchor: Card, counts: &Counts, owed: usize, room: [bool; 3]) -> Vec<Plan> {
        let (Some(rank), Some(suit)) = (anchor.rank(), anchor.suit()) else {
            return Vec::new();
        };
        let budget = self.wilds_left(counts).saturating_sub(owed);
        let values: &[u8] = if rank == Rank::Ace {
            &[1, 14]
        } else {
            &[rank.number()]
        };
        let mut out = Vec::new();
        for len in (3..=5usize).rev().filter(|l| room[l - 3]) {
            for &value in values {
                let lowest = value.saturating_sub(len as u8 - 1).max(1);
                let highest = value.min((15 - len) as u8);
                for low in lowest..=highest {
                    let cards: Vec<Card> = (0..len as u8).map(|i| Card::in_run(low + i, suit)).collect();
                    let at = usize::from(value - low);
                    let mut rest = *counts;
                    rest[anchor.index()] -= 1;
                    let present: Vec<usize> = (0..len)
                        .filter(|&i| i != at && rest[cards[i].index()] > 0)
                        .collect();
                    for mask in (0u32..1 << present.len()).rev() {
                        let holes = len - 1 - mask.count_ones() as usize;
                        if holes > budget {
                            continue;
                        }
                        let mut places = vec![None; len];
                        places[at] = Some(anchor);
                        for (bit, &i) in present.iter().enumerate() {
                            if mask & (1 << bit) != 0 {
                                places[i] = Some(cards[i]);
                            }
                        }
                        out.push(Plan {
                            kind: MeldKind::Run,
                            rank: None,
                            suit,
                            low,
                            places,
                        });
                    }
                }
            }
        }
        out
    }

    /// Only wilds left: each piece needs a suited wild standing for itself (a deuce in its
    /// own place) as its natural card; the rest of it is wilds.
    fn wild_pieces(&self, counts: &Counts, owed: usize, room: [bool; 3]) -> Vec<Plan> {
        let mut out = Vec::new();
        for len in (3..=5usize).filter(|l| room[l - 3]) {
            if self.wilds_left(counts) < owed + len {
                continue;
            }
            for &i in &self.wild_indices {
                let card = Card::from_index(i);
                let (Some(rank), Some(suit)) = (card.rank(), card.suit()) else {
                    continue;
                };
                if counts[i] == 0 {
                    continue;
                }
                let value = rank.number();
                let low = value.saturating_sub(len as u8 - 1).max(1);
                let mut places = vec![None; len];
                places[usize::from(value - low)] = Some(card);
                out.push(Plan {
                    kind: MeldKind::Run,
                    rank: None,
                    suit,
                    low,
                    places,
                });
            }
        }
        out
    }
}

/// A pattern as counts of 3-, 4- and 5-card pieces.
fn pattern_counts(pattern: &[usize]) -> [u8; 3] {
    let mut counts = [0u8; 3];
    for &len in pattern {
        counts[len - 3] += 1;
    }
    counts
}

/// Calls `emit` with each way to take `k` cards from the per-suit `pool`.
fn pick_suits(pool: &[u8; 4], k: usize, suit: usize, pick: &mut [u8; 4], emit: &mut dyn FnMut(&[u8; 4])) {
    if suit == 4 {
        if k == 0 {
            emit(pick);
        }
        return;
    }
    let most = usize::from(pool[suit]).min(k);
    for n in (0..=most).rev() {
        pick[suit] = n as u8;
        pick_suits(pool, k - n, suit + 1, pick, emit);
    }
    pick[suit] = 0;
}

fn take(counts: &mut Counts, plan: &Plan) {
    for card in plan.places.iter().flatten() {
        counts[card.index()] -= 1;
    }
}

fn give_back(counts: &mut Counts, plan: &Plan) {
    for card in plan.places.iter().flatten() {
        counts[card.index()] += 1;
    }
}

fn counts_of(hand: &[Card]) -> Counts {
    let mut counts = [0u8; DISTINCT_CARDS];
    for c in hand {
        counts[c.index()] = counts[c.index()].saturating_add(1);
    }
    counts
}

/// The suited card of `suit` at run value `value` (1 and 14 are both the ace).
/// Melds from `hand` that fulfil deal `deal`'s contract, if any: each meld as short as the
/// contract allows. In `continental` this is [`find_go_out`]'s melds.
///
/// Every reading is what [`analyse`](crate::analyse) gives for its cards with its kind and
/// wilds designated, and together they pass [`check_contract`](crate::check_contract).
/// Melds use as few wilds as the search can see at each step; which wild card fills which
/// place is not optimised for scoring. Hands of more than 255 cards are not searched.
pub fn find_contract(rules: &Ruleset, deal: u8, hand: &[Card]) -> Option<Vec<Reading>> {
    let reqs = match rules.contract(deal) {
        Contract::GoOut => return find_go_out(rules, hand).map(|g| g.melds),
        Contract::Melds(reqs) => reqs,
    };
    if hand.len() < reqs.iter().map(|r| r.min_len).sum() || hand.len() > usize::from(u8::MAX) {
        return None;
    }
    // Runs first: they are the most constrained, so dead ends show early.
    let mut reqs = reqs;
    reqs.sort_by_key(|r| (r.kind != MeldKind::Run, std::cmp::Reverse(r.min_len)));
    let mut search = Search::new(rules);
    let mut counts = counts_of(hand);
    let mut first = None;
    search.contracts(&reqs, 0, &mut counts, 0, &mut Vec::new(), &mut |readings| {
        first = Some(readings);
        false
    });
    first
}

/// Up to `most` ways to meet deal `deal`'s contract from `hand` that leave different cards in
/// the hand, in the order of [`find_contract`]'s search (its answer first when there is one):
/// what a player weighing which cards to keep looks through. Empty in `continental` and for a
/// hand that holds no contract. Each is as [`find_contract`] describes.
pub(crate) fn find_contracts(rules: &Ruleset, deal: u8, hand: &[Card], most: usize) -> Vec<Vec<Reading>> {
    let Contract::Melds(reqs) = rules.contract(deal) else {
        return Vec::new();
    };
    if most == 0 || hand.len() < reqs.iter().map(|r| r.min_len).sum() || hand.len() > usize::from(u8::MAX) {
        return Vec::new();
    }
    let mut reqs = reqs;
    reqs.sort_by_key(|r| (r.kind != MeldKind::Run, std::cmp::Reverse(r.min_len)));
    let mut search = Search::new(rules);
    let mut counts = counts_of(hand);
    let mut out: Vec<Vec<Reading>> = Vec::new();
    let mut kept: Vec<Counts> = Vec::new();
    // Answers that differ only in how the same cards are grouped come often: a few times as
    // many as wanted are looked at, no more.
    let mut met = 0;
    search.contracts(&reqs, 0, &mut counts, 0, &mut Vec::new(), &mut |melds| {
        met += 1;
        let laid = counts_of(&melds.iter().flat_map(Reading::cards).collect::<Vec<_>>());
        if !kept.contains(&laid) {
            kept.push(laid);
            out.push(melds);
        }
        out.len() < most && met < 8 * most
    });
    out
}

/// `continental`: a way to lay down 15 cards of `hand` (15 or 16 cards) as a going-out
/// pattern, and the card left to discard when the hand has 16. `None` when there is none,
/// or in another variant.
pub fn find_go_out(rules: &Ruleset, hand: &[Card]) -> Option<GoOut> {
    if !rules.goes_out_all_at_once() || !(GO_OUT_CARDS..=GO_OUT_CARDS + 1).contains(&hand.len()) {
        return None;
    }
    let mut search = Search::new(rules);
    let mut counts = counts_of(hand);
    let may_discard = hand.len() > GO_OUT_CARDS;
    search
        .go_out(&mut counts, 0, [0; 3], may_discard, &mut Vec::new())
        .map(|(melds, discard)| GoOut { melds, discard })
}

/// `continental`: how many cards `hand` is short of going out, the fewest it must still draw
/// (and discard as many) before it holds a way out, were every card it needs to come: 15 less
/// its wilds and the most naturals one of the patterns can hold at their places (the places
/// left over are the wilds' and the missing cards'). 0 for a hand that goes out now; in
/// another variant, 0.
///
/// A bot's measure of a hand, not a promise: the missing cards may be gone from the game.
pub fn go_out_shortfall(rules: &Ruleset, hand: &[Card]) -> usize {
    if !rules.goes_out_all_at_once() {
        return 0;
    }
    let mut naturals = Naturals::default();
    let mut wilds = 0usize;
    for &c in hand {
        if rules.is_wild(c) {
            wilds += 1;
        } else {
            naturals.add(c.index());
        }
    }
    let mut memo = Placed::default();
    let placed = most_placed(&mut naturals, [0; 3], &mut memo);
    GO_OUT_CARDS.saturating_sub(placed + wilds)
}

/// How many cards `hand` is short of deal `deal`'s contract, the fewest it must still draw
/// before it could hold it, were every card it needs to come: in `continental`,
/// [`go_out_shortfall`]; elsewhere the contract's cards (each meld at its shortest) less the
/// most of them the hand fills, over every placement of the melds (each set's rank, or none
/// where a set may be all wild; each run's suit and first place): its cards at the places
/// they stand for themselves (a wild too, as docs/rules.md#wilds counts it), then its other
/// wilds in the places left, as many to a meld as the wild limit lets it hold beside naturals
/// (the missing cards are naturals, or wilds for an all-wild set). 0 when the hand fills
/// every place.
///
/// A measure, as [`go_out_shortfall`] is, not a promise: the missing cards may be gone from
/// the game. Its work is bounded by the contract, not the hand: at most three melds of at
/// most 48 placements each, every placement a pass over the melds' places.
pub fn contract_shortfall(rules: &Ruleset, deal: u8, hand: &[Card]) -> usize {
    let reqs = match rules.contract(deal) {
        Contract::GoOut => return go_out_shortfall(rules, hand),
        Contract::Melds(reqs) => reqs,
    };
    let mut held = Held {
        counts: counts_of(hand),
        wild: [false; DISTINCT_CARDS],
        wilds: 0,
    };
    for (i, w) in held.wild.iter_mut().enumerate() {
        *w = rules.is_wild(Card::from_index(i));
        if *w {
            held.wilds += usize::from(held.counts[i]);
        }
    }
    // Runs first: a run takes one card of a place, a set any card of its rank, so runs
    // choosing first never leave less placed.
    let mut reqs = reqs;
    reqs.sort_by_key(|r| (r.kind != MeldKind::Run, r.min_len));
    let places: Vec<Vec<Placement>> = reqs.iter().map(|r| placements(rules, r)).collect();
    let need: usize = reqs.iter().map(|r| r.min_len).sum();
    let mut chosen = Vec::with_capacity(reqs.len());
    let best = best_placement(rules, &reqs, &places, &mut held, &mut chosen);
    need.saturating_sub(best)
}

/// A hand as [`contract_shortfall`] places it: its counts, which cards are wild, and how many
/// wilds it holds.
struct Held {
    counts: Counts,
    wild: [bool; DISTINCT_CARDS],
    wilds: usize,
}

/// Where a meld of a contract may lie: a set's rank, a set of wilds only, or a run's suit and
/// first value.
#[derive(Clone, Copy)]
enum Placement {
    Set(Rank),
    AllWild,
    Run(Suit, u8),
}

fn placements(rules: &Ruleset, req: &Requirement) -> Vec<Placement> {
    match req.kind {
        MeldKind::Set if !rules.sets_allowed() => Vec::new(),
        MeldKind::Set => {
            let mut out: Vec<Placement> = Rank::ALL.into_iter().map(Placement::Set).collect();
            if rules.rankless_set().is_some() {
                out.push(Placement::AllWild);
            }
            out
        }
        MeldKind::Run => {
            // Values 1 (the ace low) to 14 (the ace high).
            let len = u8::try_from(req.min_len.min(MAX_RUN)).unwrap_or(u8::MAX);
            Suit::ALL
                .into_iter()
                .flat_map(|suit| (1..=15u8.saturating_sub(len)).map(move |low| Placement::Run(suit, low)))
                .collect()
        }
    }
}

/// The most places of the melds `reqs` that the hand fills, with `chosen` (requirement,
/// placement) placed so far. Two equal requirements take their placements in order, so that
/// no pair is tried twice.
fn best_placement(
    rules: &Ruleset,
    reqs: &[Requirement],
    places: &[Vec<Placement>],
    held: &mut Held,
    chosen: &mut Vec<(usize, usize)>,
) -> usize {
    let step = chosen.len();
    if step == reqs.len() {
        return filled(rules, reqs, places, held, chosen);
    }
    let from = match chosen.last() {
        Some(&(_, last)) if reqs[step - 1] == reqs[step] => last,
        _ => 0,
    };
    let all: usize = reqs.iter().map(|r| r.min_len).sum();
    let mut best = 0;
    for at in from..places[step].len() {
        chosen.push((step, at));
        best = best.max(best_placement(rules, reqs, places, held, chosen));
        chosen.pop();
        if best == all {
            break;
        }
    }
    best
}

/// The places of one placement of every meld that the hand fills: cards at their own places
/// run by run, then set by set (`reqs` holds the runs first; a set takes naturals before a
/// wild of its rank), then the wilds left, up to each meld's limit.
fn filled(
    rules: &Ruleset,
    reqs: &[Requirement],
    places: &[Vec<Placement>],
    held: &mut Held,
    chosen: &[(usize, usize)],
) -> usize {
    let mut taken: Vec<usize> = Vec::with_capacity(40);
    let mut placed = 0;
    let mut room = 0;
    let mut wilds_placed = 0;
    let mut take = |held: &mut Held, i: usize, taken: &mut Vec<usize>| {
        held.counts[i] -= 1;
        taken.push(i);
        if held.wild[i] {
            wilds_placed += 1;
        }
    };
    for &(step, at) in chosen {
        let len = reqs[step].min_len;
        let mut here = 0;
        let all_wild = matches!(places[step][at], Placement::AllWild);
        match places[step][at] {
            Placement::Run(suit, low) => {
                let len = u8::try_from(len).unwrap_or(u8::MAX);
                for value in low..low.saturating_add(len).min(15) {
                    let i = Card::in_run(value, suit).index();
                    if held.counts[i] > 0 {
                        take(held, i, &mut taken);
                        here += 1;
                    }
                }
            }
            Placement::Set(rank) => {
                for wild in [false, true] {
                    for suit in Suit::ALL {
                        let i = Card::new(rank, suit).index();
                        while here < len && held.wild[i] == wild && held.counts[i] > 0 {
                            take(held, i, &mut taken);
                            here += 1;
                        }
                    }
                }
            }
            Placement::AllWild => {}
        }
        let most_wilds = match rules.wild_limit() {
            _ if all_wild => len,
            WildLimit::NotMoreThanNaturals => len / 2,
            WildLimit::AtLeastOneNatural => len - 1,
            WildLimit::Any => len,
        };
        placed += here;
        room += most_wilds.min(len - here);
    }
    for i in taken {
        held.counts[i] += 1;
    }
    placed + room.min(held.wilds - wilds_placed)
}

/// The natural cards of a hand as counts of each of the 52 suited cards, three bits each
/// (four packs at most put four of a card in a hand), 21 to a word: small to copy and to hash
/// as a key of [`most_placed`]'s table.
#[derive(Clone, Copy, Default, PartialEq, Eq, Hash)]
struct Naturals([u64; 3]);

impl Naturals {
    fn count(self, i: usize) -> u64 {
        (self.0[i / 21] >> (3 * (i % 21))) & 7
    }
    fn add(&mut self, i: usize) {
        if self.count(i) < 7 {
            self.0[i / 21] += 1 << (3 * (i % 21));
        }
    }
    fn remove(&mut self, i: usize) {
        self.0[i / 21] -= 1 << (3 * (i % 21));
    }
    /// The lowest card (by [`Card::index`]) held.
    fn lowest(self) -> Option<usize> {
        self.0
            .iter()
            .enumerate()
            .find(|(_, w)| **w != 0)
            .map(|(k, w)| k * 21 + w.trailing_zeros() as usize / 3)
    }
}

/// [`most_placed`]'s table of states already solved: naturals left and pieces used.
type Placed = std::collections::HashMap<(Naturals, [u8; 3]), u8, std::hash::BuildHasherDefault<WordHasher>>;

/// A hasher for keys made of a few words ([`Naturals`], a hand's counts): multiply and rotate,
/// as rustc's own table hasher does; the keys are not chosen by anyone who could aim at
/// collisions, and the tables are only asked what they hold, never walked in their order.
#[derive(Default)]
struct WordHasher(u64);

impl std::hash::Hasher for WordHasher {
    fn finish(&self) -> u64 {
        self.0
    }
    fn write(&mut self, bytes: &[u8]) {
        let mut words = bytes.chunks_exact(8);
        for word in &mut words {
            self.write_u64(u64::from_le_bytes(word.try_into().expect("eight bytes")));
        }
        for &b in words.remainder() {
            self.write_u64(u64::from(b));
        }
    }
    fn write_u64(&mut self, word: u64) {
        self.0 = (self.0.rotate_left(5) ^ word).wrapping_mul(0x51_7c_c1_b7_27_22_0a_95);
    }
    fn write_u8(&mut self, byte: u8) {
        self.write_u64(u64::from(byte));
    }
    fn write_usize(&mut self, word: usize) {
        self.write_u64(word as u64);
    }
}

/// The piece lengths (3, 4, 5) that one of the patterns still has room for, `used` placed.
fn room_for(used: [u8; 3]) -> [bool; 3] {
    [0, 1, 2].map(|l| {
        let mut more = used;
        more[l] += 1;
        GO_OUT_PATTERNS.iter().any(|p| {
            let p = pattern_counts(p);
            (0..3).all(|i| more[i] <= p[i])
        })
    })
}

/// The most naturals of `counts` that runs of the pattern pieces left (`used` counts those
/// placed) can hold. The lowest natural left either stays out or anchors a piece that starts
/// at it (no natural lies below it in its suit, so starting lower only loses places), and a
/// piece takes every natural at its places: holding more never leaves the rest harder.
fn most_placed(counts: &mut Naturals, used: [u8; 3], memo: &mut Placed) -> usize {
    let Some(anchor) = counts.lowest() else {
        return 0;
    };
    let key = (*counts, used);
    if let Some(&known) = memo.get(&key) {
        return usize::from(known);
    }
    counts.remove(anchor);
    let mut best = most_placed(counts, used, memo);
    counts.add(anchor);
    let card = Card::from_index(anchor);
    let (Some(rank), Some(suit)) = (card.rank(), card.suit()) else {
        return best;
    };
    let room = room_for(used);
    for len in 3..=5u8 {
        if !room[usize::from(len) - 3] {
            continue;
        }
        let mut more = used;
        more[usize::from(len) - 3] += 1;
        let lows: &[u8] = if rank == Rank::Ace {
            &[1, 15 - len]
        } else {
            &[rank.number().min(15 - len)]
        };
        for &low in lows {
            let mut taken = [usize::MAX; 5];
            let mut took = 0;
            for (k, value) in (low..low + len).enumerate() {
                let i = Card::in_run(value, suit).index();
                if counts.count(i) > 0 {
                    counts.remove(i);
                    taken[k] = i;
                    took += 1;
                }
            }
            best = best.max(took + most_placed(counts, more, memo));
            for &i in taken.iter().filter(|&&i| i != usize::MAX) {
                counts.add(i);
            }
        }
    }
    memo.insert(key, u8::try_from(best).unwrap_or(u8::MAX));
    best
}

/// Cards of `hand` that can be laid off on melds of `table`, each a single card on one meld,
/// with the resulting reading. A wild that could go to either end of a run is listed once
/// per end. Empty in `continental`, which has no lay-offs.
pub fn find_layoffs(rules: &Ruleset, hand: &[Card], table: &[Reading]) -> Vec<Layoff> {
    layoffs(rules, hand, table).collect()
}

/// [`find_layoffs`] one at a time, in its order: a caller that needs only the first, or only
/// whether there is one, searches no further.
pub(crate) fn layoffs<'a>(
    rules: &'a Ruleset,
    hand: &[Card],
    table: impl IntoIterator<Item = &'a Reading>,
) -> impl Iterator<Item = Layoff> {
    let mut cards = hand.to_vec();
    cards.sort_unstable();
    cards.dedup();
    let cards = std::rc::Rc::new(cards);
    let none = rules.goes_out_all_at_once();
    table
        .into_iter()
        .enumerate()
        .filter(move |_| !none)
        .flat_map(move |(index, meld)| {
            let cards = std::rc::Rc::clone(&cards);
            (0..cards.len()).flat_map(move |k| {
                let card = cards[k];
                layoffs_on(rules, meld, card)
                    .into_iter()
                    .map(move |reading| Layoff {
                        meld: index,
                        card,
                        reading,
                    })
            })
        })
}

/// The readings of `meld` with `card` laid off on it (a wild at either end of a run gives
/// one for each end).
fn layoffs_on(rules: &Ruleset, meld: &Reading, card: Card) -> Vec<Reading> {
    let wild = rules.is_wild(card);
    match (meld.kind(), meld.span(), meld.suit()) {
        (MeldKind::Run, Some((low, high)), Some(suit)) => {
            let mut out = Vec::new();
            if meld.len() >= MAX_RUN {
                return out;
            }
            let ends = [(low > 1).then(|| low - 1), (high < 14).then(|| high + 1)];
            for value in ends.into_iter().flatten() {
                let place = Card::in_run(value, suit);
                let designation;
                let wilds: &[Designation] = if wild {
                    designation = [Designation {
                        card,
                        represents: Stands::Card(place),
                    }];
                    &designation
                } else if card == place {
                    &[]
                } else {
                    continue;
                };
                out.extend(meld.lay_off(rules, &[card], wilds).readings);
            }
            out
        }
        (MeldKind::Set, ..) => {
            let fits = match meld.rank() {
                Some(rank) => card.rank() == Some(rank),
                None => rules.rankless_set() == Some(RanklessSet::RankFromFirstNatural),
            };
            if !wild && !fits {
                return Vec::new();
            }
            meld.lay_off(rules, &[card], &[]).readings
        }
        _ => Vec::new(),
    }
}

/// One new meld from `hand` at its variant's shortest (a set or a run), the one that needs
/// the fewest wilds, runs first on a tie; `None` when the hand holds none. For the variants
/// that let a player lay new melds once down (`push`): what it returns is what
/// [`read`](crate::read) accepts.
pub fn find_meld(rules: &Ruleset, hand: &[Card]) -> Option<Reading> {
    if hand.len() > usize::from(u8::MAX) {
        return None;
    }
    let search = Search::new(rules);
    let counts = counts_of(hand);
    let budget = search.wilds_left(&counts);
    let mut kinds = vec![MeldKind::Run];
    if rules.sets_allowed() {
        kinds.push(MeldKind::Set);
    }
    kinds
        .into_iter()
        .filter(|&kind| {
            let req = Requirement {
                kind,
                min_len: rules.min_len(kind),
            };
            search.might_hold(&[req], &counts, 0)
        })
        .filter_map(|kind| {
            search
                .plans(kind, rules.min_len(kind), &counts, budget)
                .into_iter()
                .find_map(|plan| {
                    let holes = plan.holes();
                    let mut left = counts;
                    take(&mut left, &plan);
                    search
                        .realise(std::slice::from_ref(&plan), &left)
                        .and_then(|mut r| r.pop())
                        .map(|reading| (holes, reading))
                })
        })
        .min_by_key(|(holes, _)| *holes)
        .map(|(_, reading)| reading)
}

/// The tests' generator.
#[cfg(test)]
#[path = "../tests/engine/rng.rs"]
#[expect(dead_code, reason = "the search's tests draw without shuffling")]
mod rng;

#[cfg(test)]
mod tests {
    use super::rng::TestRng;
    use super::{
        Card, Contract, Counts, MeldKind, Rank, Requirement, Search, Suit, counts_of, give_back, take,
    };
    use crate::ruleset::{Ruleset, Variant};

    /// A hand of `len` cards that is often nearly melds: a few ranks of two suits, and wilds.
    fn hand(rules: &Ruleset, len: usize, rng: &mut TestRng) -> Vec<Card> {
        let wilds = rules.wild_cards();
        let pack = rules.pack(*rules.players().end());
        let low = rng.range(1, 8);
        let suits = [Suit::ALL[rng.below(4)], Suit::ALL[rng.below(4)]];
        let mut out: Vec<Card> = Vec::new();
        while out.len() < len {
            let card = if rng.chance(20) {
                wilds[rng.below(wilds.len())]
            } else {
                let rank =
                    Rank::from_number(u8::try_from(rng.range(low, low + 5)).expect("small")).expect("2..=13");
                Card::new(rank, suits[rng.below(2)])
            };
            // Only hands the packs can hold.
            if out.iter().filter(|c| **c == card).count() < pack.iter().filter(|c| **c == card).count() {
                out.push(card);
            }
        }
        out
    }

    /// Whether plans of `reqs`, one after another from `counts`, leave wilds enough for their
    /// holes: the search's space without its bound, its dead ends or its readings.
    fn plans_fit(search: &Search, reqs: &[Requirement], counts: &mut Counts, owed: usize) -> bool {
        let Some((req, rest)) = reqs.split_first() else {
            return true;
        };
        let budget = search.wilds_left(counts).saturating_sub(owed);
        search
            .plans(req.kind, req.min_len, counts, budget)
            .iter()
            .any(|plan| {
                take(counts, plan);
                let owed = owed + plan.holes();
                let fits = owed <= search.wilds_left(counts) && plans_fit(search, rest, counts, owed);
                give_back(counts, plan);
                fits
            })
    }

    /// `find_contracts` lists distinct answers, each the contract met from the hand, the
    /// first `find_contract`'s; and hands that hold one often hold others.
    #[test]
    fn other_arrangements_of_the_contract_leave_other_cards() {
        let mut rng = TestRng::new(7);
        let mut several = 0;
        for variant in [Variant::MayI, Variant::Contract7, Variant::Push] {
            let rules = Ruleset::default_for(variant);
            for deal in 1..=rules.deals() {
                let Contract::Melds(reqs) = rules.contract(deal) else {
                    continue;
                };
                let least: usize = reqs.iter().map(|r| r.min_len).sum();
                for _ in 0..60 {
                    let cards = hand(&rules, least + 1 + rng.below(4), &mut rng);
                    let all = super::find_contracts(&rules, deal, &cards, 3);
                    assert!(all.len() <= 3);
                    assert_eq!(
                        all.first().cloned(),
                        super::find_contract(&rules, deal, &cards),
                        "{variant} {deal}"
                    );
                    let mut laid: Vec<Vec<Card>> = Vec::new();
                    for melds in &all {
                        assert!(
                            crate::contract::check(&rules, &Contract::Melds(reqs.clone()), melds).is_ok(),
                            "{variant} {deal}: {melds:?}"
                        );
                        let mut these: Vec<Card> =
                            melds.iter().flat_map(crate::reading::Reading::cards).collect();
                        these.sort_unstable();
                        let mut left = cards.clone();
                        for c in &these {
                            let k = left.iter().position(|h| h == c).expect("laid from the hand");
                            left.swap_remove(k);
                        }
                        assert!(!laid.contains(&these), "{variant} {deal}: the same cards twice");
                        laid.push(these);
                    }
                    several += usize::from(all.len() > 1);
                }
            }
        }
        assert!(several > 10, "only {several} hands with more than one answer");
    }

    /// The bound refuses only hands where no plans fit: a contract's, or a single meld's.
    #[test]
    fn the_quick_bound_refuses_only_hands_without_plans() {
        let mut rng = TestRng::new(42);
        let (mut refused, mut fitted) = (0, 0);
        for variant in [Variant::MayI, Variant::Contract7, Variant::Push] {
            let rules = Ruleset::default_for(variant);
            let search = Search::new(&rules);
            for deal in 1..=rules.deals() {
                let Contract::Melds(reqs) = rules.contract(deal) else {
                    continue;
                };
                let least: usize = reqs.iter().map(|r| r.min_len).sum();
                for _ in 0..300 {
                    let cards = hand(&rules, least + rng.below(4), &mut rng);
                    let mut counts = counts_of(&cards);
                    let fits = plans_fit(&search, &reqs, &mut counts, 0);
                    if search.might_hold(&reqs, &counts, 0) {
                        fitted += usize::from(fits);
                    } else {
                        refused += 1;
                        assert!(!fits, "{variant} deal {deal}: the bound refused {cards:?}");
                    }
                    for kind in [MeldKind::Run, MeldKind::Set] {
                        let one = [Requirement {
                            kind,
                            min_len: rules.min_len(kind),
                        }];
                        if !search.might_hold(&one, &counts, 0) {
                            assert!(
                                !plans_fit(&search, &one, &mut counts, 0),
                                "{variant}: the bound refused a {kind:?} in {cards:?}"
                            );
                        }
                    }
                }
            }
        }
        // Both sides were seen: the test is not vacuous.
        assert!(
            refused > 100 && fitted > 100,
            "refused {refused}, fitted {fitted}"
        );
    }
}
