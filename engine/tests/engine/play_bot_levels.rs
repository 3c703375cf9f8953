//! The bot levels (docs/bots.md): what a seat may know, the bots' own random stream, and that
//! `easy` and `hard` decide from their seat's knowledge only, reproducibly, legally.

use engine::bot::{self, Instead, Level};
use engine::{Action, DrawSource, Game, GameConfig, Phase, Ruleset, Seat, Seed, Status, Variant};
use rand_chacha::ChaCha20Rng;
use rand_chacha::rand_core::{Rng, SeedableRng};

use crate::helpers::card;
use crate::play_helpers::{play_checked, stacked_deck, stacked_game, with_stock};
use crate::rng::TestRng;

/// Plays `actions` bot moves of `normal` in every seat (claims asked before each draw).
fn advance(mut game: Game, actions: usize) -> Game {
    for _ in 0..actions {
        let Some((turn, _)) = game.turn() else { break };
        let n = game.players();
        let claim = (1..n)
            .map(|k| Seat(((turn.index() + k) % n) as u8))
            .find_map(|s| game.bot_choice(s, Level::Normal).map(|a| (s, a)));
        let (seat, action) =
            claim.unwrap_or_else(|| (turn, game.bot_choice(turn, Level::Normal).expect("acts")));
        game = play_checked(&game, seat, action, "advance").0;
        if game.status() != Status::Playing {
            break;
        }
    }
    game
}

/// `game` with every card `seat` cannot see dealt again at random among the places it cannot
/// see (other hands, but for the cards known to be in them, and the stock, but for its known
/// cards), and a seed drawn
/// again, through the saved form: a game that agrees with `game` on everything `seat` sees,
/// and on nothing it does not (its later deals, its bots' stream).
fn reshuffle_unseen(game: &Game, seat: Seat, rng: &mut TestRng) -> Game {
    let mut json = serde_json::to_value(game).expect("serialises");
    let seed = Seed::from_u64(rng.range(1_000, 1_000_000) as u64);
    json["seed"] = serde_json::to_value(seed).expect("a seed serialises");
    let mut places: Vec<(Option<usize>, usize)> = Vec::new();
    for (i, hand) in json["hands"].as_array().expect("hands").iter().enumerate() {
        if i == seat.index() {
            continue;
        }
        let known = game.knowledge(seat).known(Seat(i as u8)).to_vec();
        for (k, c) in hand.as_array().expect("a hand").iter().enumerate() {
            let c: engine::Card = serde_json::from_value(c.clone()).expect("a card");
            if !known.contains(&c) {
                places.push((Some(i), k));
            }
        }
    }
    // The stock's known cards (the turned-over pile, bottom first) stay where they are.
    let known_stock = game.knowledge(seat).stock_known().len();
    for k in known_stock..json["stock"].as_array().expect("stock").len() {
        places.push((None, k));
    }
    let at = |json: &serde_json::Value, p: (Option<usize>, usize)| match p {
        (Some(i), k) => json["hands"][i][k].clone(),
        (None, k) => json["stock"][k].clone(),
    };
    let mut cards: Vec<serde_json::Value> = places.iter().map(|p| at(&json, *p)).collect();
    rng.shuffle(&mut cards);
    for (p, c) in places.iter().zip(cards) {
        match *p {
            (Some(i), k) => json["hands"][i][k] = c,
            (None, k) => json["stock"][k] = c,
        }
    }
    serde_json::from_value(json).expect("a game with its hidden cards moved loads")
}

