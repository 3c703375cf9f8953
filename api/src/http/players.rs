//! A studio's players and leaderboards: reads of the key's tenant (docs/api.md#players,
//! docs/api.md#leaderboards).

use actix_web::{HttpRequest, HttpResponse, get, web};

use crate::error::ApiError;
use crate::server_keys::{HEADER as API_KEY, Tenant};
use crate::service;
use crate::state::AppState;
use crate::store::GameListing;
use crate::wire::{
    BoardQuery, BotsResponse, Code, GamesPage, Invalid, LeaderboardPage, PageQuery, PlayerResponse, Problem,
    decode_board_cursor, decode_cursor, player_id,
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
            a `cursor` this listing did not give (`invalid_cursor`), a bad query string (`invalid_query`).",
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
    let listing = GameListing {
        status: None,
        player: None,
        limit: query.limit()?,
        after: query
            .cursor
            .as_deref()
            .map(|c| decode_cursor(state.keys.cursors(), c))
            .transpose()?,
    };
    Ok(HttpResponse::Ok().json(service::player_games(&state, &tenant, player, listing).await?))
}

/// A variant's leaderboard.
///
/// The key's tenant's players rated in the variant, by their conservative rating (the mean
/// less three deviations) down, equal values by player id; bots are not on the board. Pass
/// `next_cursor` as `cursor` for the next page. With `around`, the page where that player
/// stands: their `player` entry with its rank, the entries around it, and the board's size
/// (`players`).
#[utoipa::path(
    get, path = "/v1/leaderboards/{variant}", tag = "players",
    params(("variant" = engine::Variant, Path, description = "`may_i`, `contract_7`, `continental` or `push`."), BoardQuery),
    security(("api_key" = [])),
    responses(
        (status = 200, description = "A page of the leaderboard; `next_cursor` fetches the next. With `around`, the page \
            around the player, with their entry (`player`) and the board's size (`players`).", body = LeaderboardPage),
        (status = 400, description = "A `limit` outside 1 to 200 (`invalid_limit`), a `cursor` this server did not give for \
            this leaderboard (`invalid_cursor`), a bad `around` (`invalid_player`), `around` with `cursor` or a bad query \
            string (`invalid_query`).", body = Problem, content_type = "application/problem+json"),
        (status = 401, description = "No valid `X-Api-Key` (`unauthorized`).", body = Problem, content_type = "application/problem+json"),
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
    let tenant = state.server_keys.tenant(&req)?;
    let variant = variant
        .parse()
        .map_err(|e: engine::RulesetError| ApiError::not_found(Code::UnknownVariant, e.to_string()))?;
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
                .map(|c| decode_board_cursor(state.keys.cursors(), variant, c))
                .transpose()?;
            service::leaderboard(&state, &tenant, variant, limit, after).await?
        }
    };
    Ok(HttpResponse::Ok().json(page))
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
