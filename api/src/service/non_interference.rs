//! Non-interference of what a seat is shown: two games that differ only in the cards a seat
//! cannot see (the other hands but for the cards it saw taken, the stock below what is public),
//! played on with the same moves, show that seat the same bytes: its view as the wire writes
//! it, its events as redacted for it and written by the wire, and its hints. The engine holds
//! the same of the seat's `Knowledge` and its bots' decisions
//! (`engine/tests/engine/play_bot_levels.rs`); this holds it of what the service serves, in
//! process, through the functions that make those bodies.

use engine::bot::Level;
use engine::{
    Action, DrawSource, Event, Game, GameConfig, Phase, Ruleset, Seat, Seed, Status, Variant, Viewer,
};
use rand::rngs::StdRng;
use rand::seq::SliceRandom;
use rand::{Rng, SeedableRng};
use uuid::Uuid;

use super::{event_rows, hints, redact};
use crate::domain::{HostedGame, SeatKind, SeatRecord};
use crate::wire::{GameView, LoggedEvent};

/// A game as a request reads it from the store, with its version and last event.
struct Stored {
    id: Uuid,
    read: HostedGame,
    version: i64,
    last_seq: i64,
}

/// What the observing seat is served of a game as it stands (its events aside, which
/// [`Stored::act`] gives).
#[derive(Debug, PartialEq)]
struct Served {
    /// `GET /v1/games/{id}`, and the body of the seat's own move's answer.
    view: String,
    /// `GET /v1/games/{id}/hints`.
    hints: String,
}

impl Stored {
    /// Game `id` stored as `state`, read as a request reads it.
    fn new(id: Uuid, state: &str, version: i64, last_seq: i64) -> Stored {
        Stored {
            id,
            read: HostedGame::load(id, state).expect("a stored game loads"),
            version,
            last_seq,
        }
    }

    /// The game's `state` JSON.
    fn state(&self) -> serde_json::Value {
        serde_json::to_value(&self.read).expect("the state writes")
    }

    /// The engine's game as it stands.
    fn game(&self) -> &Game {
        self.read.game.as_ref().expect("dealt")
    }

    /// The same game stored as `state`.
    fn stored_as(&self, state: &serde_json::Value) -> Stored {
        Stored::new(self.id, &state.to_string(), self.version, self.last_seq)
    }

    /// Plays `action` for `seat` as a move does (`service::moves`): the table's apply, the
    /// clock rearmed, the events as their rows. (The state's round trip through its JSON is
    /// left out: hundreds of games take seconds.) Returns the new events as `observer` reads
    /// them, or `None` when the game refuses the move.
    fn act(&mut self, seat: Seat, action: Action, observer: u8) -> Option<Vec<String>> {
        let table = &mut self.read;
        let applied = table.apply(seat, action).ok()?;
        table.rearm(applied.turn_passed, 1_000_000, 1000);
        let actions = applied.actions;
        let rows = event_rows(applied, false).expect("events are written");
        let events = rows
            .iter()
            .map(|row| {
                self.last_seq += 1;
                let event = LoggedEvent {
                    seq: self.last_seq,
                    event: redact(&row.body, Viewer::Seat(Seat(observer)), false)
                        .expect("a logged event reads"),
                };
                serde_json::to_string(&event).expect("an event writes")
            })
            .collect();
        self.version += actions;
        Some(events)
    }

    /// The view and hints `observer` is served now.
    fn served(&self, observer: u8) -> Served {
        let view = GameView::of(self.id, self.version, &self.read, observer);
        Served {
            view: serde_json::to_string(&view).expect("a view writes"),
            hints: serde_json::to_string(&hints(&self.read, observer).expect("dealt")).expect("hints write"),
        }
    }
}

/// A table of `players` people of `variant`, dealt from `seed`.
fn dealt(variant: Variant, players: usize, seed: u64) -> Stored {
    let config = GameConfig::new(Ruleset::default_for(variant), players);
    let seats = (0..players)
        .map(|i| SeatRecord::taken(SeatKind::Player, Some(format!("Player {i}")), None, None))
        .collect();
    let mut table = HostedGame::new(config, Seed::from_u64(seed), seats).expect("a table");
    let applied = table.start_if_full(2026).expect("dealt");
    Stored::new(
        Uuid::from_u128(u128::from(seed)),
        &table.to_json().expect("the state writes"),
        applied.actions,
        applied.events.len() as i64,
    )
}

/// The places of `game` whose cards `observer` cannot see: each other hand's cards but those
/// it saw taken (one place for each, a second copy of a card held stays unseen),
/// `(Some(seat), index)`; the stock's but its known cards (the turned-over pile, bottom
/// first), `(None, index)`.
fn unseen_places(game: &Game, observer: Seat) -> Vec<(Option<usize>, usize)> {
    let knowledge = game.knowledge(observer);
    let mut places = Vec::new();
    for i in (0..game.players()).filter(|&i| i != observer.index()) {
        let mut known = knowledge.known(Seat(i as u8)).to_vec();
        for (k, c) in game.hand(Seat(i as u8)).iter().enumerate() {
            match known.iter().position(|x| x == c) {
                Some(at) => {
                    known.swap_remove(at);
                }
                None => places.push((Some(i), k)),
            }
        }
    }
    let known_stock = knowledge.stock_known().len();
    places.extend((known_stock..game.stock_count()).map(|k| (None, k)));
    places
}

