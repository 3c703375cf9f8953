//! Seat and spectator tokens: HS256 JWTs bound to one game, and for a seat token one seat.

use actix_web::HttpRequest;
use actix_web::http::header;
use jsonwebtoken::{Algorithm, DecodingKey, EncodingKey, Header, Validation};
use serde::{Deserialize, Serialize};
use uuid::Uuid;

use crate::config::Secret;
use crate::wire::CursorSeal;

/// Why a request's seat token is refused. Mapped to a status in `error.rs`.
#[derive(Debug, thiserror::Error)]
pub enum AuthError {
    /// No `Authorization` header.
    #[error("a seat token is required: Authorization: Bearer <token>")]
    Missing,
    /// An `Authorization` header that is not `Bearer <token>`.
    #[error("the Authorization header must be `Bearer <token>`")]
    Malformed,
    /// A token that is expired, tampered with or not ours.
    #[error("{0}")]
    Invalid(String),
    /// A valid token of another game.
    #[error("this seat token is for another game")]
    OtherGame,
    /// A spectator token where a seat's is needed: spectators read and never act.
    #[error("a spectator token reads the game and cannot act")]
    Spectator,
    /// Signing a token failed (HS256 does not).
    #[error("could not sign a seat token")]
    Signing(#[source] jsonwebtoken::errors::Error),
}

/// Token issuer.
pub const ISSUER: &str = "continental";
/// Token audience: seat tokens are only good for the game endpoints.
pub const AUDIENCE: &str = "continental:seat";
/// Token audience of spectator tokens: they only read a game.
pub const SPECTATOR_AUDIENCE: &str = "continental:spectator";
/// Token audience of board tokens: they read one variant's leaderboard of one tenant.
pub const BOARD_AUDIENCE: &str = "continental:board";
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

/// Why a token is refused, in words a client can act on: never the library's own message.
fn refusal(kind: &jsonwebtoken::errors::ErrorKind) -> &'static str {
    use jsonwebtoken::errors::ErrorKind as K;
    match kind {
        K::ExpiredSignature => "the seat token has expired",
        K::ImmatureSignature => "the seat token is not valid yet",
        K::InvalidSignature => {
            "the seat token's signature does not match: it was altered or issued by another server"
        }
        K::InvalidAlgorithm | K::InvalidAlgorithmName | K::UnsupportedAlgorithm | K::MissingAlgorithm => {
            "the seat token must be signed with HS256, as the tokens this server issues are"
        }
        K::InvalidIssuer | K::InvalidAudience | K::InvalidSubject => {
            "the seat token was not issued for this service's games"
        }
        K::MissingRequiredClaim(_) | K::InvalidClaimFormat(_) => {
            "the seat token lacks a claim or has one of the wrong type: use a token as issued on create or join"
        }
        // Bad shape, base64, JSON (an unknown algorithm such as `none` lands here) or UTF-8.
        _ => {
            "the seat token is not a well-formed JWT signed with HS256: use a token as issued on create or join"
        }
    }
}

/// What a spectator token says.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct SpectatorClaims {
    /// Issuer: [`ISSUER`].
    pub iss: String,
    /// Audience: [`SPECTATOR_AUDIENCE`].
    pub aud: String,
    /// Subject: `game/{game}/spectator`.
    pub sub: String,
    /// Expiry, seconds since the epoch.
    pub exp: u64,
    /// Issued at.
    pub iat: u64,
    /// The game this token reads.
    pub game: Uuid,
}

/// What a board token says: a studio let whoever holds it read one of its leaderboards
/// (docs/api.md#board-tokens).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct BoardClaims {
    /// Issuer: [`ISSUER`].
    pub iss: String,
    /// Audience: [`BOARD_AUDIENCE`].
    pub aud: String,
    /// Subject: `board/{tenant}/{variant}`.
    pub sub: String,
    /// Expiry, seconds since the epoch.
    pub exp: u64,
    /// Issued at.
    pub iat: u64,
    /// The tenant whose board it reads.
    pub tenant: String,
    /// The variant whose board it reads.
    pub variant: engine::Variant,
}

/// Who reads a game: one of its seats, or a spectator, who sees no hand.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Reader {
    /// A seat token's holder.
    Seat(Claims),
    /// A spectator token's holder.
    Spectator,
}

impl Reader {
    /// Whom the engine shows the game to: this seat, or a spectator.
    pub fn viewer(&self) -> engine::Viewer {
        match self {
            Reader::Seat(claims) => engine::Viewer::Seat(engine::Seat(claims.seat)),
            Reader::Spectator => engine::Viewer::Spectator,
        }
    }
}

