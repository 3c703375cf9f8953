//! Creating, joining and reading a game.

use actix_web::http::header;
use actix_web::{HttpRequest, HttpResponse, post, route, web};
use uuid::Uuid;

use super::extract::{CREATE_LIMIT, JsonBody};
use super::idempotency::{self, answer};
use super::{if_match, read_by};
use crate::error::ApiError;
use crate::server_keys::HEADER as API_KEY;
use crate::service;
use crate::state::AppState;
use crate::store::{KeyScope, StoredResponse};
use crate::wire::{
    CreateGameRequest, CreateGameResponse, GameView, JoinRequest, JoinResponse, Joining, Problem,
    RematchResponse, etag, matches_if_none_match,
};

/// Creates a game.
///
/// The seats are named players (each gets a seat token), open seats (taken later with
/// `POST /v1/games/{id}/join`) or server-side bots of a level. The game deals once every seat
/// is taken; `easy` and `normal` bots that move first have played by the time the answer comes,
/// so `version` may exceed 1, while a `hard` bot plays after the answer.
#[utoipa::path(
    post, path = "/v1/games", tag = "games",
    params(("Idempotency-Key" = Option<String>, Header, min_length = 1, max_length = 200, pattern = "^[!-~]{1,200}$", description = "1 to 200 visible ASCII characters. A retry with the same key and body returns the first response (the same game and tokens) and creates no second game; keys of creations are per tenant.")),
    security((), ("api_key" = [])),
    request_body(content = CreateGameRequest, description = "A JSON object of at most 256 KiB.", examples(
        ("two players and an open seat" = (value = json!({"variant": "may_i", "seats": [{"name": "Ann"}, {"name": "Bob"}, {"open": true}]}))),
        ("against two bots" = (value = json!({"variant": "contract_7", "seats": [{"name": "Ann"}, {"bot": true}, {"bot": true}]}))),
        ("test mode" = (value = json!({"variant": "continental", "seats": [{"name": "Ann"}, {"name": "Bob"}], "seed": 42, "first_dealer": 0})))
    )),
    responses(
        (status = 201, description = "Created: the id, a token per named seat, the seed commitment.", body = CreateGameResponse,
            headers(("Location" = String, description = "The game's URL."), ("ETag" = String, description = "The game's version."))),
        (status = 400, description = "A body the document refuses: malformed JSON (`malformed_json`), not an object \
            (`not_an_object`), an unknown field (`unknown_field`), an unknown variant (`unknown_variant`) or card (`unknown_card`), \
            a name that is not 1 to 40 characters (`invalid_name`), a bot level that is not `easy`, `normal` or `hard` \
            (`unknown_level`), more than 12 seats or another value of the wrong type \
            (`invalid_body`); or test-mode fields outside test mode (`test_mode_only`); a `player` that is empty, over 128 characters \
            or with a control character (`invalid_player`).",
            body = Problem, content_type = "application/problem+json"),
        (status = 401, description = "Server keys are configured and the request has no valid `X-Api-Key` (`unauthorized`).", body = Problem, content_type = "application/problem+json"),
        (status = 409, description = "On a server without server keys, a game of bots alone while `CONTINENTAL_OPEN_BOT_TABLES` such games \
            are in play (`bot_tables_full`); rarely, a request with this Idempotency-Key acting at the same moment (`request_in_progress`).", body = Problem, content_type = "application/problem+json"),
        (status = 422, description = "A body of the documented shape that the variant or the service cannot take: \
            a `player` or `rated` without a server key (`player_needs_server_key`); \
            options it does not have or out of their bounds (`invalid_options`, also `turn_seconds` outside 5 to 604800), a \
            player count it does not seat (`player_count`), a seat that is not a name, open or bot (`invalid_seat`), a \
            `webhook_url` that is not an http or https URL naming a host (`invalid_webhook_url`), whose host does not resolve \
            (`webhook_url_unresolvable`) or resolves to a loopback, private, link-local or unspecified address \
            (`webhook_url_private`), in test mode a `first_dealer` or `stacked_decks` this game cannot take \
            (`invalid_first_dealer`, `invalid_stacked_deck`); one player at two seats (`player_seated_twice`), a rated game \
            with a person's seat that names no player (`rated_needs_players`); or the Idempotency-Key was used with another body \
            (`idempotency_key_reused`).", body = Problem, content_type = "application/problem+json"),
        (status = 413, description = "The body is larger than the limit (`body_too_large`).", body = Problem, content_type = "application/problem+json"),
        (status = 415, description = "A body that is not `application/json` (`unsupported_media_type`).", body = Problem, content_type = "application/problem+json")
    )
)]
#[post("/v1/games")]
#[tracing::instrument(skip_all)]
pub async fn create_game(
    state: web::Data<AppState>,
    req: HttpRequest,
    body: JsonBody<CreateGameRequest, CREATE_LIMIT>,
) -> Result<HttpResponse, ApiError> {
    let tenant = state.server_keys.creator(&req)?;
    // No game or seat yet: a creation key is the tenant's.
    let key = idempotency::key(&req, KeyScope::Creation, tenant.creation_scope(), -1, &body.raw)?;
    let response = idempotency::once(&state, key, async |key| {
        let spec = body.value.parse(state.test_mode)?;
        service::create_game(&state, &tenant, spec, key).await
    })
    .await?;
    Ok(created(response))
}