/// The card at `place` of a stored game's `game` JSON.
fn card_at(game: &serde_json::Value, place: (Option<usize>, usize)) -> &serde_json::Value {
    match place {
        (Some(i), k) => &game["hands"][i][k],
        (None, k) => &game["stock"][k],
    }
}

/// Puts `card` at `place` of a stored game's `game` JSON.
fn put(game: &mut serde_json::Value, place: (Option<usize>, usize), card: serde_json::Value) {
    match place {
        (Some(i), k) => game["hands"][i][k] = card,
        (None, k) => game["stock"][k] = card,
    }
}

/// `stored` with every card `observer` cannot see dealt again at random among the places it
/// cannot see, through the stored form, as the engine's `reshuffle_unseen` does. The seed
/// stays: every view shows its commitment, and the deal is not dealt again from it. Returns
/// the twin and how many cards moved.
fn reshuffle_unseen(stored: &Stored, observer: Seat, rng: &mut StdRng) -> (Stored, usize) {
    let places = unseen_places(stored.game(), observer);
    let mut json = stored.state();
    let game = &mut json["game"];
    let before: Vec<serde_json::Value> = places.iter().map(|&p| card_at(game, p).clone()).collect();
    let mut cards = before.clone();
    cards.shuffle(rng);
    let moved = before.iter().zip(&cards).filter(|(a, b)| a != b).count();
    for (&p, c) in places.iter().zip(cards) {
        put(game, p, c);
    }
    (stored.stored_as(&json), moved)
}

/// How many cards `action` of `seat` takes from the top of the stock of `game`, and whether
/// `observer` is shown any of them (its draw, its claim's penalty card, a card pushed to it).
fn stock_taken(game: &Game, seat: Seat, action: &Action, observer: Seat) -> (usize, bool) {
    let Ok((_, events)) = game.apply(seat, action.clone()) else {
        return (0, false);
    };
    let mut taken = (0, false);
    for event in &events {
        let to = match event {
            Event::Drew {
                seat,
                source: DrawSource::Stock,
                ..
            } => *seat,
            Event::ClaimWon {
                seat,
                penalty: Some(_),
                ..
            } => *seat,
            Event::Pushed {
                to, stock: Some(_), ..
            } => *to,
            _ => continue,
        };
        taken = (taken.0 + 1, taken.1 || to == observer);
    }
    taken
}

/// Deals the twin `b` again where `observer` cannot see, so that its top `cards` of the stock
/// are `a`'s: the cards a move is about to show the seat are then the same in both, and the two
/// still differ only in cards it has not seen.
fn same_top_of_stock(a: &Stored, b: &mut Stored, observer: Seat, cards: usize) {
    let a_json = a.state();
    let mut places = unseen_places(b.game(), observer);
    let mut json = b.state();
    let game = &mut json["game"];
    let len = game["stock"].as_array().map_or(0, Vec::len);
    for top in (len.saturating_sub(cards)..len).rev() {
        let wanted = &a_json["game"]["stock"][top];
        // This place is now the same as `a`'s: nothing is hidden there any more.
        places.retain(|&p| p != (None, top));
        if &game["stock"][top] == wanted {
            continue;
        }
        let Some(&from) = places.iter().find(|&&p| card_at(game, p) == wanted) else {
            panic!("{wanted} lies where the seat cannot see it in both games: {game}");
        };
        let displaced = game["stock"][top].clone();
        put(game, from, displaced);
        put(game, (None, top), wanted.clone());
    }
    *b = b.stored_as(&json);
}

/// The next move at `game`, as `normal` (or `easy`) would play it: a seat's claim out of turn
/// first, as the bots' tables ask them, else the move of the seat in turn.
fn next_move(game: &Game, level: Level) -> Option<(Seat, Action)> {
    let (turn, _) = game.turn()?;
    let n = game.players();
    let claim = (1..n)
        .map(|k| Seat(((turn.index() + k) % n) as u8))
        .find_map(|s| game.bot_choice(s, level).map(|a| (s, a)));
    claim.or_else(|| game.bot_choice(turn, level).map(|a| (turn, a)))
}

