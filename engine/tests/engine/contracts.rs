//! Contracts (docs/rules.md#contracts, #may_i-contracts, #push-contracts) and
//! continental's going out (docs/rules.md#continental-going-out).

use engine::ContractCode::{self, *};
use engine::MeldKind::{Run, Set};
use engine::Variant::{Continental, Contract7, MayI, Push};
use engine::{ProposedMeld, Ruleset, Variant, check_proposed_contract};
use serde_json::json;

use crate::helpers::{proposal, rules, rules_with};

/// A meld as `"cards"` or `"cards | JK=5H"` (with designations).
fn melds(list: &[&str]) -> Vec<ProposedMeld> {
    list.iter()
        .map(|m| {
            let (cards, wilds) = m.split_once('|').unwrap_or((m, ""));
            proposal(cards, None, wilds)
        })
        .collect()
}

fn accepts(rules: &Ruleset, deal: u8, list: &[&str], why: &str) -> Vec<engine::Reading> {
    check_proposed_contract(rules, deal, &melds(list)).unwrap_or_else(|e| panic!("{why}: refused with {e:?}"))
}

fn refuses(rules: &Ruleset, deal: u8, list: &[&str], code: ContractCode, why: &str) {
    match check_proposed_contract(rules, deal, &melds(list)) {
        Ok(r) => panic!("{why}: accepted as {r:?}"),
        Err(reasons) => assert!(
            reasons.iter().any(|r| r.code == code),
            "{why}: expected {code:?}, got {reasons:?}"
        ),
    }
}

/// One accepted contract for each deal of `may_i` and `contract_7` (the same seven).
const SEVEN_DEALS: [(&str, &[&str]); 7] = [
    ("deal 1: two sets", &["7C 7D 7H", "KS KD KC"]),
    ("deal 2: one set and one run", &["7C 7D 7H", "5S 6S 7S 8S"]),
    ("deal 3: two runs", &["5S 6S 7S 8S", "9H TH JH QH"]),
    ("deal 4: three sets", &["7C 7D 7H", "KS KD KC", "4C 4C 4D"]),
    (
        "deal 5: two sets and one run",
        &["7C 7D 7H", "KS KD KC", "5S 6S 7S 8S"],
    ),
    (
        "deal 6: one set and two runs",
        &["7C 7D 7H", "5S 6S 7S 8S", "9H TH JH QH"],
    ),
    (
        "deal 7: three runs",
        &["5S 6S 7S 8S", "9H TH JH QH", "AC 2C 3C 4C"],
    ),
];

#[test]
fn every_deal_of_may_i_and_contract_7() {
    for variant in [MayI, Contract7] {
        let rules = rules(variant);
        for (deal, (why, list)) in (1..).zip(SEVEN_DEALS) {
            let laid = accepts(&rules, deal, list, &format!("§2/§3 {variant} {why}"));
            assert_eq!(laid.len(), list.len());
            // The next deal's contract is different: the same melds never fulfil it.
            let next = if deal == 7 { 1 } else { deal + 1 };
            assert!(
                check_proposed_contract(&rules, next, &melds(list)).is_err(),
                "§2 {variant} deal {next} is not {why}"
            );
        }
    }
}

#[test]
fn may_i_contract_rules() {
    let may_i = rules(MayI);
    refuses(
        &may_i,
        1,
        &["7C 7D 7H", "KS KD KC", "4C 4C 4D"],
        WrongMeldCount,
        "§2 deal 1 with three sets is illegal",
    );
    refuses(
        &may_i,
        4,
        &["7C 7D 7H", "KS KD KC"],
        WrongMeldCount,
        "§2 deal 4 needs three sets",
    );
    accepts(
        &may_i,
        1,
        &["7C 7D 7H 7S JK", "KS KD KC"],
        "§1 contract melds may be longer",
    );
    accepts(
        &may_i,
        3,
        &["5S 6S 7S 8S", "9S TS JS QS"],
        "§2 runs of the same suit are allowed, even touching",
    );
    refuses(
        &may_i,
        2,
        &["7C 7D 7H", "KS KD KC"],
        KindsDoNotMatch,
        "§2 deal 2 needs a run",
    );
    refuses(
        &may_i,
        2,
        &["7C 7D JK JK JK", "5S 6S 7S 8S"],
        IllegalMeld,
        "§2 an illegal meld",
    );
    refuses(
        &may_i,
        3,
        &["5S 6S 7S JK", "9H TH JH QH"],
        AmbiguousMeld,
        "§1 more than one reading: refused",
    );
    accepts(
        &may_i,
        3,
        &["5S 6S 7S JK | JK=8S", "9H TH JH QH"],
        "§1 the designation resolves it",
    );
    accepts(&may_i, 1, &["JK JK AH", "KS KD KC"], "§2 a wild trio is a set");
    refuses(
        &may_i,
        3,
        &["5S 6S 7S", "9H TH JH QH"],
        IllegalMeld,
        "§2 runs of 4+",
    );
    let reasons = check_proposed_contract(&may_i, 2, &melds(&["7C 7D 7H", "5S 6S 8S 9S"])).expect_err("gap");
    assert_eq!(reasons[0].meld, Some(1), "§1 the reason names the illegal meld");
    assert!(
        !reasons[0].meld_reasons.is_empty(),
        "§1 with that meld's own reasons"
    );
}

