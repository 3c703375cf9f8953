//! Extending melds on the table: lay-offs, replacing wilds, moving jokers
//! (docs/rules.md#may_i-after-down,
//! #may_i-wild-swap, #joker-moves, #push-rescue).

use engine::MeldKind::{Run, Set};
use engine::ReasonCode::{self, *};
use engine::Variant::{Continental, Contract7, MayI, Push};
use engine::{Card, Reading, Ruleset, RunEnd, Variant};

use crate::helpers::{card, cards, describe, designations, reading, rules};

struct LayOff {
    rule: &'static str,
    variant: Variant,
    /// The meld on the table: cards and designations (read as one reading).
    meld: (&'static str, Option<engine::MeldKind>, &'static str),
    add: &'static str,
    add_wilds: &'static str,
    expect: Result<&'static [&'static str], ReasonCode>,
}

fn lay(
    rule: &'static str,
    variant: Variant,
    meld: (&'static str, Option<engine::MeldKind>, &'static str),
    add: &'static str,
    expect: Result<&'static [&'static str], ReasonCode>,
) -> LayOff {
    LayOff {
        rule,
        variant,
        meld,
        add,
        add_wilds: "",
        expect,
    }
}

#[test]
fn lay_offs() {
    let run_5_8 = ("5H 6H 7H 8H", None, "");
    let rows = vec![
        lay(
            "§2 lay off at the high end",
            MayI,
            run_5_8,
            "9H",
            Ok(&["run H: 5H 6H 7H 8H 9H (n5 w0)"]),
        ),
        lay(
            "§2 lay off at the low end",
            MayI,
            run_5_8,
            "4H",
            Ok(&["run H: 4H 5H 6H 7H 8H (n5 w0)"]),
        ),
        lay(
            "§2 lay off at both ends at once",
            MayI,
            run_5_8,
            "9H 4H",
            Ok(&["run H: 4H 5H 6H 7H 8H 9H (n6 w0)"]),
        ),
        lay(
            "§1 a wild laid off on a run: either end",
            MayI,
            run_5_8,
            "JK",
            Ok(&[
                "run H: JK=4H 5H 6H 7H 8H (n4 w1)",
                "run H: 5H 6H 7H 8H JK=9H (n4 w1)",
            ]),
        ),
        LayOff {
            add_wilds: "JK=9H",
            ..lay(
                "§1 the designation names the end",
                MayI,
                run_5_8,
                "JK",
                Ok(&["run H: 5H 6H 7H 8H JK=9H (n4 w1)"]),
            )
        },
        lay(
            "§1 a card that leaves a gap does not fit",
            MayI,
            run_5_8,
            "TH",
            Err(DoesNotFit),
        ),
        lay(
            "§1 another suit does not fit a run",
            MayI,
            run_5_8,
            "9S",
            Err(MixedSuits),
        ),
        lay(
            "§1 a wild is never shifted: its natural is no lay-off",
            MayI,
            ("5H JK 7H 8H", None, ""),
            "6H",
            Err(DuplicateRank),
        ),
        lay(
            "§1 ace high end",
            MayI,
            ("JC QC KC AC", None, ""),
            "TC",
            Ok(&["run C: TC JC QC KC AC (n5 w0)"]),
        ),
        lay(
            "§1 not round the corner",
            MayI,
            ("JC QC KC AC", None, ""),
            "2C",
            Err(DoesNotFit),
        ),
        lay(
            "§1 ace low end",
            Contract7,
            ("2C 3C 4C 5C", None, ""),
            "AC",
            Ok(&["run C: AC 2C 3C 4C 5C (n5 w0)"]),
        ),
        lay(
            "§1 no run longer than 13",
            Contract7,
            ("AC 2C 3C 4C 5C 6C 7C 8C 9C TC JC QC KC", None, ""),
            "JK",
            Err(TooLong),
        ),
        lay(
            "§1 a set takes its rank",
            MayI,
            ("7C 7D 7H", None, ""),
            "7C",
            Ok(&["set 7: 7C 7C 7D 7H (n4 w0)"]),
        ),
        lay(
            "§1 a set takes no other rank",
            MayI,
            ("7C 7D 7H", None, ""),
            "8C",
            Err(MixedRanks),
        ),
        lay(
            "§2 a wild on a set within the limit",
            MayI,
            ("7C 7D JK", None, ""),
            "JK",
            Ok(&["set 7: 7C 7D JK=7 JK=7 (n2 w2)"]),
        ),
        lay(
            "§2 the wild limit holds at every moment",
            MayI,
            ("7C 7D JK", None, ""),
            "JK AD",
            Err(TooManyWilds),
        ),
        lay(
            "§2 only wilds on a wild trio",
            MayI,
            ("JK JK AH", Some(Set), "JK=* AH=*"),
            "7C",
            Err(WildTrioTakesOnlyWilds),
        ),
        lay(
            "§2 a wild on a wild trio",
            MayI,
            ("JK JK AH", Some(Set), "JK=* AH=*"),
            "AD",
            Ok(&["set *: AD=* AH=* JK=* JK=* (n0 w4)"]),
        ),
        lay(
            "§3 any number of jokers in contract_7",
            Contract7,
            ("TC JK JK", None, ""),
            "JK",
            Ok(&["set T: TC JK=T JK=T JK=T (n1 w3)"]),
        ),
        lay(
            "§5 a two on a set",
            Push,
            ("9C 9D 9H", None, ""),
            "2S",
            Ok(&["set 9: 9C 9D 9H 2S=9 (n3 w1)"]),
        ),
        lay(
            "§5 the first natural laid off on a rankless set fixes its rank",
            Push,
            ("JK JK JK", Some(Set), ""),
            "9C",
            Ok(&["set 9: 9C JK=9 JK=9 JK=9 (n1 w3)"]),
        ),
        lay(
            "§5 a wild laid off on a rankless set leaves it rankless",
            Push,
            ("JK JK JK", Some(Set), ""),
            "2S",
            Ok(&["set *: 2S=* JK=* JK=* JK=* (n0 w4)"]),
        ),
        lay(
            "§5 naturals of two ranks cannot fix one rank",
            Push,
            ("JK JK JK", Some(Set), ""),
            "9C 8C",
            Err(MixedRanks),
        ),
        lay("§1 no cards", MayI, run_5_8, "", Err(Empty)),
    ];
    let mut failures = Vec::new();
    for row in rows {
        let rules = rules(row.variant);
        let (meld, kind, wilds) = row.meld;
        let on_table = reading(&rules, meld, kind, wilds, row.rule);
        let analysis = on_table.lay_off(&rules, &cards(row.add), &designations(row.add_wilds));
        let mut got: Vec<String> = analysis.readings.iter().map(describe).collect();
        got.sort();
        let ok = match row.expect {
            Ok(want) => {
                let mut want: Vec<String> = want.iter().map(|s| (*s).to_owned()).collect();
                want.sort();
                got == want
            }
            Err(code) => got.is_empty() && analysis.reasons.iter().any(|r| r.code == code),
        };
        if !ok {
            failures.push(format!(
                "{}: got {got:?}, reasons {:?}",
                row.rule, analysis.reasons
            ));
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

fn table(rules: &Ruleset, meld: &str, wilds: &str) -> Reading {
    reading(rules, meld, None, wilds, "a meld on the table")
}

#[test]
fn replacing_wilds_by_variant() {
    let may_i = rules(MayI);
    let run = table(&may_i, "5H JK 7H 8H", "");
    let (after, freed) = run
        .replace_wild(&may_i, card("6H"))
        .expect("§2 may_i replaces a wild in a run");
    assert_eq!(
        describe(&after),
        "run H: 5H 6H 7H 8H (n4 w0)",
        "§2 the natural takes the wild's place"
    );
    assert_eq!(freed, Card::JOKER, "§2 the freed wild goes to the player");

    let red_ace = table(&may_i, "5S 6S AD 8S", "");
    let (_, freed) = red_ace
        .replace_wild(&may_i, card("7S"))
        .expect("§2 a red ace is a wild too");
    assert_eq!(freed, card("AD"));

    let set = table(&may_i, "7C 7D JK", "");
    let err = set
        .replace_wild(&may_i, card("7H"))
        .expect_err("§2 wilds in sets are never replaced");
    assert_eq!(err.code(), "swap_not_allowed");
    let err = run
        .replace_wild(&may_i, card("9H"))
        .expect_err("§2 only the card the wild represents");
    assert_eq!(err.code(), "no_wild_for_card");
    let own = table(&may_i, "AH 2H 3H 4H", "AH=AH");
    let err = own
        .replace_wild(&may_i, card("AH"))
        .expect_err("§1 a wild representing itself is natural");
    assert_eq!(err.code(), "no_wild_for_card");

    let push = rules(Push);
    let set = table(&push, "9C 9D JK", "");
    let (after, freed) = set
        .replace_wild(&push, card("9S"))
        .expect("§5 push rescues from any meld, sets too");
    assert_eq!(
        (describe(&after).as_str(), freed),
        ("set 9: 9C 9D 9S (n3 w0)", Card::JOKER)
    );
    let run = table(&push, "5C 2D 7C", "");
    let (after, freed) = run.replace_wild(&push, card("6C")).expect("§5 rescuing a two");
    assert_eq!(
        (describe(&after).as_str(), freed),
        ("run C: 5C 6C 7C (n3 w0)", card("2D"))
    );
    let natural_two = table(&push, "AC 2C 3C 4C", "");
    let err = natural_two
        .replace_wild(&push, card("2C"))
        .expect_err("§5 a natural two cannot be rescued");
    assert_eq!(err.code(), "no_wild_for_card");

    let c7 = rules(Contract7);
    let run = table(&c7, "5H JK 7H 8H", "");
    let err = run
        .replace_wild(&c7, card("6H"))
        .expect_err("§3 contract_7 moves the joker instead");
    assert_eq!(err.code(), "swap_not_allowed");
    let cont = rules(Continental);
    let run = table(&cont, "5H JK 7H", "");
    let err = run
        .replace_wild(&cont, card("6H"))
        .expect_err("§4 no table play in continental");
    assert_eq!(err.code(), "swap_not_allowed");
}

#[test]
fn joker_moves_to_an_end() {
    let c7 = rules(Contract7);
    let run = table(&c7, "AC 2C 3C JK 5C", "");
    let moved = run
        .move_joker_to_end(card("4C"), None)
        .expect("§3 A 2 3 JK 5 + 4");
    assert_eq!(
        describe(&moved),
        "run C: AC 2C 3C 4C 5C JK=6C (n5 w1)",
        "§3 becomes A 2 3 4 5 JK (the low end is blocked by the ace)"
    );

    let middle = table(&c7, "5C JK 7C 8C", "");
    let err = middle
        .move_joker_to_end(card("6C"), None)
        .expect_err("§3 either end: say which");
    assert_eq!(err.code(), "end_required");
    let low = middle
        .move_joker_to_end(card("6C"), Some(RunEnd::Low))
        .expect("§3 to the low end");
    assert_eq!(describe(&low), "run C: JK=4C 5C 6C 7C 8C (n4 w1)");
    let high = middle
        .move_joker_to_end(card("6C"), Some(RunEnd::High))
        .expect("§3 to the high end");
    assert_eq!(describe(&high), "run C: 5C 6C 7C 8C JK=9C (n4 w1)");

    let ace_high = table(&c7, "JC QC JK AC", "");
    let err = ace_high
        .move_joker_to_end(card("KC"), Some(RunEnd::High))
        .expect_err("§1 nothing above the high ace");
    assert_eq!(err.code(), "end_blocked");
    let full = table(&c7, "AC 2C 3C 4C 5C 6C JK 8C 9C TC JC QC KC", "");
    let err = full
        .move_joker_to_end(card("7C"), None)
        .expect_err("§1 no run longer than 13");
    assert_eq!(err.code(), "end_blocked");
    let err = middle
        .move_joker_to_end(card("9C"), None)
        .expect_err("§3 the natural replaces a joker");
    assert_eq!(err.code(), "no_wild_for_card");
    let set = table(&c7, "TC JK JK", "");
    let err = set
        .move_joker_to_end(card("TD"), None)
        .expect_err("§3 joker moves are for runs");
    assert_eq!(err.code(), "swap_not_allowed");
}

#[test]
fn end_joker_leaves_at_least_four() {
    let c7 = rules(Contract7);
    let five = table(&c7, "5C 6C 7C 8C JK", "JK=9C");
    let left = five
        .take_end_joker(RunEnd::High, 4)
        .expect("§3 an end joker moves to another run");
    assert_eq!(describe(&left), "run C: 5C 6C 7C 8C (n4 w0)");
    let low = table(&c7, "JK 6C 7C 8C 9C", "JK=5C");
    let left = low.take_end_joker(RunEnd::Low, 4).expect("§3 from the low end");
    assert_eq!(left.span(), Some((6, 9)));

    let four = table(&c7, "5C 6C 7C JK", "JK=8C");
    let err = four
        .take_end_joker(RunEnd::High, 4)
        .expect_err("§3 no run under 4 cards");
    assert_eq!(err.code(), "run_too_short");
    let err = five
        .take_end_joker(RunEnd::Low, 4)
        .expect_err("§3 only a joker at an end");
    assert_eq!(err.code(), "no_joker_at_end");

    // The freed joker goes onto another run as a lay-off naming its place.
    let other = table(&c7, "9D TD JD QD", "");
    let after = other.lay_off(&c7, &[Card::JOKER], &designations("JK=KD"));
    assert_eq!(
        after.readings.len(),
        1,
        "§3 the joker may be moved to another run"
    );
    assert_eq!(after.readings[0].kind(), Run);
}
