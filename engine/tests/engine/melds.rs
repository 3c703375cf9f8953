//! Reading melds (docs/rules.md#sets, #runs, #readings, and each variant's wilds and melds;
//! a row's "§N" is that section of docs/rules.md).

use engine::MeldKind::{Run, Set};
use engine::ReasonCode::{self, *};
use engine::Variant::{Continental, Contract7, MayI, Push};
use engine::{MeldError, MeldKind, Ruleset, Variant, analyse, read};
use serde_json::json;

use crate::helpers::{describe, proposal, rules, rules_with};

/// What a row expects: exactly these readings (as [`describe`] writes them), or refusal with
/// at least these reason codes.
enum Expect {
    Readings(&'static [&'static str]),
    Refused(&'static [ReasonCode]),
}
use Expect::{Readings, Refused};

struct Row {
    rule: &'static str,
    rules: Ruleset,
    cards: &'static str,
    kind: Option<MeldKind>,
    wilds: &'static str,
    expect: Expect,
}

fn row(rule: &'static str, variant: Variant, cards: &'static str, expect: Expect) -> Row {
    Row {
        rule,
        rules: rules(variant),
        cards,
        kind: None,
        wilds: "",
        expect,
    }
}

impl Row {
    fn kind(mut self, kind: MeldKind) -> Row {
        self.kind = Some(kind);
        self
    }
    fn wilds(mut self, wilds: &'static str) -> Row {
        self.wilds = wilds;
        self
    }
    fn options(mut self, options: serde_json::Value) -> Row {
        self.rules = rules_with(self.rules.variant(), options);
        self
    }
}

fn check(rows: Vec<Row>) {
    let mut failures = Vec::new();
    for row in rows {
        let analysis = analyse(&row.rules, &proposal(row.cards, row.kind, row.wilds));
        let mut got: Vec<String> = analysis.readings.iter().map(describe).collect();
        got.sort();
        let codes: Vec<ReasonCode> = analysis.reasons.iter().map(|r| r.code).collect();
        let ok = match &row.expect {
            Readings(want) => {
                let mut want: Vec<String> = want.iter().map(|s| (*s).to_owned()).collect();
                want.sort();
                got == want && codes.is_empty()
            }
            Refused(want) => got.is_empty() && want.iter().all(|c| codes.contains(c)),
        };
        if !ok {
            failures.push(format!(
                "{} [{} {:?} {:?} {:?}]\n    got readings {got:?}\n    reasons {codes:?}",
                row.rule,
                row.rules.variant(),
                row.cards,
                row.kind,
                row.wilds
            ));
        }
    }
    assert!(
        failures.is_empty(),
        "{} rows failed:\n{}",
        failures.len(),
        failures.join("\n")
    );
}

