//! The game endpoints: create, join, view, the moves, events (JSON and SSE) and hints.
//!
//! Every move is one call to [`perform`]: check the seat token, claim the idempotency key,
//! then one store transaction (check `If-Match`, apply in the engine, let bots play, write
//! state, events, version and the idempotent response), then answer with the seat's view.

use std::time::Duration;

use actix_web::http::header;
use actix_web::web::{self, Bytes};
use actix_web::{HttpRequest, HttpResponse, get, post};
use engine::{Action, Card, DrawSource, Game, GameConfig, Ruleset, RunEnd, Seat, Variant, Viewer};
use serde::{Deserialize, Serialize};
use sha2::{Digest, Sha256};
use utoipa::{IntoParams, ToSchema};
use uuid::Uuid;

use crate::dto::ReadingView;
use crate::error::{ApiError, PROBLEM_JSON, Problem};
use crate::extract::{CREATE_LIMIT, JsonBody};
use crate::play::{SeatKind, SeatRecord, StoredGame, etag, new_game_id, random_seed};
use crate::routes::rules::{DesignationRequest, MeldRequest};
use crate::startup::{AppState, hex};
use crate::store::{
    GameRow, GameUpdate, KeyClaim, KeyRef, KeyScope, NewEvent, NewGame, Outcome, SeatRow, Store,
    StoredResponse,
};
use crate::view::GameView;

/// Longest seat name.
const MAX_NAME: usize = 40;
/// Longest idempotency key.
const MAX_KEY: usize = 200;

/// One seat of a new game: a named player, an open seat, or a bot.
#[derive(Debug, Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct SeatSpec {
    /// The player's name (a token is returned for this seat); for a bot, its display name.
    #[serde(default)]
    #[schema(example = "Ann")]
    pub name: Option<String>,
    /// An open seat, taken later with `POST /v1/games/{id}/join`.
    #[serde(default)]
    pub open: bool,
    /// A seat played by the server.
    #[serde(default)]
    pub bot: bool,
}

impl TryFrom<SeatSpec> for SeatRecord {
    type Error = ApiError;
    fn try_from(s: SeatSpec) -> Result<Self, ApiError> {
        let name = s.name.map(check_name).transpose()?;
        let kind = match (s.open, s.bot, &name) {
            (true, true, _) => {
                return Err(ApiError::bad_request(
                    "invalid_seat",
                    "a seat is open or a bot, not both",
                ));
            }
            (true, false, Some(_)) => {
                return Err(ApiError::bad_request(
                    "invalid_seat",
                    "an open seat takes its name when joined",
                ));
            }
            (true, false, None) => SeatKind::Open,
            (false, true, _) => SeatKind::Bot,
            (false, false, Some(_)) => SeatKind::Player,
            (false, false, None) => {
                return Err(ApiError::bad_request(
                    "invalid_seat",
                    "each seat needs a `name`, or `open: true`, or `bot: true`",
                ));
            }
        };
        Ok(SeatRecord {
            name,
            kind,
            generation: 0,
        })
    }
}

fn check_name(name: String) -> Result<String, ApiError> {
    let name = name.trim().to_owned();
    if name.is_empty() || name.chars().count() > MAX_NAME || name.chars().any(char::is_control) {
        return Err(ApiError::bad_request(
            "invalid_name",
            format!("a name is 1 to {MAX_NAME} printable characters"),
        ));
    }
    Ok(name)
}

/// `POST /v1/games` request.
#[derive(Debug, Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
#[schema(example = json!({"variant": "may_i", "seats": [{"name": "Ann"}, {"name": "Bob"}, {"open": true}, {"bot": true}]}))]
pub struct CreateGameRequest {
    /// `may_i`, `contract_7`, `continental` or `push`.
    #[schema(value_type = String, example = "may_i")]
    pub variant: Variant,
    /// House-rule options (see `GET /v1/rulesets`); absent for the defaults.
    #[serde(default)]
    #[schema(value_type = Option<Object>)]
    pub options: Option<serde_json::Value>,
    /// The seats in play order.
    pub seats: Vec<SeatSpec>,
    /// Test mode only: the shuffle seed as an integer.
    #[serde(default)]
    pub seed: Option<u64>,
    /// Test mode only: the first dealer's seat, instead of the draw for dealer.
    #[serde(default)]
    pub first_dealer: Option<u8>,
    /// Test mode only: one deck per deal, each a permutation of the game's full pack, top card first.
    #[serde(default)]
    #[schema(value_type = Option<Vec<Vec<String>>>)]
    pub stacked_decks: Option<Vec<Vec<Card>>>,
}

/// A seat of a created game.
#[derive(Debug, Serialize, Deserialize, ToSchema)]
pub struct CreatedSeat {
    /// Seat index from 0.
    pub seat: u8,
    /// The name, if any.
    pub name: Option<String>,
    /// `player`, `open` or `bot`.
    pub kind: String,
    /// The seat token, for named player seats.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub token: Option<String>,
}

/// `POST /v1/games` response.
#[derive(Debug, Serialize, Deserialize, ToSchema)]
#[schema(example = json!({"id": "6f1c1f53-8a4e-4c39-9d0c-3f8f5b0e6a11", "variant": "may_i", "status": "waiting", "version": 1,
    "seats": [{"seat": 0, "name": "Ann", "kind": "player", "token": "eyJ0eXAiOiJKV1QiLCJhbGciOiJIUzI1NiJ9…"},
              {"seat": 1, "name": null, "kind": "open"}],
    "seed_commitment": "3f0a…"}))]
pub struct CreateGameResponse {
    /// The game id.
    pub id: Uuid,
    /// The variant.
    pub variant: String,
    /// `waiting` until every seat is taken, then `playing`.
    pub status: String,
    /// The game's version (its `ETag`).
    pub version: i64,
    /// Every seat, with a token for each named player.
    pub seats: Vec<CreatedSeat>,
    /// SHA-256 of the shuffle seed (hex): the seed is revealed when the game ends.
    pub seed_commitment: String,
}

