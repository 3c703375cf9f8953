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
//! `ceiling` is `hard` searching the true deal, every card in view (docs/bots.md#ceiling):
//! [`Game::ceiling_move`], which only the engine's `ceiling` feature has (turned on for the
//! examples and tests by the engine's dev-dependency on itself, never for the service). It
//! plays against `normal` only, to say how much of the gap from `normal` to the ceiling `hard`
//! closes.
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

/// Who plays a seat: a level, as the service plays it, or the ceiling.
#[derive(Clone, Copy)]
enum Player {
    Level(Level),
    /// `hard`'s search on the true deal: the harness's ceiling.
    Ceiling,
}

/// One kind of match: a variant, and the players of the seats in the first seating; the
/// other seatings swap (two seats) or rotate (four) them.
struct Pairing {
    variant: Variant,
    /// The player under test and the one it plays against.
    a: Player,
    b: Player,
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

fn name(player: Player) -> &'static str {
    match player {
        Player::Level(Level::Easy) => "easy",
        Player::Level(Level::Normal) => "normal",
        Player::Level(Level::Hard) => "hard",
        Player::Ceiling => "ceiling",
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
    /// The move of `player` in `seat` (`what`: a turn's move or a claim), timed, as the
    /// service plays a bot's ([`Game::bot_move`]; the ceiling's by [`Game::ceiling_move`]).
    fn bot_move(&mut self, game: &Game, seat: Seat, player: Player, what: &str) -> Option<engine::Action> {
        let start = cpu_time();
        let settled = match player {
            Player::Level(level) => game.bot_move(seat, level),
            Player::Ceiling => game.ceiling_move(seat),
        };
        let key = match what {
            "turn" => name(player).to_owned(),
            _ => format!("{}, {what}", name(player)),
        };
        self.times
            .entry(key)
            .or_default()
            .push(cpu_time().saturating_sub(start));
        if settled.refused.is_some() {
            *self.refused.entry(name(player)).or_default() += 1;
        }
        settled.action
    }
}

/// Plays one game with `levels` at the seats; returns it finished (or stuck).
fn play(rules: &Ruleset, levels: &[Player], seed: u64, clock: &mut Clock) -> Game {
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
    use Player::Ceiling;
    let [easy, normal, hard] = [Level::Easy, Level::Normal, Level::Hard].map(Player::Level);
    let mut out = Vec::new();
    let levels = [(hard, normal), (normal, easy), (hard, easy), (Ceiling, normal)];
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
    // Share won and points per deal ahead, by label: for the gap the ceiling measures.
    let mut shares: BTreeMap<String, (f64, f64)> = BTreeMap::new();
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
                let levels: Vec<Player> = seating
                    .iter()
                    .map(|&a| if a { pairing.a } else { pairing.b })
                    .collect();
                let game = play(&rules, &levels, seed, &mut clock);
                record(&mut tally, &game, &seating);
            }
        }
        let n = f64::from(tally.games);
        let (lo, hi) = wilson(tally.wins, n);
        shares.insert(label.clone(), (tally.wins / n, tally.ahead_per_deal / n));
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
    // `normal` against itself wins half and comes out even: the gap is measured from there.
    let gaps: Vec<String> = shares
        .iter()
        .filter_map(|(label, &(hard, hard_points))| {
            let table = label.strip_suffix(" hard-normal")?;
            let &(ceiling, ceiling_points) = shares.get(&format!("{table} ceiling-normal"))?;
            Some(format!(
                "| {table} | {:.0} % | {:.0} % |",
                100.0 * (hard - 0.5) / (ceiling - 0.5),
                100.0 * hard_points / ceiling_points
            ))
        })
        .collect();
    if !gaps.is_empty() {
        println!();
        println!("| variant, table | gap closed by hard, share won | gap closed, points per deal |");
        println!("|---|---|---|");
        gaps.iter().for_each(|row| println!("{row}"));
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
                play(&rules, &[Player::Level(level); 4], seed, &mut Clock::default());
            }
            println!(
                "| {variant} | {} | {games} | {:.1} |",
                name(Player::Level(level)),
                cpu_time().saturating_sub(start).as_secs_f64() * 1e3 / games as f64
            );
        }
    }
}