/// The keys seat tokens are signed and checked with.
#[derive(Clone)]
pub struct Keys {
    encoding: EncodingKey,
    decoding: DecodingKey,
    validation: Validation,
    spectator_validation: Validation,
    board_validation: Validation,
    cursors: CursorSeal,
}

impl std::fmt::Debug for Keys {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("Keys(…)")
    }
}

impl Keys {
    /// Keys from a shared secret.
    pub fn new(secret: &Secret) -> Keys {
        let validation_for = |audience: &str| {
            let mut validation = Validation::new(Algorithm::HS256);
            validation.algorithms = vec![Algorithm::HS256];
            validation.leeway = LEEWAY_SECS;
            validation.set_issuer(&[ISSUER]);
            validation.set_audience(&[audience]);
            validation.set_required_spec_claims(&["exp", "iss", "aud", "sub"]);
            validation
        };
        Keys {
            encoding: EncodingKey::from_secret(secret.as_bytes()),
            decoding: DecodingKey::from_secret(secret.as_bytes()),
            validation: validation_for(AUDIENCE),
            spectator_validation: validation_for(SPECTATOR_AUDIENCE),
            board_validation: validation_for(BOARD_AUDIENCE),
            cursors: CursorSeal::new(secret.as_bytes()),
        }
    }

    /// The seal of the cursors of paged reads, of the same secret: a cursor one replica gave
    /// reads on every other.
    pub fn cursors(&self) -> &CursorSeal {
        &self.cursors
    }

    /// A spectator token for `game`.
    ///
    /// # Errors
    /// Only if signing fails, which HS256 does not.
    pub fn issue_spectator(&self, game: Uuid) -> Result<String, AuthError> {
        let iat = jsonwebtoken::get_current_timestamp();
        self.sign(&SpectatorClaims {
            iss: ISSUER.into(),
            aud: SPECTATOR_AUDIENCE.into(),
            sub: format!("game/{game}/spectator"),
            exp: iat + TOKEN_LIFETIME_SECS,
            iat,
            game,
        })
    }

    /// Checks a spectator token's signature, algorithm and claims.
    ///
    /// # Errors
    /// [`AuthError::Invalid`] for anything but a valid, unexpired spectator token of ours.
    pub fn verify_spectator(&self, token: &str) -> Result<SpectatorClaims, AuthError> {
        let claims: SpectatorClaims = self.decode(token, &self.spectator_validation)?;
        subject_matches(&claims.sub, format!("game/{}/spectator", claims.game))?;
        Ok(claims)
    }

    /// A board token: reads `variant`'s leaderboard of `tenant`, nothing else, until it
    /// expires. Returns the token and its expiry (seconds since the epoch).
    ///
    /// # Errors
    /// Only if signing fails, which HS256 does not.
    pub fn issue_board(&self, tenant: &str, variant: engine::Variant) -> Result<(String, u64), AuthError> {
        let iat = jsonwebtoken::get_current_timestamp();
        let exp = iat + TOKEN_LIFETIME_SECS;
        let token = self.sign(&BoardClaims {
            iss: ISSUER.into(),
            aud: BOARD_AUDIENCE.into(),
            sub: board_subject(tenant, variant),
            exp,
            iat,
            tenant: tenant.to_owned(),
            variant,
        })?;
        Ok((token, exp))
    }

    /// The claims of the request's bearer token, a board token of ours.
    ///
    /// # Errors
    /// [`AuthError`] without a valid, unexpired board token (a seat's or a spectator's is none).
    pub fn board_for(&self, req: &HttpRequest) -> Result<BoardClaims, AuthError> {
        let token = bearer(req)?;
        let claims: BoardClaims = self.decode(token, &self.board_validation).map_err(|_| {
            AuthError::Invalid("the board token is not one this server issued, or it has expired".into())
        })?;
        subject_matches(&claims.sub, board_subject(&claims.tenant, claims.variant))?;
        Ok(claims)
    }

    /// Signs `claims` with HS256.
    fn sign(&self, claims: &impl Serialize) -> Result<String, AuthError> {
        jsonwebtoken::encode(&Header::new(Algorithm::HS256), claims, &self.encoding)
            .map_err(AuthError::Signing)
    }

    /// Checks a token's signature, algorithm and the claims `validation` asks for.
    fn decode<C: serde::de::DeserializeOwned>(
        &self,
        token: &str,
        validation: &Validation,
    ) -> Result<C, AuthError> {
        jsonwebtoken::decode::<C>(token, &self.decoding, validation)
            .map(|data| data.claims)
            .map_err(|e| AuthError::Invalid(refusal(e.kind()).into()))
    }

