//! A studio's players and leaderboards: reads of the key's tenant (docs/api.md#players,
//! docs/api.md#leaderboards).

use actix_web::http::header;
use actix_web::{HttpRequest, HttpResponse, get, post, web};

use crate::error::ApiError;
use crate::server_keys::{HEADER as API_KEY, Tenant};
use crate::service;
use crate::state::AppState;
use crate::store::GameListing;
use crate::wire::{
    BoardQuery, BoardTokenResponse, BotsResponse, Code, GamesPage, Invalid, LeaderboardPage, PageQuery,
    PlayerResponse, Problem, decode_board_cursor, decode_cursor, player_id,
};

/// A player's ratings and record.
///
/// The player's rating in each variant they were rated in, and how many of the tenant's games
/// name them, finished, and won. Only the key's tenant's players.
#[utoipa::path(
    get, path = "/v1/players/{id}", tag = "players",
    params(("id" = String, Path, min_length = 1, max_length = 128, pattern = r"^[^\x00-\x1f\x7f-\x9f]*$",
        description = "The studio's id of the player (1 to 128 characters, no control character).")),
    security(("api_key" = [])),
    responses(
        (status = 200, description = "The player's ratings per variant and their record.", body = PlayerResponse),
        (status = 400, description = "An id that is empty, too long or holds control characters (`invalid_player`).",
            body = Problem, content_type = "application/problem+json"),
        (status = 401, description = "No valid `X-Api-Key` (`unauthorized`).", body = Problem, content_type = "application/problem+json"),
        (status = 404, description = "No game and no rating of this player at the key's tenant (`player_not_found`: \
            another tenant's player answers the same).", body = Problem, content_type = "application/problem+json")
    )
)]
#[get("/v1/players/{id}")]
#[tracing::instrument(skip_all)]
pub async fn get_player(
    state: web::Data<AppState>,
    req: HttpRequest,
    id: web::Path<String>,
) -> Result<HttpResponse, ApiError> {
    let tenant = state.server_keys.tenant(&req)?;
    let player = player_id(id.into_inner())?;
    Ok(HttpResponse::Ok().json(service::player(&state, &tenant, &player).await?))
}

/// A player's games, newest first.
///
/// The key's tenant's games with a seat naming the player, as `GET /v1/games` lists them;
/// pass `next_cursor` as `cursor` for the next page.
#[utoipa::path(
    get, path = "/v1/players/{id}/games", tag = "players",
    params(("id" = String, Path, min_length = 1, max_length = 128, pattern = r"^[^\x00-\x1f\x7f-\x9f]*$",
        description = "The studio's id of the player (1 to 128 characters, no control character)."), PageQuery),
    security(("api_key" = [])),
    responses(
        (status = 200, description = "A page of the player's games, newest first; `next_cursor` fetches the next.", body = GamesPage),
        (status = 400, description = "A bad id (`invalid_player`), a `limit` outside 1 to 200 (`invalid_limit`), \
            a `cursor` this listing did not give the key's tenant (`invalid_cursor`), a bad query string (`invalid_query`).",
            body = Problem, content_type = "application/problem+json"),
        (status = 401, description = "No valid `X-Api-Key` (`unauthorized`).", body = Problem, content_type = "application/problem+json")
    )
)]
#[get("/v1/players/{id}/games")]
#[tracing::instrument(skip_all)]
pub async fn player_games(
    state: web::Data<AppState>,
    req: HttpRequest,
    id: web::Path<String>,
    query: web::Query<PageQuery>,
) -> Result<HttpResponse, ApiError> {
    let tenant = state.server_keys.tenant(&req)?;
    let player = player_id(id.into_inner())?;
    let mut listing = GameListing {
        status: None,
        player: Some(player),
        limit: query.limit()?,
        after: None,
    };
    // The listing with `player`: its cursors read on `GET /v1/games?player=` too.
    listing.after = query
        .cursor
        .as_deref()
        .map(|c| decode_cursor(state.keys.cursors(), tenant.as_str(), &listing, c))
        .transpose()?;
    Ok(HttpResponse::Ok().json(service::player_games(&state, &tenant, listing).await?))
}

