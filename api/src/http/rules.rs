//! The stateless endpoints: meld and contract validation, and the rulesets.

use actix_web::http::header::HeaderValue;
use actix_web::{HttpResponse, post, route, web};
use engine::{ProposedMeld, Ruleset, Variant};

use super::extract::JsonBody;
use crate::error::ApiError;
use crate::wire::{
    ContractCheck, ContractValidationRequest, ContractValidationResponse, MeldValidationRequest,
    MeldValidationResponse, Problem, RulesetView, RulesetsResponse,
};

/// Checks whether cards form a legal meld in a variant.
///
/// Stateless: every legal reading of the cards (restricted to `kind` and the wilds'
/// designations when given), or the reasons they make no meld.
#[utoipa::path(
    post, path = "/v1/melds/validate", tag = "validation",
    request_body(content = MeldValidationRequest, description = "A JSON object of at most 8 KiB.", examples(
        ("run with a joker" = (value = json!({"variant": "may_i", "cards": ["8H", "JK", "5H", "6H"]}))),
        ("too many wilds" = (value = json!({"variant": "may_i", "cards": ["5H", "JK", "JK", "AD"]}))),
        ("fixed kind and wild" = (value = json!({"variant": "push", "cards": ["5H", "JK", "2C"], "kind": "set",
            "wilds": [{"card": "JK", "represents": "5"}, {"card": "2C", "represents": "5"}]})))
    )),
    responses(
        (status = 200, description = "The verdict: `valid` with every reading, or the reasons.", body = MeldValidationResponse),
        (status = 400, description = "Malformed body, unknown card (`unknown_card`), unknown variant (`unknown_variant`), \
            more cards or wilds than the document allows (`invalid_body`).",
            body = Problem, content_type = "application/problem+json",
            example = json!({"type": "urn:continental:problem:unknown_card", "title": "Bad Request", "status": 400,
                "detail": "invalid request body at `cards[1]`: unknown card \"ZZ\": write rank then suit, like 7H, TD, 10D or JK", "code": "unknown_card"})),
        (status = 413, description = "The body is larger than the limit (`body_too_large`).", body = Problem, content_type = "application/problem+json"),
        (status = 415, description = "A body that is not `application/json` (`unsupported_media_type`).", body = Problem, content_type = "application/problem+json"),
        (status = 422, description = "Options the variant does not have, or out of their bounds (`invalid_options`).", body = Problem, content_type = "application/problem+json")
    )
)]
#[post("/v1/melds/validate")]
pub async fn validate_meld(body: JsonBody<MeldValidationRequest>) -> Result<HttpResponse, ApiError> {
    let (rules, proposed): (Ruleset, ProposedMeld) = body.value.try_into()?;
    let analysis = engine::analyse(&rules, &proposed);
    Ok(HttpResponse::Ok()
        // A static value: `ContentType::json()` would format the type and copy it on every answer.
        .content_type(HeaderValue::from_static("application/json"))
        .body(MeldValidationResponse::json(&analysis)))
}

/// Checks whether melds fulfil a deal's contract.
///
/// Stateless: the deal's contract, the melds as they would lie when they meet it, or why not.
#[utoipa::path(
    post, path = "/v1/contracts/validate", tag = "validation",
    request_body(content = ContractValidationRequest, description = "A JSON object of at most 8 KiB.", examples(
        ("two sets" = (value = json!({"variant": "may_i", "deal": 1, "melds": [{"cards": ["7H", "7S", "7D"]}, {"cards": ["QC", "QD", "JK"]}]}))),
        ("one meld short" = (value = json!({"variant": "may_i", "deal": 1, "melds": [{"cards": ["7H", "7S", "7D"]}]})))
    )),
    responses(
        (status = 200, description = "The verdict, with the contract and the reasons when not met.", body = ContractValidationResponse),
        (status = 400, description = "Malformed body, unknown card or variant, more melds, cards or wilds than the document allows (`invalid_body`).",
            body = Problem, content_type = "application/problem+json"),
        (status = 413, description = "The body is larger than the limit (`body_too_large`).", body = Problem, content_type = "application/problem+json"),
        (status = 415, description = "A body that is not `application/json` (`unsupported_media_type`).", body = Problem, content_type = "application/problem+json"),
        (status = 422, description = "Options the variant does not have or out of their bounds (`invalid_options`), or a deal \
            the variant does not have (`invalid_deal`).", body = Problem, content_type = "application/problem+json")
    )
)]
#[post("/v1/contracts/validate")]
pub async fn validate_contract(
    body: JsonBody<ContractValidationRequest>,
) -> Result<web::Json<ContractValidationResponse>, ApiError> {
    let ContractCheck { rules, deal, melds } = body.value.try_into()?;
    let contract = engine::ContractView::from(&rules.contract(deal));
    Ok(web::Json(
        match engine::check_proposed_contract(&rules, deal, &melds) {
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
        },
    ))
}

/// The variants and their rules.
///
/// For each variant: its house-rule options with their defaults, player counts, the deals
/// with their hand sizes and contracts, and the card values.
#[utoipa::path(
    get, path = "/v1/rulesets", tag = "validation",
    responses((status = 200, description = "Every variant with its default rules.", body = RulesetsResponse))
)]
#[route("/v1/rulesets", method = "GET", method = "HEAD")]
pub async fn rulesets() -> HttpResponse {
    HttpResponse::Ok().json(RulesetsResponse {
        variants: Variant::ALL.into_iter().map(RulesetView::of).collect(),
    })
}
