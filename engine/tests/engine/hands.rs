//! A hand without a game (`arrange`, `contract_shortfall`, `Ruleset::hand_value`): the game's
//! searches asked of a bare hand and table, and the card values of docs/rules.md#scoring.

use engine::Variant::{Continental, Contract7, MayI, Push};
use engine::{
    Card, Reading, Ruleset, Variant, arrange, contract_shortfall, find_contract, find_go_out, find_layoffs,
    go_out_shortfall,
};

use crate::helpers::{cards, reading, rules};
use crate::rng::TestRng;

#[test]
fn shortfall_counts_the_cards_a_contract_still_needs() {
    let may_i = rules(MayI);
    let c7 = rules(Contract7);
    let push = rules(Push);
    let cases: [(&Ruleset, u8, &str, usize, &str); 9] = [
        (
            &may_i,
            1,
            "7C 7D 7H KS KD KC 2C 4D 9S TH JC 3S",
            0,
            "§2 deal 1: two sets held",
        ),
        (
            &may_i,
            1,
            "7C 7D KS KD 2C 4D 9S TH JC 3S 5H 6C",
            2,
            "two pairs: a card to each",
        ),
        (
            &may_i,
            1,
            "7C 7D KS KD JK 4D 9S TH JC 3S 5H 6C",
            1,
            "a joker makes one set: one short",
        ),
        (
            &may_i,
            1,
            "7C 3D KS 9D 2C 4D 9S TH JC 6S 5H QC",
            3,
            "one pair at most",
        ),
        (
            &may_i,
            3,
            "5H 6H 8H 9S TS JS 2C 4D KC KD 3C 3D",
            2,
            "two runs of four, a card short each",
        ),
        (
            &c7,
            7,
            "3H 4H 5H 6H 3S 4S 5S 6S 3C 4C 5C 6C 9D",
            0,
            "§3 deal 7: three runs held",
        ),
        (
            &c7,
            7,
            "3H 4H 5H 6H 3S 4S 5S 6S 3C 4C 5C 9D 9D",
            1,
            "a run one short",
        ),
        (
            &push,
            5,
            "3H 4H 5H 6H 7H 3S 4S 5S 6S 9D",
            1,
            "§5 deal 5: runs of five, one short",
        ),
        (
            &push,
            1,
            "9C 9D 2C KS KD 4H 5S 7D",
            1,
            "a deuce makes a set of nines; kings need one",
        ),
    ];
    for (rules, deal, hand, short, why) in cases {
        let hand = cards(hand);
        assert_eq!(contract_shortfall(rules, deal, &hand), short, "{why}");
        assert_eq!(find_contract(rules, deal, &hand).is_some(), short == 0, "{why}");
    }
}

#[test]
fn shortfall_is_continentals_go_out_shortfall() {
    let cont = rules(Continental);
    let hand = cards("3C 4C 5C 6C 7C 8C 9C TC 4D 5D JK 7D 8D 9D KS");
    for deal in 1..=cont.deals() {
        assert_eq!(
            contract_shortfall(&cont, deal, &hand),
            go_out_shortfall(&cont, &hand)
        );
    }
}

/// Random hands of every variant with contracts: a hand short of nothing is one the search
/// finds the contract in (contract_7 has no wilds, so the two are the same question), a card
/// drawn brings the hand at most one card nearer and never further, and a hand that holds the
/// contract less `k` of its melds' cards is at most `k` short.
#[test]
fn shortfall_moves_a_card_at_a_time() {
    let mut rng = TestRng::new(53);
    let mut held = 0;
    for variant in [MayI, Contract7, Push] {
        let rules = rules(variant);
        let pack = rules.pack(4);
        for round in 0..300 {
            let deal = u8::try_from(1 + round % usize::from(rules.deals())).expect("a deal");
            let mut deck = pack.clone();
            rng.shuffle(&mut deck);
            let size = rules.hand_size(deal) + rng.below(6);
            let hand: Vec<Card> = deck[..size].to_vec();
            let short = contract_shortfall(&rules, deal, &hand);
            let found = find_contract(&rules, deal, &hand);
            if variant == Contract7 {
                assert_eq!(short == 0, found.is_some(), "{variant} deal {deal}: {hand:?}");
            }
            let mut more = hand.clone();
            more.push(deck[size]);
            let after = contract_shortfall(&rules, deal, &more);
            assert!(
                after <= short && after + 1 >= short,
                "{variant} deal {deal}: {short} then {after} with {}",
                deck[size]
            );
            if let Some(melds) = found {
                held += 1;
                assert_eq!(short, 0, "{variant} deal {deal}: {hand:?}");
                let laid: Vec<Card> = melds.iter().flat_map(Reading::cards).collect();
                for k in 1..=laid.len().min(3) {
                    let mut less = hand.clone();
                    for c in &laid[..k] {
                        let at = less
                            .iter()
                            .position(|h| h == c)
                            .expect("a laid card is the hand's");
                        less.remove(at);
                    }
                    assert!(
                        contract_shortfall(&rules, deal, &less) <= k,
                        "{variant} deal {deal}: {k} cards of the contract taken from {hand:?}"
                    );
                }
            }
        }
    }
    assert!(held > 20, "hands that hold the contract: {held}");
}

