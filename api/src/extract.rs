//! Request bodies parsed at the edge: bounded, strict JSON with a reason for every refusal.

use std::future::Future;
use std::pin::Pin;

use actix_web::dev::Payload;
use actix_web::http::header;
use actix_web::web::{Bytes, BytesMut};
use actix_web::{FromRequest, HttpRequest};
use futures_util::StreamExt;
use serde::de::DeserializeOwned;

use crate::error::ApiError;

/// Default limit on request bodies: a few KB is plenty for any move.
pub const BODY_LIMIT: usize = 8 * 1024;

/// Limit for creating a game, whose test-mode `stacked_decks` list whole packs per deal.
pub const CREATE_LIMIT: usize = 256 * 1024;

/// A JSON body of type `T`, at most `LIMIT` bytes, with the raw bytes kept for idempotency
/// hashing. An empty body reads as `{}`.
#[derive(Debug)]
pub struct JsonBody<T, const LIMIT: usize = BODY_LIMIT> {
    /// The parsed value.
    pub value: T,
    /// The bytes as received.
    pub raw: Bytes,
}

impl<T: DeserializeOwned + 'static, const LIMIT: usize> FromRequest for JsonBody<T, LIMIT> {
    type Error = ApiError;
    type Future = Pin<Box<dyn Future<Output = Result<Self, ApiError>>>>;

    fn from_request(req: &HttpRequest, payload: &mut Payload) -> Self::Future {
        let declared = req
            .headers()
            .get(header::CONTENT_LENGTH)
            .and_then(|v| v.to_str().ok())
            .and_then(|v| v.parse::<usize>().ok());
        let mut payload = payload.take();
        Box::pin(async move {
            if declared.is_some_and(|n| n > LIMIT) {
                return Err(ApiError::PayloadTooLarge { limit: LIMIT });
            }
            let mut body = BytesMut::new();
            while let Some(chunk) = payload.next().await {
                let chunk = chunk
                    .map_err(|e| ApiError::bad_request("unreadable_body", format!("unreadable body: {e}")))?;
                if body.len() + chunk.len() > LIMIT {
                    return Err(ApiError::PayloadTooLarge { limit: LIMIT });
                }
                body.extend_from_slice(&chunk);
            }
            let raw = body.freeze();
            let value = parse_json(&raw)?;
            Ok(JsonBody { value, raw })
        })
    }
}

/// Parses `bytes` as strict JSON, naming the offending field in the problem's detail.
///
/// # Errors
/// `malformed_json` for bad syntax, `unknown_field`, `unknown_card`, `unknown_variant` or
/// `invalid_body` for well-formed JSON of the wrong shape.
pub fn parse_json<T: DeserializeOwned>(bytes: &[u8]) -> Result<T, ApiError> {
    let text: &[u8] = if bytes.iter().all(u8::is_ascii_whitespace) {
        b"{}"
    } else {
        bytes
    };
    let mut de = serde_json::Deserializer::from_slice(text);
    let parsed: Result<T, _> = serde_path_to_error::deserialize(&mut de);
    if parsed.is_ok() {
        de.end()
            .map_err(|e| ApiError::bad_request("malformed_json", format!("invalid request body: {e}")))?;
    }
    parsed.map_err(|e| {
        let path = e.path().to_string();
        let inner = e.into_inner();
        let message = inner.to_string();
        let code = match inner.classify() {
            serde_json::error::Category::Syntax | serde_json::error::Category::Eof => "malformed_json",
            serde_json::error::Category::Io => "unreadable_body",
            serde_json::error::Category::Data if message.starts_with("unknown field") => "unknown_field",
            serde_json::error::Category::Data if message.contains("unknown card") => "unknown_card",
            serde_json::error::Category::Data if message.contains("unknown rank") => "unknown_card",
            serde_json::error::Category::Data
                if path == "variant" && message.starts_with("unknown variant") =>
            {
                "unknown_variant"
            }
            serde_json::error::Category::Data => "invalid_body",
        };
        let detail = if path == "." || path.is_empty() {
            format!("invalid request body: {message}")
        } else {
            format!("invalid request body at `{path}`: {message}")
        };
        ApiError::bad_request(code, detail)
    })
}
