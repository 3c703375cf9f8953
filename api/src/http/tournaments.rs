//! A studio's tournaments (docs/tournaments.md): made, listed, read and cancelled with a
//! server key; entered, read and withdrawn from by an entry's holder.

use actix_web::http::header;
use actix_web::{HttpRequest, HttpResponse, delete, get, post, route, web};
use uuid::Uuid;

use super::extract::JsonBody;
use super::idempotency::{self, answer};
use crate::error::ApiError;
use crate::server_keys::{HEADER as API_KEY, Tenant};
use crate::service;
use crate::state::AppState;
use crate::store::{KeyScope, now_ms};
use crate::wire::{
    EntryDeals, EntryRequest, EntryStandingsQuery, EntryView, PageQuery, Problem, StandingsPage,
    StandingsQuery, TournamentRequest, TournamentResponse, TournamentView, TournamentsPage,
    decode_tournament_cursor, player_id,
};

/// `response` with a `Location` of `path` when it is a 201.
fn located(response: crate::store::StoredResponse, path: Option<String>) -> HttpResponse {
    let mut res = answer(response);
    if res.status().as_u16() == 201
        && let Some(value) = path.and_then(|l| header::HeaderValue::from_str(&l).ok())
    {
        res.headers_mut().insert(header::LOCATION, value);
    }
    res
}

/// Makes a tournament.
///
/// A tournament of the key's tenant: its rounds start by themselves at `starts_at`, every table
/// a game of the variant, its seats named by the entrants' players (not rated) and bots of
/// `bot_level` in the places the field leaves over ([tournaments](https://github.com/continental-rummy/continental/blob/main/docs/tournaments.md)).
#[utoipa::path(
    post, path = "/v1/tournaments", tag = "tournaments",
    params(("Idempotency-Key" = Option<String>, Header, min_length = 1, max_length = 200, pattern = "^[!-~]{1,200}$", description = "1 to 200 visible ASCII characters. A retry with the same key and body returns the first response (the same tournament) and makes no second one.")),
    security(("api_key" = [])),
    request_body(content = TournamentRequest, description = "A JSON object of at most 64 KiB."),
    responses(
        (status = 201, description = "Made: the tournament, and its webhook's signing secret when one was given.", body = TournamentResponse,
            headers(("Location" = String, description = "The tournament's URL."))),
        (status = 400, description = "A body the document refuses: malformed JSON (`malformed_json`), an unknown field (`unknown_field`), \
            an unknown variant (`unknown_variant`), a wrong type or value (`invalid_body`), a name that is not 1 to 40 characters (`invalid_name`), \
            options that are not the variant's (`invalid_options`), a `starts_at` that is not RFC 3339 (`invalid_start`), \
            a bad `Idempotency-Key` (`invalid_idempotency_key`).", body = Problem, content_type = "application/problem+json"),
        (status = 401, description = "No valid `X-Api-Key` (`unauthorized`).", body = Problem, content_type = "application/problem+json"),
        (status = 413, description = "The body is larger than the limit (`body_too_large`).", body = Problem, content_type = "application/problem+json"),
        (status = 415, description = "A body that is not `application/json` (`unsupported_media_type`).", body = Problem, content_type = "application/problem+json"),
        (status = 422, description = "Without server keys configured, a tournament at all (`player_needs_server_key`); a table size the variant \
            does not seat (`size_not_seated`), `rounds` outside 1 to 20 (`invalid_rounds`), `deals_per_round` other than the variant's deals \
            (`invalid_deals_per_round`), a start that has passed (`start_in_past`), `max_entrants` outside 2 to 10,000 (`invalid_max_entrants`), \
            `turn_seconds` outside 5 to 86,400 or differing from `options.turn_seconds` (`invalid_turn_seconds`), `round_seconds` outside 60 to \
            604,800 (`invalid_round_seconds`), options out of their bounds (`invalid_options`), a `webhook_url` the service does not deliver to \
            (`invalid_webhook_url`, `webhook_url_unresolvable`, `webhook_url_private`), or the Idempotency-Key used with another body \
            (`idempotency_key_reused`).", body = Problem, content_type = "application/problem+json"),
        (status = 503, description = "A `hard` bot level on a replica that thinks for no bot (`hard_bots_unavailable`), or the database is unavailable.",
            body = Problem, content_type = "application/problem+json")
    )
)]
#[post("/v1/tournaments")]
#[tracing::instrument(skip_all)]
pub async fn create_tournament(
    state: web::Data<AppState>,
    req: HttpRequest,
    body: JsonBody<TournamentRequest>,
) -> Result<HttpResponse, ApiError> {
    let tenant = state.server_keys.creator(&req)?;
    let scope = service::tournament_keys(&tenant);
    let key = idempotency::key(&req, KeyScope::Creation, scope, -1, &body.raw)?;
    let response = idempotency::once(&state, key, async |key| {
        let spec = body.value.parse(now_ms())?;
        service::create_tournament(&state, &tenant, spec, key).await
    })
    .await?;
    let location = serde_json::from_slice::<TournamentResponse>(&response.body)
        .ok()
        .map(|t| format!("/v1/tournaments/{}", t.tournament.id));
    Ok(located(response, location))
}

