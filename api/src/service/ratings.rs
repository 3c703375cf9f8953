//! Ratings (docs/ratings.md): each seat's rating when it sits down, and the rating pass, which
//! rates each finished, rated game (or one its studio ended rated) once across replicas. The
//! change that ends such a game queues it (`ratings_due`, written with the change); any
//! replica's pass claims it under a lease, rates it in one transaction on the tenant's rows
//! (`Store::rate_game`: the marker in `rated_games` makes it once), then writes the changes into
//! the game, so that its view shows them, and takes it off the queue. A replica lost in between
//! leaves the row to another one after the lease, which finds the marker and finishes the job.

use std::time::{Duration, Instant};

use engine::{Ruleset, Standing};

use super::waits::Schedule;
use crate::domain::{HostedGame, Participant, RatedSeat, Rating, RatingChange, RatingModel, SeatKind};
use crate::error::ApiError;
use crate::state::AppState;
use crate::store::{GameUpdate, Lock, On, Outcome, RatedRow, RatingDue, RatingWrite, Store, now_ms};
use crate::wire::Code;

/// How long a claimed game is this replica's to rate before another may take it.
const LEASE_MS: i64 = 30_000;
/// Games claimed at once.
const BATCH: i64 = 16;

/// The refusal of a player id or a rated game asked without a server key.
pub fn needs_server_key() -> ApiError {
    ApiError::Unprocessable {
        code: Code::PlayerNeedsServerKey.into(),
        detail:
            "a player id (and a rated game) is a studio's: send it with the studio's server key (X-Api-Key)"
                .into(),
        extensions: Box::default(),
    }
}

/// Sets each seat's rating as it sits down: its player's, or its bot level's, in the game's
/// variant at `tenant`.
///
/// # Errors
/// The store's failure.
pub(super) async fn rate_seats(
    state: &AppState,
    tenant: &str,
    table: &mut HostedGame,
) -> Result<(), ApiError> {
    let asked: Vec<(usize, Participant)> = table
        .seats
        .iter()
        .enumerate()
        .filter_map(|(i, s)| {
            let who = match s.kind {
                SeatKind::Player => s.player.clone().map(Participant::Player),
                SeatKind::Bot => Some(Participant::Bot(s.level.unwrap_or_default())),
                SeatKind::Open => None,
            };
            who.map(|p| (i, p))
        })
        .collect();
    if asked.is_empty() {
        return Ok(());
    }
    let participants: Vec<Participant> = asked.iter().map(|(_, p)| p.clone()).collect();
    let variant = table.config.ruleset.variant();
    let ratings = ratings_at(state, tenant, variant, &participants).await?;
    for ((i, _), (_, rating)) in asked.iter().zip(ratings) {
        table.seats[*i].rating = Some(rating);
    }
    Ok(())
}

/// `who`'s rating in variant `variant` (as a game row names it) at `tenant`.
///
/// # Errors
/// The store's failure; a variant no game has (never for a stored game).
pub(super) async fn rating_of(
    state: &AppState,
    tenant: &str,
    variant: &str,
    who: Participant,
) -> Result<Rating, ApiError> {
    let variant: engine::Variant = variant.parse().map_err(ApiError::unexpected)?;
    let unrated = who.unrated(variant);
    let ratings = ratings_at(state, tenant, variant, &[who]).await?;
    Ok(ratings.first().map_or(unrated, |(_, r)| *r))
}

/// The rating in `variant` at `tenant` of each of `participants`, in the order asked: its
/// stored one, or before any rated game there its unrated one ([`Participant::unrated`]: a
/// player's initial rating, a bot level's seed).
///
/// # Errors
/// The store's failure.
pub(super) async fn ratings_at(
    state: &AppState,
    tenant: &str,
    variant: engine::Variant,
    participants: &[Participant],
) -> Result<Vec<(Participant, Rating)>, ApiError> {
    let stored = state.db.ratings(tenant, variant, participants).await?;
    Ok(participants
        .iter()
        .zip(stored)
        .map(|(p, stored)| (p.clone(), stored.unwrap_or_else(|| p.unrated(variant))))
        .collect())
}

