//! The bots' strength harness (docs/bots.md#strength): duplicate matches between bot levels.
//! Every deal seed is played again with the seats swapped (heads-up) or rotated (tables of
//! four), so the luck of the cards cancels. Prints, per pairing, the games, the share won
//! with its 95 % (Wilson) interval and the mean points per deal between the two on the same
//! cards; per level, decisions per second and the mean and p99 time of one decision (its turn
//! moves and its claims apart); per variant, the CPU a whole table of one level costs. Times
//! are the thread's CPU time.
//!
//! The bots are driven through the engine's entry points the service calls:
//! [`Game::bot_move`] for a turn's move and for a claim out of turn (which decides it by
//! `engine::bot::claim`), settled as the service settles it (a refused move falls back to
//! `normal`'s, then the simplest; the harness counts any such fallback and prints it).
//!
//! ```text
//! cargo run --release -p continental-engine --example strength -- --seeds 100
//! cargo run --release -p continental-engine --example strength -- --seeds 2   # a brief run
//! ```
//!
//! Options: `--seeds N` (default 20), `--first N` (first seed, default 1), `--only TEXT`
//! (run only the pairings whose label contains TEXT, e.g. `may_i` or `hard-normal`),
//! `--no-solo` (skip the whole-table CPU rows).

use std::collections::BTreeMap;
use std::time::Duration;

use engine::bot::Level;
use engine::{Game, GameConfig, Phase, Ruleset, Seat, Seed, Status, Variant};

/// Actions after which a game is given up as stuck (never seen: a safeguard).
const MAX_ACTIONS: usize = 50_000;

/// One kind of match: a variant, and the levels of the seats in the first seating; the other
/// seatings swap (two seats) or rotate (four) them.
struct Pairing {
    variant: Variant,
    /// The level under test and the one it plays against.
    a: Level,
    b: Level,
    /// Seats of the first seating: `true` for `a`.
    seats: Vec<bool>,
    /// How the seatings are made.
    seatings: Seatings,
}

#[derive(Clone, Copy)]
enum Seatings {
    /// Heads-up: `a b`, then `b a`.
    Swap,
    /// Four seats: each rotation of the first seating.
    Rotate,
    /// Push's teams: `a b a b`, then `b a b a`.
    Teams,
}

impl Pairing {
    fn label(&self) -> String {
        let table = match self.seatings {
            Seatings::Swap => "heads-up".to_owned(),
            Seatings::Rotate => format!("1 v {}", self.seats.len() - 1),
            Seatings::Teams => "2 v 2".to_owned(),
        };
        format!("{} {} {}-{}", self.variant, table, name(self.a), name(self.b))
    }

    fn seatings(&self) -> Vec<Vec<bool>> {
        match self.seatings {
            Seatings::Swap | Seatings::Teams => {
                vec![self.seats.clone(), self.seats.iter().map(|a| !a).collect()]
            }
            Seatings::Rotate => (0..self.seats.len())
                .map(|r| {
                    let mut s = self.seats.clone();
                    s.rotate_right(r);
                    s
                })
                .collect(),
        }
    }
}

fn name(level: Level) -> &'static str {
    match level {
        Level::Easy => "easy",
        Level::Normal => "normal",
        Level::Hard => "hard",
    }
}

/// Decision times per level (turn moves, and claims apart), and the moves the game refused.
#[derive(Default)]
struct Clock {
    times: BTreeMap<String, Vec<Duration>>,
    refused: BTreeMap<&'static str, u32>,
}

/// The CPU time this thread has used: what a decision costs on one core, however busy the
/// machine's other cores and processes are.
fn cpu_time() -> Duration {
    use nix::time::{ClockId, clock_gettime};
    clock_gettime(ClockId::CLOCK_THREAD_CPUTIME_ID).map_or(Duration::ZERO, Duration::from)
}

impl Clock {
    /// The move of a bot of `level` in `seat` (`what`: a turn's move or a claim), timed, as
    /// the service plays it ([`Game::bot_move`]).
    fn bot_move(&mut self, game: &Game, seat: Seat, level: Level, what: &str) -> Option<engine::Action> {
        let start = cpu_time();
        let settled = game.bot_move(seat, level);
        let key = match what {
            "turn" => name(level).to_owned(),
            _ => format!("{}, {what}", name(level)),
        };
        self.times
            .entry(key)
            .or_default()
            .push(cpu_time().saturating_sub(start));
        if settled.refused.is_some() {
            *self.refused.entry(name(level)).or_default() += 1;
        }
        settled.action
    }
}

