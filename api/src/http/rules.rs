//! The stateless endpoints: meld and contract validation, and the rulesets.

use actix_web::http::header::HeaderValue;
use actix_web::{HttpResponse, post, route, web};
use engine::{ProposedMeld, Ruleset, Variant};

use super::extract::{BATCH_LIMIT, JsonBody, JsonBytes};
use crate::error::ApiError;
use crate::wire::{
    ContractBatchRequest, ContractBatchResponse, ContractBatchResult, ContractCheck,
    ContractValidationRequest, ContractValidationResponse, MAX_CONTRACT_BATCH, MAX_MELD_BATCH, MeldBatch,
    MeldBatchRequest, MeldBatchResponse, MeldValidationRequest, MeldValidationResponse, Problem, RulesetView,
    RulesetsResponse, batch_rules, parse_json,
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
    Ok(web::Json(ContractValidationResponse::of(&rules, deal, &melds)))
}

/// Checks many melds at once, each on its own.
///
/// Stateless: for each meld, in the order sent, what `POST /v1/melds/validate` answers for it
/// in the batch's variant, or, for an item that is not a meld, why (`problem`). One bad item
/// never fails the others. At most 1,000 melds and 512 KiB, reading at most 10,000 ways in
/// all.
#[utoipa::path(
    post, path = "/v1/melds/validate-batch", tag = "validation",
    request_body(content = MeldBatchRequest, description = "A JSON object of at most 512 KiB, with at most 1,000 melds.", examples(
        ("three melds, one unreadable" = (value = json!({"variant": "may_i", "melds": [
            {"cards": ["8H", "JK", "5H", "6H"]}, {"cards": ["5H", "JK", "JK", "AD"]}, {"cards": ["7H", "ZZ", "7D"]}]}))),
        ("fixed kinds and wilds" = (value = json!({"variant": "push", "melds": [
            {"cards": ["5H", "JK", "2C"], "kind": "set", "wilds": [{"card": "JK", "represents": "5"}, {"card": "2C", "represents": "5"}]},
            {"cards": ["3S", "4S", "5S"], "kind": "run"}]})))
    )),
    responses(
        (status = 200, description = "One result per meld, in order: a verdict, or the item's problem.", body = MeldBatchResponse),
        (status = 400, description = "Malformed body, unknown variant, `melds` not a list (`invalid_body`): the batch itself, \
            not one of its melds.", body = Problem, content_type = "application/problem+json"),
        (status = 413, description = "The body is larger than 512 KiB (`body_too_large`).", body = Problem, content_type = "application/problem+json"),
        (status = 415, description = "A body that is not `application/json` (`unsupported_media_type`).", body = Problem, content_type = "application/problem+json"),
        (status = 422, description = "More than 1,000 melds (`too_many_items`), melds that read more than 10,000 ways in all \
            (`too_many_readings`), or options the variant does not have or out of their bounds (`invalid_options`).",
            body = Problem, content_type = "application/problem+json",
            example = json!({"type": "urn:continental:problem:too_many_items", "title": "Unprocessable Entity", "status": 422,
                "detail": "a batch holds at most 1000 items, not 1001", "code": "too_many_items"}))
    )
)]
#[post("/v1/melds/validate-batch")]
pub async fn validate_meld_batch(body: JsonBytes<BATCH_LIMIT>) -> Result<HttpResponse, ApiError> {
    let batch = MeldBatch::read(&body.0)?;
    let rules = batch_rules(batch.variant, batch.options, batch.melds.len(), MAX_MELD_BATCH)?;
    let results = batch
        .melds
        .into_iter()
        .map(|meld| meld.map(|meld| engine::analyse(&rules, &meld)));
    Ok(HttpResponse::Ok()
        .content_type(HeaderValue::from_static("application/json"))
        .body(MeldBatchResponse::json(results)?))
}

/// Checks many contracts at once, each on its own.
///
/// Stateless: for each contract (a deal and melds laid at once), in the order sent, what
/// `POST /v1/contracts/validate` answers for it in the batch's variant, or, for an item that
/// is not one, why (`problem`). One bad item never fails the others. At most 200 contracts
/// and 512 KiB.
#[utoipa::path(
    post, path = "/v1/contracts/validate-batch", tag = "validation",
    request_body(content = ContractBatchRequest, description = "A JSON object of at most 512 KiB, with at most 200 contracts.", examples(
        ("three contracts" = (value = json!({"variant": "may_i", "contracts": [
            {"deal": 1, "melds": [{"cards": ["7H", "7S", "7D"]}, {"cards": ["QC", "QD", "JK"]}]},
            {"deal": 1, "melds": [{"cards": ["7H", "7S", "7D"]}]},
            {"deal": 9, "melds": []}]})))
    )),
    responses(
        (status = 200, description = "One result per contract, in order: a verdict, or the item's problem.", body = ContractBatchResponse),
        (status = 400, description = "Malformed body, unknown variant, `contracts` not a list (`invalid_body`): the batch \
            itself, not one of its contracts.", body = Problem, content_type = "application/problem+json"),
        (status = 413, description = "The body is larger than 512 KiB (`body_too_large`).", body = Problem, content_type = "application/problem+json"),
        (status = 415, description = "A body that is not `application/json` (`unsupported_media_type`).", body = Problem, content_type = "application/problem+json"),
        (status = 422, description = "More than 200 contracts (`too_many_items`), or options the variant does not have or out \
            of their bounds (`invalid_options`).", body = Problem, content_type = "application/problem+json")
    )
)]
#[post("/v1/contracts/validate-batch")]
pub async fn validate_contract_batch(
    body: JsonBody<ContractBatchRequest, BATCH_LIMIT>,
) -> Result<web::Json<ContractBatchResponse>, ApiError> {
    let batch = body.value;
    let rules = batch_rules(
        batch.variant,
        batch.options,
        batch.contracts.len(),
        MAX_CONTRACT_BATCH,
    )?;
    let results = batch
        .contracts
        .iter()
        .enumerate()
        .map(|(i, item)| ContractBatchResult::of(&rules, parse_json(item.get().as_bytes()), i))
        .collect();
    Ok(web::Json(ContractBatchResponse { results }))
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
