//! Property tests: readings re-validate, order does not matter, and the search agrees with
//! the checks (docs/rules.md#readings, #contracts,
//! #continental-going-out).

use crate::helpers::uses_hand;
use crate::rng::TestRng;
use engine::{
    Card, Contract, GO_OUT_PATTERNS, MeldKind, ProposedMeld, Rank, Reading, Ruleset, Suit, Variant, analyse,
    check_contract, find_contract, find_go_out, find_layoffs,
};
use proptest::prelude::*;

fn rules_of(variant: usize, option: bool) -> Ruleset {
    let variant = Variant::ALL[variant % 4];
    let options = match (variant, option) {
        (Variant::MayI, true) => serde_json::json!({"deuces_wild": true}),
        (Variant::Continental, true) => serde_json::json!({"deuces_wild": false}),
        (Variant::Push, true) => serde_json::json!({"three_and_seven": true}),
        _ => serde_json::json!({}),
    };
    Ruleset::new(variant, Some(options)).expect("options")
}

fn card_at(value: usize, suit: Suit) -> Card {
    Card::new(Rank::from_number(value as u8).expect("1..=14"), suit)
}

fn any_card(rng: &mut TestRng) -> Card {
    if rng.chance(8) {
        Card::JOKER
    } else {
        Card::from_index(rng.below(52))
    }
}

fn a_wild(rules: &Ruleset, rng: &mut TestRng) -> Card {
    let wilds = rules.wild_cards();
    wilds[rng.below(wilds.len())]
}

/// Cards that are often nearly a meld: a rank's cards, a suit's window, or anything.
fn meldish(rules: &Ruleset, rng: &mut TestRng) -> Vec<Card> {
    let mut cards = Vec::new();
    match rng.below(3) {
        0 => {
            let rank = Rank::ALL[rng.below(13)];
            for _ in 0..rng.range(1, 5) {
                cards.push(Card::new(rank, Suit::ALL[rng.below(4)]));
            }
        }
        1 => {
            let suit = Suit::ALL[rng.below(4)];
            let len = rng.range(2, 13);
            let low = rng.range(1, 15 - len);
            for v in low..low + len {
                if rng.chance(80) {
                    cards.push(card_at(v, suit));
                }
            }
        }
        _ => {
            for _ in 0..rng.range(1, 8) {
                cards.push(any_card(rng));
            }
        }
    }
    for _ in 0..rng.below(4) {
        cards.push(a_wild(rules, rng));
    }
    if rng.chance(10) {
        cards.push(any_card(rng));
    }
    cards.truncate(14);
    rng.shuffle(&mut cards);
    cards
}

fn revalidates(rules: &Ruleset, r: &Reading) -> Result<(), TestCaseError> {
    let again = analyse(rules, &r.pinned(rules));
    prop_assert_eq!(
        &again.readings,
        &vec![r.clone()],
        "§1 a reading re-validates: {:?}",
        again.reasons
    );
    Ok(())
}

