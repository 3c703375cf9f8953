//! A hand without a game (`POST /v1/hands/arrange`) and validation in batches
//! (`POST /v1/melds/validate-batch`, `POST /v1/contracts/validate-batch`): every variant, the
//! card values of docs/rules.md#scoring, the lay-offs a game's hints give, hostile sizes and
//! malformed items.

use engine::{Card, DrawSource, Rank, Suit, Variant};
use serde_json::{Value, json};

use crate::helpers::{TestApp, create, deck_with, draw, meld};
use crate::on_every_backend;

/// The cards of a list of names.
fn names(list: &str) -> Vec<&str> {
    list.split_whitespace().collect()
}

/// The arrangement of `hand` for `deal` of `variant`, with `table`'s melds.
async fn arrange(app: &TestApp, variant: &str, deal: u8, hand: &str, table: Value) -> Value {
    app.post(
        "/v1/hands/arrange",
        &json!({"variant": variant, "deal": deal, "hand": names(hand), "table": table}),
    )
    .await
    .ok(&format!("{variant} deal {deal}: {hand}"))
}

/// Every variant: a hand that makes its deal's contract gets the melds, each the reading the
/// validator gives for it; one that does not gets how many cards it is short.
async fn hands_make_their_contract_or_say_how_far(app: &TestApp) {
    let rows: [(&str, u8, &str, &str, usize); 4] = [
        (
            "may_i",
            2,
            "7C 7D 7H 5H 6H 8H 9S 7S 3C 4D KD QC",
            "7C 7D 5H 6H 9S 3C 4D KD QC JC 2S 8D",
            3,
        ),
        (
            "contract_7",
            3,
            "3H 4H 5H 6H 9S TS JS QS 2C KD KC",
            "3H 4H 5H 9S TS JS 2C KD KC",
            2,
        ),
        ("push", 1, "9C 9D 9H KS KD KH 4H 5S", "9C 9D KS 4H 5S 7D 8C QC", 3),
        (
            "continental",
            1,
            "3C 4C 5C 6C 7C 8C 9C TC 4D 5D JK 7D 8D 9D TD KS",
            "3C 4C 5C 6C 7C 8C 9C TC 4D 5D 7D 8D 9D TD KS",
            1,
        ),
    ];
    for (variant, deal, makes, short, by) in rows {
        let made = arrange(app, variant, deal, makes, json!([])).await;
        assert_eq!(made["makes_contract"], true, "{variant}: {made}");
        assert_eq!(made["cards_short"], 0, "{variant}: {made}");
        let melds = made["melds"].as_array().expect("melds");
        assert!(!melds.is_empty(), "{variant}: {made}");
        for reading in melds {
            let wilds: Vec<Value> = reading["slots"]
                .as_array()
                .expect("slots")
                .iter()
                .filter(|s| s["natural"] == false)
                .map(|s| json!({"card": s["card"], "represents": s["represents"]}))
                .collect();
            let verdict = app
                .post(
                    "/v1/melds/validate",
                    &json!({"variant": variant, "cards": reading["cards"], "kind": reading["kind"], "wilds": wilds}),
                )
                .await
                .ok("the validator");
            assert_eq!(
                verdict["readings"],
                json!([reading]),
                "{variant}: each meld is the validator's reading of its cards"
            );
        }
        let check = app
            .post(
                "/v1/contracts/validate",
                &json!({"variant": variant, "deal": deal, "melds": melds.iter().map(|m| json!({"cards": m["cards"], "kind": m["kind"]})).collect::<Vec<_>>()}),
            )
            .await
            .ok("the contract validator");
        if variant != "continental" {
            assert_eq!(
                check["valid"], true,
                "{variant}: the melds meet the contract: {check}"
            );
        }
        if variant == "continental" {
            assert_eq!(made["discard"], "KS", "§4: the 16th card is discarded: {made}");
        }
        let far = arrange(app, variant, deal, short, json!([])).await;
        assert_eq!(far["makes_contract"], false, "{variant}: {far}");
        assert_eq!(far["melds"], json!([]), "{variant}: {far}");
        assert_eq!(far["cards_short"], by, "{variant}: {short}: {far}");
    }
}
on_every_backend!(
    hands_make_their_contract_or_say_how_far_on_every_backend,
    hands_make_their_contract_or_say_how_far
);

