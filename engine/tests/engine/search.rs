//! Searching hands: contracts, continental's going out, lay-offs (docs/rules.md, §1 to §5).

use engine::Variant::{Continental, Contract7, MayI, Push};
use engine::{
    Card, GO_OUT_PATTERNS, MeldKind, Reading, Ruleset, Variant, check_contract, find_contract, find_go_out,
    find_layoffs, find_meld, go_out_shortfall,
};
use serde_json::json;

use crate::helpers::{card, cards, describe, reading, rules, rules_with, uses_hand};

fn found(rules: &Ruleset, deal: u8, hand: &str, why: &str) -> Vec<Reading> {
    let hand = cards(hand);
    let melds = find_contract(rules, deal, &hand).unwrap_or_else(|| panic!("{why}: no contract found"));
    assert!(uses_hand(&hand, &melds), "{why}: melds use cards not in the hand");
    check_contract(rules, &rules.contract(deal), &melds).unwrap_or_else(|e| panic!("{why}: {e:?}"));
    melds
}

fn none(rules: &Ruleset, deal: u8, hand: &str, why: &str) {
    let melds = find_contract(rules, deal, &cards(hand));
    assert!(
        melds.is_none(),
        "{why}: found {:?}",
        melds.unwrap_or_default().iter().map(describe).collect::<Vec<_>>()
    );
}

#[test]
fn contracts_found_and_not() {
    let may_i = rules(MayI);
    found(
        &may_i,
        1,
        "7C 7D 7H KS KD KC 2C 4D 9S TH JC 3S",
        "§2 deal 1: two sets",
    );
    none(
        &may_i,
        1,
        "7C 7D 8H KS KD QC 2C 4D 9S TH JC 3S",
        "§2 deal 1: one set only",
    );
    found(
        &may_i,
        1,
        "7C 7D JK KS KD AH 2C 4D 9S TH JC 3S",
        "§2 wilds complete both sets",
    );
    none(
        &may_i,
        1,
        "7C JK JK KS KD 5C 2C 4D 9S TH JC 3S",
        "§2 7C JK JK breaks the wild limit",
    );
    found(
        &may_i,
        1,
        "JK JK AH KS KD KC 2C 4D 9S TH JC 3S",
        "§2 a wild trio is a set",
    );
    // Contended naturals: the 7H is wanted by the set and by the run.
    none(
        &may_i,
        2,
        "7C 7D 7H 5H 6H 8H 9S 9S 3C 4D KD QC",
        "§2 one 7H cannot be in two melds",
    );
    let melds = found(
        &may_i,
        2,
        "7C 7D 7H 5H 6H 8H 9S 7S 3C 4D KD QC",
        "§2 the 7S frees the 7H for the run",
    );
    assert!(
        melds
            .iter()
            .any(|m| m.kind() == MeldKind::Run && m.cards().any(|c| c == card("7H")))
    );
    found(
        &may_i,
        3,
        "5H 6H JK 8H 5S 6S 7S AD 9C 9C 3C KD",
        "§2 two runs with wilds",
    );
    none(
        &may_i,
        3,
        "5H JK JK JK 5S JK 7S KD 9C 9C 3C KD",
        "§2 each run needs naturals at least as many as wilds",
    );
    found(
        &may_i,
        7,
        "AH 2H 3H 4H 5S 6S 7S 8S 9C TC JC QC",
        "§2 deal 7: three runs, a red ace as itself",
    );
    found(
        &may_i,
        4,
        "7C 7D 7H 3S 3S 3D 9C 9C JK QD QH KS",
        "§2 deal 4: three sets",
    );
    none(
        &may_i,
        4,
        "7C 7D 7H 3S 3S 3D 9C 8C JK QD 5H KS",
        "§2 deal 4: the third set is short",
    );

    let c7 = rules(Contract7);
    found(&c7, 1, "TC JK JK KS KD KC 5C", "§3 T JK JK and a set");
    none(
        &c7,
        1,
        "JK JK JK JK JK KS",
        "§3 no all-joker meld: one natural and five jokers make one set",
    );
    found(&c7, 1, "JK JK JK KS KD KC", "§3 KS JK JK and KD KC JK");
    found(
        &c7,
        7,
        "5S JK JK JK 9H TH JH QH AD 2D 3D 4D 8C",
        "§3 deal 7 with jokers in a run",
    );

    let push = rules(Push);
    found(&push, 1, "JK JK 2C 2D 2H 2S", "§5 two sets of wilds only, named");
    found(
        &push,
        5,
        "5S 6S 7S 8S 9S 9H TH JH QH KH",
        "§5 deal 5: two runs of five",
    );
    let three_and_seven = rules_with(Push, json!({"three_and_seven": true}));
    found(
        &three_and_seven,
        5,
        "5S 6S 7S 8H 9H TH JH QH KH AH",
        "§5 three_and_seven: a run of three and a run of seven",
    );
    none(
        &three_and_seven,
        5,
        "5S 6S 7S 8S 9S 9D TH JH QH KH",
        "§5 no run of seven",
    );

    let cont = rules(Continental);
    let melds = found(
        &cont,
        1,
        "3C 4C 5C 9C TC JC 4D 5D 6D JH QH KH 7S 8S 9S",
        "§4 the contract is going out",
    );
    assert_eq!(melds.iter().map(Reading::len).sum::<usize>(), 15);
}