/// Answers with a response as stored for an idempotency key (or about to be): same status, body and `ETag`.
fn stored_response(status: u16, body: Vec<u8>, etag: Option<String>) -> HttpResponse {
    let code = actix_web::http::StatusCode::from_u16(status)
        .unwrap_or(actix_web::http::StatusCode::INTERNAL_SERVER_ERROR);
    let mut res = HttpResponse::build(code);
    res.insert_header((
        header::CONTENT_TYPE,
        if status >= 400 {
            PROBLEM_JSON
        } else {
            "application/json"
        },
    ));
    if let Some(tag) = etag {
        res.insert_header((header::ETAG, tag));
    }
    res.body(body)
}

/// The token's seat and the seat generation it was issued for.
fn token_claims_seat(state: &AppState, req: &HttpRequest, id: Uuid) -> Result<(u8, u32), ApiError> {
    let claims = state.keys.seat_for(req, id)?;
    Ok((claims.seat, claims.generation))
}

/// What every read of a game starts with: the token's seat, checked against the stored game.
async fn load_for_seat(
    state: &AppState,
    req: &HttpRequest,
    id: Uuid,
) -> Result<(GameRow, StoredGame, u8), ApiError> {
    let (seat, generation) = token_claims_seat(state, req, id)?;
    let row = load(state, id).await?;
    let stored = StoredGame::from_json(&row.state)?;
    check_seat(&stored, seat, generation)?;
    Ok((row, stored, seat))
}

/// Creates a game.
#[utoipa::path(
    post, path = "/v1/games", tag = "games",
    params(("Idempotency-Key" = Option<String>, Header, description = "A retry with the same key and body returns the first response (the same game and tokens) and creates no second game; keys of creations are global.")),
    request_body(content = CreateGameRequest, examples(
        ("two players and an open seat" = (value = json!({"variant": "may_i", "seats": [{"name": "Ann"}, {"name": "Bob"}, {"open": true}]}))),
        ("against two bots" = (value = json!({"variant": "contract_7", "seats": [{"name": "Ann"}, {"bot": true}, {"bot": true}]}))),
        ("test mode" = (value = json!({"variant": "continental", "seats": [{"name": "Ann"}, {"name": "Bob"}], "seed": 42, "first_dealer": 0})))
    )),
    responses(
        (status = 201, description = "Created: the id, a token per named seat, the seed commitment.", body = CreateGameResponse,
            headers(("Location" = String, description = "The game's URL."), ("ETag" = String, description = "The game's version."))),
        (status = 400, description = "Malformed body, unknown variant, bad options, wrong player count (`player_count`), \
            a seat that is not a name, open or bot (`invalid_seat`), or test-mode fields outside test mode (`test_mode_only`).",
            body = Problem, content_type = "application/problem+json"),
        (status = 409, description = "A request with this Idempotency-Key is still running (`request_in_progress`).", body = Problem, content_type = "application/problem+json"),
        (status = 422, description = "The Idempotency-Key was used with another body (`idempotency_key_reused`).", body = Problem, content_type = "application/problem+json"),
        (status = 413, description = "The body is larger than the limit.", body = Problem, content_type = "application/problem+json")
    )
)]
#[post("/v1/games")]
#[tracing::instrument(skip_all)]
pub async fn create_game(
    state: web::Data<AppState>,
    request: HttpRequest,
    body: JsonBody<CreateGameRequest, CREATE_LIMIT>,
) -> Result<HttpResponse, ApiError> {
    // No game or seat yet: a creation key is global.
    let key = idempotency_key(&request, KeyScope::Creation, Uuid::nil(), -1, &body.raw)?;
    if let Some(replay) = claim(&state, key.as_ref()).await? {
        return Ok(created(replay));
    }
    let result = new_game(&state, body.value, key.as_ref()).await;
    if let Err(e) = &result {
        settle_failure(&state, key.as_ref(), e).await?;
    }
    Ok(created(result?))
}

/// A created game's response with its `Location`, also on a replay.
fn created(r: StoredResponse) -> HttpResponse {
    let location = (r.status == 201)
        .then(|| serde_json::from_slice::<CreateGameResponse>(&r.body).ok())
        .flatten()
        .map(|c| format!("/v1/games/{}", c.id));
    let mut res = stored_response(r.status, r.body, r.etag);
    if let Some(value) = location.and_then(|l| header::HeaderValue::from_str(&l).ok()) {
        res.headers_mut().insert(header::LOCATION, value);
    }
    res
}

/// Builds and stores a new game (with the response of its idempotency key, if any).
async fn new_game(
    state: &AppState,
    req: CreateGameRequest,
    key: Option<&KeyRef>,
) -> Result<StoredResponse, ApiError> {
    if !state.test_mode && (req.seed.is_some() || req.first_dealer.is_some() || req.stacked_decks.is_some()) {
        return Err(ApiError::bad_request(
            "test_mode_only",
            "seed, first_dealer and stacked_decks are accepted only when the server runs in test mode",
        ));
    }
    let ruleset =
        Ruleset::new(req.variant, req.options).map_err(|e| ApiError::bad_request(e.code(), e.to_string()))?;
    ruleset
        .check_players(req.seats.len())
        .map_err(|e| ApiError::bad_request(e.code(), e.to_string()))?;
    let mut seats = req
        .seats
        .into_iter()
        .map(SeatRecord::try_from)
        .collect::<Result<Vec<_>, _>>()?;
    for (i, s) in seats.iter_mut().enumerate() {
        if s.kind == SeatKind::Bot && s.name.is_none() {
            s.name = Some(format!("Bot {}", i + 1));
        }
    }
    let config = GameConfig {
        ruleset,
        players: seats.len(),
        first_dealer: req.first_dealer.map(Seat),
        stacked_decks: req.stacked_decks,
    };
    let seed = req.seed.map_or_else(random_seed, engine::Seed::from_u64);
    // Check the setup now, even if the deal waits for open seats: a bad stacked deck is the
    // creator's error, not the last joiner's.
    Game::new(config.clone(), seed.clone()).map_err(|e| ApiError::bad_request(e.code(), e.to_string()))?;
    let mut stored = StoredGame {
        config,
        seed,
        seats,
        game: None,
    };
    // The bots may already have played: their accepted actions count from version 1.
    let started = stored.start_if_full()?;
    let version = 1 + started.actions;
    let id = new_game_id();
    let mut created = Vec::with_capacity(stored.seats.len());
    for (i, s) in stored.seats.iter().enumerate() {
        let seat = u8::try_from(i).map_err(ApiError::unexpected)?;
        let token = match s.kind {
            SeatKind::Player => Some(state.keys.issue(id, seat, s.generation)?),
            _ => None,
        };
        created.push(CreatedSeat {
            seat,
            name: s.name.clone(),
            kind: s.kind.as_str().to_owned(),
            token,
        });
    }
    let new = NewGame {
        game: GameRow {
            id,
            variant: stored.config.ruleset.variant().id().to_owned(),
            status: stored.status().to_owned(),
            state: stored.to_json()?,
            version,
            seed: stored.seed.to_hex(),
            seed_commitment: stored.seed_commitment(),
        },
        seats: seat_rows(&stored),
        events: engine_events(&started.events)?,
    };
    let response = StoredResponse {
        status: 201,
        etag: Some(etag(version)),
        body: serde_json::to_vec(&CreateGameResponse {
            id,
            variant: new.game.variant.clone(),
            status: new.game.status.clone(),
            version,
            seats: created,
            seed_commitment: new.game.seed_commitment.clone(),
        })?,
    };
    state.db.create_game(&new, key.map(|k| (k, &response))).await?;
    state.metrics.game_created();
    tracing::info!(game = %id, variant = %new.game.variant, "game created");
    Ok(response)
}