/// The key's tenant's tournaments, newest first.
///
/// Pass `next_cursor` as `cursor` for the next page.
#[utoipa::path(
    get, path = "/v1/tournaments", tag = "tournaments",
    params(PageQuery),
    security(("api_key" = [])),
    responses(
        (status = 200, description = "A page of tournaments; `next_cursor` fetches the next.", body = TournamentsPage),
        (status = 400, description = "A `limit` outside 1 to 200 (`invalid_limit`), a `cursor` this listing did not give the key's \
            tenant (`invalid_cursor`), a bad query string (`invalid_query`).", body = Problem, content_type = "application/problem+json"),
        (status = 401, description = "No valid `X-Api-Key` (`unauthorized`).", body = Problem, content_type = "application/problem+json"),
        (status = 422, description = "No server keys configured (`player_needs_server_key`).", body = Problem, content_type = "application/problem+json")
    )
)]
#[get("/v1/tournaments")]
#[tracing::instrument(skip_all)]
pub async fn list_tournaments(
    state: web::Data<AppState>,
    req: HttpRequest,
    query: web::Query<PageQuery>,
) -> Result<HttpResponse, ApiError> {
    let tenant = state.server_keys.creator(&req)?;
    let limit = query.limit()?;
    let after = query
        .cursor
        .as_deref()
        .map(|c| decode_tournament_cursor(state.keys.cursors(), tenant.as_str(), c))
        .transpose()?;
    Ok(HttpResponse::Ok().json(service::tournaments(&state, &tenant, limit, after).await?))
}

/// A tournament of the key's tenant.
///
/// Its settings, its status (`open`, `running`, `finished` or `cancelled`), the round being
/// played and how many have entered; another tenant's tournament is not found.
#[utoipa::path(
    get, path = "/v1/tournaments/{id}", tag = "tournaments",
    params(("id" = Uuid, Path, description = "Tournament id.")),
    security(("api_key" = [])),
    responses(
        (status = 200, description = "The tournament.", body = TournamentView),
        (status = 401, description = "No valid `X-Api-Key` (`unauthorized`).", body = Problem, content_type = "application/problem+json"),
        (status = 404, description = "No such tournament, or none of the key's tenant (`tournament_not_found`).", body = Problem, content_type = "application/problem+json"),
        (status = 422, description = "No server keys configured (`player_needs_server_key`).", body = Problem, content_type = "application/problem+json")
    )
)]
#[route("/v1/tournaments/{id}", method = "GET", method = "HEAD")]
pub async fn get_tournament(
    state: web::Data<AppState>,
    req: HttpRequest,
    id: web::Path<Uuid>,
) -> Result<HttpResponse, ApiError> {
    let tenant = state.server_keys.creator(&req)?;
    Ok(HttpResponse::Ok().json(service::tournament(&state, &tenant, id.into_inner()).await?))
}

