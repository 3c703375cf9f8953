//! The access line of a request, written without tracing-subscriber's formatter.
//!
//! Every request logs one line at INFO: through the generic formatter (a `Debug` pass per
//! field, the date through `Display`) that line cost about a tenth of the CPU of a meld
//! validation (README "Performance"). This layer writes only the events of target
//! [`ACCESS`], in the same two shapes as the other lines, straight into one reused buffer.

use std::cell::RefCell;
use std::fmt::Write as _;
use std::io::Write as _;

use tracing::field::{Field, Visit};
use tracing::{Event, Level, Subscriber};
use tracing_subscriber::layer::{Context, Layer};

use super::ACCESS;
use super::log_writer::LogWriter;
use crate::config::LogFormat;

/// Writes each access event as one line of `format` to the log writer.
pub struct AccessLines {
    pub writer: LogWriter,
    pub format: LogFormat,
}

thread_local! {
    /// A worker's line buffer, kept between requests.
    static LINE: RefCell<Vec<u8>> = const { RefCell::new(Vec::new()) };
}

impl<S: Subscriber> Layer<S> for AccessLines {
    fn on_event(&self, event: &Event<'_>, _: Context<'_, S>) {
        let metadata = event.metadata();
        if metadata.target() != ACCESS {
            return;
        }
        LINE.with_borrow_mut(|line| {
            line.clear();
            let mut fields = Fields {
                line,
                json: self.format == LogFormat::Json,
            };
            fields.start(*metadata.level());
            event.record(&mut fields);
            fields.end();
            self.writer.append(line);
        });
    }
}

/// A line being written: its fields as `key=value` (text) or `"key":value` (JSON).
struct Fields<'a> {
    line: &'a mut Vec<u8>,
    json: bool,
}

impl Fields<'_> {
    fn start(&mut self, level: Level) {
        let now = time::OffsetDateTime::now_utc();
        let mut stamp = [0u8; 27];
        let (date, clock) = (now.date(), now.time());
        put_digits(&mut stamp[0..4], u32::try_from(date.year()).unwrap_or(0));
        stamp[4] = b'-';
        put_digits(&mut stamp[5..7], u32::from(u8::from(date.month())));
        stamp[7] = b'-';
        put_digits(&mut stamp[8..10], u32::from(date.day()));
        stamp[10] = b'T';
        put_digits(&mut stamp[11..13], u32::from(clock.hour()));
        stamp[13] = b':';
        put_digits(&mut stamp[14..16], u32::from(clock.minute()));
        stamp[16] = b':';
        put_digits(&mut stamp[17..19], u32::from(clock.second()));
        stamp[19] = b'.';
        put_digits(&mut stamp[20..26], clock.microsecond());
        stamp[26] = b'Z';
        let level = level.as_str();
        if self.json {
            self.line.extend_from_slice(b"{\"timestamp\":\"");
            self.line.extend_from_slice(&stamp);
            self.line.extend_from_slice(b"\",\"level\":\"");
            self.line.extend_from_slice(level.as_bytes());
            self.line.push(b'"');
        } else {
            self.line.extend_from_slice(&stamp);
            // Levels right-aligned to five, as the formatter of the other lines does.
            self.line.resize(self.line.len() + 6 - level.len(), b' ');
            self.line.extend_from_slice(level.as_bytes());
            self.line.extend_from_slice(b" ");
            self.line.extend_from_slice(ACCESS.as_bytes());
            self.line.push(b':');
        }
    }

    fn end(&mut self) {
        if self.json {
            self.line.extend_from_slice(b",\"target\":\"");
            self.line.extend_from_slice(ACCESS.as_bytes());
            self.line.extend_from_slice(b"\"}");
        }
        self.line.push(b'\n');
    }

    fn key(&mut self, field: &Field) {
        if self.json {
            self.line.extend_from_slice(b",\"");
            self.line.extend_from_slice(field.name().as_bytes());
            self.line.extend_from_slice(b"\":");
        } else if field.name() == "message" {
            self.line.push(b' ');
        } else {
            self.line.push(b' ');
            self.line.extend_from_slice(field.name().as_bytes());
            self.line.push(b'=');
        }
    }

    fn text(&mut self, field: &Field, value: &str) {
        self.key(field);
        if self.json {
            // A &str always serialises.
            let _ = serde_json::to_writer(&mut *self.line, value);
        } else if field.name() == "message" {
            self.line.extend_from_slice(value.as_bytes());
        } else if value
            .bytes()
            .all(|b| b.is_ascii_graphic() && b != b'"' && b != b'\\')
        {
            self.line.push(b'"');
            self.line.extend_from_slice(value.as_bytes());
            self.line.push(b'"');
        } else {
            let _ = write!(self.line, "{value:?}");
        }
    }
}

