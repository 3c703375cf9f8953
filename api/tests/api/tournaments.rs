//! A studio's tournaments (docs/tournaments.md): made, listed, read and cancelled; entered and
//! withdrawn from; started by the service at their time, once across replicas, every table of
//! a duplicate round on the same deals; played out at a round's deadline; on SQLite and
//! PostgreSQL.

use std::collections::{BTreeMap, BTreeSet};
use std::time::Duration;

use serde_json::{Value, json};

use continental::config::AsyncSettings;

use crate::helpers::{
    ACME, BETA, Receiver, STUDIO_KEYS, Spawn, TestApp, backends, eventually, on_game_rows,
    on_studio_backends, server_backends, test_async, verified_by_the_library, verifies,
};

const TOURNAMENTS: &str = "/v1/tournaments";

/// How far ahead the tests' tournaments start: time enough to enter a field on a loaded
/// machine (an entry after the start is refused).
const START_MS: i64 = 5_000;

/// How long a tournament of the tests may take to move on: a bound, not a measure.
const WITHIN: Duration = Duration::from_secs(60);

/// An RFC 3339 time `ms` from now.
fn in_ms(ms: i64) -> String {
    let at = time::OffsetDateTime::now_utc() + time::Duration::milliseconds(ms);
    at.format(&time::format_description::well_known::Rfc3339)
        .expect("a time")
}

/// A duplicate `may_i` tournament of `rounds` rounds at tables of four, starting `start_ms`
/// from now; a turn clock of 600 test seconds (no one times out in these tests) and rounds of
/// 300 (3 s of the tests' 10 ms seconds), after which autopilot plays every table out.
fn body(rounds: u32, start_ms: i64) -> Value {
    json!({
        "name": "Friday cup", "variant": "may_i", "table_size": 4, "format": "duplicate",
        "rounds": rounds, "deals_per_round": 7, "starts_at": in_ms(start_ms), "max_entrants": 16,
        "turn_seconds": 600, "round_seconds": 300, "bot_level": "easy",
        "options": {"bot_pace_ms": 0, "claim_window_seconds": 0}
    })
}

/// Makes a tournament with `key`; it must answer 201. Returns it.
async fn make(app: &TestApp, key: &str, body: &Value) -> Value {
    let reply = app.post_with_key(TOURNAMENTS, key, body, &[]).await;
    assert_eq!(reply.status.as_u16(), 201, "{body}: {}", reply.text());
    let made = reply.json()["tournament"].clone();
    assert_eq!(
        reply.header("location").as_deref(),
        Some(format!("{TOURNAMENTS}/{}", made["id"].as_str().expect("an id")).as_str()),
        "the Location of the tournament"
    );
    made
}

/// Enters `player` into tournament `id` with `key`; it must answer 201. Returns the entry.
async fn enter(app: &TestApp, key: &str, id: &str, player: &str) -> Value {
    let body = json!({"player": player, "name": format!("Player {player}")});
    let reply = app
        .post_with_key(&format!("{TOURNAMENTS}/{id}/entries"), key, &body, &[])
        .await;
    assert_eq!(reply.status.as_u16(), 201, "enter {player}: {}", reply.text());
    reply.json()
}

async fn delete(app: &TestApp, path: &str, key: Option<&str>) -> crate::helpers::Reply {
    let headers: Vec<(&str, &str)> = key.map(|k| ("x-api-key", k)).into_iter().collect();
    app.send("DELETE", path, None, &headers).await
}

#[actix_web::test]
async fn tournaments_are_made_listed_read_and_cancelled() {
    on_studio_backends(async |app, _| {
        let first = make(app, ACME, &body(2, 3_600_000)).await;
        assert_eq!(first["status"], "open", "{first}");
        assert_eq!(first["round"], 0);
        assert_eq!(first["entrants"], 0);
        assert_eq!(first["turn_seconds"], 600);
        let id = first["id"].as_str().expect("an id").to_owned();

        // The same Idempotency-Key answers the same tournament, and makes no second one.
        let keyed = [("idempotency-key", "cup-2")];
        let again = body(1, 3_600_000);
        let a = app.post_with_key(TOURNAMENTS, ACME, &again, &keyed).await;
        let b = app.post_with_key(TOURNAMENTS, ACME, &again, &keyed).await;
        assert_eq!(a.status.as_u16(), 201, "{}", a.text());
        assert_eq!(a.json(), b.json(), "a retry answers as the first did");
        let second = a.json()["tournament"].clone();

        let read = app.get_with_key(&format!("{TOURNAMENTS}/{id}"), ACME).await;
        assert_eq!(read.json(), first, "read as made");
        let theirs = app.get_with_key(&format!("{TOURNAMENTS}/{id}"), BETA).await;
        theirs.assert_problem(404, "tournament_not_found", "another tenant's tournament");

        // Two pages of one, newest first, then none.
        let page = app
            .get_with_key(&format!("{TOURNAMENTS}?limit=1"), ACME)
            .await
            .json();
        assert_eq!(page["tournaments"][0]["id"], second["id"], "{page}");
        let cursor = page["next_cursor"].as_str().expect("a next page").to_owned();
        let next = app
            .get_with_key(&format!("{TOURNAMENTS}?limit=1&cursor={cursor}"), ACME)
            .await
            .json();
        assert_eq!(next["tournaments"][0]["id"], first["id"], "{next}");
        assert!(next["next_cursor"].is_null(), "the last page: {next}");
        let stolen = app
            .get_with_key(&format!("{TOURNAMENTS}?limit=1&cursor={cursor}"), BETA)
            .await;
        stolen.assert_problem(400, "invalid_cursor", "another tenant's cursor");
        let none = app.get_with_key(TOURNAMENTS, BETA).await.json();
        assert_eq!(none["tournaments"], json!([]), "beta has none: {none}");

        let path = format!("{TOURNAMENTS}/{id}");
        delete(app, &path, Some(BETA)).await.assert_problem(
            404,
            "tournament_not_found",
            "another tenant cancels",
        );
        assert_eq!(delete(app, &path, Some(ACME)).await.status.as_u16(), 204);
        assert_eq!(
            delete(app, &path, Some(ACME)).await.status.as_u16(),
            204,
            "cancelled twice"
        );
        let read = app.get_with_key(&path, ACME).await.json();
        assert_eq!(read["status"], "cancelled", "{read}");
        let entry = app
            .post_with_key(
                &format!("{path}/entries"),
                ACME,
                &json!({"player": "u-1", "name": "Ann"}),
                &[],
            )
            .await;
        entry.assert_problem(
            409,
            "tournament_cancelled",
            "an entry into a cancelled tournament",
        );
    })
    .await;
}

