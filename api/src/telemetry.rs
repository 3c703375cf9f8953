//! Tracing: a subscriber for the binary, and one log line and one metric sample per request,
//! under a request id that is echoed as `X-Request-Id` (a client's own id is kept).
//!
//! The request's line is under the target [`ACCESS`]: INFO, or WARN for a 5xx with its cause
//! as a field, so that every request is exactly one line. The request's span (which gives the
//! request id to whatever else is logged while it runs) is at DEBUG, so at the default level it
//! costs a disabled callsite. Lines are written by a thread of their own, in batches, never by
//! a worker; the access line is written by the middleware itself, not through tracing
//! (`access_line`), at the levels `RUST_LOG` gives its target.

use std::io::IsTerminal;
use std::sync::Arc;
use std::time::Instant;

use actix_web::dev::{ServiceRequest, ServiceResponse};
use actix_web::http::Method;
use actix_web::http::header::{HeaderName, HeaderValue};
use tracing::{Level, Span};
use tracing_subscriber::layer::SubscriberExt;
use tracing_subscriber::util::SubscriberInitExt;
use tracing_subscriber::{EnvFilter, Layer, fmt};
use uuid::Uuid;

use crate::config::LogFormat;
use crate::error::ApiError;
use crate::metrics::Metrics;
use crate::state::AppState;

mod access_line;
mod log_writer;
pub mod traces;
use access_line::{Access, AccessLog};
use log_writer::log_writer;

/// The header a request id travels in, both ways.
pub const REQUEST_ID: &str = "x-request-id";

/// The target of the request's span and line: `RUST_LOG=info,continental::access=warn` logs
/// only the requests answered 5xx, `continental::access=debug` adds the span to other lines.
pub const ACCESS: &str = "continental::access";

/// Installs a subscriber filtered by `RUST_LOG` (default `info`) writing to stdout: text (with
/// ANSI colours only on a terminal) or one JSON object per line, and the access log
/// (`access_line`), in the same shape, at the levels `RUST_LOG` gives [`ACCESS`]. The lines
/// wait in memory for a writer thread that writes them in batches (`log_writer`); keep the
/// guard until exit, its drop writes what is left. When the `OTEL_*` variables ask for it
/// (`env`), spans are exported too (`traces`), and the guard's drop sends the last of them.
///
/// # Errors
/// `OTEL_*` variables that ask for what is not supported (gRPC), or an unusable endpoint.
pub fn init(format: LogFormat, env: impl Fn(&str) -> Option<String>) -> Result<LogGuard, String> {
    let exporting = traces::asked(env)?;
    // The spans of traces are not lines: off for the log, unless they are exported, when the
    // request's and a delivery's give their trace id to the lines written inside them.
    let filter = || {
        let filter = EnvFilter::try_from_default_env().unwrap_or_else(|_| EnvFilter::new("info"));
        let quiet = if exporting.is_some() {
            traces::DETAIL
        } else {
            traces::TRACE
        };
        match format!("{quiet}=off").parse() {
            Ok(directive) => filter.add_directive(directive),
            Err(_) => filter,
        }
    };
    let (writer, guard) = log_writer(std::io::stdout());
    access_line::install(AccessLog::new(writer.clone(), format, filter()));
    let Some(queue) = exporting else {
        let _ = tracing_subscriber::registry()
            .with(filter())
            .with(lines(format, writer))
            .try_init();
        return Ok(LogGuard {
            traces: None,
            _lines: guard,
        });
    };
    let provider = traces::provider(queue)?;
    // Each its own filter: the log's from RUST_LOG, the export's its own spans.
    let _ = tracing_subscriber::registry()
        .with(lines(format, writer).with_filter(filter()))
        .with(traces::layer(&provider))
        .try_init();
    Ok(LogGuard {
        traces: Some(provider),
        _lines: guard,
    })
}

/// Keep it until exit: its drop exports the spans still waiting, then writes the lines still
/// waiting and stops the log's thread.
#[must_use = "dropping the guard stops the log writer"]
pub struct LogGuard {
    traces: Option<opentelemetry_sdk::trace::SdkTracerProvider>,
    _lines: log_writer::LogGuard,
}

impl Drop for LogGuard {
    fn drop(&mut self) {
        if let Some(provider) = self.traces.take() {
            // A collector that is down is not waited for long.
            let _ = provider.shutdown_with_timeout(std::time::Duration::from_secs(2));
        }
    }
}

/// The layer that writes the log's lines to `writer` in `format`.
fn lines<S>(format: LogFormat, writer: log_writer::LogWriter) -> Box<dyn Layer<S> + Send + Sync>
where
    S: tracing::Subscriber + for<'a> tracing_subscriber::registry::LookupSpan<'a>,
{
    let lines = fmt::layer().with_writer(writer);
    match format {
        LogFormat::Text => lines.with_ansi(std::io::stdout().is_terminal()).boxed(),
        LogFormat::Json => lines.json().flatten_event(true).boxed(),
    }
}

