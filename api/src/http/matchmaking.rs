//! Quick play: a ticket queued, read, followed, seated with bots at once and cancelled.

use actix_web::http::header;
use actix_web::{HttpRequest, HttpResponse, delete, post, route, web};
use uuid::Uuid;

use super::extract::JsonBody;
use super::idempotency::{self, answer};
use crate::error::ApiError;
use crate::server_keys::{HEADER as API_KEY, Tenant};
use crate::service;
use crate::state::AppState;
use crate::store::KeyScope;
use crate::wire::{Problem, TicketRequest, TicketResponse, TicketStreamMessage, TicketView};

/// Queues a player for a table.
///
/// The ticket waits until the matching pass seats it with other tickets of the same variant,
/// options and asynchrony whose ratings are close (a window that widens while they wait), at a
/// size each accepts; past the server's wait, empty seats go to the bot level whose rating is
/// nearest the table's people. With a server key the ticket is the tenant's and names its
/// player (whose rating it carries); without server keys it names none.
#[utoipa::path(
    post, path = "/v1/matchmaking/tickets", tag = "matchmaking",
    params(("Idempotency-Key" = Option<String>, Header, min_length = 1, max_length = 200, pattern = "^[!-~]{1,200}$", description = "1 to 200 visible ASCII characters. A retry with the same key and body returns the first response (the same ticket) and queues no second ticket; keys of tickets are per tenant.")),
    security((), ("api_key" = [])),
    request_body(content = TicketRequest, description = "A JSON object of at most 64 KiB.", examples(
        ("a studio's player" = (value = json!({"player": "u-123", "name": "Ann", "variant": "may_i", "sizes": [2, 3, 4]}))),
        ("asynchronous, a turn a day" = (value = json!({"player": "u-123", "name": "Ann", "variant": "contract_7", "sizes": [2], "async": true})))
    )),
    responses(
        (status = 201, description = "Queued: the ticket, and the webhook's signing secret when one was given.", body = TicketResponse,
            headers(("Location" = String, description = "The ticket's URL."))),
        (status = 400, description = "A body the document refuses: malformed JSON (`malformed_json`), an unknown field (`unknown_field`), \
            an unknown variant (`unknown_variant`), no size or another value of the wrong type (`invalid_body`), a name that is not 1 to 40 \
            characters (`invalid_name`), options that are not the variant's (`invalid_options`); with a server key, a `player` that is \
            not 1 to 128 characters without control characters (`invalid_player`); \
            a bad `Idempotency-Key` (`invalid_idempotency_key`).", body = Problem, content_type = "application/problem+json"),
        (status = 401, description = "Server keys are configured and the request has no valid `X-Api-Key` (`unauthorized`).", body = Problem, content_type = "application/problem+json"),
        (status = 409, description = "This player already has a waiting ticket (`already_waiting`): the same Idempotency-Key answers the first ticket again.", body = Problem, content_type = "application/problem+json"),
        (status = 413, description = "The body is larger than the limit (`body_too_large`).", body = Problem, content_type = "application/problem+json"),
        (status = 415, description = "A body that is not `application/json` (`unsupported_media_type`).", body = Problem, content_type = "application/problem+json"),
        (status = 422, description = "With a server key, no `player` (`invalid_player`); without one, a `player` at all \
            (`player_needs_server_key`); a table size the variant does not seat (`size_not_seated`), options out of their bounds (`invalid_options`), \
            a `webhook_url` the service does not deliver to (`invalid_webhook_url`, `webhook_url_unresolvable`, `webhook_url_private`), \
            or the Idempotency-Key used with another body (`idempotency_key_reused`).", body = Problem, content_type = "application/problem+json")
    )
)]
#[post("/v1/matchmaking/tickets")]
#[tracing::instrument(skip_all)]
pub async fn create_ticket(
    state: web::Data<AppState>,
    req: HttpRequest,
    body: JsonBody<TicketRequest>,
) -> Result<HttpResponse, ApiError> {
    let tenant = state.server_keys.creator(&req)?;
    let key = idempotency::key(&req, KeyScope::Creation, tenant.ticket_scope(), -1, &body.raw)?;
    let response = idempotency::once(&state, key, async |key| {
        let spec = body.value.parse(state.server_keys.enabled())?;
        service::create_ticket(&state, &tenant, spec, key).await
    })
    .await?;
    let location = (response.status == 201)
        .then(|| serde_json::from_slice::<TicketResponse>(&response.body).ok())
        .flatten()
        .map(|t| format!("/v1/matchmaking/tickets/{}", t.ticket.id));
    let mut res = answer(response);
    if let Some(value) = location.and_then(|l| header::HeaderValue::from_str(&l).ok()) {
        res.headers_mut().insert(header::LOCATION, value);
    }
    Ok(res)
}