#[test]
fn a_hand_of_forty_cards_is_measured_at_once() {
    // The most a request may send: every placement is still tried, and no more.
    let may_i = rules(MayI);
    let hand = cards(&["JK AH AD 2C 3D 4S 5C 6D 7S 8C 9D TS JC QD KS"; 3].join(" ")[..]);
    let hand = &hand[..40];
    assert_eq!(contract_shortfall(&may_i, 7, hand), 0);
}

/// docs/rules.md#scoring: each variant's card values, added up; `continental` counts no hands.
#[test]
fn hand_value_adds_up_the_card_values() {
    let hand = cards("AH 2C 5D 9S TC KH JK");
    let expected = [
        (MayI, Some(20 + 5 + 5 + 5 + 10 + 10 + 50)),
        (Contract7, Some(11 + 2 + 5 + 9 + 10 + 10 + 50)),
        (Push, Some(15 + 20 + 5 + 5 + 10 + 10 + 20)),
        (Continental, None),
    ];
    for (variant, points) in expected {
        assert_eq!(rules(variant).hand_value(&hand), points, "{variant}");
    }
    assert_eq!(rules(MayI).hand_value(&[]), Some(0));
}

/// `arrange` is the searches' answers side by side: the contract or the way out, what the
/// hand is short, the lay-offs of `find_layoffs` with the meld's index as its id and the
/// wilds named, the hand's value.
#[test]
fn arrange_gives_the_searches_answers() {
    for variant in Variant::ALL {
        let rules = rules(variant);
        let mut rng = TestRng::new(530 + variant as u64);
        let pack = rules.pack(4);
        let table: Vec<Reading> = match variant {
            Continental => Vec::new(),
            _ => vec![
                reading(&rules, "5H 6H 7H 8H", None, "", "a run"),
                reading(&rules, "7C 7D 7S", None, "", "a set"),
            ],
        };
        for round in 0..100 {
            let deal = u8::try_from(1 + round % usize::from(rules.deals())).expect("a deal");
            let mut deck = pack.clone();
            rng.shuffle(&mut deck);
            let hand = &deck[..rules.hand_size(deal) + rng.below(3)];
            let out = arrange(&rules, deal, hand, &table);
            match variant {
                Continental => {
                    let out_of = find_go_out(&rules, hand);
                    assert_eq!(out.contract, out_of.as_ref().map(|g| g.melds.clone()));
                    assert_eq!(out.discard, out_of.and_then(|g| g.discard));
                }
                _ => assert_eq!(out.contract, find_contract(&rules, deal, hand)),
            }
            match out.contract {
                Some(_) => assert_eq!(out.cards_short, 0),
                None => assert_eq!(out.cards_short, contract_shortfall(&rules, deal, hand).max(1)),
            }
            let layoffs = find_layoffs(&rules, hand, &table);
            assert_eq!(out.layoffs.len(), layoffs.len(), "{variant}");
            for (hint, layoff) in out.layoffs.iter().zip(&layoffs) {
                assert_eq!(hint.meld_id as usize, layoff.meld);
                assert_eq!((hint.card, &hint.reading), (layoff.card, &layoff.reading));
                let on = &table[layoff.meld];
                let again = on.lay_off(&rules, &[hint.card], &hint.wilds).into_single();
                assert_eq!(
                    again.as_ref(),
                    Ok(&hint.reading),
                    "{variant}: the wilds say where it lies"
                );
            }
            assert_eq!(out.penalty_points, rules.hand_value(hand));
        }
    }
}
