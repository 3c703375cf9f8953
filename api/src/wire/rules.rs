//! The rules on the wire: submitted melds, readings, reasons, contracts and rulesets.

use engine::{
    Analysis, Card, ContractReason, ContractView, DISTINCT_CARDS, Designation, HouseOption, MeldKind,
    ProposedMeld, Rank, Reading, Reason, Ruleset, RulesetError, Stands, Variant,
};

use super::{Code, Invalid, MAX_CARDS, MAX_MELDS, MAX_WILDS, at_most};
use serde::{Deserialize, Serialize};
use std::sync::LazyLock;
use utoipa::ToSchema;

/// `POST /v1/melds/validate` request.
#[derive(Debug, Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
#[schema(example = json!({"variant": "may_i", "cards": ["8H", "JK", "5H", "6H"]}))]
pub struct MeldValidationRequest {
    /// `may_i`, `contract_7`, `continental` or `push`.
    #[schema(example = "may_i")]
    pub variant: Variant,
    /// The variant's house-rule options (see `GET /v1/rulesets`); absent for the defaults.
    #[serde(default)]
    #[schema(value_type = Option<super::options::HouseOptions>)]
    pub options: Option<serde_json::Value>,
    /// The cards.
    #[serde(deserialize_with = "at_most::<MAX_CARDS, _, _>")]
    #[schema(example = json!(["8H", "JK", "5H", "6H"]), max_items = 40)]
    pub cards: Vec<Card>,
    /// `set` or `run`, to fix the kind.
    #[serde(default)]
    pub kind: Option<MeldKind>,
    /// What some wilds represent.
    #[serde(default, deserialize_with = "at_most::<MAX_WILDS, _, _>")]
    #[schema(max_items = 20)]
    pub wilds: Vec<Designation>,
}

/// Whether cards form a legal meld: every legal reading, or the reasons there is none.
#[derive(Debug, Serialize, Deserialize, ToSchema)]
#[schema(example = json!({
    "valid": true,
    "readings": [{"kind": "run", "suit": "H", "cards": ["5H", "6H", "JK", "8H"], "slots": [
        {"card": "5H", "represents": "5H", "natural": true},
        {"card": "6H", "represents": "6H", "natural": true},
        {"card": "JK", "represents": "7H", "natural": false},
        {"card": "8H", "represents": "8H", "natural": true}]}],
    "ambiguous": false,
    "reasons": []
}))]
pub struct MeldValidationResponse {
    /// At least one legal reading.
    pub valid: bool,
    /// Whether the cards can be read more than one way (a request to lay them must choose).
    pub ambiguous: bool,
    /// Every legal reading.
    pub readings: Vec<Reading>,
    /// Why the cards are not a meld (empty when valid).
    pub reasons: Vec<Reason>,
}

impl From<&Analysis> for MeldValidationResponse {
    fn from(analysis: &Analysis) -> Self {
        MeldValidationResponse {
            valid: analysis.is_legal(),
            ambiguous: analysis.readings.len() > 1,
            readings: analysis.readings.iter().map(Reading::clone).collect(),
            reasons: analysis.reasons.clone(),
        }
    }
}

impl MeldValidationResponse {
    /// The JSON of the response to `analysis`: the very bytes serde writes for
    /// `MeldValidationResponse::from(analysis)` (a test holds them equal), written straight from
    /// the analysis.
    ///
    /// A reading is a few fixed keys and card names, which never need escaping; serde's
    /// per-string escaping and the views built for it were a sixth of a validation's
    /// instructions (docs/performance.md). The reasons, which carry sentences, go through serde.
    pub fn json(analysis: &Analysis) -> Vec<u8> {
        let mut out = Vec::with_capacity(64 + 384 * analysis.readings.len());
        MeldValidationResponse::write(&mut out, analysis);
        out
    }

    /// Appends [`MeldValidationResponse::json`] of `analysis` to `out`.
    pub fn write(out: &mut Vec<u8>, analysis: &Analysis) {
        out.extend_from_slice(if analysis.is_legal() {
            b"{\"valid\":true"
        } else {
            b"{\"valid\":false"
        });
        out.extend_from_slice(if analysis.readings.len() > 1 {
            b",\"ambiguous\":true,\"readings\":["
        } else {
            b",\"ambiguous\":false,\"readings\":["
        });
        for (i, reading) in analysis.readings.iter().enumerate() {
            if i > 0 {
                out.push(b',');
            }
            write_reading(out, reading);
        }
        out.extend_from_slice(b"],\"reasons\":");
        // Writing into a Vec cannot fail, and a reason always serialises.
        let _ = serde_json::to_writer(&mut *out, &analysis.reasons);
        out.push(b'}');
    }
}