/// A move both games take: the bots' move in one or the other, else the plainest move of the
/// seat in turn that both take (a draw from the stock, a discard of a card both hands hold).
fn common_move(a: &Game, b: &Game, level: Level, rng: &mut StdRng) -> Option<(Seat, Action)> {
    let takes = |(seat, action): &(Seat, Action)| {
        a.apply(*seat, action.clone()).is_ok() && b.apply(*seat, action.clone()).is_ok()
    };
    if let Some(m) = next_move(a, level).filter(takes) {
        return Some(m);
    }
    if let Some(m) = next_move(b, level).filter(takes) {
        return Some(m);
    }
    let (turn, phase) = a.turn()?;
    let plain = match phase {
        Phase::Draw => vec![Action::Draw {
            source: DrawSource::Stock,
        }],
        Phase::Play => {
            let mut both: Vec<Action> = a
                .hand(turn)
                .iter()
                .filter(|c| b.hand(turn).contains(c))
                .map(|&card| Action::Discard { card })
                .collect();
            both.shuffle(rng);
            both
        }
    };
    plain.into_iter().map(|action| (turn, action)).find(takes)
}

/// Plays the twins `a` and `b` (apart only in what `observer` cannot see) on with the same
/// moves until the deal ends or no move fits both, checking after each that `observer` is
/// served the same bytes; returns the moves compared.
fn same_bodies(mut a: Stored, mut b: Stored, observer: u8, rng: &mut StdRng, context: &str) -> usize {
    assert_eq!(
        a.served(observer),
        b.served(observer),
        "{context}: as the twins stand"
    );
    let deal = a.game().deal();
    let mut compared = 0;
    for _ in 0..30 {
        let level = if rng.random_bool(0.8) {
            Level::Normal
        } else {
            Level::Easy
        };
        let Some((seat, action)) = common_move(a.game(), b.game(), level, rng) else {
            break;
        };
        let context = format!("{context}, move {compared} ({seat} {action:?})");
        // The seat is about to see cards of the stock: the twin's are made the same.
        let (taken, seen) = stock_taken(a.game(), seat, &action, Seat(observer));
        if seen {
            same_top_of_stock(&a, &mut b, Seat(observer), taken);
        }
        let events_a = a.act(seat, action.clone(), observer).expect("taken, as tried");
        let events_b = b.act(seat, action, observer).expect("taken, as tried");
        let (game_a, game_b) = (a.game(), b.game());
        assert_eq!(
            (game_a.deal(), game_a.status()),
            (game_b.deal(), game_b.status()),
            "{context}: where the game is, which every seat sees"
        );
        // A deal's end shows every hand: there the twins part, as they should.
        if game_a.deal() != deal || game_a.status() != Status::Playing {
            break;
        }
        assert_eq!(events_a, events_b, "{context}: the seat's events");
        let (served_a, served_b) = (a.served(observer), b.served(observer));
        assert_eq!(served_a.view, served_b.view, "{context}: the seat's view");
        assert_eq!(served_a.hints, served_b.hints, "{context}: the seat's hints");
        compared += 1;
    }
    compared
}

/// Seeds of each variant: a few seconds in all; `CONTINENTAL_NONINTERFERENCE_SEEDS` asks for
/// more.
fn seeds() -> u64 {
    std::env::var("CONTINENTAL_NONINTERFERENCE_SEEDS")
        .ok()
        .and_then(|n| n.parse().ok())
        .unwrap_or(100)
}

/// In every variant, over hundreds of deals, each twinned at some point of its play for one
/// seat: the two tables serve that seat the same view, events and hints, move after move.
#[test]
fn a_seat_is_served_the_same_whatever_the_cards_it_cannot_see() {
    for variant in Variant::ALL {
        let players: &[usize] = match variant {
            Variant::MayI => &[2, 3, 4, 5],
            Variant::Contract7 => &[2, 3, 4],
            Variant::Continental => &[2, 3, 4],
            Variant::Push => &[4],
        };
        let (mut compared, mut twins) = (0_u64, 0_u64);
        for seed in 0..seeds() {
            let mut rng = StdRng::seed_from_u64(seed);
            let players = players[seed as usize % players.len()];
            let observer = (seed as usize / 7 % players) as u8;
            let mut stored = dealt(variant, players, seed);
            // The twins part at some point of the deal: at once, or after moves that put
            // cards taken in view in hands, melds on the table, a pile turned over.
            for _ in 0..rng.random_range(0..40) {
                let game = stored.game();
                if game.status() != Status::Playing || game.deal() != 1 {
                    break;
                }
                let Some((seat, action)) = next_move(game, Level::Normal) else {
                    break;
                };
                if stored.act(seat, action, observer).is_none() {
                    break;
                }
            }
            let game = stored.game();
            if game.status() != Status::Playing || game.deal() != 1 {
                continue;
            }
            let (twin, moved) = reshuffle_unseen(&stored, Seat(observer), &mut rng);
            if moved == 0 {
                continue;
            }
            let context = format!("{variant} {players}p seed {seed} seat {observer}");
            assert_eq!(
                twin.game().knowledge(Seat(observer)),
                game.knowledge(Seat(observer)),
                "{context}: the twin agrees on all the seat knows"
            );
            twins += 1;
            compared += same_bodies(stored, twin, observer, &mut rng, &context) as u64;
        }
        assert!(
            twins * 4 >= seeds() * 3 && compared >= twins * 5,
            "{variant}: {twins} twins of {} seeds, {compared} moves compared",
            seeds()
        );
    }
}
