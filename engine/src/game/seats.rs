//! Per-seat data: one value for each seat, indexed by [`Seat`].

use std::ops::{Deref, DerefMut, Index, IndexMut};

use serde::{Deserialize, Serialize};

use super::Seat;

/// One `T` per seat, in seat order (like shakmaty's `ByColor`). Serialised as a plain array,
/// so saves written when these were `Vec`s load unchanged.
#[derive(Clone, Debug, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(transparent)]
pub struct BySeat<T>(Vec<T>);

impl<T: Clone> BySeat<T> {
    /// `value` for each of `players` seats.
    pub fn new(players: usize, value: T) -> BySeat<T> {
        BySeat(vec![value; players])
    }
}

impl<T> BySeat<T> {
    /// Each seat with its value.
    pub fn seats(&self) -> impl Iterator<Item = (Seat, &T)> {
        (0u8..).map(Seat).zip(self.0.iter())
    }
}

impl<'a, T> IntoIterator for &'a BySeat<T> {
    type Item = &'a T;
    type IntoIter = std::slice::Iter<'a, T>;
    fn into_iter(self) -> Self::IntoIter {
        self.0.iter()
    }
}

impl<T> Deref for BySeat<T> {
    type Target = [T];
    fn deref(&self) -> &[T] {
        &self.0
    }
}

impl<T> DerefMut for BySeat<T> {
    fn deref_mut(&mut self) -> &mut [T] {
        &mut self.0
    }
}

impl<T> Index<Seat> for BySeat<T> {
    type Output = T;
    fn index(&self, seat: Seat) -> &T {
        &self.0[seat.index()]
    }
}

impl<T> IndexMut<Seat> for BySeat<T> {
    fn index_mut(&mut self, seat: Seat) -> &mut T {
        &mut self.0[seat.index()]
    }
}

impl<T> Index<usize> for BySeat<T> {
    type Output = T;
    fn index(&self, i: usize) -> &T {
        &self.0[i]
    }
}

impl<T> IndexMut<usize> for BySeat<T> {
    fn index_mut(&mut self, i: usize) -> &mut T {
        &mut self.0[i]
    }
}