#[test]
fn a_seat_knows_the_cards_taken_in_view_of_all_until_they_are_thrown() {
    let rules = Ruleset::default_for(Variant::MayI);
    let deck = stacked_deck(
        &rules,
        2,
        0,
        1,
        &["", "3C 3D 3S 4C 4D 4S 3H 9C 9D JH JS KC"],
        "QS",
        "2H",
    );
    let (game, _) = stacked_game(rules, 2, 0, vec![deck]);
    let (game, _) = play_checked(
        &game,
        Seat(1),
        Action::Draw {
            source: DrawSource::Discard,
        },
        "take",
    );
    let seen = game.knowledge(Seat(0));
    assert_eq!(
        seen.known(Seat(1)),
        &[card("QS")],
        "the upcard taken is known to be in seat 1's hand"
    );
    assert_eq!(seen.hand_size(Seat(1)), 13);
    assert!(seen.known(Seat(0)).is_empty());
    let (game, _) = play_checked(&game, Seat(1), Action::Discard { card: card("QS") }, "throw");
    let seen = game.knowledge(Seat(0));
    assert!(seen.known(Seat(1)).is_empty(), "thrown again: no longer held");
    assert_eq!(seen.discarded(Seat(1)), &[card("QS")]);
    assert!(
        !seen.unseen().contains(&card("QS"))
            || seen.unseen().iter().filter(|c| **c == card("QS")).count() == 1,
        "the thrown QS lies face up: at most the other pack's QS is unseen"
    );
}

#[test]
fn the_bots_stream_is_not_the_deals() {
    for seed in [0u64, 1, 42, u64::MAX] {
        let config = GameConfig::new(Ruleset::default_for(Variant::MayI), 4);
        let (game, _) = Game::new(config, Seed::from_u64(seed)).expect("setup");
        // Every stream the deals and the draw for dealer shuffle with (docs/rules.md#randomness).
        let deal_streams: Vec<Vec<u64>> = (0..=u64::from(game.rules().deals()))
            .map(|stream| {
                let mut rng = ChaCha20Rng::from_seed(Seed::from_u64(seed).0);
                rng.set_stream(stream);
                (0..4).map(|_| rng.next_u64()).collect()
            })
            .collect();
        for s in 0..4 {
            let mut bot = game.bot_stream(Seat(s));
            let words: Vec<u64> = (0..4).map(|_| bot.next_u64()).collect();
            assert!(
                !deal_streams.contains(&words),
                "seed {seed} seat {s}: the bots' stream is a deal's"
            );
        }
        let mut a = game.bot_stream(Seat(0));
        let mut b = game.bot_stream(Seat(1));
        assert_ne!(
            a.next_u64(),
            b.next_u64(),
            "each seat's decision has a stream of its own"
        );
    }
}

#[test]
fn the_same_game_gives_the_same_decision_and_a_replay_the_same_bots() {
    // A short game of hard against easy: playing it twice from its seed plays it the same.
    let config = GameConfig::new(Ruleset::default_for(Variant::Continental), 2);
    let play = || {
        let (mut game, _) = Game::new(config.clone(), Seed::from_u64(5)).expect("setup");
        let levels = [Level::Hard, Level::Easy];
        let mut moves = Vec::new();
        while game.status() == Status::Playing && moves.len() < 400 {
            let (turn, _) = game.turn().expect("playing");
            let action = game
                .bot_choice(turn, levels[turn.index()])
                .expect("a bot in turn acts");
            assert_eq!(
                game.bot_choice(turn, levels[turn.index()]).as_ref(),
                Some(&action),
                "asked twice"
            );
            game = play_checked(&game, turn, action.clone(), "hard v easy").0;
            moves.push(action);
        }
        (game, moves)
    };
    let (first, moves) = play();
    assert_eq!(
        first.status(),
        Status::Finished,
        "a table of bots plays to its end"
    );
    assert_eq!(play().1, moves, "the replay makes the same decisions");
}

#[test]
fn a_bot_decides_from_what_its_seat_sees_only() {
    let mut rng = TestRng::new(32);
    let cases = [
        (Variant::MayI, 2),
        (Variant::MayI, 4),
        (Variant::Contract7, 3),
        (Variant::Continental, 2),
        (Variant::Push, 4),
    ];
    let mut decisions = 0;
    for (case, (variant, players)) in cases.into_iter().enumerate() {
        let config = GameConfig::new(Ruleset::default_for(variant), players);
        let (start, _) = Game::new(config, Seed::from_u64(case as u64)).expect("setup");
        let game = advance(start, rng.range(4, 40));
        if game.status() != Status::Playing {
            continue;
        }
        decisions += same_knowledge_same_decisions(&game, &mut rng);
    }
    assert!(
        decisions >= 10,
        "the cases made decisions to compare ({decisions})"
    );
}

