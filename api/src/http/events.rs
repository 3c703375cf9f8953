//! A game's events: a page as JSON, or live as server-sent events.

use actix_web::http::header;
use actix_web::{HttpRequest, HttpResponse, route, web};
use uuid::Uuid;

use super::read_by;
use crate::error::ApiError;
use crate::service;
use crate::state::AppState;
use crate::wire::{EventsQuery, EventsResponse, Problem, ReplayResponse, StreamMessage};

/// The game's events after a sequence number, as this seat (or a spectator) may see them.
///
/// Pages of at most `limit` events, oldest first; pass `last_seq` as `after` for the next
/// page. Another seat's cards from the stock are `null`, and hands dealt to others are hidden.
#[utoipa::path(
    get, path = "/v1/games/{id}/events", tag = "games",
    params(("id" = Uuid, Path, description = "Game id."), EventsQuery),
    security(("seat_token" = []), ("spectator_token" = [])),
    responses(
        (status = 200, description = "The events, redacted for this seat.", body = EventsResponse),
        (status = 400, description = "A bad query string (`invalid_query`).", body = Problem, content_type = "application/problem+json"),
        (status = 401, description = "Missing, expired, tampered or replaced token.", body = Problem, content_type = "application/problem+json"),
        (status = 403, description = "A token of another game.", body = Problem, content_type = "application/problem+json"),
        (status = 404, description = "No such game.", body = Problem, content_type = "application/problem+json")
    )
)]
#[route("/v1/games/{id}/events", method = "GET", method = "HEAD")]
pub async fn list_events(
    state: web::Data<AppState>,
    req: HttpRequest,
    id: web::Path<Uuid>,
    query: web::Query<EventsQuery>,
) -> Result<HttpResponse, ApiError> {
    let id = id.into_inner();
    let (reader, _, table) = read_by(&state, &req, id).await?;
    let (after, limit) = query.page()?;
    let events = service::events_for(&state, id, reader.viewer(), table.sealed, after, limit).await?;
    let last_seq = events.last().map_or(after, |e| e.seq);
    Ok(HttpResponse::Ok().json(EventsResponse { events, last_seq }))
}

/// The game played again from its record, step by step, as this seat (or a spectator) saw it.
///
/// Each step is what changed the game (its deal, a seat's action, or the studio calling it
/// off), the events it made and the game just after it, as the engine replays them from the
/// seed and the record: the same redaction as the events, so a seat sees its own hand at each
/// step and every other hand as a count. Pages of at most `limit` steps, oldest first; pass
/// `last_seq` as `after` for the next page. A game still waiting for players has no step yet.
#[utoipa::path(
    get, path = "/v1/games/{id}/replay", tag = "games",
    params(("id" = Uuid, Path, description = "Game id."), EventsQuery),
    security(("seat_token" = []), ("spectator_token" = [])),
    responses(
        (status = 200, description = "The steps, as this seat may see them.", body = ReplayResponse),
        (status = 400, description = "A bad query string (`invalid_query`).", body = Problem, content_type = "application/problem+json"),
        (status = 401, description = "Missing, expired, tampered or replaced token.", body = Problem, content_type = "application/problem+json"),
        (status = 403, description = "A token of another game.", body = Problem, content_type = "application/problem+json"),
        (status = 404, description = "No such game.", body = Problem, content_type = "application/problem+json"),
        (status = 409, description = "A game dealt before the service kept games' records (`no_record`); a tournament table's game while \
            another table of its round still plays the same deals (`round_not_over`).", body = Problem, content_type = "application/problem+json"),
        (status = 500, description = "A stored game whose record does not play again into it (`corrupt_game`).", body = Problem, content_type = "application/problem+json")
    )
)]
#[route("/v1/games/{id}/replay", method = "GET", method = "HEAD")]
pub async fn replay(
    state: web::Data<AppState>,
    req: HttpRequest,
    id: web::Path<Uuid>,
    query: web::Query<EventsQuery>,
) -> Result<HttpResponse, ApiError> {
    let id = id.into_inner();
    let (reader, row, table) = read_by(&state, &req, id).await?;
    let (after, limit) = query.page()?;
    let limit = usize::try_from(limit).unwrap_or(usize::MAX);
    let steps = service::replay(&state, &row, &table, reader.viewer(), after, limit).await?;
    let last_seq = steps.last().map_or(after, |s| s.seq);
    Ok(HttpResponse::Ok().json(ReplayResponse { steps, last_seq }))
}

