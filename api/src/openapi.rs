//! The OpenAPI document, generated from the handlers' `#[utoipa::path]` attributes.

use utoipa::openapi::security::{HttpAuthScheme, HttpBuilder, SecurityScheme};
use utoipa::{Modify, OpenApi};

use crate::routes;

/// The whole API.
#[derive(OpenApi)]
#[openapi(
    info(
        title = "Continental Rummy",
        description = "Games of Continental Rummy (may_i, contract_7, continental, push) over HTTP. \
            Errors are application/problem+json with a stable `code`. Game endpoints take a seat token \
            (`Authorization: Bearer …`) returned when a game is created or a seat joined.",
        license(name = "MIT OR Apache-2.0")
    ),
    paths(
        routes::health::healthz,
        routes::health::readyz,
        routes::health::metrics,
        routes::rules::validate_meld,
        routes::rules::validate_contract,
        routes::rules::rulesets,
        routes::games::create_game,
        routes::games::join_game,
        routes::games::get_game,
        routes::games::draw_card,
        routes::games::claim_discard,
        routes::games::lay_melds,
        routes::games::lay_off,
        routes::games::swap_wild,
        routes::games::take_back_plays,
        routes::games::discard_card,
        routes::games::leave_game,
        routes::games::list_events,
        routes::games::stream_events,
        routes::games::get_hints,
    ),
    components(schemas(crate::error::Problem)),
    modifiers(&BearerAuth),
    tags(
        (name = "games", description = "Creating, joining and playing games."),
        (name = "validation", description = "Stateless rules: melds, contracts, rulesets."),
        (name = "operations", description = "Health, readiness and metrics.")
    )
)]
pub struct ApiDoc;

/// Adds the seat-token bearer scheme.
struct BearerAuth;

impl Modify for BearerAuth {
    fn modify(&self, openapi: &mut utoipa::openapi::OpenApi) {
        let components = openapi.components.get_or_insert_with(Default::default);
        components.add_security_scheme(
            "seat_token",
            SecurityScheme::Http(
                HttpBuilder::new()
                    .scheme(HttpAuthScheme::Bearer)
                    .bearer_format("JWT")
                    .description(Some(
                        "A seat token from POST /v1/games or POST /v1/games/{id}/join.",
                    ))
                    .build(),
            ),
        );
    }
}

/// The document as pretty JSON with a trailing newline, as committed in `openapi/openapi.json`.
pub fn document() -> String {
    let mut text = ApiDoc::openapi().to_pretty_json().unwrap_or_default();
    text.push('\n');
    text
}