/// A created game's response with its `Location`, also on a replay.
fn created(r: StoredResponse) -> HttpResponse {
    let location = (r.status == 201)
        .then(|| serde_json::from_slice::<CreateGameResponse>(&r.body).ok())
        .flatten()
        .map(|c| format!("/v1/games/{}", c.id));
    let mut res = answer(r);
    if let Some(value) = location.and_then(|l| header::HeaderValue::from_str(&l).ok()) {
        res.headers_mut().insert(header::LOCATION, value);
    }
    res
}

/// Takes an open seat.
///
/// The first open seat goes to this name, with a seat token; the game deals when it was the
/// last open seat. No token is needed.
#[utoipa::path(
    post, path = "/v1/games/{id}/join", tag = "games",
    params(("id" = Uuid, Path, description = "Game id."),
        ("If-Match" = Option<String>, Header, description = "Act only if the game is at this version (its ETag)."),
        ("Idempotency-Key" = Option<String>, Header, min_length = 1, max_length = 200, pattern = "^[!-~]{1,200}$", description = "1 to 200 visible ASCII characters. A retry with the same key and body returns the first response (the same seat and token) and takes no second seat; keys of joins are per game.")),
    request_body(content = JoinRequest, description = "A JSON object of at most 8 KiB.", example = json!({"name": "Cleo"})),
    responses(
        (status = 200, description = "The seat and its token; the game deals when every seat is taken.", body = JoinResponse,
            headers(("ETag" = String, description = "The game's version."))),
        (status = 400, description = "Malformed body, or a name that is not 1 to 40 characters, all spaces or with a \
            control character (`invalid_name`); a bad `Idempotency-Key` (`invalid_idempotency_key`); a bad `player` \
            (`invalid_player`).", body = Problem, content_type = "application/problem+json"),
        (status = 401, description = "With a `player`: an `X-Api-Key` that is not a server key (`unauthorized`).", body = Problem, content_type = "application/problem+json"),
        (status = 404, description = "No such game (`game_not_found`); with a `player`, another tenant's game answers the same.", body = Problem, content_type = "application/problem+json"),
        (status = 409, description = "Every seat is taken (`no_open_seat`), or, rarely, a request with this Idempotency-Key acting at the same moment (`request_in_progress`).", body = Problem, content_type = "application/problem+json"),
        (status = 412, description = "`If-Match` names an old version (`stale_version`).", body = Problem, content_type = "application/problem+json"),
        (status = 413, description = "The body is larger than the limit (`body_too_large`).", body = Problem, content_type = "application/problem+json"),
        (status = 415, description = "A body that is not `application/json` (`unsupported_media_type`).", body = Problem, content_type = "application/problem+json"),
        (status = 422, description = "A `player` without the server key of the game's tenant (`player_needs_server_key`); \
            the player sits at another seat of the game (`player_seated_twice`); a rated game's \
            seat taken without a `player` (`rated_needs_players`); the Idempotency-Key was used with another body \
            (`idempotency_key_reused`).", body = Problem, content_type = "application/problem+json")
    )
)]
#[post("/v1/games/{id}/join")]
#[tracing::instrument(skip_all, fields(game = %id))]
pub async fn join_game(
    state: web::Data<AppState>,
    req: HttpRequest,
    id: web::Path<Uuid>,
    body: JsonBody<JoinRequest>,
) -> Result<HttpResponse, ApiError> {
    let id = id.into_inner();
    // The seat is not known before joining: join keys are per game (seat -1).
    let key = idempotency::key(&req, KeyScope::Game, id, -1, &body.raw)?;
    if key.is_some() {
        service::exists(&state, id).await?;
    }
    let response = idempotency::once(&state, key, async |key| {
        let joining = Joining::try_from(body.value)?;
        // A player id is the studio's: it comes with a server key, whose tenant the game must be.
        let tenant = match &joining.player {
            Some(_) => Some(super::studio::player_tenant(&state, &req)?),
            None => None,
        };
        service::join_game(&state, id, joining, tenant.as_ref(), if_match(&req)?, key).await
    })
    .await?;
    Ok(answer(response))
}

