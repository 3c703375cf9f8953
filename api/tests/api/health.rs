//! Liveness, readiness, metrics, request ids, docs.

use crate::helpers::TestApp;
use crate::on_every_backend;

async fn operations_endpoints_answer(app: &TestApp) {
    let ctx = format!("{:?}", app.backend);
    let health = app.get("/healthz").await;
    assert_eq!(health.status.as_u16(), 200, "{ctx}: /healthz");
    let ready = app.get("/readyz").await;
    assert_eq!(
        ready.status.as_u16(),
        200,
        "{ctx}: /readyz checks the database, which is up"
    );
    let id = health
        .header("x-request-id")
        .expect("every response echoes a request id");
    assert!(
        uuid::Uuid::parse_str(&id).is_ok(),
        "{ctx}: request id is a UUID: {id}"
    );
    let other = app.get("/healthz").await.header("x-request-id");
    assert_ne!(Some(id), other, "{ctx}: one request id per request");
    let kept = app
        .send("GET", "/healthz", None, &[("x-request-id", "client-chosen-42")])
        .await;
    assert_eq!(
        kept.header("x-request-id").as_deref(),
        Some("client-chosen-42"),
        "{ctx}: a client's request id is kept"
    );
    app.get("/v1/games/00000000-0000-0000-0000-000000000000").await;
    let metrics = app.get("/metrics").await;
    let text = String::from_utf8_lossy(&metrics.body).into_owned();
    for expected in [
        "continental_http_requests_total{method=\"GET\",route=\"/healthz\",status=\"200\"} 3",
        // By route pattern, never by raw path.
        "continental_http_requests_total{method=\"GET\",route=\"/v1/games/{id}\",status=\"401\"} 1",
        "continental_http_request_duration_seconds_bucket{method=\"GET\",route=\"/healthz\",status=\"200\",le=\"0.005\"}",
        "continental_db_pool_connections{state=\"idle\"}",
        "continental_open_streams 0",
    ] {
        assert!(
            text.contains(expected),
            "{ctx}: /metrics serves {expected}: {text}"
        );
    }
    let docs = app.get("/docs/").await;
    assert_eq!(
        docs.status.as_u16(),
        200,
        "{ctx}: Swagger UI is served by the binary"
    );
    assert!(
        String::from_utf8_lossy(&docs.body).contains("swagger"),
        "{ctx}: it is the Swagger UI"
    );
    let redirect = app.get("/docs").await;
    assert_eq!(redirect.status.as_u16(), 308, "{ctx}: /docs redirects to /docs/");
}
on_every_backend!(
    operations_endpoints_answer_on_every_backend,
    operations_endpoints_answer
);
