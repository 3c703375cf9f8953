//! The cursors of paged reads as clients carry them: the page's place, sealed with a MAC of
//! the server's secret, so that a cursor the server did not give (made up, edited, or another
//! listing's) is refused with `400 invalid_cursor` before it reaches a query.

use base64::Engine;
use base64::engine::general_purpose::URL_SAFE_NO_PAD;
use hmac::{Hmac, KeyInit, Mac};
use sha2::Sha256;

/// Bytes of the MAC a cursor ends with: enough that a made-up cursor is refused, short enough
/// to keep cursors short.
pub const SEAL_BYTES: usize = 12;

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
        let mut mac = Hmac::<Sha256>::new_from_slice(key).expect("HMAC takes any key");
        mac.update(&u32::try_from(kind.len()).unwrap_or(u32::MAX).to_be_bytes());
        mac.update(kind);
        mac.update(place);
        mac.finalize().into_bytes().into()
    }

    /// `place` as the text of a cursor of `kind` (what reads it: `games`, `leaderboard:may_i`):
    /// the bytes and their MAC, in unpadded base64url.
    pub fn seal(&self, kind: &str, place: &[u8]) -> String {
        let mac = Self::mac(&self.key, kind.as_bytes(), place);
        let mut bytes = Vec::with_capacity(place.len() + SEAL_BYTES);
        bytes.extend_from_slice(place);
        bytes.extend_from_slice(&mac[..SEAL_BYTES]);
        URL_SAFE_NO_PAD.encode(bytes)
    }

    /// The place of a cursor of `kind` that [`CursorSeal::seal`] wrote with this key; `None`
    /// for any other text.
    pub fn open(&self, kind: &str, text: &str) -> Option<Vec<u8>> {
        let mut bytes = URL_SAFE_NO_PAD.decode(text).ok()?;
        let at = bytes.len().checked_sub(SEAL_BYTES)?;
        let mut mac = Hmac::<Sha256>::new_from_slice(&self.key).expect("HMAC takes any key");
        mac.update(&u32::try_from(kind.len()).unwrap_or(u32::MAX).to_be_bytes());
        mac.update(kind.as_bytes());
        mac.update(&bytes[..at]);
        mac.verify_truncated_left(&bytes[at..]).ok()?;
        bytes.truncate(at);
        Some(bytes)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_sealed_place_opens_only_with_its_key_and_kind() {
        let seal = CursorSeal::new(b"a secret of the server");
        let text = seal.seal("games", b"some place");
        assert_eq!(seal.open("games", &text).as_deref(), Some(&b"some place"[..]));
        assert_eq!(seal.open("leaderboard:may_i", &text), None, "another listing's");
        assert_eq!(CursorSeal::new(b"another secret").open("games", &text), None);
        let mut edited = text.into_bytes();
        edited[0] = if edited[0] == b'A' { b'B' } else { b'A' };
        let edited = String::from_utf8(edited).expect("ASCII");
        assert_eq!(seal.open("games", &edited), None, "edited");
        for made_up in [String::new(), "A".repeat(24), "A".repeat(43), "!!".into()] {
            assert_eq!(seal.open("games", &made_up), None, "{made_up:?}");
        }
    }
}