fn seat_rows(stored: &StoredGame) -> Vec<SeatRow> {
    stored
        .seats
        .iter()
        .enumerate()
        .map(|(i, s)| SeatRow {
            seat: i as i64,
            name: s.name.clone(),
            kind: s.kind.as_str().to_owned(),
        })
        .collect()
}

fn engine_events(events: &[engine::Event]) -> Result<Vec<NewEvent>, ApiError> {
    events
        .iter()
        .map(|e| {
            Ok(NewEvent {
                seat: event_seat(e).map(|s| i64::from(s.0)),
                body: serde_json::to_string(e)?,
            })
        })
        .collect()
}

/// The seat an event is about, for the events table's `seat` column.
fn event_seat(e: &engine::Event) -> Option<Seat> {
    let v = serde_json::to_value(e).ok()?;
    let seat = v.get("seat").or_else(|| v.get("from"))?.as_u64()?;
    u8::try_from(seat).ok().map(Seat)
}

/// `POST /v1/games/{id}/join` request.
#[derive(Debug, Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
#[schema(example = json!({"name": "Cleo"}))]
pub struct JoinRequest {
    /// The name to sit under.
    pub name: String,
}

/// `POST /v1/games/{id}/join` response.
#[derive(Debug, Serialize, Deserialize, ToSchema)]
#[schema(example = json!({"id": "6f1c1f53-8a4e-4c39-9d0c-3f8f5b0e6a11", "seat": 2, "name": "Cleo",
    "token": "eyJ0eXAiOiJKV1QiLCJhbGciOiJIUzI1NiJ9…", "status": "playing", "version": 3}))]
pub struct JoinResponse {
    /// The game.
    pub id: Uuid,
    /// The seat taken.
    pub seat: u8,
    /// The name.
    pub name: String,
    /// The seat token.
    pub token: String,
    /// `waiting`, or `playing` when this was the last open seat.
    pub status: String,
    /// The game's version after joining.
    pub version: i64,
}

/// Takes an open seat.
#[utoipa::path(
    post, path = "/v1/games/{id}/join", tag = "games",
    params(("id" = Uuid, Path, description = "Game id."),
        ("If-Match" = Option<String>, Header, description = "Act only if the game is at this version (its ETag)."),
        ("Idempotency-Key" = Option<String>, Header, description = "A retry with the same key and body returns the first response (the same seat and token) and takes no second seat; keys of joins are per game.")),
    request_body(content = JoinRequest, example = json!({"name": "Cleo"})),
    responses(
        (status = 200, description = "The seat and its token; the game deals when every seat is taken.", body = JoinResponse,
            headers(("ETag" = String, description = "The game's version."))),
        (status = 400, description = "Malformed body or name (`invalid_name`).", body = Problem, content_type = "application/problem+json"),
        (status = 404, description = "No such game (`game_not_found`).", body = Problem, content_type = "application/problem+json"),
        (status = 409, description = "Every seat is taken (`no_open_seat`), or a request with this Idempotency-Key is still running (`request_in_progress`).", body = Problem, content_type = "application/problem+json"),
        (status = 412, description = "`If-Match` names an old version (`stale_version`).", body = Problem, content_type = "application/problem+json"),
        (status = 413, description = "The body is larger than the limit.", body = Problem, content_type = "application/problem+json"),
        (status = 422, description = "The Idempotency-Key was used with another body (`idempotency_key_reused`).", body = Problem, content_type = "application/problem+json")
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
    let key = idempotency_key(&req, KeyScope::Game, id, -1, &body.raw)?;
    if let Some(r) = claim(&state, key.as_ref()).await? {
        return Ok(stored_response(r.status, r.body, r.etag));
    }
    let result = join(&state, &req, id, body.value, key.as_ref()).await;
    if let Err(e) = &result {
        settle_failure(&state, key.as_ref(), e).await?;
    }
    let r = result?;
    Ok(stored_response(r.status, r.body, r.etag))
}

/// Takes the first open seat in one transaction, with the response of its idempotency key.
async fn join(
    state: &AppState,
    req: &HttpRequest,
    id: Uuid,
    body: JoinRequest,
    key: Option<&KeyRef>,
) -> Result<StoredResponse, ApiError> {
    let name = check_name(body.name)?;
    let if_match = if_match(req)?;
    state
        .db
        .transact(id, key, |row| {
            check_version(if_match.as_deref(), row.version)?;
            let mut stored = StoredGame::from_json(&row.state)?;
            let seat = stored.join(name.clone())?;
            let generation = stored.seats.get(usize::from(seat)).map_or(0, |s| s.generation);
            let mut events = vec![NewEvent {
                seat: Some(i64::from(seat)),
                body: serde_json::json!({"type": "seat_joined", "seat": seat, "name": name}).to_string(),
            }];
            let started = stored.start_if_full()?;
            events.extend(engine_events(&started.events)?);
            // The join, then every bot action the deal set off.
            let version = row.version + 1 + started.actions;
            let status = stored.status().to_owned();
            let response = StoredResponse {
                status: 200,
                etag: Some(etag(version)),
                body: serde_json::to_vec(&JoinResponse {
                    id,
                    seat,
                    name: name.clone(),
                    token: state.keys.issue(id, seat, generation)?,
                    status: status.clone(),
                    version,
                })?,
            };
            Ok(Outcome {
                update: Some(GameUpdate {
                    version,
                    status,
                    state: stored.to_json()?,
                    seats: seat_rows(&stored)
                        .into_iter()
                        .filter(|s| s.seat == i64::from(seat))
                        .collect(),
                    events,
                    response: key.is_some().then(|| response.clone()),
                }),
                value: response,
            })
        })
        .await
}