/// The game as the token's seat (or a spectator) may see it.
///
/// Own hand, other hands as counts, the table, the discard pile, whose turn it is, the scores
/// and what this seat may do now (`legal_actions`). The `ETag` is the game's version.
#[utoipa::path(
    get, path = "/v1/games/{id}", tag = "games",
    params(("id" = Uuid, Path, description = "Game id."),
        ("If-None-Match" = Option<String>, Header, description = "Answer 304 if the game is still at this version.")),
    security(("seat_token" = []), ("spectator_token" = [])),
    responses(
        (status = 200, description = "The game as this seat sees it: own hand, other hands as counts. \
            A spectator sees no hand: `you` is null.", body = GameView,
            headers(("ETag" = String, description = "The game's version."))),
        (status = 304, description = "Not modified since the version in `If-None-Match`."),
        (status = 401, description = "Missing, expired, tampered or replaced token (`unauthorized`).", body = Problem, content_type = "application/problem+json"),
        (status = 403, description = "A token of another game (`forbidden`).", body = Problem, content_type = "application/problem+json"),
        (status = 404, description = "No such game (`game_not_found`).", body = Problem, content_type = "application/problem+json")
    )
)]
#[route("/v1/games/{id}", method = "GET", method = "HEAD")]
pub async fn get_game(
    state: web::Data<AppState>,
    req: HttpRequest,
    id: web::Path<Uuid>,
) -> Result<HttpResponse, ApiError> {
    let id = id.into_inner();
    let (reader, row, table) = read_by(&state, &req, id).await?;
    let tag = etag(row.version);
    let unchanged = req
        .headers()
        .get(header::IF_NONE_MATCH)
        .and_then(|v| v.to_str().ok())
        .is_some_and(|v| matches_if_none_match(v, row.version));
    if unchanged {
        return Ok(HttpResponse::NotModified()
            .insert_header((header::ETAG, tag))
            .finish());
    }
    Ok(HttpResponse::Ok()
        .insert_header((header::ETAG, tag))
        .json(GameView::as_seen_by(id, row.version, &table, reader.viewer())))
}

/// Asks for a rematch of a finished game.
///
/// The first call, from any seat or the studio, makes the next game at this table: the same
/// variant, options, webhook and seats in the same order (bots stay bots, players keep their
/// names), dealt first as the variant passes the deal; every later call lands at the same
/// game. With a seat token, the answer is that seat's own seat of the rematch and a token for
/// it; with the game's studio's `X-Api-Key`, the rematch's id. The rematch deals once every
/// player's seat has asked (a seat not yet asked is kept for its player). The finished game's
/// view shows `rematch`, and a `rematch` event reaches its streams and its webhook.
#[utoipa::path(
    post, path = "/v1/games/{id}/rematch", tag = "games",
    params(("id" = Uuid, Path, description = "Game id (the finished game).")),
    security(("seat_token" = []), ("api_key" = [])),
    responses(
        (status = 200, description = "The rematch: with a seat token, the seat and its token there.", body = RematchResponse),
        (status = 401, description = "Missing, expired, tampered or replaced token, or an `X-Api-Key` that is not valid (`unauthorized`).",
            body = Problem, content_type = "application/problem+json"),
        (status = 403, description = "A token of another game, a spectator's, or of a seat that is not a player's; or the seat's token of \
            the rematch was reissued, which only that token opens since (`forbidden`).",
            body = Problem, content_type = "application/problem+json"),
        (status = 404, description = "No such game, or with a server key none of its tenant's (`game_not_found`).",
            body = Problem, content_type = "application/problem+json"),
        (status = 409, description = "The game is not finished: void, or not over (`game_not_finished`); a tournament table's \
            game, whose next game is the tournament's next round (`tournament_game`); or this seat of the \
            rematch was given to a bot (`seat_not_reserved`).", body = Problem, content_type = "application/problem+json"),
        (status = 503, description = "The database is out of reach (`service_unavailable`) or the game busy (`game_busy`): nothing changed.",
            body = Problem, content_type = "application/problem+json")
    )
)]
#[post("/v1/games/{id}/rematch")]
#[tracing::instrument(skip_all, fields(game = %id))]
pub async fn rematch(
    state: web::Data<AppState>,
    req: HttpRequest,
    id: web::Path<Uuid>,
) -> Result<HttpResponse, ApiError> {
    let id = id.into_inner();
    let asker = if req.headers().contains_key(API_KEY) {
        service::Asker::Studio(state.server_keys.tenant(&req)?)
    } else {
        service::Asker::Seat(state.keys.seat_for(&req, id)?)
    };
    Ok(HttpResponse::Ok().json(service::rematch(&state, id, asker).await?))
}
