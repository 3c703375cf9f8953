//! Traces over OTLP/HTTP (protobuf), when the standard `OTEL_*` variables ask for them
//! (docs/operations.md#traces); off, and costing a disabled callsite per span, when they do not.
//!
//! The spans are `tracing` spans under two targets: [`TRACE`] (a request, a webhook delivery,
//! a background pass: the spans that carry the trace id into the log lines) and [`DETAIL`]
//! (the engine's apply, the store's operations, a bot's thinking: exported only; a store
//! operation's statements are events on its span, [`Statement`], not spans of their own).
//! `tracing-opentelemetry` turns them into OpenTelemetry spans, which a batch processor
//! exports from a thread of its own behind a bounded queue: a collector that is down or slow
//! costs a request nothing, and what does not fit is dropped and counted
//! (`continental_trace_spans_dropped_total`); so are the spans of a failed export and of the
//! second after it, which are not even encoded ([`REST`]).

use std::collections::{HashMap, VecDeque};
use std::sync::atomic::{AtomicBool, AtomicU64, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex, PoisonError};
use std::time::{Duration, Instant};

use actix_web::http::header::HeaderMap;
use opentelemetry::propagation::{Extractor, Injector, TextMapPropagator};
use opentelemetry::trace::{SpanContext, Status, TraceContextExt, TracerProvider as _};
use opentelemetry::{Context, KeyValue};
use opentelemetry_otlp::{Protocol, WithExportConfig};
use opentelemetry_sdk::Resource;
use opentelemetry_sdk::error::OTelSdkResult;
use opentelemetry_sdk::propagation::TraceContextPropagator;
use opentelemetry_sdk::trace::{
    BatchConfigBuilder, BatchSpanProcessor, SdkTracerProvider, Span as SdkSpan, SpanData, SpanExporter,
    SpanProcessor,
};
use tracing::Span;
use tracing_opentelemetry::OpenTelemetrySpanExt;
use uuid::Uuid;

/// The target of the spans that also give their fields (the trace id) to the log lines.
pub const TRACE: &str = "continental::trace";
/// The target of the spans that are exported only.
pub const DETAIL: &str = "continental::trace::detail";

/// `db.system.name` of PostgreSQL (a Citus cluster included).
pub const POSTGRESQL: &str = "postgresql";
/// `db.system.name` of SQLite.
pub const SQLITE: &str = "sqlite";

/// Whether spans are exported (settled once, at start).
static ON: AtomicBool = AtomicBool::new(false);
/// Spans dropped: the export queue full, or the collector failing (see [`REST`]).
static DROPPED: AtomicU64 = AtomicU64::new(0);

/// Whether spans are exported.
pub fn on() -> bool {
    ON.load(Ordering::Relaxed)
}

/// Spans dropped so far: the export queue full (a collector slow), or an export failed (a
/// collector down) and the batches of the [`REST`] after it.
pub fn spans_dropped() -> u64 {
    DROPPED.load(Ordering::Relaxed)
}

/// What the `OTEL_*` variables ask for: `None` when export is off (no endpoint, the traces'
/// exporter `none`, or the SDK disabled).
///
/// # Errors
/// A protocol other than `http/protobuf`.
pub fn asked(env: impl Fn(&str) -> Option<String>) -> Result<Option<usize>, String> {
    let given = |name: &str| env(name).map(|v| v.trim().to_owned()).filter(|v| !v.is_empty());
    let endpoint =
        given("OTEL_EXPORTER_OTLP_TRACES_ENDPOINT").or_else(|| given("OTEL_EXPORTER_OTLP_ENDPOINT"));
    let exporter = given("OTEL_TRACES_EXPORTER").unwrap_or_else(|| "otlp".to_owned());
    let disabled = given("OTEL_SDK_DISABLED").is_some_and(|v| v.eq_ignore_ascii_case("true"));
    if endpoint.is_none() || disabled || exporter == "none" {
        return Ok(None);
    }
    if exporter != "otlp" {
        return Err(format!(
            "OTEL_TRACES_EXPORTER={exporter}: only otlp (or none) is supported"
        ));
    }
    let protocol =
        given("OTEL_EXPORTER_OTLP_TRACES_PROTOCOL").or_else(|| given("OTEL_EXPORTER_OTLP_PROTOCOL"));
    if let Some(p) = protocol.filter(|p| p != "http/protobuf") {
        return Err(format!(
            "OTEL_EXPORTER_OTLP_PROTOCOL={p}: only http/protobuf is supported; point it at the collector's OTLP/HTTP port (4318)"
        ));
    }
    // The SDK's own default; the same bound is kept in front of its queue (`Bounded`).
    let queue = match given("OTEL_BSP_MAX_QUEUE_SIZE") {
        None => 2048,
        Some(v) => v
            .parse::<usize>()
            .ok()
            .filter(|n| *n > 0)
            .ok_or_else(|| format!("OTEL_BSP_MAX_QUEUE_SIZE={v}: a positive number of spans"))?,
    };
    Ok(Some(queue))
}

