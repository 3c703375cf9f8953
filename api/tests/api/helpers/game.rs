//! Games through the API, typed: creating one, acting in it as a seat, reading its view and
//! its log.

use continental::wire::{CreateGameResponse, EventsResponse, GameView, LoggedEvent};
use engine::{Action, DrawSource, ProposedMeld, Variant};
use serde_json::{Value, json};

use super::decks::{cards, dealt_deck};
use super::{Api, Reply};

/// The most events a page holds (`limit`'s maximum in the OpenAPI document).
const PAGE: usize = 1000;

/// A created game: its id and a token per seat (all seats named).
#[derive(Clone)]
pub struct Table {
    /// Game id.
    pub id: String,
    /// Tokens by seat.
    pub tokens: Vec<String>,
}

impl Table {
    /// The game of a create response: its id and the tokens of its named seats, in order.
    pub fn of_created(created: &Value) -> Table {
        let created: CreateGameResponse = serde_json::from_value(created.clone())
            .unwrap_or_else(|e| panic!("a created game ({e}): {created}"));
        Table {
            id: created.id.to_string(),
            tokens: created.seats.into_iter().filter_map(|s| s.token).collect(),
        }
    }

    /// The game's path, `/v1/games/{id}`.
    pub fn path(&self) -> String {
        format!("/v1/games/{}", self.id)
    }
}

/// Creates a test-mode game of `variant` with `players` named seats, seat 0 dealing first;
/// `extra` adds to (or replaces) members of the request.
pub async fn create(app: &Api, variant: &str, players: usize, seed: u64, extra: Value) -> Table {
    let seats: Vec<Value> = (0..players).map(|i| json!({"name": format!("P{i}")})).collect();
    let mut body = json!({"variant": variant, "seats": seats, "seed": seed, "first_dealer": 0});
    if let (Some(b), Some(e)) = (body.as_object_mut(), extra.as_object()) {
        for (k, v) in e {
            b.insert(k.clone(), v.clone());
        }
    }
    let reply = app.post("/v1/games", &body).await;
    assert_eq!(reply.status.as_u16(), 201, "create {variant}: {}", reply.text());
    Table::of_created(&reply.json())
}

/// The endpoint (after the game's path) and body of an engine action.
fn request_of(action: &Action) -> (String, Value) {
    let mut body = serde_json::to_value(action).expect("actions serialise");
    let kind = body["type"].as_str().expect("a type").to_owned();
    if let Some(o) = body.as_object_mut() {
        o.remove("type");
    }
    let path = match kind.as_str() {
        "draw" => "draw",
        "claim" => "claims",
        "meld" => "melds",
        "layoff" => "layoffs",
        "swap" | "move_joker" => "swaps",
        "take_back" => "take_back",
        "discard" => "discard",
        "leave" => "leave",
        other => panic!("no endpoint for {other}"),
    };
    (path.to_owned(), body)
}

/// A draw from `source`.
pub fn draw(source: DrawSource) -> Action {
    Action::Draw { source }
}

/// A discard of `card` (its name).
pub fn discard(card: &str) -> Action {
    Action::Discard {
        card: card
            .parse()
            .unwrap_or_else(|e| panic!("a card, not {card:?}: {e}")),
    }
}

/// Melds of these cards (each a space-separated list), kinds and wilds left to the reading.
pub fn meld(melds: &[&str]) -> Action {
    Action::Meld {
        melds: melds.iter().map(|m| ProposedMeld::of(&cards(m))).collect(),
    }
}

/// The header of a keyed request.
pub fn keyed(key: &str) -> [(&str, &str); 1] {
    [("idempotency-key", key)]
}

impl Api {
    /// `action` as `seat` of `table`, with these extra headers (a key, `If-Match`).
    pub async fn act(&self, table: &Table, seat: usize, action: &Action, headers: &[(&str, &str)]) -> Reply {
        let (path, body) = request_of(action);
        self.post_as(
            &format!("{}/{path}", table.path()),
            &table.tokens[seat],
            &body,
            headers,
        )
        .await
    }

    /// The game as `seat` sees it: the reply, whatever it is.
    pub async fn view(&self, table: &Table, seat: usize) -> Reply {
        self.get_as(&table.path(), &table.tokens[seat]).await
    }

    /// The game as seat 0 sees it.
    pub async fn game_view(&self, table: &Table) -> GameView {
        self.view(table, 0).await.typed("the game's view")
    }

    /// The seat in turn.
    pub async fn in_turn(&self, table: &Table) -> usize {
        let view = self.game_view(table).await;
        usize::from(view.turn.expect("a seat in turn").turn.seat.0)
    }