#[test]
fn sets() {
    check(vec![
        row(
            "§1 set: suits may repeat (two 3C from two packs)",
            MayI,
            "3C 3C 3H",
            Readings(&["set 3: 3C 3C 3H (n3 w0)"]),
        ),
        row(
            "§1 set: any order, four of a rank",
            Contract7,
            "7S 7C 7H 7D",
            Readings(&["set 7: 7C 7D 7H 7S (n4 w0)"]),
        ),
        row("§1 set: three or more cards", MayI, "7C 7D", Refused(&[TooShort])),
        row("§1 set: one rank", Contract7, "7C 7D 8C", Refused(&[MixedRanks])),
        row(
            "§2 a joker in a set",
            MayI,
            "7C JK 7D",
            Readings(&["set 7: 7C 7D JK=7 (n2 w1)"]),
        ),
        row(
            "§2 wilds may equal naturals",
            MayI,
            "7C 7D JK AH",
            Readings(&["set 7: 7C 7D AH=7 JK=7 (n2 w2)"]),
        ),
        row(
            "§2 wilds may not outnumber naturals",
            MayI,
            "7C JK JK",
            Refused(&[TooManyWilds]),
        ),
        row("§2 red aces are wild", MayI, "7C AD AH", Refused(&[TooManyWilds])),
        row(
            "§2 black aces are natural",
            MayI,
            "7C AS AC",
            Refused(&[MixedRanks]),
        ),
        row(
            "§2 wild trio: a set made only of wilds",
            MayI,
            "JK AH JK",
            Readings(&["set *: AH=* JK=* JK=* (n0 w3)"]),
        ),
        row(
            "§1 red aces representing themselves count as natural (or make a wild trio)",
            MayI,
            "AH AD JK",
            Readings(&["set A: AD AH JK=A (n2 w1)", "set *: AD=* AH=* JK=* (n0 w3)"]),
        ),
        row(
            "§1 a red ace in a set of aces is natural",
            MayI,
            "AS JK AH",
            Readings(&["set A: AH AS JK=A (n2 w1)"]),
        ),
        row(
            "§1 deuces representing themselves are natural (may_i deuces_wild)",
            MayI,
            "2C 2D 2H",
            Readings(&["set 2: 2C 2D 2H (n3 w0)", "set *: 2C=* 2D=* 2H=* (n0 w3)"]),
        )
        .options(json!({"deuces_wild": true})),
        row(
            "§2 deuces are natural by default",
            MayI,
            "2C 2D 2H",
            Readings(&["set 2: 2C 2D 2H (n3 w0)"]),
        ),
        row(
            "§2 deuces_wild: a deuce in a set of sevens",
            MayI,
            "7C 7H 2S",
            Readings(&["set 7: 7C 7H 2S=7 (n2 w1)"]),
        )
        .options(json!({"deuces_wild": true})),
        row(
            "§3 T JK JK is a trio of tens",
            Contract7,
            "JK TC JK",
            Readings(&["set T: TC JK=T JK=T (n1 w2)"]),
        ),
        row(
            "§3 red aces are not wild",
            Contract7,
            "AH AD AC",
            Readings(&["set A: AC AD AH (n3 w0)"]),
        ),
        row(
            "§3 every meld needs a natural card",
            Contract7,
            "JK JK JK",
            Refused(&[NoNatural]),
        ),
        row(
            "§4 sets do not count in continental",
            Continental,
            "7C 7D 7H",
            Refused(&[SetsNotAllowed]),
        ),
        row(
            "§4 sets do not count, even when asked for",
            Continental,
            "7C 7D 7H",
            Refused(&[SetsNotAllowed]),
        )
        .kind(Set),
        row(
            "§5 twos and jokers wild, any number",
            Push,
            "9C 9D JK 2S JK",
            Readings(&["set 9: 9C 9D 2S=9 JK=9 JK=9 (n2 w3)"]),
        ),
        row(
            "§5 one natural: the kind must be named",
            Push,
            "9C JK 2S",
            Refused(&[KindRequired]),
        ),
        row(
            "§5 one natural, kind named",
            Push,
            "9C JK 2S",
            Readings(&["set 9: 9C 2S=9 JK=9 (n1 w2)"]),
        )
        .kind(Set),
        row(
            "§5 all wild, naming only its kind: a set with no rank yet",
            Push,
            "JK JK JK",
            Readings(&["set *: JK=* JK=* JK=* (n0 w3)"]),
        )
        .kind(Set),
        row(
            "§5 all wild without its kind: the kind must be named",
            Push,
            "JK JK JK",
            Refused(&[KindRequired]),
        ),
        row(
            "§5 all wild as a run: every wild must be named",
            Push,
            "JK JK JK",
            Refused(&[DesignationRequired]),
        )
        .kind(Run),
        row(
            "§5 twos and a joker as a set with no rank, asked for with *",
            Push,
            "2C 2D JK",
            Readings(&["set *: 2C=* 2D=* JK=* (n0 w3)"]),
        )
        .kind(Set)
        .wilds("2C=* 2D=* JK=*"),
        row(
            "§5 contract_7 has no set without a natural",
            Contract7,
            "JK JK JK",
            Refused(&[NoNatural]),
        )
        .kind(Set),
        row(
            "§5 twos standing for themselves make a set of twos",
            Push,
            "JK JK 2S",
            Readings(&["set 2: 2S JK=2 JK=2 (n1 w2)"]),
        )
        .kind(Set),
        row(
            "§5 all wild with its rank named",
            Push,
            "JK JK 2S",
            Readings(&["set 9: 2S=9 JK=9 JK=9 (n0 w3)"]),
        )
        .kind(Set)
        .wilds("JK=9"),
        row(
            "§5 twos representing themselves are natural",
            Push,
            "2C 2D JK",
            Readings(&["set 2: 2C 2D JK=2 (n2 w1)"]),
        ),
        row(
            "§1 designation: a wild of this set names its rank",
            MayI,
            "7C 7D JK",
            Refused(&[DesignationMismatch]),
        )
        .wilds("JK=8"),
        row(
            "§1 designation: only wilds are designated",
            MayI,
            "7C 7D JK",
            Refused(&[DesignationMismatch]),
        )
        .wilds("7C=7"),
        row(
            "§1 designation: no more than the meld holds",
            MayI,
            "7C 7D JK",
            Refused(&[DesignationMismatch]),
        )
        .wilds("JK=7 JK=7"),
        row(
            "§1 designation: `*` only in an all-wild set",
            MayI,
            "7C 7D JK",
            Refused(&[DesignationMismatch]),
        )
        .wilds("JK=*"),
        row("§1 a meld needs cards", MayI, "", Refused(&[Empty])),
    ]);
}