/// A legal meld of `kind` with at least `min_len` cards, built from random cards.
fn build_meld(rules: &Ruleset, kind: MeldKind, min_len: usize, rng: &mut TestRng) -> Vec<Card> {
    let len = (min_len + rng.below(3)).min(13);
    let min_nat = match rules.wild_limit() {
        engine::WildLimit::NotMoreThanNaturals => len.div_ceil(2),
        _ => 1,
    };
    let naturals = rng.range(min_nat, len);
    let mut natural_at = vec![false; len];
    let mut places: Vec<usize> = (0..len).collect();
    rng.shuffle(&mut places);
    for &p in &places[..naturals] {
        natural_at[p] = true;
    }
    let mut cards = Vec::with_capacity(len);
    match kind {
        MeldKind::Set => {
            let rank = Rank::ALL[rng.below(13)];
            for nat in natural_at {
                cards.push(if nat {
                    Card::new(rank, Suit::ALL[rng.below(4)])
                } else {
                    a_wild(rules, rng)
                });
            }
        }
        MeldKind::Run => {
            let suit = Suit::ALL[rng.below(4)];
            let low = rng.range(1, 15 - len);
            for (i, nat) in natural_at.into_iter().enumerate() {
                cards.push(if nat {
                    card_at(low + i, suit)
                } else {
                    a_wild(rules, rng)
                });
            }
        }
    }
    cards
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(200))]

    #[test]
    fn every_reading_revalidates(variant in 0usize..4, option: bool, seed: u64) {
        let rules = rules_of(variant, option);
        let mut rng = TestRng::new(seed);
        let cards = meldish(&rules, &mut rng);
        let analysis = analyse(&rules, &ProposedMeld::of(&cards));
        prop_assert!(analysis.is_legal() == analysis.reasons.is_empty(), "§1 readings or reasons, never both or neither");
        for r in &analysis.readings {
            revalidates(&rules, r)?;
            let mut laid: Vec<Card> = r.cards().collect();
            let mut given = cards.clone();
            laid.sort_unstable();
            given.sort_unstable();
            prop_assert_eq!(laid, given, "§1 a reading holds exactly the cards given");
        }
    }

    #[test]
    fn order_never_changes_the_readings(variant in 0usize..4, option: bool, seed: u64) {
        let rules = rules_of(variant, option);
        let mut rng = TestRng::new(seed);
        let cards = meldish(&rules, &mut rng);
        let mut shuffled = cards.clone();
        rng.shuffle(&mut shuffled);
        // The same shuffle with the wilds put back in their first order among themselves.
        let mut wilds_in_order = cards.iter().filter(|c| rules.is_wild(**c));
        let same_wild_order: Vec<Card> = shuffled
            .iter()
            .map(|&c| if rules.is_wild(c) { *wilds_in_order.next().unwrap_or(&c) } else { c })
            .collect();
        let a = analyse(&rules, &ProposedMeld::of(&cards));
        let b = analyse(&rules, &ProposedMeld::of(&same_wild_order));
        prop_assert_eq!(&a.readings, &b.readings, "§1 cards may come in any order");
        let codes = |x: &engine::Analysis| x.reasons.iter().map(|r| r.code).collect::<Vec<_>>();
        prop_assert_eq!(codes(&a), codes(&b));
        // Reordering the wilds only changes which wild fills which inner gap of a run (§1):
        // never the melds the cards can make.
        let c = analyse(&rules, &ProposedMeld::of(&shuffled));
        let shapes = |x: &engine::Analysis| {
            let mut s: Vec<_> = x.readings.iter().map(|r| (r.kind(), r.rank(), r.suit(), r.span())).collect();
            s.dedup();
            s
        };
        prop_assert_eq!(shapes(&a), shapes(&c), "§1 the order of the wilds picks their places, not the meld");
        prop_assert_eq!(codes(&a).is_empty(), codes(&c).is_empty());
    }

    #[test]
    fn a_built_contract_is_found_and_accepted(variant in 0usize..4, option: bool, deal in 1u8..=7, seed: u64) {
        let rules = rules_of(variant, option);
        let Contract::Melds(reqs) = rules.contract(deal) else {
            return Ok(());
        };
        let mut rng = TestRng::new(seed);
        let mut hand = Vec::new();
        for req in &reqs {
            let meld = build_meld(&rules, req.kind, req.min_len, &mut rng);
            let legal = analyse(&rules, &ProposedMeld { cards: meld.clone(), kind: Some(req.kind), wilds: vec![] });
            // Push melds of one natural need their wilds named; the search names them itself.
            prop_assume!(legal.is_legal() || rules.variant() == Variant::Push);
            hand.extend(meld);
        }
        for _ in 0..rng.below(5) {
            hand.push(any_card(&mut rng));
        }
        // A hand holds no more copies of a card than the largest table's packs.
        let (packs, jokers) = rules.packs(*rules.players().end());
        prop_assume!(hand.iter().all(|c| {
            let copies = hand.iter().filter(|x| *x == c).count();
            copies <= if c.is_joker() { jokers } else { packs }
        }));
        rng.shuffle(&mut hand);
        let melds = find_contract(&rules, deal, &hand);
        prop_assert!(melds.is_some(), "§1 the contract built into {:?} is found", hand.iter().map(Card::to_string).collect::<Vec<_>>());
        let melds = melds.unwrap_or_default();
        prop_assert!(uses_hand(&hand, &melds), "the melds come from the hand");
        prop_assert!(check_contract(&rules, &rules.contract(deal), &melds).is_ok(), "§1 found means accepted");
        for r in &melds {
            revalidates(&rules, r)?;
        }
    }

    #[test]
    fn whatever_the_search_finds_is_accepted(variant in 0usize..4, option: bool, deal in 1u8..=7, seed: u64) {
        let rules = rules_of(variant, option);
        let mut rng = TestRng::new(seed);
        let size = rules.hand_size(deal) + rng.below(5);
        let hand: Vec<Card> = (0..size).map(|_| if rng.chance(20) { a_wild(&rules, &mut rng) } else { any_card(&mut rng) }).collect();
        if let Some(melds) = find_contract(&rules, deal, &hand) {
            prop_assert!(uses_hand(&hand, &melds));
            prop_assert!(check_contract(&rules, &rules.contract(deal), &melds).is_ok(), "§1 found means accepted");
            for r in &melds {
                revalidates(&rules, r)?;
            }
        }
        let mut shuffled = hand.clone();
        rng.shuffle(&mut shuffled);
        prop_assert_eq!(
            find_contract(&rules, deal, &hand).is_some(),
            find_contract(&rules, deal, &shuffled).is_some(),
            "the order of the hand does not matter"
        );
    }

    #[test]
    fn a_built_way_out_is_found(option: bool, sixteen: bool, seed: u64) {
        let rules = rules_of(2, option);
        let mut rng = TestRng::new(seed);
        let pattern = GO_OUT_PATTERNS[rng.below(3)];
        let mut hand = Vec::new();
        for &len in pattern {
            let mut meld = build_meld(&rules, MeldKind::Run, len, &mut rng);
            meld.truncate(len);
            prop_assume!(analyse(&rules, &ProposedMeld::of(&meld)).is_legal());
            hand.extend(meld);
        }
        if sixteen {
            hand.push(any_card(&mut rng));
        }
        rng.shuffle(&mut hand);
        let out = find_go_out(&rules, &hand);
        prop_assert!(out.is_some(), "§4 the pattern built into {:?} is found", hand.iter().map(Card::to_string).collect::<Vec<_>>());
        let out = out.expect("found");
        prop_assert_eq!(out.discard.is_some(), sixteen, "§4 a discard only from 16 cards");
        prop_assert!(uses_hand(&hand, &out.melds));
        prop_assert!(check_contract(&rules, &Contract::GoOut, &out.melds).is_ok(), "§4 found means accepted");
        for r in &out.melds {
            revalidates(&rules, r)?;
        }
    }

    #[test]
    fn every_lay_off_is_accepted(variant in 0usize..4, option: bool, seed: u64) {
        let rules = rules_of(variant, option);
        let mut rng = TestRng::new(seed);
        let mut table = Vec::new();
        for _ in 0..3 {
            let kind = if rules.sets_allowed() && rng.chance(50) { MeldKind::Set } else { MeldKind::Run };
            let cards = build_meld(&rules, kind, rules.min_len(kind), &mut rng);
            if let Some(r) = analyse(&rules, &ProposedMeld { cards, kind: Some(kind), wilds: vec![] }).readings.first() {
                table.push(r.clone());
            }
        }
        let hand: Vec<Card> = (0..8).map(|_| any_card(&mut rng)).collect();
        for l in find_layoffs(&rules, &hand, &table) {
            prop_assert!(hand.contains(&l.card));
            let mut want: Vec<Card> = table[l.meld].cards().chain([l.card]).collect();
            let mut got: Vec<Card> = l.reading.cards().collect();
            want.sort_unstable();
            got.sort_unstable();
            prop_assert_eq!(got, want, "§2 the meld plus the card");
            revalidates(&rules, &l.reading)?;
        }
    }
}

