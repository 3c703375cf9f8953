//! Issue 9's readings and rules through HTTP on stacked decks (docs/rules.md, §1, §2, §5).

use engine::{DrawSource, Variant};
use serde_json::{Value, json};

use crate::helpers::{
    QUICK_OUT, Table, TestApp, create, dealt_deck, deck_with, draw, edit_state, go_out_quickly,
    may_i_between_deals_with,
};
use crate::on_every_backend;

/// What each card of a stored reading stands for, as `card=represents`.
fn places(reading: &Value) -> Vec<String> {
    reading["slots"]
        .as_array()
        .expect("slots")
        .iter()
        .map(|s| {
            format!(
                "{}={}",
                s["card"].as_str().unwrap_or("?"),
                s["represents"].as_str().unwrap_or("?")
            )
        })
        .collect()
}

/// docs/rules.md#readings: wilds inside a run fill its gaps in the order they were submitted, so
/// `continental`'s `5S 2C 7S JK 9S` goes out with no choice to make (2C is 6S, JK is 8S).
async fn inner_gaps_take_the_wilds_in_order(app: &TestApp) {
    let melds = [
        vec!["5S", "2C", "7S", "JK", "9S"],
        vec!["3H", "4H", "5H", "6H"],
        vec!["8D", "9D", "TD"],
        vec!["JC", "QC", "KC"],
    ];
    let hand: Vec<&str> = melds.iter().flatten().copied().collect();
    let (seat, deck) = deck_with(Variant::Continental, 2, &hand);
    let deck: Vec<String> = deck.iter().map(ToString::to_string).collect();
    let table = create(app, "continental", 2, 1, json!({"stacked_decks": [deck]})).await;
    let seat = usize::from(seat.0);
    let body = json!({"melds": melds.iter().map(|m| json!({"cards": m})).collect::<Vec<_>>()});
    let out = app
        .post_as(
            &format!("/v1/games/{}/melds", table.id),
            &table.tokens[seat],
            &body,
            &[],
        )
        .await
        .ok("going out");
    assert_eq!(out["status"], "finished", "§4 out in one action: {out}");
    let melded = app.events_of(&table, seat, "melded").await;
    let run = &melded.first().expect("a melded event")["melds"][0]["reading"];
    assert_eq!(
        places(run),
        ["5S=5S", "2C=6S", "7S=7S", "JK=8S", "9S=9S"],
        "§1 the deuce, laid first, fills the first gap: {run}"
    );
}
on_every_backend!(
    inner_gaps_take_the_wilds_in_order_on_every_backend,
    inner_gaps_take_the_wilds_in_order
);

/// docs/rules.md#push-wilds: an all-wild set that names only its kind is legal, has no rank, and
/// takes its rank from the first natural card laid off on it.
async fn an_all_wild_push_set_takes_its_rank_from_a_natural(app: &TestApp) {
    let (seat, mut deck) = deck_with(Variant::Push, 4, &["9C", "9D", "9H"]);
    // Three jokers into the hand by swapping places (the pack holds four jokers but two of
    // each other card, so they cannot be traded by name). Deal 1 gives 6 cards one at a time
    // from the dealer's (seat 0's) left.
    let hand_places: Vec<usize> = (0..6).map(|k| k * 4 + usize::from(seat.0) - 1).collect();
    let nines = ["9C", "9D", "9H"].map(|c| c.parse::<engine::Card>().expect("a card"));
    let free_places: Vec<usize> = hand_places
        .into_iter()
        .filter(|&i| !nines.contains(&deck[i]))
        .collect();
    let jokers: Vec<usize> = (25..deck.len()).filter(|&i| deck[i].is_joker()).collect();
    for (&place, &joker) in free_places.iter().zip(&jokers).take(3) {
        deck.swap(place, joker);
    }
    let deck: Vec<String> = deck.iter().map(ToString::to_string).collect();
    let table = create(app, "push", 4, 1, json!({"stacked_decks": [deck]})).await;
    let seat = usize::from(seat.0);
    let game = format!("/v1/games/{}", table.id);
    let token = &table.tokens[seat];
    let drawn = app
        .post_as(&format!("{game}/draw"), token, &json!({"source": "discard"}), &[])
        .await
        .ok("taking the upcard");
    let hand = drawn["you"]["hand"].as_array().expect("hand").clone();
    let down = app
        .post_as(
            &format!("{game}/melds"),
            token,
            &json!({"melds": [
                {"cards": ["JK", "JK", "JK"], "kind": "set"},
                {"cards": ["9C", "9D", "9H"]}
            ]}),
            &[],
        )
        .await
        .ok("going down with a set of three jokers");
    let jokers = &down["table"][0];
    assert_eq!(jokers["kind"], "set", "{down}");
    let upcard = down["you"]["hand"][0].as_str().expect("one card left").to_owned();
    assert!(hand.contains(&json!(upcard)));
    // Laying off the last card goes out; the event holds the set as it then lay.
    app.post_as(
        &format!("{game}/layoffs"),
        token,
        &json!({"meld_id": jokers["id"], "cards": [upcard]}),
        &[],
    )
    .await
    .ok("laying a natural off on the jokers");
    let laid = app.events_of(&table, seat, "laid_off").await;
    let set = &laid.first().expect("a laid_off event")["reading"];
    let rank = &upcard[..1];
    assert_eq!(set["rank"], rank, "§5 the natural fixes the rank: {set}");
    assert!(
        set["slots"]
            .as_array()
            .expect("slots")
            .iter()
            .all(|s| s["represents"] == rank),
        "§5 every joker now stands for that rank: {set}"
    );
}
on_every_backend!(
    an_all_wild_push_set_takes_its_rank_from_a_natural_on_every_backend,
    an_all_wild_push_set_takes_its_rank_from_a_natural
);

