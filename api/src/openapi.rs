//! The OpenAPI document, generated from the handlers' `#[utoipa::path]` attributes.

use utoipa::openapi::security::{ApiKey, ApiKeyValue, HttpAuthScheme, HttpBuilder, SecurityScheme};
use utoipa::{Modify, OpenApi};

use crate::http;
use crate::wire::CreateGameRequest;

/// The whole API.
#[derive(OpenApi)]
#[openapi(
    info(
        title = "Continental Rummy",
        description = "Games of Continental Rummy (may_i, contract_7, continental, push) over HTTP. \
            Errors are application/problem+json with a stable `code`. Game endpoints take a seat token \
            (`Authorization: Bearer …`) returned when a game is created or a seat joined.",
        license(name = "MIT OR Apache-2.0", identifier = "MIT OR Apache-2.0"),
        contact(name = "continental maintainers", url = "https://github.com/continental-rummy/continental")
    ),
    // Relative: resolved against the document's own URL, so Swagger UI's "Try it out" calls the
    // server that served it, whatever its address.
    servers((url = "/", description = "The service that serves this document.")),
    components(schemas(crate::wire::Problem)),
    modifiers(&Endpoints, &Webhooks, &BearerAuth, &NotNow, &OptionalBodies),
    tags(
        (name = "games", description = "Creating, joining and playing games."),
        (name = "studio", description = "A studio's back end, with a server key (X-Api-Key): its games, seat tokens reissued, spectators."),
        (name = "matchmaking", description = "Quick play: tickets matched into tables by variant, options and rating, with bots after a wait."),
        (name = "tournaments", description = "A studio's tournaments, with a server key (X-Api-Key): rounds started by the service, tables made by a movement, entries that give each round's seat."),
        (name = "players", description = "A studio's players, with a server key (X-Api-Key): their ratings, record and games, and the leaderboards."),
        (name = "validation", description = "Stateless rules: melds, contracts, rulesets."),
        (name = "operations", description = "Health, readiness and metrics.")
    )
)]
pub struct ApiDoc;

/// Adds every endpoint, as `http` lists them.
struct Endpoints;

impl Modify for Endpoints {
    fn modify(&self, openapi: &mut utoipa::openapi::OpenApi) {
        openapi.merge(http::document());
    }
}

/// Adds what a game's webhook receives: one POST per event, of the log's event schema.
struct Webhooks;

impl Modify for Webhooks {
    fn modify(&self, openapi: &mut utoipa::openapi::OpenApi) {
        use utoipa::openapi::path::{HttpMethod, OperationBuilder, PathItem};
        use utoipa::openapi::request_body::RequestBodyBuilder;
        use utoipa::openapi::{ContentBuilder, PathsBuilder, Ref, Required, ResponseBuilder};
        use utoipa::{PartialSchema as _, ToSchema};

        use crate::wire::WebhookDelivery;

        let name = WebhookDelivery::name();
        let body = RequestBodyBuilder::new()
            .content(
                "application/json",
                ContentBuilder::new()
                    .schema(Some(Ref::from_schema_name(name.clone())))
                    .build(),
            )
            .required(Some(Required::True))
            .build();
        let delivery = OperationBuilder::new()
            .summary(Some("An event of a game created with a `webhook_url`."))
            .description(Some(
                "POSTed to the game's `webhook_url` once per event, in order, at least once, with the \
                 headers `webhook-id`, `webhook-timestamp` and `webhook-signature` of Standard Webhooks \
                 ([webhooks](https://github.com/continental-rummy/continental/blob/main/docs/api.md#webhooks)).",
            ))
            .operation_id(Some("game_event"))
            .tag("games")
            .request_body(Some(body))
            .response(
                "2XX",
                ResponseBuilder::new().description("Received: the next event follows."),
            )
            .build();
        openapi.webhooks = Some(
            PathsBuilder::new()
                .path("game_event", PathItem::new(HttpMethod::Post, delivery))
                .build(),
        );
        let components = openapi.components.get_or_insert_with(Default::default);
        let mut schemas = vec![(name.into_owned(), WebhookDelivery::schema())];
        WebhookDelivery::schemas(&mut schemas);
        components.schemas.extend(schemas);
    }
}

