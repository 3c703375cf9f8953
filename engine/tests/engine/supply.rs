//! No meld or contract holds more copies of a card than the variant's largest table shuffles
//! together (docs/rules.md, "Players and packs" of §2 to §5).

use engine::Variant::{Continental, Contract7, MayI, Push};
use engine::{ContractCode, ReasonCode, analyse, check_proposed_contract};
use serde_json::json;

use crate::helpers::{proposal, rules, rules_with};

#[test]
fn a_meld_holds_no_more_copies_than_the_packs() {
    // (why, rules, cards, over the supply)
    let rows = [
        (
            "may_i: four packs at eight players",
            rules(MayI),
            "7H 7H 7H 7H",
            false,
        ),
        ("may_i: no fifth 7H", rules(MayI), "7H 7H 7H 7H 7H", true),
        (
            "may_i: eight jokers at most",
            rules(MayI),
            "7H 7S 7D 7C 7H 7S 7D 7C 7H JK JK JK JK JK JK JK JK JK",
            true,
        ),
        (
            "contract_7: three packs at most",
            rules(Contract7),
            "7H 7H 7H 7H",
            true,
        ),
        (
            "contract_7: three jokers at most",
            rules(Contract7),
            "5H 6H 7H 8H 9H JK JK JK JK",
            true,
        ),
        (
            "continental: four packs, a joker each",
            rules(Continental),
            "5H 6H 7H 8H 9H JK JK JK JK JK",
            true,
        ),
        (
            "continental: four jokers fit",
            rules(Continental),
            "5H 6H 7H 8H 9H JK JK JK JK",
            false,
        ),
        (
            "continental without jokers",
            rules_with(Continental, json!({"jokers_per_pack": 0})),
            "5H 6H JK",
            true,
        ),
        ("push: two packs", rules(Push), "7H 7H 7H", true),
        (
            "push individual: three packs",
            rules_with(Push, json!({"individual": true})),
            "7H 7H 7H",
            false,
        ),
    ];
    for (why, rules, cards, over) in rows {
        let analysis = analyse(&rules, &proposal(cards, None, ""));
        let refused = analysis
            .reasons
            .iter()
            .any(|r| r.code == ReasonCode::TooManyCopies);
        assert_eq!(refused, over, "{why}: {cards} gave {:?}", analysis.reasons);
        if over {
            assert!(analysis.readings.is_empty(), "{why}: no reading");
        }
    }
}

#[test]
fn a_contract_holds_no_more_copies_than_the_packs() {
    let melds = [proposal("7H 7H 7H", None, ""), proposal("7H 7H 7S", None, "")];
    let reasons = check_proposed_contract(&rules(MayI), 1, &melds).expect_err("five 7H in two melds");
    assert!(
        reasons.iter().any(|r| r.code == ContractCode::TooManyCopies),
        "the whole is checked: {reasons:?}"
    );
    let melds = [proposal("7H 7H 7H", None, ""), proposal("7H 7S 7S", None, "")];
    assert!(
        check_proposed_contract(&rules(MayI), 1, &melds).is_ok(),
        "four 7H fit four packs"
    );
}
