//! Typed helpers shared by the engine's integration tests.

use engine::{
    Card, Designation, MeldKind, ProposedMeld, Reading, Ruleset, Stands, Variant, analyse, parse_cards,
};

/// Cards from a space-separated list, like `"5H 6H JK"`.
pub fn cards(list: &str) -> Vec<Card> {
    let names: Vec<&str> = list.split_whitespace().collect();
    parse_cards(&names).unwrap_or_else(|e| panic!("test cards {list:?}: {e}"))
}

/// One card.
pub fn card(name: &str) -> Card {
    name.parse().unwrap_or_else(|e| panic!("test card {name:?}: {e}"))
}

/// The default rules of `variant`.
pub fn rules(variant: Variant) -> Ruleset {
    Ruleset::default_for(variant)
}

/// `variant` with options.
pub fn rules_with(variant: Variant, options: serde_json::Value) -> Ruleset {
    Ruleset::new(variant, Some(options)).unwrap_or_else(|e| panic!("test options: {e}"))
}

/// Designations from `"JK=5H 2C=7"` (`*` for anything).
pub fn designations(list: &str) -> Vec<Designation> {
    list.split_whitespace()
        .map(|d| {
            let (c, rep) = d.split_once('=').unwrap_or_else(|| panic!("designation {d:?}"));
            Designation {
                card: card(c),
                represents: rep.parse::<Stands>().unwrap_or_else(|e| panic!("{d}: {e}")),
            }
        })
        .collect()
}

/// A proposal of `list` with an optional kind and designations.
pub fn proposal(list: &str, kind: Option<MeldKind>, wilds: &str) -> ProposedMeld {
    ProposedMeld {
        cards: cards(list),
        kind,
        wilds: designations(wilds),
    }
}

/// The one reading of `list` (kind and designations as given), or a panic naming `why`.
pub fn reading(rules: &Ruleset, list: &str, kind: Option<MeldKind>, wilds: &str, why: &str) -> Reading {
    let analysis = analyse(rules, &proposal(list, kind, wilds));
    assert_eq!(
        analysis.readings.len(),
        1,
        "{why}: expected one reading of {list}, got {:?}",
        analysis.readings.iter().map(describe).collect::<Vec<_>>()
    );
    analysis.readings.into_iter().next().expect("one reading")
}

/// A reading in one line: `run H: 5H 6H JK=7H 8H (n3 w1)`, `set 7: 7C 7D JK=7 (n2 w1)`.
/// A card is followed by `=what` whenever it does not stand for itself.
pub fn describe(r: &Reading) -> String {
    let head = match r.kind() {
        MeldKind::Run => format!("run {}", r.suit().map_or('?', |s| s.char())),
        MeldKind::Set => format!("set {}", r.rank().map_or('*', |s| s.char())),
    };
    let slots: Vec<String> = r
        .slots()
        .iter()
        .map(|s| {
            let itself = match s.represents {
                Stands::Card(c) => c == s.card,
                Stands::Rank(rank) => s.card.rank() == Some(rank),
                Stands::Any => false,
            };
            if itself {
                s.card.to_string()
            } else {
                format!("{}={}", s.card, s.represents)
            }
        })
        .collect();
    format!("{head}: {} (n{} w{})", slots.join(" "), r.naturals(), r.wilds())
}

/// The cards of `melds` are a sub-multiset of `hand`.
pub fn uses_hand(hand: &[Card], melds: &[Reading]) -> bool {
    let mut left = hand.to_vec();
    melds
        .iter()
        .flat_map(Reading::cards)
        .all(|c| match left.iter().position(|h| *h == c) {
            Some(i) => {
                left.swap_remove(i);
                true
            }
            None => false,
        })
}