#[actix_web::test]
async fn bad_tournaments_are_refused_with_a_reason_and_nothing_is_made() {
    on_studio_backends(async |app, _| {
        let with = |change: fn(&mut Value)| {
            let mut b = body(2, 3_600_000);
            change(&mut b);
            b
        };
        let cases: Vec<(Value, u16, &str, &str)> = vec![
            (
                with(|b| b["table_size"] = json!(9)),
                422,
                "size_not_seated",
                "nine at a may_i table",
            ),
            (
                with(|b| b["table_size"] = json!(1)),
                422,
                "size_not_seated",
                "one at a table",
            ),
            (
                with(|b| b["starts_at"] = json!(in_ms(-60_000))),
                422,
                "start_in_past",
                "a start that has passed",
            ),
            (
                with(|b| b["starts_at"] = json!("tomorrow")),
                400,
                "invalid_start",
                "a start that is not RFC 3339",
            ),
            (
                with(|b| b["rounds"] = json!(0)),
                422,
                "invalid_rounds",
                "no round",
            ),
            (
                with(|b| b["rounds"] = json!(21)),
                422,
                "invalid_rounds",
                "too many rounds",
            ),
            (
                with(|b| b["deals_per_round"] = json!(3)),
                422,
                "invalid_deals_per_round",
                "three deals of may_i",
            ),
            (
                with(|b| b["max_entrants"] = json!(1)),
                422,
                "invalid_max_entrants",
                "a field of one",
            ),
            (
                with(|b| b["max_entrants"] = json!(10_001)),
                422,
                "invalid_max_entrants",
                "over the cap",
            ),
            (
                with(|b| b["turn_seconds"] = json!(1)),
                422,
                "invalid_turn_seconds",
                "a turn of a second",
            ),
            (
                with(|b| b["round_seconds"] = json!(10)),
                422,
                "invalid_round_seconds",
                "a round of ten seconds",
            ),
            (
                with(|b| b["bot_level"] = json!("grandmaster")),
                400,
                "invalid_body",
                "no such level",
            ),
            (
                with(|b| b["format"] = json!("swiss")),
                400,
                "invalid_body",
                "no such format",
            ),
            (
                with(|b| {
                    b.as_object_mut().expect("an object").remove("turn_seconds");
                }),
                400,
                "invalid_body",
                "no turn clock",
            ),
            (with(|b| b["name"] = json!("")), 400, "invalid_name", "no name"),
        ];
        for (bad, status, code, what) in cases {
            let reply = app.post_with_key(TOURNAMENTS, ACME, &bad, &[]).await;
            reply.assert_problem(status, code, what);
        }
        let unkeyed = app.post(TOURNAMENTS, &body(2, 3_600_000)).await;
        unkeyed.assert_problem(401, "unauthorized", "no server key");
        let listed = app.get_with_key(TOURNAMENTS, ACME).await.json();
        assert_eq!(listed["tournaments"], json!([]), "nothing was made: {listed}");
    })
    .await;
}

#[actix_web::test]
async fn a_server_without_keys_makes_no_tournament() {
    for backend in backends() {
        let app = TestApp::spawn(&backend).await;
        let reply = app.post(TOURNAMENTS, &body(2, 3_600_000)).await;
        reply.assert_problem(422, "player_needs_server_key", "a tournament without server keys");
        app.clean_up().await;
    }
}

