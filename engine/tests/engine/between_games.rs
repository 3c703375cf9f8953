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

#[test]
fn a_game_called_off_stands_on_the_deals_played_to_their_end() {
    // Arrange: the bots play the first deal of a `may_i` game to its end, then a few moves of
    // the second.
    let mut game = new_game(Variant::MayI, 4, 5);
    let mut moves_after_the_first_deal = 0;
    while moves_after_the_first_deal < 5 {
        if game.deal_scores().is_empty() {
            assert_eq!(
                game.called_off_standings(),
                None,
                "no deal has ended: nothing to stand on"
            );
        } else {
            moves_after_the_first_deal += 1;
        }
        let (turn, _) = game.turn().expect("a seat in turn while playing");
        let action = game
            .bot_choice(turn, bot::Level::Normal)
            .expect("the bot in turn moves");
        game = game.apply(turn, action).expect("the bot's move is accepted").0;
    }
    assert_eq!(game.deal_scores().len(), 1, "the second deal is in progress");

    // Act: the standings if the game were called off now.
    let standings = game.called_off_standings().expect("a deal has ended");

    // Assert: the first deal's totals alone (the deal in progress counts for nothing), the
    // lowest first as at `may_i`'s end, equal totals sharing a place.
    let totals = game.deal_scores()[0].clone();
    assert_eq!(game.totals(), &totals[..]);
    assert_eq!(standings.len(), 4);
    for s in &standings {
        assert_eq!(s.total, totals[s.seat.index()], "{standings:?}");
        assert!(!s.left);
        let ahead = totals.iter().filter(|&&t| t < s.total).count();
        assert_eq!(s.place, ahead + 1, "{standings:?}");
    }

    // A leaver is placed after the others, with the sum of the two highest totals of those
    // still in (docs/rules.md#leaving).
    let (left, _) = game.apply(Seat(0), Action::Leave {}).expect("a player may leave");
    let standings = left.called_off_standings().expect("three players still in");
    let mut still_in: Vec<i32> = totals[1..].to_vec();
    still_in.sort_unstable();
    let leaver = standings
        .iter()
        .find(|s| s.seat == Seat(0))
        .expect("the leaver stands");
    assert!(leaver.left);
    assert_eq!(leaver.place, 4, "{standings:?}");
    assert_eq!(leaver.total, still_in[1] + still_in[2]);

    // Once called off, the game is over: it has no standings to call off.
    let (void, _) = left.call_off().expect("called off");
    assert_eq!(void.called_off_standings(), None);
}
