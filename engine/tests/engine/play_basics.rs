//! Setup, turns, views and serialisation (docs/rules.md#common).

use engine::{
    Action, DrawSource, Event, Game, GameConfig, Ruleset, Seat, Seed, Status, Step, Variant, Viewer,
};

use crate::helpers::cards;
use crate::play_helpers::{discard, draw, new_game, play_all, stacked_deck, stacked_game};

#[test]
fn rules_1_first_dealer_is_drawn_and_recorded() {
    for (variant, highest) in [
        (Variant::MayI, true),
        (Variant::Contract7, false),
        (Variant::Continental, false),
    ] {
        let (game, events) = Game::new(
            GameConfig::new(Ruleset::default_for(variant), 4),
            Seed::from_u64(3),
        )
        .expect("setup");
        let Some(Event::FirstDealer { rounds, dealer }) = events.first() else {
            panic!("{variant}: the first event is the draw for dealer");
        };
        assert_eq!(*dealer, game.dealer(), "{variant}: the event names the dealer");
        let last = rounds.last().expect("at least one round");
        let rank = |c: engine::Card| c.rank().map_or(14, |r| r.number());
        let best = last.iter().map(|(_, c)| rank(*c));
        let best = if highest { best.max() } else { best.min() }.expect("cards");
        let winners: Vec<_> = last.iter().filter(|(_, c)| rank(*c) == best).collect();
        assert_eq!(winners.len(), 1, "{variant}: ties draw again");
        assert_eq!(
            winners[0].0, *dealer,
            "{variant}: highest (may_i) or lowest card deals"
        );
        assert_eq!(
            rounds[0].len(),
            4,
            "{variant}: every seat draws in the first round"
        );
    }
}

#[test]
fn rules_1_play_starts_left_of_dealer_and_passes_left() {
    let game = new_game(Variant::MayI, 4, 11);
    let (turn, _) = game.turn().expect("playing");
    assert_eq!(
        turn.index(),
        (game.dealer().index() + 1) % 4,
        "first player is left of the dealer"
    );
    let card = game.hand(turn)[0];
    let (after, _) = play_all(
        &game,
        &[
            (turn.0, draw(DrawSource::Stock)),
            (turn.0, Action::Discard { card }),
        ],
    );
    assert_eq!(
        after.turn().expect("playing").0.index(),
        (turn.index() + 1) % 4,
        "play passes left"
    );
}

#[test]
fn rules_1_refused_actions_change_nothing() {
    let game = new_game(Variant::MayI, 4, 5);
    let (turn, _) = game.turn().expect("playing");
    let other = Seat(((turn.index() + 1) % 4) as u8);
    let rows = [
        (
            other,
            draw(DrawSource::Stock),
            "not_your_turn",
            "only the player in turn draws",
        ),
        (turn, discard("JK"), "wrong_phase", "draw before discarding"),
        (Seat(9), draw(DrawSource::Stock), "unknown_seat", "no such seat"),
    ];
    for (seat, action, code, why) in rows {
        let before = serde_json::to_string(&game).expect("json");
        let err = game.apply(seat, action).expect_err(why);
        assert_eq!(err.code(), code, "{why}");
        assert_eq!(
            serde_json::to_string(&game).expect("json"),
            before,
            "{why}: state untouched"
        );
    }
}