/// The ranks of each card row of docs/rules.md#scoring's table, by the row's name: the card
/// values the page states, each of which the engine's catalogue (`Ruleset::card_value`) must
/// give every card of the row.
fn card_rows() -> [(&'static str, Vec<Card>); 5] {
    let of = |ranks: &[Rank]| ranks.iter().map(|&r| Card::new(r, Suit::Clubs)).collect();
    [
        ("2", of(&[Rank::Two])),
        (
            "3 to 9",
            of(&[
                Rank::Three,
                Rank::Four,
                Rank::Five,
                Rank::Six,
                Rank::Seven,
                Rank::Eight,
                Rank::Nine,
            ]),
        ),
        (
            "T, J, Q, K",
            of(&[Rank::Ten, Rank::Jack, Rank::Queen, Rank::King]),
        ),
        ("ace", of(&[Rank::Ace])),
        ("joker", vec![Card::JOKER]),
    ]
}

/// What a cell of docs/rules.md#scoring's card rows says a card costs left in hand.
#[derive(Debug, Clone, Copy, PartialEq)]
enum Stated {
    /// A number of points.
    Points(i32),
    /// The card's face value (`face value`).
    FaceValue,
}

impl Stated {
    /// The cell's value, or `None` when it states none (prose, as `continental`'s, whose
    /// hands are not counted).
    fn read(cell: &str) -> Option<Stated> {
        match cell {
            "face value" => Some(Stated::FaceValue),
            _ => cell.parse().ok().map(Stated::Points),
        }
    }

    /// The value of `card` as stated.
    fn of(self, card: Card) -> i32 {
        match (self, card.rank()) {
            (Stated::Points(points), _) => points,
            (Stated::FaceValue, Some(rank)) => i32::from(rank.number()),
            (Stated::FaceValue, None) => panic!("a joker has no face value"),
        }
    }
}

/// docs/rules.md#scoring's table, read from the page: its header's variants, and each row's
/// cells by the row's name. Panics on a page whose table is not there, or not whole.
fn scoring_table_of_the_rules() -> (Vec<String>, Vec<(String, Vec<String>)>) {
    let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
        .parent()
        .expect("the repository");
    let page = std::fs::read_to_string(root.join("docs/rules.md")).expect("docs/rules.md");
    let at = page
        .find("## 6. Scoring at a glance")
        .expect("docs/rules.md has its scoring table");
    let rows: Vec<Vec<String>> = page[at..]
        .lines()
        .skip_while(|l| !l.starts_with('|'))
        .take_while(|l| l.starts_with('|'))
        .map(|l| {
            l.trim_matches('|')
                .split('|')
                .map(|c| c.trim().to_owned())
                .collect()
        })
        .collect();
    let (header, rows) = rows.split_first().expect("the scoring table has a header");
    let variants: Vec<String> = header[1..]
        .iter()
        .map(|v| v.trim_matches('`').to_owned())
        .collect();
    let rows = rows
        .iter()
        .filter(|r| !r[0].starts_with("---"))
        .map(|r| {
            assert_eq!(
                r.len(),
                header.len(),
                "docs/rules.md#scoring: the row {r:?} has a cell per variant"
            );
            (r[0].clone(), r[1..].to_vec())
        })
        .collect();
    (variants, rows)
}

/// docs/rules.md#scoring's card values are the engine's: every card of every row, in every
/// variant, costs what the page states; `face value` is the card's number; and a variant that
/// counts no hands (`continental`) states no value at all. A cell that states no value where
/// the engine counts the card fails, as does a missing row or variant: the page is read, never
/// guessed.
#[test]
fn the_scoring_tables_card_values_are_the_engines() {
    let (variants, rows) = scoring_table_of_the_rules();
    let ids: Vec<&str> = Variant::ALL.iter().map(|v| v.id()).collect();
    assert_eq!(variants, ids, "docs/rules.md#scoring: a column per variant");
    for (name, cards) in card_rows() {
        let (_, cells) = rows
            .iter()
            .find(|(row, _)| row == name)
            .unwrap_or_else(|| panic!("docs/rules.md#scoring has the row `{name}`"));
        for (variant, cell) in Variant::ALL.into_iter().zip(cells) {
            let rules = engine::Ruleset::default_for(variant);
            let stated = Stated::read(cell);
            for &card in &cards {
                let engine = rules.card_value(card);
                let page = match (stated, engine) {
                    (Some(stated), _) => Some(stated.of(card)),
                    (None, Some(_)) => panic!(
                        "docs/rules.md#scoring: `{cell}` (row `{name}`, {variant}) is no card value: \
                         a number or `face value`"
                    ),
                    (None, None) => None,
                };
                assert_eq!(
                    page, engine,
                    "docs/rules.md#scoring: {card} in {variant} (row `{name}`, `{cell}`)"
                );
            }
        }
    }
}

/// A hand's penalty points are its cards' values in the engine's catalogue
/// (`Ruleset::card_value`, which docs/rules.md#scoring states, see above), card by card and
/// added up, in every variant that counts hands; `continental` counts none.
async fn penalty_points_are_the_card_values(app: &TestApp) {
    let every_row: Vec<Card> = card_rows().into_iter().flat_map(|(_, cards)| cards).collect();
    for variant in Variant::ALL {
        let rules = engine::Ruleset::default_for(variant);
        let mut hands: Vec<Vec<Card>> = every_row.iter().map(|&c| vec![c]).collect();
        hands.push(every_row.clone());
        for hand in hands {
            let names: Vec<String> = hand.iter().map(ToString::to_string).collect();
            let expected = rules.hand_value(&hand).map(|_| {
                hand.iter()
                    .map(|&c| rules.card_value(c).expect("a counted card has a value"))
                    .sum::<i32>()
            });
            let answer = arrange(app, variant.id(), 1, &names.join(" "), json!([])).await;
            assert_eq!(
                answer["penalty_points"],
                json!(expected),
                "{variant} {names:?}: {answer}"
            );
        }
    }
}
on_every_backend!(
    penalty_points_are_the_card_values_on_every_backend,
    penalty_points_are_the_card_values
);

/// The lay-offs of a hand onto a table are those a game's hints give the seat with the same
/// cards and table.
async fn layoffs_are_the_hints_of_a_game(app: &TestApp) {
    // Push's first contract takes the whole hand dealt, leaving the card drawn, which may fit
    // nowhere: may_i and contract_7 leave cards that do.
    let rows: [(Variant, &str, usize, &str, [&str; 2]); 2] = [
        (
            Variant::MayI,
            "may_i",
            2,
            "7H 7S 7D QC QD QH 7C QS 8H 9D",
            ["7H 7S 7D", "QC QD QH"],
        ),
        (
            Variant::Contract7,
            "contract_7",
            2,
            "7H 7S 7D QC QD QH 7C",
            ["7H 7S 7D", "QC QD QH"],
        ),
    ];
    for (variant, id, players, wanted, sets) in rows {
        let (seat, deck) = deck_with(variant, players, &names(wanted));
        let deck: Vec<String> = deck.iter().map(ToString::to_string).collect();
        let table = create(app, id, players, 1, json!({"stacked_decks": [deck]})).await;
        let seat = usize::from(seat.0);
        app.act(&table, seat, &draw(DrawSource::Stock), &[])
            .await
            .ok("a draw");
        let view = app.act(&table, seat, &meld(&sets), &[]).await.ok("going down");
        let hand: Vec<Value> = view["you"]["hand"].as_array().expect("a hand").clone();
        assert!(hand.len() > 1, "{id}: a card to spare: {view}");
        let on_table = view["table"].as_array().expect("the table").clone();
        let ids: Vec<&Value> = on_table.iter().map(|m| &m["id"]).collect();
        let melds: Vec<Value> = on_table
            .iter()
            .map(|m| json!({"cards": m["cards"], "kind": m["kind"]}))
            .collect();
        let hints = app
            .get_as(&format!("{}/hints", table.path()), &table.tokens[seat])
            .await
            .ok("hints");
        let arranged = app
            .post(
                "/v1/hands/arrange",
                &json!({"variant": id, "deal": 1, "hand": hand, "table": melds}),
            )
            .await
            .ok("the arrangement");
        let mut given: Vec<Value> = arranged["layoffs"]
            .as_array()
            .expect("layoffs")
            .iter()
            .map(|l| {
                let index = l["meld_id"].as_u64().expect("an index") as usize;
                json!({"meld_id": ids[index], "card": l["card"], "wilds": l["wilds"], "reading": l["reading"]})
            })
            .collect();
        let mut hinted: Vec<Value> = hints["layoffs"].as_array().expect("layoffs").clone();
        assert!(!hinted.is_empty(), "{id}: the hand has lay-offs: {hints}");
        given.sort_by_key(ToString::to_string);
        hinted.sort_by_key(ToString::to_string);
        assert_eq!(given, hinted, "{id}: the same lay-offs as the game's hints");
    }
}
on_every_backend!(
    layoffs_are_the_hints_of_a_game_on_every_backend,
    layoffs_are_the_hints_of_a_game
);

/// What the document refuses of a hand, and what the rules do.
async fn arrange_refusals(app: &TestApp) {
    let hand = |n: usize| vec!["JK"; n];
    let forty_one = json!({"variant": "may_i", "deal": 1, "hand": hand(41)});
    app.post("/v1/hands/arrange", &forty_one).await.assert_problem(
        400,
        "invalid_body",
        "41 cards, one past the hand's maxItems",
    );
    let melds = vec![json!({"cards": ["5H", "6H", "7H", "8H"]}); 49];
    app.post(
        "/v1/hands/arrange",
        &json!({"variant": "may_i", "deal": 1, "hand": [], "table": melds}),
    )
    .await
    .assert_problem(400, "invalid_body", "49 melds, one past the table's maxItems");
    app.post(
        "/v1/hands/arrange",
        &json!({"variant": "may_i", "deal": 8, "hand": ["7H"]}),
    )
    .await
    .assert_problem(422, "invalid_deal", "may_i has seven deals");
    app.post(
        "/v1/hands/arrange",
        &json!({"variant": "may_i", "deal": 1, "hand": ["7H"], "table": [{"cards": ["7H", "8S"]}]}),
    )
    .await
    .assert_problem(422, "invalid_table_meld", "a table meld that is no meld");
    app.post(
        "/v1/hands/arrange",
        &json!({"variant": "may_i", "deal": 1, "hand": ["ZZ"]}),
    )
    .await
    .assert_problem(400, "unknown_card", "a card that is none");
    let huge = format!(
        r#"{{"variant": "may_i", "deal": 1, "hand": [], "pad": "{}"}}"#,
        "x".repeat(64 * 1024)
    );
    app.send("POST", "/v1/hands/arrange", Some(huge.as_bytes()), &[])
        .await
        .assert_problem(413, "body_too_large", "64 KiB at most");
}
on_every_backend!(arrange_refusals_on_every_backend, arrange_refusals);

/// The largest hand the document allows, all wilds or all but a few, against the largest
/// table, in every deal of every variant: answered, never a 5xx.
async fn the_largest_hands_are_answered(app: &TestApp) {
    let long_run: Vec<&str> = names("AH 2H 3H 4H 5H 6H 7H 8H 9H TH JH QH KH");
    let table = vec![json!({"cards": long_run, "kind": "run"}); 48];
    let hands = [
        vec!["JK"; 40],
        [
            vec!["JK"; 12],
            vec!["2C"; 8],
            names("AH AD 3S 4S 5S 6S 7S 8S 9S TS JS QS KS AS 3D 4D 5D 6D 7D 8D"),
        ]
        .concat(),
        names("3C 4C 5C 6C 7C 8C 9C TC JC QC KC AC 3D 4D 5D 6D 7D 8D 9D TD").repeat(2),
    ];
    for variant in Variant::ALL {
        let rules = engine::Ruleset::default_for(variant);
        for deal in 1..=rules.deals() {
            for hand in &hands {
                // continental lays nothing off.
                let table = match variant {
                    Variant::Continental => json!([]),
                    _ => json!(table),
                };
                let answer = app
                    .post(
                        "/v1/hands/arrange",
                        &json!({"variant": variant.to_string(), "deal": deal, "hand": hand, "table": table}),
                    )
                    .await;
                assert_eq!(
                    answer.status.as_u16(),
                    200,
                    "{variant} deal {deal}: {}",
                    answer.text()
                );
            }
        }
    }
}
on_every_backend!(
    the_largest_hands_are_answered_on_every_backend,
    the_largest_hands_are_answered
);

/// A batch of melds answers each in its place, as the validator does one at a time; an item
/// that is not a meld gets its own problem and the others their verdicts.
async fn a_batch_of_melds_answers_each_in_its_place(app: &TestApp) {
    let items = json!([
        {"cards": ["8H", "JK", "5H", "6H"]},
        {"cards": ["5H", "JK", "JK", "AD"]},
        {"cards": ["7H", "ZZ", "7D"]},
        42,
        "7H 7S 7D",
        null,
        {"cards": ["7H", "7S", "7D"], "colour": "red"},
        {"cards": vec!["7H"; 41]},
        {"cards": ["7H", "7S", "7D"], "kind": "set"},
        {"cards": []},
    ]);
    for variant in ["may_i", "contract_7", "continental", "push"] {
        let batch = app
            .post(
                "/v1/melds/validate-batch",
                &json!({"variant": variant, "melds": items}),
            )
            .await
            .ok(variant);
        let results = batch["results"].as_array().expect("results");
        assert_eq!(results.len(), 10, "{variant}: one result per item: {batch}");
        let problems = [
            (2, "unknown_card"),
            (3, "not_an_object"),
            (4, "not_an_object"),
            (5, "not_an_object"),
            (6, "unknown_field"),
            (7, "invalid_body"),
        ];
        for (i, code) in problems {
            let result = &results[i];
            assert_eq!(result["valid"], false, "{variant} item {i}: {result}");
            assert_eq!(result["problem"]["code"], code, "{variant} item {i}: {result}");
            let detail = result["problem"]["detail"].as_str().expect("a detail");
            assert!(
                detail.starts_with(&format!("melds[{i}]: ")),
                "{variant}: the item is named: {detail}"
            );
        }
        for i in [0, 1, 8, 9] {
            let alone = app
                .post(
                    "/v1/melds/validate",
                    &json!({"variant": variant, "cards": items[i]["cards"], "kind": items[i]["kind"]}),
                )
                .await
                .ok("one meld");
            assert_eq!(
                results[i], alone,
                "{variant} item {i}: the batch answers as the validator"
            );
        }
    }
}
on_every_backend!(
    a_batch_of_melds_answers_each_in_its_place_on_every_backend,
    a_batch_of_melds_answers_each_in_its_place
);

/// A batch whose every item is a meld (read in one pass) answers as the validator does each
/// alone; a meld written as a list (its cards as its first item), which serde would read a struct
/// from, is still no meld.
async fn a_batch_of_good_melds_answers_as_the_validator(app: &TestApp) {
    let melds = [
        "8H JK 5H 6H",
        "5H JK JK AD",
        "7H 7S 7D",
        "10C JC QC KC AC",
        "2C 2D 2S 2H",
        "4S 5s 6S 7S 8S 9S",
        "KD KD KH",
    ];
    for variant in ["may_i", "contract_7", "continental", "push"] {
        let items: Vec<Value> = melds.iter().map(|m| json!({"cards": names(m)})).collect();
        let batch = app
            .post(
                "/v1/melds/validate-batch",
                &json!({"variant": variant, "melds": items}),
            )
            .await
            .ok(variant);
        for (i, item) in items.iter().enumerate() {
            let alone = app
                .post(
                    "/v1/melds/validate",
                    &json!({"variant": variant, "cards": item["cards"]}),
                )
                .await
                .ok("one meld");
            assert_eq!(
                batch["results"][i], alone,
                "{variant} item {i}: the batch answers as the validator"
            );
        }
        let listed = app
            .post(
                "/v1/melds/validate-batch",
                &json!({"variant": variant, "melds": [items[2], [names(melds[2])]]}),
            )
            .await
            .ok(variant);
        assert_eq!(listed["results"][0], batch["results"][2], "{variant}: {listed}");
        assert_eq!(
            listed["results"][1]["problem"]["code"], "not_an_object",
            "{variant}: a meld as a list: {listed}"
        );
    }
}
on_every_backend!(
    a_batch_of_good_melds_answers_as_the_validator_on_every_backend,
    a_batch_of_good_melds_answers_as_the_validator
);

/// A batch of contracts answers each in its place, a deal the variant lacks among them.
async fn a_batch_of_contracts_answers_each_in_its_place(app: &TestApp) {
    let items = json!([
        {"deal": 1, "melds": [{"cards": ["7H", "7S", "7D"]}, {"cards": ["QC", "QD", "JK"]}]},
        {"deal": 1, "melds": [{"cards": ["7H", "7S", "7D"]}]},
        {"deal": 9, "melds": []},
        {"melds": []},
        [],
        {"deal": 3, "melds": [{"cards": ["3H", "4H", "5H", "6H"]}, {"cards": ["9S", "TS", "JS", "QS"]}]},
    ]);
    let batch = app
        .post(
            "/v1/contracts/validate-batch",
            &json!({"variant": "may_i", "contracts": items}),
        )
        .await
        .ok("a batch of contracts");
    let results = batch["results"].as_array().expect("results");
    assert_eq!(results.len(), 6, "{batch}");
    assert_eq!(results[2]["problem"]["code"], "invalid_deal", "{batch}");
    assert_eq!(results[3]["problem"]["code"], "invalid_body", "{batch}");
    assert_eq!(results[4]["problem"]["code"], "not_an_object", "{batch}");
    for i in [0, 1, 5] {
        let mut alone = items[i].clone();
        alone["variant"] = json!("may_i");
        let alone = app
            .post("/v1/contracts/validate", &alone)
            .await
            .ok("one contract");
        assert_eq!(results[i], alone, "item {i}: the batch answers as the validator");
    }
    assert_eq!(results[0]["valid"], true);
    assert_eq!(results[5]["valid"], true);
}
on_every_backend!(
    a_batch_of_contracts_answers_each_in_its_place_on_every_backend,
    a_batch_of_contracts_answers_each_in_its_place
);

/// The batches at their limits: the most items of the most cards are answered; one item more
/// is `422 too_many_items`, a byte more than the limit `413`; the batch's own fields still
/// refuse it whole.
async fn batches_at_their_limits(app: &TestApp) {
    // Long sets of wilds and naturals, each read every way the rules allow.
    let cards = [vec!["JK"; 13], vec!["7H"; 13], vec!["AH"; 7], vec!["AD"; 7]].concat();
    let heavy = json!({"cards": cards});
    let most = vec![heavy; 1000];
    let body = serde_json::to_vec(&json!({"variant": "may_i", "melds": most})).expect("JSON");
    assert!(body.len() < 512 * 1024, "{} bytes", body.len());
    let batch = app
        .send("POST", "/v1/melds/validate-batch", Some(&body), &[])
        .await
        .ok("the largest batch");
    assert_eq!(batch["results"].as_array().map(Vec::len), Some(1000));
    // A dozen wilds around two naturals read 512 ways: a thousand of them would answer
    // hundreds of megabytes.
    let wild = json!({"cards": names("7H 8H JK 2C 2D 2S JK 2H JK JK 2C 2D")});
    let batch = app
        .post(
            "/v1/melds/validate-batch",
            &json!({"variant": "push", "melds": vec![wild.clone(); 19]}),
        )
        .await
        .ok("19 melds of 512 readings");
    assert_eq!(
        batch["results"][18]["readings"].as_array().map(Vec::len),
        Some(512)
    );
    app.post(
        "/v1/melds/validate-batch",
        &json!({"variant": "push", "melds": vec![wild; 20]}),
    )
    .await
    .assert_problem(422, "too_many_readings", "20 melds of 512 readings each");
    let run = json!({"cards": ["5H", "6H", "7H", "8H"]});
    app.post(
        "/v1/melds/validate-batch",
        &json!({"variant": "may_i", "melds": vec![run.clone(); 1001]}),
    )
    .await
    .assert_problem(422, "too_many_items", "1,001 melds");
    let cards = [vec!["JK"; 20], vec!["7H"; 20]].concat();
    let contract = json!({"deal": 1, "melds": vec![json!({"cards": cards}); 6]});
    let most = vec![contract.clone(); 200];
    let batch = app
        .post(
            "/v1/contracts/validate-batch",
            &json!({"variant": "push", "contracts": most}),
        )
        .await
        .ok("the largest batch of contracts");
    assert_eq!(batch["results"].as_array().map(Vec::len), Some(200));
    app.post(
        "/v1/contracts/validate-batch",
        &json!({"variant": "push", "contracts": vec![contract; 201]}),
    )
    .await
    .assert_problem(422, "too_many_items", "201 contracts");
    let huge = format!(
        r#"{{"variant": "may_i", "melds": [{{"cards": ["5H", "6H", "7H", "8H"], "pad": "{}"}}]}}"#,
        "x".repeat(512 * 1024)
    );
    app.send("POST", "/v1/melds/validate-batch", Some(huge.as_bytes()), &[])
        .await
        .assert_problem(413, "body_too_large", "512 KiB at most");
    app.post(
        "/v1/melds/validate-batch",
        &json!({"variant": "rummy", "melds": [run]}),
    )
    .await
    .assert_problem(400, "unknown_variant", "the batch's variant");
    app.post(
        "/v1/melds/validate-batch",
        &json!({"variant": "may_i", "melds": {"cards": []}}),
    )
    .await
    .assert_problem(400, "invalid_body", "melds is a list");
    app.post(
        "/v1/melds/validate-batch",
        &json!({"variant": "may_i", "options": {"jokers_per_pack": 3}, "melds": []}),
    )
    .await
    .assert_problem(422, "invalid_options", "options of another variant");
}
on_every_backend!(batches_at_their_limits_on_every_backend, batches_at_their_limits);