/// A client's request id, if it is one we can echo and log safely: the value as received (no
/// copy), or without the spaces around it.
fn usable_id(value: &HeaderValue) -> Option<HeaderValue> {
    let sent = value.to_str().ok()?;
    let text = sent.trim();
    let fits = !text.is_empty() && text.len() <= 128 && text.bytes().all(|b| b.is_ascii_graphic());
    match fits {
        false => None,
        true if text.len() == sent.len() => Some(value.clone()),
        true => HeaderValue::from_str(text).ok(),
    }
}

/// The id of a request: the client's `X-Request-Id` if it sent a usable one, else a new UUID,
/// as the header value it is echoed in.
fn request_id(req: &ServiceRequest) -> HeaderValue {
    if let Some(id) = req.headers().get(REQUEST_ID).and_then(usable_id) {
        return id;
    }
    // Encoded straight into the header's bytes, without the formatting machinery.
    let mut id = [0u8; uuid::fmt::Hyphenated::LENGTH];
    let id = Uuid::new_v4().hyphenated().encode_lower(&mut id);
    HeaderValue::from_str(id).unwrap_or_else(|_| HeaderValue::from_static("unknown"))
}

/// What the edge knows of a request before it is answered, to log and count it then: when it
/// came, its id, its method.
pub struct Seen {
    started: Instant,
    id: HeaderValue,
    method: Method,
    metrics: Option<Arc<Metrics>>,
    /// With export on: the request's span and its trace id.
    traced: Option<(Span, String)>,
}

impl Seen {
    /// The request as it arrives: gives it its id (the client's if usable, else a new one).
    pub fn new(req: &ServiceRequest, state: Option<&AppState>) -> Seen {
        let id = request_id(req);
        let traced = traces::on().then(|| {
            traces::request_span(
                req.method().as_str(),
                req.headers(),
                id.to_str().unwrap_or_default(),
            )
        });
        Seen {
            started: Instant::now(),
            id,
            method: req.method().clone(),
            metrics: state.map(|s| s.metrics.clone()),
            traced,
        }
    }

    /// The request's span, carrying its id: with export on, its server span (`traces`);
    /// otherwise at DEBUG, at the default level a disabled callsite.
    pub fn span(&self) -> Span {
        match &self.traced {
            Some((span, _)) => span.clone(),
            None => tracing::debug_span!(target: ACCESS, "request", request_id = %self.id_text()),
        }
    }

    /// The id as text: visible ASCII, checked by `usable_id` or made so.
    fn id_text(&self) -> &str {
        self.id.to_str().unwrap_or_default()
    }

    /// Writes the one log line of the request (method, route, status, latency, id, a refusal's
    /// code: INFO; WARN for a 5xx, with its cause), counts it in the metrics by route pattern
    /// and echoes its id in `X-Request-Id`.
    ///
    /// # Errors
    /// `result`'s own (handlers' errors arrive as responses).
    pub fn answered<B>(
        self,
        result: Result<ServiceResponse<B>, actix_web::Error>,
    ) -> Result<ServiceResponse<B>, actix_web::Error> {
        let elapsed = self.started.elapsed();
        let (status, route, error) = match &result {
            Ok(res) => (
                res.status(),
                // The matched pattern, never the raw path (one series per game otherwise).
                res.request()
                    .match_pattern()
                    .unwrap_or_else(|| "unmatched".to_owned()),
                res.response().error().and_then(|e| e.as_error::<ApiError>()),
            ),
            Err(e) => (
                e.as_response_error().status_code(),
                "unmatched".to_owned(),
                e.as_error::<ApiError>(),
            ),
        };
        let code = error.map(ApiError::code);
        let cause = error.and_then(ApiError::cause);
        let level = if status.is_server_error() {
            Level::WARN
        } else {
            Level::INFO
        };
        if let Some((span, _)) = &self.traced {
            traces::answered(span, self.method.as_str(), &route, status.as_u16());
        }
        access_line::write(
            level,
            &Access {
                request_id: self.id_text(),
                trace_id: self.traced.as_ref().map(|(_, id)| id.as_str()),
                method: self.method.as_str(),
                route: &route,
                status: status.as_u16(),
                latency: elapsed,
                code,
                cause: cause.as_deref(),
            },
        );
        if let Some(metrics) = &self.metrics {
            metrics.request(&route, self.method.as_str(), status.as_u16(), elapsed);
            if let Some(unavailable) = error.and_then(ApiError::database_failure) {
                metrics.database_error(unavailable);
            }
        }
        let mut res = result?;
        res.headers_mut()
            .insert(HeaderName::from_static(REQUEST_ID), self.id);
        Ok(res)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_client_id_is_kept_when_it_is_safe_to_echo_and_log() {
        let usable = |sent: &str| usable_id(&HeaderValue::from_str(sent).expect("a header value"));
        assert_eq!(
            usable("client-42").as_ref().map(HeaderValue::as_bytes),
            Some(&b"client-42"[..])
        );
        assert_eq!(
            usable(" padded\t").as_ref().map(HeaderValue::as_bytes),
            Some(&b"padded"[..])
        );
        assert_eq!(usable("two words"), None, "a space would split the log line");
        assert_eq!(usable(""), None);
        assert_eq!(usable(&"x".repeat(129)), None);
        assert!(usable(&"x".repeat(128)).is_some());
        let not_text = HeaderValue::from_bytes(b"caf\xc3\xa9").expect("a header value");
        assert_eq!(usable_id(&not_text), None);
    }
}
