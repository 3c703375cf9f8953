//! Quick play: waiting tickets formed into tables. A ticket says what its player accepts (a
//! variant with its options, table sizes, live or asynchronous play); tickets meet when they
//! agree on all of it and their ratings are close, within a window that widens the longer they
//! wait. Past the studio's wait, a ticket that found no full table of people gets one filled
//! with the bot level whose rating is nearest its people. Pure and deterministic: the same
//! tickets, bots, rules and clock give the same tables, whatever order the tickets come in.

use std::collections::BTreeMap;
use std::time::Duration;

use engine::bot::Level;
use engine::{Ruleset, Variant};
use time::OffsetDateTime;
use uuid::Uuid;

use super::player::PlayerId;
use super::ratings::Rating;

/// Most tickets one ticket looks at, per table size, when it gathers a table: a bound on the
/// work of one ticket whatever the queue holds.
pub const SCAN_LIMIT: usize = 256;

/// The table sizes a ticket accepts, each one the variant seats.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct TableSizes(u16);

/// Why a ticket's request cannot be queued.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum TicketError {
    /// No size given.
    #[error("a ticket accepts at least one table size")]
    NoSizes,
    /// A size the variant cannot seat.
    #[error("{variant} seats {min} to {max} players, not {size}")]
    SizeNotSeated {
        /// The variant.
        variant: Variant,
        /// The size asked for.
        size: usize,
        /// Fewest players the rules seat.
        min: usize,
        /// Most players.
        max: usize,
    },
}

impl TableSizes {
    /// The sizes in `sizes`, each checked against what `ruleset` seats.
    ///
    /// # Errors
    /// [`TicketError`] for no size, or one the variant cannot seat.
    pub fn new(ruleset: &Ruleset, sizes: impl IntoIterator<Item = usize>) -> Result<TableSizes, TicketError> {
        let seated = ruleset.players();
        let mut bits = 0u16;
        for size in sizes {
            if !seated.contains(&size) || size >= 16 {
                return Err(TicketError::SizeNotSeated {
                    variant: ruleset.variant(),
                    size,
                    min: *seated.start(),
                    max: *seated.end(),
                });
            }
            bits |= 1 << size;
        }
        if bits == 0 {
            return Err(TicketError::NoSizes);
        }
        Ok(TableSizes(bits))
    }

    /// Whether a table of `size` suits.
    pub fn contains(self, size: usize) -> bool {
        size < 16 && self.0 & (1 << size) != 0
    }

    /// The sizes, smallest first.
    pub fn iter(self) -> impl DoubleEndedIterator<Item = usize> {
        (2..16).filter(move |&s| self.contains(s))
    }
}

/// Where a ticket is.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum TicketStatus {
    /// Waiting for a table.
    Waiting,
    /// In a table the matching pass formed, whose game is being made: no longer cancelled,
    /// shown as waiting until the game exists.
    Placing,
    /// Seated in a game that exists.
    Matched,
    /// Nobody collected it in time.
    Expired,
    /// Its player gave up waiting.
    Cancelled,
}

impl TicketStatus {
    /// Every status.
    pub const ALL: [TicketStatus; 5] = [
        TicketStatus::Waiting,
        TicketStatus::Placing,
        TicketStatus::Matched,
        TicketStatus::Expired,
        TicketStatus::Cancelled,
    ];

    /// Its name as stored.
    pub const fn as_str(self) -> &'static str {
        match self {
            TicketStatus::Waiting => "waiting",
            TicketStatus::Placing => "placing",
            TicketStatus::Matched => "matched",
            TicketStatus::Expired => "expired",
            TicketStatus::Cancelled => "cancelled",
        }
    }

    /// The status named `name`, if any.
    pub fn named(name: &str) -> Option<TicketStatus> {
        TicketStatus::ALL.into_iter().find(|s| s.as_str() == name)
    }
}

/// A player waiting for a table.
#[derive(Clone, Debug, PartialEq)]
pub struct Ticket {
    /// The ticket's id.
    pub id: Uuid,
    /// The studio's player; none on a server without server keys, whose tickets are anyone's.
    pub player: Option<PlayerId>,
    /// The name the table shows.
    pub name: String,
    /// The player's rating in the ticket's variant.
    pub rating: Rating,
    /// The variant and its options: only tickets with equal rules meet.
    pub ruleset: Ruleset,
    /// The table sizes the player accepts.
    pub sizes: TableSizes,
    /// Whether the player plays asynchronously (not connected, told of each turn); live and
    /// asynchronous tickets do not meet.
    pub asynchronous: bool,
    /// When the ticket was queued.
    pub waiting_since: OffsetDateTime,
}

/// How tickets are matched: the studio's settings.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct MatchRules {
    /// The widest gap between two people's rating means that a new ticket accepts.
    pub window: f64,
    /// How much the window widens per second of waiting.
    pub widen_per_second: f64,
    /// The widest the window gets.
    pub max_window: f64,
    /// After this wait, a ticket that found no full table sits down with bots; `None`: never.
    pub bots_after: Option<Duration>,
}