/// The same events live, as server-sent events.
///
/// Each message has `id` (the sequence number), `event` (the event's `type`) and `data` (the
/// event as JSON, as `GET /v1/games/{id}/events` shows it). `Last-Event-ID` or `?after=`
/// resumes exactly. The stream ends once every event is sent of a game void, or finished and
/// its rematch made (a finished game's stream waits for its `rematch` event); a comment
/// line `: heartbeat` comes every 15 s while nothing happens. A stream that cannot go on (the
/// service stops, the database fails, the client reads too slowly) ends with an `error` event
/// and `retry:`; reconnect with `Last-Event-ID`.
#[utoipa::path(
    get, path = "/v1/games/{id}/stream", tag = "games",
    params(("id" = Uuid, Path, description = "Game id."), EventsQuery,
        ("Last-Event-ID" = Option<String>, Header, description = "Resume after this sequence number.")),
    security(("seat_token" = []), ("spectator_token" = [])),
    responses(
        (status = 200, description = "A `text/event-stream` of events redacted for this seat, each message `id: seq`, \
            `event: type`, `data: JSON` (the schema is one message's, as Open API 3.1 describes event streams).",
            body = StreamMessage, content_type = "text/event-stream",
            example = json!({"id": "7", "event": "discarded", "data": "{\"type\":\"discarded\",\"seat\":0,\"card\":\"7H\"}"})),
        (status = 400, description = "A bad query string (`invalid_query`).", body = Problem, content_type = "application/problem+json"),
        (status = 401, description = "Missing, expired, tampered or replaced token.", body = Problem, content_type = "application/problem+json"),
        (status = 403, description = "A token of another game.", body = Problem, content_type = "application/problem+json"),
        (status = 404, description = "No such game.", body = Problem, content_type = "application/problem+json"),
        (status = 503, description = "This replica serves as many streams as it may (`too_many_streams`), or the database is unavailable: retry after `Retry-After` seconds.",
            body = Problem, content_type = "application/problem+json",
            headers(("Retry-After" = String, description = "Seconds to wait.")))
    )
)]
#[route("/v1/games/{id}/stream", method = "GET", method = "HEAD")]
pub async fn stream_events(
    state: web::Data<AppState>,
    req: HttpRequest,
    id: web::Path<Uuid>,
    query: web::Query<EventsQuery>,
) -> Result<HttpResponse, ApiError> {
    let id = id.into_inner();
    let (reader, row, _) = read_by(&state, &req, id).await?;
    let resume = req
        .headers()
        .get("last-event-id")
        .and_then(|v| v.to_str().ok())
        .and_then(|v| v.trim().parse::<i64>().ok());
    let after = resume.unwrap_or(query.page()?.0);
    if req.method() == actix_web::http::Method::HEAD {
        // The headers only: a stream nobody reads would hold a subscription until the game ends.
        return Ok(HttpResponse::Ok()
            .insert_header((header::CONTENT_TYPE, "text/event-stream"))
            .insert_header((header::CACHE_CONTROL, "no-cache"))
            .finish());
    }
    let body = service::live_events(&state, &row, reader.viewer(), after)?;
    Ok(HttpResponse::Ok()
        .insert_header((header::CONTENT_TYPE, "text/event-stream"))
        .insert_header((header::CACHE_CONTROL, "no-cache"))
        .insert_header(("x-accel-buffering", "no"))
        .streaming(body))
}