/// Plays one game with `levels` at the seats; returns it finished (or stuck).
fn play(rules: &Ruleset, levels: &[Level], seed: u64, clock: &mut Clock) -> Game {
    let config = GameConfig::new(rules.clone(), levels.len());
    let (mut game, _) = Game::new(config, Seed::from_u64(seed)).expect("the harness's tables are legal");
    let mut polled = false;
    for _ in 0..MAX_ACTIONS {
        let Some((turn, phase)) = game.turn() else { break };
        // Claims are asked once a turn, before the player in turn draws.
        if phase == Phase::Draw && !polled && rules.has_claims() {
            polled = true;
            for k in 1..levels.len() {
                let seat = Seat(u8::try_from((turn.index() + k) % levels.len()).expect("few seats"));
                let level = levels[seat.index()];
                if let Some(claim) = clock.bot_move(&game, seat, level, "claims") {
                    game = game.apply(seat, claim).expect("a bot's claim is accepted").0;
                }
            }
        }
        let level = levels[turn.index()];
        let action = clock
            .bot_move(&game, turn, level, "turn")
            .expect("a bot in turn always acts");
        let next = game.apply(turn, action).expect("a bot's actions are accepted").0;
        if next.turn() != Some((turn, Phase::Draw)) {
            polled = false;
        }
        game = next;
        if game.status() != Status::Playing {
            break;
        }
    }
    game
}

/// Per pairing: games, wins of `a` (ties count half), points per deal `a` came out ahead.
#[derive(Default)]
struct Tally {
    games: u32,
    wins: f64,
    ahead_per_deal: f64,
    stuck: u32,
}

fn record(tally: &mut Tally, game: &Game, seats: &[bool]) {
    tally.games += 1;
    let Some(standings) = game.standings() else {
        tally.stuck += 1;
        return;
    };
    let place = |i: usize| {
        standings
            .iter()
            .find(|s| s.seat.index() == i)
            .map_or(usize::MAX, |s| s.place)
    };
    let a_best = (0..seats.len())
        .filter(|&i| seats[i])
        .map(place)
        .min()
        .unwrap_or(usize::MAX);
    let b_best = (0..seats.len())
        .filter(|&i| !seats[i])
        .map(place)
        .min()
        .unwrap_or(usize::MAX);
    let firsts = standings.iter().filter(|s| s.place == 1).count();
    let a_firsts = standings
        .iter()
        .filter(|s| s.place == 1 && seats[s.seat.index()])
        .count();
    tally.wins += if a_best < b_best && a_firsts == firsts {
        1.0
    } else if a_best == 1 {
        // Shared first place: the share of it held by `a`'s seats.
        a_firsts as f64 / firsts as f64
    } else {
        0.0
    };
    let mean = |want: bool| {
        let totals: Vec<f64> = (0..seats.len())
            .filter(|&i| seats[i] == want)
            .map(|i| f64::from(game.totals()[i]))
            .collect();
        totals.iter().sum::<f64>() / totals.len() as f64
    };
    let sign = if game.rules().highest_total_wins() {
        1.0
    } else {
        -1.0
    };
    let deals = game.deal_scores().len().max(1) as f64;
    tally.ahead_per_deal += sign * (mean(true) - mean(false)) / deals;
}

/// Wilson's 95 % interval of a share.
fn wilson(wins: f64, n: f64) -> (f64, f64) {
    if n == 0.0 {
        return (0.0, 1.0);
    }
    let z = 1.96f64;
    let p = wins / n;
    let centre = (p + z * z / (2.0 * n)) / (1.0 + z * z / n);
    let half = z * (p * (1.0 - p) / n + z * z / (4.0 * n * n)).sqrt() / (1.0 + z * z / n);
    (centre - half, centre + half)
}

fn percentile(sorted: &[Duration], q: f64) -> Duration {
    if sorted.is_empty() {
        return Duration::ZERO;
    }
    let k = ((sorted.len() as f64 * q).ceil() as usize).clamp(1, sorted.len()) - 1;
    sorted[k]
}