impl Default for MatchRules {
    /// Half a skill class (the crate's β, 25/6) at first, a skill class more every 10 s, up to
    /// the whole of a new player's doubt (3 × 25/3); bots after 30 s.
    fn default() -> Self {
        MatchRules {
            window: 25.0 / 12.0,
            widen_per_second: 25.0 / 60.0,
            max_window: 25.0,
            bots_after: Some(Duration::from_secs(30)),
        }
    }
}

impl MatchRules {
    /// The window of a ticket that has waited `waited`.
    pub fn window_after(&self, waited: Duration) -> f64 {
        self.widen_per_second
            .mul_add(waited.as_secs_f64(), self.window)
            .min(self.max_window)
    }
}

/// The bot levels' ratings, per variant: who fills an empty seat.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct BotLevels {
    levels: Vec<(Variant, Level, Rating)>,
}

impl BotLevels {
    /// The levels with their ratings; a variant without any gets no bots.
    pub fn new(levels: impl IntoIterator<Item = (Variant, Level, Rating)>) -> BotLevels {
        BotLevels {
            levels: levels.into_iter().collect(),
        }
    }

    /// The level of `variant` whose rating mean is nearest `mean`; on a tie, the first listed.
    pub fn nearest(&self, variant: Variant, mean: f64) -> Option<(Level, Rating)> {
        self.levels.iter().filter(|(v, _, _)| *v == variant).fold(
            None,
            |best: Option<(Level, Rating)>, &(_, level, rating)| match best {
                Some((_, b)) if (b.mean - mean).abs() <= (rating.mean - mean).abs() => best,
                _ => Some((level, rating)),
            },
        )
    }
}

/// A seat of a table formed.
#[derive(Clone, Debug, PartialEq)]
pub enum MatchSeat {
    /// The ticket's player sits here.
    Person(Uuid),
    /// A bot of this level, with its rating in the variant.
    Bot {
        /// The level.
        level: Level,
        /// Its rating.
        rating: Rating,
    },
}

/// A table formed from waiting tickets, seat by seat.
#[derive(Clone, Debug, PartialEq)]
pub struct Match {
    /// The rules every ticket asked for.
    pub ruleset: Ruleset,
    /// Whether the tickets play asynchronously.
    pub asynchronous: bool,
    /// Seat 0 first: people by how long they waited, then bots; in `push`'s partnerships, the
    /// strongest and the weakest against the two between (partners sit opposite).
    pub seats: Vec<MatchSeat>,
}

/// The tables that `tickets` form at `now`. Each ticket is in one table or none; a table's size
/// is one each of its people accepts; its people have equal rules and asynchrony, and the gap
/// between their highest and lowest means is within every one's window.
///
/// The longest-waiting ticket chooses first: the largest size it accepts for which the
/// nearest ratings around it fill the table with people. Then each ticket still waiting past
/// [`MatchRules::bots_after`], longest first, sits down with as many people as it can find and
/// bots for the other seats, at the size that seats most of those people, the largest on a tie:
/// a person alone who accepts 2 to 4 plays at a table of four, where the claims and the play of
/// more hands are, rather than heads-up with one bot. Bots never take a person's seat: a size
/// that seats fewer people loses to one that seats more.
pub fn match_tickets(
    tickets: &[Ticket],
    bots: &BotLevels,
    rules: &MatchRules,
    now: OffsetDateTime,
) -> Vec<Match> {
    form_tables(tickets, bots, rules, now, None)
}

/// The tables [`match_tickets`] forms at `now` when ticket `early` takes its bots now, as if
/// it had waited [`MatchRules::bots_after`] already ("play with bots now"): the people it can
/// find and bots for the other seats, chosen as for any ticket past the wait. It stays waiting
/// (in none of the tables) when bots are off, or no bot level plays its variant.
pub fn match_tickets_now(
    tickets: &[Ticket],
    early: Uuid,
    bots: &BotLevels,
    rules: &MatchRules,
    now: OffsetDateTime,
) -> Vec<Match> {
    form_tables(tickets, bots, rules, now, Some(early))
}

fn form_tables(
    tickets: &[Ticket],
    bots: &BotLevels,
    rules: &MatchRules,
    now: OffsetDateTime,
    early: Option<Uuid>,
) -> Vec<Match> {
    let mut groups: BTreeMap<(String, bool), Vec<usize>> = BTreeMap::new();
    for (i, t) in tickets.iter().enumerate() {
        let rules_key = serde_json::to_string(&t.ruleset).expect("a ruleset serialises");
        groups.entry((rules_key, t.asynchronous)).or_default().push(i);
    }
    let mut matches = Vec::new();
    for members in groups.into_values() {
        Queue::new(tickets, members, rules, now).form(bots, rules, early, &mut matches);
    }
    matches
}