/// The rules of `variant` with every option at its default.
fn defaults(variant: Variant) -> engine::Ruleset {
    engine::Ruleset::default_for(variant)
}

/// Posts each `(action path, body)` in order as `token`'s seat in `game` (its path); each
/// must be accepted.
async fn play<const N: usize>(app: &TestApp, game: &str, token: &str, steps: [(&str, Value); N]) {
    for (path, body) in steps {
        app.post_as(&format!("{game}/{path}"), token, &body, &[])
            .await
            .ok(path);
    }
}

/// A 2-player `may_i` game between deals 1 and 2: seat 1 went out in its first turn.
async fn may_i_between_deals(app: &TestApp) -> Table {
    may_i_between_deals_with(app, json!({})).await
}

/// docs/rules.md#suspension and docs/api.md#endpoints: between deals each seat asks to suspend;
/// when all have, the game is `suspended` and only `resume` is accepted; when all have asked to
/// resume, play goes on.
async fn suspend_and_resume(app: &TestApp) {
    let table = may_i_between_deals(app).await;
    let game = format!("/v1/games/{}", table.id);
    let post = |seat: usize, path: &'static str, headers: &'static [(&'static str, &'static str)]| {
        let url = format!("{game}/{path}");
        let token = table.tokens[seat].clone();
        async move { app.post_as(&url, &token, &json!({}), headers).await }
    };
    let view = app.get_as(&game, &table.tokens[0]).await.json();
    assert!(
        view["legal_actions"]
            .as_array()
            .expect("actions")
            .contains(&json!({"type": "suspend"})),
        "§2 suspend is offered between deals: {view}"
    );
    const KEYED: &[(&str, &str)] = &[("idempotency-key", "suspend-0")];
    let first = post(0, "suspend", KEYED).await.ok("seat 0 asks to suspend");
    assert_eq!(first["suspend_requests"], json!([0]), "{first}");
    assert_eq!(first["status"], "playing", "§2 not before every seat agrees");
    let again = post(0, "suspend", KEYED).await.ok("the same request again");
    assert_eq!(
        again, first,
        "a retry with the same Idempotency-Key gets the first answer"
    );
    post(0, "suspend", &[])
        .await
        .assert_problem(409, "already_asked", "asked once");
    // If-Match as for every move: an old version changes nothing.
    post(1, "suspend", &[("if-match", "\"1\"")]).await.assert_problem(
        412,
        "stale_version",
        "If-Match with an old version",
    );
    let suspended = post(1, "suspend", &[]).await.ok("seat 1 asks to suspend");
    assert_eq!(
        suspended["status"], "suspended",
        "§2 every seat agreed: {suspended}"
    );
    assert_eq!(suspended["suspend_requests"], json!([]));
    assert!(
        suspended["seed"].is_null(),
        "the seed stays secret while suspended"
    );
    assert_eq!(suspended["legal_actions"], json!([{"type": "resume"}]));
    let listed = app.get_as(&game, &table.tokens[0]).await.json();
    assert_eq!(listed["status"], "suspended", "the stored status: {listed}");
    let first_player = (listed["dealer"].as_u64().expect("a dealer") as usize + 1) % 2;
    let stock = draw(DrawSource::Stock);
    app.act(&table, first_player, &stock, &[]).await.assert_problem(
        409,
        "game_suspended",
        "§2 nothing but resume",
    );
    let one = post(1, "resume", &[]).await.ok("seat 1 is back");
    assert_eq!(
        (one["status"].clone(), one["resume_requests"].clone()),
        (json!("suspended"), json!([1]))
    );
    let back = post(0, "resume", &[]).await.ok("seat 0 is back");
    assert_eq!(back["status"], "playing", "§2 every seat is back: {back}");
    assert_eq!(back["resume_requests"], json!([]));
    app.act(&table, first_player, &stock, &[])
        .await
        .ok("play goes on");
    post(0, "suspend", &[])
        .await
        .assert_problem(409, "not_between_deals", "§2 not in the middle of a deal");
    post(0, "resume", &[])
        .await
        .assert_problem(409, "not_suspended", "nothing to resume");
}
on_every_backend!(suspend_and_resume_on_every_backend, suspend_and_resume);

