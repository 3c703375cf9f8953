//! The cursors of paged reads as clients carry them: the page's place, bound to the tenant
//! and the board it pages and sealed with a MAC of the server's secret, so that a cursor the
//! server did not give (made up, edited, or another listing's) is refused with
//! `400 invalid_cursor` before it reaches a query, and so is one given to another tenant or
//! for another board (docs/api.md#cursors), each with its reason.

use base64::Engine;
use base64::engine::general_purpose::URL_SAFE_NO_PAD;
use hmac::{Hmac, KeyInit, Mac};
use sha2::Sha256;

/// Bytes of the MAC a cursor ends with: enough that a made-up cursor is refused, short enough
/// to keep cursors short.
pub const SEAL_BYTES: usize = 12;

/// Bytes of each of the two tags a cursor carries before its MAC, its tenant's and its
/// board's: enough that two tenants or two boards share one only by a rare chance (and then
/// the cursor reads as a place on that board, which is all it ever holds).
pub const TAG_BYTES: usize = 6;

/// What a cursor is bound to: the tenant whose page it is, and the board it pages (a
/// leaderboard's variant, a listing's filters).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Bound<'a> {
    /// The tenant of the key that read the page.
    pub tenant: &'a str,
    /// What defines the board, as its reader writes it.
    pub board: &'a str,
}

/// Why a cursor does not open.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Unopened {
    /// Not a cursor this server gave for this kind of read: made up, edited, another kind's,
    /// or sealed with another secret.
    NotGiven,
    /// A cursor this server gave to another tenant.
    OtherTenant,
    /// A cursor this server gave the tenant for another board of the same kind.
    OtherBoard,
}

/// The key cursors are sealed with, derived from the seat tokens' secret (every replica shares
/// it, so a cursor of one replica reads on another).
#[derive(Clone)]
pub struct CursorSeal {
    key: [u8; 32],
}

impl std::fmt::Debug for CursorSeal {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("CursorSeal(…)")
    }
}

impl CursorSeal {
    /// The seal of `secret` (the seat tokens' secret): a key of its own, so that no cursor's
    /// MAC is ever a token's.
    pub fn new(secret: &[u8]) -> CursorSeal {
        CursorSeal {
            key: Self::mac(secret, b"continental:cursors", &[]),
        }
    }

    fn mac(key: &[u8], kind: &[u8], place: &[u8]) -> [u8; 32] {
        Self::hmac(key, kind, place).finalize().into_bytes().into()
    }

    fn hmac(key: &[u8], kind: &[u8], place: &[u8]) -> Hmac<Sha256> {
        let mut mac = Hmac::<Sha256>::new_from_slice(key).expect("HMAC takes any key");
        mac.update(&u32::try_from(kind.len()).unwrap_or(u32::MAX).to_be_bytes());
        mac.update(kind);
        mac.update(place);
        mac
    }

    /// The tags of `bound`: its tenant's, then its board's, each keyed so that a cursor shows
    /// neither.
    fn tags(&self, bound: Bound<'_>) -> [u8; 2 * TAG_BYTES] {
        let tenant = Self::mac(&self.key, b"cursor:tenant", bound.tenant.as_bytes());
        let board = Self::mac(&self.key, b"cursor:board", bound.board.as_bytes());
        let mut tags = [0; 2 * TAG_BYTES];
        tags[..TAG_BYTES].copy_from_slice(&tenant[..TAG_BYTES]);
        tags[TAG_BYTES..].copy_from_slice(&board[..TAG_BYTES]);
        tags
    }

    /// `place` as the text of a cursor of `kind` (what reads it: `games`, `leaderboard`) bound
    /// to `bound`: the bytes, the tags of the tenant and the board, and the MAC of all of them,
    /// in unpadded base64url.
    pub fn seal(&self, kind: &str, bound: Bound<'_>, place: &[u8]) -> String {
        let mut bytes = Vec::with_capacity(place.len() + 2 * TAG_BYTES + SEAL_BYTES);
        bytes.extend_from_slice(place);
        bytes.extend_from_slice(&self.tags(bound));
        let mac = Self::mac(&self.key, kind.as_bytes(), &bytes);
        bytes.extend_from_slice(&mac[..SEAL_BYTES]);
        URL_SAFE_NO_PAD.encode(bytes)
    }