/// Checks that `game` and a game that differs from it only in what a seat cannot see give
/// that seat the same knowledge and every level the same decision, for the seat in turn and
/// the next one; returns the decisions compared.
fn same_knowledge_same_decisions(game: &Game, rng: &mut TestRng) -> usize {
    let players = game.players();
    let variant = game.variant();
    let mut decisions = 0;
    {
        let (turn, _) = game.turn().expect("playing");
        let out_of_turn = Seat(((turn.index() + 1) % players) as u8);
        for seat in [turn, out_of_turn] {
            let other = reshuffle_unseen(game, seat, rng);
            let context = format!("{variant} {players}p seat {seat}");
            let hidden_moved = (0..players).any(|i| other.hand(Seat(i as u8)) != game.hand(Seat(i as u8)));
            assert!(
                hidden_moved,
                "{context}: the two games differ in what the seat cannot see"
            );
            assert_eq!(other.hand(seat), game.hand(seat), "{context}");
            assert_ne!(
                other.commitment(),
                game.commitment(),
                "{context}: the seed is drawn again too"
            );
            assert_eq!(
                other.knowledge(seat),
                game.knowledge(seat),
                "{context}: the seat's knowledge"
            );
            // The bots' stream is keyed by the seed (docs/bots.md#randomness), which the seat
            // may not know: both games' bots are handed the first game's stream, so that what
            // differs between the two is only what the seat cannot see.
            let stream = game.bot_stream(seat);
            for level in [Level::Easy, Level::Normal, Level::Hard] {
                let a = level.choose(&game.knowledge(seat), &mut stream.clone());
                let b = level.choose(&other.knowledge(seat), &mut stream.clone());
                assert_eq!(
                    a,
                    game.bot_choice(seat, level),
                    "{context} {level:?}: the game's bot decides from this knowledge and stream"
                );
                assert_eq!(
                    a, b,
                    "{context} {level:?}: a hidden card or the seed changed the decision"
                );
                if let Some(action) = a {
                    decisions += 1;
                    assert!(game.apply(seat, action).is_ok(), "{context} {level:?}: accepted");
                }
            }
        }
    }
    decisions
}

/// A game of `variant` for `players` played by `normal` until its stock has been turned over
/// (the stock cut short first, so that it runs out soon), in the draw phase.
fn turned_over(variant: Variant, players: usize, seed: u64) -> Game {
    let config = GameConfig::new(Ruleset::default_for(variant), players);
    let (start, _) = Game::new(config, Seed::from_u64(seed)).expect("setup");
    let mut game = with_stock(&start, 3);
    for _ in 0..200 {
        game = advance(game, 1);
        if !game.knowledge(Seat(0)).stock_known().is_empty()
            && game.turn().is_some_and(|(_, phase)| phase == Phase::Draw)
        {
            return game;
        }
        assert_eq!(game.status(), Status::Playing, "{variant}: the deal goes on");
    }
    panic!("{variant}: the stock was not turned over");
}

#[test]
fn a_bot_decides_from_what_its_seat_sees_only_once_the_stock_is_known_or_a_wild_buried() {
    let mut rng = TestRng::new(33);
    let mut decisions = 0;
    for (variant, players, seed) in [
        (Variant::MayI, 3, 1),
        (Variant::Contract7, 2, 2),
        (Variant::Continental, 2, 3),
    ] {
        let game = turned_over(variant, players, seed);
        decisions += same_knowledge_same_decisions(&game, &mut rng);
    }
    let game = advance(buried_two(), 6);
    assert!(
        !game.knowledge(Seat(0)).buried_wilds().0.is_empty(),
        "push: a wild is buried"
    );
    decisions += same_knowledge_same_decisions(&game, &mut rng);
    assert!(decisions >= 6, "decisions compared ({decisions})");
}

/// A game of `push` for four whose upcard was a two, buried in the stock; seat 0 holds the
/// other two of its kind, so that the buried one is the only one it cannot see.
fn buried_two() -> Game {
    let rules = Ruleset::default_for(Variant::Push);
    let deck = stacked_deck(&rules, 4, 3, 1, &["2H"], "2H", "");
    let (game, events) = stacked_game(rules, 4, 3, vec![deck]);
    assert!(
        events
            .iter()
            .any(|e| matches!(e, engine::Event::UpcardBuried { card: c } if *c == card("2H"))),
        "the 2H upcard is buried"
    );
    game
}

