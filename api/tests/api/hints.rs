//! Hints are moves: every meld `/hints` suggests, sent as is to `POST /v1/games/{id}/melds`,
//! is accepted.

use engine::Variant;
use serde_json::json;

use crate::helpers::{TestApp, create, deck_with};
use crate::on_every_backend;

async fn suggested_melds_are_accepted(app: &TestApp) {
    // Deal-1 hands that hold the contract (two sets; in `continental`, a way out), with a wild
    // where the variant has one to stack (a red ace, a deuce) so that the hint must pin what
    // it represents; `deck_with` trades names, so jokers, fewer than other names, stay put.
    let sets = ["7H", "7S", "7D", "QC", "QD"];
    let out = [
        "3C", "4C", "5C", "6C", "7C", "8C", "3D", "4D", "5D", "6D", "7D", "2S", "9H", "TH", "JH",
    ];
    let rows: Vec<(Variant, &str, usize, Vec<&str>)> = vec![
        (Variant::MayI, "may_i", 2, [&sets[..], &["AH"]].concat()),
        (Variant::Contract7, "contract_7", 2, [&sets[..], &["QH"]].concat()),
        (Variant::Push, "push", 4, [&sets[..], &["2C"]].concat()),
        (Variant::Continental, "continental", 2, out.to_vec()),
    ];
    for (variant, id, players, wanted) in rows {
        let (seat, deck) = deck_with(variant, players, &wanted);
        let deck: Vec<String> = deck.iter().map(ToString::to_string).collect();
        let table = create(app, id, players, 1, json!({"stacked_decks": [deck]})).await;
        let token = &table.tokens[usize::from(seat.0)];
        let game = format!("/v1/games/{}", table.id);
        let drawn = app
            .post_as(&format!("{game}/draw"), token, &json!({"source": "stock"}), &[])
            .await;
        assert_eq!(drawn.status.as_u16(), 200, "{id}: {}", drawn.text());
        let hints = app.get_as(&format!("{game}/hints"), token).await;
        assert_eq!(hints.status.as_u16(), 200, "{id}: {}", hints.text());
        let hints = hints.json();
        let contract = &hints["contract"];
        assert!(
            contract.as_array().is_some_and(|m| !m.is_empty()),
            "{id}: the stacked hand holds the contract, so a hint suggests it: {hints}"
        );
        let laid = app
            .post_as(&format!("{game}/melds"), token, &json!({"melds": contract}), &[])
            .await;
        assert_eq!(
            laid.status.as_u16(),
            200,
            "{id}: the suggested melds {contract} are accepted as they are: {}",
            laid.text()
        );
        let view = laid.json();
        let on_table = view["table"].as_array().map_or(0, Vec::len);
        assert_eq!(
            on_table,
            contract.as_array().map_or(0, Vec::len),
            "{id}: every suggested meld lies on the table: {view}"
        );
    }
}
on_every_backend!(
    suggested_melds_are_accepted_on_every_backend,
    suggested_melds_are_accepted
);