#[actix_web::test]
async fn entries_are_refused_twice_over_the_cap_and_withdrawn_before_the_start() {
    on_studio_backends(async |app, _| {
        let mut capped = body(1, 3_600_000);
        capped["max_entrants"] = json!(2);
        let t = make(app, ACME, &capped).await;
        let id = t["id"].as_str().expect("an id");
        let ann = enter(app, ACME, id, "u-ann").await;
        assert_eq!(ann["status"], "entered", "{ann}");
        assert!(ann["table"].is_null(), "no table before the start: {ann}");
        let entries = format!("{TOURNAMENTS}/{id}/entries");
        let twice = app
            .post_with_key(&entries, ACME, &json!({"player": "u-ann", "name": "Ann"}), &[])
            .await;
        twice.assert_problem(409, "already_entered", "a second entry of one player");
        enter(app, ACME, id, "u-bob").await;
        let full = app
            .post_with_key(&entries, ACME, &json!({"player": "u-cy", "name": "Cy"}), &[])
            .await;
        full.assert_problem(409, "tournament_full", "a third entry of two places");
        let theirs = app
            .post_with_key(&entries, BETA, &json!({"player": "u-cy", "name": "Cy"}), &[])
            .await;
        theirs.assert_problem(404, "tournament_not_found", "an entry through another tenant");
        let bad = app
            .post_with_key(&entries, ACME, &json!({"player": "", "name": "Cy"}), &[])
            .await;
        bad.assert_problem(400, "invalid_player", "an empty player");

        // The entry's id is its holder's capability: read and withdrawn without a key.
        let ann_path = format!("{entries}/{}", ann["id"].as_str().expect("an id"));
        let read = app.get(&ann_path).await;
        assert_eq!(read.status.as_u16(), 200, "{}", read.text());
        assert_eq!(read.json()["player"], "u-ann");
        assert_eq!(delete(app, &ann_path, None).await.status.as_u16(), 204);
        let read = app.get(&ann_path).await.json();
        assert_eq!(read["status"], "withdrawn", "{read}");
        let t = app
            .get_with_key(&format!("{TOURNAMENTS}/{id}"), ACME)
            .await
            .json();
        assert_eq!(t["entrants"], 1, "withdrawn: {t}");
        // A place freed: Cy enters now, and Ann may enter again.
        enter(app, ACME, id, "u-cy").await;
        let missing = app.get(&format!("{entries}/{}", uuid::Uuid::new_v4())).await;
        missing.assert_problem(404, "entry_not_found", "no such entry");
    })
    .await;
}

/// Reads entry `entry` of tournament `id` until it has a table of `round`. Returns it.
async fn seated_in(app: &TestApp, id: &str, entry: &Value, round: u64) -> Value {
    let path = format!(
        "{TOURNAMENTS}/{id}/entries/{}",
        entry["id"].as_str().expect("an id")
    );
    eventually(WITHIN, "the entry's table", async || {
        let read = app.get(&path).await.json();
        match read["table"]["round"].as_u64() {
            Some(r) if r == round && read["table"]["token"].is_string() => Ok(read),
            _ => Err(read),
        }
    })
    .await
}

/// Each seat's dealt cards in game `game`, read by that seat's token: (seat, cards).
async fn dealt(app: &TestApp, game: &str, seat: u64, token: &str) -> (Value, Value) {
    let events = app
        .get_as(&format!("/v1/games/{game}/events"), token)
        .await
        .json();
    let cards = events["events"]
        .as_array()
        .expect("events")
        .iter()
        .find(|e| e["event"]["type"] == "dealt" && e["event"]["seat"] == seat)
        .map(|e| e["event"]["cards"].clone())
        .expect("the seat's dealt hand");
    assert!(cards.is_array(), "a seat sees its own hand dealt: {cards}");
    let view = app.get_as(&format!("/v1/games/{game}"), token).await.json();
    assert!(view["seed_commitment"].is_string(), "a seed commitment: {view}");
    (view["seed_commitment"].clone(), cards)
}

/// A round's tables as the entries show them: each game's seats, with the player there and
/// their seat token.
type Round = BTreeMap<String, Vec<(u64, String, String)>>;

/// A round as the entries show it: each game's seats, by the players there.
async fn round_of(app: &TestApp, id: &str, entries: &[Value], round: u64) -> Round {
    let mut games = Round::new();
    for e in entries {
        let read = seated_in(app, id, e, round).await;
        let table = &read["table"];
        games
            .entry(table["game_id"].as_str().expect("a game").to_owned())
            .or_default()
            .push((
                table["seat"].as_u64().expect("a seat"),
                read["player"].as_str().expect("a player").to_owned(),
                table["token"].as_str().expect("a token").to_owned(),
            ));
    }
    games
}