/// The tracer provider exporting to the collector the variables name, its queue bounded to
/// `queue` spans; marks export on.
///
/// # Errors
/// When the exporter cannot be built (an endpoint that is not a URL).
pub fn provider(queue: usize) -> Result<SdkTracerProvider, String> {
    let exporter = opentelemetry_otlp::SpanExporter::builder()
        .with_http()
        .with_protocol(Protocol::HttpBinary)
        .build()
        .map_err(|e| format!("the OTLP exporter: {e}"))?;
    let pending = Arc::new(AtomicUsize::new(0));
    let batch = BatchSpanProcessor::builder(Counted {
        inner: exporter,
        pending: pending.clone(),
        resting: Mutex::new(None),
        rest: REST,
    })
    .with_batch_config(BatchConfigBuilder::default().with_max_queue_size(queue).build())
    .build();
    let mut resource = Resource::builder();
    let named = std::env::var("OTEL_SERVICE_NAME").is_ok_and(|v| !v.trim().is_empty())
        || std::env::var("OTEL_RESOURCE_ATTRIBUTES").is_ok_and(|v| v.contains("service.name="));
    if !named {
        resource = resource.with_service_name("continental");
    }
    let resource = resource
        .with_attribute(KeyValue::new("service.version", env!("CARGO_PKG_VERSION")))
        .build();
    // The sampler is the SDK's, from OTEL_TRACES_SAMPLER (default: the caller's decision, else
    // every trace).
    let provider = SdkTracerProvider::builder()
        .with_span_processor(Bounded {
            inner: batch,
            pending,
            queue,
        })
        .with_resource(resource)
        .build();
    ON.store(true, Ordering::Relaxed);
    Ok(provider)
}

/// The layer that turns the spans of [`TRACE`] and [`DETAIL`] into OpenTelemetry spans (and
/// the events of [`DETAIL`] into events of theirs). It sees no other span or event, adds no
/// attribute of its own, and does nothing as a span is entered: no timings, no OpenTelemetry
/// context made current (a span's parent is the innermost exported span entered, found in the
/// registry), so that a future polled many times costs little more than one polled once.
pub fn layer<S>(provider: &SdkTracerProvider) -> impl tracing_subscriber::Layer<S>
where
    S: tracing::Subscriber + for<'a> tracing_subscriber::registry::LookupSpan<'a>,
{
    use tracing_subscriber::Layer as _;
    let only_ours = tracing_subscriber::filter::Targets::new().with_target(TRACE, tracing::Level::INFO);
    tracing_opentelemetry::layer()
        .with_tracer(provider.tracer("continental"))
        .with_target(false)
        .with_location(false)
        .with_threads(false)
        .with_tracked_inactivity(false)
        .with_context_activation(false)
        .with_filter(only_ours)
}

/// In front of the batch processor: at most `queue` spans wait for export (counted from their
/// end to the end of their batch's export), so that the processor's own queue never fills
/// unseen; one more is dropped and counted.
#[derive(Debug)]
struct Bounded {
    inner: BatchSpanProcessor,
    pending: Arc<AtomicUsize>,
    queue: usize,
}

impl SpanProcessor for Bounded {
    fn on_start(&self, span: &mut SdkSpan, cx: &Context) {
        self.inner.on_start(span, cx);
    }

