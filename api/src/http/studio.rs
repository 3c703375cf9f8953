//! A studio's back end: endpoints that take a server key (`X-Api-Key`) and see only the
//! key's tenant's games; another tenant's game is `404`, exactly as no game at all.

use actix_web::{HttpRequest, HttpResponse, get, post, web};
use uuid::Uuid;

use crate::error::ApiError;
use crate::service;
use crate::state::AppState;
use crate::store::GameListing;
use crate::wire::{
    GamesPage, ListGamesQuery, Problem, SeatTokenResponse, SpectatorTokenResponse, WebhookStatus,
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
            a `cursor` this listing did not give (`invalid_cursor`), a bad query string (`invalid_query`).",
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
    let listing = GameListing::try_from(query.into_inner())?;
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