/// Adds the seat-token and spectator-token bearer schemes and the server-key scheme.
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
        components.add_security_scheme(
            "spectator_token",
            SecurityScheme::Http(
                HttpBuilder::new()
                    .scheme(HttpAuthScheme::Bearer)
                    .bearer_format("JWT")
                    .description(Some(
                        "A spectator token from POST /v1/games/{id}/spectators: reads the view, events and stream with every hand hidden; never acts.",
                    ))
                    .build(),
            ),
        );
        components.add_security_scheme(
            "board_token",
            SecurityScheme::Http(
                HttpBuilder::new()
                    .scheme(HttpAuthScheme::Bearer)
                    .bearer_format("JWT")
                    .description(Some(
                        "A board token from POST /v1/leaderboards/{variant}/tokens: reads that variant's leaderboard of the studio that made it, and nothing else.",
                    ))
                    .build(),
            ),
        );
        components.add_security_scheme(
            "api_key",
            SecurityScheme::ApiKey(ApiKey::Header(ApiKeyValue::with_description(
                "X-Api-Key",
                "A server key of a studio's back end: a secret of CONTINENTAL_API_KEYS (tenant:secret). \
                 It sees and manages only its tenant's games.",
            ))),
        );
    }
}

/// Adds the answers every `/v1` endpoint may give whatever it does: `429` past the rate limit
/// and `503` when the database is unreachable, hung or saturated, both with `Retry-After`;
/// and `408` to those that read a body.
struct NotNow;

impl Modify for NotNow {
    fn modify(&self, openapi: &mut utoipa::openapi::OpenApi) {
        use utoipa::openapi::{
            ContentBuilder, HeaderBuilder, KnownFormat, ObjectBuilder, Ref, ResponseBuilder, SchemaFormat,
            Type,
        };

        let problem = |description: &str, retry: bool| {
            let mut response = ResponseBuilder::new().description(description).content(
                crate::error::PROBLEM_JSON,
                ContentBuilder::new()
                    .schema(Some(Ref::from_schema_name("Problem")))
                    .build(),
            );
            if retry {
                response = response.header(
                    "Retry-After",
                    HeaderBuilder::new()
                        .schema(Some(
                            ObjectBuilder::new()
                                .schema_type(Type::Integer)
                                .format(Some(SchemaFormat::KnownFormat(KnownFormat::Int64)))
                                .minimum(Some(1)),
                        ))
                        .description(Some("Seconds to wait before retrying."))
                        .build(),
                );
            }
            response.build()
        };
        let limited = problem(
            "Past this client's rate limit (`rate_limited`): nothing was done.",
            true,
        );
        let unavailable = problem(
            "The database is unreachable, hung or saturated (`service_unavailable`), or the game is held by \
             another move past the lock timeout (`game_busy`): nothing was done; retry, with the same \
             Idempotency-Key if there was one.",
            true,
        );
        let slow = problem(
            "The body was not received in time (`request_timeout`); the connection is closed.",
            false,
        );
        for (path, item) in openapi.paths.paths.iter_mut() {
            if !path.starts_with("/v1/") {
                continue;
            }
            for (operation, reads_body) in [(&mut item.get, false), (&mut item.post, true)] {
                let Some(operation) = operation else { continue };
                let responses = &mut operation.responses.responses;
                responses
                    .entry("429".into())
                    .or_insert_with(|| limited.clone().into());
                responses
                    .entry("503".into())
                    .or_insert_with(|| unavailable.clone().into());
                if reads_body {
                    responses
                        .entry("408".into())
                        .or_insert_with(|| slow.clone().into());
                }
            }
        }
    }
}