    fn on_end(&self, span: SpanData) {
        if self.pending.fetch_add(1, Ordering::Relaxed) >= self.queue {
            self.pending.fetch_sub(1, Ordering::Relaxed);
            DROPPED.fetch_add(1, Ordering::Relaxed);
            return;
        }
        self.inner.on_end(span);
    }

    fn force_flush(&self) -> OTelSdkResult {
        self.inner.force_flush()
    }

    fn shutdown_with_timeout(&self, timeout: Duration) -> OTelSdkResult {
        self.inner.shutdown_with_timeout(timeout)
    }

    fn set_resource(&mut self, resource: &Resource) {
        self.inner.set_resource(resource);
    }
}

/// How long the batches after a failed export are dropped (and counted) without being encoded
/// or sent: a collector that is down costs the process one batch's encoding per rest, not one
/// per batch.
pub const REST: Duration = Duration::from_secs(1);

/// The exporter, telling [`Bounded`] when a batch has left the queue; after a failed export it
/// rests ([`REST`]).
#[derive(Debug)]
struct Counted<E> {
    inner: E,
    pending: Arc<AtomicUsize>,
    /// Until when batches are dropped, after a failed export.
    resting: Mutex<Option<Instant>>,
    /// How long it rests after a failed export ([`REST`]).
    rest: Duration,
}

impl<E: SpanExporter> SpanExporter for Counted<E> {
    async fn export(&self, batch: Vec<SpanData>) -> OTelSdkResult {
        let spans = batch.len();
        let until = *self.resting.lock().unwrap_or_else(PoisonError::into_inner);
        let result = if until.is_some_and(|t| Instant::now() < t) {
            DROPPED.fetch_add(spans as u64, Ordering::Relaxed);
            Ok(())
        } else {
            let result = self.inner.export(batch).await;
            if result.is_err() {
                DROPPED.fetch_add(spans as u64, Ordering::Relaxed);
                *self.resting.lock().unwrap_or_else(PoisonError::into_inner) =
                    Some(Instant::now() + self.rest);
            }
            result
        };
        self.pending.fetch_sub(spans, Ordering::Relaxed);
        result
    }

    fn shutdown_with_timeout(&mut self, timeout: Duration) -> OTelSdkResult {
        self.inner.shutdown_with_timeout(timeout)
    }

    fn set_resource(&mut self, resource: &Resource) {
        self.inner.set_resource(resource);
    }
}

/// A request's headers, read for a `traceparent`.
struct Headers<'a>(&'a HeaderMap);

impl Extractor for Headers<'_> {
    fn get(&self, key: &str) -> Option<&str> {
        self.0.get(key).and_then(|v| v.to_str().ok())
    }

    fn keys(&self) -> Vec<&str> {
        self.0.keys().map(|k| k.as_str()).collect()
    }
}