/// The game as the token's seat may see it.
#[utoipa::path(
    get, path = "/v1/games/{id}", tag = "games",
    params(("id" = Uuid, Path, description = "Game id."),
        ("If-None-Match" = Option<String>, Header, description = "Answer 304 if the game is still at this version.")),
    security(("seat_token" = [])),
    responses(
        (status = 200, description = "The game as this seat sees it: own hand, other hands as counts.", body = GameView,
            headers(("ETag" = String, description = "The game's version."))),
        (status = 304, description = "Not modified since the version in `If-None-Match`."),
        (status = 401, description = "Missing, expired or tampered seat token (`unauthorized`).", body = Problem, content_type = "application/problem+json"),
        (status = 403, description = "A token of another game (`forbidden`).", body = Problem, content_type = "application/problem+json"),
        (status = 404, description = "No such game (`game_not_found`).", body = Problem, content_type = "application/problem+json")
    )
)]
#[get("/v1/games/{id}")]
pub async fn get_game(
    state: web::Data<AppState>,
    req: HttpRequest,
    id: web::Path<Uuid>,
) -> Result<HttpResponse, ApiError> {
    let id = id.into_inner();
    let (row, stored, seat) = load_for_seat(&state, &req, id).await?;
    let tag = etag(row.version);
    let unchanged = req
        .headers()
        .get(header::IF_NONE_MATCH)
        .and_then(|v| v.to_str().ok())
        .is_some_and(|v| v.split(',').any(|t| t.trim() == tag));
    if unchanged {
        return Ok(HttpResponse::NotModified()
            .insert_header((header::ETAG, tag))
            .finish());
    }
    Ok(HttpResponse::Ok()
        .insert_header((header::ETAG, tag))
        .json(GameView::of(id, row.version, &stored, seat)))
}

async fn load(state: &AppState, id: Uuid) -> Result<GameRow, ApiError> {
    state
        .db
        .game(id)
        .await?
        .ok_or_else(|| ApiError::not_found("game_not_found", format!("no game {id}")))
}

fn check_seat(stored: &StoredGame, seat: u8, generation: u32) -> Result<(), ApiError> {
    match stored.seats.get(usize::from(seat)) {
        Some(s) if s.kind == SeatKind::Player && s.generation == generation => Ok(()),
        _ => Err(ApiError::Forbidden(
            "this token's seat is not a player's seat of this game".into(),
        )),
    }
}

/// The `If-Match` header, if sent.
fn if_match(req: &HttpRequest) -> Result<Option<String>, ApiError> {
    req.headers()
        .get(header::IF_MATCH)
        .map(|v| {
            v.to_str()
                .map(str::to_owned)
                .map_err(|_| ApiError::bad_request("invalid_if_match", "If-Match must be an ETag like \"7\""))
        })
        .transpose()
}

/// 412 unless `if_match` (when given) names `version`.
fn check_version(if_match: Option<&str>, version: i64) -> Result<(), ApiError> {
    let Some(value) = if_match else { return Ok(()) };
    let current = etag(version);
    let matches = value.split(',').map(str::trim).any(|t| {
        t == "*" || t == current || t.trim_start_matches("W/") == current || t == version.to_string()
    });
    if matches {
        Ok(())
    } else {
        Err(ApiError::StaleVersion {
            expected: value.to_owned(),
            current: version,
        })
    }
}

/// The request's idempotency key, bound to its scope (the game and seat, or none for a new
/// game) and a hash of the request.
fn idempotency_key(
    req: &HttpRequest,
    scope: KeyScope,
    game: Uuid,
    seat: i64,
    body: &[u8],
) -> Result<Option<KeyRef>, ApiError> {
    let Some(value) = req.headers().get("idempotency-key") else {
        return Ok(None);
    };
    let key = value
        .to_str()
        .ok()
        .map(str::trim)
        .filter(|k| !k.is_empty() && k.len() <= MAX_KEY)
        .ok_or_else(|| {
            ApiError::bad_request(
                "invalid_idempotency_key",
                format!("Idempotency-Key must be 1 to {MAX_KEY} visible characters"),
            )
        })?;
    let mut hasher = Sha256::new();
    hasher.update(req.method().as_str().as_bytes());
    hasher.update(b"\n");
    hasher.update(req.path().as_bytes());
    hasher.update(b"\n");
    hasher.update(body);
    Ok(Some(KeyRef {
        scope,
        game,
        seat,
        key: key.to_owned(),
        request_hash: hex(&hasher.finalize()),
    }))
}

/// Claims `key` for a request: `None` to go on and act, `Some` to answer at once with the
/// first response (a retry); a 409 while the first still runs, a 422 for another body.
async fn claim(state: &AppState, key: Option<&KeyRef>) -> Result<Option<StoredResponse>, ApiError> {
    let Some(k) = key else { return Ok(None) };
    match state.db.claim_key(k).await? {
        KeyClaim::Fresh => Ok(None),
        KeyClaim::Replay(r) => Ok(Some(r)),
        KeyClaim::Running => Err(ApiError::conflict(
            "request_in_progress",
            "a request with this Idempotency-Key is still running: retry later",
        )),
        KeyClaim::Mismatch => Err(ApiError::unprocessable(
            "idempotency_key_reused",
            "this Idempotency-Key was used with another request",
        )),
    }
}

