//! Simulations (issue 3): complete games, every seat played by the bot or by uniformly
//! random legal actions (claims included), checking after every action that every card is in
//! exactly one place, hand sizes are right, listed actions are accepted and a sample of
//! unlisted ones refused. Replaying a game from its seed and actions gives the same game.

use engine::{
    Action, Card, DrawSource, Game, GameConfig, LegalAction, Phase, Reading, Ruleset, Seat, Seed, Status,
    Step, Variant, bot::Level, find_contract, find_go_out, find_layoffs, replay, replay_record,
};

use crate::play_helpers::{assert_conserved, concrete_actions, play_checked};
use crate::rng::TestRng;

/// How a seat is played.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
enum Player {
    Bot(Level),
    Random,
}

/// Random play: uniformly among the listed concrete actions and the melds and lay-offs the
/// search finds (so random players go down too). Leaving is rare.
fn random_action(game: &Game, seat: Seat, rng: &mut TestRng) -> Option<Action> {
    let mut options: Vec<Action> = concrete_actions(game, seat)
        .into_iter()
        .filter(|a| *a != Action::Leave {} || rng.below(3000) == 0)
        .collect();
    let legal = game.legal_actions(seat);
    let rules = game.rules();
    let hand = game.hand(seat);
    if legal.iter().any(|a| matches!(a, LegalAction::Meld { .. })) {
        let melds = if rules.variant() == Variant::Continental {
            find_go_out(rules, hand)
                .filter(|g| g.discard.is_some() || game.turn().map(|t| t.1) == Some(Phase::Draw))
                .map(|g| g.melds)
        } else if !game.is_down(seat) {
            find_contract(rules, game.deal(), hand)
        } else {
            None
        };
        if let Some(melds) = melds {
            let action = Action::Meld {
                melds: melds.iter().map(|r| r.pinned(rules)).collect(),
            };
            if game.apply(seat, action.clone()).is_ok() {
                options.push(action);
            }
        }
    }
    if legal.iter().any(|a| matches!(a, LegalAction::LayOff { .. })) {
        let table: Vec<Reading> = game.table().iter().map(|m| m.reading.clone()).collect();
        let layoffs = find_layoffs(rules, hand, &table);
        if !layoffs.is_empty() {
            let l = &layoffs[rng.below(layoffs.len())];
            let before = &game.table()[l.meld].reading;
            let mut old = before.slots().to_vec();
            let mut wilds = Vec::new();
            for s in l.reading.slots() {
                if let Some(i) = old.iter().position(|o| o == s) {
                    old.swap_remove(i);
                } else if rules.is_wild(s.card) {
                    wilds.push(engine::Designation {
                        card: s.card,
                        represents: s.represents,
                    });
                }
            }
            let action = Action::LayOff {
                meld_id: game.table()[l.meld].id,
                cards: vec![l.card],
                wilds,
            };
            // contract_7 keeps the last card for the final discard: only legal lay-offs count.
            if game.apply(seat, action.clone()).is_ok() {
                options.push(action);
            }
        }
    }
    // Now and then a wild swap or a joker move, so the freed-wild rules get played too.
    if rng.below(3) == 0 {
        for la in &legal {
            match la {
                LegalAction::Swap { meld_ids } => {
                    let id = meld_ids[rng.below(meld_ids.len())];
                    let end = [None, Some(engine::RunEnd::Low), Some(engine::RunEnd::High)][rng.below(3)];
                    if let Some(swap) = hand
                        .iter()
                        .map(|&card| Action::Swap {
                            meld_id: id,
                            card,
                            end,
                        })
                        .find(|a| game.apply(seat, a.clone()).is_ok())
                    {
                        options.push(swap);
                    }
                }
                LegalAction::MoveJoker { meld_ids } => {
                    let from_meld = meld_ids[rng.below(meld_ids.len())];
                    let moves = game.table().iter().flat_map(|to| {
                        [engine::RunEnd::Low, engine::RunEnd::High]
                            .into_iter()
                            .flat_map(move |end| {
                                [Some(engine::RunEnd::Low), Some(engine::RunEnd::High)]
                                    .into_iter()
                                    .map(move |to_end| Action::MoveJoker {
                                        from_meld,
                                        end,
                                        to_meld: to.id,
                                        to_end,
                                    })
                            })
                    });
                    if let Some(m) = moves.into_iter().find(|a| game.apply(seat, a.clone()).is_ok()) {
                        options.push(m);
                    }
                }
                _ => {}
            }
        }
    }
    if options.is_empty() {
        return None;
    }
    Some(options.swap_remove(rng.below(options.len())))
}