/// A duplicate `may_i` tournament of `field` players, two rounds at tables of four, on `app`:
/// every table of a round seated once from the field, with the same seed commitment and the
/// same hands seat by seat; every seat played out at the round's deadline; the second round
/// started when the first is over, on other deals; finished after it.
async fn plays_a_small_event(app: &TestApp, field: usize) {
    let t = make(app, ACME, &body(2, START_MS)).await;
    let id = t["id"].as_str().expect("an id").to_owned();
    let mut entries = Vec::new();
    for n in 0..field {
        entries.push(enter(app, ACME, &id, &format!("u-{n}")).await);
    }
    let tables = field.div_ceil(4);
    let mut commitments = Vec::new();
    let mut rounds = Vec::new();
    for round in 1..=2u64 {
        let games = round_of(app, &id, &entries, round).await;
        if round == 1 {
            // Nothing of a round's deals shows while its tables play them.
            let deals = app
                .get(&format!(
                    "{TOURNAMENTS}/{id}/entries/{}/deals",
                    entries[0]["id"].as_str().expect("an id")
                ))
                .await
                .json();
            assert_eq!(
                deals["deals"],
                json!([]),
                "no deal before the round is over: {deals}"
            );
            let board = app
                .get_with_key(&format!("{TOURNAMENTS}/{id}/standings"), ACME)
                .await
                .json();
            assert_eq!(board["rounds"], 0, "no round counted while it plays: {board}");
        }
        assert_eq!(
            games.len(),
            tables,
            "{field} players, round {round}: {tables} tables: {games:?}"
        );
        let players: BTreeSet<&String> = games.values().flatten().map(|(_, p, _)| p).collect();
        assert_eq!(players.len(), field, "round {round}: everyone seated once");
        for (game, seats) in &games {
            let distinct: BTreeSet<u64> = seats.iter().map(|(s, _, _)| *s).collect();
            assert_eq!(
                distinct.len(),
                seats.len(),
                "round {round}: no seat taken twice at {game}"
            );
            let view = app.get_as(&format!("/v1/games/{game}"), &seats[0].2).await.json();
            assert_eq!(view["rated"], false, "tournament games are not rated: {view}");
            let bots = view["players"]
                .as_array()
                .expect("players")
                .iter()
                .filter(|p| p["kind"] == "bot")
                .count();
            assert_eq!(bots + seats.len(), 4, "the places left over are bots': {view}");
        }
        // Every table of the round: one seed commitment, and each seat the same hand.
        let mut hands: BTreeMap<u64, BTreeSet<String>> = BTreeMap::new();
        let mut seen = BTreeSet::new();
        for (game, seats) in &games {
            for (seat, _, token) in seats {
                let (commitment, cards) = dealt(app, game, *seat, token).await;
                seen.insert(commitment.to_string());
                hands.entry(*seat).or_default().insert(cards.to_string());
            }
        }
        assert_eq!(
            seen.len(),
            1,
            "round {round}: one seed commitment at every table: {seen:?}"
        );
        assert!(
            hands.values().all(|h| h.len() == 1),
            "round {round}: each seat holds the same hand at every table: {hands:?}"
        );
        commitments.extend(seen);
        if round == 1 {
            // One player leaves their table for good: their seat scores otherwise than the
            // same seat at the other tables, so the matchpoints differ.
            let (game, seats) = games.iter().next().expect("a table");
            let left = app
                .post_as(&format!("/v1/games/{game}/leave"), &seats[0].2, &json!({}), &[])
                .await;
            assert_eq!(left.status.as_u16(), 200, "{}", left.text());
        }
        rounds.push(games);
        // Nobody moves: the round's deadline hands every seat to autopilot, which plays the
        // tables out, and the next round starts.
    }
    assert_eq!(
        commitments.iter().collect::<BTreeSet<_>>().len(),
        2,
        "each round its own deals"
    );
    let path = format!("{TOURNAMENTS}/{id}");
    let done = eventually(WITHIN, "the tournament finished", async || {
        let read = app.get_with_key(&path, ACME).await.json();
        if read["status"] == "finished" {
            Ok(read)
        } else {
            Err(read)
        }
    })
    .await;
    assert_eq!(done["round"], 2, "{done}");
    the_standings_are_a_recount_of_the_games(app, &id, &entries, &rounds).await;
    the_standings_are_stored_not_recounted(app, &id, &rounds).await;
}

/// The standings of finished tournament `id` are those stored when its rounds closed: with
/// every `deal_ended` event of its games gone from the log, a page and a player's page read
/// the same.
async fn the_standings_are_stored_not_recounted(app: &TestApp, id: &str, rounds: &[Round]) {
    let path = format!("{TOURNAMENTS}/{id}/standings?limit=3");
    let page = app.get_with_key(&path, ACME).await.json();
    let around = app.get_with_key(&format!("{path}&player=u-4"), ACME).await.json();
    assert_eq!(around["player"]["player"], "u-4", "{around}");
    for game in rounds.iter().flat_map(|r| r.keys()) {
        on_game_rows(
            app,
            game,
            "DELETE FROM events WHERE game_id = $1 AND body LIKE '%deal_ended%'",
            None,
        )
        .await;
    }
    assert_eq!(app.get_with_key(&path, ACME).await.json(), page, "a page, stored");
    assert_eq!(
        app.get_with_key(&format!("{path}&player=u-4"), ACME).await.json(),
        around,
        "a player's page, stored"
    );
}

/// Every `deal_ended` event's scores of game `game`, read by a seat's `token`: by deal.
async fn scores_of(app: &TestApp, game: &str, token: &str) -> Vec<Vec<i64>> {
    let mut scores = Vec::new();
    let mut after = 0;
    loop {
        let page = app
            .get_as(&format!("/v1/games/{game}/events?after={after}"), token)
            .await
            .json();
        let events = page["events"].as_array().expect("events");
        if events.is_empty() {
            return scores;
        }
        for e in events {
            if e["event"]["type"] == "deal_ended" {
                let of_deal = e["event"]["scores"].as_array().expect("scores");
                scores.push(of_deal.iter().map(|s| s.as_i64().expect("a score")).collect());
            }
        }
        after = page["last_seq"].as_i64().expect("a last seq");
    }
}