/// After a keyed request failed: keep its problem as the key's response, or free the key
/// after an unexpected error (nothing was written) so that a retry runs again.
async fn settle_failure(state: &AppState, key: Option<&KeyRef>, e: &ApiError) -> Result<(), ApiError> {
    let Some(k) = key else { return Ok(()) };
    if matches!(e, ApiError::Unexpected(_)) {
        return state.db.release_key(k).await;
    }
    let body = serde_json::to_vec(&e.problem())?;
    let status = actix_web::ResponseError::status_code(e).as_u16();
    state
        .db
        .finish_key(
            k,
            &StoredResponse {
                status,
                etag: None,
                body,
            },
        )
        .await
}

/// One move: token, idempotency key, one transaction, the seat's new view.
#[tracing::instrument(name = "move", skip_all, fields(game = %id, seat, action, version))]
async fn perform(
    state: &AppState,
    req: &HttpRequest,
    id: Uuid,
    raw: &Bytes,
    action: impl FnOnce(u8) -> Result<Action, ApiError>,
) -> Result<HttpResponse, ApiError> {
    let (seat, generation) = token_claims_seat(state, req, id)?;
    tracing::Span::current().record("seat", seat);
    let if_match = if_match(req)?;
    let key = idempotency_key(req, KeyScope::Game, id, i64::from(seat), raw)?;
    if let Some(r) = claim(state, key.as_ref()).await? {
        return Ok(stored_response(r.status, r.body, r.etag));
    }
    let keep = key.is_some();
    let result = state
        .db
        .transact(id, key.as_ref(), |row| {
            check_version(if_match.as_deref(), row.version)?;
            let mut stored = StoredGame::from_json(&row.state)?;
            check_seat(&stored, seat, generation)?;
            let action = action(seat)?;
            tracing::Span::current().record("action", action.kind());
            // Leaving before the deal gives the seat up: it opens again for someone else.
            let leaves_early = stored.game.is_none() && matches!(action, Action::Leave);
            let applied = if leaves_early {
                stored.vacate(seat)?;
                crate::play::Applied {
                    events: Vec::new(),
                    actions: 1,
                }
            } else {
                stored.apply(Seat(seat), action)?
            };
            // One per accepted action: this one and each bot move it set off.
            let version = row.version + applied.actions;
            tracing::Span::current().record("version", version);
            let body = serde_json::to_vec(&GameView::of(id, version, &stored, seat))?;
            let response = StoredResponse {
                status: 200,
                etag: Some(etag(version)),
                body,
            };
            Ok(Outcome {
                update: Some(GameUpdate {
                    version,
                    status: stored.status().to_owned(),
                    state: stored.to_json()?,
                    seats: if leaves_early {
                        seat_rows(&stored)
                            .into_iter()
                            .filter(|s| s.seat == i64::from(seat))
                            .collect()
                    } else {
                        Vec::new()
                    },
                    events: if leaves_early {
                        vec![NewEvent {
                            seat: Some(i64::from(seat)),
                            body: serde_json::json!({"type": "seat_vacated", "seat": seat}).to_string(),
                        }]
                    } else {
                        engine_events(&applied.events)?
                    },
                    response: keep.then(|| response.clone()),
                }),
                value: response,
            })
        })
        .await;
    match result {
        Ok(r) => {
            state.metrics.action(true);
            tracing::info!("move applied");
            Ok(stored_response(r.status, r.body, r.etag))
        }
        Err(e) => {
            state.metrics.action(false);
            tracing::info!(code = e.code(), "move refused");
            settle_failure(state, key.as_ref(), &e).await?;
            Err(e)
        }
    }
}

/// `POST /v1/games/{id}/draw` request.
#[derive(Debug, Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
#[schema(example = json!({"source": "stock"}))]
pub struct DrawRequest {
    /// `stock` or `discard`.
    #[schema(value_type = String, example = "stock")]
    pub source: DrawSource,
}

/// An empty body (`{}` or nothing).
#[derive(Debug, Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct EmptyRequest {}

/// `POST /v1/games/{id}/take_back` request: no `play` takes back the whole turn's table plays.
#[derive(Debug, Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
#[schema(example = json!({"play": 1}))]
pub struct TakeBackRequest {
    /// Take back only this play of the turn (its `play` in `you.plays`); going down comes back
    /// whole, with every later play that needed it.
    #[serde(default)]
    pub play: Option<u32>,
}

/// `POST /v1/games/{id}/melds` request.
#[derive(Debug, Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
#[schema(example = json!({"melds": [{"cards": ["7H", "7S", "7D"]}, {"cards": ["QC", "QD", "JK"], "kind": "set"}]}))]
pub struct MeldsRequest {
    /// The melds, laid at once.
    pub melds: Vec<MeldRequest>,
}

/// `POST /v1/games/{id}/layoffs` request.
#[derive(Debug, Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
#[schema(example = json!({"meld_id": 2, "cards": ["8H"]}))]
pub struct LayoffRequest {
    /// The table meld's id.
    pub meld_id: u32,
    /// The cards to add.
    #[schema(value_type = Vec<String>)]
    pub cards: Vec<Card>,
    /// What added wilds represent, when more than one place fits.
    #[serde(default)]
    pub wilds: Vec<DesignationRequest>,
}

/// `POST /v1/games/{id}/swaps` request: replace a wild (`meld_id`, `card`), or in `contract_7`
/// move a joker from the end of one of your runs to another run (`from_meld`, `end`, `to_meld`).
#[derive(Debug, Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
#[schema(example = json!({"meld_id": 1, "card": "7H"}))]
pub struct SwapRequest {
    /// The meld holding the wild.
    #[serde(default)]
    pub meld_id: Option<u32>,
    /// The natural card from hand that replaces it.
    #[serde(default)]
    #[schema(value_type = Option<String>)]
    pub card: Option<Card>,
    /// `contract_7`: `low` or `high`, the end the joker moves to (or, with `from_meld`, the end it leaves).
    #[serde(default)]
    #[schema(value_type = Option<String>)]
    pub end: Option<RunEnd>,
    /// `contract_7` joker move: the run the joker leaves.
    #[serde(default)]
    pub from_meld: Option<u32>,
    /// `contract_7` joker move: the run it goes to.
    #[serde(default)]
    pub to_meld: Option<u32>,
    /// `contract_7` joker move: the end of `to_meld` it goes to.
    #[serde(default)]
    #[schema(value_type = Option<String>)]
    pub to_end: Option<RunEnd>,
}