/// A sample of unlisted actions must be refused, with the state untouched (apply takes `&self`).
fn check_refusals(game: &Game, rng: &mut TestRng, context: &str) {
    let Some((turn, _)) = game.turn() else { return };
    let players = game.players();
    let other = Seat(((turn.index() + 1 + rng.below(players - 1)) % players) as u8);
    for a in [
        Action::Draw {
            source: DrawSource::Stock,
        },
        Action::Discard { card: Card::JOKER },
        Action::TakeBack { play: None },
    ] {
        assert!(
            game.apply(other, a.clone()).is_err(),
            "{context}: {a:?} out of turn accepted"
        );
    }
    let listed_other = concrete_actions(game, other);
    if !listed_other.contains(&Action::Claim {}) {
        assert!(
            game.apply(other, Action::Claim {}).is_err(),
            "{context}: unlisted claim accepted"
        );
    }
    let listed = concrete_actions(game, turn);
    for a in [
        Action::Draw {
            source: DrawSource::Discard,
        },
        Action::Draw {
            source: DrawSource::Stock,
        },
        Action::Claim {},
        Action::TakeBack { play: None },
    ] {
        if !listed.contains(&a) {
            assert!(
                game.apply(turn, a.clone()).is_err(),
                "{context}: unlisted {a:?} accepted"
            );
        }
    }
    // Asking to suspend (docs/rules.md#suspension) is accepted exactly when it is listed.
    for seat in [turn, other] {
        let listed = game.legal_actions(seat).contains(&LegalAction::Suspend);
        assert_eq!(
            game.apply(seat, Action::Suspend {}).is_ok(),
            listed,
            "{context}: suspend by {seat} accepted iff listed"
        );
    }
    // Plays of the turn that the view says may not be taken back alone are refused, and so
    // is a play that was never made.
    let plays = game.turn_plays(turn);
    for p in plays.iter().filter(|p| !p.can_take_back) {
        assert!(
            game.apply(turn, Action::TakeBack { play: Some(p.play) }).is_err(),
            "{context}: play {} taken back though listed as blocked",
            p.play
        );
    }
    let unknown = Action::TakeBack {
        play: Some(u32::try_from(plays.len()).expect("few plays")),
    };
    assert!(
        game.apply(turn, unknown).is_err(),
        "{context}: a play never made was taken back"
    );
    if let Some(card) = Card::suited().find(|c| !game.hand(turn).contains(c)) {
        assert!(
            game.apply(turn, Action::Discard { card }).is_err(),
            "{context}: discarding {card} not in hand"
        );
    }
}

/// Arbitrary actions built from the hand and the table: whatever `apply` answers, it must not
/// panic, and when it accepts, the new game keeps every card.
fn poke(game: &Game, rng: &mut TestRng, context: &str) {
    let Some((turn, _)) = game.turn() else { return };
    let hand = game.hand(turn);
    if hand.is_empty() {
        return;
    }
    let pick =
        |rng: &mut TestRng, k: usize| -> Vec<Card> { (0..k).map(|_| hand[rng.below(hand.len())]).collect() };
    let meld_id = game
        .table()
        .get(rng.below(game.table().len() + 1))
        .map_or(rng.below(5) as u32, |m| m.id);
    let k = 1 + rng.below(4);
    let ends = [engine::RunEnd::Low, engine::RunEnd::High];
    let action = match rng.below(5) {
        0 => {
            let size = 3 + rng.below(3);
            let cards = pick(rng, size);
            Action::Meld {
                melds: vec![
                    engine::ProposedMeld::of(&cards),
                    engine::ProposedMeld::of(&pick(rng, 3)),
                ],
            }
        }
        1 => Action::LayOff {
            meld_id,
            cards: pick(rng, k),
            wilds: Vec::new(),
        },
        2 => Action::Swap {
            meld_id,
            card: pick(rng, 1)[0],
            end: Some(ends[rng.below(2)]),
        },
        3 => Action::MoveJoker {
            from_meld: meld_id,
            end: ends[rng.below(2)],
            to_meld: meld_id + 1,
            to_end: None,
        },
        _ => Action::Meld {
            melds: vec![engine::ProposedMeld::of(&pick(rng, 15))],
        },
    };
    if let Ok((next, _)) = game.apply(turn, action) {
        assert_conserved(&next, context);
    }
}

/// Every concrete listed action of `seat` is accepted.
fn check_listed_accepted(game: &Game, seat: Seat, context: &str) {
    for a in concrete_actions(game, seat) {
        if let Err(e) = game.apply(seat, a.clone()) {
            panic!("{context}: listed {a:?} for {seat} refused: {e}");
        }
    }
}

struct Outcome {
    game: Game,
    actions: Vec<(Seat, Action)>,
}