/// The earliest time after `now` at which [`match_tickets`] could form a table of `tickets`
/// (which form none at `now`) only because the clock moved: a ticket's wait reaching
/// [`MatchRules::bots_after`], or a ticket's window widening to take in the spread of two
/// ratings around its own. `None`: the clock alone changes nothing for them, only a ticket
/// arriving or leaving does. Never later than the true change; earlier when a crowded queue
/// cuts the search short.
///
/// The tables formed depend on the clock only through those two: a group fits when the spread
/// of its means is within every member's window, and each member lies within that spread.
pub fn next_change(tickets: &[Ticket], rules: &MatchRules, now: OffsetDateTime) -> Option<OffsetDateTime> {
    let mut groups: BTreeMap<(String, bool), Vec<&Ticket>> = BTreeMap::new();
    for t in tickets {
        let rules_key = serde_json::to_string(&t.ruleset).expect("a ruleset serialises");
        groups.entry((rules_key, t.asynchronous)).or_default().push(t);
    }
    let mut soonest: Option<OffsetDateTime> = None;
    let mut consider = |at: OffsetDateTime| {
        let at = at.max(now + Duration::from_millis(1));
        soonest = Some(soonest.map_or(at, |s| s.min(at)));
    };
    for members in groups.into_values() {
        let mut means: Vec<f64> = members.iter().map(|t| t.rating.mean).collect();
        means.sort_by(f64::total_cmp);
        for t in &members {
            if let Some(after) = rules.bots_after
                && t.waiting_since + after > now
            {
                consider(t.waiting_since + after);
            }
            if let Some(spread) = next_spread(&means, t.rating.mean, rules, t.window_at(rules, now)) {
                consider(t.window_reaches(rules, spread, now));
            }
        }
    }
    soonest
}

/// The smallest spread of two means of `means` (sorted) around `own` that is wider than
/// `window` and within the widest window: the next one a ticket of mean `own` may take in as
/// its window widens. `Some(window)` when the search is cut short (a crowded queue): a bound
/// below the true one.
fn next_spread(means: &[f64], own: f64, rules: &MatchRules, window: f64) -> Option<f64> {
    if window >= rules.max_window || rules.widen_per_second <= 0.0 {
        return None;
    }
    // Means at or below `own` are the low ends; the high end is at or above `own`.
    let at = means.partition_point(|&m| m < own);
    let above = &means[at..];
    let mut best: Option<f64> = None;
    // Nearest first: the means equal to `own`, then those below it.
    let lows = above
        .iter()
        .take_while(|&&m| m <= own)
        .chain(means[..at].iter().rev());
    for (looked, &low) in lows.enumerate() {
        if own - low > best.unwrap_or(rules.max_window) {
            break;
        }
        if looked >= SCAN_LIMIT {
            return Some(window);
        }
        // The nearest high end that makes the spread wider than the window.
        let high = above.partition_point(|&m| m - low <= window);
        if let Some(&m) = above.get(high) {
            let spread = m - low;
            if spread <= rules.max_window && best.is_none_or(|b| spread < b) {
                best = Some(spread);
            }
        }
    }
    best
}

impl Ticket {
    /// Its window at `now`.
    fn window_at(&self, rules: &MatchRules, now: OffsetDateTime) -> f64 {
        rules.window_after((now - self.waiting_since).try_into().unwrap_or_default())
    }

    /// The first millisecond after `now` at which its window reaches `spread`.
    fn window_reaches(&self, rules: &MatchRules, spread: f64, now: OffsetDateTime) -> OffsetDateTime {
        let seconds = ((spread - rules.window) / rules.widen_per_second).max(0.0);
        let mut at = self.waiting_since + Duration::from_millis((seconds * 1000.0).ceil() as u64);
        // The window is a float: step on until it is read as reaching the spread.
        for _ in 0..8 {
            if at > now && self.window_at(rules, at) >= spread {
                break;
            }
            at += Duration::from_millis(1);
        }
        at
    }
}

/// One group of tickets with equal rules and asynchrony, ordered by rating, with the tickets
/// already seated taken out of the order.
struct Queue<'t> {
    tickets: &'t [Ticket],
    /// Ticket indices, by rating mean then id.
    by_rating: Vec<usize>,
    /// Each ticket's window, by position in `by_rating`.
    windows: Vec<f64>,
    /// Each ticket's wait, by position.
    waits: Vec<Duration>,
    /// The previous and next position still waiting (`usize::MAX`: none).
    prev: Vec<usize>,
    next: Vec<usize>,
    seated: Vec<bool>,
}

const NONE: usize = usize::MAX;