#[test]
fn runs() {
    let ace_to_king = "AC 2C 3C 4C 5C 6C 7C 8C 9C TC JC QC KC";
    check(vec![
        row(
            "§1 run: one suit, consecutive, any order",
            MayI,
            "8H 6H 5H 7H",
            Readings(&["run H: 5H 6H 7H 8H (n4 w0)"]),
        ),
        row(
            "§2 runs of 4+ in may_i",
            MayI,
            "5H 6H 7H",
            Refused(&[TooShort, MixedRanks]),
        ),
        row(
            "§3 runs of 4+ in contract_7",
            Contract7,
            "5H 6H 7H",
            Refused(&[TooShort]),
        )
        .kind(Run),
        row(
            "§4 sequences of 3+ in continental",
            Continental,
            "5H 6H 7H",
            Readings(&["run H: 5H 6H 7H (n3 w0)"]),
        ),
        row(
            "§4 two cards are no sequence",
            Continental,
            "5H 6H",
            Refused(&[TooShort]),
        ),
        row(
            "§5 runs of 3+ in push",
            Push,
            "5H 6H 7H",
            Readings(&["run H: 5H 6H 7H (n3 w0)"]),
        ),
        row("§1 one suit", MayI, "5H 6H 7C 8H", Refused(&[MixedSuits])),
        row("§1 consecutive ranks", MayI, "5H 6H 8H 9H", Refused(&[Gap])),
        row(
            "§1 each rank once (two runs of a suit are separate)",
            MayI,
            "5H 5H 6H 7H",
            Refused(&[DuplicateRank]),
        ),
        row(
            "§1 ace low",
            MayI,
            "3C AC 4C 2C",
            Readings(&["run C: AC 2C 3C 4C (n4 w0)"]),
        ),
        row(
            "§1 ace high",
            MayI,
            "AC JC KC QC",
            Readings(&["run C: JC QC KC AC (n4 w0)"]),
        ),
        row(
            "§1 never round the corner",
            MayI,
            "QS KS AS 2S",
            Refused(&[RoundTheCorner]),
        ),
        row(
            "§1 never round the corner (K A 2 3)",
            Contract7,
            "KH AH 2H 3H",
            Refused(&[RoundTheCorner]),
        ),
        row(
            "§1 never round the corner, even with a wild",
            Continental,
            "KH JK JK 3H",
            Refused(&[RoundTheCorner]),
        ),
        row(
            "§1 a 13-card run, ace to king (read ace low: ace high is the same run)",
            Contract7,
            ace_to_king,
            Readings(&["run C: AC 2C 3C 4C 5C 6C 7C 8C 9C TC JC QC KC (n13 w0)"]),
        ),
        row(
            "§1 13 cards with a wild: ace low too, never both",
            MayI,
            "3C 4C 5C 6C 7C 8C 9C TC JC QC KC AC JK",
            Readings(&["run C: AC JK=2C 3C 4C 5C 6C 7C 8C 9C TC JC QC KC (n12 w1)"]),
        ),
        row(
            "§1 no run is longer than 13 cards",
            MayI,
            "AC 2C 3C 4C 5C 6C 7C 8C 9C TC JC QC KC JK",
            Refused(&[TooLong]),
        ),
        row(
            "§1 a wild fills the gap",
            MayI,
            "8H JK 5H 6H",
            Readings(&["run H: 5H 6H JK=7H 8H (n3 w1)"]),
        ),
        row(
            "§1 a surplus wild needs a choice of end",
            MayI,
            "5H 6H 7H JK",
            Readings(&["run H: JK=4H 5H 6H 7H (n3 w1)", "run H: 5H 6H 7H JK=8H (n3 w1)"]),
        ),
        row(
            "§1 the designation chooses the end",
            MayI,
            "5H 6H 7H JK",
            Readings(&["run H: 5H 6H 7H JK=8H (n3 w1)"]),
        )
        .wilds("JK=8H"),
        row(
            "§1 a red ace standing for itself is natural; elsewhere it is wild",
            MayI,
            "AH 2H 3H 4H",
            Readings(&["run H: AH 2H 3H 4H (n4 w0)", "run H: 2H 3H 4H AH=5H (n3 w1)"]),
        ),
        row(
            "§1 designating a red ace as itself",
            MayI,
            "AH 2H 3H 4H",
            Readings(&["run H: AH 2H 3H 4H (n4 w0)"]),
        )
        .wilds("AH=AH"),
        row(
            "§2 a red ace of another suit is wild in the run",
            MayI,
            "5S 6S 7S AD",
            Readings(&["run S: AD=4S 5S 6S 7S (n3 w1)", "run S: 5S 6S 7S AD=8S (n3 w1)"]),
        ),
        row(
            "§1 inner gaps take the wilds in the order submitted (one reading, not two)",
            MayI,
            "5S AH 7S JK 9S",
            Readings(&["run S: 5S AH=6S 7S JK=8S 9S (n3 w2)"]),
        ),
        row(
            "§1 inner gaps in order: the other order is the other reading",
            MayI,
            "9S JK 7S AH 5S",
            Readings(&["run S: 5S JK=6S 7S AH=8S 9S (n3 w2)"]),
        ),
        row(
            "§1 a designation still places its wild; the others fill what is left in order",
            MayI,
            "5S AH 7S JK 9S",
            Readings(&["run S: 5S JK=6S 7S AH=8S 9S (n3 w2)"]),
        )
        .wilds("JK=6S"),
        row(
            "§1 only the surplus wild needs a choice of end; the first fills the gap",
            MayI,
            "5S AH 7S JK 8S",
            Readings(&[
                "run S: JK=4S 5S AH=6S 7S 8S (n3 w2)",
                "run S: 5S AH=6S 7S 8S JK=9S (n3 w2)",
            ]),
        ),
        row(
            "§2 wilds may not outnumber naturals in a run",
            MayI,
            "5H 6H JK JK JK",
            Refused(&[TooManyWilds]),
        ),
        row(
            "§2 no run of wilds in may_i",
            MayI,
            "JK JK JK JK",
            Refused(&[TooManyWilds]),
        )
        .kind(Run),
        row(
            "§3 red aces are natural in contract_7",
            Contract7,
            "AH 2H 3H 4H",
            Readings(&["run H: AH 2H 3H 4H (n4 w0)"]),
        ),
        row(
            "§1 designations: no more than the wilds held",
            Contract7,
            "5H JK JK JK",
            Refused(&[DesignationMismatch]),
        )
        .kind(Run)
        .wilds("JK=6H JK=7H JK=8H JK=9H"),
        row(
            "§3 any number of jokers with one natural",
            Contract7,
            "5H JK JK JK",
            Readings(&["run H: 5H JK=6H JK=7H JK=8H (n1 w3)"]),
        )
        .kind(Run)
        .wilds("JK=6H JK=7H JK=8H"),
        row(
            "§3 no meld without a natural card",
            Contract7,
            "JK JK JK JK",
            Refused(&[NoNatural]),
        )
        .kind(Run),
        row(
            "§4 inner gaps take the wilds in the order submitted",
            Continental,
            "5S 2C 7S JK 9S",
            Readings(&["run S: 5S 2C=6S 7S JK=8S 9S (n3 w2)"]),
        ),
        row(
            "§4 deuces wild in continental",
            Continental,
            "5D 2C 7D",
            Readings(&["run D: 5D 2C=6D 7D (n2 w1)"]),
        ),
        row(
            "§4 deuces_wild off: a deuce is natural",
            Continental,
            "2C 3C 4C",
            Readings(&["run C: 2C 3C 4C (n3 w0)"]),
        )
        .options(json!({"deuces_wild": false})),
        row(
            "§4 every sequence needs a natural card",
            Continental,
            "JK JK JK",
            Refused(&[NoNatural]),
        ),
        row(
            "§4 a deuce standing for itself is natural",
            Continental,
            "AS 2S 3S",
            Readings(&["run S: AS 2S 3S (n3 w0)"]),
        ),
        row(
            "§5 a two representing itself in a run is natural",
            Push,
            "4C 3C AC 2C",
            Readings(&["run C: AC 2C 3C 4C (n4 w0)"]),
        ),
        row(
            "§5 one natural: the kind must be named",
            Push,
            "5H JK JK",
            Refused(&[KindRequired]),
        ),
        row(
            "§5 one natural run: every wild must be named",
            Push,
            "5H JK JK",
            Refused(&[DesignationRequired]),
        )
        .kind(Run),
        row(
            "§5 one natural run, every wild named",
            Push,
            "5H JK JK",
            Readings(&["run H: 5H JK=6H JK=7H (n1 w2)"]),
        )
        .kind(Run)
        .wilds("JK=6H JK=7H"),
        row(
            "§5 an all-wild run, named",
            Push,
            "JK 2C JK",
            Readings(&["run S: 2C=5S JK=6S JK=7S (n0 w3)"]),
        )
        .kind(Run)
        .wilds("JK=6S JK=7S 2C=5S"),
        row(
            "§5 an all-wild run must be named",
            Push,
            "JK JK JK",
            Refused(&[DesignationRequired]),
        )
        .kind(Run),
        row(
            "§1 designations: one card each, in a run",
            MayI,
            "5H 6H 7H JK",
            Refused(&[DesignationMismatch]),
        )
        .kind(Run)
        .wilds("JK=*"),
        row(
            "§1 designations: a wild in a run stands for a card",
            MayI,
            "5H 6H 7H JK",
            Refused(&[DesignationMismatch]),
        )
        .wilds("JK=8"),
        row(
            "§1 designations: a wild stands for a suited card",
            MayI,
            "5H 6H 7H JK",
            Refused(&[MixedSuits]),
        )
        .wilds("JK=8S"),
        row(
            "§1 designations: where the wild stands must fit",
            MayI,
            "5H 6H 7H JK",
            Refused(&[Gap]),
        )
        .wilds("JK=TH"),
    ]);
}

