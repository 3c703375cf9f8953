//! Between games (docs/rules.md#dealer, docs/rules.md#leaving): who deals first in a rematch,
//! and a game called off.

use engine::{Action, ActionError, Event, Game, GameConfig, Ruleset, Seat, Seed, Status, Variant, bot};

use crate::play_helpers::new_game;

/// The first dealer drawn at the start of `game`'s creation.
fn first_dealer(variant: Variant, players: usize, seed: u64) -> Seat {
    let config = GameConfig::new(Ruleset::default_for(variant), players);
    let (_, events) = Game::new(config, Seed::from_u64(seed)).expect("setup");
    events
        .iter()
        .find_map(|e| match e {
            Event::FirstDealer { dealer, .. } => Some(*dealer),
            _ => None,
        })
        .expect("a first dealer")
}

/// Plays `game` to its end with the bot in every seat.
fn played_out(mut game: Game) -> Game {
    for _ in 0..100_000 {
        if game.status() != Status::Playing {
            return game;
        }
        let (turn, _) = game.turn().expect("a seat in turn while playing");
        let action = game
            .bot_choice(turn, bot::Level::Normal)
            .expect("the bot in turn moves");
        game = game.apply(turn, action).expect("the bot's move is accepted").0;
    }
    panic!("the game did not end");
}

#[test]
fn a_rematch_is_dealt_first_left_of_the_first_dealer_where_the_deal_passes_left() {
    for (variant, players, seed) in [
        (Variant::MayI, 4, 1),
        (Variant::MayI, 3, 7),
        (Variant::Contract7, 4, 3),
        (Variant::Push, 4, 11),
    ] {
        let drawn = first_dealer(variant, players, seed);
        let game = new_game(variant, players, seed);
        let next = game.rematch_config();
        let left = Seat(u8::try_from((drawn.index() + 1) % players).expect("a seat"));
        assert_eq!(
            next.first_dealer,
            Some(left),
            "{variant:?}, seed {seed}: left of {drawn}"
        );
        assert_eq!(next.players, players, "{variant:?}: the same seats");
        assert_eq!(next.ruleset, *game.rules(), "{variant:?}: the same rules");
        assert_eq!(next.stacked_decks, None, "{variant:?}: a fresh shuffle");
    }
}

#[test]
fn a_rematch_after_the_last_seat_dealt_first_passes_back_to_the_first_seat() {
    let mut config = GameConfig::new(Ruleset::default_for(Variant::MayI), 3);
    config.first_dealer = Some(Seat(2));
    let (game, _) = Game::new(config, Seed::from_u64(5)).expect("setup");
    assert_eq!(game.rematch_config().first_dealer, Some(Seat(0)));
}

#[test]
fn a_continental_rematch_is_dealt_first_by_the_winner() {
    let game = played_out(new_game(Variant::Continental, 3, 21));
    assert_eq!(game.status(), Status::Finished);
    let winner = game
        .standings()
        .and_then(|s| s.iter().find(|s| s.place == 1))
        .expect("a winner")
        .seat;
    assert_eq!(game.rematch_config().first_dealer, Some(winner));
}

#[test]
fn a_game_called_off_is_void_with_its_seed_revealed_and_takes_no_more_moves() {
    let game = new_game(Variant::MayI, 3, 9);
    let (void, events) = game.call_off().expect("a game being played can be called off");
    assert_eq!(void.status(), Status::Void);
    assert!(void.standings().is_none(), "no standings");
    assert!(
        matches!(&events[..], [Event::GameVoid { seed }] if *seed == Seed::from_u64(9).to_hex()),
        "{events:?}"
    );
    assert_eq!(void.revealed_seed(), Some(&Seed::from_u64(9)));
    let (turn, _) = game.turn().expect("a seat in turn");
    assert!(matches!(
        void.apply(turn, Action::Leave {}),
        Err(ActionError::GameOver)
    ));
    assert!(matches!(void.call_off(), Err(ActionError::GameOver)), "only once");
}