/// Leaves one card (or none) in a stored game's stock, the rest set aside for seat 0, so that
/// every card is still counted.
async fn stock_down_to(app: &TestApp, id: &str, keep: usize) {
    edit_state(app, id, |v| {
        let game = &mut v["game"];
        let mut stock = game["stock"].as_array().expect("a stock").clone();
        let kept = stock.split_off(stock.len() - keep);
        game["stock"] = Value::Array(kept);
        game["set_aside"][0] = Value::Array(stock);
    })
    .await;
}

/// docs/rules.md#suspension: a suspended game resumes only within the calendar year (UTC) it
/// started in.
async fn resuming_after_the_year_is_refused(app: &TestApp) {
    let table = may_i_between_deals(app).await;
    let game = format!("/v1/games/{}", table.id);
    for seat in 0..2 {
        app.post_as(&format!("{game}/suspend"), &table.tokens[seat], &json!({}), &[])
            .await
            .ok("suspend");
    }
    // The game started in 2000 (the service stamps the year it was created in).
    edit_state(app, &table.id, |v| {
        v["config"]["start_year"] = json!(2000);
        v["game"]["config"]["start_year"] = json!(2000);
    })
    .await;
    let refused = app
        .post_as(&format!("{game}/resume"), &table.tokens[0], &json!({}), &[])
        .await;
    refused.assert_problem(409, "suspension_expired", "§2 the year it started in is over");
    let view = app.get_as(&game, &table.tokens[0]).await.json();
    assert_eq!(
        (view["status"].clone(), view["resume_requests"].clone()),
        (json!("suspended"), json!([])),
        "nothing changed: {view}"
    );
}
on_every_backend!(
    resuming_after_the_year_is_refused_on_every_backend,
    resuming_after_the_year_is_refused
);