    /// A token for `seat` of `game`.
    ///
    /// # Errors
    /// Only if signing fails, which HS256 does not.
    pub fn issue(&self, game: Uuid, seat: u8, generation: u32) -> Result<String, AuthError> {
        let iat = jsonwebtoken::get_current_timestamp();
        self.sign(&Claims {
            iss: ISSUER.into(),
            aud: AUDIENCE.into(),
            sub: format!("game/{game}/seat/{seat}"),
            exp: iat + TOKEN_LIFETIME_SECS,
            iat,
            game,
            seat,
            generation,
        })
    }

    /// Checks a token's signature, algorithm and claims.
    ///
    /// # Errors
    /// [`AuthError::Invalid`] for anything but a valid, unexpired HS256 token of ours.
    pub fn verify(&self, token: &str) -> Result<Claims, AuthError> {
        let claims: Claims = self.decode(token, &self.validation)?;
        subject_matches(&claims.sub, format!("game/{}/seat/{}", claims.game, claims.seat))?;
        Ok(claims)
    }

    /// The claims of the request's bearer token, checked to be for `game`.
    ///
    /// # Errors
    /// [`AuthError`] without a valid token, or for a valid token of another game.
    /// A spectator's token answers [`AuthError::Spectator`]: it never acts.
    pub fn seat_for(&self, req: &HttpRequest, game: Uuid) -> Result<Claims, AuthError> {
        match self.reader_for(req, game)? {
            Reader::Seat(claims) => Ok(claims),
            Reader::Spectator => Err(AuthError::Spectator),
        }
    }

    /// Who the request's bearer token lets read `game`: a seat, or a spectator.
    ///
    /// # Errors
    /// [`AuthError`] without a valid token, or for a valid token of another game.
    pub fn reader_for(&self, req: &HttpRequest, game: Uuid) -> Result<Reader, AuthError> {
        let token = bearer(req)?;
        let (token_game, reader) = match self.verify(token) {
            Ok(claims) => (claims.game, Reader::Seat(claims)),
            // Not a seat token: a spectator's, or the seat token's refusal stands.
            Err(refused) => match self.verify_spectator(token) {
                Ok(claims) => (claims.game, Reader::Spectator),
                Err(_) => return Err(refused),
            },
        };
        if token_game != game {
            return Err(AuthError::OtherGame);
        }
        Ok(reader)
    }
}

/// The request's `Authorization: Bearer` token.
fn bearer(req: &HttpRequest) -> Result<&str, AuthError> {
    let value = req
        .headers()
        .get(header::AUTHORIZATION)
        .ok_or(AuthError::Missing)?;
    value
        .to_str()
        .ok()
        .and_then(|v| v.strip_prefix("Bearer ").or_else(|| v.strip_prefix("bearer ")))
        .map(str::trim)
        .ok_or(AuthError::Malformed)
}

/// A board token's subject: the board it reads.
fn board_subject(tenant: &str, variant: engine::Variant) -> String {
    format!("board/{tenant}/{}", variant.id())
}

/// A token's subject must say what its other claims say.
fn subject_matches(sub: &str, expected: String) -> Result<(), AuthError> {
    if sub == expected {
        Ok(())
    } else {
        Err(AuthError::Invalid("subject does not match".into()))
    }
}

/// A fresh random secret for seat tokens: 32 random bytes as hex (64 characters, above
/// [`crate::config::MIN_SECRET_BYTES`]).
pub fn new_secret() -> String {
    use rand::RngCore;
    let mut bytes = [0u8; 32];
    rand::rng().fill_bytes(&mut bytes);
    hex::encode(bytes)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn keys_of(secret: &str) -> Keys {
        Keys::new(&Secret::new(secret.repeat(8), "a test secret").expect("long enough"))
    }

    #[test]
    fn a_generated_secret_is_long_enough() {
        assert!(Secret::new(new_secret(), "a generated secret").is_ok());
    }

    #[test]
    fn a_token_round_trips_and_binds_game_and_seat() {
        let keys = keys_of("secret");
        let game = Uuid::new_v4();
        let token = keys.issue(game, 3, 0).expect("issue");
        let claims = keys.verify(&token).expect("valid");
        assert_eq!((claims.game, claims.seat), (game, 3));
        assert!(
            keys_of("other").verify(&token).is_err(),
            "another secret must not verify"
        );
    }

    #[test]
    fn seat_and_spectator_tokens_are_not_interchangeable() {
        let keys = keys_of("secret");
        let game = Uuid::new_v4();
        let spectator = keys.issue_spectator(game).expect("issue");
        assert_eq!(keys.verify_spectator(&spectator).expect("valid").game, game);
        assert!(
            keys.verify(&spectator).is_err(),
            "a spectator token is no seat token"
        );
        let seat = keys.issue(game, 0, 0).expect("issue");
        assert!(
            keys.verify_spectator(&seat).is_err(),
            "a seat token is no spectator token"
        );
    }
}