/// The standings recounted here from each game's own `deal_ended` events: each seat's score on
/// a deal against the same seat's at the round's other tables, 2 halves for each beaten, 1 for
/// each tie; and an entrant's deals beside the other tables'.
async fn the_standings_are_a_recount_of_the_games(
    app: &TestApp,
    id: &str,
    entries: &[Value],
    rounds: &[Round],
) {
    let mut halves: BTreeMap<String, i64> = BTreeMap::new();
    for games in rounds {
        let mut scores: BTreeMap<&String, Vec<Vec<i64>>> = BTreeMap::new();
        for (game, seats) in games {
            scores.insert(game, scores_of(app, game, &seats[0].2).await);
        }
        for (game, seats) in games {
            assert_eq!(
                scores[game].len(),
                7,
                "every deal of {game} was played out: {:?}",
                scores[game]
            );
            for (seat, player, _) in seats {
                let seat = usize::try_from(*seat).expect("a seat");
                let mine = halves.entry(player.clone()).or_default();
                for (deal, of_deal) in scores[game].iter().enumerate() {
                    for (other, theirs) in &scores {
                        if *other == game {
                            continue;
                        }
                        *mine += match of_deal[seat].cmp(&theirs[deal][seat]) {
                            std::cmp::Ordering::Less => 2,
                            std::cmp::Ordering::Equal => 1,
                            std::cmp::Ordering::Greater => 0,
                        };
                    }
                }
            }
        }
    }
    let board = app
        .get_with_key(&format!("{TOURNAMENTS}/{id}/standings?limit=200"), ACME)
        .await
        .json();
    assert_eq!(board["rounds"], 2, "{board}");
    let listed: BTreeMap<String, f64> = board["standings"]
        .as_array()
        .expect("standings")
        .iter()
        .map(|s| {
            (
                s["player"].as_str().expect("a player").to_owned(),
                s["score"].as_f64().expect("a score"),
            )
        })
        .collect();
    let recounted: BTreeMap<String, f64> = halves
        .iter()
        .map(|(p, h)| (p.clone(), f64::from(i32::try_from(*h).expect("small")) / 2.0))
        .collect();
    assert_eq!(
        listed, recounted,
        "the standings are the recount, bots not listed: {board}"
    );
    let scores: Vec<f64> = board["standings"]
        .as_array()
        .expect("standings")
        .iter()
        .map(|s| s["score"].as_f64().expect("a score"))
        .collect();
    assert!(scores.windows(2).all(|w| w[0] >= w[1]), "best first: {scores:?}");
    assert!(
        scores.first() > scores.last(),
        "the leaver stands below the others: {scores:?}"
    );

    // A page of three, and the page around the last player.
    let page = app
        .get_with_key(&format!("{TOURNAMENTS}/{id}/standings?limit=3"), ACME)
        .await
        .json();
    assert_eq!(
        page["standings"],
        json!(board["standings"].as_array().expect("standings")[..3]),
        "{page}"
    );
    let cursor = page["next_cursor"].as_str().expect("a next page");
    let next = app
        .get_with_key(
            &format!("{TOURNAMENTS}/{id}/standings?limit=3&cursor={cursor}"),
            ACME,
        )
        .await
        .json();
    assert_eq!(
        next["standings"],
        json!(board["standings"].as_array().expect("standings")[3..6]),
        "{next}"
    );
    let last = board["standings"]
        .as_array()
        .expect("standings")
        .last()
        .expect("an entrant")
        .clone();
    let around = app
        .get_with_key(
            &format!(
                "{TOURNAMENTS}/{id}/standings?limit=3&player={}",
                last["player"].as_str().expect("a player")
            ),
            ACME,
        )
        .await
        .json();
    assert_eq!(around["player"], last, "{around}");
    assert!(
        around["standings"].as_array().expect("a page").contains(&last),
        "{around}"
    );

    // An entrant's deals: fourteen, each beside the same seat at the other tables.
    let tables = rounds[0].len();
    let deals = app
        .get(&format!(
            "{TOURNAMENTS}/{id}/entries/{}/deals",
            entries[0]["id"].as_str().expect("an id")
        ))
        .await
        .json();
    let deals = deals["deals"].as_array().expect("deals");
    assert_eq!(deals.len(), 14, "{deals:?}");
    assert!(
        deals
            .iter()
            .all(|d| d["others"].as_array().is_some_and(|o| o.len() == tables - 1)),
        "{deals:?}"
    );
}

#[actix_web::test]
async fn eight_players_play_a_duplicate_may_i_event_of_two_rounds() {
    on_studio_backends(async |app, _| plays_a_small_event(app, 8).await).await;
}

#[actix_web::test]
async fn nine_players_play_it_with_bots_in_the_places_left_over() {
    on_studio_backends(async |app, _| plays_a_small_event(app, 9).await).await;
}

#[actix_web::test]
async fn entries_close_at_the_start() {
    on_studio_backends(async |app, _| {
        let t = make(app, ACME, &body(1, START_MS)).await;
        let id = t["id"].as_str().expect("an id").to_owned();
        let ann = enter(app, ACME, &id, "u-ann").await;
        enter(app, ACME, &id, "u-bob").await;
        seated_in(app, &id, &ann, 1).await;
        let late = app
            .post_with_key(
                &format!("{TOURNAMENTS}/{id}/entries"),
                ACME,
                &json!({"player": "u-late", "name": "Late"}),
                &[],
            )
            .await;
        late.assert_problem(409, "tournament_started", "an entry after the start");
        let ann_path = format!(
            "{TOURNAMENTS}/{id}/entries/{}",
            ann["id"].as_str().expect("an id")
        );
        delete(app, &ann_path, None).await.assert_problem(
            409,
            "tournament_started",
            "a withdrawal after the start",
        );
        delete(app, &format!("{TOURNAMENTS}/{id}"), Some(ACME))
            .await
            .assert_problem(409, "tournament_started", "a cancellation after the start");
    })
    .await;
}

