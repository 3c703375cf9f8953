//! A studio's event, the parts that are arithmetic: who sits where in each round (the
//! movement) and how a round of duplicate is scored (matchpoints). Pure and deterministic: the
//! same field gives the same tables, the same scores the same matchpoints.
//!
//! **The movement.** The field is laid out as a grid of `tables` rows by `table_size` columns:
//! entrant `i` has the home place `(i / table_size, i % table_size)`, and the places past the
//! last entrant (the end of the last row) are the bots'. In round `r` (counted from 0) the home
//! place `(a, b)` sits at table `(a + r·b) mod tables`, in seat `(b + r) mod table_size`. So:
//!
//! - every table of every round holds exactly one home place of each column, so no seat is
//!   taken twice and every table is full;
//! - everyone changes seat every round, through every seat in `table_size` rounds;
//! - two places of different columns `b ≠ b'` share a table in round `r` exactly when
//!   `r·(b − b') ≡ a' − a (mod tables)`: with a prime number of tables at least the table size,
//!   any two entrants of different columns meet exactly once in `tables` rounds, and with any
//!   other number as rarely as that congruence allows. Two entrants of one column never meet,
//!   which is what leaves the others free to meet once.
//!
//! The bots move like entrants, so a field that does not fill its last table plays with bots
//! at one table in the first round and spread over the tables after, never the same entrants
//! with bots every round.
//!
//! **Matchpoints.** In a duplicate round every table plays the same deals from the same seats,
//! so each seat's score on a deal is compared with the same seat's at every other table: a
//! lower score (fewer penalty points) beats a higher one, 1 matchpoint for each seat beaten and
//! ½ for each tie. They are counted here in halves, so that they add up exactly.

/// Most seats at a table of any variant.
pub const MAX_TABLE_SIZE: usize = 8;

/// Who sits in a seat of a round: an entrant, by their place in the field, or a bot.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Place {
    /// The entrant at this index of the field.
    Entrant(usize),
    /// A bot, filling a place the field left over.
    Bot,
}

/// Why a field cannot be seated.
#[derive(Clone, Copy, Debug, PartialEq, Eq, thiserror::Error)]
pub enum MovementError {
    /// A table of fewer than two seats, or more than any variant seats.
    #[error("a table seats 2 to {MAX_TABLE_SIZE} players, not {0}")]
    TableSize(usize),
    /// Nobody to seat.
    #[error("an event needs at least one entrant")]
    NoEntrants,
}

/// The seats of every round for one field: entrants, tables and bots.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Movement {
    entrants: usize,
    table_size: usize,
    tables: usize,
}

impl Movement {
    /// The movement of `entrants` at tables of `table_size`.
    ///
    /// # Errors
    /// [`MovementError`] for a table size no variant seats, or no entrant.
    pub fn new(entrants: usize, table_size: usize) -> Result<Movement, MovementError> {
        if !(2..=MAX_TABLE_SIZE).contains(&table_size) {
            return Err(MovementError::TableSize(table_size));
        }
        if entrants == 0 {
            return Err(MovementError::NoEntrants);
        }
        Ok(Movement {
            entrants,
            table_size,
            tables: entrants.div_ceil(table_size),
        })
    }

    /// How many tables each round has.
    pub fn tables(&self) -> usize {
        self.tables
    }

    /// How many bots fill the places the field leaves over, in every round.
    pub fn bots(&self) -> usize {
        self.tables * self.table_size - self.entrants
    }

    /// Where the home place `place` (an index of the grid) sits in `round`: its table and seat.
    pub fn seat_of(&self, place: usize, round: usize) -> (usize, usize) {
        let (home_table, home_seat) = (place / self.table_size, place % self.table_size);
        let shift = (round % self.tables) * home_seat % self.tables;
        (
            (home_table + shift) % self.tables,
            (home_seat + round) % self.table_size,
        )
    }

    /// Round `round`'s tables (counted from 0), each its seats in order.
    pub fn round(&self, round: usize) -> Vec<Vec<Place>> {
        let mut tables = vec![vec![Place::Bot; self.table_size]; self.tables];
        for place in 0..self.tables * self.table_size {
            let (table, seat) = self.seat_of(place, round);
            tables[table][seat] = if place < self.entrants {
                Place::Entrant(place)
            } else {
                Place::Bot
            };
        }
        tables
    }
}