    /// The game as `viewer` sees it once `seat` is in turn: at a person's table the bots play
    /// after the request that gave them the turn, each move at its pace.
    pub async fn when_in_turn(&self, table: &Table, viewer: usize, seat: u8) -> Value {
        super::eventually(
            std::time::Duration::from_secs(20),
            &format!("seat {seat} in turn"),
            async || {
                let view = self.view(table, viewer).await.ok("the game's view");
                match view["turn"]["seat"] == json!(seat) {
                    true => Ok(view),
                    false => Err(view),
                }
            },
        )
        .await
    }

    /// The game's version.
    pub async fn version(&self, table: &Table) -> i64 {
        self.game_view(table).await.version
    }

    /// The seat in turn draws from the stock; answers its view.
    pub async fn draw_in_turn(&self, table: &Table) -> Value {
        let seat = self.in_turn(table).await;
        self.act(table, seat, &draw(DrawSource::Stock), &[])
            .await
            .ok("a draw from the stock")
    }

    /// The events of game `id` after `after`, one page (of [`PAGE`] at most), as the holder of
    /// `token` sees them.
    pub async fn events_page(&self, id: &str, token: &str, after: i64) -> EventsResponse {
        self.get_as(
            &format!("/v1/games/{id}/events?after={after}&limit={PAGE}"),
            token,
        )
        .await
        .typed("the events")
    }

    /// Every event of game `id` so far, as the holder of `token` sees them: one request for a
    /// log that fits a page, as most do (tests poll it).
    pub async fn log_as(&self, id: &str, token: &str) -> Vec<LoggedEvent> {
        let mut out: Vec<LoggedEvent> = Vec::new();
        loop {
            let after = out.last().map_or(0, |e| e.seq);
            let page = self.events_page(id, token, after).await.events;
            let last = page.len() < PAGE;
            out.extend(page);
            if last {
                return out;
            }
        }
    }

    /// Every event of `table` so far, as `seat` sees them.
    pub async fn log(&self, table: &Table, seat: usize) -> Vec<LoggedEvent> {
        self.log_as(&table.id, &table.tokens[seat]).await
    }

    /// The events of `table` of type `kind`, as `seat` sees them.
    pub async fn events_of(&self, table: &Table, seat: usize, kind: &str) -> Vec<Value> {
        self.log(table, seat)
            .await
            .into_iter()
            .filter(|e| e.event["type"] == kind)
            .map(|e| e.event)
            .collect()
    }
}

/// Plays `turns` turns, sent to each of `apps` in turn (replicas of one service): the seat in
/// turn draws from the stock and discards its first card.
pub async fn play_turns(apps: &[&Api], table: &Table, turns: usize) {
    for t in 0..turns {
        let app = apps[t % apps.len()];
        let seat = app.in_turn(table).await;
        let drawn = app
            .act(table, seat, &draw(DrawSource::Stock), &[])
            .await
            .ok("draw");
        let card = drawn["you"]["hand"][0].as_str().expect("a card in hand");
        app.act(table, seat, &discard(card), &[]).await.ok("discard");
    }
}

/// A `may_i` hand that goes out in one turn: two sets of six, then the drawn card discarded.
pub const QUICK_OUT: &str = "3C 3D 3S 3H 3C 3D 4C 4D 4S 4H 4C 4D";

/// The turn that goes out with [`QUICK_OUT`] (and `9C` on the stock) as `seat` of `table`.
pub async fn go_out_quickly(app: &Api, table: &Table, seat: usize) {
    let turn = [
        draw(DrawSource::Stock),
        meld(&["3C 3D 3S 3H 3C 3D", "4C 4D 4S 4H 4C 4D"]),
        discard("9C"),
    ];
    for action in &turn {
        app.act(table, seat, action, &[])
            .await
            .ok(&format!("going out quickly: {action:?}"));
    }
}

/// A 2-player `may_i` game between deals 1 and 2 (seat 1 went out in its first turn),
/// created with `extra` in the request (options, a deck for deal 2).
pub async fn may_i_between_deals_with(app: &Api, extra: Value) -> Table {
    let deck = dealt_deck(
        &engine::Ruleset::default_for(Variant::MayI),
        (2, 0, 1),
        QUICK_OUT,
        "",
        "9C",
    );
    let mut body = json!({"stacked_decks": [deck]});
    if let (Some(b), Some(e)) = (body.as_object_mut(), extra.as_object()) {
        for (k, v) in e {
            if k == "stacked_decks" {
                let later = v.as_array().expect("decks").iter().cloned();
                b["stacked_decks"].as_array_mut().expect("decks").extend(later);
            } else {
                b.insert(k.clone(), v.clone());
            }
        }
    }
    let table = create(app, "may_i", 2, 1, body).await;
    go_out_quickly(app, &table, 1).await;
    let view = app.game_view(&table).await;
    assert_eq!(view.board.deal, Some(2), "seat 1 went out");
    table
}