#[test]
fn the_designated_joker_cannot_be_the_joker() {
    let rules = rules(MayI);
    let mut meld = proposal("5H 6H 7H JK", None, "");
    meld.wilds.push(engine::Designation {
        card: engine::Card::JOKER,
        represents: engine::Stands::Card(engine::Card::JOKER),
    });
    let analysis = analyse(&rules, &meld);
    assert!(!analysis.is_legal(), "§1 a wild represents a suited card");
    assert_eq!(analysis.reasons[0].code, DesignationMismatch);
}

#[test]
fn read_is_one_reading_or_the_choices() {
    let may_i = rules(MayI);
    let ambiguous = read(&may_i, &proposal("5H 6H 7H JK", None, ""));
    match ambiguous {
        Err(MeldError::Ambiguous(readings)) => {
            assert_eq!(
                readings.len(),
                2,
                "§1 more than one reading: refused, listing the readings"
            )
        }
        other => panic!("§1 ambiguous meld must list its readings, got {other:?}"),
    }
    let illegal = read(&may_i, &proposal("5H 6H", None, "")).expect_err("§2 too short");
    assert_eq!(illegal.code(), "illegal_meld");
    let ok = read(&may_i, &proposal("5H 6H 7H JK", None, "JK=4H")).expect("§1 designation fixes the reading");
    assert_eq!(ok.span(), Some((4, 7)));
}