/// Each seat's matchpoints, in halves, for one deal played at every table of a duplicate round:
/// `scores[table][seat]` is the seat's score there (penalty points: fewer is better). A seat
/// gets 2 for each table whose same seat scored more, 1 for each that scored the same.
///
/// # Panics
/// If the tables do not all have the same number of seats.
pub fn matchpoint_halves(scores: &[Vec<i32>]) -> Vec<Vec<u32>> {
    let seats = scores.first().map_or(0, Vec::len);
    assert!(
        scores.iter().all(|table| table.len() == seats),
        "every table of a round has the same seats"
    );
    scores
        .iter()
        .enumerate()
        .map(|(table, own)| {
            (0..seats)
                .map(|seat| {
                    scores
                        .iter()
                        .enumerate()
                        .filter(|&(other, _)| other != table)
                        .map(|(_, theirs)| match own[seat].cmp(&theirs[seat]) {
                            std::cmp::Ordering::Less => 2,
                            std::cmp::Ordering::Equal => 1,
                            std::cmp::Ordering::Greater => 0,
                        })
                        .sum()
                })
                .collect()
        })
        .collect()
}

/// How a tournament is scored.
#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Serialize, serde::Deserialize, utoipa::ToSchema)]
#[serde(rename_all = "snake_case")]
pub enum Format {
    /// Every table of a round plays the same deals from the same seats; each seat's score on
    /// a deal is compared with the same seat's at the other tables (matchpoints).
    Duplicate,
    /// The variant's own scores added up across rounds (lower is better); each table its own
    /// deals.
    Points,
}

impl Format {
    /// The format's name as stored and shown.
    pub fn as_str(self) -> &'static str {
        match self {
            Format::Duplicate => "duplicate",
            Format::Points => "points",
        }
    }

    /// The format named `name`.
    pub fn named(name: &str) -> Option<Format> {
        match name {
            "duplicate" => Some(Format::Duplicate),
            "points" => Some(Format::Points),
            _ => None,
        }
    }
}

/// The seed of a table's game in round `round` (from 1), derived from the tournament's
/// secret seed: in duplicate one seed for every table of the round (`table` is not used), in
/// points one per table. A hash, so that no round's seed tells another's or the secret.
pub fn round_seed(secret: &[u8; 32], format: Format, round: u32, table: u32) -> [u8; 32] {
    use sha2::{Digest, Sha256};
    let mut hash = Sha256::new();
    hash.update(b"continental:tournament-round");
    hash.update(secret);
    hash.update(round.to_be_bytes());
    if format == Format::Points {
        hash.update(table.to_be_bytes());
    }
    hash.finalize().into()
}

/// A round's result for each seat of each table, from `scores[table][seat][deal]` (the deal's
/// score as the variant keeps it, `None` where the deal was not scored there): in duplicate the
/// matchpoints in halves, each deal compared only among the tables that scored it, a lower
/// score the better one unless `highest_wins` (the variant's own rule: `continental` pays the
/// winner); in points the scores added up. Bots' seats are in the comparison like any other.
pub fn round_results(format: Format, highest_wins: bool, scores: &[Vec<Vec<Option<i32>>>]) -> Vec<Vec<i64>> {
    let mut results: Vec<Vec<i64>> = scores.iter().map(|t| vec![0; t.len()]).collect();
    match format {
        Format::Points => {
            for (table, seats) in scores.iter().enumerate() {
                for (seat, deals) in seats.iter().enumerate() {
                    results[table][seat] = deals.iter().flatten().map(|s| i64::from(*s)).sum();
                }
            }
        }
        Format::Duplicate => {
            let deals = scores.iter().flatten().map(Vec::len).max().unwrap_or(0);
            for deal in 0..deals {
                let scored: Vec<(usize, Vec<i32>)> = scores
                    .iter()
                    .enumerate()
                    .filter_map(|(table, seats)| {
                        let dealt: Option<Vec<i32>> =
                            seats.iter().map(|s| s.get(deal).copied().flatten()).collect();
                        dealt.map(|d| (table, d))
                    })
                    .collect();
                let seats = scored.first().map_or(0, |(_, d)| d.len());
                if scored.iter().any(|(_, d)| d.len() != seats) {
                    continue;
                }
                // Matchpoints go to the lower score: where the higher wins, its opposite.
                let of_deal: Vec<Vec<i32>> = scored
                    .iter()
                    .map(|(_, d)| d.iter().map(|&x| if highest_wins { -x } else { x }).collect())
                    .collect();
                for ((table, _), halves) in scored.iter().zip(matchpoint_halves(&of_deal)) {
                    for (seat, h) in halves.into_iter().enumerate() {
                        results[*table][seat] += i64::from(h);
                    }
                }
            }
        }
    }
    results
}