impl TryFrom<SwapRequest> for Action {
    type Error = ApiError;
    fn try_from(s: SwapRequest) -> Result<Action, ApiError> {
        match s {
            SwapRequest {
                meld_id: Some(meld_id),
                card: Some(card),
                end,
                from_meld: None,
                to_meld: None,
                to_end: None,
            } => Ok(Action::Swap { meld_id, card, end }),
            SwapRequest {
                meld_id: None,
                card: None,
                end: Some(end),
                from_meld: Some(from_meld),
                to_meld: Some(to_meld),
                to_end,
            } => Ok(Action::MoveJoker {
                from_meld,
                end,
                to_meld,
                to_end,
            }),
            _ => Err(ApiError::bad_request(
                "invalid_swap",
                "a swap is {meld_id, card, end?}; a joker move is {from_meld, end, to_meld, to_end?}",
            )),
        }
    }
}

/// `POST /v1/games/{id}/discard` request.
#[derive(Debug, Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
#[schema(example = json!({"card": "7H"}))]
pub struct DiscardRequest {
    /// The card to discard.
    #[schema(value_type = String, example = "7H")]
    pub card: Card,
}

/// Documents one move endpoint: its path, summary, body and every answer.
macro_rules! move_endpoint {
    ($(#[$doc:meta])* $fn:ident, $path:literal, $body:ty, $example:expr, |$v:ident| $make:expr) => {
        $(#[$doc])*
        #[utoipa::path(
            post, path = $path, tag = "games",
            params(("id" = Uuid, Path, description = "Game id."),
                ("If-Match" = Option<String>, Header, description = "Act only if the game is at this version (its ETag); else 412."),
                ("Idempotency-Key" = Option<String>, Header, description = "A retry with the same key and body returns the first response.")),
            security(("seat_token" = [])),
            request_body(content = $body, example = $example),
            responses(
                (status = 200, description = "Accepted: the seat's new view of the game.", body = GameView,
                    headers(("ETag" = String, description = "The game's new version."))),
                (status = 400, description = "Malformed body, unknown card (`unknown_card`), unknown field.", body = Problem, content_type = "application/problem+json"),
                (status = 401, description = "Missing, expired or tampered seat token (`unauthorized`).", body = Problem, content_type = "application/problem+json"),
                (status = 403, description = "A token of another game, or of a seat that is not a player's (`forbidden`).", body = Problem, content_type = "application/problem+json"),
                (status = 404, description = "No such game (`game_not_found`).", body = Problem, content_type = "application/problem+json"),
                (status = 409, description = "Not now: `not_your_turn`, `wrong_phase`, `game_over`, `seat_left`, `game_not_started`, \
                    or a request with this Idempotency-Key still running (`request_in_progress`).", body = Problem, content_type = "application/problem+json",
                    example = json!({"type": "urn:continental:problem:not_your_turn", "title": "Conflict", "status": 409, "detail": "it is not your turn", "code": "not_your_turn"})),
                (status = 412, description = "`If-Match` names an old version (`stale_version`); nothing changed.", body = Problem, content_type = "application/problem+json"),
                (status = 413, description = "The body is larger than the limit.", body = Problem, content_type = "application/problem+json"),
                (status = 422, description = "The rules refuse the move (`card_not_in_hand`, `illegal_meld`, `contract_not_met`, `ambiguous_meld`, ...); \
                    an `ambiguous_meld` lists the `readings` to choose from, an `illegal_meld` or `contract_not_met` its `reasons`; \
                    or the Idempotency-Key was used with another body (`idempotency_key_reused`).", body = Problem, content_type = "application/problem+json",
                    example = json!({"type": "urn:continental:problem:card_not_in_hand", "title": "Unprocessable Entity", "status": 422, "detail": "not in your hand: 7H", "code": "card_not_in_hand"}))
            )
        )]
        #[post($path)]
        pub async fn $fn(
            state: web::Data<AppState>,
            req: HttpRequest,
            id: web::Path<Uuid>,
            body: JsonBody<$body>,
        ) -> Result<HttpResponse, ApiError> {
            let JsonBody { value: $v, raw } = body;
            perform(&state, &req, id.into_inner(), &raw, move |_seat| $make).await
        }
    };
}

move_endpoint!(
    /// Draws a card from the stock or the discard pile.
    draw_card, "/v1/games/{id}/draw", DrawRequest, json!({"source": "stock"}),
    |b| Ok(Action::Draw { source: b.source })
);
move_endpoint!(
    /// Asks "May I?" for the top discard, out of turn.
    claim_discard, "/v1/games/{id}/claims", EmptyRequest, json!({}),
    |_b| Ok(Action::Claim)
);
move_endpoint!(
    /// Lays new melds: going down with the contract, later melds where allowed, or going out.
    lay_melds, "/v1/games/{id}/melds", MeldsRequest, json!({"melds": [{"cards": ["7H", "7S", "7D"]}, {"cards": ["QC", "QD", "JK"]}]}),
    |b| Ok(Action::Meld { melds: b.melds.into_iter().map(Into::into).collect() })
);
move_endpoint!(
    /// Lays cards off onto a meld on the table.
    lay_off, "/v1/games/{id}/layoffs", LayoffRequest, json!({"meld_id": 2, "cards": ["8H"]}),
    |b| Ok(Action::LayOff {
        meld_id: b.meld_id,
        cards: b.cards,
        wilds: b.wilds.into_iter().map(|d| engine::Designation { card: d.card, represents: d.represents }).collect(),
    })
);
move_endpoint!(
    /// Replaces a wild with the natural card it represents; in `contract_7`, moves a joker.
    swap_wild, "/v1/games/{id}/swaps", SwapRequest, json!({"meld_id": 1, "card": "7H"}),
    |b| Action::try_from(b)
);
move_endpoint!(
    /// `may_i`: takes back this turn's plays to the table, or one of them (`{"play": n}`).
    take_back_plays, "/v1/games/{id}/take_back", TakeBackRequest, json!({"play": 1}),
    |b| Ok(b.play.map_or(Action::TakeBack, |play| Action::TakeBackPlay { play }))
);
move_endpoint!(
    /// Discards a card, ending the turn.
    discard_card, "/v1/games/{id}/discard", DiscardRequest, json!({"card": "7H"}),
    |b| Ok(Action::Discard { card: b.card })
);
move_endpoint!(
    /// Leaves the game for good (scored as RULES.md says).
    ///
    /// Before the deal it gives the seat up instead: the seat is open again for someone to
    /// join, and this seat token stops working.
    leave_game, "/v1/games/{id}/leave", EmptyRequest, json!({}),
    |_b| Ok(Action::Leave)
);

