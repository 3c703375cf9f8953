//! Bounds on what a request may name, stated once: the reading refuses the first item too
//! many, and the OpenAPI document states the same numbers as `maxItems`.

use std::fmt;
use std::marker::PhantomData;

use serde::de::{self, Deserialize, Deserializer, SeqAccess, Visitor};

/// Most cards of one meld, lay-off or validation (more than any hand holds).
pub const MAX_CARDS: usize = 40;

/// Most wild designations of one meld or lay-off.
pub const MAX_WILDS: usize = 20;

/// Most melds laid or checked at once (a contract asks for at most five).
pub const MAX_MELDS: usize = 6;

/// Reads a list of at most `MAX` items, the `maxItems` the document states for it, and stops
/// reading at the first item too many.
///
/// # Errors
/// A list longer than `MAX` (`invalid_body`, with the field's path), or a bad item.
pub fn at_most<'de, const MAX: usize, T, D>(deserializer: D) -> Result<Vec<T>, D::Error>
where
    T: Deserialize<'de>,
    D: Deserializer<'de>,
{
    /// Collects the items, refusing one past `MAX`.
    struct Bounded<T, const MAX: usize>(PhantomData<T>);

    impl<'de, T: Deserialize<'de>, const MAX: usize> Visitor<'de> for Bounded<T, MAX> {
        type Value = Vec<T>;

        fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
            write!(f, "a list of at most {MAX} items")
        }

        fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Vec<T>, A::Error> {
            // Room for a meld's cards at once, rather than growing by doubling from four: JSON
            // does not say how long a list is before it is read.
            let mut items = Vec::with_capacity(seq.size_hint().unwrap_or(8).min(MAX));
            while let Some(item) = seq.next_element()? {
                if items.len() == MAX {
                    return Err(de::Error::invalid_length(MAX + 1, &self));
                }
                items.push(item);
            }
            Ok(items)
        }
    }

    deserializer.deserialize_seq(Bounded::<T, MAX>(PhantomData))
}