/// Cancels a tournament before its start.
///
/// Done also for a tournament cancelled before. Its entries stay readable, the tournament
/// `cancelled`.
#[utoipa::path(
    delete, path = "/v1/tournaments/{id}", tag = "tournaments",
    params(("id" = Uuid, Path, description = "Tournament id.")),
    security(("api_key" = [])),
    responses(
        (status = 204, description = "Cancelled: no round will start."),
        (status = 401, description = "No valid `X-Api-Key` (`unauthorized`).", body = Problem, content_type = "application/problem+json"),
        (status = 404, description = "No such tournament, or none of the key's tenant (`tournament_not_found`).", body = Problem, content_type = "application/problem+json"),
        (status = 409, description = "The tournament has started, or its start time has come (`tournament_started`).", body = Problem, content_type = "application/problem+json"),
        (status = 422, description = "No server keys configured (`player_needs_server_key`).", body = Problem, content_type = "application/problem+json")
    )
)]
#[delete("/v1/tournaments/{id}")]
#[tracing::instrument(skip_all, fields(tournament = %id))]
pub async fn cancel_tournament(
    state: web::Data<AppState>,
    req: HttpRequest,
    id: web::Path<Uuid>,
) -> Result<HttpResponse, ApiError> {
    let tenant = state.server_keys.creator(&req)?;
    service::cancel_tournament(&state, &tenant, id.into_inner()).await?;
    Ok(HttpResponse::NoContent().finish())
}

/// Enters a player into a tournament.
///
/// Before its start, once per player. The entry's id is its holder's capability, as a
/// quick-play ticket's: reading the entry gives the player's table and seat token each round.
#[utoipa::path(
    post, path = "/v1/tournaments/{id}/entries", tag = "tournaments",
    params(("id" = Uuid, Path, description = "Tournament id."),
        ("Idempotency-Key" = Option<String>, Header, min_length = 1, max_length = 200, pattern = "^[!-~]{1,200}$", description = "1 to 200 visible ASCII characters. A retry with the same key and body returns the first response (the same entry).")),
    security(("api_key" = [])),
    request_body(content = EntryRequest, description = "A JSON object of at most 64 KiB."),
    responses(
        (status = 201, description = "Entered: the entry.", body = EntryView,
            headers(("Location" = String, description = "The entry's URL."))),
        (status = 400, description = "A body the document refuses (`malformed_json`, `unknown_field`, `invalid_body`), a bad `player` \
            (`invalid_player`) or `name` (`invalid_name`), a bad `Idempotency-Key` (`invalid_idempotency_key`).", body = Problem, content_type = "application/problem+json"),
        (status = 401, description = "No valid `X-Api-Key` (`unauthorized`).", body = Problem, content_type = "application/problem+json"),
        (status = 404, description = "No such tournament, or none of the key's tenant (`tournament_not_found`).", body = Problem, content_type = "application/problem+json"),
        (status = 409, description = "The tournament has started or its start time has come (`tournament_started`), was cancelled \
            (`tournament_cancelled`), has this player already (`already_entered`) or is full (`tournament_full`).", body = Problem, content_type = "application/problem+json"),
        (status = 422, description = "No server keys configured (`player_needs_server_key`), or the Idempotency-Key used with another body \
            (`idempotency_key_reused`).", body = Problem, content_type = "application/problem+json")
    )
)]
#[post("/v1/tournaments/{id}/entries")]
#[tracing::instrument(skip_all, fields(tournament = %id))]
pub async fn enter(
    state: web::Data<AppState>,
    req: HttpRequest,
    id: web::Path<Uuid>,
    body: JsonBody<EntryRequest>,
) -> Result<HttpResponse, ApiError> {
    let id = id.into_inner();
    let tenant = state.server_keys.creator(&req)?;
    let key = idempotency::key(
        &req,
        KeyScope::Creation,
        service::entry_keys(&tenant, id),
        -1,
        &body.raw,
    )?;
    let response = idempotency::once(&state, key, async |key| {
        let (player, name) = body.value.parse()?;
        service::enter(&state, &tenant, id, player, name, key).await
    })
    .await?;
    let location = serde_json::from_slice::<EntryView>(&response.body)
        .ok()
        .map(|e| format!("/v1/tournaments/{id}/entries/{}", e.id));
    Ok(located(response, location))
}

/// Whose entries a request reads: with `X-Api-Key`, its tenant's only; without, any (the
/// entry's id is its capability).
fn reader(state: &AppState, req: &HttpRequest) -> Result<Option<Tenant>, ApiError> {
    match req.headers().contains_key(API_KEY) {
        true => Ok(Some(state.server_keys.tenant(req)?)),
        false => Ok(None),
    }
}