/// Bots go along: a person's request to suspend or resume is seconded by every bot seat.
async fn bots_second_suspend_and_resume(app: &TestApp) {
    // Deal 1: Ann (seat 0, first to play) goes out at once. Deal 2: Ben (seat 1) leads, and
    // the upcard fits nothing in the bot's hand, so the bot does not claim it.
    let deal1 = dealt_deck(&defaults(Variant::MayI), (3, 2, 0), QUICK_OUT, "", "9C");
    let deal2 = dealt_deck(
        &defaults(Variant::MayI),
        (3, 0, 2),
        "2C 4D 6H 8C TC QD 3H 5D 7C JH KD 4H",
        "9S",
        "",
    );
    let body = json!({"variant": "may_i", "seats": [{"name": "Ann"}, {"name": "Ben"}, {"bot": true}],
        "seed": 5, "first_dealer": 2, "stacked_decks": [deal1, deal2]});
    let created = app.post("/v1/games", &body).await;
    assert_eq!(created.status.as_u16(), 201, "{}", created.text());
    let table = Table::of_created(&created.json());
    let game = table.path();
    go_out_quickly(app, &table, 0).await;
    let post = |seat: usize, path: &'static str| {
        let url = format!("{game}/{path}");
        let token = &table.tokens[seat];
        async move { app.post_as(&url, token, &json!({}), &[]).await }
    };
    let asked = post(0, "suspend").await.ok("Ann asks to suspend");
    assert_eq!(
        asked["suspend_requests"],
        json!([0, 2]),
        "the bot seconds Ann: {asked}"
    );
    let suspended = post(1, "suspend").await.ok("Ben asks to suspend");
    assert_eq!(suspended["status"], "suspended", "{suspended}");
    let asked = post(1, "resume").await.ok("Ben asks to resume");
    assert_eq!(
        asked["resume_requests"],
        json!([1, 2]),
        "the bot seconds Ben: {asked}"
    );
    let resumed = post(0, "resume").await.ok("Ann asks to resume");
    assert_eq!(resumed["status"], "playing", "{resumed}");
    // A suspension is a pause: the log (and so the webhook) announces no end of the game.
    let finished = app.events_of(&table, 0, "game_finished").await;
    assert!(finished.is_empty(), "{finished:?}");
}
on_every_backend!(
    bots_second_suspend_and_resume_on_every_backend,
    bots_second_suspend_and_resume
);

/// A house option: claims on the deal's first upcard (default allowed), listed by
/// `GET /v1/rulesets` for the variants with claims and honoured by a game created with it off.
async fn first_upcard_claims_is_a_listed_option(app: &TestApp) {
    let catalogue = app.get("/v1/rulesets").await.json();
    for variant in catalogue["variants"].as_array().expect("variants") {
        let option = variant["options"]
            .as_array()
            .expect("options")
            .iter()
            .find(|o| o["name"] == "first_upcard_claims")
            .cloned();
        let claims = matches!(variant["variant"].as_str(), Some("may_i" | "contract_7"));
        assert_eq!(
            option.map(|o| o["default"].clone()),
            claims.then_some(json!(true)),
            "listed, default on, where there are claims: {variant}"
        );
    }
    for on in [true, false] {
        let table = create(
            app,
            "may_i",
            3,
            1,
            json!({"options": {"first_upcard_claims": on}}),
        )
        .await;
        let game = format!("/v1/games/{}", table.id);
        let view = app.get_as(&game, &table.tokens[0]).await.json();
        // A seat that is not in turn asks for the upcard before anyone draws.
        let other = (view["turn"]["seat"].as_u64().expect("a seat in turn") as usize + 1) % 3;
        let reply = app
            .post_as(&format!("{game}/claims"), &table.tokens[other], &json!({}), &[])
            .await;
        if on {
            reply.ok("claiming the first upcard");
        } else {
            reply.assert_problem(422, "claim_not_allowed", "the first upcard is not on offer");
        }
    }
}
on_every_backend!(
    first_upcard_claims_is_a_listed_option_on_every_backend,
    first_upcard_claims_is_a_listed_option
);

/// The choices docs/rules.md writes down, through HTTP. `push`: more melds than the contract in one
/// request are refused; the extra meld follows in a second request of the same turn.
async fn push_extra_melds_follow_the_contract(app: &TestApp) {
    let rules = engine::Ruleset::new(Variant::Push, Some(json!({"ten_every_deal": true}))).expect("rules");
    let deck = dealt_deck(&rules, (4, 0, 1), "3C 3D 3S 4C 4D 4S 5C 5D 5S 9H", "KS", "");
    let table = create(
        app,
        "push",
        4,
        1,
        json!({"options": {"ten_every_deal": true}, "stacked_decks": [deck]}),
    )
    .await;
    let game = format!("/v1/games/{}", table.id);
    let post = |path: &'static str, body: Value| {
        let url = format!("{game}/{path}");
        let token = table.tokens[1].clone();
        async move { app.post_as(&url, &token, &body, &[]).await }
    };
    post("draw", json!({"source": "discard"})).await.ok("draw");
    let sets = |list: &[&str]| json!({"melds": list.iter().map(|m| json!({"cards": m.split(' ').collect::<Vec<_>>()})).collect::<Vec<_>>()});
    post("melds", sets(&["3C 3D 3S", "4C 4D 4S", "5C 5D 5S"]))
        .await
        .assert_problem(422, "contract_not_met", "deal 1 is exactly two sets");
    post("melds", sets(&["3C 3D 3S", "4C 4D 4S"]))
        .await
        .ok("going down");
    let third = post("melds", sets(&["5C 5D 5S"])).await.ok("the third set");
    assert_eq!(third["table"].as_array().map(Vec::len), Some(3), "{third}");
}
on_every_backend!(
    push_extra_melds_follow_the_contract_on_every_backend,
    push_extra_melds_follow_the_contract
);