/// Writes `n` as exactly `into.len()` decimal digits (zero-padded, high digits cut).
fn put_digits(into: &mut [u8], mut n: u32) {
    for digit in into.iter_mut().rev() {
        *digit = b'0' + (n % 10) as u8;
        n /= 10;
    }
}

impl Visit for Fields<'_> {
    fn record_str(&mut self, field: &Field, value: &str) {
        self.text(field, value);
    }

    fn record_u64(&mut self, field: &Field, value: u64) {
        self.key(field);
        self.line
            .extend_from_slice(itoa::Buffer::new().format(value).as_bytes());
    }

    fn record_i64(&mut self, field: &Field, value: i64) {
        self.key(field);
        self.line
            .extend_from_slice(itoa::Buffer::new().format(value).as_bytes());
    }

    fn record_bool(&mut self, field: &Field, value: bool) {
        self.key(field);
        self.line
            .extend_from_slice(if value { b"true" } else { b"false" });
    }

    fn record_f64(&mut self, field: &Field, value: f64) {
        self.key(field);
        if value.is_finite() {
            self.line
                .extend_from_slice(ryu::Buffer::new().format_finite(value).as_bytes());
        } else {
            self.line.extend_from_slice(b"null");
        }
    }

    fn record_debug(&mut self, field: &Field, value: &dyn std::fmt::Debug) {
        let mut text = String::new();
        let _ = write!(text, "{value:?}");
        self.text(field, &text);
    }
}

#[cfg(test)]
mod tests {
    use std::sync::{Arc, Mutex};

    use tracing_subscriber::layer::SubscriberExt;

    use super::*;
    use crate::telemetry::log_writer::log_writer;

    #[derive(Clone, Default)]
    struct Out(Arc<Mutex<Vec<u8>>>);

    impl std::io::Write for Out {
        fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
            self.0.lock().expect("the bytes").extend_from_slice(buf);
            Ok(buf.len())
        }

        fn flush(&mut self) -> std::io::Result<()> {
            Ok(())
        }
    }

    /// The line an access event makes in `format`.
    fn line(format: LogFormat) -> String {
        let out = Out::default();
        let (writer, guard) = log_writer(out.clone());
        let subscriber = tracing_subscriber::registry().with(AccessLines { writer, format });
        tracing::subscriber::with_default(subscriber, || {
            tracing::warn!(
                target: ACCESS,
                request_id = "id-1",
                route = "/v1/games/{id}",
                status = 503_u64,
                latency_ms = 1.5,
                code = Some("unavailable"),
                cause = "pool timed out: \"db\"\n",
                "request"
            );
            // Not an access event: another layer's.
            tracing::warn!(target: "continental", "elsewhere");
        });
        drop(guard);
        let bytes = out.0.lock().expect("the bytes").clone();
        String::from_utf8(bytes).expect("UTF-8")
    }

    #[test]
    fn a_json_line_is_one_object_with_every_field() {
        let written = line(LogFormat::Json);
        assert_eq!(written.lines().count(), 1, "{written}");
        let value: serde_json::Value = serde_json::from_str(&written).expect("one JSON object");
        assert_eq!(value["target"], ACCESS);
        assert_eq!(value["level"], "WARN");
        assert_eq!(value["message"], "request");
        assert_eq!(value["request_id"], "id-1");
        assert_eq!(value["route"], "/v1/games/{id}");
        assert_eq!(value["status"], 503);
        assert_eq!(value["latency_ms"], 1.5);
        assert_eq!(value["code"], "unavailable");
        assert_eq!(value["cause"], "pool timed out: \"db\"\n");
        let stamp = value["timestamp"].as_str().expect("a timestamp");
        assert!(
            time::OffsetDateTime::parse(stamp, &time::format_description::well_known::Rfc3339).is_ok(),
            "{stamp}"
        );
    }

    #[test]
    fn a_text_line_quotes_what_needs_it_and_stays_one_line() {
        let written = line(LogFormat::Text);
        assert_eq!(written.lines().count(), 1, "{written}");
        assert!(
            written.contains(
                "  WARN continental::access: request request_id=\"id-1\" route=\"/v1/games/{id}\" status=503 latency_ms=1.5 code=\"unavailable\" cause=\"pool timed out: \\\"db\\\"\\n\""
            ),
            "{written}"
        );
    }
}