#[test]
fn contract_7_contract_rules() {
    let c7 = rules(Contract7);
    accepts(&c7, 1, &["TC JK JK", "KS KD KC"], "§3 T JK JK is a trio");
    refuses(
        &c7,
        1,
        &["JK JK JK", "KS KD KC"],
        IllegalMeld,
        "§3 no all-joker meld",
    );
    accepts(
        &c7,
        7,
        &["5S JK JK JK | JK=6S JK=7S JK=8S", "9H TH JH QH", "AD 2D 3D 4D"],
        "§3 jokers in runs",
    );
    refuses(
        &c7,
        1,
        &["7C 7D 7H", "KS KD KC", "4C 4C 4D"],
        WrongMeldCount,
        "§3 exactly the contract",
    );
}

#[test]
fn every_deal_of_push() {
    let push = rules(Push);
    let deals: [(&str, &[&str]); 5] = [
        ("deal 1: two sets of three", &["7C 7D 7H", "KS KD KC"]),
        (
            "deal 2: a set of three and a run of four",
            &["7C 7D 7H", "5S 6S 7S 8S"],
        ),
        ("deal 3: two runs of four", &["5S 6S 7S 8S", "9H TH JH QH"]),
        (
            "deal 4: three sets of three",
            &["7C 7D 7H", "KS KD KC", "4C 4C 4D"],
        ),
        ("deal 5: two runs of five", &["5S 6S 7S 8S 9S", "9H TH JH QH KH"]),
    ];
    for (deal, (why, list)) in (1..).zip(deals) {
        accepts(&push, deal, list, &format!("§5 {why}"));
    }
    refuses(
        &push,
        2,
        &["7C 7D 7H", "5S 6S 7S"],
        KindsDoNotMatch,
        "§5 deal 2's run is of four",
    );
    refuses(
        &push,
        5,
        &["5S 6S 7S 8S", "9H TH JH QH KH"],
        KindsDoNotMatch,
        "§5 deal 5: runs of five",
    );
    accepts(&push, 1, &["7C 7D 7H 2C", "KS KD KC KC"], "§5 sizes are minimums");
    accepts(
        &push,
        3,
        &["5S 2C 7S 8S", "9H TH JK QH"],
        "§5 twos and jokers wild",
    );

    let three_and_seven = rules_with(Push, json!({"three_and_seven": true}));
    accepts(
        &three_and_seven,
        5,
        &["5S 6S 7S", "9H TH JH QH KH AH JK"],
        "§5 three_and_seven: 3 and 7",
    );
    accepts(
        &three_and_seven,
        5,
        &["5S 6S 7S", "6H 7H 8H 9H TH JH QH"],
        "§5 three_and_seven, either order",
    );
    refuses(
        &three_and_seven,
        5,
        &["5S 6S 7S 8S 9S", "9H TH JH QH KH"],
        KindsDoNotMatch,
        "§5 not two of five",
    );
}

/// A meld list's kinds, checked through `kind` too: a proposed kind narrows the readings.
#[test]
fn a_proposed_kind_is_respected() {
    let push = rules(Push);
    let mut list = melds(&["9C JK 2S", "KS KD KC"]);
    assert!(
        check_proposed_contract(&push, 1, &list).is_err(),
        "§5 one natural: kind must be named"
    );
    list[0].kind = Some(Set);
    check_proposed_contract(&push, 1, &list).expect("§5 named as a set");
    list[0].kind = Some(Run);
    assert!(
        check_proposed_contract(&push, 1, &list).is_err(),
        "§5 named as a run it is no set"
    );
}

