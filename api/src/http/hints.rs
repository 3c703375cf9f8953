//! Hints for a seat.

use actix_web::{HttpRequest, HttpResponse, route, web};
use uuid::Uuid;

use super::seated;
use crate::error::ApiError;
use crate::service;
use crate::state::AppState;
use crate::wire::{HintsResponse, Problem};

/// Suggestions for this seat now, from the engine's search.
///
/// A way to meet the deal's contract from this hand (in `continental`, to go out), as a body
/// for `POST /v1/games/{id}/melds`, and single cards that can be laid off, and where.
#[utoipa::path(
    get, path = "/v1/games/{id}/hints", tag = "games",
    params(("id" = Uuid, Path, description = "Game id.")),
    security(("seat_token" = [])),
    responses(
        (status = 200, description = "A way to meet the contract (or go out), and lay-offs.", body = HintsResponse),
        (status = 401, description = "Missing, expired, tampered or replaced seat token.", body = Problem, content_type = "application/problem+json"),
        (status = 403, description = "A token of another game, or a spectator's.", body = Problem, content_type = "application/problem+json"),
        (status = 404, description = "No such game.", body = Problem, content_type = "application/problem+json"),
        (status = 409, description = "The game has not started (`game_not_started`).", body = Problem, content_type = "application/problem+json")
    )
)]
#[route("/v1/games/{id}/hints", method = "GET", method = "HEAD")]
pub async fn get_hints(
    state: web::Data<AppState>,
    req: HttpRequest,
    id: web::Path<Uuid>,
) -> Result<HttpResponse, ApiError> {
    let id = id.into_inner();
    let (claims, _, table) = seated(&state, &req, id).await?;
    Ok(HttpResponse::Ok().json(service::hints(&table, claims.seat)?))
}
