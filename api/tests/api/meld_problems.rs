//! A refused meld's problem document carries what the engine knows: the readings to choose
//! from (docs/rules.md#readings) or the reasons, as RFC 9457 extension members.

use engine::{Seat, Variant};
use serde_json::{Value, json};

use crate::helpers::{Table, TestApp, create, deck_with};
use crate::on_every_backend;

async fn melds_reply(
    app: &TestApp,
    table: &Table,
    seat: Seat,
    draw: bool,
    melds: Value,
) -> crate::helpers::Reply {
    let token = &table.tokens[usize::from(seat.0)];
    if draw {
        let drawn = app
            .post_as(
                &format!("/v1/games/{}/draw", table.id),
                token,
                &json!({"source": "discard"}),
                &[],
            )
            .await;
        assert_eq!(drawn.status.as_u16(), 200, "{}", drawn.text());
    }
    app.post_as(&format!("/v1/games/{}/melds", table.id), token, &melds, &[])
        .await
}

/// docs/rules.md#readings: the move is refused and the problem lists the readings to choose
/// from.
async fn an_ambiguous_meld_problem_lists_the_readings(app: &TestApp) {
    // §4: going out with five 3-card sequences before drawing; the first can be 4H-6H or 5H-7H.
    let ambiguous = ["5H", "6H", "JK"];
    let others = [
        ["7C", "8C", "9C"],
        ["7D", "8D", "9D"],
        ["7S", "8S", "9S"],
        ["TH", "JH", "QH"],
    ];
    let hand: Vec<&str> = ambiguous.iter().chain(others.iter().flatten()).copied().collect();
    let (seat, deck) = deck_with(Variant::Continental, 2, &hand);
    let deck: Vec<String> = deck.iter().map(ToString::to_string).collect();
    let table = create(app, "continental", 2, 1, json!({"stacked_decks": [deck]})).await;
    let mut melds = vec![json!({"cards": ambiguous})];
    melds.extend(others.iter().map(|m| json!({"cards": m})));
    let reply = melds_reply(app, &table, seat, false, json!({ "melds": melds })).await;
    reply.assert_problem(
        422,
        "ambiguous_meld",
        "§1: the joker extends the run at either end",
    );
    let problem = reply.json();
    let readings = problem["readings"].as_array().expect("the readings are listed");
    assert!(readings.len() >= 2, "§1: more than one reading: {problem}");
    assert_eq!(
        problem["meld"], 0,
        "the first meld is the ambiguous one: {problem}"
    );
    let validated = app
        .post(
            "/v1/melds/validate",
            &json!({"variant": "continental", "cards": ambiguous}),
        )
        .await
        .json();
    assert_eq!(
        problem["readings"], validated["readings"],
        "each reading as the validate endpoint shows it"
    );
    assert!(
        readings
            .iter()
            .all(|r| r["kind"].is_string() && r["slots"][0]["represents"].is_string()),
        "kind, cards and what each card represents: {problem}"
    );
}
on_every_backend!(
    an_ambiguous_meld_problem_lists_the_readings_on_every_backend,
    an_ambiguous_meld_problem_lists_the_readings
);

/// An illegal meld's problem says why, with the engine's reason codes.
async fn an_illegal_meld_problem_lists_the_reasons(app: &TestApp) {
    let (seat, deck) = deck_with(Variant::MayI, 3, &["5H", "9C", "KD", "9H", "9S", "9D"]);
    let deck: Vec<String> = deck.iter().map(ToString::to_string).collect();
    let table = create(app, "may_i", 3, 1, json!({"stacked_decks": [deck]})).await;
    let reply = melds_reply(
        app,
        &table,
        seat,
        true,
        json!({"melds": [{"cards": ["5H", "9C", "KD"]}, {"cards": ["9H", "9S", "9D"]}]}),
    )
    .await;
    reply.assert_problem(422, "illegal_meld", "§2: 5H 9C KD is neither a set nor a run");
    let problem = reply.json();
    let reasons = problem["reasons"].as_array().expect("the reasons are listed");
    assert!(
        !reasons.is_empty()
            && reasons
                .iter()
                .all(|r| r["code"].is_string() && r["message"].is_string()),
        "each reason has a code and a message: {problem}"
    );
}
on_every_backend!(
    an_illegal_meld_problem_lists_the_reasons_on_every_backend,
    an_illegal_meld_problem_lists_the_reasons
);