/// Plays one complete game; `players[i]` plays seat i.
fn play_game(config: GameConfig, seed: u64, players: &[Player]) -> Outcome {
    let (mut game, _) = Game::new(config, Seed::from_u64(seed)).expect("setup");
    assert_conserved(&game, "after setup");
    let mut rng = TestRng::new(seed.wrapping_mul(0x9E37_79B9_7F4A_7C15));
    let mut actions = Vec::new();
    let n = players.len();
    let mut steps = 0usize;
    while game.status() == Status::Playing {
        steps += 1;
        let context = format!("{} {n}p seed {seed} step {steps}", game.variant());
        assert!(steps < 20_000, "{context}: the game does not end");
        let (turn, _) = game.turn().expect("playing");
        check_refusals(&game, &mut rng, &context);
        if steps % 16 == 0 {
            check_listed_accepted(&game, turn, &context);
        }
        if steps % 4 == 0 {
            poke(&game, &mut rng, &context);
        }
        // Out of turn: claims, by the bot's judgement or at random.
        let mut chosen = None;
        let start = rng.below(n);
        for k in 0..n {
            let seat = Seat(((start + k) % n) as u8);
            if seat == turn || !game.is_active(seat) {
                continue;
            }
            let claim = match players[seat.index()] {
                Player::Bot(level) => game.bot_choice(seat, level),
                Player::Random => {
                    let listed = game.legal_actions(seat).contains(&LegalAction::Claim);
                    (listed && rng.below(4) == 0).then_some(Action::Claim {})
                }
            };
            if let Some(a) = claim {
                chosen = Some((seat, a));
                break;
            }
        }
        let (seat, action) = match chosen {
            Some(c) => c,
            None => {
                let a = match players[turn.index()] {
                    Player::Bot(level) => game.bot_choice(turn, level),
                    Player::Random => random_action(&game, turn, &mut rng),
                };
                (
                    turn,
                    a.unwrap_or_else(|| panic!("{context}: the player in turn has nothing to do")),
                )
            }
        };
        game = play_checked(&game, seat, action.clone(), &context).0;
        actions.push((seat, action));
        if steps % 8 == 0 {
            // Nothing the rules made is ever taken for drift.
            let stored = serde_json::to_value(&game).expect("json");
            let mut loaded: Game = serde_json::from_value(stored).expect("the game loads");
            assert_eq!(loaded.take_repairs(), [], "{context}: repaired on load");
        }
    }
    if game.status() == Status::Finished {
        let standings = game.standings().expect("standings");
        assert_eq!(standings.len(), n, "every seat is placed");
        assert!(game.revealed_seed().is_some(), "the seed is revealed at the end");
    }
    Outcome { game, actions }
}

fn simulate(rules: Ruleset, games: u64, salt: u64) {
    let range = rules.players();
    let counts: Vec<usize> = range.collect();
    for k in 0..games {
        let seed = salt * 1_000_003 + k;
        let n = counts[k as usize % counts.len()];
        let mut rng = TestRng::new(seed);
        // One game in four, the bots play `easy`: careless, and still legal.
        let bot = Player::Bot(if k % 4 == 1 { Level::Easy } else { Level::Normal });
        let mut players: Vec<Player> = (0..n)
            .map(|_| if rng.below(2) == 0 { bot } else { Player::Random })
            .collect();
        // Random players alone rarely go out in continental: keep a bot at the table.
        if rules.variant() == Variant::Continental || k % 3 == 0 {
            players[rng.below(n)] = bot;
        }
        let config = GameConfig::new(rules.clone(), n);
        let outcome = play_game(config.clone(), seed, &players);
        if k % 50 == 0 {
            let replayed = replay(config.clone(), Seed::from_u64(seed), &outcome.actions).expect("replay");
            assert_eq!(
                replayed, outcome.game,
                "replay from seed and actions gives the same game"
            );
            let record =
                std::iter::once(Step::Deal).chain(outcome.actions.iter().map(|(seat, action)| Step::Act {
                    seat: *seat,
                    action: action.clone(),
                }));
            let steps: Vec<Game> = replay_record(config, Seed::from_u64(seed), record)
                .map(|step| step.expect("every step replays").0)
                .collect();
            assert_eq!(
                steps.len(),
                outcome.actions.len() + 1,
                "the deal, then each action"
            );
            assert_eq!(
                steps.last(),
                Some(&outcome.game),
                "the record's last step is the game"
            );
        }
    }
}

/// Games each variant's simulation plays: 400 unless `CONTINENTAL_SIM_GAMES` says more, for a
/// change to the rules or the bots (CI runs the default, within its time).
fn games() -> u64 {
    std::env::var("CONTINENTAL_SIM_GAMES")
        .ok()
        .and_then(|n| n.parse().ok())
        .unwrap_or(400)
}

#[test]
fn simulate_may_i() {
    simulate(Ruleset::default_for(Variant::MayI), games(), 1);
}

#[test]
fn simulate_contract_7() {
    simulate(Ruleset::default_for(Variant::Contract7), games(), 2);
}

#[test]
fn simulate_continental() {
    simulate(Ruleset::default_for(Variant::Continental), games(), 3);
}

#[test]
fn simulate_push() {
    simulate(Ruleset::default_for(Variant::Push), games() / 2, 4);
    let individual =
        Ruleset::new(Variant::Push, Some(serde_json::json!({"individual": true}))).expect("rules");
    simulate(individual, games() / 2, 5);
}

#[test]
fn all_bot_games_finish_with_standings() {
    for variant in Variant::ALL {
        let rules = Ruleset::default_for(variant);
        let n = *rules.players().start();
        let outcome = play_game(
            GameConfig::new(rules, n),
            99,
            &vec![Player::Bot(Level::Normal); n],
        );
        assert_eq!(outcome.game.status(), Status::Finished, "{variant}");
        let deal_count = outcome.game.deal_scores().len();
        assert_eq!(
            deal_count,
            usize::from(outcome.game.rules().deals()),
            "{variant}: every deal is played"
        );
    }
}