#[cfg(test)]
mod tests {
    use std::collections::{BTreeSet, HashMap, HashSet};

    use super::*;

    fn entrants_at(table: &[Place]) -> Vec<usize> {
        table
            .iter()
            .filter_map(|p| match p {
                Place::Entrant(i) => Some(*i),
                Place::Bot => None,
            })
            .collect()
    }

    #[test]
    fn every_round_seats_every_entrant_once_and_fills_every_table() {
        for (entrants, size) in [(8, 4), (9, 4), (2, 2), (7, 3), (10_000, 4), (101, 6), (5, 8)] {
            let movement = Movement::new(entrants, size).expect("a field");
            for round in 0..6 {
                let tables = movement.round(round);
                assert_eq!(
                    tables.len(),
                    entrants.div_ceil(size),
                    "{entrants} at {size}: tables"
                );
                assert!(
                    tables.iter().all(|t| t.len() == size),
                    "{entrants} at {size}: full tables"
                );
                let seated: Vec<usize> = tables.iter().flat_map(|t| entrants_at(t)).collect();
                let distinct: BTreeSet<usize> = seated.iter().copied().collect();
                assert_eq!(
                    seated.len(),
                    entrants,
                    "{entrants} at {size}, round {round}: seated once"
                );
                assert_eq!(
                    distinct,
                    (0..entrants).collect(),
                    "{entrants} at {size}, round {round}: everyone"
                );
                let bots = tables.iter().flatten().filter(|p| **p == Place::Bot).count();
                assert_eq!(bots, movement.bots(), "{entrants} at {size}, round {round}: bots");
            }
        }
    }

    #[test]
    fn the_first_round_seats_the_field_in_order_with_the_bots_at_the_last_table() {
        let tables = Movement::new(9, 4).expect("a field").round(0);
        assert_eq!(entrants_at(&tables[0]), vec![0, 1, 2, 3]);
        assert_eq!(entrants_at(&tables[1]), vec![4, 5, 6, 7]);
        assert_eq!(
            tables[2],
            vec![Place::Entrant(8), Place::Bot, Place::Bot, Place::Bot]
        );
    }

    #[test]
    fn everyone_takes_a_new_seat_each_round_until_they_have_had_them_all() {
        let movement = Movement::new(12, 4).expect("a field");
        let mut seats: HashMap<usize, Vec<usize>> = HashMap::new();
        for round in 0..4 {
            for table in movement.round(round) {
                for (seat, place) in table.iter().enumerate() {
                    if let Place::Entrant(i) = place {
                        seats.entry(*i).or_default().push(seat);
                    }
                }
            }
        }
        for (entrant, had) in seats {
            let distinct: HashSet<usize> = had.iter().copied().collect();
            assert_eq!(distinct.len(), 4, "entrant {entrant} sat in {had:?}");
        }
    }

    #[test]
    fn with_a_prime_number_of_tables_entrants_of_different_columns_meet_exactly_once() {
        // 5 tables of 4: in 5 rounds every two entrants of different home columns meet once.
        let movement = Movement::new(20, 4).expect("a field");
        let mut met: HashMap<(usize, usize), usize> = HashMap::new();
        for round in 0..5 {
            for table in movement.round(round) {
                let at = entrants_at(&table);
                for (n, a) in at.iter().enumerate() {
                    for b in &at[n + 1..] {
                        *met.entry((*a.min(b), *a.max(b))).or_default() += 1;
                    }
                }
            }
        }
        for a in 0..20 {
            for b in a + 1..20 {
                let expected = usize::from(a % 4 != b % 4);
                assert_eq!(met.get(&(a, b)).copied().unwrap_or(0), expected, "{a} and {b}");
            }
        }
    }