/// An entry: its status, and in a running tournament its table, seat and seat token.
///
/// Whoever holds the entry's id reads it; with `X-Api-Key`, only an entry of the key's
/// tenant. The seat token is given while the seat is in its first generation: once the studio
/// reissues the seat's token or gives the seat to a bot, the entry mints it no more.
#[utoipa::path(
    get, path = "/v1/tournaments/{id}/entries/{entry}", tag = "tournaments",
    params(("id" = Uuid, Path, description = "Tournament id."), ("entry" = Uuid, Path, description = "Entry id.")),
    security((), ("api_key" = [])),
    responses(
        (status = 200, description = "The entry.", body = EntryView),
        (status = 401, description = "An `X-Api-Key` that is not valid (`unauthorized`).", body = Problem, content_type = "application/problem+json"),
        (status = 404, description = "No such tournament (with a server key, none of its tenant: `tournament_not_found`) or entry (`entry_not_found`).", body = Problem, content_type = "application/problem+json")
    )
)]
#[route("/v1/tournaments/{id}/entries/{entry}", method = "GET", method = "HEAD")]
pub async fn get_entry(
    state: web::Data<AppState>,
    req: HttpRequest,
    path: web::Path<(Uuid, Uuid)>,
) -> Result<HttpResponse, ApiError> {
    let tenant = reader(&state, &req)?;
    let (id, entry) = path.into_inner();
    Ok(HttpResponse::Ok().json(service::entry(&state, tenant.as_ref(), id, entry).await?))
}

/// Withdraws an entry before the tournament's start.
///
/// Done also for an entry withdrawn before.
#[utoipa::path(
    delete, path = "/v1/tournaments/{id}/entries/{entry}", tag = "tournaments",
    params(("id" = Uuid, Path, description = "Tournament id."), ("entry" = Uuid, Path, description = "Entry id.")),
    security((), ("api_key" = [])),
    responses(
        (status = 204, description = "Withdrawn."),
        (status = 401, description = "An `X-Api-Key` that is not valid (`unauthorized`).", body = Problem, content_type = "application/problem+json"),
        (status = 404, description = "No such tournament (`tournament_not_found`) or entry (`entry_not_found`).", body = Problem, content_type = "application/problem+json"),
        (status = 409, description = "The tournament has started, or its start time has come (`tournament_started`).", body = Problem, content_type = "application/problem+json")
    )
)]
#[delete("/v1/tournaments/{id}/entries/{entry}")]
#[tracing::instrument(skip_all)]
pub async fn withdraw(
    state: web::Data<AppState>,
    req: HttpRequest,
    path: web::Path<(Uuid, Uuid)>,
) -> Result<HttpResponse, ApiError> {
    let tenant = reader(&state, &req)?;
    let (id, entry) = path.into_inner();
    service::withdraw(&state, tenant.as_ref(), id, entry).await?;
    Ok(HttpResponse::NoContent().finish())
}

/// A tournament's standings.
///
/// After its rounds that are over (every table of the round finished): in `duplicate` each
/// entrant's matchpoints (each deal compared with the same seat at the other tables, 1 for each
/// beaten, ½ for each tie), in `points` the variant's scores added up (lower is better). Bots
/// sit in the comparison as seats but are not listed. Pass `next_cursor` as `cursor` for the
/// next page; with `player`, the page where that player stands and their entry.
#[utoipa::path(
    get, path = "/v1/tournaments/{id}/standings", tag = "tournaments",
    params(("id" = Uuid, Path, description = "Tournament id."), StandingsQuery),
    security(("api_key" = [])),
    responses(
        (status = 200, description = "A page of the standings.", body = StandingsPage),
        (status = 400, description = "A `limit` outside 1 to 200 (`invalid_limit`), a `cursor` not given for these standings \
            (`invalid_cursor`: another tournament's, or given before a round ended), a bad `player` (`invalid_player`), a bad query \
            string (`invalid_query`).", body = Problem, content_type = "application/problem+json"),
        (status = 401, description = "No valid `X-Api-Key` (`unauthorized`).", body = Problem, content_type = "application/problem+json"),
        (status = 404, description = "No such tournament, or none of the key's tenant (`tournament_not_found`); with `player`, one who \
            has not entered (`player_not_found`).", body = Problem, content_type = "application/problem+json"),
        (status = 422, description = "No server keys configured (`player_needs_server_key`).", body = Problem, content_type = "application/problem+json")
    )
)]
#[get("/v1/tournaments/{id}/standings")]
#[tracing::instrument(skip_all)]
pub async fn standings(
    state: web::Data<AppState>,
    req: HttpRequest,
    id: web::Path<Uuid>,
    query: web::Query<StandingsQuery>,
) -> Result<HttpResponse, ApiError> {
    let tenant = state.server_keys.creator(&req)?;
    let limit = query.limit()?;
    let player = query.player.clone().map(player_id).transpose()?;
    let page = service::standings(
        &state,
        &tenant,
        id.into_inner(),
        limit,
        query.cursor.as_deref(),
        player.as_ref(),
    )
    .await?;
    Ok(HttpResponse::Ok().json(page))
}

