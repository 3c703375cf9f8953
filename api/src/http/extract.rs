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
use crate::wire::{Code, Invalid, parse_json};

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
