//! Rulesets: packs, players, wilds, deal sizes, contracts and card values (docs/rules.md, §2 to
//! §5).

use engine::MeldKind::{Run, Set};
use engine::Variant::{Continental, Contract7, MayI, Push};
use engine::{Contract, Requirement, Ruleset, Variant};
use serde_json::json;

use crate::helpers::{card, rules, rules_with};

#[test]
fn card_values_by_variant() {
    let rows: [(Variant, &str, Option<i32>, &str); 17] = [
        (MayI, "7C", Some(5), "§2 2-9 count 5"),
        (MayI, "2C", Some(5), "§2 2-9 count 5"),
        (MayI, "TD", Some(10), "§2 T J Q K count 10"),
        (MayI, "AS", Some(20), "§2 aces 20"),
        (MayI, "AH", Some(20), "§2 red aces too"),
        (MayI, "JK", Some(50), "§2 jokers 50"),
        (Contract7, "7C", Some(7), "§3 2-9 face value"),
        (Contract7, "AS", Some(11), "§3 aces 11"),
        (Contract7, "KH", Some(10), "§3 T-K 10"),
        (Contract7, "JK", Some(50), "§3 jokers 50"),
        (Push, "3C", Some(5), "§5 3-9 count 5"),
        (Push, "QS", Some(10), "§5 T-K 10"),
        (Push, "AD", Some(15), "§5 aces 15"),
        (Push, "2S", Some(20), "§5 twos 20"),
        (Push, "JK", Some(20), "§5 jokers 20"),
        (Continental, "7C", None, "§4 continental pays the winner instead"),
        (Continental, "JK", None, "§4 continental pays the winner instead"),
    ];
    for (variant, name, value, why) in rows {
        assert_eq!(
            rules(variant).card_value(card(name)),
            value,
            "{why}: {name} in {variant}"
        );
    }
}

#[test]
fn players_and_packs() {
    let rows: [(Ruleset, usize, Option<usize>, &str); 12] = [
        (
            rules(MayI),
            2,
            Some(108),
            "§2 2-3 players allowed, two packs at least",
        ),
        (rules(MayI), 5, Some(162), "§2 5-6 players: three packs"),
        (rules(MayI), 9, None, "§2 at most 8 players"),
        (
            rules(Contract7),
            6,
            Some(106),
            "§3 2-6 players: two packs and two jokers",
        ),
        (
            rules(Contract7),
            7,
            Some(159),
            "§3 7-8 players: three packs and three jokers",
        ),
        (rules(Continental), 12, Some(212), "§4 9-12 players: four packs"),
        (rules(Continental), 13, None, "§4 at most 12 players"),
        (
            rules_with(Continental, json!({"jokers_per_pack": 2})),
            4,
            Some(108),
            "§4 jokers_per_pack",
        ),
        (
            rules(Push),
            4,
            Some(108),
            "§5 four players, two packs and four jokers",
        ),
        (rules(Push), 5, None, "§5 partnerships are four players"),
        (
            rules_with(Push, json!({"individual": true})),
            6,
            Some(162),
            "§5 individual: 4-6, a third pack",
        ),
        (
            rules_with(Push, json!({"individual": true})),
            4,
            Some(108),
            "§5 individual with four: two packs",
        ),
    ];
    for (rules, players, size, why) in rows {
        match size {
            Some(size) => {
                rules
                    .check_players(players)
                    .unwrap_or_else(|e| panic!("{why}: {e}"));
                assert_eq!(rules.pack(players).len(), size, "{why}");
            }
            None => {
                let err = rules.check_players(players).expect_err(why);
                assert_eq!(err.code(), "player_count", "{why}");
            }
        }
    }
}

#[test]
fn deal_sizes_and_contracts() {
    let set = |min_len| Requirement { kind: Set, min_len };
    let run = |min_len| Requirement { kind: Run, min_len };
    let may_i = rules(MayI);
    assert_eq!(may_i.hand_size(4), 12, "§2 12 cards each");
    assert_eq!(
        may_i.contract(1),
        Contract::Melds(vec![set(3), set(3)]),
        "§2 deal 1: two sets"
    );
    assert_eq!(
        may_i.contract(7),
        Contract::Melds(vec![run(4), run(4), run(4)]),
        "§2 deal 7: three runs"
    );
    assert_eq!(
        (1..=7).map(|d| may_i.contract(d).min_cards()).collect::<Vec<_>>(),
        [6, 7, 8, 9, 10, 11, 12],
        "§2 fewest cards to open, deal by deal"
    );
    let c7 = rules(Contract7);
    assert_eq!(c7.contract(3), may_i.contract(3), "§3 the same seven contracts");
    assert_eq!((c7.hand_size(1), c7.hand_size(7)), (7, 13), "§3 6 + deal number");
    let cont = rules(Continental);
    assert_eq!(
        (cont.contract(1), cont.hand_size(1), cont.deals()),
        (Contract::GoOut, 15, 1),
        "§4"
    );
    let push = rules(Push);
    assert_eq!(
        push.contract(2),
        Contract::Melds(vec![set(3), run(4)]),
        "§5 deal 2: set of 3, run of 4"
    );
    assert_eq!(
        push.contract(5),
        Contract::Melds(vec![run(5), run(5)]),
        "§5 deal 5: two runs of five"
    );
    let three_and_seven = rules_with(Push, json!({"three_and_seven": true}));
    assert_eq!(
        three_and_seven.contract(5),
        Contract::Melds(vec![run(3), run(7)]),
        "§5 three_and_seven"
    );
    let ten = rules_with(Push, json!({"ten_every_deal": true}));
    assert_eq!(
        (push.hand_size(1), ten.hand_size(1)),
        (6, 10),
        "§5 ten_every_deal"
    );
}

