//! A hand without a game: its contract, lay-offs and penalty points.

use actix_web::{post, web};

use super::extract::{HAND_LIMIT, JsonBody};
use crate::error::ApiError;
use crate::wire::{ArrangeRequest, ArrangeResponse, HandQuestion, Problem};

/// Arranges a hand for a deal, with no game.
///
/// Stateless: the deal's contract as the hand makes it (each meld read as the validator reads
/// it) or how many cards it is short, `continental`'s way out, the cards that can be laid off
/// on the table's melds, and what the hand would cost at the end of the deal. The same
/// searches as a seat's `GET /v1/games/{id}/hints`, with
/// [their bounds](https://github.com/continental-rummy/continental/blob/main/docs/api.md#hands).
#[utoipa::path(
    post, path = "/v1/hands/arrange", tag = "validation",
    request_body(content = ArrangeRequest, description = "A JSON object of at most 64 KiB.", examples(
        ("the contract and a lay-off" = (value = json!({"variant": "may_i", "deal": 2,
            "hand": ["7C", "7D", "7H", "5H", "6H", "8H", "9S", "7S", "3C", "4D", "KD", "QC"],
            "table": [{"cards": ["9H", "TH", "JH", "QH"]}]}))),
        ("two cards short" = (value = json!({"variant": "contract_7", "deal": 3,
            "hand": ["3H", "4H", "5H", "9S", "TS", "JS", "2C", "KD", "KC"]}))),
        ("continental, 16 cards" = (value = json!({"variant": "continental", "deal": 1,
            "hand": ["3C", "4C", "5C", "6C", "7C", "8C", "9C", "TC", "4D", "5D", "JK", "7D", "8D", "9D", "TD", "KS"]})))
    )),
    responses(
        (status = 200, description = "The arrangement or the shortfall, the lay-offs, the penalty points.", body = ArrangeResponse),
        (status = 400, description = "Malformed body, unknown card (`unknown_card`) or variant (`unknown_variant`), more cards or \
            melds than the document allows (`invalid_body`).", body = Problem, content_type = "application/problem+json"),
        (status = 413, description = "The body is larger than 64 KiB (`body_too_large`).", body = Problem, content_type = "application/problem+json"),
        (status = 415, description = "A body that is not `application/json` (`unsupported_media_type`).", body = Problem, content_type = "application/problem+json"),
        (status = 422, description = "Options the variant does not have or out of their bounds (`invalid_options`), a deal the \
            variant does not have (`invalid_deal`), or a meld of the table that is not one legal meld (`invalid_table_meld`).",
            body = Problem, content_type = "application/problem+json",
            example = json!({"type": "urn:continental:problem:invalid_table_meld", "title": "Unprocessable Entity", "status": 422,
                "detail": "table[0]: illegal meld: a run of may_i needs at least 4 cards", "code": "invalid_table_meld"}))
    )
)]
#[post("/v1/hands/arrange")]
pub async fn arrange_hand(
    body: JsonBody<ArrangeRequest, HAND_LIMIT>,
) -> Result<web::Json<ArrangeResponse>, ApiError> {
    let question: HandQuestion = body.value.try_into()?;
    Ok(web::Json(question.answer()))
}
