//! The bots' seeded ratings (docs/bots.md#ratings, docs/ratings.md#bot-seeds): duplicate games
//! between the bot levels, as the strength harness plays them (`engine/examples/strength.rs`:
//! every seed once per seating, the seats swapped heads-up, the teams swapped in `push`), each
//! game rated in turn by the service's own `RatingModel`, every level starting from the initial
//! rating. Prints the file `api/src/domain/bot_ratings.json` holds.
//!
//! ```text
//! nice -n 10 cargo run -p continental --example bot_ratings -- --seeds 100 > api/src/domain/bot_ratings.json
//! ```
//!
//! Options: `--seeds N` (default 100: 200 games a pairing), `--first N` (first seed, default 1).
//! The engine is built at `opt-level = 2` even in dev (the workspace's profile), so a dev build
//! serves; it runs on one thread.

use std::collections::BTreeMap;

use continental::domain::{Participant, RatedSeat, Rating, RatingModel, level_id};
use engine::bot::Level;
use engine::{Game, GameConfig, Phase, Ruleset, Seat, Seed, Status, Variant};

/// Actions after which a game is given up as stuck (never seen: a safeguard).
const MAX_ACTIONS: usize = 50_000;

/// Plays one game with `levels` at the seats, as the service's bots play (`Game::bot_move`,
/// claims asked once a turn before the player in turn draws); returns it finished (or stuck).
fn play(rules: &Ruleset, levels: &[Level], seed: u64) -> Game {
    let config = GameConfig::new(rules.clone(), levels.len());
    let (mut game, _) = Game::new(config, Seed::from_u64(seed)).expect("the tables are legal");
    let mut polled = false;
    for _ in 0..MAX_ACTIONS {
        let Some((turn, phase)) = game.turn() else { break };
        if phase == Phase::Draw && !polled && rules.has_claims() {
            polled = true;
            for k in 1..levels.len() {
                let seat = Seat(u8::try_from((turn.index() + k) % levels.len()).expect("few seats"));
                if let Some(claim) = game.bot_move(seat, levels[seat.index()]).action {
                    game = game.apply(seat, claim).expect("a bot's claim is accepted").0;
                }
            }
        }
        let action = game
            .bot_move(turn, levels[turn.index()])
            .action
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

/// The value of `--name N`, or `default`.
fn arg(name: &str, default: u64) -> u64 {
    let args: Vec<String> = std::env::args().collect();
    args.iter()
        .position(|a| a == name)
        .and_then(|i| args.get(i + 1))
        .map_or(default, |v| v.parse().expect("a whole number"))
}

fn main() {
    use Level::{Easy, Hard, Normal};
    let seeds = arg("--seeds", 100);
    let first = arg("--first", 1);
    let model = RatingModel::default();
    let mut rows = Vec::new();
    for variant in Variant::ALL {
        let rules = Ruleset::default_for(variant);
        let mut ratings: BTreeMap<&str, (Level, Rating)> = [Easy, Normal, Hard]
            .into_iter()
            .map(|l| (level_id(l), (l, Rating::initial())))
            .collect();
        let mut games = 0;
        // Seed by seed across the pairings, so that no pairing is all early or all late.
        for seed in first..first + seeds {
            for (a, b) in [(Hard, Normal), (Normal, Easy), (Hard, Easy)] {
                let seatings: [Vec<Level>; 2] = if rules.team_of(0).is_some() {
                    [vec![a, b, a, b], vec![b, a, b, a]]
                } else {
                    [vec![a, b], vec![b, a]]
                };
                for levels in seatings {
                    let game = play(&rules, &levels, seed);
                    let Some(standings) = game.standings() else {
                        eprintln!("{variant} seed {seed} {levels:?}: stuck, not rated");
                        continue;
                    };
                    let seats: Vec<RatedSeat> = levels
                        .iter()
                        .map(|&l| RatedSeat {
                            participant: Participant::Bot(l),
                            rating: ratings[level_id(l)].1,
                        })
                        .collect();
                    let rated = model
                        .rate(&rules, &seats, standings)
                        .expect("a finished game rates");
                    for (participant, after) in rated.updates() {
                        if let Participant::Bot(level) = participant {
                            ratings.insert(level_id(*level), (*level, after));
                        }
                    }
                    games += 1;
                }
            }
        }
        eprintln!("{variant}: {games} games rated");
        for level in [Easy, Normal, Hard] {
            let (_, r) = ratings[level_id(level)];
            rows.push(format!(
                "    {{\"variant\": \"{}\", \"level\": \"{}\", \"mean\": {:.4}, \"deviation\": {:.4}}}",
                variant.id(),
                level_id(level),
                r.mean,
                r.deviation
            ));
        }
    }
    println!("{{");
    println!(
        "  \"about\": \"The bots' seeded ratings: {} seeds from {first}, each seating of hard-normal, normal-easy and hard-easy per variant, rated in turn by RatingModel (api/examples/bot_ratings.rs; docs/bots.md#ratings).\",",
        seeds
    );
    println!("  \"ratings\": [\n{}\n  ]", rows.join(",\n"));
    println!("}}");
}