impl<'t> Queue<'t> {
    fn new(
        tickets: &'t [Ticket],
        mut members: Vec<usize>,
        rules: &MatchRules,
        now: OffsetDateTime,
    ) -> Queue<'t> {
        members.sort_by(|&a, &b| {
            let (a, b) = (&tickets[a], &tickets[b]);
            a.rating.mean.total_cmp(&b.rating.mean).then(a.id.cmp(&b.id))
        });
        let n = members.len();
        let waits: Vec<Duration> = members
            .iter()
            .map(|&i| (now - tickets[i].waiting_since).try_into().unwrap_or_default())
            .collect();
        Queue {
            tickets,
            windows: waits.iter().map(|&w| rules.window_after(w)).collect(),
            waits,
            by_rating: members,
            prev: (0..n).map(|p| p.checked_sub(1).unwrap_or(NONE)).collect(),
            next: (0..n).map(|p| if p + 1 < n { p + 1 } else { NONE }).collect(),
            seated: vec![false; n],
        }
    }

    fn ticket(&self, pos: usize) -> &'t Ticket {
        &self.tickets[self.by_rating[pos]]
    }

    /// Tables of people first, then tables with bots, each ticket choosing longest wait first;
    /// `early` takes its bots whatever its wait.
    fn form(mut self, bots: &BotLevels, rules: &MatchRules, early: Option<Uuid>, out: &mut Vec<Match>) {
        let mut anchors: Vec<usize> = (0..self.by_rating.len()).collect();
        anchors.sort_by(|&a, &b| {
            let (ta, tb) = (self.ticket(a), self.ticket(b));
            ta.waiting_since.cmp(&tb.waiting_since).then(ta.id.cmp(&tb.id))
        });
        for &anchor in &anchors {
            if self.seated[anchor] {
                continue;
            }
            let sizes = self.ticket(anchor).sizes;
            let full = sizes.iter().rev().find_map(|size| {
                let people = self.gather(anchor, size);
                (people.len() == size).then_some(people)
            });
            if let Some(people) = full {
                out.push(self.seat(people, None));
            }
        }
        let Some(bots_after) = rules.bots_after else {
            return;
        };
        for &anchor in &anchors {
            let ready = self.waits[anchor] >= bots_after || early == Some(self.ticket(anchor).id);
            if self.seated[anchor] || !ready {
                continue;
            }
            let sizes = self.ticket(anchor).sizes;
            let Some((size, people)) = sizes
                .iter()
                .map(|size| (size, self.gather(anchor, size)))
                .max_by(|(sa, a), (sb, b)| a.len().cmp(&b.len()).then(sa.cmp(sb)))
            else {
                continue;
            };
            let mean = people.iter().map(|&p| self.ticket(p).rating.mean).sum::<f64>() / people.len() as f64;
            let Some(bot) = bots.nearest(self.ticket(anchor).ruleset.variant(), mean) else {
                continue;
            };
            out.push(self.seat(people, Some((size, bot))));
        }
    }

    /// `anchor` and up to `size - 1` more waiting tickets that accept `size`, the nearest
    /// ratings first, keeping the spread of means within every one's window.
    fn gather(&self, anchor: usize, size: usize) -> Vec<usize> {
        let mut people = vec![anchor];
        let own = self.ticket(anchor).rating.mean;
        let (mut low, mut high, mut window) = (own, own, self.windows[anchor]);
        let (mut left, mut right) = (self.prev[anchor], self.next[anchor]);
        let distance = |pos: usize| {
            if pos == NONE {
                f64::INFINITY
            } else {
                (self.ticket(pos).rating.mean - own).abs()
            }
        };
        let mut looked = 0;
        while people.len() < size && looked < SCAN_LIMIT {
            let (dl, dr) = (distance(left), distance(right));
            let pos = if dl <= dr { left } else { right };
            if pos == NONE || dl.min(dr) > window {
                break;
            }
            if pos == left {
                left = self.prev[pos];
            } else {
                right = self.next[pos];
            }
            looked += 1;
            let t = self.ticket(pos);
            let (lo, hi) = (low.min(t.rating.mean), high.max(t.rating.mean));
            let w = window.min(self.windows[pos]);
            if t.sizes.contains(size) && hi - lo <= w {
                people.push(pos);
                (low, high, window) = (lo, hi, w);
            }
        }
        people
    }

    /// Takes `people` out of the queue and seats them, with bots up to `size` when `bot` says
    /// which.
    fn seat(&mut self, mut people: Vec<usize>, bot: Option<(usize, (Level, Rating))>) -> Match {
        for &p in &people {
            self.seated[p] = true;
            let (before, after) = (self.prev[p], self.next[p]);
            if before != NONE {
                self.next[before] = after;
            }
            if after != NONE {
                self.prev[after] = before;
            }
        }
        people.sort_by(|&a, &b| {
            let (ta, tb) = (self.ticket(a), self.ticket(b));
            ta.waiting_since.cmp(&tb.waiting_since).then(ta.id.cmp(&tb.id))
        });
        let first = self.ticket(people[0]);
        let mut seats: Vec<(Rating, MatchSeat)> = people
            .iter()
            .map(|&p| (self.ticket(p).rating, MatchSeat::Person(self.ticket(p).id)))
            .collect();
        if let Some((size, (level, rating))) = bot {
            seats.resize(size, (rating, MatchSeat::Bot { level, rating }));
        }
        let ruleset = first.ruleset.clone();
        if ruleset.team_of(0).is_some() && seats.len() == 4 {
            // Strongest first (a person before a bot on equal means, the stable sort keeping
            // the order by wait): 1st and 4th at seats 0 and 2, 2nd and 3rd at 1 and 3.
            seats.sort_by(|a, b| b.0.mean.total_cmp(&a.0.mean));
            seats.swap(2, 3);
        }
        Match {
            ruleset,
            asynchronous: first.asynchronous,
            seats: seats.into_iter().map(|(_, s)| s).collect(),
        }
    }
}

#[cfg(test)]
mod tests {
    use std::collections::HashMap;

    use rand::rngs::StdRng;
    use rand::seq::SliceRandom;
    use rand::{Rng, SeedableRng};

    use super::*;

