//! Traces (docs/operations.md#traces): the binary, with the `OTEL_*` variables pointing at a
//! collector, exports over OTLP/HTTP the spans of a move as one trace with its caller's, and
//! its webhook delivery in that trace; nothing secret or hidden is in any attribute.

use std::collections::{HashMap, HashSet};
use std::time::Duration;

use engine::DrawSource;
use serde_json::json;

use crate::helpers::{
    Backend, Binary, Collector, Exported, Receiver, Table, backends, database_url, draw, drop_database,
    eventually, fresh_database,
};

/// The caller's trace and span, as its `traceparent` names them.
const CALLER_TRACE: &str = "4bf92f3577b34da6a3ce929d0e0e4736";
const CALLER_SPAN: &str = "00f067aa0ba902b7";
/// Another caller's trace, for a refused move.
const REFUSED_TRACE: &str = "0af7651916cd43dd8448eb211c80319c";

/// OpenTelemetry's span kinds and status codes, as OTLP numbers them.
const SERVER: i32 = 2;
const CLIENT: i32 = 3;
const ERROR: i32 = 2;

/// A seat-token secret the test knows, to look for it.
const JWT_SECRET: &str = "the-seat-token-secret-of-the-traces-test-0123456789abcdef";

/// Whether `span` is `ancestor` or under it in `spans`.
fn under(spans: &HashMap<String, Exported>, span: &Exported, ancestor: &str) -> bool {
    let mut at = Some(span);
    let mut steps = 0;
    while let Some(s) = at {
        if s.span_id == ancestor {
            return true;
        }
        steps += 1;
        if steps > 64 {
            return false;
        }
        at = spans.get(&s.parent);
    }
    false
}

/// The words of a text: what a card code would stand as.
fn words(text: &str) -> impl Iterator<Item = &str> {
    text.split(|c: char| !c.is_ascii_alphanumeric())
        .filter(|w| !w.is_empty())
}

