//! The HTTP edge: handlers of a few lines each (check the seat token, parse the body into
//! engine and table types, call the service, answer), the body extractor and the idempotency
//! protocol.

pub mod autopilot;
pub(crate) mod edge;
pub mod events;
pub mod extract;
pub mod games;
pub mod hands;
pub mod health;
pub mod hints;
pub mod idempotency;
pub mod matchmaking;
pub mod moves;
pub mod page;
pub mod players;
pub mod rate_limit;
pub mod rules;
pub(crate) mod seen;
pub mod studio;
pub mod tournaments;

use std::sync::LazyLock;

use actix_web::http::header;
use actix_web::web::ServiceConfig;
use actix_web::{HttpRequest, HttpResponse};

use uuid::Uuid;

use crate::auth::{Claims, Reader};
use crate::domain::HostedGame;
use crate::error::ApiError;
use crate::service;
use crate::state::AppState;
use crate::store::GameRow;
use crate::wire::{Code, IfMatch, Invalid};

/// Lists each endpoint once: the list registers it with actix ([`configure`]) and documents
/// it in OpenAPI ([`document`]), so neither can miss one. The moves list themselves in
/// [`moves`] and are registered where `moves` stands: actix tries routes in order, so the
/// busiest paths come first, the fixed ones (a string comparison each) before the moves, the
/// moves before the other paths with an `{id}`.
macro_rules! endpoints {
    ($($module:ident::$handler:ident),* ; moves ; $($later:ident::$later_handler:ident),* $(,)?) => {
        /// Registers every endpoint of the API.
        pub fn configure(cfg: &mut ServiceConfig) {
            $(cfg.service($module::$handler);)*
            moves::configure(cfg);
            $(cfg.service($later::$later_handler);)*
        }

        /// The `#[utoipa::path]` document of every endpoint but the moves.
        #[derive(utoipa::OpenApi)]
        #[openapi(paths($($module::$handler,)* $($later::$later_handler),*))]
        struct Endpoints;

        /// The `#[utoipa::path]` document of every endpoint.
        pub fn document() -> utoipa::openapi::OpenApi {
            use utoipa::OpenApi;
            let mut doc = Endpoints::openapi();
            doc.merge(moves::Endpoints::openapi());
            doc
        }
    };
}

endpoints!(
    health::healthz,
    health::readyz,
    health::metrics,
    rules::validate_meld,
    rules::validate_contract,
    rules::validate_meld_batch,
    rules::validate_contract_batch,
    hands::arrange_hand,
    rules::rulesets,
    games::create_game,
    studio::list_games,
    players::leaderboard,
    players::board_token,
    players::bots,
    matchmaking::create_ticket,
    tournaments::create_tournament,
    tournaments::list_tournaments;
    moves;
    studio::reissue_seat_token,
    studio::spectator_token,
    studio::get_webhook,
    studio::end_game,
    studio::seat_bot,
    games::join_game,
    games::rematch,
    games::get_game,
    events::list_events,
    events::stream_events,
    events::replay,
    hints::get_hints,
    autopilot::autopilot_on,
    autopilot::autopilot_off,
    players::get_player,
    players::player_games,
    matchmaking::get_ticket,
    matchmaking::ticket_events,
    matchmaking::cancel_ticket,
    matchmaking::seat_with_bots,
    tournaments::get_tournament,
    tournaments::cancel_tournament,
    tournaments::enter,
    tournaments::get_entry,
    tournaments::withdraw,
    tournaments::standings,
    tournaments::entry_deals,
    tournaments::entry_standings,
);

/// What every read of a game starts with: the seat token's claims, checked against game `id`.
async fn seated(
    state: &AppState,
    req: &HttpRequest,
    id: Uuid,
) -> Result<(Claims, GameRow, HostedGame), ApiError> {
    let claims = state.keys.seat_for(req, id)?;
    let (row, table) = service::load_for_seat(state, id, &claims).await?;
    Ok((claims, row, table))
}

/// What every read of a game open to spectators starts with: who reads (a seat, checked
/// against game `id`, or a spectator of it), and the game.
async fn read_by(
    state: &AppState,
    req: &HttpRequest,
    id: Uuid,
) -> Result<(Reader, GameRow, HostedGame), ApiError> {
    let reader = state.keys.reader_for(req, id)?;
    let (row, table) = service::load_for_reader(state, id, &reader).await?;
    Ok((reader, row, table))
}

/// The request's `If-Match` precondition, if it sent one.
fn if_match(req: &HttpRequest) -> Result<Option<IfMatch>, Invalid> {
    req.headers()
        .get(header::IF_MATCH)
        .map(IfMatch::try_from)
        .transpose()
}

/// Each documented path as its segments (`None` for a `{parameter}`), with the methods it takes.
static ROUTES: LazyLock<Vec<(Vec<Option<String>>, String)>> = LazyLock::new(|| {
    document()
        .paths
        .paths
        .iter()
        .map(|(path, item)| {
            let segments = path
                .split('/')
                .map(|s| (!s.starts_with('{')).then(|| s.to_owned()))
                .collect();
            let mut methods = Vec::new();
            if item.get.is_some() {
                // Every GET route also answers HEAD.
                methods.extend(["GET", "HEAD"]);
            }
            if item.post.is_some() {
                methods.push("POST");
            }
            if item.delete.is_some() {
                methods.push("DELETE");
            }
            (segments, methods.join(", "))
        })
        .collect()
});

/// No route matched: a `405` with `Allow` when the path is known but not the method, else `404`.
pub async fn no_route(req: HttpRequest) -> Result<HttpResponse, ApiError> {
    let segments: Vec<&str> = req.path().split('/').collect();
    let known = ROUTES.iter().find(|(pattern, _)| {
        pattern.len() == segments.len()
            && pattern
                .iter()
                .zip(&segments)
                .all(|(p, s)| p.as_deref().is_none_or(|p| p == *s))
    });
    Err(match known {
        Some((_, allow)) => ApiError::MethodNotAllowed { allow: allow.clone() },
        None => ApiError::not_found(Code::NoRoute, "no such endpoint: see /api-docs/openapi.json"),
    })
}