    #[test]
    fn eight_entrants_meet_five_different_opponents_in_two_rounds() {
        // Two tables of four: the second round must put two of each first-round table
        // together, so five distinct opponents is the most anyone can meet.
        let movement = Movement::new(8, 4).expect("a field");
        let mut opponents: HashMap<usize, HashSet<usize>> = HashMap::new();
        for round in 0..2 {
            for table in movement.round(round) {
                let at = entrants_at(&table);
                for a in &at {
                    opponents
                        .entry(*a)
                        .or_default()
                        .extend(at.iter().filter(|b| *b != a));
                }
            }
        }
        assert!(opponents.values().all(|o| o.len() == 5), "{opponents:?}");
    }

    #[test]
    fn a_field_that_cannot_be_seated_says_why() {
        assert_eq!(Movement::new(8, 1), Err(MovementError::TableSize(1)));
        assert_eq!(Movement::new(8, 9), Err(MovementError::TableSize(9)));
        assert_eq!(Movement::new(0, 4), Err(MovementError::NoEntrants));
    }

    #[test]
    fn matchpoints_compare_each_seat_with_the_same_seat_elsewhere() {
        // Three tables, two seats. Seat 0 scored 10, 10, 30; seat 1 scored 0, 5, 5.
        let halves = matchpoint_halves(&[vec![10, 0], vec![10, 5], vec![30, 5]]);
        assert_eq!(halves, vec![vec![3, 4], vec![3, 1], vec![0, 1]]);
        // Each comparison hands out 2 halves between its two seats.
        let total: u32 = halves.iter().flatten().sum();
        assert_eq!(total, 2 * 3 * 2);
    }

    #[test]
    fn one_table_alone_scores_nothing() {
        assert_eq!(matchpoint_halves(&[vec![7, 0, 12]]), vec![vec![0, 0, 0]]);
        assert!(matchpoint_halves(&[]).is_empty());
    }

    #[test]
    fn duplicate_tables_share_a_round_seed_and_points_tables_do_not() {
        let secret = [7u8; 32];
        let dup = |round, table| round_seed(&secret, Format::Duplicate, round, table);
        let pts = |round, table| round_seed(&secret, Format::Points, round, table);
        assert_eq!(dup(1, 0), dup(1, 5), "one seed for the round's tables");
        assert_ne!(dup(1, 0), dup(2, 0), "each round its own");
        assert_ne!(pts(1, 0), pts(1, 1), "each table its own");
        assert_ne!(
            round_seed(&[8u8; 32], Format::Duplicate, 1, 0),
            dup(1, 0),
            "each secret its own"
        );
    }

    #[test]
    fn a_round_adds_up_each_deal_compared_only_where_it_was_scored() {
        // Two tables of two seats, two deals; the second table never scored deal 2.
        let scores = vec![
            vec![vec![Some(0), Some(10)], vec![Some(5), Some(0)]],
            vec![vec![Some(5), None], vec![Some(5), None]],
        ];
        // Deal 1: seat 0 scored 0 against 5 (table 0 wins), seat 1 5 against 5 (a tie).
        assert_eq!(
            round_results(Format::Duplicate, false, &scores),
            vec![vec![2, 1], vec![0, 1]]
        );
        assert_eq!(
            round_results(Format::Points, false, &scores),
            vec![vec![10, 5], vec![5, 5]]
        );
    }

    #[test]
    fn where_the_highest_total_wins_the_higher_score_takes_the_matchpoints() {
        // `continental`'s payments: the table whose seat 0 was paid 12 beats the one paid 3.
        let scores = vec![
            vec![vec![Some(12)], vec![Some(-12)]],
            vec![vec![Some(3)], vec![Some(-3)]],
        ];
        assert_eq!(
            round_results(Format::Duplicate, true, &scores),
            vec![vec![2, 0], vec![0, 2]]
        );
        assert_eq!(
            round_results(Format::Duplicate, false, &scores),
            vec![vec![0, 2], vec![2, 0]]
        );
        assert_eq!(
            round_results(Format::Points, true, &scores),
            vec![vec![12, -12], vec![3, -3]]
        );
    }
}
