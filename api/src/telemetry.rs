//! Tracing: a subscriber for the binary, the request's access line and the exported spans.
//! It knows nothing of requests' answers or the application's state: the edge middleware
//! (`http/seen.rs`) hands each request's line to [`access_line`], and the store and the use
//! cases open their spans through [`traces`].
//!
//! The request's line is under the target [`ACCESS`]: INFO, or WARN for a 5xx with its cause
//! as a field, so that every request is exactly one line. The request's span (which gives the
//! request id to whatever else is logged while it runs) is at DEBUG, so at the default level it
//! costs a disabled callsite. Lines are written by a thread of their own, in batches, never by
//! a worker; the access line is written by the middleware itself, not through tracing
//! (`access_line`), at the levels `RUST_LOG` gives its target.

use std::io::IsTerminal;

use tracing_subscriber::layer::SubscriberExt;
use tracing_subscriber::util::SubscriberInitExt;
use tracing_subscriber::{EnvFilter, Layer, fmt};

use crate::config::LogFormat;

pub mod access_line;
mod log_writer;
pub mod traces;
use access_line::AccessLog;
use log_writer::log_writer;

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
