//! Hints on the wire.

use engine::{Card, Hints, LayoffHint, ProposedMeld, Ruleset, SwapHint};
use serde::{Deserialize, Serialize};
use utoipa::ToSchema;

/// `GET /v1/games/{id}/hints` response.
#[derive(Debug, Serialize, Deserialize, ToSchema)]
#[schema(example = json!({"contract": [
    {"cards": ["7H", "7S", "7D"], "kind": "set", "wilds": []},
    {"cards": ["QC", "QD", "JK"], "kind": "set", "wilds": [{"card": "JK", "represents": "Q"}]}],
    "layoffs": [], "swaps": []}))]
pub struct HintsResponse {
    /// Melds from this hand that meet the deal's contract (in `continental`: go out), if any.
    /// They are melds as `POST /v1/games/{id}/melds` takes them, with the `kind` and every
    /// wild's `represents` pinned: send `{"melds": contract}` as is to lay them as shown.
    pub contract: Option<Vec<ProposedMeld>>,
    /// `continental`: the card to discard after going out from 16 cards.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub discard: Option<Card>,
    /// Single cards that can be laid off, and where.
    pub layoffs: Vec<LayoffHint>,
    /// Once down, where the variant lets a player lay new melds (`push`): one the hand holds,
    /// pinned as `contract`'s are: send `{"melds": [new_meld]}` to lay it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub new_meld: Option<ProposedMeld>,
    /// Once down, the cards of this hand that can take a wild's place in a meld of the table
    /// (`POST /v1/games/{id}/swaps` with the `meld_id` and `card`), where the variant has wild
    /// swaps.
    pub swaps: Vec<SwapHint>,
}

impl HintsResponse {
    /// The engine's hints, each meld pinned to the reading suggested so that it is laid as shown.
    pub fn of(hints: Hints, rules: &Ruleset) -> HintsResponse {
        HintsResponse {
            contract: hints
                .contract
                .map(|melds| melds.iter().map(|m| m.pinned(rules)).collect()),
            discard: hints.discard,
            layoffs: hints.layoffs,
            new_meld: hints.new_meld.map(|m| m.pinned(rules)),
            swaps: hints.swaps,
        }
    }
}

#[cfg(test)]
mod tests {
    use engine::{Designation, Hints, MeldKind, ProposedMeld, Ruleset, Stands, Variant};

    use super::HintsResponse;
    use crate::wire::{ActionBody, kind};

    /// `c` as a card.
    fn card(c: &str) -> engine::Card {
        c.parse().expect("a card")
    }

    #[test]
    fn a_layoff_hint_posted_as_is_is_the_engines_own_action() {
        let rules = Ruleset::default_for(Variant::MayI);
        // A joker on the run 5H-8H fits at either end: the hint must say which.
        let jk = Designation {
            card: card("JK"),
            represents: Stands::Card(card("4H")),
        };
        let longer = engine::read(
            &rules,
            &ProposedMeld {
                cards: ["JK", "5H", "6H", "7H", "8H"].map(card).to_vec(),
                kind: Some(MeldKind::Run),
                wilds: vec![jk],
            },
        )
        .expect("a run with its joker low");
        let hint = engine::LayoffHint {
            meld_id: 3,
            card: card("JK"),
            wilds: vec![jk],
            reading: longer,
        };
        let hints = Hints {
            contract: None,
            discard: None,
            layoffs: vec![hint.clone()],
            new_meld: None,
            swaps: Vec::new(),
        };
        let wire = serde_json::to_value(HintsResponse::of(hints, &rules)).expect("JSON");
        let shown = &wire["layoffs"][0];
        let body = serde_json::json!({"meld_id": shown["meld_id"], "cards": [shown["card"]], "wilds": shown["wilds"]});
        let request: ActionBody<kind::LayOff> = serde_json::from_value(body).expect("a lay-off body");
        assert_eq!(request.0, hint.action(), "the hint's wilds travel: {shown}");
    }
}
