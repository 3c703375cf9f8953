//! Server keys: a studio's back end proves which tenant it is with `X-Api-Key`.
//!
//! Keys come from `CONTINENTAL_API_KEYS` as `tenant:secret,tenant:secret`. Only the SHA-256
//! digest of each secret is kept in memory, and a presented secret is compared with every
//! digest in constant time, so neither a log nor the time of an answer tells a secret.

use actix_web::HttpRequest;
use sha2::{Digest, Sha256};
use subtle::ConstantTimeEq;
use uuid::Uuid;

/// The header a server key travels in.
pub const HEADER: &str = "x-api-key";

/// Shortest secret accepted in the configuration: a guessable key is no key.
pub const MIN_SECRET: usize = 16;

/// Longest tenant name.
const MAX_TENANT: usize = 64;

/// A studio (or any owner of a server key). Games belong to the tenant that created them;
/// without configured keys every game belongs to the default tenant, named `""`.
#[derive(Clone, Debug, Default, PartialEq, Eq, Hash)]
pub struct Tenant(String);

impl Tenant {
    /// The tenant's name as stored with its games.
    pub fn as_str(&self) -> &str {
        &self.0
    }

    /// The id under which this tenant's creation idempotency keys are kept: the nil UUID for
    /// the default tenant (as before tenancy), else one derived from the name, so two tenants
    /// sending the same `Idempotency-Key` never meet.
    pub fn creation_scope(&self) -> Uuid {
        if self.0.is_empty() {
            return Uuid::nil();
        }
        let digest = Sha256::digest(format!("continental:creation-keys:{}", self.0).as_bytes());
        let mut bytes = [0u8; 16];
        bytes.copy_from_slice(&digest[..16]);
        uuid::Builder::from_random_bytes(bytes).into_uuid()
    }

    /// The id under which this tenant's idempotency keys of quick-play tickets are kept, apart
    /// from those of its games: derived from the name as [`Tenant::creation_scope`] is.
    pub fn ticket_scope(&self) -> Uuid {
        let digest = Sha256::digest(format!("continental:ticket-keys:{}", self.0).as_bytes());
        let mut bytes = [0u8; 16];
        bytes.copy_from_slice(&digest[..16]);
        uuid::Builder::from_random_bytes(bytes).into_uuid()
    }
}

/// Why a request's server key is refused. Mapped to a status in `error.rs`.
#[derive(Debug, thiserror::Error)]
pub enum KeyError {
    /// No `X-Api-Key` header.
    #[error("a server key is required: X-Api-Key: <secret>")]
    Missing,
    /// A key that matches no configured secret (or none is configured).
    #[error("invalid server key")]
    Invalid,
}

/// One configured secret, kept as its digest.
#[derive(Clone)]
struct ServerKey {
    tenant: Tenant,
    digest: [u8; 32],
}

/// The configured server keys (possibly none).
#[derive(Clone, Default)]
pub struct ServerKeys {
    keys: Vec<ServerKey>,
}

impl std::fmt::Debug for ServerKeys {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        // Tenants only: a secret (or its digest) never reaches a log.
        f.debug_list()
            .entries(self.keys.iter().map(|k| k.tenant.as_str()))
            .finish()
    }
}

impl PartialEq for ServerKeys {
    fn eq(&self, other: &Self) -> bool {
        self.keys.len() == other.keys.len()
            && self
                .keys
                .iter()
                .zip(&other.keys)
                .all(|(a, b)| a.tenant == b.tenant && a.digest == b.digest)
    }
}

impl Eq for ServerKeys {}

fn digest(secret: &str) -> [u8; 32] {
    Sha256::digest(secret.as_bytes()).into()
}

impl ServerKeys {
    /// Parses `tenant:secret,tenant:secret`. A tenant may appear twice, with two secrets, while
    /// a key is rotated. An empty list configures no keys.
    ///
    /// # Errors
    /// A message (naming the entry by position, never the secret) for an entry without a
    /// colon, a tenant that is empty, too long or not `[A-Za-z0-9_.-]`, a secret shorter than
    /// [`MIN_SECRET`], or a secret given twice.
    pub fn parse(list: &str) -> Result<ServerKeys, String> {
        let mut keys: Vec<ServerKey> = Vec::new();
        for (i, entry) in list.split(',').map(str::trim).enumerate() {
            if entry.is_empty() {
                continue;
            }
            let n = i + 1;
            let (tenant, secret) = entry
                .split_once(':')
                .ok_or_else(|| format!("CONTINENTAL_API_KEYS entry {n} is not tenant:secret"))?;
            let tenant = tenant.trim();
            let valid_tenant = !tenant.is_empty()
                && tenant.len() <= MAX_TENANT
                && tenant
                    .chars()
                    .all(|c| c.is_ascii_alphanumeric() || matches!(c, '_' | '-' | '.'));
            if !valid_tenant {
                return Err(format!(
                    "CONTINENTAL_API_KEYS entry {n}: a tenant is 1 to {MAX_TENANT} of A-Z a-z 0-9 _ - ."
                ));
            }
            if secret.chars().count() < MIN_SECRET {
                return Err(format!(
                    "CONTINENTAL_API_KEYS entry {n}: a secret has at least {MIN_SECRET} characters"
                ));
            }
            let digest = digest(secret);
            if keys.iter().any(|k| k.digest == digest) {
                return Err(format!("CONTINENTAL_API_KEYS entry {n} repeats a secret"));
            }
            keys.push(ServerKey {
                tenant: Tenant(tenant.to_owned()),
                digest,
            });
        }
        Ok(ServerKeys { keys })
    }