/// Whose tickets a request reads: with `X-Api-Key`, its tenant's only; without, any (the
/// ticket's id is its capability).
fn reader(state: &AppState, req: &HttpRequest) -> Result<Option<Tenant>, ApiError> {
    match req.headers().contains_key(API_KEY) {
        true => Ok(Some(state.server_keys.tenant(req)?)),
        false => Ok(None),
    }
}

/// A ticket: waiting, or matched with its game, seat and seat token.
///
/// Whoever holds the ticket's id reads it; with `X-Api-Key`, only a ticket of the key's tenant.
/// A cancelled ticket is gone (`410`).
#[utoipa::path(
    get, path = "/v1/matchmaking/tickets/{ticket}", tag = "matchmaking",
    params(("ticket" = Uuid, Path, description = "Ticket id.")),
    security((), ("api_key" = [])),
    responses(
        (status = 200, description = "The ticket.", body = TicketView),
        (status = 401, description = "An `X-Api-Key` that is not valid (`unauthorized`).", body = Problem, content_type = "application/problem+json"),
        (status = 404, description = "No such ticket, or with a server key none of its tenant's (`ticket_not_found`).", body = Problem, content_type = "application/problem+json"),
        (status = 410, description = "The ticket was cancelled (`ticket_cancelled`): queue a new one.", body = Problem, content_type = "application/problem+json")
    )
)]
#[route("/v1/matchmaking/tickets/{ticket}", method = "GET", method = "HEAD")]
pub async fn get_ticket(
    state: web::Data<AppState>,
    req: HttpRequest,
    id: web::Path<Uuid>,
) -> Result<HttpResponse, ApiError> {
    let tenant = reader(&state, &req)?;
    let view = service::ticket(&state, tenant.as_ref(), id.into_inner()).await?;
    Ok(HttpResponse::Ok().json(view))
}

/// A ticket live, as server-sent events.
///
/// An event `ticket` with the ticket as `GET /v1/matchmaking/tickets/{ticket}` shows it, now and at
/// each change of its status; the stream ends once it is matched, expired or cancelled. A
/// comment line `: heartbeat` comes every 15 s while it waits.
#[utoipa::path(
    get, path = "/v1/matchmaking/tickets/{ticket}/events", tag = "matchmaking",
    params(("ticket" = Uuid, Path, description = "Ticket id.")),
    security((), ("api_key" = [])),
    responses(
        (status = 200, description = "A `text/event-stream` of `ticket` messages, each `data` the ticket, ended by the last status or by an `error` message \
            (the schema is one message's, as Open API 3.1 describes event streams).", body = TicketStreamMessage, content_type = "text/event-stream"),
        (status = 401, description = "An `X-Api-Key` that is not valid (`unauthorized`).", body = Problem, content_type = "application/problem+json"),
        (status = 404, description = "No such ticket, or with a server key none of its tenant's (`ticket_not_found`).", body = Problem, content_type = "application/problem+json"),
        (status = 410, description = "The ticket was cancelled (`ticket_cancelled`): queue a new one.", body = Problem, content_type = "application/problem+json"),
        (status = 503, description = "This replica serves as many streams as it may (`too_many_streams`), or the database is unavailable.",
            body = Problem, content_type = "application/problem+json",
            headers(("Retry-After" = String, description = "Seconds to wait.")))
    )
)]
#[route("/v1/matchmaking/tickets/{ticket}/events", method = "GET", method = "HEAD")]
pub async fn ticket_events(
    state: web::Data<AppState>,
    req: HttpRequest,
    id: web::Path<Uuid>,
) -> Result<HttpResponse, ApiError> {
    let tenant = reader(&state, &req)?;
    let id = id.into_inner();
    if req.method() == actix_web::http::Method::HEAD {
        service::ticket(&state, tenant.as_ref(), id).await?;
        return Ok(HttpResponse::Ok()
            .insert_header((header::CONTENT_TYPE, "text/event-stream"))
            .insert_header((header::CACHE_CONTROL, "no-cache"))
            .finish());
    }
    let body = service::ticket_events(state, tenant, id).await?;
    Ok(HttpResponse::Ok()
        .insert_header((header::CONTENT_TYPE, "text/event-stream"))
        .insert_header((header::CACHE_CONTROL, "no-cache"))
        .insert_header(("x-accel-buffering", "no"))
        .streaming(body))
}

