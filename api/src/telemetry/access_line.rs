//! The access line of a request, written straight by the middleware, without tracing.
//!
//! Every request logs one line at INFO. As a tracing event it went through the dispatch, every
//! layer's filter and a visitor per field, and through the generic formatter (a `Debug` pass
//! per field, the date through `Display`) before that: a large part of the CPU of a meld
//! validation (docs/performance.md). Here the middleware hands the line's fields to
//! [`write`], which checks the levels `RUST_LOG` gives the target [`ACCESS`] (settled once,
//! at start) and writes the line, in the same two shapes as the other lines, into one reused
//! buffer.

use std::cell::{Cell, RefCell};
use std::io::Write as _;
use std::sync::OnceLock;
use std::time::{Duration, SystemTime, UNIX_EPOCH};

use tracing::Level;
use tracing_subscriber::EnvFilter;
use tracing_subscriber::layer::SubscriberExt;

use super::ACCESS;
use super::log_writer::LogWriter;
use crate::config::LogFormat;

/// One request's line.
#[derive(Debug)]
pub struct Access<'a> {
    /// The request's id, as echoed in `X-Request-Id`.
    pub request_id: &'a str,
    /// The request's trace, when spans are exported.
    pub trace_id: Option<&'a str>,
    /// The request's method.
    pub method: &'a str,
    /// The matched route pattern, or `unmatched`.
    pub route: &'a str,
    /// The answer's status.
    pub status: u16,
    /// Written as `latency_ms`.
    pub latency: Duration,
    /// A refusal's code.
    pub code: Option<&'a str>,
    /// A 5xx's cause.
    pub cause: Option<&'a str>,
}

/// Where the access lines go, in which shape, and at which levels.
pub(super) struct AccessLog {
    writer: LogWriter,
    format: LogFormat,
    info: bool,
    warn: bool,
}

/// The process's access log, once [`install`]ed (the binary's `telemetry::init`).
static LOG: OnceLock<AccessLog> = OnceLock::new();

thread_local! {
    /// A worker's line buffer, kept between requests.
    static LINE: RefCell<Vec<u8>> = const { RefCell::new(Vec::new()) };
    /// The minute a worker's last line was written in, and its date and time to the minute.
    static MINUTE: Cell<(Option<u64>, [u8; 17])> = const { Cell::new((None, [0; 17])) };
}

/// A field's name as each shape writes it before the value (built by `key!`).
struct Key {
    text: &'static str,
    json: &'static str,
}

/// The [`Key`] of the field `name`: ` name=` in text, `,"name":` in JSON.
macro_rules! key {
    ($name:literal) => {
        Key {
            text: concat!(" ", $name, "="),
            json: concat!(",\"", $name, "\":"),
        }
    };
}

impl AccessLog {
    /// Lines to `writer` in `format`, at the levels `filter` (`RUST_LOG`'s directives) enables
    /// for the target [`ACCESS`].
    pub(super) fn new(writer: LogWriter, format: LogFormat, filter: EnvFilter) -> AccessLog {
        // Asked of the filter alone, in a subscriber of its own, before any other is installed.
        let probe = tracing_subscriber::registry().with(filter);
        let (info, warn) = tracing::subscriber::with_default(probe, || {
            (
                tracing::event_enabled!(target: ACCESS, Level::INFO),
                tracing::event_enabled!(target: ACCESS, Level::WARN),
            )
        });
        AccessLog {
            writer,
            format,
            info,
            warn,
        }
    }

    /// Whether lines of `level` are written.
    fn enabled(&self, level: Level) -> bool {
        if level == Level::WARN {
            self.warn
        } else {
            self.info
        }
    }

    /// Appends the line of `access` at `level` to `line`.
    fn line(&self, level: Level, access: &Access<'_>, line: &mut Vec<u8>) {
        let mut fields = Fields {
            line,
            json: self.format == LogFormat::Json,
        };
        fields.start(level);
        fields.text(&key!("request_id"), access.request_id);
        if let Some(trace_id) = access.trace_id {
            fields.text(&key!("trace_id"), trace_id);
        }
        fields.text(&key!("method"), access.method);
        fields.text(&key!("route"), access.route);
        fields.key(&key!("status"));
        fields
            .line
            .extend_from_slice(itoa::Buffer::new().format(access.status).as_bytes());
        fields.key(&key!("latency_ms"));
        put_millis(fields.line, access.latency);
        if let Some(code) = access.code {
            fields.text(&key!("code"), code);
        }
        if let Some(cause) = access.cause {
            fields.text(&key!("cause"), cause);
        }
        fields.end();
    }
}

/// Makes `log` the process's access log; the first one installed stays.
pub(super) fn install(log: AccessLog) {
    let _ = LOG.set(log);
}

/// Writes the access line of a request at `level`, if the access log is installed and `RUST_LOG`
/// enables the level for [`ACCESS`].
pub fn write(level: Level, access: &Access<'_>) {
    let Some(log) = LOG.get().filter(|log| log.enabled(level)) else {
        return;
    };
    LINE.with_borrow_mut(|line| {
        line.clear();
        log.line(level, access, line);
        log.writer.append(line);
    });
}