    /// Whether any key is configured (then creating a game needs one).
    pub fn enabled(&self) -> bool {
        !self.keys.is_empty()
    }

    /// The configured tenants, each once.
    pub fn tenants(&self) -> Vec<&str> {
        let mut out: Vec<&str> = Vec::new();
        for k in &self.keys {
            if !out.contains(&k.tenant.as_str()) {
                out.push(k.tenant.as_str());
            }
        }
        out
    }

    /// The configured tenant named `name`: a token a tenant's key made (a board token) stops
    /// working once none of its keys is configured.
    pub fn tenant_named(&self, name: &str) -> Option<Tenant> {
        self.keys
            .iter()
            .find(|k| k.tenant.as_str() == name)
            .map(|k| k.tenant.clone())
    }

    /// The tenant whose secret this is. Every configured digest is compared, in constant time,
    /// whichever matches.
    pub fn tenant_of(&self, secret: &str) -> Option<Tenant> {
        let presented = digest(secret);
        let mut found = None;
        for key in &self.keys {
            if bool::from(key.digest.ct_eq(&presented)) {
                found = Some(key.tenant.clone());
            }
        }
        found
    }

    /// The tenant of the request's `X-Api-Key`.
    ///
    /// # Errors
    /// [`KeyError::Missing`] without the header, [`KeyError::Invalid`] for a key that is not
    /// configured (every key is, when none is configured).
    pub fn tenant(&self, req: &HttpRequest) -> Result<Tenant, KeyError> {
        let value = req.headers().get(HEADER).ok_or(KeyError::Missing)?;
        let secret = value.to_str().map_err(|_| KeyError::Invalid)?.trim();
        self.tenant_of(secret).ok_or(KeyError::Invalid)
    }

    /// The tenant a new game belongs to: the key's when keys are configured (and then one is
    /// required), the default tenant otherwise, as before server keys.
    ///
    /// # Errors
    /// As [`ServerKeys::tenant`], when keys are configured.
    pub fn creator(&self, req: &HttpRequest) -> Result<Tenant, KeyError> {
        if self.enabled() {
            self.tenant(req)
        } else {
            Ok(Tenant::default())
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_tenants_with_rotated_secrets() {
        let keys =
            ServerKeys::parse("acme:0123456789abcdef, acme:fedcba9876543210,beta:beta-secret-long-enough")
                .expect("valid");
        assert_eq!(keys.tenants(), ["acme", "beta"]);
        for (secret, tenant) in [
            ("0123456789abcdef", Some("acme")),
            ("fedcba9876543210", Some("acme")),
            ("beta-secret-long-enough", Some("beta")),
            ("0123456789abcdeF", None),
            ("", None),
        ] {
            assert_eq!(
                keys.tenant_of(secret).as_ref().map(Tenant::as_str),
                tenant,
                "secret {secret:?}"
            );
        }
        assert!(!ServerKeys::parse("").expect("empty").enabled());
    }

    #[test]
    fn refuses_bad_entries_without_echoing_secrets() {
        for (list, why) in [
            ("acme", "no colon"),
            (":0123456789abcdef", "no tenant"),
            ("ac me:0123456789abcdef", "a space in the tenant"),
            ("acme:short", "a short secret"),
            ("a:0123456789abcdef,b:0123456789abcdef", "a secret given twice"),
        ] {
            let err = ServerKeys::parse(list).expect_err(why);
            assert!(
                !err.contains("0123456789abcdef"),
                "{why}: the message echoes the secret: {err}"
            );
        }
    }

    #[test]
    fn debug_shows_tenants_only() {
        let keys = ServerKeys::parse("acme:0123456789abcdef").expect("valid");
        assert_eq!(format!("{keys:?}"), r#"["acme"]"#);
    }

    #[test]
    fn creation_scopes_differ_by_tenant() {
        let a = Tenant("a".into()).creation_scope();
        let b = Tenant("b".into()).creation_scope();
        assert_ne!(a, b);
        assert_eq!(Tenant::default().creation_scope(), Uuid::nil());
    }
}
