//! A studio's back end: endpoints that take a server key (`X-Api-Key`) and see only the
//! key's tenant's games; another tenant's game is `404`, exactly as no game at all.

use actix_web::{HttpRequest, HttpResponse, get, post, web};
use uuid::Uuid;

use super::extract::JsonBody;
use crate::error::ApiError;
use crate::service;
use crate::state::AppState;
use crate::wire::{
    EndGameRequest, EndReason, GamesPage, ListGamesQuery, Problem, SeatBotRequest, SeatTokenResponse,
    SpectatorTokenResponse, StudioActionResponse, WebhookStatus,
};

/// The tenant's games, newest first.
///
/// Only the games the key's tenant created, each with its seats and whose turn it is; pages
/// of `limit` games, filtered by `status`; pass `next_cursor` as `cursor` for the next page.
#[utoipa::path(
    get, path = "/v1/games", tag = "studio",
    params(ListGamesQuery),
    security(("api_key" = [])),
    responses(
        (status = 200, description = "A page of the key's tenant's games, newest first; `next_cursor` fetches the next.", body = GamesPage),
        (status = 400, description = "A `limit` outside 1 to 200 (`invalid_limit`), an unknown `status` (`invalid_status`), \
            a `cursor` this listing did not give the key's tenant (`invalid_cursor`), a bad query string (`invalid_query`).",
            body = Problem, content_type = "application/problem+json"),
        (status = 401, description = "No valid `X-Api-Key` (`unauthorized`).", body = Problem, content_type = "application/problem+json")
    )
)]
#[get("/v1/games")]
#[tracing::instrument(skip_all)]
pub async fn list_games(
    state: web::Data<AppState>,
    req: HttpRequest,
    query: web::Query<ListGamesQuery>,
) -> Result<HttpResponse, ApiError> {
    let tenant = state.server_keys.tenant(&req)?;
    let listing = query
        .into_inner()
        .listing(state.keys.cursors(), tenant.as_str())?;
    Ok(HttpResponse::Ok().json(service::list_games(&state, &tenant, listing).await?))
}

/// A fresh token for a seat.
///
/// For a player who lost theirs or changed device: every earlier token of the seat is
/// refused (`401`) from now on, on every replica.
#[utoipa::path(
    post, path = "/v1/games/{id}/seats/{seat}/token", tag = "studio",
    params(("id" = Uuid, Path, description = "Game id."), ("seat" = u8, Path, description = "Seat index from 0.")),
    security(("api_key" = [])),
    responses(
        (status = 200, description = "The seat's new token.", body = SeatTokenResponse),
        (status = 401, description = "No valid `X-Api-Key` (`unauthorized`).", body = Problem, content_type = "application/problem+json"),
        (status = 404, description = "No game of this tenant with this id (`game_not_found`: another tenant's game answers the same), \
            or no such seat (`seat_not_found`).", body = Problem, content_type = "application/problem+json"),
        (status = 409, description = "The seat is open or a bot's: it has no token (`seat_has_no_token`).", body = Problem, content_type = "application/problem+json")
    )
)]
#[post("/v1/games/{id}/seats/{seat}/token")]
#[tracing::instrument(skip_all, fields(game = %path.0, seat = path.1))]
pub async fn reissue_seat_token(
    state: web::Data<AppState>,
    req: HttpRequest,
    path: web::Path<(Uuid, u8)>,
) -> Result<HttpResponse, ApiError> {
    let tenant = state.server_keys.tenant(&req)?;
    let (id, seat) = path.into_inner();
    Ok(HttpResponse::Ok().json(service::reissue_token(&state, &tenant, id, seat).await?))
}

