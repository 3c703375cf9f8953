//! Tracing: a subscriber for the binary, and a request id per request echoed as `X-Request-Id`.

use std::io::IsTerminal;

use actix_web::HttpMessage;
use actix_web::dev::ServiceResponse;
use actix_web::http::header::{HeaderName, HeaderValue};
use tracing_actix_web::RequestId;
use tracing_subscriber::EnvFilter;

/// Installs a formatted subscriber filtered by `RUST_LOG` (default `info`), writing to stdout
/// with ANSI colours only when stdout is a terminal (log files and collectors get plain text).
pub fn init() {
    let filter = EnvFilter::try_from_default_env().unwrap_or_else(|_| EnvFilter::new("info"));
    let _ = tracing_subscriber::fmt()
        .with_env_filter(filter)
        .with_ansi(std::io::stdout().is_terminal())
        .try_init();
}

/// Echoes the request id of `req` into `res` as `X-Request-Id`.
pub fn echo_request_id<B>(mut res: ServiceResponse<B>) -> ServiceResponse<B> {
    let id = res
        .request()
        .extensions()
        .get::<RequestId>()
        .map(|id| id.to_string());
    if let Some(value) = id.and_then(|id| HeaderValue::from_str(&id).ok()) {
        res.headers_mut()
            .insert(HeaderName::from_static("x-request-id"), value);
    }
    res
}