    /// The place of a cursor of `kind` that [`CursorSeal::seal`] wrote with this key for
    /// `bound`.
    ///
    /// # Errors
    /// [`Unopened`]: why not (the tags are read only once the MAC holds, so the reason is the
    /// server's own word).
    pub fn open(&self, kind: &str, bound: Bound<'_>, text: &str) -> Result<Vec<u8>, Unopened> {
        let mut bytes = URL_SAFE_NO_PAD.decode(text).map_err(|_| Unopened::NotGiven)?;
        let at = bytes
            .len()
            .checked_sub(2 * TAG_BYTES + SEAL_BYTES)
            .ok_or(Unopened::NotGiven)?;
        let sealed = bytes.len() - SEAL_BYTES;
        Self::hmac(&self.key, kind.as_bytes(), &bytes[..sealed])
            .verify_truncated_left(&bytes[sealed..])
            .map_err(|_| Unopened::NotGiven)?;
        let tags = self.tags(bound);
        if bytes[at..at + TAG_BYTES] != tags[..TAG_BYTES] {
            return Err(Unopened::OtherTenant);
        }
        if bytes[at + TAG_BYTES..sealed] != tags[TAG_BYTES..] {
            return Err(Unopened::OtherBoard);
        }
        bytes.truncate(at);
        Ok(bytes)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_sealed_place_opens_only_with_its_key_kind_tenant_and_board() {
        let seal = CursorSeal::new(b"a secret of the server");
        let acme = Bound {
            tenant: "acme",
            board: "may_i",
        };
        let text = seal.seal("games", acme, b"some place");
        assert_eq!(seal.open("games", acme, &text).as_deref(), Ok(&b"some place"[..]));
        assert_eq!(
            seal.open("leaderboard", acme, &text),
            Err(Unopened::NotGiven),
            "another kind's"
        );
        let beta = Bound {
            tenant: "beta",
            ..acme
        };
        assert_eq!(seal.open("games", beta, &text), Err(Unopened::OtherTenant));
        let push = Bound {
            board: "push",
            ..acme
        };
        assert_eq!(seal.open("games", push, &text), Err(Unopened::OtherBoard));
        let both = Bound {
            tenant: "beta",
            board: "push",
        };
        assert_eq!(
            seal.open("games", both, &text),
            Err(Unopened::OtherTenant),
            "the tenant first"
        );
        assert_eq!(
            CursorSeal::new(b"another secret").open("games", acme, &text),
            Err(Unopened::NotGiven)
        );
        let mut edited = text.into_bytes();
        edited[0] = if edited[0] == b'A' { b'B' } else { b'A' };
        let edited = String::from_utf8(edited).expect("ASCII");
        assert_eq!(
            seal.open("games", acme, &edited),
            Err(Unopened::NotGiven),
            "edited"
        );
        for made_up in [
            String::new(),
            "A".repeat(24),
            "A".repeat(43),
            "A".repeat(64),
            "!!".into(),
        ] {
            assert_eq!(
                seal.open("games", acme, &made_up),
                Err(Unopened::NotGiven),
                "{made_up:?}"
            );
        }
    }

    #[test]
    fn tags_read_as_another_tenants_only_under_the_mac() {
        // A cursor of acme's whose tenant tag is edited to beta's: the MAC no longer holds, so
        // it is not given, never "another tenant's".
        let seal = CursorSeal::new(b"a secret of the server");
        let acme = Bound {
            tenant: "acme",
            board: "",
        };
        let beta = Bound {
            tenant: "beta",
            ..acme
        };
        let text = seal.seal("games", acme, b"place");
        let mut bytes = URL_SAFE_NO_PAD.decode(&text).expect("base64");
        let at = b"place".len();
        bytes[at..at + 2 * TAG_BYTES].copy_from_slice(&seal.tags(beta));
        let forged = URL_SAFE_NO_PAD.encode(bytes);
        assert_eq!(seal.open("games", beta, &forged), Err(Unopened::NotGiven));
        assert_eq!(seal.open("games", acme, &forged), Err(Unopened::NotGiven));
    }
}
