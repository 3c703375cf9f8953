//! The stateless endpoints: melds, contracts, rulesets.

use serde_json::json;

use crate::helpers::TestApp;
use crate::on_every_backend;

/// (variant, body extras, valid, readings, a reason code when invalid, what docs/rules.md says)
type MeldRow = (
    &'static str,
    serde_json::Value,
    bool,
    usize,
    Option<&'static str>,
    &'static str,
);

async fn meld_validation_verdicts(app: &TestApp) {
    let rows: &[MeldRow] = &[
        (
            "may_i",
            json!({"cards": ["8H", "JK", "5H", "6H"]}),
            true,
            1,
            None,
            "§1: a joker fills a run's gap",
        ),
        (
            "may_i",
            json!({"cards": ["7H", "7S", "7D"]}),
            true,
            1,
            None,
            "§1: a set of three of a rank",
        ),
        (
            "may_i",
            json!({"cards": ["5H", "JK", "JK", "AD"]}),
            false,
            0,
            Some("too_many_wilds"),
            "§2: wilds may not outnumber naturals",
        ),
        (
            "may_i",
            json!({"cards": ["5H", "6S", "7H", "8H"]}),
            false,
            0,
            Some("mixed_suits"),
            "§1: a run is of one suit",
        ),
        (
            "contract_7",
            json!({"cards": ["9C", "TC", "JC", "QC"]}),
            true,
            1,
            None,
            "§3: runs of four",
        ),
        (
            "contract_7",
            json!({"cards": ["9C", "TC", "JC"]}),
            false,
            0,
            Some("too_short"),
            "§3: a run of three is too short",
        ),
        (
            "continental",
            json!({"cards": ["7H", "7S", "7D"], "kind": "set"}),
            false,
            0,
            Some("sets_not_allowed"),
            "§4: sequences only",
        ),
        (
            "continental",
            json!({"cards": ["3D", "4D", "5D"]}),
            true,
            1,
            None,
            "§4: runs of three",
        ),
        (
            "push",
            json!({"cards": ["7H", "7S", "7D"]}),
            true,
            1,
            None,
            "§5: sets of three",
        ),
        (
            "may_i",
            json!({"cards": ["5S", "AH", "7S", "JK", "9S"]}),
            true,
            1,
            None,
            "§1: inner gaps take the wilds in the order submitted",
        ),
        (
            "continental",
            json!({"cards": ["5S", "2C", "7S", "JK", "9S"]}),
            true,
            1,
            None,
            "§1, §4: inner gaps take the wilds in the order submitted",
        ),
        (
            "push",
            json!({"cards": ["JK", "JK", "JK"], "kind": "set"}),
            true,
            1,
            None,
            "§5: an all-wild set naming only its kind",
        ),
        (
            "push",
            json!({"cards": ["JK", "JK", "JK"]}),
            false,
            0,
            Some("kind_required"),
            "§5: an all-wild meld must name its kind",
        ),
    ];
    for (variant, extra, valid, readings, reason, rule) in rows {
        let mut body = extra.clone();
        body["variant"] = json!(variant);
        let reply = app.post("/v1/melds/validate", &body).await;
        assert_eq!(reply.status.as_u16(), 200, "{rule}: {}", reply.text());
        let v = reply.json();
        assert_eq!(v["valid"], *valid, "{rule}: {v}");
        assert_eq!(
            v["readings"].as_array().map(Vec::len),
            Some(*readings),
            "{rule}: {v}"
        );
        if let Some(code) = reason {
            let codes: Vec<&str> = v["reasons"]
                .as_array()
                .expect("reasons")
                .iter()
                .filter_map(|r| r["code"].as_str())
                .collect();
            assert!(codes.contains(code), "{rule}: expected reason {code} in {v}");
        }
    }
    let run = app
        .post(
            "/v1/melds/validate",
            &json!({"variant": "may_i", "cards": ["8H", "JK", "5H", "6H"]}),
        )
        .await
        .json();
    assert_eq!(run["readings"][0]["kind"], "run", "readings carry their kind");
    assert_eq!(
        run["readings"][0]["slots"][2]["represents"], "7H",
        "the joker stands for 7H"
    );
    let gaps = app
        .post(
            "/v1/melds/validate",
            &json!({"variant": "may_i", "cards": ["5S", "AH", "7S", "JK", "9S"]}),
        )
        .await
        .json();
    let places: Vec<&str> = gaps["readings"][0]["slots"]
        .as_array()
        .expect("slots")
        .iter()
        .filter_map(|s| s["represents"].as_str())
        .collect();
    assert_eq!(
        (places, &gaps["readings"][0]["slots"][1]["card"]),
        (vec!["5S", "6S", "7S", "8S", "9S"], &json!("AH")),
        "§1: AH, laid first, is 6S; JK is 8S: {gaps}"
    );
    let rankless = app
        .post(
            "/v1/melds/validate",
            &json!({"variant": "push", "cards": ["JK", "JK", "JK"], "kind": "set"}),
        )
        .await
        .json();
    assert_eq!(
        rankless["readings"][0]["slots"][0]["represents"], "*",
        "§5: no rank until a natural is laid off: {rankless}"
    );
}
on_every_backend!(meld_validation_on_every_backend, meld_validation_verdicts);