/// Appends `reading` as serde writes it.
fn write_reading(out: &mut Vec<u8>, reading: &Reading) {
    // Room for the whole reading at once: each write below is then a copy of a size known when
    // compiling (every name has a fixed length), not a call to copy a slice.
    out.reserve(64 + 48 * reading.len());
    out.extend_from_slice(b"{\"kind\":");
    quoted::<3>(out, reading.kind().name());
    if let Some(rank) = reading.rank() {
        out.extend_from_slice(b",\"rank\":");
        quoted::<1>(out, rank.name());
    }
    if let Some(suit) = reading.suit() {
        out.extend_from_slice(b",\"suit\":");
        quoted::<1>(out, suit.name());
    }
    out.extend_from_slice(b",\"cards\":[");
    for (i, card) in reading.cards().enumerate() {
        if i > 0 {
            out.push(b',');
        }
        quoted::<2>(out, card.name());
    }
    out.extend_from_slice(b"],\"slots\":[");
    for (i, slot) in reading.slots().iter().enumerate() {
        if i > 0 {
            out.push(b',');
        }
        if slot.natural && slot.represents == Stands::Card(slot.card) {
            out.extend_from_slice(NATURAL_SLOTS[slot.card.index()].as_bytes());
            continue;
        }
        out.extend_from_slice(b"{\"card\":");
        quoted::<2>(out, slot.card.name());
        out.extend_from_slice(b",\"represents\":");
        match slot.represents {
            Stands::Card(card) => quoted::<2>(out, card.name()),
            rank_or_any => quoted::<1>(out, rank_or_any.name()),
        }
        out.extend_from_slice(if slot.natural {
            b",\"natural\":true}"
        } else {
            b",\"natural\":false}"
        });
    }
    out.extend_from_slice(b"]}");
}

/// Each card's slot as a natural card, `{"card":"7H","represents":"7H","natural":true}`, by
/// [`Card::index`]: most slots of most readings are one, written as one copy.
static NATURAL_SLOTS: LazyLock<[String; DISTINCT_CARDS]> = LazyLock::new(|| {
    std::array::from_fn(|i| {
        let name = Card::from_index(i).name();
        format!("{{\"card\":\"{name}\",\"represents\":\"{name}\",\"natural\":true}}")
    })
});

/// Appends `name` in quotes, as a copy of `N` bytes: a card's name is two letters, a rank's or
/// a suit's and `*` one, a kind's three (a name of another length is copied as it is).
fn quoted<const N: usize>(out: &mut Vec<u8>, name: &str) {
    out.push(b'"');
    match <&[u8; N]>::try_from(name.as_bytes()) {
        Ok(fixed) => out.extend_from_slice(fixed),
        Err(_) => out.extend_from_slice(name.as_bytes()),
    }
    out.push(b'"');
}

/// `POST /v1/contracts/validate` request.
#[derive(Debug, Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
#[schema(example = json!({"variant": "may_i", "deal": 1, "melds": [{"cards": ["7H", "7S", "7D"]}, {"cards": ["QC", "QD", "JK"]}]}))]
pub struct ContractValidationRequest {
    /// `may_i`, `contract_7`, `continental` or `push`.
    #[schema(example = "may_i")]
    pub variant: Variant,
    /// The variant's options; absent for the defaults.
    #[serde(default)]
    #[schema(value_type = Option<super::options::HouseOptions>)]
    pub options: Option<serde_json::Value>,
    /// The deal (1-based) whose contract to check.
    #[schema(example = 1, minimum = 1, maximum = 255)]
    pub deal: u8,
    /// The melds laid down at once.
    #[serde(deserialize_with = "at_most::<MAX_MELDS, _, _>")]
    #[schema(max_items = 6)]
    pub melds: Vec<ProposedMeld>,
}

/// Whether melds fulfil a deal's contract, and why not.
#[derive(Debug, Serialize, Deserialize, ToSchema)]
#[schema(example = json!({"valid": false, "contract": {"description": "a set of 3+, a set of 3+", "melds": [
    {"kind": "set", "min_len": 3}, {"kind": "set", "min_len": 3}], "go_out": false},
    "melds": [], "reasons": [{"code": "wrong_meld_count", "message": "the contract asks for 2 melds, not 1"}]}))]