#[test]
fn after_a_turn_over_the_stock_is_known_in_order_and_loses_the_cards_drawn() {
    let rules = Ruleset::default_for(Variant::MayI);
    let deck = stacked_deck(&rules, 2, 0, 1, &[], "KS", "");
    let (game, _) = stacked_game(rules, 2, 0, vec![deck]);
    let mut game = with_stock(&game, 4);
    let seen = game.knowledge(Seat(0));
    assert!(
        seen.stock_known().is_empty() && seen.next_stock_card().is_none(),
        "a stock as dealt is unseen"
    );
    // Draws and throws the card drawn until the stock is empty; the next draw turns the pile.
    while game.stock_count() > 0 {
        let (seat, _) = game.turn().expect("playing");
        let (drew, _) = play_checked(
            &game,
            seat,
            Action::Draw {
                source: DrawSource::Stock,
            },
            "draw",
        );
        let card = *drew.hand(seat).last().expect("drawn");
        game = play_checked(&drew, seat, Action::Discard { card }, "throw").0;
    }
    let pile = game.discard_pile().to_vec();
    assert_eq!(pile.len(), 5, "the upcard and four throws");
    let (seat, _) = game.turn().expect("playing");
    let other = Seat(1 - seat.0);
    let (game, _) = play_checked(
        &game,
        seat,
        Action::Draw {
            source: DrawSource::Stock,
        },
        "turn over",
    );
    // The pile turns over unshuffled: its bottom card is drawn first, its top lies at the bottom.
    assert_eq!(game.hand(seat).last(), pile.first());
    let seen = game.knowledge(other);
    let expected: Vec<_> = pile[1..].iter().rev().copied().collect();
    assert_eq!(seen.stock_known(), expected.as_slice(), "the stock, bottom first");
    assert_eq!(seen.next_stock_card(), Some(pile[1]));
    assert!(
        seen.known(seat).contains(&pile[0]),
        "the card drawn from the known stock is known to be in the drawer's hand"
    );
    let card = *game.hand(seat).last().expect("drawn");
    let game = play_checked(&game, seat, Action::Discard { card }, "throw").0;
    let (game, _) = play_checked(
        &game,
        other,
        Action::Draw {
            source: DrawSource::Stock,
        },
        "draw",
    );
    assert_eq!(game.hand(other).last(), Some(&pile[1]), "the card known next");
    let seen = game.knowledge(seat);
    assert_eq!(
        seen.stock_known(),
        &expected[..3],
        "one card fewer, the rest in order"
    );
    assert_eq!(seen.next_stock_card(), Some(pile[2]));
}

#[test]
fn normal_draws_a_known_stock_card_that_completes_its_contract_over_a_discard_that_only_fits() {
    // may_i for three, seat 1 deals: seat 2 throws the 4S that completes seat 1's two sets,
    // seat 0 turns the pile over (drawing the upcard) and throws a 7C, which fits seat 1's
    // 7H. Seat 1 sees both: the 7C on the pile and the 4S next in the stock.
    let rules = Ruleset::default_for(Variant::MayI);
    let hands = ["7C", "3C 3D 3S 4C 4D 7H 9H KC QD JS 10C 6H", "4S"];
    let deck = stacked_deck(&rules, 3, 1, 1, &hands, "8D", "5H");
    let (game, _) = stacked_game(rules, 3, 1, vec![deck]);
    let game = with_stock(&game, 1);
    let stock = Action::Draw {
        source: DrawSource::Stock,
    };
    let (game, _) = play_checked(&game, Seat(2), stock.clone(), "seat 2 draws the last card");
    let (game, _) = play_checked(&game, Seat(2), Action::Discard { card: card("4S") }, "4S");
    let (game, _) = play_checked(&game, Seat(0), stock.clone(), "seat 0 turns the pile over");
    let (game, _) = play_checked(&game, Seat(0), Action::Discard { card: card("7C") }, "7C");
    let seen = game.knowledge(Seat(1));
    assert_eq!(seen.next_stock_card(), Some(card("4S")));
    assert_eq!(seen.discard_pile().last(), Some(&card("7C")));
    assert_eq!(
        game.bot_choice(Seat(1), Level::Normal),
        Some(stock),
        "the known 4S completes the contract; the 7C only fits"
    );
}