/// A spectator token for a game.
///
/// It reads the view, the events and the stream with every hand hidden, and takes no action.
#[utoipa::path(
    post, path = "/v1/games/{id}/spectators", tag = "studio",
    params(("id" = Uuid, Path, description = "Game id.")),
    security(("api_key" = [])),
    responses(
        (status = 200, description = "A spectator token: `GET /v1/games/{id}` (with `you` null), `/events` and `/stream` \
            with every private card hidden; every action answers 403.", body = SpectatorTokenResponse),
        (status = 401, description = "No valid `X-Api-Key` (`unauthorized`).", body = Problem, content_type = "application/problem+json"),
        (status = 404, description = "No game of this tenant with this id (`game_not_found`: another tenant's game answers the same).",
            body = Problem, content_type = "application/problem+json"),
        (status = 409, description = "A tournament table's game while another table of its round still plays the same deals (`round_not_over`).",
            body = Problem, content_type = "application/problem+json")
    )
)]
#[post("/v1/games/{id}/spectators")]
#[tracing::instrument(skip_all, fields(game = %id))]
pub async fn spectator_token(
    state: web::Data<AppState>,
    req: HttpRequest,
    id: web::Path<Uuid>,
) -> Result<HttpResponse, ApiError> {
    let tenant = state.server_keys.tenant(&req)?;
    Ok(HttpResponse::Ok().json(service::spectator_token(&state, &tenant, id.into_inner()).await?))
}

/// How the game's webhook deliveries stand: delivered, pending, given up, the latest error.
///
/// A delivery given up (failing past `CONTINENTAL_WEBHOOK_GIVE_UP_S`, a day by default) holds
/// none of the game's later events back: they go on, in `seq` order.
#[utoipa::path(
    get, path = "/v1/games/{id}/webhook", tag = "studio",
    params(("id" = Uuid, Path, description = "Game id.")),
    security(("api_key" = [])),
    responses(
        (status = 200, description = "The webhook's URL and its deliveries counted.", body = WebhookStatus),
        (status = 401, description = "No valid `X-Api-Key` (`unauthorized`).", body = Problem, content_type = "application/problem+json"),
        (status = 404, description = "No game of this tenant with this id (`game_not_found`: another tenant's game answers the same), \
            or a game without a webhook (`no_webhook`).", body = Problem, content_type = "application/problem+json")
    )
)]
#[get("/v1/games/{id}/webhook")]
#[tracing::instrument(skip_all, fields(game = %id))]
pub async fn get_webhook(
    state: web::Data<AppState>,
    req: HttpRequest,
    id: web::Path<Uuid>,
) -> Result<HttpResponse, ApiError> {
    let tenant = state.server_keys.tenant(&req)?;
    Ok(HttpResponse::Ok().json(service::webhook_status(&state, &tenant, id.into_inner()).await?))
}

/// Ends a game that is not over.
///
/// For a reported cheat or a support request: the game becomes `void` at once, with no
/// standings; a `called_off` event with the reason (then `game_finished`) reaches every
/// reader's stream and the webhook. A rated game ended with `"rated": true` is rated on its
/// standings as they stand (the `called_off` event carries them), once, as a finished game
/// is: each seat's `rating_change` appears in the view when the rating pass has run.
#[utoipa::path(
    post, path = "/v1/games/{id}/end", tag = "studio",
    params(("id" = Uuid, Path, description = "Game id.")),
    security(("api_key" = [])),
    request_body(content = EndGameRequest, description = "A JSON object of at most 8 KiB.", example = json!({"reason": "a reported cheat"})),
    responses(
        (status = 200, description = "The game is void.", body = StudioActionResponse),
        (status = 400, description = "Malformed body (`malformed_json`, `not_an_object`, `unknown_field`, `invalid_body`), \
            or a reason that is not 1 to 200 characters, all spaces or with a control character (`invalid_reason`).",
            body = Problem, content_type = "application/problem+json"),
        (status = 401, description = "No valid `X-Api-Key` (`unauthorized`).", body = Problem, content_type = "application/problem+json"),
        (status = 404, description = "No game of this tenant with this id (`game_not_found`: another tenant's game answers the same).",
            body = Problem, content_type = "application/problem+json"),
        (status = 409, description = "The game is already over (`game_over`) or not yet dealt (`game_not_started`); \
            or, with `rated`, the game is not rated (`game_not_rated`) or no deal of it has ended yet (`no_deal_ended`).",
            body = Problem, content_type = "application/problem+json"),
        (status = 413, description = "The body is larger than the limit (`body_too_large`).", body = Problem, content_type = "application/problem+json"),
        (status = 415, description = "A body that is not `application/json` (`unsupported_media_type`).", body = Problem, content_type = "application/problem+json"),
        (status = 503, description = "The database is out of reach (`service_unavailable`) or the game busy (`game_busy`): nothing changed.",
            body = Problem, content_type = "application/problem+json")
    )
)]
#[post("/v1/games/{id}/end")]
#[tracing::instrument(skip_all, fields(game = %id))]
pub async fn end_game(
    state: web::Data<AppState>,
    req: HttpRequest,
    id: web::Path<Uuid>,
    body: JsonBody<EndGameRequest>,
) -> Result<HttpResponse, ApiError> {
    let tenant = state.server_keys.tenant(&req)?;
    let rated = body.value.rated;
    let reason = EndReason::try_from(body.value)?;
    Ok(HttpResponse::Ok().json(service::end_game(&state, &tenant, id.into_inner(), reason, rated).await?))
}