/// `push`: the push draw with one stock card left sends the top discard and that card left,
/// then the drawer finds the stock empty and the deal ends; both teams score.
async fn push_draw_with_one_stock_card_left(app: &TestApp) {
    let deck = dealt_deck(&defaults(Variant::Push), (4, 0, 1), "", "9C", "");
    let table = create(app, "push", 4, 1, json!({"stacked_decks": [deck]})).await;
    stock_down_to(app, &table.id, 1).await;
    let game = format!("/v1/games/{}", table.id);
    let left = app.get_as(&game, &table.tokens[2]).await.json();
    let left_hand = left["you"]["hand"].as_array().map_or(0, Vec::len);
    let drew = app
        .post_as(
            &format!("{game}/draw"),
            &table.tokens[1],
            &json!({"source": "stock"}),
            &[],
        )
        .await
        .ok("the push draw");
    assert_eq!(drew["deal"], 2, "§5 the stock ran out: the deal ended: {drew}");
    let ended = app.events_of(&table, 2, "deal_ended").await;
    let ended = ended.first().expect("a deal_ended event");
    assert_eq!(ended["end"]["type"], "stock_exhausted", "{ended}");
    assert_eq!(
        ended["hands"][2].as_array().map(Vec::len),
        Some(left_hand + 2),
        "the pushed cards count in the left player's hand: {ended}"
    );
    let scores = ended["scores"].as_array().expect("scores");
    assert!(
        scores[0] == scores[2]
            && scores[1] == scores[3]
            && scores[0].as_i64() > Some(0)
            && scores[1].as_i64() > Some(0),
        "§5 both teams score: {ended}"
    );
}
on_every_backend!(
    push_draw_with_one_stock_card_left_on_every_backend,
    push_draw_with_one_stock_card_left
);

/// `push`: a leaver's set-aside hand still counts for the team in the deal they left, with
/// the partner's; the team's score is added to the partner's total only.
async fn push_leaver_in_partnerships(app: &TestApp) {
    let deck = dealt_deck(&defaults(Variant::Push), (4, 0, 1), "3C 3D 3S 4C 4D 4S", "9C", "");
    let table = create(app, "push", 4, 1, json!({"stacked_decks": [deck]})).await;
    let game = format!("/v1/games/{}", table.id);
    let rules = defaults(Variant::Push);
    let hand_value = |view: Value| -> i32 {
        view["you"]["hand"]
            .as_array()
            .expect("a hand")
            .iter()
            .map(|c| {
                let card: engine::Card = c.as_str().expect("a card").parse().expect("a card");
                rules.card_value(card).expect("a value")
            })
            .sum()
    };
    let leaver = hand_value(app.get_as(&game, &table.tokens[2]).await.json());
    app.post_as(&format!("{game}/leave"), &table.tokens[2], &json!({}), &[])
        .await
        .ok("seat 2 leaves");
    let partner = hand_value(app.get_as(&game, &table.tokens[0]).await.json());
    play(
        app,
        &game,
        &table.tokens[1],
        [
            ("draw", json!({"source": "discard"})),
            (
                "melds",
                json!({"melds": [{"cards": ["3C", "3D", "3S"]}, {"cards": ["4C", "4D", "4S"]}]}),
            ),
            ("discard", json!({"card": "9C"})),
        ],
    )
    .await;
    let view = app.get_as(&game, &table.tokens[0]).await.json();
    assert_eq!(
        view["scores"][0],
        json!([partner + leaver, 0, 0, 0]),
        "the partner's hand and the leaver's set-aside hand, to the partner alone: {view}"
    );
}
on_every_backend!(
    push_leaver_in_partnerships_on_every_backend,
    push_leaver_in_partnerships
);