/// Whether some choice of exactly `min_len` cards per requirement makes legal melds: the
/// slow, obvious search the fast one must agree with (contract melds may be longer, but a
/// legal longer meld always holds a legal one of the minimum length).
fn exists_by_brute_force(rules: &Ruleset, reqs: &[engine::Requirement], hand: &[Card]) -> bool {
    let Some((req, rest)) = reqs.split_first() else {
        return true;
    };
    let n = hand.len();
    let k = req.min_len;
    if n < k {
        return false;
    }
    let mut idx: Vec<usize> = (0..k).collect();
    loop {
        let cards: Vec<Card> = idx.iter().map(|&i| hand[i]).collect();
        let proposal = ProposedMeld {
            cards,
            kind: Some(req.kind),
            wilds: vec![],
        };
        let analysis = analyse(rules, &proposal);
        // Push: a meld of at most one natural is legal once its wilds are named, which the
        // search does; here `designation_required` says such a naming exists.
        let nameable = analysis
            .reasons
            .iter()
            .any(|r| r.code == engine::ReasonCode::DesignationRequired);
        if analysis.is_legal() || nameable {
            let left: Vec<Card> = (0..n).filter(|i| !idx.contains(i)).map(|i| hand[i]).collect();
            if exists_by_brute_force(rules, rest, &left) {
                return true;
            }
        }
        // Next combination of k indices out of n.
        let Some(i) = (0..k).rev().find(|&i| idx[i] < n - k + i) else {
            return false;
        };
        idx[i] += 1;
        for j in i + 1..k {
            idx[j] = idx[j - 1] + 1;
        }
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(150))]

    #[test]
    fn the_search_agrees_with_brute_force(variant in prop::sample::select(vec![0usize, 1, 3]), option: bool, deal in 1u8..=3, seed: u64) {
        let rules = rules_of(variant, option);
        let Contract::Melds(reqs) = rules.contract(deal) else {
            return Ok(());
        };
        let mut rng = TestRng::new(seed);
        // Few ranks and suits, several wilds: contracts are near, and often just out of reach.
        let hand: Vec<Card> = (0..9)
            .map(|_| {
                if rng.chance(25) {
                    a_wild(&rules, &mut rng)
                } else {
                    card_at(rng.range(5, 9), Suit::ALL[rng.below(2)])
                }
            })
            .collect();
        // Only hands the packs can hold: the readings refuse more copies of a card than there
        // are (`too_many_copies`), which the brute force below does not tell apart.
        let pack = rules.pack(*rules.players().end());
        let copies = |c: &Card, of: &[Card]| of.iter().filter(|d| *d == c).count();
        prop_assume!(hand.iter().all(|c| copies(c, &hand) <= copies(c, &pack)));
        let brute = exists_by_brute_force(&rules, &reqs, &hand);
        let found = find_contract(&rules, deal, &hand);
        prop_assert_eq!(
            found.is_some(),
            brute,
            "§1 the search finds a contract exactly when one exists in {:?}",
            hand.iter().map(Card::to_string).collect::<Vec<_>>()
        );
    }
}