/// `?after=N&limit=M`.
#[derive(Debug, Deserialize, IntoParams)]
#[into_params(parameter_in = Query)]
#[serde(deny_unknown_fields)]
pub struct EventsQuery {
    /// Events with a sequence number greater than this (default 0: from the start).
    #[serde(default)]
    pub after: i64,
    /// At most this many (default and maximum 1000).
    #[serde(default)]
    pub limit: Option<i64>,
}

/// One event as this seat may see it.
#[derive(Debug, Serialize, Deserialize, ToSchema)]
pub struct EventDto {
    /// Sequence number from 1.
    pub seq: i64,
    /// The event: `type` and its fields. Another seat's cards from the stock are `null`.
    #[schema(value_type = Object, example = json!({"type": "drew", "seat": 1, "source": "stock", "card": null}))]
    pub event: serde_json::Value,
}

/// `GET /v1/games/{id}/events` response.
#[derive(Debug, Serialize, Deserialize, ToSchema)]
#[schema(example = json!({"events": [
    {"seq": 5, "event": {"type": "drew", "seat": 0, "source": "stock", "card": "7H"}},
    {"seq": 6, "event": {"type": "discarded", "seat": 0, "card": "KD"}}], "last_seq": 6}))]
pub struct EventsResponse {
    /// The events, oldest first.
    pub events: Vec<EventDto>,
    /// The last sequence number returned (or `after` when none): pass it as `after` next time.
    pub last_seq: i64,
}

/// An event as `seat` may see it: the engine's redaction for engine events; the service's own
/// events (`seat_joined`) are public.
fn redact(body: &str, seat: u8) -> Result<serde_json::Value, ApiError> {
    match serde_json::from_str::<engine::Event>(body) {
        Ok(e) => Ok(serde_json::to_value(e.redacted_for(Viewer::Seat(Seat(seat))))?),
        Err(_) => Ok(serde_json::from_str(body)?),
    }
}

async fn events_for(
    state: &AppState,
    id: Uuid,
    seat: u8,
    after: i64,
    limit: i64,
) -> Result<Vec<EventDto>, ApiError> {
    state
        .db
        .events_after(id, after, limit)
        .await?
        .iter()
        .map(|e| {
            Ok(EventDto {
                seq: e.seq,
                event: redact(&e.body, seat)?,
            })
        })
        .collect()
}

/// The game's events after a sequence number, as this seat may see them.
#[utoipa::path(
    get, path = "/v1/games/{id}/events", tag = "games",
    params(("id" = Uuid, Path, description = "Game id."), EventsQuery),
    security(("seat_token" = [])),
    responses(
        (status = 200, description = "The events, redacted for this seat.", body = EventsResponse),
        (status = 400, description = "A bad query string (`invalid_query`).", body = Problem, content_type = "application/problem+json"),
        (status = 401, description = "Missing, expired or tampered seat token.", body = Problem, content_type = "application/problem+json"),
        (status = 403, description = "A token of another game.", body = Problem, content_type = "application/problem+json"),
        (status = 404, description = "No such game.", body = Problem, content_type = "application/problem+json")
    )
)]
#[get("/v1/games/{id}/events")]
pub async fn list_events(
    state: web::Data<AppState>,
    req: HttpRequest,
    id: web::Path<Uuid>,
    query: web::Query<EventsQuery>,
) -> Result<HttpResponse, ApiError> {
    let id = id.into_inner();
    let (_, _, seat) = load_for_seat(&state, &req, id).await?;
    let limit = query.limit.unwrap_or(1000).clamp(1, 1000);
    let events = events_for(&state, id, seat, query.after.max(0), limit).await?;
    let last_seq = events.last().map_or(query.after.max(0), |e| e.seq);
    Ok(HttpResponse::Ok().json(EventsResponse { events, last_seq }))
}

/// The same events live, as server-sent events (`id` is the sequence number; `Last-Event-ID`
/// or `?after=` resumes). The stream ends once the game is over and every event is sent.
#[utoipa::path(
    get, path = "/v1/games/{id}/stream", tag = "games",
    params(("id" = Uuid, Path, description = "Game id."), EventsQuery,
        ("Last-Event-ID" = Option<String>, Header, description = "Resume after this sequence number.")),
    security(("seat_token" = [])),
    responses(
        (status = 200, description = "A `text/event-stream` of events redacted for this seat: `id: seq`, `event: type`, `data: JSON`.",
            body = String, content_type = "text/event-stream",
            example = "id: 7\nevent: discarded\ndata: {\"type\":\"discarded\",\"seat\":0,\"card\":\"7H\"}\n\n"),
        (status = 400, description = "A bad query string (`invalid_query`).", body = Problem, content_type = "application/problem+json"),
        (status = 401, description = "Missing, expired or tampered seat token.", body = Problem, content_type = "application/problem+json"),
        (status = 403, description = "A token of another game.", body = Problem, content_type = "application/problem+json"),
        (status = 404, description = "No such game.", body = Problem, content_type = "application/problem+json")
    )
)]
#[get("/v1/games/{id}/stream")]
pub async fn stream_events(
    state: web::Data<AppState>,
    req: HttpRequest,
    id: web::Path<Uuid>,
    query: web::Query<EventsQuery>,
) -> Result<HttpResponse, ApiError> {
    let id = id.into_inner();
    let (_, _, seat) = load_for_seat(&state, &req, id).await?;
    let resume = req
        .headers()
        .get("last-event-id")
        .and_then(|v| v.to_str().ok())
        .and_then(|v| v.trim().parse::<i64>().ok());
    let after = resume.unwrap_or(query.after).max(0);
    let body = futures_util::stream::unfold(
        (state, after, false, 0u32),
        move |(state, after, done, idle)| async move {
            if done {
                return None;
            }
            let mut idle = idle;
            loop {
                let chunk = match events_for(&state, id, seat, after, 100).await {
                    Err(e) => {
                        tracing::warn!(game = %id, error = %e, "event stream stopped");
                        return None;
                    }
                    Ok(events) if !events.is_empty() => {
                        let last = events.last().map_or(after, |e| e.seq);
                        let mut text = String::new();
                        for e in &events {
                            let kind = e.event.get("type").and_then(|t| t.as_str()).unwrap_or("event");
                            text.push_str(&format!("id: {}\nevent: {kind}\ndata: {}\n\n", e.seq, e.event));
                        }
                        Some((text, last))
                    }
                    Ok(_) => None,
                };
                if let Some((text, last)) = chunk {
                    return Some((
                        Ok::<_, actix_web::Error>(Bytes::from(text)),
                        (state, last, false, 0),
                    ));
                }
                // Nothing new: the stream ends once the game is over, else waits and polls again.
                let over = match state.db.game(id).await {
                    Ok(Some(row)) => matches!(row.status.as_str(), "finished" | "void"),
                    _ => true,
                };
                if over {
                    return None;
                }
                idle += 1;
                if idle % 50 == 0 {
                    return Some((
                        Ok(Bytes::from_static(b": keep-alive\n\n")),
                        (state, after, false, idle),
                    ));
                }
                tokio::time::sleep(Duration::from_millis(300)).await;
            }
        },
    );
    Ok(HttpResponse::Ok()
        .insert_header((header::CONTENT_TYPE, "text/event-stream"))
        .insert_header((header::CACHE_CONTROL, "no-cache"))
        .streaming(body))
}

