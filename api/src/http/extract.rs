//! Request bodies parsed at the edge: bounded, strict JSON with a reason for every refusal.

use std::future::Future;
use std::pin::Pin;
use std::task::Poll;
use std::time::Duration;

use actix_web::dev::Payload;
use actix_web::error::PayloadError;
use actix_web::http::header;
use actix_web::web::{self, Bytes, BytesMut};
use actix_web::{FromRequest, HttpRequest};
use futures_util::StreamExt;
use serde::de::DeserializeOwned;

use crate::error::ApiError;
use crate::state::AppState;
use crate::wire::{Code, Invalid};

/// Default limit on request bodies: a few KB is plenty for any move.
pub const BODY_LIMIT: usize = 8 * 1024;

/// Limit for a batch of validations: a thousand melds of a dozen cards and more.
pub const BATCH_LIMIT: usize = 512 * 1024;

/// Limit for a hand to arrange: a hand and a table of melds.
pub const HAND_LIMIT: usize = 64 * 1024;

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
        let raw = JsonBytes::<LIMIT>::from_request(req, payload);
        Box::pin(async move {
            let JsonBytes(raw) = raw.await?;
            let value = parse_json(&raw)?;
            Ok(JsonBody { value, raw })
        })
    }
}

/// The bytes of a JSON body of at most `LIMIT` bytes, not yet parsed: for a handler that
/// reads them its own way (a batch, read in one pass when it can be).
#[derive(Debug)]
pub struct JsonBytes<const LIMIT: usize>(pub Bytes);

impl<const LIMIT: usize> FromRequest for JsonBytes<LIMIT> {
    type Error = ApiError;
    type Future = Pin<Box<dyn Future<Output = Result<Self, ApiError>>>>;

    fn from_request(req: &HttpRequest, payload: &mut Payload) -> Self::Future {
        let declared = req
            .headers()
            .get(header::CONTENT_LENGTH)
            .and_then(|v| v.to_str().ok())
            .and_then(|v| v.parse::<usize>().ok());
        let timeout = req
            .app_data::<web::Data<AppState>>()
            .map_or(Duration::from_secs(5), |s| s.limits.request_timeout);
        let json_type = is_json(req);
        let mut payload = payload.take();
        Box::pin(async move {
            if declared.is_some_and(|n| n > LIMIT) {
                return Err(ApiError::PayloadTooLarge { limit: LIMIT });
            }
            let read = read_body::<LIMIT>(&mut payload, declared);
            // A body that has all arrived with its headers is read at once, without a timer;
            // a client that sends headers and then stalls must not keep a worker's attention.
            let mut read = std::pin::pin!(read);
            let raw =
                match futures_util::poll!(&mut read) {
                    Poll::Ready(body) => body?,
                    Poll::Pending => tokio::time::timeout(timeout, read).await.map_err(|_| {
                        ApiError::RequestTimeout {
                            seconds: timeout.as_secs_f64(),
                        }
                    })??,
                };
            // An empty body needs no type (it reads as `{}`); any other must say it is JSON.
            if !json_type && !raw.iter().all(u8::is_ascii_whitespace) {
                return Err(ApiError::UnsupportedMediaType);
            }
            Ok(JsonBytes(raw))
        })
    }
}

/// The body of a request, at most `LIMIT` bytes (`declared` by its `Content-Length`).
async fn read_body<const LIMIT: usize>(
    payload: &mut Payload,
    declared: Option<usize>,
) -> Result<Bytes, ApiError> {
    let unreadable = |e: PayloadError| Invalid::new(Code::UnreadableBody, format!("unreadable body: {e}"));
    let too_large = |len: usize| match len > LIMIT {
        true => Err(ApiError::PayloadTooLarge { limit: LIMIT }),
        false => Ok(()),
    };
    let Some(first) = payload.next().await.transpose().map_err(unreadable)? else {
        return Ok(Bytes::new());
    };
    too_large(first.len())?;
    // A small body nearly always arrives in one chunk: kept as it is, not copied.
    let Some(mut chunk) = payload.next().await.transpose().map_err(unreadable)? else {
        return Ok(first);
    };
    let mut body = BytesMut::with_capacity(declared.unwrap_or(0).min(LIMIT));
    body.extend_from_slice(&first);
    loop {
        too_large(body.len() + chunk.len())?;
        body.extend_from_slice(&chunk);
        match payload.next().await.transpose().map_err(unreadable)? {
            Some(more) => chunk = more,
            None => return Ok(body.freeze()),
        }
    }
}

/// Whether the request's `Content-Type` is JSON (`application/json` or `application/*+json`).
fn is_json(req: &HttpRequest) -> bool {
    // The type nearly every client sends is compared as it is, before any parsing.
    req.headers()
        .get(header::CONTENT_TYPE)
        .is_some_and(|v| v.as_bytes() == b"application/json" || v.to_str().is_ok_and(is_json_type))
}