fn pairings() -> Vec<Pairing> {
    use Level::{Easy, Hard, Normal};
    let mut out = Vec::new();
    let levels = [(Hard, Normal), (Normal, Easy), (Hard, Easy)];
    for variant in [Variant::MayI, Variant::Contract7, Variant::Continental] {
        for (a, b) in levels {
            out.push(Pairing {
                variant,
                a,
                b,
                seats: vec![true, false],
                seatings: Seatings::Swap,
            });
        }
    }
    for (a, b) in levels {
        out.push(Pairing {
            variant: Variant::MayI,
            a,
            b,
            seats: vec![true, false, false, false],
            seatings: Seatings::Rotate,
        });
    }
    for (a, b) in levels {
        out.push(Pairing {
            variant: Variant::Push,
            a,
            b,
            seats: vec![true, false, true, false],
            seatings: Seatings::Teams,
        });
    }
    out
}

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let value = |flag: &str| {
        args.iter()
            .position(|a| a == flag)
            .and_then(|i| args.get(i + 1))
            .cloned()
    };
    let seeds: u64 = value("--seeds").map_or(20, |s| s.parse().expect("--seeds takes a number"));
    let first: u64 = value("--first").map_or(1, |s| s.parse().expect("--first takes a number"));
    let only = value("--only");
    let solo = !args.iter().any(|a| a == "--no-solo");
    let mut clock = Clock::default();
    println!(
        "seeds {first}..{} , each seating of each seed one game",
        first + seeds
    );
    println!();
    println!("| variant, table, a-b | games | a won | 95 % interval | a's points per deal ahead |");
    println!("|---|---|---|---|---|");
    for pairing in pairings() {
        let label = pairing.label();
        if only.as_ref().is_some_and(|o| !label.contains(o.as_str())) {
            continue;
        }
        let rules = Ruleset::default_for(pairing.variant);
        let mut tally = Tally::default();
        for seed in first..first + seeds {
            for seating in pairing.seatings() {
                let levels: Vec<Level> = seating
                    .iter()
                    .map(|&a| if a { pairing.a } else { pairing.b })
                    .collect();
                let game = play(&rules, &levels, seed, &mut clock);
                record(&mut tally, &game, &seating);
            }
        }
        let n = f64::from(tally.games);
        let (lo, hi) = wilson(tally.wins, n);
        let stuck = if tally.stuck > 0 {
            format!(" ({} stuck)", tally.stuck)
        } else {
            String::new()
        };
        println!(
            "| {label} | {}{stuck} | {:.1} % | {:.1}-{:.1} % | {:+.2} |",
            tally.games,
            100.0 * tally.wins / n,
            100.0 * lo,
            100.0 * hi,
            tally.ahead_per_deal / n
        );
    }
    println!();
    println!("| level | decisions | decisions/s | mean ms | p99 ms | max ms |");
    println!("|---|---|---|---|---|---|");
    for (level, times) in &mut clock.times {
        times.sort();
        let total: Duration = times.iter().sum();
        println!(
            "| {level} | {} | {:.0} | {:.3} | {:.3} | {:.3} |",
            times.len(),
            times.len() as f64 / total.as_secs_f64().max(1e-9),
            total.as_secs_f64() * 1e3 / times.len().max(1) as f64,
            percentile(times, 0.99).as_secs_f64() * 1e3,
            times.last().copied().unwrap_or_default().as_secs_f64() * 1e3,
        );
    }
    for (level, refused) in &clock.refused {
        println!("\n{level}: {refused} moves refused by the game, played as the fallback chain chose");
    }
    if !solo {
        return;
    }
    println!();
    println!("| variant | table of four, all | games | CPU per game, ms (mean) |");
    println!("|---|---|---|---|");
    for variant in Variant::ALL {
        for level in [Level::Easy, Level::Normal, Level::Hard] {
            let rules = Ruleset::default_for(variant);
            let games = seeds.clamp(1, 10);
            let start = cpu_time();
            for seed in first..first + games {
                play(&rules, &[level; 4], seed, &mut Clock::default());
            }
            println!(
                "| {variant} | {} | {games} | {:.1} |",
                name(level),
                cpu_time().saturating_sub(start).as_secs_f64() * 1e3 / games as f64
            );
        }
    }
}