    fn start() -> OffsetDateTime {
        OffsetDateTime::from_unix_timestamp(1_800_000_000).expect("a time")
    }

    fn secs(s: u64) -> OffsetDateTime {
        start() + Duration::from_secs(s)
    }

    fn ticket(n: u128, mean: f64, sizes: &[usize], waiting_since: OffsetDateTime) -> Ticket {
        let ruleset = Ruleset::default_for(Variant::MayI);
        Ticket {
            id: Uuid::from_u128(n),
            player: Some(PlayerId::try_from(format!("p{n}")).expect("id")),
            name: format!("Player {n}"),
            rating: Rating { mean, deviation: 3.0 },
            sizes: TableSizes::new(&ruleset, sizes.iter().copied()).expect("sizes"),
            ruleset,
            asynchronous: false,
            waiting_since,
        }
    }

    fn bots() -> BotLevels {
        BotLevels::new([
            (
                Variant::MayI,
                Level::Easy,
                Rating {
                    mean: 18.0,
                    deviation: 1.0,
                },
            ),
            (
                Variant::MayI,
                Level::Normal,
                Rating {
                    mean: 24.0,
                    deviation: 1.0,
                },
            ),
            (
                Variant::MayI,
                Level::Hard,
                Rating {
                    mean: 31.0,
                    deviation: 1.0,
                },
            ),
            (
                Variant::Push,
                Level::Normal,
                Rating {
                    mean: 22.0,
                    deviation: 1.0,
                },
            ),
        ])
    }

    fn people(m: &Match) -> Vec<u128> {
        m.seats
            .iter()
            .filter_map(|s| match s {
                MatchSeat::Person(id) => Some(id.as_u128()),
                MatchSeat::Bot { .. } => None,
            })
            .collect()
    }

    /// A queue of `n` tickets from `seed`: two variants, two sets of options, live and
    /// asynchronous, sizes 2 to 4, ratings around 25, waits up to a minute.
    fn random_queue(n: usize, seed: u64) -> Vec<Ticket> {
        let mut rng = StdRng::seed_from_u64(seed);
        let rulesets = [
            Ruleset::default_for(Variant::MayI),
            Ruleset::new(Variant::MayI, Some(serde_json::json!({"deuces_wild": true}))).expect("rules"),
            Ruleset::default_for(Variant::Push),
            Ruleset::default_for(Variant::Contract7),
        ];
        (0..n)
            .map(|i| {
                let ruleset = rulesets[rng.random_range(0..rulesets.len())].clone();
                let seated = ruleset.players();
                let sizes: Vec<usize> = (2..=4)
                    .filter(|s| seated.contains(s) && rng.random_bool(0.6))
                    .collect();
                let sizes = if sizes.is_empty() {
                    vec![*seated.start()]
                } else {
                    sizes
                };
                Ticket {
                    id: Uuid::from_u128(rng.random()),
                    player: Some(PlayerId::try_from(format!("p{i}")).expect("id")),
                    name: format!("Player {i}"),
                    rating: Rating {
                        mean: rng.random_range(10.0..40.0),
                        deviation: rng.random_range(1.0..8.4),
                    },
                    sizes: TableSizes::new(&ruleset, sizes).expect("sizes"),
                    ruleset,
                    asynchronous: rng.random_bool(0.2),
                    waiting_since: secs(rng.random_range(0..60)),
                }
            })
            .collect()
    }

    /// Checks every promise of [`match_tickets`] about `matches` of `tickets` at `now`.
    fn assert_sound(tickets: &[Ticket], matches: &[Match], rules: &MatchRules, now: OffsetDateTime) {
        let by_id: HashMap<u128, &Ticket> = tickets.iter().map(|t| (t.id.as_u128(), t)).collect();
        let mut seen = HashMap::new();
        for (n, m) in matches.iter().enumerate() {
            let ids = people(m);
            assert!(!ids.is_empty(), "table {n} has people");
            let size = m.seats.len();
            let mut low = f64::INFINITY;
            let mut high = f64::NEG_INFINITY;
            let mut window = f64::INFINITY;
            for id in &ids {
                assert_eq!(
                    seen.insert(*id, n),
                    None,
                    "ticket {id} in tables {:?} and {n}",
                    seen.get(id)
                );
                let t = by_id[id];
                assert!(t.sizes.contains(size), "ticket {id} at a table of {size}");
                assert_eq!(t.ruleset, m.ruleset, "ticket {id}: the table's rules");
                assert_eq!(
                    t.asynchronous, m.asynchronous,
                    "ticket {id}: live or asynchronous"
                );
                low = low.min(t.rating.mean);
                high = high.max(t.rating.mean);
                let waited: Duration = (now - t.waiting_since).try_into().unwrap_or_default();
                window = window.min(rules.window_after(waited));
            }
            assert!(
                high - low <= window,
                "table {n}: means {low}..{high} beyond window {window}"
            );
            assert!(
                m.ruleset.players().contains(&size),
                "table {n}: the variant seats {size}"
            );
            let bots = size - ids.len();
            if bots > 0 {
                let waited: Duration = ids
                    .iter()
                    .map(|id| -> Duration { (now - by_id[id].waiting_since).try_into().unwrap_or_default() })
                    .max()
                    .unwrap_or_default();
                assert!(
                    waited >= rules.bots_after.expect("bots allowed"),
                    "table {n}: bots before the wait"
                );
            }
        }
    }