/// Marks a request body optional where its schema requires no field: the body extractor reads
/// a missing body as `{}`, so such a body may be left out (`claims`, `leave`, `take_back`...).
struct OptionalBodies;

impl Modify for OptionalBodies {
    fn modify(&self, openapi: &mut utoipa::openapi::OpenApi) {
        use utoipa::openapi::schema::Schema;
        use utoipa::openapi::{RefOr, Required};

        let Some(components) = &openapi.components else {
            return;
        };
        let all_optional = |name: &str| matches!(components.schemas.get(name), Some(RefOr::T(Schema::Object(o))) if o.required.is_empty());
        let mut optional = Vec::new();
        for (path, item) in &openapi.paths.paths {
            let Some(RefOr::T(body)) = item.post.as_ref().and_then(|o| o.request_body.as_ref()) else {
                continue;
            };
            let schema = body.content.get("application/json").and_then(|c| match c {
                RefOr::T(content) => content.schema.as_ref(),
                RefOr::Ref(_) => None,
            });
            if let Some(RefOr::Ref(r)) = schema {
                let name = r.ref_location.rsplit('/').next().unwrap_or_default();
                if all_optional(name) {
                    optional.push(path.clone());
                }
            }
        }
        for path in optional {
            let body = openapi
                .paths
                .paths
                .get_mut(&path)
                .and_then(|item| item.post.as_mut())
                .and_then(|o| o.request_body.as_mut());
            if let Some(RefOr::T(body)) = body {
                body.required = Some(Required::False);
            }
        }
    }
}

/// The document a server serves: the test-mode fields of a new game
/// ([`CreateGameRequest::TEST_MODE_FIELDS`]) only when it runs in test mode, since another
/// server refuses them.
pub fn served(test_mode: bool) -> utoipa::openapi::OpenApi {
    let mut doc = ApiDoc::openapi();
    if !test_mode {
        without_test_mode(&mut doc);
    }
    doc
}

/// Removes the test-mode fields from `CreateGameRequest`, and the request examples that use them.
fn without_test_mode(doc: &mut utoipa::openapi::OpenApi) {
    use utoipa::ToSchema;
    use utoipa::openapi::RefOr;
    use utoipa::openapi::schema::Schema;

    let name = CreateGameRequest::name();
    let fields = CreateGameRequest::TEST_MODE_FIELDS;
    let schema = doc
        .components
        .as_mut()
        .and_then(|c| c.schemas.get_mut(name.as_ref()));
    if let Some(RefOr::T(Schema::Object(object))) = schema {
        for field in fields {
            object.properties.remove(field);
            object.required.retain(|r| r != field);
        }
    }
    let reference = format!("#/components/schemas/{name}");
    let uses = |value: &Option<serde_json::Value>| {
        value
            .as_ref()
            .is_some_and(|v| fields.iter().any(|f| v.get(f).is_some()))
    };
    let bodies = doc
        .paths
        .paths
        .values_mut()
        .flat_map(|item| [&mut item.post, &mut item.put, &mut item.patch])
        .filter_map(|operation| operation.as_mut()?.request_body.as_mut());
    for body in bodies {
        let RefOr::T(body) = body else { continue };
        for content in body.content.values_mut() {
            let RefOr::T(content) = content else { continue };
            if !matches!(&content.schema, Some(RefOr::Ref(r)) if r.ref_location == reference) {
                continue;
            }
            content
                .examples
                .retain(|_, example| !matches!(example, RefOr::T(e) if uses(&e.value)));
            if uses(&content.example) {
                content.example = None;
            }
        }
    }
}

/// The document of a server not in test mode as pretty JSON with a trailing newline, as
/// committed in `openapi/openapi.json`.
pub fn document() -> String {
    let mut text = served(false).to_pretty_json().unwrap_or_default();
    text.push('\n');
    text
}