#[test]
fn rules_1_views_hide_other_hands_the_stock_and_the_seed() {
    let game = new_game(Variant::MayI, 4, 21);
    let you = game.view(Viewer::Seat(Seat(1)));
    assert_eq!(you.you.as_ref().expect("own hand").hand, game.hand(Seat(1)));
    let spectator = game.view(Viewer::Spectator);
    assert!(spectator.you.is_none(), "a spectator has no hand");
    let json = serde_json::to_string(&spectator).expect("json");
    assert!(
        !json.contains(&Seed::from_u64(21).to_hex()),
        "no seed before the end"
    );
    assert!(
        json.contains(&Game::seed_commitment(&Seed::from_u64(21))),
        "commitment is shown"
    );
    let value: serde_json::Value = serde_json::to_value(&you).expect("json");
    for field in [
        "variant",
        "deal",
        "dealer",
        "turn",
        "you",
        "players",
        "table",
        "discard",
        "stock_count",
        "legal_actions",
    ] {
        assert!(value.get(field).is_some(), "docs/api.md#game-view field {field}");
    }
    assert_eq!(value["turn"]["phase"], "draw");
    assert_eq!(
        game.status(),
        engine::Status::Playing,
        "the service shows it beside the view"
    );
    // Stock draws are shown only to the drawer.
    let (turn, _) = game.turn().expect("playing");
    let (_, events) = game.apply(turn, draw(DrawSource::Stock)).expect("draw");
    let drew = events
        .iter()
        .find(|e| matches!(e, Event::Drew { .. }))
        .expect("drew");
    let other = Viewer::Seat(Seat(((turn.index() + 1) % 4) as u8));
    assert!(
        matches!(drew.redacted_for(other), Event::Drew { card: None, .. }),
        "hidden from others"
    );
    assert!(
        matches!(
            drew.redacted_for(Viewer::Seat(turn)),
            Event::Drew { card: Some(_), .. }
        ),
        "shown to the drawer"
    );
}

#[test]
fn rules_1_game_state_round_trips_through_json() {
    let game = new_game(Variant::Push, 4, 8);
    let json = serde_json::to_string(&game).expect("json");
    let back: Game = serde_json::from_str(&json).expect("back");
    assert_eq!(back, game);
    let future = json.replacen("\"format\":1", "\"format\":99", 1);
    assert!(
        serde_json::from_str::<Game>(&future).is_err(),
        "an unknown format is refused"
    );
}

#[test]
fn rules_2_deal_twelve_one_at_a_time_and_an_upcard() {
    let rules = Ruleset::default_for(Variant::MayI);
    let deck = stacked_deck(&rules, 4, 0, 1, &["", "AC 2C 3C", "", ""], "KD", "QD");
    let (game, _) = stacked_game(rules, 4, 0, vec![deck.clone()]);
    assert_eq!(
        &game.hand(Seat(1))[..3],
        &cards("AC 2C 3C")[..],
        "seat 1 is dealt first"
    );
    assert_eq!(deck[0], cards("AC")[0], "one at a time from the dealer's left");
    assert_eq!(
        deck[4],
        cards("2C")[0],
        "one at a time: seat 1's second card after a round"
    );
    let view = game.view(Viewer::Spectator);
    assert_eq!(
        view.board.discard.top,
        Some(cards("KD")[0]),
        "the next card is turned up"
    );
    assert_eq!(view.board.stock_count, 108 - 48 - 1);
    assert!(game.players() == 4 && (0..4).all(|s| game.hand(Seat(s)).len() == 12));
    assert_eq!(game.status(), Status::Playing);
}