    #[test]
    fn no_ticket_sits_at_two_tables_and_every_table_keeps_its_promises() {
        let rules = MatchRules::default();
        for seed in 0..20 {
            let tickets = random_queue(400, seed);
            for now in [secs(0), secs(40), secs(90)] {
                let matches = match_tickets(&tickets, &bots(), &rules, now);
                assert!(!matches.is_empty(), "seed {seed}: 400 tickets make some tables");
                assert_sound(&tickets, &matches, &rules, now);
            }
        }
    }

    #[test]
    fn a_table_is_of_a_size_every_one_of_its_people_accepts() {
        let rules = MatchRules {
            bots_after: None,
            ..MatchRules::default()
        };
        // Three want exactly three; two of those also take two. A fourth takes two only.
        let tickets = [
            ticket(1, 25.0, &[3], start()),
            ticket(2, 25.0, &[2, 3], start()),
            ticket(3, 25.0, &[2, 3], start()),
            ticket(4, 25.0, &[2], start()),
        ];
        let matches = match_tickets(&tickets, &bots(), &rules, start());
        let tables: Vec<Vec<u128>> = matches.iter().map(people).collect();
        assert_eq!(
            tables,
            [vec![1, 2, 3]],
            "the three at a table of three; the fourth waits"
        );

        // Alone, 1 waits: no one else accepts three.
        let matches = match_tickets(
            &[tickets[0].clone(), tickets[3].clone()],
            &bots(),
            &rules,
            start(),
        );
        assert!(
            matches.is_empty(),
            "sizes {{3}} and {{2}} never meet: {matches:?}"
        );

        // The largest size that fills is chosen: four who take 2 to 4 sit at one table of four.
        let four: Vec<Ticket> = (1..=4).map(|n| ticket(n, 25.0, &[2, 3, 4], start())).collect();
        let matches = match_tickets(&four, &bots(), &rules, start());
        assert_eq!(matches.len(), 1);
        assert_eq!(matches[0].seats.len(), 4);
    }

    #[test]
    fn the_window_widens_with_the_wait() {
        let rules = MatchRules {
            window: 2.0,
            widen_per_second: 0.5,
            max_window: 20.0,
            bots_after: None,
        };
        // Means 6 apart: the window must reach 6, 8 s after the later ticket was queued.
        let tickets = [ticket(1, 22.0, &[2], secs(0)), ticket(2, 28.0, &[2], secs(2))];
        let rows = [
            (secs(2), 0, "both new"),
            (
                secs(9),
                0,
                "the first's window reaches 6.5, the second's only 5.5",
            ),
            (secs(10), 1, "both windows reach 6"),
        ];
        for (now, tables, why) in rows {
            let matches = match_tickets(&tickets, &bots(), &rules, now);
            assert_eq!(matches.len(), tables, "{why}");
        }
        assert!(
            (rules.window_after(Duration::from_secs(3600)) - 20.0).abs() < 1e-9,
            "capped"
        );

        // Among several, the nearest rating is chosen.
        let tickets = [
            ticket(1, 25.0, &[2], secs(0)),
            ticket(2, 26.5, &[2], secs(0)),
            ticket(3, 24.0, &[2], secs(0)),
        ];
        let matches = match_tickets(&tickets, &bots(), &rules, secs(0));
        assert_eq!(matches.iter().map(people).collect::<Vec<_>>(), [vec![1, 3]]);
    }

    #[test]
    fn past_the_wait_empty_seats_take_the_bot_nearest_the_people() {
        let rules = MatchRules {
            window: 2.0,
            widen_per_second: 0.0,
            max_window: 2.0,
            bots_after: Some(Duration::from_secs(30)),
        };
        // Two close players who accept 3 or 4, and one far away who accepts 2.
        let tickets = [
            ticket(1, 30.0, &[3, 4], secs(0)),
            ticket(2, 31.0, &[3, 4], secs(20)),
            ticket(3, 12.0, &[2], secs(0)),
        ];
        assert!(
            match_tickets(&tickets, &bots(), &rules, secs(29)).is_empty(),
            "before the wait"
        );
        let matches = match_tickets(&tickets, &bots(), &rules, secs(30));
        let hard = Rating {
            mean: 31.0,
            deviation: 1.0,
        };
        let easy = Rating {
            mean: 18.0,
            deviation: 1.0,
        };
        assert_eq!(
            matches,
            [
                Match {
                    ruleset: Ruleset::default_for(Variant::MayI),
                    asynchronous: false,
                    // Both people (the second has waited only 10 s: it joins the first's
                    // table), at the largest size they accept, the hard bot nearest 30.5.
                    seats: vec![
                        MatchSeat::Person(Uuid::from_u128(1)),
                        MatchSeat::Person(Uuid::from_u128(2)),
                        MatchSeat::Bot {
                            level: Level::Hard,
                            rating: hard
                        },
                        MatchSeat::Bot {
                            level: Level::Hard,
                            rating: hard
                        },
                    ],
                },
                Match {
                    ruleset: Ruleset::default_for(Variant::MayI),
                    asynchronous: false,
                    seats: vec![
                        MatchSeat::Person(Uuid::from_u128(3)),
                        MatchSeat::Bot {
                            level: Level::Easy,
                            rating: easy
                        },
                    ],
                },
            ]
        );
        // Without bots for the variant, or with bots turned off, they wait.
        assert!(match_tickets(&tickets, &BotLevels::default(), &rules, secs(60)).is_empty());
        let never = MatchRules {
            bots_after: None,
            ..rules
        };
        assert!(match_tickets(&tickets, &bots(), &never, secs(600)).is_empty());
    }