/// A line being written: its fields as `key=value` (text) or `"key":value` (JSON).
struct Fields<'a> {
    line: &'a mut Vec<u8>,
    json: bool,
}

impl Fields<'_> {
    fn start(&mut self, level: Level) {
        let since_epoch = SystemTime::now().duration_since(UNIX_EPOCH).unwrap_or_default();
        let stamp = stamp(since_epoch);
        let level = level.as_str();
        if self.json {
            self.line.extend_from_slice(b"{\"timestamp\":\"");
            self.line.extend_from_slice(&stamp);
            self.line.extend_from_slice(b"\",\"level\":\"");
            self.line.extend_from_slice(level.as_bytes());
            self.line.extend_from_slice(b"\",\"message\":\"request\"");
        } else {
            self.line.extend_from_slice(&stamp);
            // Levels right-aligned to five, as the formatter of the other lines does.
            self.line.resize(self.line.len() + 6 - level.len(), b' ');
            self.line.extend_from_slice(level.as_bytes());
            self.line.extend_from_slice(b" ");
            self.line.extend_from_slice(ACCESS.as_bytes());
            self.line.extend_from_slice(b": request");
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

    fn key(&mut self, key: &Key) {
        let written = if self.json { key.json } else { key.text };
        self.line.extend_from_slice(written.as_bytes());
    }

    fn text(&mut self, key: &Key, value: &str) {
        self.key(key);
        if self.json {
            // A &str always serialises.
            let _ = serde_json::to_writer(&mut *self.line, value);
        } else if is_plain(value) {
            self.line.push(b'"');
            self.line.extend_from_slice(value.as_bytes());
            self.line.push(b'"');
        } else {
            let _ = write!(self.line, "{value:?}");
        }
    }
}

/// Whether a text value is written unquoted: visible ASCII but the quote and the backslash.
fn is_plain(value: &str) -> bool {
    // Every byte looked at, without stopping at the first that fails: the compiler does it
    // sixteen bytes at a time.
    value.bytes().fold(true, |plain, b| {
        plain & b.is_ascii_graphic() & (b != b'"') & (b != b'\\')
    })
}

/// Writes `latency` in milliseconds, to the nanosecond, without trailing zeros (`1.5`, `0.0423`,
/// `12`): integers written, not a float.
fn put_millis(line: &mut Vec<u8>, latency: Duration) {
    let nanos = latency.as_nanos();
    line.extend_from_slice(itoa::Buffer::new().format(nanos / 1_000_000).as_bytes());
    let fraction = u32::try_from(nanos % 1_000_000).unwrap_or(0);
    if fraction != 0 {
        let mut digits = [0u8; 6];
        put_digits(&mut digits, fraction);
        let shown = digits.iter().rposition(|d| *d != b'0').map_or(0, |last| last + 1);
        line.push(b'.');
        line.extend_from_slice(&digits[..shown]);
    }
}

/// The UTC time `since_epoch` as `YYYY-MM-DDTHH:MM:SS.ffffffZ`. The date and the minute are
/// worked out once a minute on each thread, the seconds and microseconds every time.
fn stamp(since_epoch: Duration) -> [u8; 27] {
    let seconds = since_epoch.as_secs();
    let minute = seconds / 60;
    let mut stamp = [0u8; 27];
    stamp[..17].copy_from_slice(&MINUTE.with(|cached| {
        let (known, prefix) = cached.get();
        if known == Some(minute) {
            return prefix;
        }
        let prefix = minute_prefix(minute);
        cached.set((Some(minute), prefix));
        prefix
    }));
    put_digits(&mut stamp[17..19], u32::try_from(seconds % 60).unwrap_or(0));
    stamp[19] = b'.';
    put_digits(&mut stamp[20..26], since_epoch.subsec_micros());
    stamp[26] = b'Z';
    stamp
}

/// `YYYY-MM-DDTHH:MM:` of the minute `minute` minutes after the epoch.
fn minute_prefix(minute: u64) -> [u8; 17] {
    let at = i64::try_from(minute.saturating_mul(60))
        .ok()
        .and_then(|s| time::OffsetDateTime::from_unix_timestamp(s).ok())
        .unwrap_or(time::OffsetDateTime::UNIX_EPOCH);
    let (date, clock) = (at.date(), at.time());
    let mut prefix = [0u8; 17];
    put_digits(&mut prefix[0..4], u32::try_from(date.year()).unwrap_or(0));
    prefix[4] = b'-';
    put_digits(&mut prefix[5..7], u32::from(u8::from(date.month())));
    prefix[7] = b'-';
    put_digits(&mut prefix[8..10], u32::from(date.day()));
    prefix[10] = b'T';
    put_digits(&mut prefix[11..13], u32::from(clock.hour()));
    prefix[13] = b':';
    put_digits(&mut prefix[14..16], u32::from(clock.minute()));
    prefix[16] = b':';
    prefix
}

/// Writes `n` as exactly `into.len()` decimal digits (zero-padded, high digits cut).
fn put_digits(into: &mut [u8], mut n: u32) {
    for digit in into.iter_mut().rev() {
        *digit = b'0' + (n % 10) as u8;
        n /= 10;
    }
}

#[cfg(test)]
mod tests {
    use std::sync::{Arc, Mutex};

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

    const REFUSED: Access<'static> = Access {
        request_id: "id-1",
        trace_id: None,
        method: "GET",
        route: "/v1/games/{id}",
        status: 503,
        latency: Duration::from_micros(1500),
        code: Some("unavailable"),
        cause: Some("pool timed out: \"db\"\n"),
    };

    /// The lines `access` makes at WARN and INFO in `format`, with `directives` as `RUST_LOG`.
    fn lines(format: LogFormat, directives: &str, access: &Access<'_>) -> String {
        let out = Out::default();
        let (writer, guard) = log_writer(out.clone());
        let log = AccessLog::new(writer, format, EnvFilter::new(directives));
        for level in [Level::WARN, Level::INFO] {
            if log.enabled(level) {
                let mut line = Vec::new();
                log.line(level, access, &mut line);
                log.writer.append(&line);
            }
        }
        drop(log);
        drop(guard);
        let bytes = out.0.lock().expect("the bytes").clone();
        String::from_utf8(bytes).expect("UTF-8")
    }

    #[test]
    fn a_json_line_is_one_object_with_every_field() {
        let written = lines(LogFormat::Json, "warn", &REFUSED);
        assert_eq!(written.lines().count(), 1, "{written}");
        let value: serde_json::Value = serde_json::from_str(&written).expect("one JSON object");
        assert_eq!(value["target"], ACCESS);
        assert_eq!(value["level"], "WARN");
        assert_eq!(value["message"], "request");
        assert_eq!(value["request_id"], "id-1");
        assert_eq!(value["method"], "GET");
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
        let written = lines(LogFormat::Text, "warn", &REFUSED);
        assert_eq!(written.lines().count(), 1, "{written}");
        assert!(
            written.contains(
                "  WARN continental::access: request request_id=\"id-1\" method=\"GET\" route=\"/v1/games/{id}\" status=503 latency_ms=1.5 code=\"unavailable\" cause=\"pool timed out: \\\"db\\\"\\n\""
            ),
            "{written}"
        );
    }

    #[test]
    fn plain_values_are_visible_ascii_without_quote_or_backslash() {
        for b in 0..=u8::MAX {
            let plain = (0x21..=0x7e).contains(&b) && b != b'"' && b != b'\\';
            let text = String::from_utf8_lossy(&[b'x'; 20].iter().copied().chain([b]).collect::<Vec<_>>())
                .into_owned();
            assert_eq!(is_plain(&text), plain, "byte {b:#x}");
        }
        assert!(is_plain(&"a".repeat(100)));
        assert!(!is_plain("é"));
    }

    #[test]
    fn the_stamp_is_the_utc_time_to_the_microsecond() {
        let format = time::format_description::parse(
            "[year]-[month]-[day]T[hour]:[minute]:[second].[subsecond digits:6]Z",
        )
        .expect("a format");
        // Across minutes, hours, days and years, in and out of order (the minute is cached).
        for nanos in [
            1_795_000_000_123_456_789_u64,
            1_795_000_059_999_999_999,
            1_795_000_060_000_000_000,
            1_767_225_599_500_000_000,
            1_767_225_600_000_001_000,
            1_795_000_000_000_000_000,
            951_782_400_000_000_000,
        ] {
            let since_epoch = Duration::from_nanos(nanos);
            let expected = time::OffsetDateTime::from_unix_timestamp_nanos(i128::from(nanos))
                .expect("a time")
                .format(&format)
                .expect("formatted");
            assert_eq!(String::from_utf8_lossy(&stamp(since_epoch)), expected, "{nanos}");
        }
    }

    #[test]
    fn latency_is_milliseconds_to_the_nanosecond_without_trailing_zeros() {
        for (nanos, written) in [
            (1_500_000, "1.5"),
            (42_300, "0.0423"),
            (12_000_000, "12"),
            (1, "0.000001"),
            (0, "0"),
            (1_234_567_890, "1234.56789"),
        ] {
            let mut line = Vec::new();
            put_millis(&mut line, Duration::from_nanos(nanos));
            assert_eq!(String::from_utf8_lossy(&line), written, "{nanos} ns");
        }
    }

    #[test]
    fn the_levels_are_those_rust_log_gives_the_access_target() {
        let answered = Access {
            status: 200,
            code: None,
            cause: None,
            ..REFUSED
        };
        let shown = |directives| lines(LogFormat::Text, directives, &answered).lines().count();
        assert_eq!(shown("info"), 2, "WARN and INFO");
        assert_eq!(shown("warn"), 1);
        assert_eq!(shown("info,continental::access=warn"), 1);
        assert_eq!(shown("warn,continental::access=info"), 2);
        assert_eq!(shown("info,continental=error"), 0);
        assert_eq!(shown("off"), 0);
    }
}