/// An entry's holder reads the standings without a key, with their own standing: nothing
/// before a round is counted, then the studio's standings; the entry of another tournament, an
/// entry that does not exist and another tenant's key read nothing.
#[actix_web::test]
async fn an_entrys_holder_reads_the_standings_without_a_key() {
    on_studio_backends(async |app, _| {
        let t = make(app, ACME, &body(1, START_MS)).await;
        let id = t["id"].as_str().expect("an id").to_owned();
        let other = make(app, ACME, &body(1, START_MS)).await;
        let other_id = other["id"].as_str().expect("an id").to_owned();
        let entries = [
            enter(app, ACME, &id, "u-ann").await,
            enter(app, ACME, &id, "u-bob").await,
            enter(app, ACME, &id, "u-cat").await,
        ];
        let stranger = enter(app, ACME, &other_id, "u-dan").await;
        let ann = entries[0]["id"].as_str().expect("an id");
        assert_eq!(
            (&entries[0]["tournament_name"], &entries[0]["variant"]),
            (&json!("Friday cup"), &json!("may_i")),
            "{}",
            entries[0]
        );
        assert_eq!(entries[0]["starts_at"], t["starts_at"], "{}", entries[0]);
        assert_eq!(
            (&entries[0]["rounds"], &entries[0]["round"]),
            (&json!(1), &json!(0)),
            "{}",
            entries[0]
        );
        let path = format!("{TOURNAMENTS}/{id}/entries/{ann}/standings");
        let before = app.get(&path).await;
        assert_eq!(before.status.as_u16(), 200, "{}", before.text());
        let before = before.json();
        assert_eq!(
            (&before["rounds"], &before["standings"], &before["player"]),
            (&json!(0), &json!([]), &Value::Null),
            "nothing counted before a round ends: {before}"
        );
        let done = eventually(WITHIN, "the tournament finished", async || {
            let read = app
                .get_with_key(&format!("{TOURNAMENTS}/{id}"), ACME)
                .await
                .json();
            if read["status"] == "finished" {
                Ok(read)
            } else {
                Err(read)
            }
        })
        .await;
        assert_eq!(done["round"], 1, "{done}");
        let studio = app
            .get_with_key(&format!("{TOURNAMENTS}/{id}/standings?limit=2"), ACME)
            .await
            .json();
        let page = app.get(&format!("{path}?limit=2")).await.json();
        assert_eq!(page["rounds"], 1, "{page}");
        assert_eq!(
            page["standings"], studio["standings"],
            "the studio's standings: {page}"
        );
        let own = app
            .get_with_key(&format!("{TOURNAMENTS}/{id}/standings?player=u-ann"), ACME)
            .await
            .json();
        assert_eq!(
            page["player"], own["player"],
            "the entrant's own standing: {page}"
        );
        assert_eq!(page["player"]["player"], "u-ann", "{page}");
        let cursor = page["next_cursor"]
            .as_str()
            .expect("a second page of three entrants");
        let next = app.get(&format!("{path}?limit=2&cursor={cursor}")).await.json();
        assert_eq!(next["standings"].as_array().map(Vec::len), Some(1), "{next}");
        let read = app.get(&format!("{TOURNAMENTS}/{id}/entries/{ann}")).await.json();
        assert_eq!(
            (&read["round"], &read["tournament_status"]),
            (&json!(1), &json!("finished")),
            "{read}"
        );

        let theirs = stranger["id"].as_str().expect("an id");
        app.get(&format!("{TOURNAMENTS}/{id}/entries/{theirs}/standings"))
            .await
            .assert_problem(404, "entry_not_found", "another tournament's entry");
        app.get(&format!(
            "{TOURNAMENTS}/{id}/entries/{}/standings",
            uuid::Uuid::new_v4()
        ))
        .await
        .assert_problem(404, "entry_not_found", "an entry that does not exist");
        app.get(&format!("{TOURNAMENTS}/{other_id}/entries/{ann}/standings"))
            .await
            .assert_problem(404, "entry_not_found", "the entry, under another tournament");
        app.get_with_key(&path, BETA).await.assert_problem(
            404,
            "tournament_not_found",
            "another tenant's key",
        );
        app.get(&format!("{path}?cursor=nonsense")).await.assert_problem(
            400,
            "invalid_cursor",
            "a made-up cursor",
        );
    })
    .await;
}

/// Two replicas on one database: the start is claimed once, so there are as many games as
/// tables, and each player sits at one.
#[actix_web::test]
async fn two_replicas_start_a_tournament_once() {
    for backend in server_backends() {
        let one = TestApp::spawn_studio(&backend, None).await;
        let two = TestApp::spawn_with(
            &backend,
            Spawn {
                test_mode: true,
                database: Some(one.database.clone()),
                api_keys: STUDIO_KEYS.into(),
                ..Spawn::default()
            },
        )
        .await;
        let t = make(&one, ACME, &body(1, START_MS)).await;
        let id = t["id"].as_str().expect("an id").to_owned();
        let mut entries = Vec::new();
        for n in 0..12 {
            let app = if n % 2 == 0 { &one } else { &two };
            entries.push(enter(app, ACME, &id, &format!("u-{n}")).await);
        }
        let games = round_of(&two, &id, &entries, 1).await;
        assert_eq!(games.len(), 3, "three tables: {games:?}");
        // The tenant's games are the tables, no more.
        let listed = one.get_with_key("/v1/games?limit=200", ACME).await.json();
        let ids: BTreeSet<&str> = listed["games"]
            .as_array()
            .expect("games")
            .iter()
            .filter_map(|g| g["id"].as_str())
            .collect();
        assert_eq!(
            ids,
            games.keys().map(String::as_str).collect(),
            "one game per table, made once"
        );
        one.clean_up().await;
    }
}