/// The standings, as an entrant reads them.
///
/// The tournament's standings after its rounds that are over, as `GET
/// /v1/tournaments/{id}/standings` gives them to the studio, with the entrant's own standing as
/// `player` once a round is counted. Whoever holds the entry's id reads them; with
/// `X-Api-Key`, only an entry of the key's tenant. Pass `next_cursor` as `cursor` for the next
/// page.
#[utoipa::path(
    get, path = "/v1/tournaments/{id}/entries/{entry}/standings", tag = "tournaments",
    params(("id" = Uuid, Path, description = "Tournament id."), ("entry" = Uuid, Path, description = "Entry id."), EntryStandingsQuery),
    security((), ("api_key" = [])),
    responses(
        (status = 200, description = "A page of the standings, with the entrant's own.", body = StandingsPage),
        (status = 400, description = "A `limit` outside 1 to 200 (`invalid_limit`), a `cursor` not given for these standings \
            (`invalid_cursor`: another tournament's, or given before a round ended), a bad query string (`invalid_query`).",
            body = Problem, content_type = "application/problem+json"),
        (status = 401, description = "An `X-Api-Key` that is not valid (`unauthorized`).", body = Problem, content_type = "application/problem+json"),
        (status = 404, description = "No such tournament (with a server key, none of its tenant: `tournament_not_found`) or no such \
            entry of it (`entry_not_found`).", body = Problem, content_type = "application/problem+json")
    )
)]
#[get("/v1/tournaments/{id}/entries/{entry}/standings")]
#[tracing::instrument(skip_all)]
pub async fn entry_standings(
    state: web::Data<AppState>,
    req: HttpRequest,
    path: web::Path<(Uuid, Uuid)>,
    query: web::Query<EntryStandingsQuery>,
) -> Result<HttpResponse, ApiError> {
    let tenant = reader(&state, &req)?;
    let (id, entry) = path.into_inner();
    let limit = query.limit()?;
    let page =
        service::entry_standings(&state, tenant.as_ref(), id, entry, limit, query.cursor.as_deref()).await?;
    Ok(HttpResponse::Ok().json(page))
}

/// An entrant's deals.
///
/// Each deal of the rounds that are over: the entrant's score, and in `duplicate` the same
/// seat's score at the other tables (the same cards). A round's deals show only once every
/// table of it has finished. Whoever holds the entry's id reads it; with `X-Api-Key`, only an
/// entry of the key's tenant.
#[utoipa::path(
    get, path = "/v1/tournaments/{id}/entries/{entry}/deals", tag = "tournaments",
    params(("id" = Uuid, Path, description = "Tournament id."), ("entry" = Uuid, Path, description = "Entry id.")),
    security((), ("api_key" = [])),
    responses(
        (status = 200, description = "The entrant's deals.", body = EntryDeals),
        (status = 401, description = "An `X-Api-Key` that is not valid (`unauthorized`).", body = Problem, content_type = "application/problem+json"),
        (status = 404, description = "No such tournament (`tournament_not_found`) or entry (`entry_not_found`).", body = Problem, content_type = "application/problem+json")
    )
)]
#[get("/v1/tournaments/{id}/entries/{entry}/deals")]
#[tracing::instrument(skip_all)]
pub async fn entry_deals(
    state: web::Data<AppState>,
    req: HttpRequest,
    path: web::Path<(Uuid, Uuid)>,
) -> Result<HttpResponse, ApiError> {
    let tenant = reader(&state, &req)?;
    let (id, entry) = path.into_inner();
    Ok(HttpResponse::Ok().json(service::entry_deals(&state, tenant.as_ref(), id, entry).await?))
}
