//! The stateless endpoints: meld and contract validation, and the rulesets.

use actix_web::{HttpResponse, get, post, web};
use engine::{Card, Designation, MeldKind, ProposedMeld, Rank, Ruleset, Variant};
use serde::{Deserialize, Serialize};
use utoipa::ToSchema;

use crate::dto::{ContractReasonView, ContractView, ReadingView, ReasonView};
use crate::error::{ApiError, Problem};
use crate::extract::JsonBody;

/// A wild card's designation: what it stands for in this meld.
#[derive(Debug, Deserialize, Serialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct DesignationRequest {
    /// A wild card of the meld.
    #[schema(value_type = String, example = "JK")]
    pub card: Card,
    /// What it stands for: a card (`"7H"`, in runs), a rank (`"7"`, in sets) or `"*"`.
    #[schema(value_type = String, example = "7H")]
    pub represents: engine::Stands,
}

/// A meld as submitted: cards in any order, maybe its kind and what its wilds represent.
#[derive(Debug, Deserialize, Serialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct MeldRequest {
    /// The cards, like `["5H", "6H", "JK", "8H"]`.
    #[schema(value_type = Vec<String>, example = json!(["5H", "6H", "JK", "8H"]))]
    pub cards: Vec<Card>,
    /// `set` or `run`, to fix the kind.
    #[serde(default)]
    #[schema(value_type = Option<String>, example = "run")]
    pub kind: Option<MeldKind>,
    /// What some wilds represent, to fix a reading.
    #[serde(default)]
    pub wilds: Vec<DesignationRequest>,
}

impl From<MeldRequest> for ProposedMeld {
    fn from(m: MeldRequest) -> Self {
        ProposedMeld {
            cards: m.cards,
            kind: m.kind,
            wilds: m
                .wilds
                .into_iter()
                .map(|d| Designation {
                    card: d.card,
                    represents: d.represents,
                })
                .collect(),
        }
    }
}

/// `POST /v1/melds/validate` request.
#[derive(Debug, Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
#[schema(example = json!({"variant": "may_i", "cards": ["8H", "JK", "5H", "6H"]}))]
pub struct MeldValidationRequest {
    /// `may_i`, `contract_7`, `continental` or `push`.
    #[schema(value_type = String, example = "may_i")]
    pub variant: Variant,
    /// The variant's house-rule options (see `GET /v1/rulesets`); absent for the defaults.
    #[serde(default)]
    #[schema(value_type = Option<Object>)]
    pub options: Option<serde_json::Value>,
    /// The cards.
    #[schema(value_type = Vec<String>, example = json!(["8H", "JK", "5H", "6H"]))]
    pub cards: Vec<Card>,
    /// `set` or `run`, to fix the kind.
    #[serde(default)]
    #[schema(value_type = Option<String>)]
    pub kind: Option<MeldKind>,
    /// What some wilds represent.
    #[serde(default)]
    pub wilds: Vec<DesignationRequest>,
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
    "reasons": []
}))]
pub struct MeldValidationResponse {
    /// At least one legal reading.
    pub valid: bool,
    /// Whether the cards can be read more than one way (a request to lay them must choose).
    pub ambiguous: bool,
    /// Every legal reading.
    pub readings: Vec<ReadingView>,
    /// Why the cards are not a meld (empty when valid).
    pub reasons: Vec<ReasonView>,
}

fn ruleset(variant: Variant, options: Option<serde_json::Value>) -> Result<Ruleset, ApiError> {
    Ruleset::new(variant, options).map_err(|e| ApiError::bad_request(e.code(), e.to_string()))
}