#[test]
fn every_variant_and_deal_finds_a_built_contract() {
    // A hand of naturals built for each contract: sets of sevens, eights, nines; runs in
    // clubs, diamonds and hearts from the three.
    for variant in Variant::ALL {
        let rules = rules(variant);
        for deal in 1..=rules.deals().min(7) {
            let engine::Contract::Melds(reqs) = rules.contract(deal) else {
                continue;
            };
            let mut hand = Vec::new();
            let (mut set_rank, mut run_suit) = (7u8, 0usize);
            for req in &reqs {
                match req.kind {
                    MeldKind::Set => {
                        let rank = engine::Rank::from_number(set_rank).expect("rank");
                        hand.extend(
                            engine::Suit::ALL
                                .iter()
                                .cycle()
                                .take(req.min_len)
                                .map(|&s| Card::new(rank, s)),
                        );
                        set_rank += 1;
                    }
                    MeldKind::Run => {
                        let suit = engine::Suit::ALL[run_suit];
                        hand.extend(
                            (3..3 + req.min_len as u8)
                                .map(|v| Card::new(engine::Rank::from_number(v).expect("rank"), suit)),
                        );
                        run_suit += 1;
                    }
                }
            }
            let melds = find_contract(&rules, deal, &hand)
                .unwrap_or_else(|| panic!("{variant} deal {deal}: the built contract is found"));
            check_contract(&rules, &rules.contract(deal), &melds).expect("accepted");
        }
    }
}

#[test]
fn going_out_in_continental() {
    let cont = rules(Continental);
    let hand = cards("3C 4C 5C 6C 7C 8C 9C TC 4D 5D 6D 7D 8D 9D TD");
    let out = find_go_out(&cont, &hand).expect("§4 two long sequences, split");
    assert_eq!(out.discard, None, "§4 15 cards: nothing to discard");
    let mut sizes: Vec<usize> = out.melds.iter().map(Reading::len).collect();
    sizes.sort_unstable_by(|a, b| b.cmp(a));
    assert!(
        GO_OUT_PATTERNS.contains(&sizes.as_slice()),
        "§4 one of the patterns: {sizes:?}"
    );
    assert!(uses_hand(&hand, &out.melds));

    let sixteen = cards("3C 4C 5C 6C 7C 8C 9C TC 4D 5D 6D 7D 8D 9D TD KS");
    let out = find_go_out(&cont, &sixteen).expect("§4 16 cards: lay down 15, discard one");
    assert_eq!(out.discard, Some(card("KS")));

    let wilds = cards("3C JK 5C 2D 7C 2H 9C 2S 4D 5D JK 7D 2C 9D KH QH");
    let out = find_go_out(&cont, &wilds).expect("§4 jokers and deuces wild");
    check_contract(&cont, &engine::Contract::GoOut, &out.melds).expect("§4 accepted");

    let no = cards("3C 5C 7C 9C JC KC 3D 5D 7D 9D JD KD 3H 5H 7H");
    assert!(find_go_out(&cont, &no).is_none(), "§4 no sequences at all");
    let five_fives = cards("3C 4C 5C 6C 7C 3D 4D 5D 6D 7D 3H 4H 5H 6H 7H");
    assert!(
        find_go_out(&cont, &five_fives).is_none(),
        "§4 three sequences of five fit no pattern"
    );
    let not_a_way = cards("3C 4C 5C 6C 7C 8C 9C TC JC QC KC AC 3D 4D KD");
    assert!(
        find_go_out(&cont, &not_a_way).is_none(),
        "§4 KD cannot be placed in any sequence"
    );
    assert!(
        find_go_out(&rules(MayI), &hand).is_none(),
        "§4 only continental goes out this way"
    );
    assert!(find_go_out(&cont, &hand[..14]).is_none(), "§4 15 or 16 cards");
}

