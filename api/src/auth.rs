//! Seat tokens: HS256 JWTs bound to one game and one seat.

use actix_web::HttpRequest;
use actix_web::http::header;
use jsonwebtoken::{Algorithm, DecodingKey, EncodingKey, Header, Validation};
use serde::{Deserialize, Serialize};
use uuid::Uuid;

use crate::error::ApiError;

/// Token issuer.
pub const ISSUER: &str = "continental";
/// Token audience: seat tokens are only good for the game endpoints.
pub const AUDIENCE: &str = "continental:seat";
/// How long a seat token lasts: long enough for a slow game.
pub const TOKEN_LIFETIME_SECS: u64 = 30 * 24 * 3600;
/// Clock skew tolerated on `exp`.
pub const LEEWAY_SECS: u64 = 30;

/// What a seat token says.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Claims {
    /// Issuer: [`ISSUER`].
    pub iss: String,
    /// Audience: [`AUDIENCE`].
    pub aud: String,
    /// Subject: `game/{game}/seat/{seat}`.
    pub sub: String,
    /// Expiry, seconds since the epoch.
    pub exp: u64,
    /// Issued at.
    pub iat: u64,
    /// The game this token opens.
    pub game: Uuid,
    /// The seat it acts for.
    pub seat: u8,
    /// The seat's generation when issued: a seat given up before the start and taken again
    /// gets a new generation, so the earlier holder's token stops working.
    #[serde(default)]
    pub generation: u32,
}

/// The keys seat tokens are signed and checked with.
#[derive(Clone)]
pub struct Keys {
    encoding: EncodingKey,
    decoding: DecodingKey,
    validation: Validation,
}

impl std::fmt::Debug for Keys {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("Keys(…)")
    }
}

impl Keys {
    /// Keys from a shared secret.
    pub fn new(secret: &[u8]) -> Keys {
        let mut validation = Validation::new(Algorithm::HS256);
        validation.algorithms = vec![Algorithm::HS256];
        validation.leeway = LEEWAY_SECS;
        validation.set_issuer(&[ISSUER]);
        validation.set_audience(&[AUDIENCE]);
        validation.set_required_spec_claims(&["exp", "iss", "aud", "sub"]);
        Keys {
            encoding: EncodingKey::from_secret(secret),
            decoding: DecodingKey::from_secret(secret),
            validation,
        }
    }

    /// A token for `seat` of `game`.
    ///
    /// # Errors
    /// Only if signing fails, which HS256 does not.
    pub fn issue(&self, game: Uuid, seat: u8, generation: u32) -> Result<String, ApiError> {
        let iat = jsonwebtoken::get_current_timestamp();
        let claims = Claims {
            iss: ISSUER.into(),
            aud: AUDIENCE.into(),
            sub: format!("game/{game}/seat/{seat}"),
            exp: iat + TOKEN_LIFETIME_SECS,
            iat,
            game,
            seat,
            generation,
        };
        jsonwebtoken::encode(&Header::new(Algorithm::HS256), &claims, &self.encoding)
            .map_err(ApiError::unexpected)
    }

    /// Checks a token's signature, algorithm and claims.
    ///
    /// # Errors
    /// 401 for anything but a valid, unexpired HS256 token of ours.
    pub fn verify(&self, token: &str) -> Result<Claims, ApiError> {
        let data = jsonwebtoken::decode::<Claims>(token, &self.decoding, &self.validation)
            .map_err(|e| ApiError::Unauthorized(format!("invalid seat token: {e}")))?;
        let claims = data.claims;
        if claims.sub != format!("game/{}/seat/{}", claims.game, claims.seat) {
            return Err(ApiError::Unauthorized(
                "invalid seat token: subject does not match".into(),
            ));
        }
        Ok(claims)
    }

    /// The claims of the request's bearer token, checked to be for `game`.
    ///
    /// # Errors
    /// 401 without a valid token; 403 for a valid token of another game.
    pub fn seat_for(&self, req: &HttpRequest, game: Uuid) -> Result<Claims, ApiError> {
        let value = req.headers().get(header::AUTHORIZATION).ok_or_else(|| {
            ApiError::Unauthorized("a seat token is required: Authorization: Bearer <token>".into())
        })?;
        let token = value
            .to_str()
            .ok()
            .and_then(|v| v.strip_prefix("Bearer ").or_else(|| v.strip_prefix("bearer ")))
            .map(str::trim)
            .ok_or_else(|| {
                ApiError::Unauthorized("the Authorization header must be `Bearer <token>`".into())
            })?;
        let claims = self.verify(token)?;
        if claims.game != game {
            return Err(ApiError::Forbidden("this seat token is for another game".into()));
        }
        Ok(claims)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_token_round_trips_and_binds_game_and_seat() {
        let keys = Keys::new(b"secret");
        let game = Uuid::new_v4();
        let token = keys.issue(game, 3, 0).expect("issue");
        let claims = keys.verify(&token).expect("valid");
        assert_eq!((claims.game, claims.seat), (game, 3));
        assert!(
            Keys::new(b"other").verify(&token).is_err(),
            "another secret must not verify"
        );
    }
}