#[test]
fn hard_and_easy_make_only_legal_moves_out_of_turn_only_claims() {
    for (variant, players, seed) in [
        (Variant::MayI, 3, 7u64),
        (Variant::Contract7, 2, 8),
        (Variant::Push, 4, 9),
    ] {
        let config = GameConfig::new(Ruleset::default_for(variant), players);
        let (mut game, _) = Game::new(config, Seed::from_u64(seed)).expect("setup");
        for step in 0..60 {
            let (turn, phase) = game.turn().expect("playing");
            for level in [Level::Easy, Level::Hard] {
                for s in 0..players {
                    let seat = Seat(s as u8);
                    if seat == turn {
                        continue;
                    }
                    if let Some(a) = game.bot_choice(seat, level) {
                        assert_eq!(
                            a,
                            Action::Claim {},
                            "{variant} step {step}: out of turn, only a claim"
                        );
                        assert!(
                            game.apply(seat, a).is_ok(),
                            "{variant} step {step}: the claim is accepted"
                        );
                    }
                }
            }
            let level = if step % 2 == 0 { Level::Hard } else { Level::Easy };
            let action = game.bot_choice(turn, level).expect("a bot in turn acts");
            let context = format!("{variant} step {step} {phase:?} {level:?}");
            game = play_checked(&game, turn, action, &context).0;
            if game.status() != Status::Playing || game.deal() > 1 {
                break;
            }
        }
    }
}

/// A move the game refuses from `seat` now: a discard before the draw, a draw after it.
fn refused_move(game: &Game, seat: Seat, phase: Phase) -> Action {
    match phase {
        Phase::Draw => Action::Discard {
            card: game.hand(seat)[0],
        },
        Phase::Play => Action::Draw {
            source: DrawSource::Stock,
        },
    }
}

#[test]
fn a_refused_bot_move_falls_back_to_normals_and_the_game_goes_on() {
    for variant in Variant::ALL {
        // Seat 0's level is broken: every move it proposes is refused, or it finds none.
        let players = if variant == Variant::Push { 4 } else { 2 };
        let config = GameConfig::new(Ruleset::default_for(variant), players);
        let (mut game, _) = Game::new(config, Seed::from_u64(11)).expect("setup");
        let mut refused = 0;
        for step in 0..5_000 {
            if game.status() != Status::Playing {
                break;
            }
            let (turn, phase) = game.turn().expect("playing");
            let context = format!("{variant} step {step} {phase:?}");
            let other = Seat(((turn.index() + 1) % players) as u8);
            // Out of turn, a refused claim is not asked; nothing stands in for it.
            let claim = game.settle_bot_move(other, Some(refused_move(&game, other, Phase::Draw)));
            assert_eq!(claim.action, None, "{context}: out of turn");
            assert_eq!(
                claim.refused.map(|r| r.instead),
                Some(Instead::Nothing),
                "{context}"
            );
            let proposed = match turn {
                Seat(0) if step % 5 == 0 => None,
                Seat(0) => Some(refused_move(&game, turn, phase)),
                _ => game.bot_choice(turn, Level::Normal),
            };
            let settled = game.settle_bot_move(turn, proposed.clone());
            if turn == Seat(0) {
                let why = settled
                    .refused
                    .as_ref()
                    .expect("the broken level's move is refused");
                assert_eq!(why.proposed, proposed, "{context}");
                assert_eq!(
                    why.error.is_some(),
                    proposed.is_some(),
                    "{context}: the game's reason"
                );
                assert_eq!(why.instead, Instead::Normal, "{context}");
                assert_eq!(
                    settled.action,
                    game.bot_choice(turn, Level::Normal),
                    "{context}: normal's move stands in"
                );
                refused += 1;
            } else {
                assert_eq!(settled.refused, None, "{context}: normal's own move is taken");
            }
            let action = settled.action.expect("a move in turn, always");
            game = play_checked(&game, turn, action, &context).0;
        }
        assert_eq!(
            game.status(),
            Status::Finished,
            "{variant}: the game played to its end"
        );
        assert!(game.is_active(Seat(0)), "{variant}: the broken bot never left");
        assert!(refused > 10, "{variant}: refusals met ({refused})");
    }
}