#[test]
fn continental_going_out() {
    let cont = rules(Continental);
    let five_threes = ["3C 4C 5C", "9C TC JC", "4D 5D 6D", "JH QH KH", "7S 8S 9S"];
    let laid = accepts(&cont, 1, &five_threes, "§4 five 3-card sequences");
    assert_eq!(laid.iter().map(|r| r.len()).collect::<Vec<_>>(), [3, 3, 3, 3, 3]);
    accepts(
        &cont,
        1,
        &["3C 4C 5C 6C", "9C TC JC QC", "4D 5D 6D 7D", "JH QH KH"],
        "§4 4+4+4+3",
    );
    accepts(
        &cont,
        1,
        &["3C 4C 5C 6C 7C", "9C TC JC QC", "4D 5D 6D", "JH QH KH"],
        "§4 5+4+3+3",
    );
    accepts(
        &cont,
        1,
        &["3C 4C 5C", "3C 4C 5C", "6C 7C 8C", "6C 7C 8C", "9C TC JC"],
        "§4 sequences may share a suit (and cards, as far as the packs go)",
    );

    // A long sequence is split to fit: 8 = 5 + 3 and 7 = 4 + 3.
    let laid = accepts(
        &cont,
        1,
        &["3C 4C 5C 6C 7C 8C 9C TC", "4D 5D 6D 7D 8D 9D TD"],
        "§4 long sequences split (8 = 5+3 or 4+4, 7 = 4+3)",
    );
    let mut sizes: Vec<usize> = laid.iter().map(|r| r.len()).collect();
    sizes.sort_unstable();
    assert!(
        [[3, 3, 4, 5], [3, 4, 4, 4]].contains(&sizes.as_slice().try_into().expect("four pieces")),
        "§4 split into 5+4+3+3 or 4+4+4+3, got {sizes:?}"
    );
    let laid = accepts(
        &cont,
        1,
        &["AS 2S 3S 4S 5S 6S 7S 8S 9S TS JS QS | 2S=2S", "4D 5D 6D"],
        "§4 a 12-card sequence is cut (3+3+3+3 or 4+4+4)",
    );
    assert!(laid.iter().all(|r| r.len() <= 5) && laid.iter().map(|r| r.len()).sum::<usize>() == 15);

    refuses(
        &cont,
        1,
        &["3C 4C 5C", "9C TC JC", "4D 5D 6D", "JH QH KH"],
        WrongCardCount,
        "§4 all 15 cards",
    );
    refuses(
        &cont,
        1,
        &["3C 4C 5C 6C 7C", "9C TC JC QC KC", "4D 5D 6D 7D 8D"],
        NoPattern,
        "§4 three sequences of 5 are no pattern",
    );
    refuses(
        &cont,
        1,
        &[
            "5H 6H 7H 2C 2D 2S | 2C=8H 2D=9H 2S=TH",
            "3C 4C 5C",
            "9C TC JC",
            "4D 5D 6D",
        ],
        NoPattern,
        "§4 every piece of a split sequence needs a natural card",
    );
    refuses(
        &cont,
        1,
        &["7C 7D 7H", "3C 4C 5C 6C", "9C TC JC QC", "4D 5D 6D 7D"],
        IllegalMeld,
        "§4 sets do not count",
    );
}

#[test]
fn contracts_of_every_variant_are_described() {
    for variant in Variant::ALL {
        let rules = rules(variant);
        for deal in 1..=rules.deals() {
            let contract = rules.contract(deal);
            assert!(!contract.describe().is_empty());
            assert!(
                contract.min_cards() <= rules.hand_size(deal),
                "{variant} deal {deal}: hand can hold the contract"
            );
        }
    }
}

#[test]
fn many_readings_are_grouped_not_multiplied() {
    let cont = rules(Continental);
    // Each meld has a hundred readings (four different wilds around one natural): trying
    // every combination would take minutes; what matters is how each can be cut.
    let started = std::time::Instant::now();
    refuses(
        &cont,
        1,
        &["5H 2C 2D 2S JK", "5D 2C 2H 2S JK", "5S 2C 2D 2H JK"],
        NoPattern,
        "§4 three sequences of five fit no pattern, however the wilds lie",
    );
    refuses(
        &cont,
        1,
        &[
            "5H 2C 2D 2S JK 2H",
            "5D 2C 2H 2S JK 2D",
            "5S 2C 2D 2H JK 2S",
            "5C 2C 2D 2H JK 2S",
        ],
        WrongCardCount,
        "§4 24 cards are not 15",
    );
    refuses(
        &cont,
        1,
        &["3C 4C 5C", "9C TC JC", "4D 5D 6D", "JH QH KH", "7S 8S 2D"],
        AmbiguousMeld,
        "§1 the deuce may be 6S or 9S: the request must say",
    );
    accepts(
        &cont,
        1,
        &["3C 4C 5C", "9C TC JC", "4D 5D 6D", "JH QH KH", "7S 8S 2D | 2D=9S"],
        "§1 the designation settles it",
    );
    let may_i = rules(MayI);
    refuses(
        &may_i,
        7,
        &["5S 6S 7S 8S JK AH", "9H TH JH QH JK AD", "2C 3C 4C 5C JK AH"],
        AmbiguousMeld,
        "§1 the wilds can lie at either end",
    );
    assert!(
        started.elapsed().as_secs() < 5,
        "grouped readings are checked quickly"
    );
}