pub struct ContractValidationResponse {
    /// The melds fulfil the contract.
    pub valid: bool,
    /// The deal's contract.
    pub contract: ContractView,
    /// The melds as they would lie on the table, when valid.
    pub melds: Vec<Reading>,
    /// Why not, when not valid.
    pub reasons: Vec<ContractReason>,
}

impl ContractValidationResponse {
    /// The verdict on `melds` laid down at once for deal `deal` of `rules`.
    pub fn of(rules: &Ruleset, deal: u8, melds: &[ProposedMeld]) -> ContractValidationResponse {
        let contract = ContractView::from(&rules.contract(deal));
        match engine::check_proposed_contract(rules, deal, melds) {
            Ok(laid) => ContractValidationResponse {
                valid: true,
                contract,
                melds: laid,
                reasons: Vec::new(),
            },
            Err(reasons) => ContractValidationResponse {
                valid: false,
                contract,
                melds: Vec::new(),
                reasons,
            },
        }
    }
}

/// One deal of a variant.
#[derive(Debug, Serialize, Deserialize, ToSchema)]
pub struct DealView {
    /// 1-based.
    pub deal: u8,
    /// Cards dealt to each player.
    pub hand_size: usize,
    /// What the first meld must be.
    pub contract: ContractView,
}

/// A variant with its defaults.
#[derive(Debug, Serialize, Deserialize, ToSchema)]
pub struct RulesetView {
    /// `may_i`, `contract_7`, `continental` or `push`.
    pub variant: Variant,
    /// Fewest players (with the default options).
    pub min_players: usize,
    /// Most players (with the default options).
    pub max_players: usize,
    /// The house-rule options and their defaults, from the declarations that check them, and
    /// the service's `turn_seconds`.
    pub options: Vec<HouseOption>,
    /// The deals with the default options.
    pub deals: Vec<DealView>,
    /// Penalty points of each card left in hand (by rank, `JK` for the joker); empty where the
    /// variant pays the winner instead (`continental`).
    #[schema(value_type = Object, example = json!({"A": 20, "2": 5, "T": 10, "JK": 50}))]
    pub card_values: serde_json::Map<String, serde_json::Value>,
    /// Whether sets are melds in this variant.
    pub sets_allowed: bool,
    /// Whether out-of-turn claims ("May I?") exist.
    pub claims: bool,
    /// Fewest cards of a set and of a run.
    pub min_set: usize,
    /// Fewest cards of a run.
    pub min_run: usize,
}

/// `GET /v1/rulesets` response.
#[derive(Debug, Serialize, Deserialize, ToSchema)]
#[schema(example = json!({"variants": [{"variant": "may_i", "min_players": 2, "max_players": 8,
    "options": [{"name": "deuces_wild", "type": "boolean", "nullable": false, "default": false,
        "description": "Deuces are wild as well as jokers."}],
    "deals": [{"deal": 1, "hand_size": 12, "contract": {"description": "a set of 3+, a set of 3+",
        "melds": [{"kind": "set", "min_len": 3}, {"kind": "set", "min_len": 3}], "go_out": false}}],
    "card_values": {"A": 20, "2": 5, "T": 10, "J": 10, "Q": 10, "K": 10, "JK": 50},
    "sets_allowed": true, "claims": true, "min_set": 3, "min_run": 4}]}))]
pub struct RulesetsResponse {
    /// Every variant.
    pub variants: Vec<RulesetView>,
}

impl RulesetView {
    /// A variant with its default rules.
    pub fn of(variant: Variant) -> RulesetView {
        let rules = Ruleset::default_for(variant);
        let options = super::options::options_of(variant);
        let deals = (1..=rules.deals())
            .map(|deal| DealView {
                deal,
                hand_size: rules.hand_size(deal),
                contract: ContractView::from(&rules.contract(deal)),
            })
            .collect();
        let mut card_values = serde_json::Map::new();
        for rank in Rank::ALL {
            let card = Card::new(rank, engine::Suit::Spades);
            if let Some(v) = rules.card_value(card) {
                card_values.insert(rank.to_string(), v.into());
            }
        }
        if let Some(v) = rules.card_value(Card::JOKER) {
            card_values.insert("JK".into(), v.into());
        }
        let players = rules.players();
        RulesetView {
            variant,
            min_players: *players.start(),
            max_players: *players.end(),
            options,
            deals,
            card_values,
            sets_allowed: rules.sets_allowed(),
            claims: rules.has_claims(),
            min_set: rules.min_len(MeldKind::Set),
            min_run: rules.min_len(MeldKind::Run),
        }
    }
}