/// Whether any event of game `game`, read by `token`, shows a seed.
async fn any_seed_in_events(app: &TestApp, game: &str, token: &str) -> bool {
    let events = app
        .get_as(&format!("/v1/games/{game}/events"), token)
        .await
        .json();
    events["events"]
        .as_array()
        .expect("events")
        .iter()
        .any(|e| e["event"]["seed"].is_string())
}

/// A table over while another of its round still plays the same deals: its seed (view and
/// events), its replay and its spectators stay closed until the round is over, then open.
#[actix_web::test]
async fn a_finished_tables_seed_replay_and_spectators_stay_closed_until_its_round_is_over() {
    on_studio_backends(async |app, _| {
        let t = make(app, ACME, &body(1, START_MS)).await;
        let id = t["id"].as_str().expect("an id").to_owned();
        let mut entries = Vec::new();
        for n in 0..8 {
            entries.push(enter(app, ACME, &id, &format!("u-{n}")).await);
        }
        let games = round_of(app, &id, &entries, 1).await;
        let (done, seats) = games.iter().next().expect("a table");
        let token = &seats[0].2;
        // The studio ends one table; the other plays on until the round's deadline.
        let end = app
            .post_with_key(
                &format!("/v1/games/{done}/end"),
                ACME,
                &json!({"reason": "a reported cheat"}),
                &[],
            )
            .await;
        assert_eq!(end.status.as_u16(), 200, "{}", end.text());
        let view = app.get_as(&format!("/v1/games/{done}"), token).await.json();
        assert_eq!(view["status"], "void", "{view}");
        assert!(view["seed"].is_null(), "no seed while the round plays: {view}");
        assert!(
            !any_seed_in_events(app, done, token).await,
            "no seed in the events while the round plays"
        );
        app.get_as(&format!("/v1/games/{done}/replay"), token)
            .await
            .assert_problem(409, "round_not_over", "a replay while the round plays");
        app.post_with_key(&format!("/v1/games/{done}/spectators"), ACME, &json!({}), &[])
            .await
            .assert_problem(409, "round_not_over", "a spectator while the round plays");
        let other = games.keys().find(|g| *g != done).expect("another table");
        let playing = app
            .get_with_key(&format!("{TOURNAMENTS}/{id}"), ACME)
            .await
            .json();
        let other_view = app
            .get_as(&format!("/v1/games/{other}"), &games[other][0].2)
            .await
            .json();
        assert_eq!(playing["status"], "running", "still running: {playing}");
        assert_eq!(
            other_view["status"], "playing",
            "the other table plays: {other_view}"
        );

        // The round's deadline plays the other table out; the round is over, all opens.
        eventually(WITHIN, "the tournament finished", async || {
            let read = app
                .get_with_key(&format!("{TOURNAMENTS}/{id}"), ACME)
                .await
                .json();
            if read["status"] == "finished" {
                Ok(read)
            } else {
                Err(read)
            }
        })
        .await;
        let view = app.get_as(&format!("/v1/games/{done}"), token).await.json();
        assert!(
            view["seed"].is_string(),
            "the seed once the round is over: {view}"
        );
        assert!(any_seed_in_events(app, done, token).await, "and in the events");
        let replay = app.get_as(&format!("/v1/games/{done}/replay"), token).await;
        assert_eq!(replay.status.as_u16(), 200, "{}", replay.text());
        let spectator = app
            .post_with_key(&format!("/v1/games/{done}/spectators"), ACME, &json!({}), &[])
            .await;
        assert!(spectator.status.is_success(), "{}", spectator.text());

        // A finished table's game has no rematch, asked by a seat or by the studio: the
        // tournament seats its players, and nothing was written.
        let other_token = &games[other][0].2;
        let finished = app
            .get_as(&format!("/v1/games/{other}"), other_token)
            .await
            .json();
        assert_eq!(finished["status"], "finished", "played out: {finished}");
        let rematch = format!("/v1/games/{other}/rematch");
        app.post_as(&rematch, other_token, &json!({}), &[])
            .await
            .assert_problem(409, "tournament_game", "a seat's rematch of a tournament game");
        app.post_with_key(&rematch, ACME, &json!({}), &[])
            .await
            .assert_problem(409, "tournament_game", "a studio's rematch of a tournament game");
        let after = app
            .get_as(&format!("/v1/games/{other}"), other_token)
            .await
            .json();
        assert!(after["rematch"].is_null(), "no rematch made: {after}");
        assert_eq!(after["version"], finished["version"], "nothing written");
    })
    .await;
}