/// `continental`: a deal with no winner (no stock left) passes the deal to the left.
async fn continental_deal_without_winner_passes_left(app: &TestApp) {
    let deck = dealt_deck(&defaults(Variant::Continental), (3, 0, 1), "", "KS", "");
    let table = create(
        app,
        "continental",
        3,
        1,
        json!({"options": {"deals": 2}, "stacked_decks": [deck]}),
    )
    .await;
    stock_down_to(app, &table.id, 0).await;
    let game = format!("/v1/games/{}", table.id);
    let drew = app
        .post_as(
            &format!("{game}/draw"),
            &table.tokens[1],
            &json!({"source": "stock"}),
            &[],
        )
        .await
        .ok("a draw from no stock");
    assert_eq!(
        (
            drew["deal"].clone(),
            drew["dealer"].clone(),
            drew["scores"][0].clone()
        ),
        (json!(2), json!(1), json!([0, 0, 0])),
        "no winner, no payments, the deal passes left: {drew}"
    );
}
on_every_backend!(
    continental_deal_without_winner_passes_left_on_every_backend,
    continental_deal_without_winner_passes_left
);

/// docs/rules.md#suspension: a game resumes within the calendar year it *started* in, which for a
/// game that waited for players is the year its last seat was taken, not the year it was created
/// in.
async fn the_start_year_is_the_year_the_last_seat_is_taken(app: &TestApp) {
    let deck = dealt_deck(&defaults(Variant::MayI), (2, 0, 1), QUICK_OUT, "", "9C");
    let body = json!({"variant": "may_i", "seats": [{"name": "Ann"}, {"open": true}],
        "seed": 1, "first_dealer": 0, "stacked_decks": [deck]});
    let created = app.post("/v1/games", &body).await;
    assert_eq!(created.status.as_u16(), 201, "{}", created.text());
    let created = created.json();
    assert_eq!(created["status"], "waiting", "{created}");
    let id = created["id"].as_str().expect("id").to_owned();
    // Created on 31 December 2000, say: whatever year creation stamped is that one.
    edit_state(app, &id, |v| v["config"]["start_year"] = json!(2000)).await;
    let joined = app
        .post(&format!("/v1/games/{id}/join"), &json!({"name": "Ben"}))
        .await
        .ok("Ben takes the last seat");
    assert_eq!(joined["status"], "playing", "the game starts now: {joined}");
    let table = Table {
        id,
        tokens: vec![
            created["seats"][0]["token"].as_str().expect("a token").to_owned(),
            joined["token"].as_str().expect("a token").to_owned(),
        ],
    };
    let game = format!("/v1/games/{}", table.id);
    go_out_quickly(app, &table, 1).await;
    for (path, seat) in [("suspend", 0), ("suspend", 1), ("resume", 0)] {
        app.post_as(&format!("{game}/{path}"), &table.tokens[seat], &json!({}), &[])
            .await
            .ok(path);
    }
    let back = app
        .post_as(&format!("{game}/resume"), &table.tokens[1], &json!({}), &[])
        .await
        .ok("§2 resumed within the year the game started in (this one)");
    assert_eq!(back["status"], "playing", "{back}");
}
on_every_backend!(
    the_start_year_is_the_year_the_last_seat_is_taken_on_every_backend,
    the_start_year_is_the_year_the_last_seat_is_taken
);

/// The limit bots set on docs/rules.md#suspension (written there): the server's bots play as soon
/// as their turn comes, so when a bot leads the next deal its first move ends the moment
/// between deals before a person can ask to suspend.
async fn a_bot_leading_the_next_deal_leaves_no_moment_to_suspend(app: &TestApp) {
    // Deal 1: Ben (seat 1) leads and goes out at once; deal 2: the bot (seat 2) leads. No
    // claim on a deal's first upcard, so the bot cannot take deal 1's stock card.
    let deck = dealt_deck(&defaults(Variant::MayI), (3, 0, 1), QUICK_OUT, "", "9C");
    let body = json!({"variant": "may_i", "seats": [{"name": "Ann"}, {"name": "Ben"}, {"bot": true}],
        "seed": 5, "first_dealer": 0, "options": {"first_upcard_claims": false},
        "stacked_decks": [deck]});
    let created = app.post("/v1/games", &body).await;
    assert_eq!(created.status.as_u16(), 201, "{}", created.text());
    let table = Table::of_created(&created.json());
    let game = format!("/v1/games/{}", table.id);
    go_out_quickly(app, &table, 1).await;
    // At a person's table the bot's first move comes at its pace, after the deal.
    crate::helpers::eventually(
        std::time::Duration::from_secs(20),
        "the bot draws in deal 2",
        async || {
            let drew = app.events_of(&table, 0, "drew").await;
            match drew.last().map(|e| e["seat"].clone()) {
                Some(seat) if seat == json!(2) => Ok(()),
                _ => Err(drew),
            }
        },
    )
    .await;
    let view = app.get_as(&game, &table.tokens[0]).await.json();
    assert_eq!(view["deal"], 2, "Ben went out: {view}");
    assert!(
        !view["legal_actions"]
            .as_array()
            .expect("actions")
            .contains(&json!({"type": "suspend"})),
        "no suspend offered: {view}"
    );
    for seat in 0..2 {
        app.post_as(&format!("{game}/suspend"), &table.tokens[seat], &json!({}), &[])
            .await
            .assert_problem(409, "not_between_deals", "the bot's move began deal 2");
    }
}
on_every_backend!(
    a_bot_leading_the_next_deal_leaves_no_moment_to_suspend_on_every_backend,
    a_bot_leading_the_next_deal_leaves_no_moment_to_suspend
);