/// The document names the variants but cannot say each one's options and player counts:
/// those refusals are the rules'.
impl From<RulesetError> for Invalid {
    fn from(e: RulesetError) -> Invalid {
        match e {
            RulesetError::UnknownVariant(_) => Invalid::new(&e, e.to_string()),
            _ => Invalid::refused(&e, e.to_string()),
        }
    }
}

impl TryFrom<MeldValidationRequest> for (Ruleset, ProposedMeld) {
    type Error = Invalid;

    fn try_from(req: MeldValidationRequest) -> Result<Self, Invalid> {
        // The same options object as a game's: the turn clock is checked, and has no bearing here.
        let (rules, _) = super::options::read(req.variant, req.options)?;
        let meld = ProposedMeld {
            cards: req.cards,
            kind: req.kind,
            wilds: req.wilds,
        };
        Ok((rules, meld))
    }
}

/// A contract check as the engine takes it: rules, a deal of them, the melds.
#[derive(Debug)]
pub struct ContractCheck {
    /// The rules.
    pub rules: Ruleset,
    /// A deal of the game (1-based).
    pub deal: u8,
    /// The melds laid down at once.
    pub melds: Vec<ProposedMeld>,
}

impl TryFrom<ContractValidationRequest> for ContractCheck {
    type Error = Invalid;

    fn try_from(req: ContractValidationRequest) -> Result<Self, Invalid> {
        let (rules, _) = super::options::read(req.variant, req.options)?;
        check_deal(&rules, req.deal)?;
        Ok(ContractCheck {
            melds: req.melds,
            deal: req.deal,
            rules,
        })
    }
}

/// Refuses a deal the variant does not have.
///
/// # Errors
/// `invalid_deal`, a 422: the document allows any deal up to 255.
pub fn check_deal(rules: &Ruleset, deal: u8) -> Result<(), Invalid> {
    if deal == 0 || deal > rules.deals() {
        return Err(Invalid::refused(
            Code::InvalidDeal,
            format!("{} has deals 1 to {}, not {deal}", rules.variant(), rules.deals()),
        ));
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use engine::{Card, ProposedMeld, Ruleset, Variant, analyse};

    use super::MeldValidationResponse;

    /// Every meld of up to five cards from a pool that makes sets, runs (aces at both ends, 2s
    /// and jokers as wilds), ambiguous readings and refusals, in every variant.
    #[test]
    fn the_written_verdict_is_what_serde_writes() {
        let pool: Vec<Card> = [
            "AH", "2H", "3H", "4H", "KH", "QH", "2C", "3S", "3D", "AS", "JK", "JK",
        ]
        .iter()
        .map(|c| c.parse().expect("a card"))
        .collect();
        let (mut readings, mut refusals, mut ambiguous) = (0, 0, 0);
        for variant in Variant::ALL {
            let rules = Ruleset::new(variant, None).expect("the defaults");
            for mask in 0u32..(1 << pool.len()) {
                if mask.count_ones() > 5 {
                    continue;
                }
                let cards = (0..pool.len()).filter(|i| mask & (1 << i) != 0).map(|i| pool[i]);
                let meld = ProposedMeld::of(&cards.collect::<Vec<_>>());
                let analysis = analyse(&rules, &meld);
                let expected = serde_json::to_vec(&MeldValidationResponse::from(&analysis)).expect("JSON");
                let written = MeldValidationResponse::json(&analysis);
                assert_eq!(
                    String::from_utf8_lossy(&written),
                    String::from_utf8_lossy(&expected),
                    "{variant:?} {:?}",
                    meld.cards
                );
                readings += analysis.readings.len();
                refusals += usize::from(!analysis.is_legal());
                ambiguous += usize::from(analysis.readings.len() > 1);
            }
        }
        // The pool does make every shape.
        assert!(
            readings > 100 && refusals > 100 && ambiguous > 10,
            "{readings} {refusals} {ambiguous}"
        );
    }
}
