//! Quick play's pure core: forming tables from 10,000 waiting tickets, and rating a finished
//! game. Run with `cargo bench -p continental --bench matchmaking`; docs/performance.md#quick-play
//! has the figures.
//!
//! Criterion times each case on the wall clock; before it, one pass of each 10,000-ticket case
//! is timed on the thread's CPU clock, which the machine's other processes do not inflate.

use std::hint::black_box;
use std::time::Duration;

use continental::domain::{
    BotLevels, MatchRules, Participant, PlayerId, RatedSeat, Rating, RatingModel, TableSizes, Ticket,
    match_tickets,
};
use criterion::Criterion;
use engine::bot::Level;
use engine::{Ruleset, Seat, Standing, Variant};
use rand::rngs::StdRng;
use rand::{Rng, SeedableRng};
use time::OffsetDateTime;
use uuid::Uuid;

fn now() -> OffsetDateTime {
    OffsetDateTime::from_unix_timestamp(1_800_000_060).expect("a time")
}

/// `n` tickets from a seed: ratings spread over 10 to 40, sizes from 2 to 4, waits up to a
/// minute, `rulesets` chosen at random, one in five asynchronous when `mixed`.
fn queue(n: usize, rulesets: &[Ruleset], mixed: bool, seed: u64) -> Vec<Ticket> {
    let mut rng = StdRng::seed_from_u64(seed);
    let start = OffsetDateTime::from_unix_timestamp(1_800_000_000).expect("a time");
    (0..n)
        .map(|i| {
            let ruleset = rulesets[rng.random_range(0..rulesets.len())].clone();
            let seated = ruleset.players();
            let mut sizes: Vec<usize> = (2..=4)
                .filter(|s| seated.contains(s) && rng.random_bool(0.6))
                .collect();
            if sizes.is_empty() {
                sizes.push(*seated.start());
            }
            Ticket {
                id: Uuid::from_u128(rng.random()),
                player: Some(PlayerId::try_from(format!("player-{i}")).expect("id")),
                name: format!("Player {i}"),
                rating: Rating {
                    mean: rng.random_range(10.0..40.0),
                    deviation: rng.random_range(1.0..8.4),
                },
                sizes: TableSizes::new(&ruleset, sizes).expect("sizes"),
                ruleset,
                asynchronous: mixed && rng.random_bool(0.2),
                waiting_since: start + Duration::from_secs(rng.random_range(0..60)),
            }
        })
        .collect()
}

fn bots() -> BotLevels {
    let levels = [(Level::Easy, 18.0), (Level::Normal, 24.0), (Level::Hard, 31.0)];
    BotLevels::new(Variant::ALL.into_iter().flat_map(|v| {
        levels
            .into_iter()
            .map(move |(l, mean)| (v, l, Rating { mean, deviation: 1.0 }))
    }))
}

fn cases() -> Vec<(&'static str, Vec<Ticket>)> {
    let may_i = Ruleset::default_for(Variant::MayI);
    let mixed = [
        may_i.clone(),
        Ruleset::new(Variant::MayI, Some(serde_json::json!({"deuces_wild": true}))).expect("rules"),
        Ruleset::default_for(Variant::Contract7),
        Ruleset::default_for(Variant::Continental),
        Ruleset::default_for(Variant::Push),
    ];
    vec![
        (
            "10,000 tickets, one queue (may_i, live)",
            queue(10_000, &[may_i], false, 1),
        ),
        (
            "10,000 tickets, 5 rule sets, live and asynchronous",
            queue(10_000, &mixed, true, 2),
        ),
    ]
}

fn cpu_time() -> Duration {
    use nix::time::{ClockId, clock_gettime};
    clock_gettime(ClockId::CLOCK_THREAD_CPUTIME_ID).map_or(Duration::ZERO, Duration::from)
}

/// One pass of each case on the thread's CPU clock, with what it formed.
fn cpu_pass() {
    let rules = MatchRules::default();
    for (name, tickets) in cases() {
        let start = cpu_time();
        let matches = match_tickets(&tickets, &bots(), &rules, now());
        let spent = cpu_time() - start;
        let seated: usize = matches.iter().map(|m| m.seats.len()).sum();
        println!(
            "{name}: {:.1} ms of CPU, {} tables, {seated} seats",
            spent.as_secs_f64() * 1e3,
            matches.len()
        );
    }
}

fn matching(c: &mut Criterion) {
    let rules = MatchRules::default();
    let bots = bots();
    let mut group = c.benchmark_group("match");
    group.sample_size(20);
    for (name, tickets) in cases() {
        group.bench_function(name, |b| {
            b.iter(|| match_tickets(black_box(&tickets), &bots, &rules, now()));
        });
    }
    group.finish();
}

fn seat(n: usize) -> RatedSeat {
    RatedSeat {
        participant: Participant::Player(PlayerId::try_from(format!("p{n}")).expect("id")),
        rating: Rating {
            mean: 20.0 + n as f64,
            deviation: 2.0 + n as f64 / 2.0,
        },
    }
}

fn places(list: &[usize]) -> Vec<Standing> {
    list.iter()
        .enumerate()
        .map(|(i, &place)| Standing {
            seat: Seat(u8::try_from(i).expect("small")),
            place,
            total: 0,
            left: false,
        })
        .collect()
}

fn rating(c: &mut Criterion) {
    let model = RatingModel::default();
    let may_i = Ruleset::default_for(Variant::MayI);
    let push = Ruleset::default_for(Variant::Push);
    let two: Vec<RatedSeat> = (0..2).map(seat).collect();
    let eight: Vec<RatedSeat> = (0..8).map(seat).collect();
    let four: Vec<RatedSeat> = (0..4).map(seat).collect();
    let hard = RatedSeat {
        participant: Participant::Bot(Level::Hard),
        rating: Rating {
            mean: 30.0,
            deviation: 1.0,
        },
    };
    let with_bots = vec![
        seat(0),
        hard.clone(),
        seat(1),
        hard.clone(),
        seat(2),
        hard.clone(),
        hard.clone(),
        hard,
    ];
    let rows = [
        ("rate: heads-up", &may_i, two, places(&[1, 2])),
        (
            "rate: 8 seats, ties",
            &may_i,
            eight,
            places(&[1, 2, 2, 4, 5, 5, 5, 8]),
        ),
        ("rate: push, two teams", &push, four, places(&[1, 3, 1, 3])),
        (
            "rate: 8 seats, 5 of one bot level",
            &may_i,
            with_bots,
            places(&[3, 1, 2, 4, 5, 6, 7, 8]),
        ),
    ];
    for (name, rules, seats, standings) in rows {
        c.bench_function(name, |b| {
            b.iter(|| model.rate(black_box(rules), black_box(&seats), black_box(&standings)));
        });
    }
}

fn main() {
    // `cargo test --benches` runs this binary without `--bench`: skip the CPU pass there.
    if std::env::args().any(|a| a == "--bench") {
        cpu_pass();
    }
    let mut c = Criterion::default().configure_from_args();
    matching(&mut c);
    rating(&mut c);
    c.final_summary();
}