/// The headers a delivery sends: `traceparent` (and `tracestate`).
struct Outgoing(Vec<(&'static str, String)>);

impl Injector for Outgoing {
    fn set(&mut self, key: &str, value: String) {
        let known = match key {
            "traceparent" => "traceparent",
            "tracestate" => "tracestate",
            _ => return,
        };
        self.0.push((known, value));
    }
}

/// The span of a request (export on): the server span of the HTTP semantic conventions, the
/// caller's child when it sent a W3C `traceparent`. Its name, route and status are set once
/// answered ([`answered`]). Returns the span and its trace id.
///
/// Its `tracing` fields are what the log lines inside it carry (`request_id`, `trace_id`)
/// and what the OpenTelemetry layer needs to start it (`otel.*`); its other attributes are set
/// on the OpenTelemetry span directly, so that the log's layer never formats them.
pub fn request_span(method: &str, headers: &HeaderMap, request_id: &str) -> (Span, String) {
    let span = tracing::info_span!(
        target: TRACE,
        "request",
        otel.name = method,
        otel.kind = "server",
        request_id,
        trace_id = tracing::field::Empty,
    );
    let caller = TraceContextPropagator::new().extract(&Headers(headers));
    if caller.span().span_context().is_valid() {
        let _ = span.set_parent(caller);
    }
    let context = span.context();
    let started = context.span();
    started.set_attribute(KeyValue::new("http.request.method", method.to_owned()));
    let trace_id = started.span_context().trace_id().to_string();
    span.record("trace_id", trace_id.as_str());
    (span, trace_id)
}

/// Sets how a request was answered on its span: its name, route and status; a 5xx is an
/// error, a refusal is not.
pub fn answered(span: &Span, method: &str, route: &str, status: u16) {
    // Started when its trace id was read: all of it is set on it directly.
    let context = span.context();
    let started = context.span();
    started.update_name(format!("{method} {route}"));
    started.set_attribute(KeyValue::new("http.route", route.to_owned()));
    started.set_attribute(KeyValue::new("http.response.status_code", i64::from(status)));
    if status >= 500 {
        started.set_status(Status::error(""));
    }
}

/// A database span (export on; a disabled callsite otherwise): `operation` of the store on
/// `system` (`postgresql`, `sqlite`), a client span of the database conventions. No statement
/// text and no value: only what kind of work it is.
pub fn database(system: &'static str, operation: &'static str) -> Span {
    tracing::info_span!(
        target: DETAIL,
        "db",
        otel.name = operation,
        otel.kind = "client",
        db.system.name = system,
        db.operation.name = operation,
    )
}

/// A statement of a store operation, as an event on the operation's span (export on; a
/// disabled callsite otherwise) when its answer came: named `{operation} {table}` (`SELECT
/// games`, `COMMIT`), with `db.system.name`, `db.operation.name` and `db.collection.name`. An event, not a span:
/// a statement's time is the gap since the operation's start or its previous statement, and
/// an action's trace holds three spans fewer.
pub trait Statement: Future + Sized {
    /// This statement's future, marking its answer on the current span.
    fn traced_statement(
        self,
        system: &'static str,
        operation: &'static str,
        table: &'static str,
    ) -> impl Future<Output = Self::Output> {
        async move {
            let answer = self.await;
            answered_statement(system, operation, table);
            answer
        }
    }
}

impl<F: Future> Statement for F {}

/// The event of a statement answered: see [`Statement`].
fn answered_statement(system: &'static str, operation: &'static str, table: &'static str) {
    let on_table = !table.is_empty();
    tracing::event!(
        target: DETAIL,
        tracing::Level::INFO,
        {
            db.system.name = system,
            db.operation.name = operation,
            db.collection.name = on_table.then_some(table),
        },
        "{operation}{}{table}",
        if on_table { " " } else { "" },
    );
}

/// The engine's apply of an action of `kind` (its name, never its cards).
pub fn apply(kind: &'static str) -> Span {
    tracing::info_span!(target: DETAIL, "apply", otel.name = "engine apply", game.action = kind)
}

/// A bot of `level` thinking.
pub fn bot_thinking(level: &str) -> Span {
    tracing::info_span!(target: DETAIL, "bot", otel.name = "bot think", bot.level = level)
}

/// A background pass (`webhooks`, `deadlines`, `sweep`) that found work.
pub fn pass(name: &'static str) -> Span {
    tracing::info_span!(target: TRACE, "pass", otel.name = %format_args!("{name} pass"), pass = name)
}

/// Actions that queued webhook deliveries on this replica, by game and version, with the span
/// that made them: the delivery continues that trace. Bounded: the oldest are forgotten, and a
/// delivery made by another replica or after a restart starts a trace of its own.
#[derive(Default)]
struct Origins {
    spans: HashMap<(Uuid, i64), SpanContext>,
    order: VecDeque<(Uuid, i64)>,
}

/// The spans remembered for deliveries.
const ORIGINS: usize = 4096;

static ORIGIN: Mutex<Option<Origins>> = Mutex::new(None);

/// Remembers the current span as the origin of game `game`'s deliveries at `version` (export
/// on only).
pub fn queued_deliveries(game: Uuid, version: i64) {
    if !on() {
        return;
    }
    let Some(context) = entered_exported().filter(SpanContext::is_valid) else {
        return;
    };
    let mut origins = ORIGIN.lock().unwrap_or_else(PoisonError::into_inner);
    let origins = origins.get_or_insert_with(Origins::default);
    if origins.spans.insert((game, version), context).is_none() {
        origins.order.push_back((game, version));
    }
    while origins.order.len() > ORIGINS {
        if let Some(old) = origins.order.pop_front() {
            origins.spans.remove(&old);
        }
    }
}

/// The innermost span entered that is exported (a request's), past those only the log sees
/// (`RUST_LOG=debug`): its OpenTelemetry context is not entered with it ([`layer`]), so it is
/// looked up in the registry.
fn entered_exported() -> Option<SpanContext> {
    use tracing_subscriber::registry::LookupSpan as _;
    tracing::dispatcher::get_default(|dispatch| {
        let registry = dispatch.downcast_ref::<tracing_subscriber::Registry>()?;
        let current = dispatch.current_span();
        let span = registry.span(current.id()?)?;
        span.scope()
            .find_map(|s| tracing_opentelemetry::get_otel_context(&mut s.extensions_mut(), dispatch))
            .map(|context| context.span().span_context().clone())
    })
}

/// The span of a webhook delivery of game `game`'s event at `version` to `url`: a client span
/// of the HTTP conventions, child of the action that queued it when this replica remembers it,
/// else of the pass. Only the URL's host and port are kept (a receiver's token may be in its
/// path or query).
pub fn delivery(game: Uuid, version: i64, url: &str) -> Span {
    let url = url::Url::parse(url).ok();
    let host = url.as_ref().and_then(|u| u.host_str()).unwrap_or_default();
    let port = url.as_ref().and_then(url::Url::port_or_known_default);
    let span = tracing::info_span!(
        target: TRACE,
        "webhook",
        otel.name = "POST",
        otel.kind = "client",
        http.request.method = "POST",
        http.response.status_code = tracing::field::Empty,
        server.address = host,
        server.port = port,
        game.id = %game,
        trace_id = tracing::field::Empty,
    );
    if !on() {
        return span;
    }
    let origin = ORIGIN
        .lock()
        .unwrap_or_else(PoisonError::into_inner)
        .as_ref()
        .and_then(|o| o.spans.get(&(game, version)).cloned());
    if let Some(origin) = origin {
        let _ = span.set_parent(Context::new().with_remote_span_context(origin));
    }
    let trace_id = span.context().span().span_context().trace_id().to_string();
    span.record("trace_id", trace_id.as_str());
    span
}

/// The `traceparent` (and `tracestate`) naming `span`, for a request it sends; none when export
/// is off.
pub fn propagation(span: &Span) -> Vec<(&'static str, String)> {
    if !on() {
        return Vec::new();
    }
    let mut headers = Outgoing(Vec::new());
    TraceContextPropagator::new().inject_context(&span.context(), &mut headers);
    headers.0
}

/// Records how a delivery's receiver answered (`None`: no answer); anything but a 2xx is an
/// error of a client span.
pub fn delivered(span: &Span, status: Option<u16>) {
    if let Some(status) = status {
        span.record("http.response.status_code", status);
    }
    if !status.is_some_and(|s| (200..300).contains(&s)) {
        span.context().span().set_status(Status::error(""));
    }
}

#[cfg(test)]
mod tests {
    use opentelemetry::InstrumentationScope;
    use opentelemetry::trace::SpanKind;
    use opentelemetry_sdk::error::OTelSdkError;
    use opentelemetry_sdk::trace::{SpanEvents, SpanLinks};

    use super::*;

    /// An exporter to a collector that is down: every export fails; it counts them.
    #[derive(Debug)]
    struct Down(Arc<AtomicUsize>);

    impl SpanExporter for Down {
        async fn export(&self, _batch: Vec<SpanData>) -> OTelSdkResult {
            self.0.fetch_add(1, Ordering::Relaxed);
            Err(OTelSdkError::InternalFailure("connection refused".to_owned()))
        }
    }

    fn finished() -> SpanData {
        SpanData {
            span_context: SpanContext::empty_context(),
            parent_span_id: opentelemetry::trace::SpanId::INVALID,
            parent_span_is_remote: false,
            span_kind: SpanKind::Internal,
            name: "a span".into(),
            start_time: std::time::SystemTime::UNIX_EPOCH,
            end_time: std::time::SystemTime::UNIX_EPOCH,
            attributes: Vec::new(),
            dropped_attributes_count: 0,
            events: SpanEvents::default(),
            links: SpanLinks::default(),
            status: Status::Unset,
            instrumentation_scope: InstrumentationScope::builder("test").build(),
        }
    }

    /// The exporter in front of a collector that is down, resting `rest` after a failure, with
    /// `pending` spans waiting.
    fn in_front_of_down(rest: Duration, pending: usize) -> (Counted<Down>, Arc<AtomicUsize>) {
        let calls = Arc::new(AtomicUsize::new(0));
        let counted = Counted {
            inner: Down(calls.clone()),
            pending: Arc::new(AtomicUsize::new(pending)),
            resting: Mutex::new(None),
            rest,
        };
        (counted, calls)
    }

    #[tokio::test]
    async fn after_a_failed_export_the_batches_of_its_rest_are_dropped_and_counted_unsent() {
        let dropped = spans_dropped();
        let (counted, calls) = in_front_of_down(Duration::from_secs(3600), 5);
        assert!(counted.export(vec![finished(), finished()]).await.is_err());
        assert_eq!(calls.load(Ordering::Relaxed), 1, "the first batch is sent");
        assert!(
            counted
                .export(vec![finished(), finished(), finished()])
                .await
                .is_ok()
        );
        assert_eq!(
            calls.load(Ordering::Relaxed),
            1,
            "no batch is sent while it rests"
        );
        assert_eq!(
            spans_dropped() - dropped,
            5,
            "the failed batch's and the rested one's"
        );
        assert_eq!(counted.pending.load(Ordering::Relaxed), 0, "both left the queue");

        // Without a rest, each batch is tried.
        let (eager, calls) = in_front_of_down(Duration::ZERO, 2);
        assert!(eager.export(vec![finished()]).await.is_err());
        assert!(eager.export(vec![finished()]).await.is_err());
        assert_eq!(calls.load(Ordering::Relaxed), 2);
    }

    fn env<'a>(vars: &'a [(&'a str, &'a str)]) -> impl Fn(&str) -> Option<String> + 'a {
        move |name| {
            vars.iter()
                .find(|(k, _)| *k == name)
                .map(|(_, v)| (*v).to_owned())
        }
    }

    #[test]
    fn export_is_on_only_when_an_endpoint_is_given() {
        assert_eq!(asked(env(&[])), Ok(None));
        assert_eq!(asked(env(&[("OTEL_SERVICE_NAME", "x")])), Ok(None));
        let endpoint = ("OTEL_EXPORTER_OTLP_ENDPOINT", "http://collector:4318");
        assert_eq!(asked(env(&[endpoint])), Ok(Some(2048)));
        assert_eq!(
            asked(env(&[(
                "OTEL_EXPORTER_OTLP_TRACES_ENDPOINT",
                "http://c:4318/v1/traces"
            )])),
            Ok(Some(2048))
        );
        assert_eq!(
            asked(env(&[endpoint, ("OTEL_TRACES_EXPORTER", "none")])),
            Ok(None)
        );
        assert_eq!(asked(env(&[endpoint, ("OTEL_SDK_DISABLED", "true")])), Ok(None));
        assert_eq!(
            asked(env(&[endpoint, ("OTEL_BSP_MAX_QUEUE_SIZE", "64")])),
            Ok(Some(64))
        );
        assert!(asked(env(&[endpoint, ("OTEL_BSP_MAX_QUEUE_SIZE", "0")])).is_err());
        assert!(asked(env(&[endpoint, ("OTEL_EXPORTER_OTLP_PROTOCOL", "grpc")])).is_err());
        assert!(asked(env(&[endpoint, ("OTEL_TRACES_EXPORTER", "zipkin")])).is_err());
        assert_eq!(
            asked(env(&[endpoint, ("OTEL_EXPORTER_OTLP_PROTOCOL", "http/protobuf")])),
            Ok(Some(2048))
        );
    }
}