#[test]
fn cards_short_of_going_out_in_continental() {
    let cont = rules(Continental);
    // (hand, cards short, why): a hand that goes out is short of nothing, and every card
    // short is one that no pattern can place.
    let cases = [
        (
            "3C 4C 5C 6C 7C 8C 9C TC 4D 5D 6D 7D 8D 9D TD",
            0,
            "§4 two long sequences, split",
        ),
        (
            "3C 4C 5C 6C 7C 8C 9C TC 4D 5D 6D 7D 8D 9D TD KS",
            0,
            "§4 16 cards: one to discard",
        ),
        (
            "3C JK 5C 2D 7C 2H 9C 2S 4D 5D JK 7D 2C 9D KH QH",
            0,
            "§4 the wilds fill the gaps",
        ),
        (
            "3C 4C 5C 6C 7C 3D 4D 5D 6D 7D 3H 4H 5H 6H 7H",
            1,
            "three fives: 7D has no place",
        ),
        (
            "3C 4C 5C 6C 7C 3D 4D 5D 6D JK 3H 4H 5H 6H 7H",
            0,
            "the joker makes 6H 7H a piece",
        ),
        (
            "3C 5C 7C 9C JC KC 3D 5D 7D 9D JD KD 3H 5H 7H",
            5,
            "§4 five pieces of two naturals",
        ),
        (
            "3C 4C 5C 6C 7C 8C 9C TC JC QC KC AC 3D 4D KD",
            1,
            "KD alone: one short",
        ),
        (
            "QS KS AS 3C 4C 5C 6C 7C 8C 9C TC JC QC 3D 4D",
            1,
            "the ace ends a run high; one short",
        ),
    ];
    for (hand, short, why) in cases {
        let hand = cards(hand);
        assert_eq!(go_out_shortfall(&cont, &hand), short, "{why}");
        assert_eq!(
            find_go_out(&cont, &hand).is_some(),
            short == 0,
            "{why}: short of nothing exactly when a way out is found"
        );
    }
    let hand = cards("3C 5C 7C 9C JC KC 3D 5D 7D 9D JD KD 3H 5H 7H");
    assert_eq!(
        go_out_shortfall(&rules(MayI), &hand),
        0,
        "only continental goes out so"
    );
}

#[test]
fn lay_offs_on_the_table() {
    let may_i = rules(MayI);
    let table = vec![
        reading(&may_i, "5H 6H 7H 8H", None, "", "run"),
        reading(&may_i, "7C 7D 7S", None, "", "set"),
        reading(&may_i, "JK JK AH", Some(MeldKind::Set), "JK=* AH=*", "wild trio"),
    ];
    let hand = cards("4H 9H 7H 9S JK 7C");
    let layoffs = find_layoffs(&may_i, &hand, &table);
    let mut got: Vec<String> = layoffs
        .iter()
        .map(|l| format!("{} on {}: {}", l.card, l.meld, describe(&l.reading)))
        .collect();
    got.sort();
    let mut want = vec![
        "4H on 0: run H: 4H 5H 6H 7H 8H (n5 w0)",
        "9H on 0: run H: 5H 6H 7H 8H 9H (n5 w0)",
        "JK on 0: run H: JK=4H 5H 6H 7H 8H (n4 w1)",
        "JK on 0: run H: 5H 6H 7H 8H JK=9H (n4 w1)",
        "7C on 1: set 7: 7C 7C 7D 7S (n4 w0)",
        "7H on 1: set 7: 7C 7D 7H 7S (n4 w0)",
        "JK on 1: set 7: 7C 7D 7S JK=7 (n3 w1)",
        "JK on 2: set *: AH=* JK=* JK=* JK=* (n0 w4)",
    ];
    want.sort();
    assert_eq!(
        got, want,
        "§2 lay-offs: ends of runs, rank of sets, only wilds on a wild trio"
    );
    for l in &layoffs {
        let again = table[l.meld].lay_off(&may_i, &[l.card], &[]);
        assert!(
            again.readings.contains(&l.reading),
            "§1 every lay-off is what lay_off accepts"
        );
    }
    assert!(
        find_layoffs(&rules(Continental), &hand, &table).is_empty(),
        "§4 no lay-offs in continental"
    );
}

#[test]
fn one_new_meld_in_a_push_hand() {
    let rules = Ruleset::default_for(Push);
    let cases: [(&str, Option<usize>, &str); 4] = [
        ("7H 8H 9H KS", Some(0), "a natural run of three: no wild needed"),
        ("7H 9H JK KS", Some(1), "a run with the joker in its gap"),
        ("QC QD 2S 5H", Some(1), "a set of queens with a two as the third"),
        ("3C 7D JH KS", None, "four lone cards and no wild: no meld"),
    ];
    for (hand, wilds, why) in cases {
        let hand = cards(hand);
        let meld = find_meld(&rules, &hand);
        assert_eq!(
            meld.as_ref()
                .map(|m| m.cards().filter(|c| rules.is_wild(*c)).count()),
            wilds,
            "{why}"
        );
        if let Some(m) = meld {
            assert!(
                uses_hand(&hand, std::slice::from_ref(&m)),
                "{why}: cards not in the hand"
            );
            assert_eq!(m.len(), 3, "{why}: at its shortest");
            assert!(
                engine::read(&rules, &m.pinned(&rules)).is_ok(),
                "{why}: read as laid"
            );
        }
    }
}