#[actix_web::test]
async fn a_move_is_one_trace_from_its_caller_to_the_database_and_its_webhook() {
    for backend in backends() {
        let database = fresh_database(&backend).await;
        let collector = Collector::start();
        let receiver = Receiver::start(200);
        let service = Binary::start_testing(
            &database,
            &[
                ("OTEL_EXPORTER_OTLP_ENDPOINT", collector.endpoint.as_str()),
                ("OTEL_BSP_SCHEDULE_DELAY", "50"),
                ("OTEL_SERVICE_NAME", "continental-under-test"),
                ("CONTINENTAL_JWT_SECRET", JWT_SECRET),
            ],
        )
        .await;
        let hook = format!("{}?token=hook-query-token-4711", receiver.url);
        let created = service
            .post(
                "/v1/games",
                &json!({"variant": "may_i", "seats": [{"name": "Ann"}, {"name": "Bob"}], "seed": 7,
                    "first_dealer": 0, "webhook_url": hook}),
            )
            .await;
        assert_eq!(created.status.as_u16(), 201, "{}", created.text());
        let webhook_secret = created.json()["webhook_secret"]
            .as_str()
            .expect("a webhook secret")
            .to_owned();
        let table = Table::of_created(&created.json());
        let seat = service.in_turn(&table).await;

        // The move, sent inside the caller's trace.
        let traceparent = format!("00-{CALLER_TRACE}-{CALLER_SPAN}-01");
        let moved = service
            .act(
                &table,
                seat,
                &draw(DrawSource::Stock),
                &[("traceparent", traceparent.as_str())],
            )
            .await;
        moved.ok("a draw from the stock");
        // And a refusal (not the seat in turn): not an error of its span.
        let refused_parent = format!("00-{REFUSED_TRACE}-{CALLER_SPAN}-01");
        let refused = service
            .act(
                &table,
                1 - seat,
                &draw(DrawSource::Stock),
                &[("traceparent", refused_parent.as_str())],
            )
            .await;
        assert!(
            refused.status.is_client_error(),
            "out of turn: {}",
            refused.text()
        );

        // The move's request span: the caller's child, a server span with its route and status.
        let request = eventually(Duration::from_secs(30), "the move's request span", async || {
            collector
                .spans()
                .into_iter()
                .find(|s| s.trace_id == CALLER_TRACE && s.kind == SERVER)
                .ok_or_else(|| format!("{:#?}", collector.spans()))
        })
        .await;
        assert_eq!(request.parent, CALLER_SPAN, "the caller's child: {request:?}");
        assert_eq!(request.name, "POST /v1/games/{id}/draw", "{request:?}");
        assert_eq!(request.attribute("http.route"), Some("/v1/games/{id}/draw"));
        assert_eq!(request.attribute("http.request.method"), Some("POST"));
        assert_eq!(request.attribute("http.response.status_code"), Some("200"));
        assert_ne!(request.status, ERROR, "{request:?}");

        // The engine's apply and the database's transaction and statements under it.
        let system = match &database {
            continental::config::DatabaseSettings::Sqlite { .. } => "sqlite",
            continental::config::DatabaseSettings::Postgres { .. } => "postgresql",
        };
        eventually(
            Duration::from_secs(30),
            "the engine and database spans under the request",
            async || {
                let spans: HashMap<String, Exported> = collector
                    .spans()
                    .into_iter()
                    .map(|s| (s.span_id.clone(), s))
                    .collect();
                let inside: Vec<&Exported> = spans
                    .values()
                    .filter(|s| s.trace_id == CALLER_TRACE && s.span_id != request.span_id)
                    .filter(|s| under(&spans, s, &request.span_id))
                    .collect();
                let applied = inside
                    .iter()
                    .any(|s| s.name == "engine apply" && s.attribute("game.action") == Some("draw"));
                // The transaction's span, its statements events on it.
                let transaction = inside.iter().find(|s| {
                    s.kind == CLIENT
                        && s.attribute("db.system.name") == Some(system)
                        && s.attribute("db.operation.name") == Some("transaction")
                });
                let statements: Vec<&str> = transaction
                    .map(|t| {
                        t.around
                            .iter()
                            .filter(|(k, _)| k == "event")
                            .map(|(_, v)| v.as_str())
                            .collect()
                    })
                    .unwrap_or_default();
                let read = statements.first() == Some(&"SELECT games");
                // The game row's write, last: on PostgreSQL one statement that commits by
                // itself (its events, seats and outbox in its `WITH` clauses), on a Citus
                // cluster the one call of the function that writes all of it on the game's
                // worker; on SQLite the game row among the statements of its transaction,
                // then the commit.
                let (write, last) = match backend {
                    Backend::Citus => ("SELECT continental_write", "SELECT continental_write"),
                    Backend::Postgres => ("UPDATE games", "UPDATE games"),
                    Backend::Sqlite => ("UPDATE games", "COMMIT"),
                };
                let written = statements.contains(&write) && statements.last() == Some(&last);
                let transaction = transaction.is_some();
                if applied && transaction && read && written {
                    Ok(())
                } else {
                    Err(format!("{inside:#?}"))
                }
            },
        )
        .await;

        // The webhook delivery of the move's event names a span of that trace: its client span.
        let delivered = receiver
            .wait_for("a delivery in the caller's trace", |all| {
                all.iter().any(|r| r.traceparent.contains(CALLER_TRACE))
            })
            .await;
        let sent = delivered
            .iter()
            .find(|r| r.traceparent.contains(CALLER_TRACE))
            .map(|r| r.traceparent.clone())
            .expect("a delivery in the trace");
        let parts: Vec<&str> = sent.split('-').collect();
        assert_eq!(parts.len(), 4, "a W3C traceparent: {sent}");
        let delivery_span = parts[2].to_owned();
        let delivery = eventually(Duration::from_secs(30), "the delivery's span", async || {
            collector
                .spans()
                .into_iter()
                .find(|s| s.span_id == delivery_span)
                .ok_or_else(|| format!("{:#?}", collector.spans()))
        })
        .await;
        assert_eq!(delivery.trace_id, CALLER_TRACE, "{delivery:?}");
        assert_eq!(delivery.kind, CLIENT, "{delivery:?}");
        assert_eq!(delivery.attribute("http.request.method"), Some("POST"));
        assert_eq!(delivery.attribute("http.response.status_code"), Some("200"));

        // The refused move: a span of its own trace, a 4xx, not an error.
        let refusal = eventually(Duration::from_secs(30), "the refused move's span", async || {
            collector
                .spans()
                .into_iter()
                .find(|s| s.trace_id == REFUSED_TRACE && s.kind == SERVER)
                .ok_or_else(|| format!("{:#?}", collector.spans()))
        })
        .await;
        assert!(
            refusal
                .attribute("http.response.status_code")
                .is_some_and(|s| s.starts_with('4')),
            "{refusal:?}"
        );
        assert_ne!(refusal.status, ERROR, "a refusal is not an error: {refusal:?}");

        // The access line carries the trace id.
        let lines = service.lines_saying("request").await;
        assert!(
            lines
                .iter()
                .any(|l| l["route"] == "/v1/games/{id}/draw" && l["trace_id"] == CALLER_TRACE),
            "{lines:#?}"
        );

        // No secret, token or hidden card in any exported attribute, the resource's included.
        let mut hidden: HashSet<String> = HashSet::new();
        for s in 0..table.tokens.len() {
            let view = service.view(&table, s).await.ok("the seat's view");
            for card in view["you"]["hand"].as_array().expect("a hand") {
                hidden.insert(card.as_str().expect("a card").to_owned());
            }
        }
        assert!(!hidden.is_empty());
        let key = webhook_secret.trim_start_matches("whsec_").to_owned();
        let url = database_url(&database);
        let mut secrets: Vec<&str> = vec![
            JWT_SECRET,
            &webhook_secret,
            &key,
            "hook-query-token-4711",
            "Bearer",
            &url,
        ];
        secrets.extend(table.tokens.iter().map(String::as_str));
        // A seat token's parts (header, claims, signature) each say something.
        let token_parts: Vec<&str> = table
            .tokens
            .iter()
            .flat_map(|t| t.split('.'))
            .filter(|p| p.len() > 8)
            .collect();
        secrets.extend(token_parts);
        let exported = collector.spans();
        assert!(exported.len() > 5, "{exported:#?}");
        for span in &exported {
            for (key, value) in span.attributes.iter().chain(&span.around) {
                for secret in &secrets {
                    assert!(
                        !value.contains(secret) && !key.contains(secret),
                        "{key}={value} of {span:?} holds a secret"
                    );
                }
                for word in words(value) {
                    assert!(
                        !hidden.contains(word),
                        "{key}={value} of {span:?} holds a hidden card ({word})"
                    );
                }
            }
        }
        drop(service);
        drop_database(&database).await;
    }
}

