//! The one idempotency protocol of create, join and every move: a request with an
//! `Idempotency-Key` runs once; a retry with the same key and body gets the first response.

use actix_web::http::{StatusCode, header};
use actix_web::{HttpRequest, HttpResponse};
use sha2::{Digest, Sha256};
use uuid::Uuid;

use crate::error::{ApiError, PROBLEM_JSON};
use crate::state::AppState;
use crate::store::{KeyClaim, KeyRef, KeyRefused, KeyScope, Store, StoredResponse};
use crate::wire::{Code, Invalid};

/// Longest idempotency key.
const MAX_KEY: usize = 200;

/// The request's idempotency key, bound to its scope (the game and seat, or none for a new
/// game) and a hash of the request.
///
/// # Errors
/// `invalid_idempotency_key` for an empty, overlong or unreadable key.
pub fn key(
    req: &HttpRequest,
    scope: KeyScope,
    game: Uuid,
    seat: i64,
    body: &[u8],
) -> Result<Option<KeyRef>, ApiError> {
    let Some(value) = req.headers().get("idempotency-key") else {
        return Ok(None);
    };
    let key = value
        .to_str()
        .ok()
        .filter(|k| !k.is_empty() && k.len() <= MAX_KEY && k.bytes().all(|b| b.is_ascii_graphic()))
        .ok_or_else(|| {
            Invalid::new(
                Code::InvalidIdempotencyKey,
                format!("Idempotency-Key must be 1 to {MAX_KEY} visible characters"),
            )
        })?;
    let mut hasher = Sha256::new();
    hasher.update(req.method().as_str().as_bytes());
    hasher.update(b"\n");
    hasher.update(req.path().as_bytes());
    hasher.update(b"\n");
    hasher.update(body);
    Ok(Some(KeyRef {
        scope,
        game,
        seat,
        key: key.to_owned(),
        request_hash: hex::encode(hasher.finalize()),
    }))
}

/// Runs `act` once per key: a retry answers with the first response, a 422 for another body.
/// `act` gets the key to store with its response in the same transaction as its change, so
/// only a request that acted keeps its key: a refusal (any 4xx) or a failure keeps nothing,
/// and a retry is judged afresh. A move's or a join's key is checked inside its transaction
/// (with the game's lock, and the key's unique index refuses a second copy), so its first try
/// costs no look-up of its own; a creation, which builds a game before any transaction, looks
/// its key up first. A request that failed (unless the database was out of reach) looks its
/// key up and, when another request stored it, answers as that one did.
///
/// # Errors
/// The refusal of `act`, or of the key.
pub async fn once(
    state: &AppState,
    key: Option<KeyRef>,
    act: impl AsyncFnOnce(Option<&KeyRef>) -> Result<StoredResponse, ApiError>,
) -> Result<StoredResponse, ApiError> {
    let Some(k) = &key else { return act(None).await };
    if k.scope == KeyScope::Creation {
        if let Some(found) = state.db.find_key(k).await? {
            return replay(found);
        }
    }
    let result = act(Some(k)).await;
    // A retry, or a duplicate that acted while this one waited: answer as it did. If the
    // database cannot say, this request's own error stands; when it could not be reached at
    // all, it is not asked again (a second wait as long as the first, for the same 503).
    if let Err(e) = &result
        && e.code() != "service_unavailable"
        && let Ok(Some(found)) = state.db.find_key(k).await
    {
        return replay(found);
    }
    result
}

/// The answer for a key another request used: its response, or a 422 for another body.
fn replay(found: KeyClaim) -> Result<StoredResponse, ApiError> {
    match found {
        KeyClaim::Replay(r) => Ok(r),
        KeyClaim::Mismatch => Err(KeyRefused::Reused.into()),
    }
}

/// Answers with a response as stored for an idempotency key (or about to be): same status,
/// body and `ETag`.
pub fn answer(r: StoredResponse) -> HttpResponse {
    let mut res =
        HttpResponse::build(StatusCode::from_u16(r.status).unwrap_or(StatusCode::INTERNAL_SERVER_ERROR));
    res.insert_header((
        header::CONTENT_TYPE,
        if r.status >= 400 {
            PROBLEM_JSON
        } else {
            "application/json"
        },
    ));
    if let Some(tag) = r.etag {
        res.insert_header((header::ETAG, tag));
    }
    res.body(r.body)
}