/// A variant's leaderboard.
///
/// The key's tenant's players rated in the variant, by their conservative rating (the mean
/// less three deviations) down, equal values by player id; bots are not on the board. Pass
/// `next_cursor` as `cursor` for the next page. With `around`, the page where that player
/// stands: their `player` entry with its rank, the entries around it, and the board's size
/// (`players`). Read with a server key, or with a board token of this variant's board
/// (`POST /v1/leaderboards/{variant}/tokens`), which a studio hands its players.
#[utoipa::path(
    get, path = "/v1/leaderboards/{variant}", tag = "players",
    params(("variant" = engine::Variant, Path, description = "`may_i`, `contract_7`, `continental` or `push`."), BoardQuery),
    security(("api_key" = []), ("board_token" = [])),
    responses(
        (status = 200, description = "A page of the leaderboard; `next_cursor` fetches the next. With `around`, the page \
            around the player, with their entry (`player`) and the board's size (`players`).", body = LeaderboardPage),
        (status = 400, description = "A `limit` outside 1 to 200 (`invalid_limit`), a `cursor` this server did not give the \
            key's tenant for this leaderboard (`invalid_cursor`), a bad `around` (`invalid_player`), `around` with `cursor` or a bad query \
            string (`invalid_query`).", body = Problem, content_type = "application/problem+json"),
        (status = 401, description = "No valid `X-Api-Key` and no valid board token (`unauthorized`).", body = Problem,
            content_type = "application/problem+json"),
        (status = 403, description = "A board token of another variant's board (`forbidden`).", body = Problem,
            content_type = "application/problem+json"),
        (status = 404, description = "No such variant (`unknown_variant`); with `around`, a player with no rating in the \
            variant at the key's tenant (`player_not_found`).", body = Problem, content_type = "application/problem+json")
    )
)]
#[get("/v1/leaderboards/{variant}")]
#[tracing::instrument(skip_all)]
pub async fn leaderboard(
    state: web::Data<AppState>,
    req: HttpRequest,
    variant: web::Path<String>,
    query: web::Query<BoardQuery>,
) -> Result<HttpResponse, ApiError> {
    let variant = variant
        .parse()
        .map_err(|e: engine::RulesetError| ApiError::not_found(Code::UnknownVariant, e.to_string()))?;
    let tenant = board_reader(&state, &req, variant)?;
    let limit = query.limit()?;
    let page = match (&query.cursor, &query.around) {
        (Some(_), Some(_)) => {
            return Err(Invalid::new(
                Code::InvalidQuery,
                "`around` and `cursor` ask for different pages: send one",
            )
            .into());
        }
        (None, Some(around)) => {
            let player = player_id(around.clone())
                .map_err(|e| Invalid::new(Code::InvalidPlayer, format!("`around`: {}", e.detail)))?;
            service::around(&state, &tenant, variant, limit, &player).await?
        }
        (cursor, None) => {
            let after = cursor
                .as_deref()
                .map(|c| decode_board_cursor(state.keys.cursors(), tenant.as_str(), variant, c))
                .transpose()?;
            service::leaderboard(&state, &tenant, variant, limit, after).await?
        }
    };
    Ok(HttpResponse::Ok().json(page))
}

/// Whose board the request may read: the server key's tenant, or without a key the tenant
/// of a board token for this very variant's board (its tenant still configured).
fn board_reader(state: &AppState, req: &HttpRequest, variant: engine::Variant) -> Result<Tenant, ApiError> {
    if req.headers().contains_key(API_KEY) || !req.headers().contains_key(header::AUTHORIZATION) {
        return Ok(state.server_keys.tenant(req)?);
    }
    let board = state.keys.board_for(req)?;
    if board.variant != variant {
        return Err(ApiError::Forbidden(format!(
            "this board token reads the {} board, not the {variant} one",
            board.variant
        )));
    }
    state.server_keys.tenant_named(&board.tenant).ok_or_else(|| {
        ApiError::Unauthorized("the board token's studio has no server key here any more".into())
    })
}

/// A token that lets players read a leaderboard.
///
/// A board token for the key's tenant's leaderboard of the variant: whoever holds it reads that
/// board (`GET /v1/leaderboards/{variant}` with `Authorization: Bearer <token>`) and nothing else,
/// no other variant's, no other tenant's, no player's record, no game, for 30 days, or until the
/// tenant has no server key configured. `page` opens the board in the browser.
#[utoipa::path(
    post, path = "/v1/leaderboards/{variant}/tokens", tag = "players",
    params(("variant" = String, Path, description = "`may_i`, `contract_7`, `continental` or `push`.")),
    security(("api_key" = [])),
    responses(
        (status = 201, description = "A board token.", body = BoardTokenResponse),
        (status = 401, description = "No valid `X-Api-Key` (`unauthorized`).", body = Problem, content_type = "application/problem+json"),
        (status = 404, description = "No such variant (`unknown_variant`).", body = Problem, content_type = "application/problem+json")
    )
)]
#[post("/v1/leaderboards/{variant}/tokens")]
#[tracing::instrument(skip_all)]
pub async fn board_token(
    state: web::Data<AppState>,
    req: HttpRequest,
    variant: web::Path<String>,
) -> Result<HttpResponse, ApiError> {
    let tenant = state.server_keys.tenant(&req)?;
    let variant: engine::Variant = variant
        .parse()
        .map_err(|e: engine::RulesetError| ApiError::not_found(Code::UnknownVariant, e.to_string()))?;
    let (token, exp) = state.keys.issue_board(tenant.as_str(), variant)?;
    let expires_at =
        crate::wire::rfc3339_us(i64::try_from(exp).unwrap_or_default().saturating_mul(1_000_000))
            .unwrap_or_default();
    Ok(HttpResponse::Created().json(BoardTokenResponse {
        variant,
        page: format!("/play#/board/{token}"),
        token,
        expires_at,
    }))
}

/// The bot levels' ratings.
///
/// Every level's rating in every variant, on the scale players are rated on: with
/// `X-Api-Key`, at the key's tenant (moved by its rated games against bots); without, at the
/// public tenant, whose tables quick play without a key seats. A level no rated game has
/// moved shows its seeded figure.
#[utoipa::path(
    get, path = "/v1/bots", tag = "players",
    security((), ("api_key" = [])),
    responses(
        (status = 200, description = "A rating per variant and level.", body = BotsResponse),
        (status = 401, description = "An `X-Api-Key` that is not valid (`unauthorized`).", body = Problem, content_type = "application/problem+json")
    )
)]
#[get("/v1/bots")]
#[tracing::instrument(skip_all)]
pub async fn bots(state: web::Data<AppState>, req: HttpRequest) -> Result<HttpResponse, ApiError> {
    // Without a key, the tenant a ticket without one is queued at.
    let tenant = match req.headers().contains_key(API_KEY) {
        true => state.server_keys.tenant(&req)?,
        false => Tenant::default(),
    };
    Ok(HttpResponse::Ok().json(service::bot_ratings(&state, &tenant).await?))
}