#[actix_web::test]
async fn an_ambiguous_meld_lists_every_reading() {
    let app = TestApp::spawn(&crate::helpers::Backend::Sqlite).await;
    // Two naturals and a wild in push: set of fives or a run around them? 5H 5S JK can only be a set;
    // 5H 6H JK is a run either 4H-6H or 5H-7H.
    let v = app
        .post(
            "/v1/melds/validate",
            &json!({"variant": "push", "cards": ["5H", "6H", "JK"]}),
        )
        .await
        .json();
    assert_eq!(v["valid"], true, "{v}");
    assert_eq!(
        v["ambiguous"], true,
        "§1: the joker may extend the run at either end: {v}"
    );
    assert!(v["readings"].as_array().is_some_and(|r| r.len() >= 2), "{v}");
    app.clean_up().await;
}

async fn contract_validation_verdicts(app: &TestApp) {
    let rows: &[(serde_json::Value, bool, Option<&str>, &str)] = &[
        (
            json!({"variant": "may_i", "deal": 1, "melds": [{"cards": ["7H", "7S", "7D"]}, {"cards": ["QC", "QD", "JK"]}]}),
            true,
            None,
            "§2 deal 1: two sets",
        ),
        (
            json!({"variant": "may_i", "deal": 1, "melds": [{"cards": ["7H", "7S", "7D"]}]}),
            false,
            Some("wrong_meld_count"),
            "§2 deal 1 needs two melds",
        ),
        (
            json!({"variant": "may_i", "deal": 3, "melds": [{"cards": ["7H", "7S", "7D"]}, {"cards": ["QC", "QD", "QH"]}]}),
            false,
            Some("kinds_do_not_match"),
            "§2 deal 3: two runs",
        ),
        (
            json!({"variant": "contract_7", "deal": 2, "melds": [{"cards": ["7H", "7S", "7D"]}, {"cards": ["3C", "4C", "5C", "6C"]}]}),
            true,
            None,
            "§3 deal 2: a set and a run",
        ),
        (
            json!({"variant": "push", "deal": 1, "melds": [{"cards": ["7H", "7S", "7D"]}, {"cards": ["5H", "5S", "5D"]}]}),
            true,
            None,
            "§5 deal 1: two sets",
        ),
        (
            json!({"variant": "continental", "deal": 1, "melds": [{"cards": ["3D", "4D", "5D"]}]}),
            false,
            None,
            "§4: going out needs all 15 cards",
        ),
    ];
    for (body, valid, code, rule) in rows {
        let reply = app.post("/v1/contracts/validate", body).await;
        assert_eq!(reply.status.as_u16(), 200, "{rule}: {}", reply.text());
        let v = reply.json();
        assert_eq!(v["valid"], *valid, "{rule}: {v}");
        if let Some(code) = code {
            assert_eq!(v["reasons"][0]["code"], *code, "{rule}: {v}");
        }
        if !valid {
            assert!(
                !v["reasons"].as_array().expect("reasons").is_empty(),
                "{rule}: a refusal says why"
            );
        }
    }
    let bad = app
        .post(
            "/v1/contracts/validate",
            &json!({"variant": "may_i", "deal": 8, "melds": []}),
        )
        .await;
    bad.assert_problem(
        422,
        "invalid_deal",
        "may_i has seven deals: a deal the document allows",
    );
}
on_every_backend!(contract_validation_on_every_backend, contract_validation_verdicts);

#[actix_web::test]
async fn rulesets_describe_every_variant() {
    let app = TestApp::spawn(&crate::helpers::Backend::Sqlite).await;
    let v = app.get("/v1/rulesets").await.json();
    let variants = v["variants"].as_array().expect("variants");
    let ids: Vec<&str> = variants.iter().filter_map(|x| x["variant"].as_str()).collect();
    assert_eq!(
        ids,
        ["may_i", "contract_7", "continental", "push"],
        "the four variants of docs/rules.md"
    );
    let may_i = &variants[0];
    assert_eq!(
        may_i["deals"].as_array().map(Vec::len),
        Some(7),
        "§2: seven deals"
    );
    assert_eq!(may_i["deals"][0]["hand_size"], 12, "§2: twelve cards each deal");
    assert_eq!(
        may_i["card_values"]["JK"], 50,
        "§2: a joker left in hand costs 50"
    );
    assert_eq!(
        (may_i["min_players"].as_u64(), may_i["max_players"].as_u64()),
        (Some(2), Some(8))
    );
    let continental = &variants[2];
    assert_eq!(
        continental["deals"][0]["contract"]["go_out"], true,
        "§4: go out all at once"
    );
    assert_eq!(continental["sets_allowed"], false, "§4: sequences only");
    let deuces = continental["options"]
        .as_array()
        .expect("options")
        .iter()
        .find(|o| o["name"] == "deuces_wild")
        .cloned();
    assert_eq!(
        deuces.map(|o| o["default"].clone()),
        Some(json!(true)),
        "§4: deuces wild by default"
    );
    assert_eq!(
        variants[3]["deals"][4]["contract"]["melds"][0]["min_len"], 5,
        "§5 deal 5: runs of five"
    );
    app.clean_up().await;
}