/// Puts a bot in a seat.
///
/// For a player gone for good: the seat's tokens are refused (`401`) from now on, on every
/// replica, and the server's bot of the level asked (`normal` by default) plays the seat from
/// now on, at once if it is in turn. A `bot_seated` event reaches every reader and the webhook.
#[utoipa::path(
    post, path = "/v1/games/{id}/seats/{seat}/bot", tag = "studio",
    params(("id" = Uuid, Path, description = "Game id."), ("seat" = u8, Path, description = "Seat index from 0.")),
    security(("api_key" = [])),
    request_body(content = SeatBotRequest, description = "A JSON object of at most 8 KiB; an empty body is `{}`.", example = json!({"level": "hard"})),
    responses(
        (status = 200, description = "The seat is a bot's.", body = StudioActionResponse),
        (status = 400, description = "Malformed body (`malformed_json`, `not_an_object`, `unknown_field`), or a `level` \
            that is not `easy`, `normal` or `hard` (`unknown_level`), or a `level` of null (`invalid_body`).", body = Problem, content_type = "application/problem+json"),
        (status = 401, description = "No valid `X-Api-Key` (`unauthorized`).", body = Problem, content_type = "application/problem+json"),
        (status = 404, description = "No game of this tenant with this id (`game_not_found`: another tenant's game answers the same), \
            or no such seat (`seat_not_found`).", body = Problem, content_type = "application/problem+json"),
        (status = 409, description = "The game is over (`game_over`).", body = Problem, content_type = "application/problem+json"),
        (status = 413, description = "The body is larger than the limit (`body_too_large`).", body = Problem, content_type = "application/problem+json"),
        (status = 415, description = "A body that is not `application/json` (`unsupported_media_type`).", body = Problem, content_type = "application/problem+json"),
        (status = 503, description = "The database is out of reach (`service_unavailable`) or the game busy (`game_busy`): nothing changed.",
            body = Problem, content_type = "application/problem+json")
    )
)]
#[post("/v1/games/{id}/seats/{seat}/bot")]
#[tracing::instrument(skip_all, fields(game = %path.0, seat = path.1))]
pub async fn seat_bot(
    state: web::Data<AppState>,
    req: HttpRequest,
    path: web::Path<(Uuid, u8)>,
    body: JsonBody<SeatBotRequest>,
) -> Result<HttpResponse, ApiError> {
    let tenant = state.server_keys.tenant(&req)?;
    let (id, seat) = path.into_inner();
    let level = body.value.level.unwrap_or_default();
    Ok(HttpResponse::Ok().json(service::seat_bot(&state, &tenant, id, seat, level).await?))
}

/// The tenant of a request that names a player: its server key's. A player id is the
/// studio's, so a server without keys, or a request without one, is `422
/// player_needs_server_key`; a key that is not one is `401`.
///
/// # Errors
/// As said.
pub(super) fn player_tenant(
    state: &AppState,
    req: &HttpRequest,
) -> Result<crate::server_keys::Tenant, ApiError> {
    if !state.server_keys.enabled() {
        return Err(service::needs_server_key());
    }
    match state.server_keys.tenant(req) {
        Err(crate::server_keys::KeyError::Missing) => Err(service::needs_server_key()),
        other => Ok(other?),
    }
}