/// Checks whether cards form a legal meld in a variant.
#[utoipa::path(
    post, path = "/v1/melds/validate", tag = "validation",
    request_body(content = MeldValidationRequest, examples(
        ("run with a joker" = (value = json!({"variant": "may_i", "cards": ["8H", "JK", "5H", "6H"]}))),
        ("too many wilds" = (value = json!({"variant": "may_i", "cards": ["5H", "JK", "JK", "AD"]}))),
        ("fixed kind and wild" = (value = json!({"variant": "push", "cards": ["5H", "JK", "2C"], "kind": "set",
            "wilds": [{"card": "JK", "represents": "5"}, {"card": "2C", "represents": "5"}]})))
    )),
    responses(
        (status = 200, description = "The verdict: `valid` with every reading, or the reasons.", body = MeldValidationResponse),
        (status = 400, description = "Malformed body, unknown card (`unknown_card`), unknown variant (`unknown_variant`) or bad options (`invalid_options`).",
            body = Problem, content_type = "application/problem+json",
            example = json!({"type": "urn:continental:problem:unknown_card", "title": "Bad Request", "status": 400,
                "detail": "invalid request body at `cards[1]`: unknown card \"ZZ\": write rank then suit, like 7H, TD, 10D or JK", "code": "unknown_card"})),
        (status = 413, description = "The body is larger than the limit.", body = Problem, content_type = "application/problem+json")
    )
)]
#[post("/v1/melds/validate")]
pub async fn validate_meld(
    body: JsonBody<MeldValidationRequest>,
) -> Result<web::Json<MeldValidationResponse>, ApiError> {
    let req = body.value;
    let rules = ruleset(req.variant, req.options)?;
    let proposed: ProposedMeld = MeldRequest {
        cards: req.cards,
        kind: req.kind,
        wilds: req.wilds,
    }
    .into();
    let analysis = engine::analyse(&rules, &proposed);
    Ok(web::Json(MeldValidationResponse {
        valid: analysis.is_legal(),
        ambiguous: analysis.readings.len() > 1,
        readings: analysis.readings.iter().map(ReadingView::from).collect(),
        reasons: analysis.reasons.iter().map(ReasonView::from).collect(),
    }))
}

/// `POST /v1/contracts/validate` request.
#[derive(Debug, Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
#[schema(example = json!({"variant": "may_i", "deal": 1, "melds": [{"cards": ["7H", "7S", "7D"]}, {"cards": ["QC", "QD", "JK"]}]}))]
pub struct ContractValidationRequest {
    /// `may_i`, `contract_7`, `continental` or `push`.
    #[schema(value_type = String, example = "may_i")]
    pub variant: Variant,
    /// The variant's options; absent for the defaults.
    #[serde(default)]
    #[schema(value_type = Option<Object>)]
    pub options: Option<serde_json::Value>,
    /// The deal (1-based) whose contract to check.
    #[schema(example = 1, minimum = 1)]
    pub deal: u8,
    /// The melds laid down at once.
    pub melds: Vec<MeldRequest>,
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
    pub melds: Vec<ReadingView>,
    /// Why not, when not valid.
    pub reasons: Vec<ContractReasonView>,
}

/// Checks whether melds fulfil a deal's contract.
#[utoipa::path(
    post, path = "/v1/contracts/validate", tag = "validation",
    request_body(content = ContractValidationRequest, examples(
        ("two sets" = (value = json!({"variant": "may_i", "deal": 1, "melds": [{"cards": ["7H", "7S", "7D"]}, {"cards": ["QC", "QD", "JK"]}]}))),
        ("one meld short" = (value = json!({"variant": "may_i", "deal": 1, "melds": [{"cards": ["7H", "7S", "7D"]}]})))
    )),
    responses(
        (status = 200, description = "The verdict, with the contract and the reasons when not met.", body = ContractValidationResponse),
        (status = 400, description = "Malformed body, unknown card or variant, bad options, or a deal outside the game (`invalid_deal`).",
            body = Problem, content_type = "application/problem+json"),
        (status = 413, description = "The body is larger than the limit.", body = Problem, content_type = "application/problem+json")
    )
)]
#[post("/v1/contracts/validate")]
pub async fn validate_contract(
    body: JsonBody<ContractValidationRequest>,
) -> Result<web::Json<ContractValidationResponse>, ApiError> {
    let req = body.value;
    let rules = ruleset(req.variant, req.options)?;
    if req.deal == 0 || req.deal > rules.deals() {
        return Err(ApiError::bad_request(
            "invalid_deal",
            format!(
                "{} has deals 1 to {}, not {}",
                rules.variant(),
                rules.deals(),
                req.deal
            ),
        ));
    }
    let melds: Vec<ProposedMeld> = req.melds.into_iter().map(ProposedMeld::from).collect();
    let contract = ContractView::from(&rules.contract(req.deal));
    Ok(web::Json(
        match engine::check_proposed_contract(&rules, req.deal, &melds) {
            Ok(laid) => ContractValidationResponse {
                valid: true,
                contract,
                melds: laid.iter().map(ReadingView::from).collect(),
                reasons: Vec::new(),
            },
            Err(reasons) => ContractValidationResponse {
                valid: false,
                contract,
                melds: Vec::new(),
                reasons: reasons.iter().map(ContractReasonView::from).collect(),
            },
        },
    ))
}