    #[test]
    fn bots_fill_the_largest_table_that_seats_the_most_people() {
        let rules = MatchRules {
            window: 2.0,
            widen_per_second: 0.0,
            max_window: 2.0,
            bots_after: Some(Duration::from_secs(30)),
        };
        let sizes = |m: &[Match]| m.iter().map(|m| (people(m), m.seats.len())).collect::<Vec<_>>();
        // Alone, accepting 2 to 4: a table of four, three bots.
        let alone = [ticket(1, 25.0, &[2, 3, 4], secs(0))];
        assert_eq!(
            sizes(&match_tickets(&alone, &bots(), &rules, secs(30))),
            [(vec![1], 4)]
        );
        // A neighbour who takes only two: two people at a table of two beat one person at four.
        let pair = [alone[0].clone(), ticket(2, 25.5, &[2], secs(25))];
        assert_eq!(
            sizes(&match_tickets(&pair, &bots(), &rules, secs(30))),
            [(vec![1, 2], 2)]
        );
        // Sizes 2 and 3 with a neighbour who takes 3 only: both at three, one bot.
        let three = [ticket(1, 25.0, &[2, 3], secs(0)), ticket(2, 25.5, &[3], secs(25))];
        assert_eq!(
            sizes(&match_tickets(&three, &bots(), &rules, secs(30))),
            [(vec![1, 2], 3)]
        );
    }

    #[test]
    fn a_ticket_that_takes_its_bots_now_sits_down_as_past_the_wait() {
        let rules = MatchRules {
            window: 2.0,
            widen_per_second: 0.0,
            max_window: 2.0,
            bots_after: Some(Duration::from_secs(30)),
        };
        let tickets = [
            ticket(1, 25.0, &[2, 3, 4], secs(0)),
            ticket(2, 25.5, &[3, 4], secs(2)),
            ticket(3, 12.0, &[2], secs(1)),
        ];
        assert!(
            match_tickets(&tickets, &bots(), &rules, secs(5)).is_empty(),
            "before the wait"
        );
        // The second asks at 5 s: it gathers the first (near its rating), bots for the rest;
        // the third, far away and within its wait, still waits.
        let now = match_tickets_now(&tickets, Uuid::from_u128(2), &bots(), &rules, secs(5));
        assert_eq!(now.len(), 1);
        assert_eq!(people(&now[0]), [1, 2]);
        assert_eq!(now[0].seats.len(), 4, "the largest size both accept");
        // The same tables as a pass at the wait makes for them.
        let later: Vec<Ticket> = tickets[..2]
            .iter()
            .map(|t| Ticket {
                waiting_since: t.waiting_since - Duration::from_secs(30),
                ..t.clone()
            })
            .collect();
        assert_eq!(match_tickets(&later, &bots(), &rules, secs(5)), now);
        // With bots off, or none for the variant, nobody sits down.
        let never = MatchRules {
            bots_after: None,
            ..rules
        };
        assert!(match_tickets_now(&tickets, Uuid::from_u128(2), &bots(), &never, secs(5)).is_empty());
        assert!(
            match_tickets_now(
                &tickets,
                Uuid::from_u128(2),
                &BotLevels::default(),
                &rules,
                secs(5)
            )
            .is_empty()
        );
    }

    #[test]
    fn push_partners_balance_the_ratings() {
        let ruleset = Ruleset::default_for(Variant::Push);
        let tickets: Vec<Ticket> = [(1, 30.0), (2, 20.0), (3, 26.0), (4, 23.0)]
            .into_iter()
            .map(|(n, mean)| Ticket {
                ruleset: ruleset.clone(),
                sizes: TableSizes::new(&ruleset, [4]).expect("push seats four"),
                ..ticket(n, mean, &[4], start())
            })
            .collect();
        let rules = MatchRules {
            max_window: 10.0,
            window: 10.0,
            ..MatchRules::default()
        };
        let matches = match_tickets(&tickets, &bots(), &rules, start());
        assert_eq!(matches.len(), 1);
        // 30 and 20 at seats 0 and 2 against 26 and 23 at 1 and 3.
        assert_eq!(people(&matches[0]), [1, 3, 2, 4]);

        // One person past the wait: three normal bots, the person at seat 0.
        let alone = [tickets[0].clone()];
        let matches = match_tickets(&alone, &bots(), &rules, secs(30));
        assert_eq!(matches.len(), 1);
        assert_eq!(matches[0].seats[0], MatchSeat::Person(Uuid::from_u128(1)));
        assert!(matches[0].seats[1..].iter().all(|s| matches!(
            s,
            MatchSeat::Bot {
                level: Level::Normal,
                ..
            }
        )));
    }

