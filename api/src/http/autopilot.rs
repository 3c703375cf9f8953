//! A player hands their seat to a bot and takes it back (docs/api.md#autopilot).

use actix_web::{HttpRequest, HttpResponse, delete, post, web};
use uuid::Uuid;

use super::extract::JsonBody;
use super::idempotency::answer;
use super::if_match;
use crate::error::ApiError;
use crate::service;
use crate::state::AppState;
use crate::wire::{AutopilotRequest, GameView, Problem};

/// Hands your seat to a bot.
///
/// The server plays the seat as a bot of `level` (`normal` when left out) until you take it
/// back (`DELETE`) or make a move of your own. Everyone sees it: each player's `autopilot` in
/// the view, and an `autopilot_on` event. Asking again with another level changes the bot.
#[utoipa::path(
    post, path = "/v1/games/{id}/autopilot", tag = "games",
    params(("id" = Uuid, Path, description = "Game id."),
        ("If-Match" = Option<String>, Header, description = "Act only if the game is at this version (its ETag); else 412.")),
    security(("seat_token" = [])),
    request_body(content = AutopilotRequest, description = "A JSON object of at most 8 KiB, or no body for a `normal` bot.", example = json!({"level": "hard"})),
    responses(
        (status = 200, description = "The seat's new view: `autopilot` set on its player; the bots may have played.", body = GameView,
            headers(("ETag" = String, description = "The game's version."))),
        (status = 400, description = "Malformed body, unknown field, a level that is not `easy`, `normal` or `hard` (`unknown_level`).", body = Problem, content_type = "application/problem+json"),
        (status = 401, description = "Missing, expired, tampered or replaced seat token (`unauthorized`).", body = Problem, content_type = "application/problem+json"),
        (status = 403, description = "A token of another game, of a seat that is not a player's, or a spectator's (`forbidden`).", body = Problem, content_type = "application/problem+json"),
        (status = 404, description = "No such game (`game_not_found`).", body = Problem, content_type = "application/problem+json"),
        (status = 409, description = "The game has not been dealt (`game_not_started`); on a server without server keys, the last person's seat of a table of bots \
            while `CONTINENTAL_OPEN_BOT_TABLES` tables of bots alone are in play (`bot_tables_full`).", body = Problem, content_type = "application/problem+json"),
        (status = 412, description = "`If-Match` names an old version (`stale_version`); nothing changed.", body = Problem, content_type = "application/problem+json"),
        (status = 413, description = "The body is larger than the limit (`body_too_large`).", body = Problem, content_type = "application/problem+json"),
        (status = 415, description = "A body that is not `application/json` (`unsupported_media_type`).", body = Problem, content_type = "application/problem+json"),
        (status = 503, description = "The game is busy (`game_busy`) or the database out of reach (`service_unavailable`): retry after `Retry-After`.", body = Problem, content_type = "application/problem+json")
    )
)]
#[post("/v1/games/{id}/autopilot")]
#[tracing::instrument(skip_all, fields(game = %id))]
pub async fn autopilot_on(
    state: web::Data<AppState>,
    req: HttpRequest,
    id: web::Path<Uuid>,
    body: JsonBody<AutopilotRequest>,
) -> Result<HttpResponse, ApiError> {
    let id = id.into_inner();
    let claims = state.keys.seat_for(&req, id)?;
    let if_match = if_match(&req)?;
    let level = body.value.level.unwrap_or_default();
    Ok(answer(
        service::autopilot(&state, id, &claims, if_match, Some(level)).await?,
    ))
}

/// Takes your seat back from the bot.
///
/// You play the seat again; a move of your own does the same. Everyone sees it (`autopilot`
/// null in the view, an `autopilot_off` event). Nothing changes if no bot plays the seat.
#[utoipa::path(
    delete, path = "/v1/games/{id}/autopilot", tag = "games",
    params(("id" = Uuid, Path, description = "Game id."),
        ("If-Match" = Option<String>, Header, description = "Act only if the game is at this version (its ETag); else 412.")),
    security(("seat_token" = [])),
    responses(
        (status = 200, description = "The seat's new view: `autopilot` null on its player.", body = GameView,
            headers(("ETag" = String, description = "The game's version."))),
        (status = 401, description = "Missing, expired, tampered or replaced seat token (`unauthorized`).", body = Problem, content_type = "application/problem+json"),
        (status = 403, description = "A token of another game, of a seat that is not a player's, or a spectator's (`forbidden`).", body = Problem, content_type = "application/problem+json"),
        (status = 404, description = "No such game (`game_not_found`).", body = Problem, content_type = "application/problem+json"),
        (status = 409, description = "The game has not been dealt (`game_not_started`).", body = Problem, content_type = "application/problem+json"),
        (status = 412, description = "`If-Match` names an old version (`stale_version`); nothing changed.", body = Problem, content_type = "application/problem+json"),
        (status = 503, description = "The game is busy (`game_busy`) or the database out of reach (`service_unavailable`): retry after `Retry-After`.", body = Problem, content_type = "application/problem+json")
    )
)]
#[delete("/v1/games/{id}/autopilot")]
#[tracing::instrument(skip_all, fields(game = %id))]
pub async fn autopilot_off(
    state: web::Data<AppState>,
    req: HttpRequest,
    id: web::Path<Uuid>,
) -> Result<HttpResponse, ApiError> {
    let id = id.into_inner();
    let claims = state.keys.seat_for(&req, id)?;
    let if_match = if_match(&req)?;
    Ok(answer(
        service::autopilot(&state, id, &claims, if_match, None).await?,
    ))
}