#[test]
fn the_claim_path_is_one_whatever_the_caller() {
    // The service and the strength harness both play a bot out of turn through
    // `Game::bot_move`; its claim is `bot::claim`'s, at every level.
    let config = GameConfig::new(Ruleset::default_for(Variant::MayI), 4);
    let (mut game, _) = Game::new(config, Seed::from_u64(21)).expect("setup");
    let mut claims = 0;
    for step in 0..400 {
        if game.status() != Status::Playing {
            break;
        }
        let (turn, _) = game.turn().expect("playing");
        for s in 0..4u8 {
            let seat = Seat(s);
            for level in [Level::Easy, Level::Normal, Level::Hard] {
                let claim = bot::claim(level, &game.knowledge(seat), &mut game.bot_stream(seat));
                if seat == turn {
                    assert_eq!(claim, None, "step {step}: no claim in one's own turn");
                    continue;
                }
                assert_eq!(
                    game.bot_move(seat, level).action,
                    claim,
                    "step {step} seat {seat} {level:?}"
                );
                assert_eq!(
                    game.bot_choice(seat, level),
                    claim,
                    "step {step} seat {seat} {level:?}"
                );
                claims += usize::from(claim.is_some());
            }
        }
        game = advance(game, 1);
    }
    assert!(claims > 5, "claims were asked ({claims})");
}

/// FNV-1a of `text`: a digest that stays the same on every build and toolchain.
fn fnv(text: &str) -> u64 {
    text.bytes().fold(0xcbf2_9ce4_8422_2325, |h, b| {
        (h ^ u64::from(b)).wrapping_mul(0x0100_0000_01b3)
    })
}

#[test]
fn hards_decisions_on_fixed_deals_are_those_pinned() {
    // `hard` in seat 0 against `normal`, each variant on one seed: its first decisions, as
    // JSON, digested. The search is counted, never timed: any change to what it plays (its
    // playouts, `normal`'s rules, the sampling, the bots' stream) changes a digest, and a
    // change that only makes it faster must not. A deliberate change of play pins anew.
    let cases = [
        (Variant::MayI, 2, 7_136_420_176_137_832_686u64),
        (Variant::Contract7, 2, 9_452_189_842_177_706_900),
        (Variant::Continental, 2, 1_047_453_248_753_470_604),
        (Variant::Push, 4, 11_747_457_867_624_628_994),
    ];
    let mut got = Vec::new();
    for (variant, players, _) in cases {
        let config = GameConfig::new(Ruleset::default_for(variant), players);
        let (mut game, _) = Game::new(config, Seed::from_u64(3)).expect("setup");
        let level = |s: Seat| if s == Seat(0) { Level::Hard } else { Level::Normal };
        let mut decisions = Vec::new();
        while game.status() == Status::Playing && decisions.len() < 24 {
            let (turn, _) = game.turn().expect("playing");
            let n = game.players();
            let claim = (1..n)
                .map(|k| Seat(((turn.index() + k) % n) as u8))
                .find_map(|s| game.bot_choice(s, level(s)).map(|a| (s, a)));
            let (seat, action) = claim.unwrap_or_else(|| {
                (
                    turn,
                    game.bot_choice(turn, level(turn)).expect("a bot in turn acts"),
                )
            });
            if seat == Seat(0) {
                decisions.push(serde_json::to_string(&action).expect("an action serialises"));
            }
            game = play_checked(&game, seat, action, "hard v normal").0;
        }
        got.push((variant, fnv(&decisions.join("\n")), decisions));
    }
    let digests: Vec<u64> = got.iter().map(|(_, digest, _)| *digest).collect();
    let pinned: Vec<u64> = cases.iter().map(|(_, _, pinned)| *pinned).collect();
    assert_eq!(digests, pinned, "hard's decisions changed: {got:#?}");
}