/// A card that can be laid off.
#[derive(Debug, Serialize, Deserialize, ToSchema)]
pub struct LayoffHint {
    /// The table meld.
    pub meld_id: u32,
    /// The card from hand.
    pub card: String,
    /// The meld as it would lie.
    pub reading: ReadingView,
}

/// `GET /v1/games/{id}/hints` response.
#[derive(Debug, Serialize, Deserialize, ToSchema)]
#[schema(example = json!({"contract": [
    {"kind": "set", "rank": "7", "cards": ["7H", "7S", "7D"], "slots": [
        {"card": "7H", "represents": "7", "natural": true}, {"card": "7S", "represents": "7", "natural": true},
        {"card": "7D", "represents": "7", "natural": true}]},
    {"kind": "set", "rank": "Q", "cards": ["QC", "QD", "JK"], "slots": [
        {"card": "QC", "represents": "Q", "natural": true}, {"card": "QD", "represents": "Q", "natural": true},
        {"card": "JK", "represents": "Q", "natural": false}]}],
    "layoffs": []}))]
pub struct HintsResponse {
    /// Melds from this hand that meet the deal's contract (in `continental`: go out), if any.
    /// Each can be sent as is to `POST /melds` with its `kind` and wilds pinned.
    pub contract: Option<Vec<ReadingView>>,
    /// `continental`: the card to discard after going out from 16 cards.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub discard: Option<String>,
    /// Single cards that can be laid off, and where.
    pub layoffs: Vec<LayoffHint>,
}

/// Suggestions for this seat now, from the engine's search.
#[utoipa::path(
    get, path = "/v1/games/{id}/hints", tag = "games",
    params(("id" = Uuid, Path, description = "Game id.")),
    security(("seat_token" = [])),
    responses(
        (status = 200, description = "A way to meet the contract (or go out), and lay-offs.", body = HintsResponse),
        (status = 401, description = "Missing, expired or tampered seat token.", body = Problem, content_type = "application/problem+json"),
        (status = 403, description = "A token of another game.", body = Problem, content_type = "application/problem+json"),
        (status = 404, description = "No such game.", body = Problem, content_type = "application/problem+json"),
        (status = 409, description = "The game has not started (`game_not_started`).", body = Problem, content_type = "application/problem+json")
    )
)]
#[get("/v1/games/{id}/hints")]
pub async fn get_hints(
    state: web::Data<AppState>,
    req: HttpRequest,
    id: web::Path<Uuid>,
) -> Result<HttpResponse, ApiError> {
    let id = id.into_inner();
    let (_, stored, seat) = load_for_seat(&state, &req, id).await?;
    let game = stored
        .game
        .as_ref()
        .ok_or_else(|| ApiError::conflict("game_not_started", "the game starts when every seat is taken"))?;
    let rules = game.rules();
    let hand = game.hand(Seat(seat));
    let (contract, discard) = if game.is_down(Seat(seat)) {
        (None, None)
    } else if rules.variant() == Variant::Continental {
        engine::find_go_out(rules, hand).map_or((None, None), |g| {
            (
                Some(g.melds.iter().map(ReadingView::from).collect()),
                g.discard.map(|c| c.to_string()),
            )
        })
    } else {
        (
            engine::find_contract(rules, game.deal(), hand)
                .map(|m| m.iter().map(ReadingView::from).collect()),
            None,
        )
    };
    // contract_7 (RULES.md §3): a player may not meld or lay off their last card; a lay-off
    // hint is one card, so none is legal with one card in hand.
    let keeps_last_card = rules.variant() == Variant::Contract7;
    let contract = contract.filter(|melds: &Vec<ReadingView>| {
        !keeps_last_card || melds.iter().map(|m| m.cards.len()).sum::<usize>() < hand.len()
    });
    let layoffs = if game.is_down(Seat(seat)) && !(keeps_last_card && hand.len() <= 1) {
        let table: Vec<engine::Reading> = game.table().iter().map(|m| m.reading.clone()).collect();
        engine::find_layoffs(rules, hand, &table)
            .iter()
            .filter_map(|l| {
                Some(LayoffHint {
                    meld_id: game.table().get(l.meld)?.id,
                    card: l.card.to_string(),
                    reading: ReadingView::from(&l.reading),
                })
            })
            .collect()
    } else {
        Vec::new()
    };
    Ok(HttpResponse::Ok().json(HintsResponse {
        contract,
        discard,
        layoffs,
    }))
}