#[test]
fn readings_serialise_with_what_each_card_represents() {
    let r = crate::helpers::reading(&rules(MayI), "5H 6H JK 8H", None, "", "§1 stored as its reading");
    let json = serde_json::to_value(&r).expect("json");
    assert_eq!(json["kind"], "run");
    assert_eq!(json["slots"][2]["card"], "JK");
    assert_eq!(json["slots"][2]["represents"], "7H");
    assert_eq!(json["slots"][2]["natural"], false);
}

/// One meld (or lay-off) per reason code; the `match` makes a new code a compile error here
/// until it has its row.
#[test]
fn every_reason_code_is_reachable() {
    let code_row = |code: ReasonCode| -> (
        Variant,
        &'static str,
        Option<MeldKind>,
        &'static str,
        Option<&'static str>,
    ) {
        match code {
            Empty => (MayI, "", None, "", None),
            TooShort => (MayI, "7C 7D", None, "", None),
            TooLong => (
                MayI,
                "AC 2C 3C 4C 5C 6C 7C 8C 9C TC JC QC KC JK",
                Some(Run),
                "",
                None,
            ),
            MixedSuits => (MayI, "5H 6H 7C 8H", Some(Run), "", None),
            MixedRanks => (MayI, "7C 7D 8C", Some(Set), "", None),
            DuplicateRank => (MayI, "5H 5H 6H 7H", Some(Run), "", None),
            Gap => (MayI, "5H 6H 8H 9H", Some(Run), "", None),
            RoundTheCorner => (Contract7, "KH AH 2H 3H", Some(Run), "", None),
            TooManyWilds => (MayI, "7C JK JK", None, "", None),
            NoNatural => (Contract7, "JK JK JK", None, "", None),
            SetsNotAllowed => (Continental, "7C 7D 7H", Some(Set), "", None),
            KindRequired => (Push, "9C JK 2S", None, "", None),
            DesignationRequired => (Push, "JK JK JK", Some(Run), "", None),
            DesignationMismatch => (MayI, "7C 7D JK", None, "JK=8", None),
            WildTrioTakesOnlyWilds => (MayI, "JK JK AH", Some(Set), "JK=* AH=*", Some("7C")),
            DoesNotFit => (MayI, "5H 6H 7H 8H", None, "", Some("TH")),
            TooManyCopies => (Push, "7H 7H 7H", None, "", None),
        }
    };
    let all = [
        Empty,
        TooShort,
        TooLong,
        MixedSuits,
        MixedRanks,
        DuplicateRank,
        Gap,
        RoundTheCorner,
        TooManyWilds,
        NoNatural,
        SetsNotAllowed,
        KindRequired,
        DesignationRequired,
        DesignationMismatch,
        WildTrioTakesOnlyWilds,
        DoesNotFit,
        TooManyCopies,
    ];
    for code in all {
        let (variant, list, kind, wilds, lay_off) = code_row(code);
        let rules = rules(variant);
        let analysis = match lay_off {
            None => analyse(&rules, &proposal(list, kind, wilds)),
            Some(card) => crate::helpers::reading(&rules, list, kind, wilds, "the meld on the table")
                .lay_off(&rules, &crate::helpers::cards(card), &[]),
        };
        assert!(!analysis.is_legal(), "{code:?}: refused");
        let wire = serde_json::to_value(code).expect("json");
        let snake = wire.as_str().expect("a string");
        assert!(
            !snake.is_empty() && snake.chars().all(|c| c.is_ascii_lowercase() || c == '_'),
            "{code:?}: stable snake_case code, got {snake}"
        );
        assert!(
            analysis
                .reasons
                .iter()
                .any(|r| r.code == code && !r.message.is_empty()),
            "{code:?} is reachable, with a message: got {:?}",
            analysis.reasons
        );
    }
}

#[test]
fn many_wilds_stop_at_the_reading_cap() {
    // Twelve wilds of five kinds around one natural: over a million orderings. The
    // enumeration stops at the cap of 512 readings (the stateless validation endpoint must not
    // spend seconds on one request); how long it takes is for the benchmarks to say.
    let listed = |variant| {
        let analysis = analyse(
            &rules(variant),
            &proposal("5H 2C 2C 2D 2D 2H 2H 2S 2S JK JK JK JK", Some(Run), ""),
        );
        assert!(analysis.is_legal(), "{variant:?}: {:?}", analysis.reasons);
        analysis.readings.len()
    };
    // In continental every wild may stand anywhere: far more readings than listed.
    assert_eq!(listed(Continental), 512, "continental lists the cap, no more");
    // In push the wilds' places are fixed by the order submitted: one reading.
    assert_eq!(listed(Push), 1);
}
