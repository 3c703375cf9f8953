//! Full games played by the bot in every seat, per variant: games per second and actions per
//! second. Run with `cargo bench -p continental-engine --bench bot_games`.

use std::time::{Duration, Instant};

use engine::{Game, GameConfig, Ruleset, Seat, Seed, Status, Variant, bot};

/// Plays one game with the bot in every seat; returns the number of actions.
fn bot_game(rules: &Ruleset, players: usize, seed: u64) -> usize {
    let (mut game, _) =
        Game::new(GameConfig::new(rules.clone(), players), Seed::from_u64(seed)).expect("setup");
    let mut actions = 0;
    while game.status() == Status::Playing {
        let (turn, _) = game.turn().expect("playing");
        // Out-of-turn claims first, as a table of bots would ask them.
        let claim = (0..players)
            .map(|s| Seat(u8::try_from(s).expect("seat")))
            .filter(|s| *s != turn)
            .find_map(|s| game.bot_choice(s, bot::Level::Normal).map(|a| (s, a)));
        let (seat, action) = match claim {
            Some(c) => c,
            None => (
                turn,
                game.bot_choice(turn, bot::Level::Normal)
                    .expect("the bot always acts in turn"),
            ),
        };
        game = game.apply(seat, action).expect("the bot's actions are legal").0;
        actions += 1;
    }
    actions
}

fn main() {
    let budget = Duration::from_secs(3);
    println!("| variant | players | games/s | actions/game | actions/s |");
    println!("|---|---|---|---|---|");
    for variant in Variant::ALL {
        let rules = Ruleset::default_for(variant);
        let players = 4;
        let start = Instant::now();
        let (mut games, mut actions) = (0u64, 0usize);
        while start.elapsed() < budget {
            actions += bot_game(&rules, players, games);
            games += 1;
        }
        let secs = start.elapsed().as_secs_f64();
        println!(
            "| {variant} | {players} | {:.0} | {:.0} | {:.0} |",
            games as f64 / secs,
            actions as f64 / games as f64,
            actions as f64 / secs
        );
    }
}