/// The kinds without fields are empty struct variants: stored as earlier versions wrote them
/// (`{"type":"claim"}`), they still load and are written the same, and serde itself refuses a
/// field they do not have.
#[test]
fn api_1_actions_without_fields_read_as_earlier_versions_wrote_them_and_take_no_field() {
    let rows = [
        (r#"{"type":"claim"}"#, Action::Claim {}),
        (r#"{"type":"leave"}"#, Action::Leave {}),
        (r#"{"type":"suspend"}"#, Action::Suspend {}),
    ];
    for (json, action) in rows {
        assert_eq!(
            serde_json::from_str::<Action>(json).expect(json),
            action,
            "{json} loads"
        );
        assert_eq!(
            serde_json::to_string(&action).expect("json"),
            json,
            "{json} is written the same"
        );
        let extra = json.replace('}', r#","x":42}"#);
        let refused = serde_json::from_str::<Action>(&extra)
            .expect_err(&extra)
            .to_string();
        assert!(refused.starts_with("unknown field `x`"), "{extra}: {refused}");
    }
}

#[test]
fn api_1_actions_and_views_have_the_api_json_shape() {
    let rows = [
        (r#"{"type":"draw","source":"stock"}"#, "draw"),
        (r#"{"type":"draw","source":"discard"}"#, "draw"),
        (r#"{"type":"claim"}"#, "claim"),
        (
            r#"{"type":"meld","melds":[{"cards":["5H","6H","JK"],"kind":"run"}]}"#,
            "meld",
        ),
        (r#"{"type":"layoff","meld_id":3,"cards":["7H"]}"#, "layoff"),
        (r#"{"type":"swap","meld_id":3,"card":"7H"}"#, "swap"),
        (
            r#"{"type":"move_joker","from_meld":1,"end":"high","to_meld":2}"#,
            "move_joker",
        ),
        (r#"{"type":"take_back"}"#, "take_back"),
        (r#"{"type":"take_back","play":1}"#, "take_back"),
        (r#"{"type":"discard","card":"10d"}"#, "discard"),
        (r#"{"type":"leave"}"#, "leave"),
    ];
    for (json, kind) in rows {
        let action: Action = serde_json::from_str(json).unwrap_or_else(|e| panic!("{json}: {e}"));
        assert_eq!(action.kind().name(), kind, "{json}");
        let back: Action =
            serde_json::from_value(serde_json::to_value(&action).expect("json")).expect("back");
        assert_eq!(back, action, "{json} round-trips");
    }
    assert!(
        serde_json::from_str::<Action>(r#"{"type":"draw","source":"stock","extra":1}"#).is_err(),
        "unknown fields are refused"
    );
    assert_eq!(
        serde_json::from_str::<Action>(r#"{"type":"take_back"}"#).expect("json"),
        Action::TakeBack { play: None },
        "§2 taking back without a play: the whole turn, as before"
    );
    assert_eq!(
        serde_json::from_str::<Action>(r#"{"type":"take_back","play":2}"#).expect("json"),
        Action::TakeBack { play: Some(2) },
        "§2 taking back one play: take_back with a play"
    );
    assert!(
        serde_json::from_str::<Action>(r#"{"type":"take_back","play":-1}"#).is_err()
            && serde_json::from_str::<Action>(r#"{"type":"swap","meld_id":1,"card":"7H","x":1}"#).is_err(),
        "bad play numbers and unknown fields are refused"
    );
    assert!(
        serde_json::from_str::<Action>(r#"{"type":"fly"}"#).is_err(),
        "unknown actions are refused"
    );
    let game = new_game(Variant::MayI, 3, 1);
    let (turn, _) = game.turn().expect("playing");
    let view = serde_json::to_value(game.view(Viewer::Seat(turn))).expect("json");
    let types: Vec<&str> = view["legal_actions"]
        .as_array()
        .expect("list")
        .iter()
        .filter_map(|a| a["type"].as_str())
        .collect();
    assert!(types.contains(&"draw") && types.contains(&"leave"), "{types:?}");
    assert_eq!(
        view["you"]["seat"],
        serde_json::json!(turn.0),
        "seats are numbers"
    );
    assert!(view["discard"]["top"].is_string() && view["discard"]["dead"] == false);
}

#[test]
fn rules_1_seed_committed_revealed_at_the_end_and_replayable() {
    let config = GameConfig::new(Ruleset::default_for(Variant::Continental), 2);
    let seed = Seed::from_u64(2024);
    let (mut game, _) = Game::new(config.clone(), seed.clone()).expect("setup");
    let commitment = game.commitment();
    assert_eq!(
        commitment,
        Game::seed_commitment(&seed),
        "§1 SHA-256 of the seed is published"
    );
    assert_eq!(commitment.len(), 64);
    assert!(
        game.revealed_seed().is_none(),
        "§1 the seed stays secret while playing"
    );
    let mut actions = Vec::new();
    while game.status() == Status::Playing {
        let (turn, _) = game.turn().expect("playing");
        let action = game
            .bot_choice(turn, engine::bot::Level::Normal)
            .expect("bot acts");
        game = game.apply(turn, action.clone()).expect("legal").0;
        actions.push((turn, action));
    }
    let revealed = game.revealed_seed().expect("§1 revealed when the game ends");
    assert_eq!(
        Game::seed_commitment(revealed),
        commitment,
        "§1 the revealed seed matches the commitment"
    );
    let view = game.view(Viewer::Spectator);
    assert_eq!(
        view.board.seed,
        Some(revealed.to_hex()),
        "the view shows the seed once finished"
    );
    assert!(view.board.standings.is_some());
    let replayed = engine::replay(config.clone(), revealed.clone(), &actions).expect("replay");
    assert_eq!(
        replayed, game,
        "§1 replaying the seed and the actions gives the same game"
    );
    let other = engine::replay(config, Seed::from_u64(2025), &actions);
    assert!(
        other.is_err() || other.expect("game") != game,
        "another seed deals other cards"
    );
}

/// A game's record (its deal, each action, a call-off) replays step by step into the game and
/// the events each step made; a record deals once, first.
#[test]
fn a_record_replays_step_by_step_and_deals_once_first() {
    let config = GameConfig::new(Ruleset::default_for(Variant::MayI), 3);
    let seed = Seed::from_u64(11);
    let (mut game, dealt) = Game::new(config.clone(), seed.clone()).expect("setup");
    let mut record = vec![Step::Deal];
    let mut played = vec![(game.clone(), dealt)];
    for _ in 0..12 {
        let (turn, _) = game.turn().expect("playing");
        let action = game
            .bot_choice(turn, engine::bot::Level::Normal)
            .expect("bot acts");
        let (next, events) = game.apply(turn, action.clone()).expect("legal");
        record.push(Step::Act { seat: turn, action });
        played.push((next.clone(), events));
        game = next;
    }
    let (void, events) = game.call_off().expect("called off");
    record.push(Step::CallOff);
    played.push((void, events));
    let replayed: Vec<(Game, Vec<Event>)> =
        engine::replay_record(config.clone(), seed.clone(), record.clone())
            .map(|step| step.expect("each step replays"))
            .collect();
    assert_eq!(
        replayed, played,
        "each step gives the game and the events it made"
    );
    let json = serde_json::to_value(&record).expect("JSON");
    assert_eq!(json[0], serde_json::json!({"step": "deal"}));
    assert_eq!(json[1]["step"], "act");
    assert_eq!(
        serde_json::from_value::<Vec<Step>>(json).expect("read back"),
        record,
        "a record round-trips through JSON"
    );
    for (what, bad) in [
        ("no deal first", record[1..].to_vec()),
        ("a second deal", [record.clone(), vec![Step::Deal]].concat()),
    ] {
        let last = engine::replay_record(config.clone(), seed.clone(), bad).last();
        assert!(
            matches!(last, Some(Err(ref e)) if e.code() == "misplaced_deal"),
            "{what}: {last:?}"
        );
    }
}

#[test]
fn api_1_every_event_round_trips_through_json_and_redaction_hides_private_cards() {
    for variant in Variant::ALL {
        let (mut game, mut events) = Game::new(
            GameConfig::new(Ruleset::default_for(variant), 4),
            Seed::from_u64(77),
        )
        .expect("setup");
        while game.status() == Status::Playing {
            let (turn, _) = game.turn().expect("playing");
            let claimant = (0..4)
                .map(Seat)
                .filter(|s| *s != turn)
                .find_map(|s| game.bot_choice(s, engine::bot::Level::Normal).map(|a| (s, a)));
            let (seat, action) = claimant.unwrap_or_else(|| {
                (
                    turn,
                    game.bot_choice(turn, engine::bot::Level::Normal).expect("bot"),
                )
            });
            let (next, new) = game.apply(seat, action).expect("legal");
            game = next;
            events.extend(new);
        }
        for e in &events {
            let json = serde_json::to_string(e).expect("json");
            let back: Event = serde_json::from_str(&json).unwrap_or_else(|err| panic!("{json}: {err}"));
            assert_eq!(&back, e, "{variant}: {json}");
            let spectator = serde_json::to_value(e.redacted_for(Viewer::Spectator)).expect("json");
            match e {
                Event::Drew {
                    source: DrawSource::Stock,
                    ..
                } => assert!(spectator["card"].is_null()),
                Event::Dealt { .. } => assert!(spectator["cards"].is_null()),
                Event::ClaimWon { .. } => assert!(spectator["penalty"].is_null()),
                Event::Pushed { .. } => assert!(spectator["stock"].is_null()),
                _ => assert_eq!(
                    spectator,
                    serde_json::to_value(e).expect("json"),
                    "public events are unchanged"
                ),
            }
        }
    }
}

#[test]
fn every_event_names_the_seat_it_serialises() {
    for variant in Variant::ALL {
        let players = if variant == Variant::Push { 4 } else { 3 };
        let config = GameConfig::new(Ruleset::default_for(variant), players);
        let (mut game, mut events) = Game::new(config, Seed::from_u64(7)).expect("setup");
        let mut steps = 0;
        while game.status() == Status::Playing && steps < 2000 {
            let (seat, _) = game.turn().expect("playing");
            let action = game
                .bot_choice(seat, engine::bot::Level::Normal)
                .expect("the bot acts in turn");
            let (next, more) = game.apply(seat, action).expect("accepted");
            events.extend(more);
            game = next;
            steps += 1;
        }
        let mut seated = 0;
        for e in &events {
            let json = serde_json::to_value(e).expect("events serialise");
            let written = json
                .get("seat")
                .or_else(|| json.get("from"))
                .and_then(|s| s.as_u64());
            assert_eq!(e.seat().map(|s| u64::from(s.0)), written, "{variant}: {json}");
            seated += usize::from(e.seat().is_some());
        }
        assert!(
            seated > 0 && seated < events.len(),
            "{variant}: both kinds of events"
        );
    }
}

/// The view's `last_deal` is the last `deal_ended` event, for every viewer (every hand's cards
/// are revealed at a deal's end); null before; kept as the game is stored, and a game stored
/// before it was kept loads without it.
#[test]
fn the_last_deal_stays_in_the_view_as_its_event_said() {
    use crate::play_helpers::{quick_out_actions, quick_out_deck};
    let rules = Ruleset::default_for(Variant::MayI);
    let (game, _) = stacked_game(rules.clone(), 3, 0, vec![quick_out_deck(&rules, 3, 0)]);
    for viewer in [Viewer::Seat(Seat(0)), Viewer::Spectator] {
        assert_eq!(game.view(viewer).board.last_deal, None, "no deal has ended");
    }
    let (game, events) = play_all(&game, &quick_out_actions(&rules, 3, 0));
    let Some(Event::DealEnded {
        deal,
        end,
        hands,
        scores,
        totals,
    }) = events
        .iter()
        .find(|e| matches!(e, Event::DealEnded { .. }))
        .cloned()
    else {
        panic!("seat 1 went out: {events:?}");
    };
    assert_eq!(game.deal(), 2, "the next deal is dealt");
    assert!(!hands[2].is_empty(), "seat 2 still held cards");
    let expected = engine::LastDeal {
        deal,
        end,
        hands,
        scores,
        totals,
    };
    for viewer in [Viewer::Seat(Seat(0)), Viewer::Seat(Seat(2)), Viewer::Spectator] {
        assert_eq!(
            game.view(viewer).board.last_deal.as_ref(),
            Some(&expected),
            "{viewer:?} sees every hand of the deal that ended"
        );
    }
    let stored = serde_json::to_value(&game).expect("stored");
    let loaded: Game = serde_json::from_value(stored.clone()).expect("loads");
    assert_eq!(loaded.view(Viewer::Spectator).board.last_deal, Some(expected));
    let mut before = stored;
    before.as_object_mut().expect("an object").remove("last_deal");
    let loaded: Game = serde_json::from_value(before).expect("a game stored before loads");
    assert_eq!(loaded.view(Viewer::Spectator).board.last_deal, None);
}
