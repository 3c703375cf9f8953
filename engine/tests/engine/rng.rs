//! The one seeded generator of the engine's tests and benchmarks: the choices a test makes
//! (hands, moves, seats), never the game's own shuffle. Deterministic, so that a seed names a
//! case: proptest's saved regressions and a failing simulation's seed replay as they failed.
//! The benchmarks include this file by path.

/// xorshift64*: small, fast, and good enough to pick test cases.
pub struct TestRng(u64);

impl TestRng {
    /// A generator from `seed` (any value: xorshift needs a state other than zero).
    pub fn new(seed: u64) -> TestRng {
        TestRng(seed | 1)
    }

    /// The next value.
    pub fn next(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_F491_4F6C_DD1D)
    }

    /// Uniform enough in `0..n`.
    pub fn below(&mut self, n: usize) -> usize {
        (self.next() % n as u64) as usize
    }

    /// In `lo..=hi`.
    pub fn range(&mut self, lo: usize, hi: usize) -> usize {
        lo + self.below(hi - lo + 1)
    }

    /// True `percent` times in a hundred.
    pub fn chance(&mut self, percent: u64) -> bool {
        self.next() % 100 < percent
    }

    /// Shuffles `items` in place (Fisher–Yates).
    pub fn shuffle<T>(&mut self, items: &mut [T]) {
        for i in (1..items.len()).rev() {
            items.swap(i, self.below(i + 1));
        }
    }
}