/// A collector that takes connections and never answers holds up no request: the spans that
/// do not fit the queue are dropped and counted. The lines written inside a delivery carry its
/// trace id.
#[actix_web::test]
async fn a_collector_that_never_answers_costs_requests_nothing_and_its_drops_are_counted() {
    for backend in backends() {
        let database = fresh_database(&backend).await;
        // Never accepted: each connection waits in the listener's backlog, unanswered.
        let silent = std::net::TcpListener::bind("127.0.0.1:0").expect("a port");
        let endpoint = format!("http://{}", silent.local_addr().expect("an address"));
        let receiver = Receiver::start(503);
        let service = Binary::start_testing(
            &database,
            &[
                ("OTEL_EXPORTER_OTLP_ENDPOINT", endpoint.as_str()),
                ("OTEL_BSP_MAX_QUEUE_SIZE", "8"),
                ("OTEL_BSP_SCHEDULE_DELAY", "10"),
                ("OTEL_EXPORTER_OTLP_TIMEOUT", "120000"),
            ],
        )
        .await;
        let hooked = json!({"webhook_url": receiver.url});
        let table = crate::helpers::create(&service, "may_i", 2, 7, hooked).await;
        // Each read makes spans of its own (the request's, the store's): far more than fit.
        for _ in 0..40 {
            let started = std::time::Instant::now();
            service.view(&table, 0).await.ok("the seat's view");
            assert!(
                started.elapsed() < Duration::from_secs(5),
                "a read waited on the collector: {:?}",
                started.elapsed()
            );
        }
        eventually(
            Duration::from_secs(30),
            "dropped spans counted",
            async || match service.metric("continental_trace_spans_dropped_total").await {
                Some(n) if n > 0.0 => Ok(()),
                other => Err(format!("{other:?}")),
            },
        )
        .await;
        let failed = service.lines_saying("webhook failed; will retry").await;
        let trace_id = failed[0]["span"]["trace_id"].as_str().unwrap_or_default();
        assert!(
            trace_id.len() == 32 && trace_id.bytes().all(|b| b.is_ascii_hexdigit()),
            "the delivery's trace id on its line: {}",
            failed[0]
        );
        drop(service);
        drop(silent);
        drop_database(&database).await;
    }
}