/// Cancels a waiting ticket.
///
/// Done also for a ticket cancelled or expired before. A ticket already seated at a table stays
/// there.
#[utoipa::path(
    delete, path = "/v1/matchmaking/tickets/{ticket}", tag = "matchmaking",
    params(("ticket" = Uuid, Path, description = "Ticket id.")),
    security((), ("api_key" = [])),
    responses(
        (status = 204, description = "Cancelled: it waits no more."),
        (status = 401, description = "An `X-Api-Key` that is not valid (`unauthorized`).", body = Problem, content_type = "application/problem+json"),
        (status = 404, description = "No such ticket, or with a server key none of its tenant's (`ticket_not_found`).", body = Problem, content_type = "application/problem+json"),
        (status = 409, description = "The ticket is seated at a table (`ticket_matched`).", body = Problem, content_type = "application/problem+json")
    )
)]
#[delete("/v1/matchmaking/tickets/{ticket}")]
#[tracing::instrument(skip_all, fields(ticket = %id))]
pub async fn cancel_ticket(
    state: web::Data<AppState>,
    req: HttpRequest,
    id: web::Path<Uuid>,
) -> Result<HttpResponse, ApiError> {
    let tenant = reader(&state, &req)?;
    service::cancel_ticket(&state, tenant.as_ref(), id.into_inner()).await?;
    Ok(HttpResponse::NoContent().finish())
}

/// Seats a waiting ticket now, with the people it can find and bots.
///
/// "Play with bots now": the ticket sits down at once as it would when its bots' wait
/// (`bots.after_seconds`) is reached: with as many people waiting for the same game as it can
/// meet (their ratings close, each accepting the size) and bots of the level nearest their
/// ratings in the other seats, at the size it accepts that seats most of those people, the
/// largest on a tie. The ticket's id is its capability; with `X-Api-Key`, only a ticket of the
/// key's tenant. A ticket is in one game or none even when the matching pass seats it at the
/// same moment: then this answers `409 ticket_matched`, and reading the ticket gives its seat.
#[utoipa::path(
    post, path = "/v1/matchmaking/tickets/{ticket}/bots", tag = "matchmaking",
    params(("ticket" = Uuid, Path, description = "Ticket id.")),
    security((), ("api_key" = [])),
    responses(
        (status = 200, description = "Seated: the ticket, `matched`, with its game, seat and seat token (`waiting` in the rare case its \
            game could not be made at once: the matching worker makes it, follow the ticket).", body = TicketView,
            example = json!({"id": "0b7e3a52-5f0c-4d7e-9a43-2f7d1c9e8b10", "status": "matched", "variant": "may_i",
                "sizes": [2, 3, 4], "async": false, "created_at": "2026-11-28T06:00:00Z", "expires_at": "2026-11-28T06:10:00Z",
                "waited_seconds": 7, "bots": null, "waiting": null, "match": {"game_id": "5d7c1f0e-3b8a-4c2d-9e6f-1a2b3c4d5e6f",
                "seat": 0, "token": "eyJhbGciOiJIUzI1NiJ9.eyJnYW1lIjoiNWQ3YyJ9.c2lnbmF0dXJl", "token_replaced": false}})),
        (status = 401, description = "An `X-Api-Key` that is not valid (`unauthorized`).", body = Problem, content_type = "application/problem+json"),
        (status = 404, description = "No such ticket, or with a server key none of its tenant's (`ticket_not_found`).", body = Problem, content_type = "application/problem+json"),
        (status = 409, description = "The ticket waits no more: it is seated at a table (`ticket_matched`: read it for its seat) or expired \
            (`ticket_expired`: queue a new one); or this server seats no bots at quick play, or none that plays the ticket's variant \
            (`no_quick_play_bots`: the ticket goes on waiting for people).", body = Problem, content_type = "application/problem+json"),
        (status = 410, description = "The ticket was cancelled (`ticket_cancelled`): queue a new one.", body = Problem, content_type = "application/problem+json"),
        (status = 503, description = "The database is unavailable (`service_unavailable`): nothing was seated; try again.",
            body = Problem, content_type = "application/problem+json",
            headers(("Retry-After" = String, description = "Seconds to wait.")))
    )
)]
#[post("/v1/matchmaking/tickets/{ticket}/bots")]
#[tracing::instrument(skip_all, fields(ticket = %id))]
pub async fn seat_with_bots(
    state: web::Data<AppState>,
    req: HttpRequest,
    id: web::Path<Uuid>,
) -> Result<HttpResponse, ApiError> {
    let tenant = reader(&state, &req)?;
    let view = service::seat_with_bots_now(&state, tenant.as_ref(), id.into_inner()).await?;
    Ok(HttpResponse::Ok().json(view))
}