/// One house-rule option.
#[derive(Debug, Serialize, Deserialize, ToSchema)]
pub struct OptionView {
    /// Its name in `options`.
    pub name: String,
    /// Its default value.
    #[schema(value_type = Object)]
    pub default: serde_json::Value,
    /// What it does.
    pub description: String,
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
    pub variant: String,
    /// Fewest players (with the default options).
    pub min_players: usize,
    /// Most players (with the default options).
    pub max_players: usize,
    /// The house-rule options and their defaults.
    pub options: Vec<OptionView>,
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
    "options": [{"name": "deuces_wild", "default": false, "description": "Deuces are wild as well as jokers."}],
    "deals": [{"deal": 1, "hand_size": 12, "contract": {"description": "a set of 3+, a set of 3+",
        "melds": [{"kind": "set", "min_len": 3}, {"kind": "set", "min_len": 3}], "go_out": false}}],
    "card_values": {"A": 20, "2": 5, "T": 10, "J": 10, "Q": 10, "K": 10, "JK": 50},
    "sets_allowed": true, "claims": true, "min_set": 3, "min_run": 4}]}))]
pub struct RulesetsResponse {
    /// Every variant.
    pub variants: Vec<RulesetView>,
}

fn option_docs(variant: Variant) -> &'static [(&'static str, &'static str)] {
    match variant {
        Variant::MayI => &[
            ("deuces_wild", "Deuces are wild as well as jokers."),
            (
                "claims_disabled_last_deals",
                "No \"May I?\" in this many last deals (0 to 7).",
            ),
            (
                "max_claims_per_deal",
                "At most this many claims per player per deal; null is unlimited.",
            ),
        ],
        Variant::Contract7 => &[
            (
                "claims_disabled_last_deals",
                "No claims in this many last deals (0 to 7).",
            ),
            (
                "max_claims_per_deal",
                "At most this many claims per player per deal; null is unlimited.",
            ),
        ],
        Variant::Continental => &[
            ("deuces_wild", "Deuces are wild as well as jokers."),
            ("jokers_per_pack", "Jokers in each pack (0 to 4)."),
            (
                "deal_passes_left",
                "The deal passes left instead of to the winner.",
            ),
            ("bonuses", "Pay the going-out bonuses."),
            ("deals", "Deals in the match (1 to 20)."),
        ],
        Variant::Push => &[
            (
                "individual",
                "No partnerships: 4 to 6 players each for themselves.",
            ),
            ("ten_every_deal", "Deal ten cards in every deal."),
            (
                "three_and_seven",
                "Deal 5's contract is a run of three and a run of seven.",
            ),
        ],
    }
}

fn describe(variant: Variant) -> RulesetView {
    let rules = Ruleset::default_for(variant);
    let defaults = match serde_json::to_value(&rules) {
        Ok(serde_json::Value::Object(mut o)) => match o.remove("options") {
            Some(serde_json::Value::Object(opts)) => opts,
            _ => serde_json::Map::new(),
        },
        _ => serde_json::Map::new(),
    };
    let options = option_docs(variant)
        .iter()
        .map(|(name, description)| OptionView {
            name: (*name).to_owned(),
            default: defaults.get(*name).cloned().unwrap_or(serde_json::Value::Null),
            description: (*description).to_owned(),
        })
        .collect();
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
        variant: variant.id().to_owned(),
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

/// The variants, their options with defaults, contracts, deal sizes and card values.
#[utoipa::path(
    get, path = "/v1/rulesets", tag = "validation",
    responses((status = 200, description = "Every variant with its default rules.", body = RulesetsResponse))
)]
#[get("/v1/rulesets")]
pub async fn rulesets() -> HttpResponse {
    HttpResponse::Ok().json(RulesetsResponse {
        variants: Variant::ALL.into_iter().map(describe).collect(),
    })
}