/// docs/rules.md#suspension: suspending is `may_i`'s alone; the other variants refuse it as a move
/// their rules do not have (a game there is never suspended, so there is nothing to resume).
async fn suspend_is_may_i_only(app: &TestApp) {
    for (variant, players) in [("push", 4), ("continental", 2), ("contract_7", 2)] {
        let table = create(app, variant, players, 1, json!({})).await;
        let game = format!("/v1/games/{}", table.id);
        for (path, status, code) in [
            ("suspend", 422, "not_in_variant"),
            // As docs/rules.md#suspension says: such a game is never suspended.
            ("resume", 409, "not_suspended"),
        ] {
            app.post_as(&format!("{game}/{path}"), &table.tokens[0], &json!({}), &[])
                .await
                .assert_problem(status, code, &format!("{variant}: {path}"));
        }
    }
}
on_every_backend!(suspend_is_may_i_only_on_every_backend, suspend_is_may_i_only);

/// docs/rules.md#suspension: while suspended, nothing but `resume`: not leaving, not a claim.
async fn nothing_but_resume_while_suspended(app: &TestApp) {
    let table = may_i_between_deals(app).await;
    let game = format!("/v1/games/{}", table.id);
    for seat in 0..2 {
        app.post_as(&format!("{game}/suspend"), &table.tokens[seat], &json!({}), &[])
            .await
            .ok("suspend");
    }
    for seat in 0..2 {
        for path in ["leave", "claims"] {
            app.post_as(&format!("{game}/{path}"), &table.tokens[seat], &json!({}), &[])
                .await
                .assert_problem(409, "game_suspended", &format!("seat {seat}: {path}"));
        }
    }
    let view = app.get_as(&game, &table.tokens[0]).await.json();
    assert_eq!(view["status"], "suspended", "nothing changed: {view}");
    assert_eq!(
        view["players"]
            .as_array()
            .expect("players")
            .iter()
            .filter(|p| p["left"] == true)
            .count(),
        0,
        "no one left: {view}"
    );
}
on_every_backend!(
    nothing_but_resume_while_suspended_on_every_backend,
    nothing_but_resume_while_suspended
);

/// docs/rules.md#readings through HTTP in `may_i`: going down with the run `5S AH 7S JK 9S`, the
/// wilds fill the inner gaps in the order they were laid (AH is 6S, JK is 8S): no `ambiguous_meld`.
async fn may_i_inner_gaps_take_the_wilds_in_order(app: &TestApp) {
    // Deal 2 (one set and one run): seat 0 leads, dealt by seat 1.
    let deal2 = dealt_deck(
        &defaults(Variant::MayI),
        (2, 1, 0),
        "5S AH 7S JK 9S 8C 8D 8H KC QD 3H 4D",
        "TC",
        "6C",
    );
    let table = may_i_between_deals_with(app, json!({"stacked_decks": [deal2]})).await;
    let game = format!("/v1/games/{}", table.id);
    let token = &table.tokens[0];
    app.post_as(&format!("{game}/draw"), token, &json!({"source": "stock"}), &[])
        .await
        .ok("draw");
    let down = app
        .post_as(
            &format!("{game}/melds"),
            token,
            &json!({"melds": [{"cards": ["5S", "AH", "7S", "JK", "9S"]}, {"cards": ["8C", "8D", "8H"]}]}),
            &[],
        )
        .await
        .ok("going down with the run and the set");
    assert_eq!(down["table"].as_array().map(Vec::len), Some(2), "{down}");
    let melded = app.events_of(&table, 0, "melded").await;
    let run = &melded.last().expect("a melded event")["melds"][0]["reading"];
    assert_eq!(
        places(run),
        ["5S=5S", "AH=6S", "7S=7S", "JK=8S", "9S=9S"],
        "§1 the red ace, laid first, fills the first gap: {run}"
    );
}
on_every_backend!(
    may_i_inner_gaps_take_the_wilds_in_order_on_every_backend,
    may_i_inner_gaps_take_the_wilds_in_order
);