/// The rating pass of this replica: rates the games due ([`rate_due`]) when a commit announces
/// one queued, when a lease of one it could not rate runs out, at most once a `floor` (a
/// second) and at least once a `backstop`, which finds what a stopped replica left under its
/// lease.
pub async fn rate_games(state: actix_web::web::Data<AppState>, floor: Duration, backstop: Duration) {
    let wakes = state.live.wakes();
    let mut schedule = Schedule::new(floor, backstop);
    loop {
        tokio::select! {
            () = tokio::time::sleep_until(schedule.next()) => {}
            () = wakes.rate_heard() => {
                schedule.due_now();
                continue;
            }
        }
        schedule.ran();
        let started = Instant::now();
        match rate_due(&state).await {
            Ok((games, next)) => {
                schedule.due_at(next);
                if let Some(took_ms) = state.slow_pass(started) {
                    tracing::warn!(games, took_ms, "slow pass over rated games");
                }
            }
            Err(e) => {
                schedule.due_now();
                tracing::warn!(error = %e, "the rating pass failed");
            }
        }
    }
}

/// Claims the finished, rated games due and rates each ([`rate`]). Returns how many this
/// replica rated, and when it should look again (unix ms): at once after a full batch, when
/// the lease of one that failed runs out.
///
/// # Errors
/// The store's failure to claim (a game that fails is logged and tried again once its lease
/// runs out).
pub async fn rate_due(state: &AppState) -> Result<(usize, Option<i64>), ApiError> {
    let now = now_ms();
    let due = state.db.claim_ratings(now, LEASE_MS, BATCH).await?;
    let mut rated = 0;
    let mut next = (due.len() as i64 >= BATCH).then_some(now);
    for game in &due {
        match rate(state, game).await {
            Ok(()) => rated += 1,
            Err(e) => {
                next = next.or(Some(now.saturating_add(LEASE_MS)));
                tracing::warn!(game = %game.game, error = %e, "a finished game could not be rated; trying again after its lease")
            }
        }
    }
    Ok((rated, next))
}

/// Rates one claimed game: its seats' ratings once (`Store::rate_game`), then the changes
/// written into the game (a new version, so that a reader with its `ETag` sees them), then the
/// game taken off the queue. Each step may run again after a crash and changes nothing twice.
///
/// # Errors
/// The store's failure; a stored game that does not load.
pub async fn rate(state: &AppState, due: &RatingDue) -> Result<(), ApiError> {
    let Some(row) = state.db.game(due.game).await? else {
        // Swept since it finished: nothing to rate.
        return Ok(state.db.rating_done(due.game).await?);
    };
    let table = HostedGame::load(row.id, &row.state)?;
    let (Some(participants), Some(standings)) = (table.participants(), table.rated_standings()) else {
        tracing::warn!(game = %due.game, "a game queued for rating is not a rated game over with standings and a player at every person's seat");
        return Ok(state.db.rating_done(due.game).await?);
    };
    let ruleset = table.config.ruleset.clone();
    let variant = ruleset.variant();
    // A participant's new row starts from its unrated rating.
    let starts: Vec<(Participant, Rating)> = participants
        .iter()
        .map(|p| (p.clone(), p.unrated(variant)))
        .collect();
    let changes = state
        .db
        .rate_game(&due.tenant, due.game, variant, &starts, |ratings| {
            decide(&ruleset, ratings, &standings)
        })
        .await?;
    let changes: Vec<Option<RatingChange>> = serde_json::from_str(&changes).map_err(ApiError::unexpected)?;
    state
        .db
        .transact(On::game(due.game), Lock::Row, |row| {
            let mut table = HostedGame::load(row.id, &row.state)?;
            if table.rating_changes.is_some() {
                return Ok(Outcome {
                    update: None,
                    value: (),
                });
            }
            table.rating_changes = Some(changes.clone());
            Ok::<_, ApiError>(Outcome {
                update: Some(GameUpdate::of(&table, row.version + 1, Vec::new(), None)?),
                value: (),
            })
        })
        .await?;
    Ok(state.db.rating_done(due.game).await?)
}