#[test]
fn rulesets_describe_themselves() {
    let rules = rules_with(MayI, json!({"deuces_wild": true}));
    let json = serde_json::to_value(&rules).expect("json");
    assert_eq!(json["variant"], "may_i", "the variant id as the API writes it");
    assert_eq!(json["options"]["deuces_wild"], true);
    assert_eq!(
        json["options"]["claims_disabled_last_deals"], 0,
        "defaults are listed"
    );
    let back: Ruleset = serde_json::from_value(json).expect("round trip");
    assert_eq!(back, rules);
    assert!(rules.is_wild(card("2C")), "§2 deuces_wild makes deuces wild");
    let cont = rules_with(Continental, json!({"deuces_wild": false}));
    assert_eq!(
        cont.wild_cards(),
        vec![engine::Card::JOKER],
        "§4 deuces_wild off: jokers only"
    );
    let err = Ruleset::new(Push, Some(json!({"deuces_wild": true}))).expect_err("not a push option");
    assert_eq!(err.code(), "invalid_options");
}

#[test]
fn every_listed_option_is_accepted_at_its_bounds_and_refused_beyond() {
    for variant in Variant::ALL {
        let catalogue = variant.house_options();
        assert!(!catalogue.is_empty(), "{variant} lists its options");
        for option in &catalogue {
            for (value, accepted) in option.edge_values() {
                let options = json!({ option.name.as_str(): value });
                let result = Ruleset::new(variant, Some(options.clone()));
                match result {
                    Ok(_) => assert!(accepted, "{variant} accepted {options} beyond its bounds"),
                    Err(e) => {
                        assert!(!accepted, "{variant} refused {options}: {e}");
                        assert_eq!(e.code(), "invalid_options", "{variant} {options}");
                    }
                }
            }
        }
    }
}

#[test]
fn the_catalogue_lists_every_option_with_its_default() {
    for variant in Variant::ALL {
        let defaults = serde_json::to_value(Ruleset::default_for(variant)).expect("rules serialise");
        let defaults = defaults["options"].as_object().expect("options object").clone();
        let listed: serde_json::Map<String, serde_json::Value> = variant
            .house_options()
            .into_iter()
            .map(|o| {
                (
                    o.name,
                    serde_json::to_value(o.default).expect("a default serialises"),
                )
            })
            .collect();
        assert_eq!(listed, defaults, "{variant}: catalogue names and defaults");
    }
    let may_i = MayI.house_options();
    let names: Vec<&str> = may_i.iter().map(|o| o.name.as_str()).collect();
    assert_eq!(
        names,
        [
            "deuces_wild",
            "claims_disabled_last_deals",
            "max_claims_per_deal",
            "first_upcard_claims"
        ],
        "declaration order"
    );
    for variant in [MayI, Contract7] {
        let upcard = variant
            .house_options()
            .into_iter()
            .find(|o| o.name == "first_upcard_claims")
            .expect("variants with claims list first_upcard_claims");
        assert_eq!(
            upcard.default,
            Some(engine::OptionValue::Boolean(true)),
            "{variant}: claims on the first upcard are allowed by default"
        );
    }
    let max_claims = serde_json::to_value(&may_i[2]).expect("entry serialises");
    assert_eq!(
        max_claims,
        json!({"name": "max_claims_per_deal", "type": "integer", "nullable": true, "default": null,
            "minimum": 1, "maximum": u32::MAX,
            "description": "At most this many claims per player per deal; null is unlimited."}),
        "typed entry: an optional default is null"
    );
    let deuces = serde_json::to_value(&may_i[0]).expect("entry serialises");
    assert_eq!(deuces["default"], json!(false), "a bool default is a JSON bool");
    assert!(deuces.get("minimum").is_none(), "no bounds on a bool");
}

#[test]
fn out_of_range_options_say_the_range() {
    let rows = [
        (
            MayI,
            json!({"claims_disabled_last_deals": 8}),
            "option claims_disabled_last_deals must be between 0 and 7",
        ),
        (
            MayI,
            json!({"max_claims_per_deal": 0}),
            "option max_claims_per_deal must be at least 1, or null for unlimited",
        ),
        (
            Continental,
            json!({"deals": 21}),
            "option deals must be between 1 and 20",
        ),
        (
            Continental,
            json!({"jokers_per_pack": 5}),
            "option jokers_per_pack must be between 0 and 4",
        ),
    ];
    for (variant, options, message) in rows {
        let e = Ruleset::new(variant, Some(options)).expect_err(message);
        assert_eq!(e.to_string(), message);
    }
}