/// docs/rules.md#push-wilds: once a natural laid off in an earlier turn has given an all-wild set
/// its rank, a natural of another rank no longer fits it.
async fn an_all_wild_push_set_keeps_the_rank_its_first_natural_gave(app: &TestApp) {
    let options = json!({"ten_every_deal": true});
    let rules = engine::Ruleset::new(Variant::Push, Some(options.clone())).expect("rules");
    let deck = dealt_deck(&rules, (4, 0, 1), "JK JK JK 4C 4D 4S 9C KD QS 5H", "TS", "");
    let table = create(
        app,
        "push",
        4,
        1,
        json!({"options": options, "stacked_decks": [deck]}),
    )
    .await;
    let game = format!("/v1/games/{}", table.id);
    let take = ("draw", json!({"source": "discard"}));
    let throw = ("discard", json!({"card": "QS"}));
    play(app, &game, &table.tokens[1], [take.clone()]).await;
    let down = app
        .post_as(
            &format!("{game}/melds"),
            &table.tokens[1],
            &json!({"melds": [
                {"cards": ["JK", "JK", "JK"], "kind": "set"},
                {"cards": ["4C", "4D", "4S"]}
            ]}),
            &[],
        )
        .await
        .ok("going down with a set of three jokers");
    let set = down["table"][0]["id"].clone();
    let nine = ("layoffs", json!({"meld_id": set, "cards": ["9C"]}));
    play(app, &game, &table.tokens[1], [nine, throw.clone()]).await;
    // The others take the queen and throw it back; seat 1 takes it again.
    for seat in [2, 3, 0] {
        play(app, &game, &table.tokens[seat], [take.clone(), throw.clone()]).await;
    }
    play(app, &game, &table.tokens[1], [take]).await;
    for card in ["KD", "QS"] {
        app.post_as(
            &format!("{game}/layoffs"),
            &table.tokens[1],
            &json!({"meld_id": set, "cards": [card]}),
            &[],
        )
        .await
        .assert_problem(422, "illegal_meld", &format!("§5 {card} on a set of nines"));
    }
}
on_every_backend!(
    an_all_wild_push_set_keeps_the_rank_its_first_natural_gave_on_every_backend,
    an_all_wild_push_set_keeps_the_rank_its_first_natural_gave
);

/// The page marks wild cards from the server's list (`wilds` in every view), never from rules of
/// its own: `may_i` with `deuces_wild` lists the deuces beside its red aces and jokers.
async fn every_view_lists_the_games_wild_cards(app: &TestApp) {
    let rows: [(&str, Value, &[&str]); 3] = [
        ("may_i", json!({}), &["AD", "AH", "JK"]),
        (
            "may_i",
            json!({"options": {"deuces_wild": true}}),
            &["2C", "2D", "2H", "2S", "AD", "AH", "JK"],
        ),
        ("contract_7", json!({}), &["JK"]),
    ];
    for (variant, extra, wilds) in rows {
        let table = create(app, variant, 3, 7, extra.clone()).await;
        let view = app.view(&table, 0).await.ok("a view");
        let mut listed: Vec<&str> = view["wilds"]
            .as_array()
            .expect("wilds")
            .iter()
            .filter_map(Value::as_str)
            .collect();
        listed.sort_unstable();
        assert_eq!(listed, wilds, "{variant} {extra}");
    }
}
on_every_backend!(
    every_view_lists_the_games_wild_cards_on_every_backend,
    every_view_lists_the_games_wild_cards
);