    #[test]
    fn the_same_tickets_in_any_order_make_the_same_tables() {
        let rules = MatchRules::default();
        let mut tickets = random_queue(600, 99);
        let first = match_tickets(&tickets, &bots(), &rules, secs(45));
        let mut rng = StdRng::seed_from_u64(1);
        for _ in 0..3 {
            tickets.shuffle(&mut rng);
            assert_eq!(match_tickets(&tickets, &bots(), &rules, secs(45)), first);
        }
    }

    /// What is left of `tickets` once passes at `now` have formed every table they can.
    fn left_after(tickets: &[Ticket], rules: &MatchRules, now: OffsetDateTime) -> Vec<Ticket> {
        let mut left = tickets.to_vec();
        loop {
            let matches = match_tickets(&left, &bots(), rules, now);
            if matches.is_empty() {
                return left;
            }
            let seated: Vec<u128> = matches.iter().flat_map(people).collect();
            left.retain(|t| !seated.contains(&t.id.as_u128()));
        }
    }

    #[test]
    fn no_table_forms_before_the_next_change_the_clock_brings() {
        let spread_out = MatchRules {
            window: 0.5,
            widen_per_second: 0.2,
            max_window: 12.0,
            bots_after: Some(Duration::from_secs(45)),
        };
        for rules in [MatchRules::default(), spread_out] {
            for seed in 0..20 {
                let mut left = random_queue(30, seed);
                let mut now = secs(60);
                // From change to change, until the clock alone changes nothing.
                for _ in 0..5_000 {
                    left = left_after(&left, &rules, now);
                    let next = next_change(&left, &rules, now);
                    let until = next.unwrap_or(now + Duration::from_secs(3600));
                    assert!(until > now, "seed {seed}: the next change is ahead");
                    let span = until - now;
                    let before = (1..=8)
                        .map(|k| now + span * k / 9)
                        .chain([until - Duration::from_millis(1)]);
                    for t in before.filter(|t| *t > now) {
                        assert!(
                            match_tickets(&left, &bots(), &rules, t).is_empty(),
                            "seed {seed}: a table at {t}, before the change at {until}"
                        );
                    }
                    match next {
                        Some(next) => now = next,
                        None => break,
                    }
                }
                assert!(
                    next_change(&left, &rules, now).is_none(),
                    "seed {seed}: the changes come to an end"
                );
            }
        }
    }

    #[test]
    fn the_next_change_is_a_window_reaching_a_spread_or_the_bots_time() {
        let rules = MatchRules {
            window: 2.0,
            widen_per_second: 0.5,
            max_window: 20.0,
            bots_after: None,
        };
        // Means 6 apart: the first's window reaches 6 at 8 s, the second's at 10 s.
        let tickets = [ticket(1, 22.0, &[2], secs(0)), ticket(2, 28.0, &[2], secs(2))];
        assert_eq!(next_change(&tickets, &rules, secs(2)), Some(secs(8)));
        assert_eq!(next_change(&tickets, &rules, secs(8)), Some(secs(10)));
        assert_eq!(match_tickets(&tickets, &bots(), &rules, secs(10)).len(), 1);
        // Too far apart for the widest window: nothing the clock does changes it.
        let apart = [ticket(1, 5.0, &[2], secs(0)), ticket(2, 30.0, &[2], secs(0))];
        assert_eq!(next_change(&apart, &rules, secs(1)), None);
        // With bots, their time comes.
        let bots_after = MatchRules {
            bots_after: Some(Duration::from_secs(30)),
            ..rules
        };
        assert_eq!(next_change(&apart, &bots_after, secs(1)), Some(secs(30)));
        assert_eq!(next_change(&[], &bots_after, secs(1)), None);
    }

    #[test]
    fn table_sizes_are_ones_the_variant_seats() {
        let may_i = Ruleset::default_for(Variant::MayI);
        let push = Ruleset::default_for(Variant::Push);
        let rows = [
            (&may_i, vec![2, 8], Ok(vec![2, 8]), "may_i seats 2 to 8"),
            (
                &may_i,
                vec![4, 2, 4],
                Ok(vec![2, 4]),
                "repeats and order do not matter",
            ),
            (&may_i, vec![], Err(TicketError::NoSizes), "none"),
            (
                &may_i,
                vec![9],
                Err(TicketError::SizeNotSeated {
                    variant: Variant::MayI,
                    size: 9,
                    min: 2,
                    max: 8,
                }),
                "nine",
            ),
            (
                &push,
                vec![3],
                Err(TicketError::SizeNotSeated {
                    variant: Variant::Push,
                    size: 3,
                    min: 4,
                    max: 4,
                }),
                "push's partnerships seat four",
            ),
        ];
        for (ruleset, sizes, expected, why) in rows {
            let got = TableSizes::new(ruleset, sizes).map(|s| s.iter().collect::<Vec<_>>());
            assert_eq!(got, expected, "{why}");
        }
    }
}