/// What rating a game of `ruleset` that ended in `standings` writes, from its seats'
/// `ratings` before it: the model's changes, and who won (a seat placed first, or in push's
/// partnerships each seat of the team with a seat placed first).
///
/// # Errors
/// The model's refusal (never for a finished game's seats).
fn decide(
    ruleset: &Ruleset,
    ratings: &[(Participant, Rating)],
    standings: &[Standing],
) -> Result<RatingWrite, ApiError> {
    let seats: Vec<RatedSeat> = ratings
        .iter()
        .map(|(participant, rating)| RatedSeat {
            participant: participant.clone(),
            rating: *rating,
        })
        .collect();
    let rated = RatingModel::default()
        .rate(ruleset, &seats, standings)
        .map_err(ApiError::unexpected)?;
    let first: Vec<usize> = standings
        .iter()
        .filter(|s| s.place == 1)
        .map(|s| s.seat.index())
        .collect();
    let won = |seat: usize| {
        first.iter().any(|&f| {
            f == seat
                || ruleset
                    .team_of(f)
                    .is_some_and(|t| ruleset.team_of(seat) == Some(t))
        })
    };
    let rows = rated
        .updates()
        .into_iter()
        .map(|(participant, rating)| RatedRow {
            participant: participant.clone(),
            rating,
            won: rated
                .seats
                .iter()
                .any(|s| &s.participant == participant && won(s.seat.index())),
        })
        .collect();
    Ok(RatingWrite {
        changes: serde_json::to_string(&rated.changes()).map_err(ApiError::unexpected)?,
        rows,
    })
}

#[cfg(test)]
mod tests {
    use engine::{Seat, Variant};
    use skillratings::Outcomes;
    use skillratings::weng_lin::{WengLinConfig, WengLinRating, weng_lin_two_teams};

    use super::*;
    use crate::domain::PlayerId;

    fn standings(places: &[usize]) -> Vec<Standing> {
        places
            .iter()
            .zip(0u8..)
            .map(|(&place, seat)| Standing {
                seat: Seat(seat),
                place,
                total: i32::try_from(place).expect("small"),
                left: false,
            })
            .collect()
    }

    fn player(id: &str) -> Participant {
        Participant::Player(PlayerId::try_from(id).expect("id"))
    }

    #[test]
    fn push_in_partnerships_is_rated_as_two_teams_and_both_partners_win() {
        // Seats 0 and 2 partner against 1 and 3; seat 2 places first, its partner last.
        let rules = Ruleset::default_for(Variant::Push);
        let r = |mean: f64, deviation: f64| Rating { mean, deviation };
        let ratings = [
            (player("ann"), r(27.0, 4.0)),
            (player("bob"), r(24.0, 6.0)),
            (player("cid"), r(22.0, 5.0)),
            (player("dee"), r(21.0, 7.5)),
        ];
        let write = decide(&rules, &ratings, &standings(&[4, 2, 1, 3])).expect("rated");
        let wl = |r: Rating| WengLinRating::from(r);
        let (winners, losers) = weng_lin_two_teams(
            &[wl(ratings[0].1), wl(ratings[2].1)],
            &[wl(ratings[1].1), wl(ratings[3].1)],
            &Outcomes::WIN,
            &WengLinConfig::new(),
        );
        let want = [winners[0], losers[0], winners[1], losers[1]];
        for (row, want) in write.rows.iter().zip(want) {
            assert!((row.rating.mean - want.rating).abs() < 1e-12, "{row:?}");
            assert!((row.rating.deviation - want.uncertainty).abs() < 1e-12, "{row:?}");
        }
        let won: Vec<bool> = write.rows.iter().map(|r| r.won).collect();
        assert_eq!(
            won,
            [true, false, true, false],
            "the team of the seat placed first won"
        );
        let changes: Vec<Option<RatingChange>> = serde_json::from_str(&write.changes).expect("kept as JSON");
        assert_eq!(changes.len(), 4);
        assert_eq!(changes[1].map(|c| c.before), Some(ratings[1].1), "seat order");
    }

    #[test]
    fn at_a_free_for_all_table_only_the_seats_placed_first_win() {
        let rules = Ruleset::default_for(Variant::MayI);
        let ratings = [
            (player("ann"), Rating::initial()),
            (Participant::Bot(engine::bot::Level::Easy), Rating::initial()),
            (Participant::Bot(engine::bot::Level::Easy), Rating::initial()),
        ];
        let write = decide(&rules, &ratings, &standings(&[2, 1, 3])).expect("rated");
        let won: Vec<(String, bool)> = write.rows.iter().map(|r| (r.participant.key(), r.won)).collect();
        assert_eq!(
            won,
            [("player:ann".to_owned(), false), ("bot:easy".to_owned(), true)],
            "a level at two seats is one row, and won if either seat did"
        );
    }
}
