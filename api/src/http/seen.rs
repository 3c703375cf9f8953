//! What the edge knows of a request while it runs: its id (a client's own, when it is safe to
//! echo, else a new one), echoed as `X-Request-Id`, its span, and, once answered, its one access
//! line (`telemetry::access_line`) and its sample in the metrics.

use std::sync::Arc;
use std::time::Instant;

use actix_web::dev::{ServiceRequest, ServiceResponse};
use actix_web::http::Method;
use actix_web::http::header::{HeaderName, HeaderValue};
use tracing::{Level, Span};
use uuid::Uuid;

use crate::error::ApiError;
use crate::metrics::Metrics;
use crate::state::AppState;
use crate::telemetry::access_line::{self, Access};
use crate::telemetry::{ACCESS, traces};

/// The header a request id travels in, both ways.
pub const REQUEST_ID: &str = "x-request-id";

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