/// Whether a `Content-Type` value names JSON.
fn is_json_type(value: &str) -> bool {
    let essence = value.split(';').next().unwrap_or_default().trim().as_bytes();
    // Media types are case-insensitive; compared without lowercasing a copy.
    let (Some(kind), Some(json)) = (essence.get(..12), essence.len().checked_sub(5)) else {
        return false;
    };
    kind.eq_ignore_ascii_case(b"application/")
        && (essence[12..].eq_ignore_ascii_case(b"json") || essence[json..].eq_ignore_ascii_case(b"+json"))
}

/// Parses `bytes` as strict JSON, naming the offending field in the problem's detail.
///
/// # Errors
/// `malformed_json` for bad syntax, `not_an_object` for JSON that is not an object (every
/// request body is one), `unknown_field`, `unknown_card`, `unknown_variant` or
/// `invalid_body` for well-formed JSON of the wrong shape.
pub fn parse_json<T: DeserializeOwned>(bytes: &[u8]) -> Result<T, Invalid> {
    let text: &[u8] = if bytes.iter().all(u8::is_ascii_whitespace) {
        b"{}"
    } else {
        bytes
    };
    // serde would read a struct from an array too: refuse anything but an object up front.
    if text.iter().find(|b| !b.is_ascii_whitespace()) != Some(&b'{') {
        return Err(match serde_json::from_slice::<serde::de::IgnoredAny>(text) {
            Ok(_) => Invalid::new(Code::NotAnObject, "the request body must be a JSON object"),
            Err(e) => Invalid::new(Code::MalformedJson, format!("invalid request body: {e}")),
        });
    }
    // Most bodies are right: read them without tracking the path, and read a refused one
    // again with it, to name the field.
    if let Ok(value) = serde_json::from_slice::<T>(text) {
        return Ok(value);
    }
    let mut de = serde_json::Deserializer::from_slice(text);
    let mut parsed: Result<T, _> = serde_path_to_error::deserialize(&mut de);
    if parsed.is_ok() {
        de.end()
            .map_err(|e| Invalid::new(Code::MalformedJson, format!("invalid request body: {e}")))?;
    }
    // JSON Schema counts `2.0` as an integer, so the document allows it where serde wants one:
    // read such a body again with its whole-number floats as integers.
    if parsed
        .as_ref()
        .is_err_and(|e| e.inner().to_string().starts_with("invalid type: floating point"))
    {
        let mut value: serde_json::Value = serde_json::from_slice(text)
            .map_err(|e| Invalid::new(Code::MalformedJson, format!("invalid request body: {e}")))?;
        whole_numbers_as_integers(&mut value);
        parsed = serde_path_to_error::deserialize(value);
    }
    parsed.map_err(|e| {
        use crate::wire::UNKNOWN_LEVEL;
        let path = e.path().to_string();
        let inner = e.into_inner();
        let message = inner.to_string();
        let code = match inner.classify() {
            serde_json::error::Category::Syntax | serde_json::error::Category::Eof => Code::MalformedJson,
            serde_json::error::Category::Io => Code::UnreadableBody,
            serde_json::error::Category::Data if message.starts_with("unknown field") => Code::UnknownField,
            serde_json::error::Category::Data if message.contains("unknown card") => Code::UnknownCard,
            serde_json::error::Category::Data if message.contains("unknown rank") => Code::UnknownCard,
            serde_json::error::Category::Data if message.starts_with(UNKNOWN_LEVEL) => Code::UnknownLevel,
            serde_json::error::Category::Data
                if path == "variant" && message.starts_with("unknown variant") =>
            {
                Code::UnknownVariant
            }
            serde_json::error::Category::Data => Code::InvalidBody,
        };
        let detail = if path == "." || path.is_empty() {
            format!("invalid request body: {message}")
        } else {
            format!("invalid request body at `{path}`: {message}")
        };
        Invalid::new(code, detail)
    })
}

/// Turns every float of `value` with no fractional part, within the 64-bit integers, into an
/// integer.
fn whole_numbers_as_integers(value: &mut serde_json::Value) {
    use serde_json::Value;
    match value {
        Value::Number(n) => {
            if let Some(f) = n.as_f64().filter(|f| n.is_f64() && f.fract() == 0.0) {
                // `as` saturates: a float beyond the range would come back different.
                if f >= 0.0 && f < u64::MAX as f64 {
                    *n = (f as u64).into();
                } else if f < 0.0 && f >= i64::MIN as f64 {
                    *n = (f as i64).into();
                }
            }
        }
        Value::Array(items) => items.iter_mut().for_each(whole_numbers_as_integers),
        Value::Object(fields) => fields.values_mut().for_each(whole_numbers_as_integers),
        _ => {}
    }
}

#[cfg(test)]
mod tests {
    use super::is_json_type;

    #[test]
    fn json_media_types_are_known_in_any_case() {
        for yes in [
            "application/json",
            "Application/JSON; charset=utf-8",
            " application/json ",
            "application/problem+json",
            "APPLICATION/VND.API+JSON;x=1",
        ] {
            assert!(is_json_type(yes), "{yes}");
        }
        for no in [
            "",
            "text/json",
            "application/",
            "application/jsonx",
            "application/xml",
            "json",
            "text/x+json",
        ] {
            assert!(!is_json_type(no), "{no}");
        }
    }
}