/// A round's end is announced by the commit that ends its last table: with the tournament
/// pass's backstop at 15 real seconds (a test second of 1,000 ms), the next round still starts
/// within a few seconds of three of a table's four players leaving (which ends its game void
/// at once).
#[actix_web::test]
async fn the_commit_that_ends_a_rounds_last_table_starts_the_next_round() {
    for backend in backends() {
        let app = TestApp::spawn_with(
            &backend,
            Spawn {
                test_mode: true,
                api_keys: STUDIO_KEYS.into(),
                asynchronous: Some(AsyncSettings {
                    test_second_ms: Some(1_000),
                    ..test_async()
                }),
                ..Spawn::default()
            },
        )
        .await;
        let mut made = body(2, START_MS);
        made["round_seconds"] = json!(600);
        let t = make(&app, ACME, &made).await;
        let id = t["id"].as_str().expect("an id").to_owned();
        let mut entries = Vec::new();
        for n in 0..4 {
            entries.push(enter(&app, ACME, &id, &format!("u-{n}")).await);
        }
        let games = round_of(&app, &id, &entries, 1).await;
        let (game, seats) = games.iter().next().expect("one table");
        for (_, _, token) in seats.iter().take(3) {
            let left = app
                .post_as(&format!("/v1/games/{game}/leave"), token, &json!({}), &[])
                .await;
            assert_eq!(left.status.as_u16(), 200, "{}", left.text());
        }
        let ended = std::time::Instant::now();
        let view = app.get_as(&format!("/v1/games/{game}"), &seats[3].2).await.json();
        assert_eq!(
            view["status"], "void",
            "one player left: the game is void: {view}"
        );
        seated_in(&app, &id, &entries[0], 2).await;
        assert!(
            ended.elapsed() < Duration::from_secs(8),
            "round 2 started {:?} after round 1's last table ended, not at the 15 s backstop",
            ended.elapsed()
        );
        app.clean_up().await;
    }
}

/// The tournament's own deliveries among `receiver`'s accepted ones (the tables' games send
/// theirs to the same URL): by `tournament_id`, without a `game_id`.
fn tournament_deliveries(receiver: &Receiver) -> Vec<crate::helpers::Received> {
    receiver
        .accepted()
        .into_iter()
        .filter(|r| {
            let body = r.json();
            body["tournament_id"].is_string() && body["game_id"].is_null()
        })
        .collect()
}

/// A tournament with a `webhook_url` sends its own events there, signed as the games' are:
/// each round's start, each round's end with the top of its standings, and the end with the
/// final standings, in that order, numbered from 1, each delivered once though the receiver
/// first fails them (retried with the same id).
#[actix_web::test]
async fn a_tournament_webhook_hears_its_rounds_and_its_final_standings() {
    on_studio_backends(async |app, _| {
        let receiver = Receiver::start(500);
        let mut made = body(2, START_MS);
        made["webhook_url"] = json!(receiver.url);
        let reply = app.post_with_key(TOURNAMENTS, ACME, &made, &[]).await;
        assert_eq!(reply.status.as_u16(), 201, "{}", reply.text());
        let secret = reply.json()["webhook_secret"]
            .as_str()
            .expect("a secret")
            .to_owned();
        let id = reply.json()["tournament"]["id"]
            .as_str()
            .expect("an id")
            .to_owned();
        let mut entries = Vec::new();
        for n in 0..5 {
            entries.push(enter(app, ACME, &id, &format!("u-{n}")).await);
        }
        seated_in(app, &id, &entries[0], 1).await;
        // The first delivery fails, and is tried again until the receiver takes it.
        eventually(WITHIN, "a failed attempt", async || {
            let failed = receiver.all().iter().any(|r| {
                r.answered == 500 && r.json()["type"] == "round_started" && r.json()["game_id"].is_null()
            });
            if failed { Ok(()) } else { Err(receiver.all().len()) }
        })
        .await;
        receiver.answer(200);
        let got = eventually(WITHIN, "five tournament deliveries", async || {
            let got = tournament_deliveries(&receiver);
            if got.len() >= 5 { Ok(got) } else { Err(got.len()) }
        })
        .await;
        let bodies: Vec<Value> = got.iter().map(crate::helpers::Received::json).collect();
        let kinds: Vec<(&str, &Value)> = bodies
            .iter()
            .map(|b| (b["type"].as_str().expect("a type"), &b["event"]["round"]))
            .collect();
        assert_eq!(
            kinds,
            vec![
                ("round_started", &json!(1)),
                ("round_ended", &json!(1)),
                ("round_started", &json!(2)),
                ("round_ended", &json!(2)),
                ("tournament_finished", &Value::Null),
            ],
            "in order: {bodies:?}"
        );
        for (n, (r, b)) in got.iter().zip(&bodies).enumerate() {
            assert_eq!(b["seq"], json!(n + 1), "numbered from 1: {b}");
            assert_eq!(b["tournament_id"], json!(id), "{b}");
            assert_eq!(b["id"], json!(r.id), "the body's id is the webhook-id");
            assert!(verifies(&secret, r), "signed with the tournament's secret: {b}");
        }
        if let Some(ok) = verified_by_the_library(&secret, &got[0]) {
            assert!(ok, "the standardwebhooks library verifies the delivery");
        }
        // The failed first delivery was retried under its own id; each is accepted once.
        assert!(
            receiver.all().iter().filter(|r| r.id == got[0].id).count() >= 2,
            "the first delivery retried under its own id"
        );
        let ids: BTreeSet<&str> = got.iter().map(|r| r.id.as_str()).collect();
        assert_eq!(ids.len(), got.len(), "each accepted once");
        assert_eq!(bodies[0]["event"]["tables"], 2, "five players: two tables");
        let board = app
            .get_with_key(&format!("{TOURNAMENTS}/{id}/standings?limit=100"), ACME)
            .await
            .json();
        let last = &bodies[4]["event"];
        assert_eq!(last["rounds"], 2, "{last}");
        assert_eq!(last["entrants"], 5, "{last}");
        assert_eq!(
            last["standings"], board["standings"],
            "the final standings: {board}"
        );
        assert_eq!(
            bodies[3]["event"]["top"], board["standings"],
            "the last round's top"
        );
        assert_eq!(
            bodies[1]["event"]["top"].as_array().map(Vec::len),
            Some(5),
            "the first round's top: {}",
            bodies[1]
        );
    })
    .await;
}
