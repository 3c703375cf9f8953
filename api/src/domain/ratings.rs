//! Ratings: what a finished game changes in its seats' skill estimates, per variant, people and
//! bot levels on one scale. The model is Weng-Lin ("A Bayesian Approximation Method for Online
//! Ranking", the model OpenSkill implements) from the `skillratings` crate; every number comes
//! from it (docs/ratings.md#model says why this model). Pure: the caller reads the ratings before
//! and writes them after.
//!
//! A free-for-all table is one team per seat, placed by the game's final standings (equal
//! totals share a place, a leaver comes after every finisher); `push` in partnerships is two
//! teams of two, each placed by its better seat.

use engine::bot::Level;
use engine::{Ruleset, Seat, Standing, Variant};
use serde::{Deserialize, Serialize};
use skillratings::MultiTeamOutcome;
use skillratings::weng_lin::{WengLinConfig, WengLinRating, weng_lin_multi_team};
use strum::IntoEnumIterator;

use super::player::PlayerId;

/// A skill estimate: the model's mean and its standard deviation, on the crate's scale (a new
/// player is 25 ± 25/3).
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
pub struct Rating {
    /// The estimated skill (Weng-Lin's μ).
    pub mean: f64,
    /// How unsure the estimate is (σ); it narrows as games are rated.
    pub deviation: f64,
}

impl Rating {
    /// A rating the model has seen no game of: the crate's default.
    pub fn initial() -> Rating {
        WengLinRating::new().into()
    }

    /// The value a leaderboard sorts by: the mean less three deviations, a skill the player is
    /// very likely above (TrueSkill's leaderboards, OpenSkill's "ordinal"). A new player is at 0
    /// and climbs as games narrow the deviation.
    pub fn conservative(self) -> f64 {
        self.mean - 3.0 * self.deviation
    }

    /// The rating as people read it: 60 points per unit of the model's mean, so that a new
    /// player shows 1500 and β (25/6) is 250 points.
    pub fn display(self) -> i64 {
        display(self.mean)
    }

    /// [`Rating::conservative`] on the display scale: what a leaderboard shows.
    pub fn conservative_display(self) -> i64 {
        display(self.conservative())
    }
}

/// Points on the display scale per unit of the model's scale.
const DISPLAY_POINTS: f64 = 60.0;

/// `value` (on the model's scale) on the display scale.
#[expect(
    clippy::cast_possible_truncation,
    reason = "ratings are small: far inside i64"
)]
fn display(value: f64) -> i64 {
    (DISPLAY_POINTS * value).round() as i64
}

impl Default for Rating {
    fn default() -> Self {
        Rating::initial()
    }
}

impl From<WengLinRating> for Rating {
    fn from(r: WengLinRating) -> Self {
        Rating {
            mean: r.rating,
            deviation: r.uncertainty,
        }
    }
}

impl From<Rating> for WengLinRating {
    fn from(r: Rating) -> Self {
        WengLinRating {
            rating: r.mean,
            uncertainty: r.deviation,
        }
    }
}

/// Who is rated for a seat: a studio's player, or a bot level (one rating per level and
/// variant, however many seats it plays).
#[derive(Clone, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Participant {
    /// A person, by the studio's id.
    Player(PlayerId),
    /// A server bot of this level.
    Bot(Level),
}

impl Participant {
    /// The participant as stored (`ratings.participant`): `player:<id>` or `bot:<level>`.
    pub fn key(&self) -> String {
        match self {
            Participant::Player(id) => format!("player:{id}"),
            Participant::Bot(level) => format!("bot:{}", level_id(*level)),
        }
    }

    /// The participant of a stored key ([`Participant::key`]); `None` for any other text.
    pub fn from_key(key: &str) -> Option<Participant> {
        if let Some(id) = key.strip_prefix("player:") {
            return PlayerId::try_from(id).ok().map(Participant::Player);
        }
        let level = key.strip_prefix("bot:")?;
        Level::iter()
            .find(|l| level_id(*l) == level)
            .map(Participant::Bot)
    }

    /// The rating of a participant no rated game has changed yet: a player's is the model's
    /// initial one, a bot level's its seeded figure ([`bot_seed`]).
    pub fn unrated(&self, variant: Variant) -> Rating {
        match self {
            Participant::Player(_) => Rating::initial(),
            Participant::Bot(level) => bot_seed(variant, *level),
        }
    }
}

/// A bot level's name as the API writes it (`easy`, `normal`, `hard`).
pub fn level_id(level: Level) -> &'static str {
    match level {
        Level::Easy => "easy",
        Level::Normal => "normal",
        Level::Hard => "hard",
    }
}

/// One row of the committed seed ratings (`bot_ratings.json`).
#[derive(Deserialize)]
struct SeedRow {
    variant: Variant,
    level: Level,
    mean: f64,
    deviation: f64,
}

/// The bot levels' seeded ratings: made from the strength harness's games between the levels
/// (docs/bots.md#ratings says how to make them again), read once.
static BOT_SEEDS: std::sync::LazyLock<Vec<(Variant, Level, Rating)>> = std::sync::LazyLock::new(|| {
    let rows: Vec<SeedRow> = serde_json::from_str::<SeedFile>(include_str!("bot_ratings.json"))
        .expect("the committed seed ratings parse")
        .ratings;
    rows.into_iter()
        .map(|r| {
            (
                r.variant,
                r.level,
                Rating {
                    mean: r.mean,
                    deviation: r.deviation,
                },
            )
        })
        .collect()
});

/// The committed file of seed ratings.
#[derive(Deserialize)]
struct SeedFile {
    ratings: Vec<SeedRow>,
}

/// The seeded rating of bot `level` in `variant`: where a tenant's level starts before any
/// rated game against its people. A pair missing from the file starts at the initial rating.
pub fn bot_seed(variant: Variant, level: Level) -> Rating {
    BOT_SEEDS
        .iter()
        .find(|(v, l, _)| *v == variant && *l == level)
        .map_or_else(Rating::initial, |&(_, _, r)| r)
}

/// Every seeded bot rating, per variant and level: what quick play fills seats from.
pub fn bot_seeds() -> impl Iterator<Item = (Variant, Level, Rating)> {
    BOT_SEEDS.iter().copied()
}

/// A seat of the game to rate: who sat there and their rating before the game.
#[derive(Clone, Debug, PartialEq)]
pub struct RatedSeat {
    /// Who played the seat.
    pub participant: Participant,
    /// Their rating in this variant before the game.
    pub rating: Rating,
}

/// One seat's rating before and after the game. A bot seat carries its level's change, the
/// same for every seat of that level.
#[derive(Clone, Debug, PartialEq)]
pub struct SeatChange {
    /// The seat.
    pub seat: Seat,
    /// Who played it.
    pub participant: Participant,
    /// The rating going in.
    pub before: Rating,
    /// The rating to keep.
    pub after: Rating,
}

/// One seat's rating before and after a rated game, as the game keeps it.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
pub struct RatingChange {
    /// The rating going in.
    pub before: Rating,
    /// The rating the game left.
    pub after: Rating,
}

/// What rating one finished game changes.
#[derive(Clone, Debug, PartialEq)]
pub struct RatedGame {
    /// Every seat, in seat order.
    pub seats: Vec<SeatChange>,
}

impl RatedGame {
    /// Each seat's change, in seat order.
    pub fn changes(&self) -> Vec<Option<RatingChange>> {
        self.seats
            .iter()
            .map(|s| {
                Some(RatingChange {
                    before: s.before,
                    after: s.after,
                })
            })
            .collect()
    }

    /// Each participant's new rating once (a bot level at several seats appears once), in
    /// seat order of first appearance: what the store writes.
    pub fn updates(&self) -> Vec<(&Participant, Rating)> {
        let mut out: Vec<(&Participant, Rating)> = Vec::with_capacity(self.seats.len());
        for s in &self.seats {
            if !out.iter().any(|(p, _)| *p == &s.participant) {
                out.push((&s.participant, s.after));
            }
        }
        out
    }
}

/// Why a game cannot be rated as given.
#[derive(Clone, Debug, PartialEq, thiserror::Error)]
pub enum RatingError {
    /// Fewer than two seats.
    #[error("a rated game has at least two seats")]
    TooFewSeats,
    /// The standings do not name every seat exactly once.
    #[error("the standings name each of the {seats} seats once")]
    Standings {
        /// Seats given.
        seats: usize,
    },
    /// One player in two seats.
    #[error("player {0} sits in two seats")]
    PlayerTwice(PlayerId),
    /// Two seats of one bot level came with different ratings.
    #[error("the seats of the {0:?} bot disagree on its rating")]
    LevelRatings(Level),
}

/// The rating model the service uses: Weng-Lin with the crate's configuration (β = 25/6, the
/// skill gap that gives the stronger side about two chances in three).
#[derive(Clone, Copy, Debug, Default)]
pub struct RatingModel {
    config: WengLinConfig,
}

impl RatingModel {
    /// The model with `config` (the crate's defaults through [`RatingModel::default`]).
    pub fn new(config: WengLinConfig) -> RatingModel {
        RatingModel { config }
    }

    /// Rates a finished game of `ruleset`: `seats` in seat order, `standings` as the engine
    /// finished the game ([`engine::Game::standings`]).
    ///
    /// A person's new rating is the crate's for their seat in the whole game. A bot level
    /// learns from each of its seats in turn, as one observation each: the crate rates the game
    /// with that seat holding the level's rating so far, and the level keeps that seat's result.
    /// At a free-for-all table the level's other seats are left out of that observation (a
    /// level finishing ahead of itself says nothing of its strength); in `push`'s partnerships
    /// the whole game is the observation, since the teams are fixed.
    ///
    /// # Errors
    /// [`RatingError`] when the seats and standings do not describe one game.
    pub fn rate(
        &self,
        ruleset: &Ruleset,
        seats: &[RatedSeat],
        standings: &[Standing],
    ) -> Result<RatedGame, RatingError> {
        let places = check(seats, standings)?;
        let teams: Option<Vec<u8>> = (0..seats.len()).map(|i| ruleset.team_of(i)).collect();
        let all: Vec<usize> = (0..seats.len()).collect();
        let priors: Vec<Rating> = seats.iter().map(|s| s.rating).collect();
        let whole = self.observe(&all, &priors, &places, teams.as_deref());

        let mut levels: Vec<(Level, Rating)> = Vec::new();
        for (i, seat) in seats.iter().enumerate() {
            let Participant::Bot(level) = seat.participant else {
                continue;
            };
            let mut ratings = priors.clone();
            ratings[i] = match levels.iter().find(|(l, _)| *l == level) {
                Some(&(_, so_far)) => so_far,
                None => seat.rating,
            };
            let observed: Vec<usize> = match teams {
                Some(_) => all.clone(),
                None => all
                    .iter()
                    .copied()
                    .filter(|&j| j == i || seats[j].participant != seat.participant)
                    .collect(),
            };
            let after = self.observe(&observed, &ratings, &places, teams.as_deref());
            let rating = after[observed
                .iter()
                .position(|&j| j == i)
                .expect("the seat is observed")];
            match levels.iter_mut().find(|(l, _)| *l == level) {
                Some(entry) => entry.1 = rating,
                None => levels.push((level, rating)),
            }
        }

        let seats = seats
            .iter()
            .enumerate()
            .map(|(i, s)| SeatChange {
                seat: Seat(u8::try_from(i).expect("checked: at most 255 seats")),
                participant: s.participant.clone(),
                before: s.rating,
                after: match s.participant {
                    Participant::Bot(level) => levels
                        .iter()
                        .find(|(l, _)| *l == level)
                        .map_or(whole[i], |&(_, r)| r),
                    Participant::Player(_) => whole[i],
                },
            })
            .collect();
        Ok(RatedGame { seats })
    }

    /// The crate's new ratings of the seats `observed` (indices into `ratings` and `places`),
    /// in that order: one team per seat, or per team number when `teams` says who partners whom.
    fn observe(
        &self,
        observed: &[usize],
        ratings: &[Rating],
        places: &[usize],
        teams: Option<&[u8]>,
    ) -> Vec<Rating> {
        // Each team: its seats and its place (the best of its seats').
        let mut groups: Vec<(Option<u8>, Vec<usize>, usize)> = Vec::new();
        for &i in observed {
            let team = teams.map(|t| t[i]);
            match groups.iter_mut().find(|(t, _, _)| team.is_some() && *t == team) {
                Some((_, members, place)) => {
                    members.push(i);
                    *place = (*place).min(places[i]);
                }
                None => groups.push((team, vec![i], places[i])),
            }
        }
        let team_ratings: Vec<Vec<WengLinRating>> = groups
            .iter()
            .map(|(_, members, _)| members.iter().map(|&i| ratings[i].into()).collect())
            .collect();
        let ranked: Vec<(&[WengLinRating], MultiTeamOutcome)> = team_ratings
            .iter()
            .zip(&groups)
            .map(|(team, (_, _, place))| (team.as_slice(), MultiTeamOutcome::new(*place)))
            .collect();
        let after = weng_lin_multi_team(&ranked, &self.config);
        let mut out = vec![Rating::initial(); observed.len()];
        for ((_, members, _), team) in groups.iter().zip(after) {
            for (&i, r) in members.iter().zip(team) {
                let at = observed
                    .iter()
                    .position(|&j| j == i)
                    .expect("every member is observed");
                out[at] = r.into();
            }
        }
        out
    }
}

/// Each seat's place from `standings`, after checking that the seats and standings describe
/// one game.
fn check(seats: &[RatedSeat], standings: &[Standing]) -> Result<Vec<usize>, RatingError> {
    if seats.len() < 2 {
        return Err(RatingError::TooFewSeats);
    }
    let wrong = || RatingError::Standings { seats: seats.len() };
    if standings.len() != seats.len() || seats.len() > usize::from(u8::MAX) {
        return Err(wrong());
    }
    let mut places = vec![0; seats.len()];
    for s in standings {
        match places.get_mut(s.seat.index()) {
            Some(p) if *p == 0 && s.place >= 1 => *p = s.place,
            _ => return Err(wrong()),
        }
    }
    for (i, a) in seats.iter().enumerate() {
        for b in &seats[..i] {
            match (&a.participant, &b.participant) {
                (Participant::Player(x), Participant::Player(y)) if x == y => {
                    return Err(RatingError::PlayerTwice(x.clone()));
                }
                (Participant::Bot(x), Participant::Bot(y)) if x == y && a.rating != b.rating => {
                    return Err(RatingError::LevelRatings(*x));
                }
                _ => {}
            }
        }
    }
    Ok(places)
}

/// Orders a leaderboard: the higher conservative value first, equal values by player id, so
/// that a page of it is the same every time.
pub fn leaderboard_order(a: (&PlayerId, Rating), b: (&PlayerId, Rating)) -> std::cmp::Ordering {
    b.1.conservative()
        .total_cmp(&a.1.conservative())
        .then_with(|| a.0.cmp(b.0))
}

#[cfg(test)]
mod tests {
    use engine::{Game, GameConfig, Seed, Status, Variant};
    use skillratings::Outcomes;
    use skillratings::weng_lin::{weng_lin, weng_lin_two_teams};

    use super::*;

    fn player(id: &str, mean: f64, deviation: f64) -> RatedSeat {
        RatedSeat {
            participant: Participant::Player(PlayerId::try_from(id).expect("valid id")),
            rating: Rating { mean, deviation },
        }
    }

    fn bot(level: Level, mean: f64, deviation: f64) -> RatedSeat {
        RatedSeat {
            participant: Participant::Bot(level),
            rating: Rating { mean, deviation },
        }
    }

    /// Standings with these places, seat by seat.
    fn standings(places: &[usize]) -> Vec<Standing> {
        places
            .iter()
            .enumerate()
            .map(|(i, &place)| Standing {
                seat: Seat(u8::try_from(i).expect("small")),
                place,
                total: i32::try_from(place).expect("small") * 10,
                left: false,
            })
            .collect()
    }

    fn wl(s: &RatedSeat) -> WengLinRating {
        s.rating.into()
    }

    fn assert_rating(got: Rating, want: WengLinRating, why: &str) {
        assert!(
            (got.mean - want.rating).abs() < 1e-12 && (got.deviation - want.uncertainty).abs() < 1e-12,
            "{why}: got {got:?}, the crate says {want:?}"
        );
    }

    /// Plays a whole game of `rules` with a bot of `levels[i]` in seat `i`, from `seed`.
    fn play(rules: &Ruleset, levels: &[Level], seed: u64) -> Vec<Standing> {
        let players = levels.len();
        let (mut game, _) =
            Game::new(GameConfig::new(rules.clone(), players), Seed::from_u64(seed)).expect("setup");
        while game.status() == Status::Playing {
            let (turn, _) = game.turn().expect("playing");
            let claim = (0..players)
                .map(|s| Seat(u8::try_from(s).expect("seat")))
                .filter(|s| *s != turn)
                .find_map(|s| game.bot_choice(s, levels[s.index()]).map(|a| (s, a)));
            let (seat, action) = claim.unwrap_or_else(|| {
                (
                    turn,
                    game.bot_choice(turn, levels[turn.index()])
                        .expect("a bot acts in turn"),
                )
            });
            game = game.apply(seat, action).expect("a bot's action is legal").0;
        }
        game.standings().expect("finished").to_vec()
    }

    #[test]
    fn a_seeded_game_is_rated_as_the_crate_rates_its_standings() {
        // Arrange: a continental game of four played out from a seed; two people (played by
        // the normal bot), an easy and a normal bot.
        let rules = Ruleset::default_for(Variant::Continental);
        let result = play(
            &rules,
            &[Level::Normal, Level::Easy, Level::Normal, Level::Normal],
            7,
        );
        let seats = [
            player("ann", 27.0, 5.0),
            bot(Level::Easy, 18.0, 2.0),
            player("bob", 22.5, 8.0),
            bot(Level::Normal, 25.0, 1.5),
        ];

        // Act
        let rated = RatingModel::default()
            .rate(&rules, &seats, &result)
            .expect("rated");

        // Assert: the crate's own numbers for the same places, each seat a team of one.
        let mut places = [0; 4];
        for s in &result {
            places[s.seat.index()] = s.place;
        }
        let teams: Vec<Vec<WengLinRating>> = seats.iter().map(|s| vec![wl(s)]).collect();
        let ranked: Vec<(&[WengLinRating], MultiTeamOutcome)> = teams
            .iter()
            .zip(places)
            .map(|(t, p)| (t.as_slice(), MultiTeamOutcome::new(p)))
            .collect();
        let want = weng_lin_multi_team(&ranked, &WengLinConfig::new());
        for (i, change) in rated.seats.iter().enumerate() {
            assert_eq!(change.before, seats[i].rating, "seat {i}: the rating going in");
            assert_rating(
                change.after,
                want[i][0],
                &format!("seat {i}, place {}", places[i]),
            );
        }
        let first = places.iter().position(|&p| p == 1).expect("someone won");
        assert!(
            rated.seats[first].after.mean > seats[first].rating.mean,
            "the winner gains"
        );
    }

    #[test]
    fn heads_up_agrees_with_the_crates_one_against_one() {
        let rules = Ruleset::default_for(Variant::MayI);
        let seats = [player("ann", 25.0, 25.0 / 3.0), player("bob", 30.0, 4.0)];
        let config = WengLinConfig::new();
        let rows = [
            ([2, 1], Outcomes::LOSS, "bob first"),
            ([1, 2], Outcomes::WIN, "ann first"),
            ([1, 1], Outcomes::DRAW, "equal totals share first place"),
        ];
        for (places, outcome, why) in rows {
            let rated = RatingModel::default()
                .rate(&rules, &seats, &standings(&places))
                .expect("rated");
            let (a, b) = weng_lin(&wl(&seats[0]), &wl(&seats[1]), &outcome, &config);
            assert_rating(rated.seats[0].after, a, why);
            assert_rating(rated.seats[1].after, b, why);
        }
    }

    #[test]
    fn ties_share_a_place_at_a_table_of_eight() {
        let rules = Ruleset::default_for(Variant::MayI);
        let seats: Vec<RatedSeat> = (0..8)
            .map(|i| player(&format!("p{i}"), 20.0 + f64::from(i), 3.0 + f64::from(i) / 2.0))
            .collect();
        // Seats 1 and 2 tie for second, 4, 5 and 6 for fifth.
        let places = [1, 2, 2, 4, 5, 5, 5, 8];
        let rated = RatingModel::default()
            .rate(&rules, &seats, &standings(&places))
            .expect("rated");
        let teams: Vec<[WengLinRating; 1]> = seats.iter().map(|s| [wl(s)]).collect();
        let ranked: Vec<(&[WengLinRating], MultiTeamOutcome)> = teams
            .iter()
            .zip(places)
            .map(|(t, p)| (&t[..], MultiTeamOutcome::from(p)))
            .collect();
        let want = weng_lin_multi_team(&ranked, &WengLinConfig::new());
        for (i, (change, want)) in rated.seats.iter().zip(&want).enumerate() {
            assert_rating(change.after, want[0], &format!("seat {i}"));
        }
        // Two equal seats that tie move alike; the crate treats a tie as half a win each way.
        let twins = [
            player("x", 25.0, 5.0),
            player("y", 25.0, 5.0),
            player("z", 25.0, 5.0),
        ];
        let rated = RatingModel::default()
            .rate(&rules, &twins, &standings(&[1, 1, 3]))
            .expect("rated");
        assert_eq!(
            rated.seats[0].after, rated.seats[1].after,
            "a shared place, a shared change"
        );
        assert!(rated.seats[0].after.mean > 25.0 && rated.seats[2].after.mean < 25.0);
    }

    #[test]
    fn push_partners_are_rated_as_two_teams() {
        // Partners sit opposite: seats 0 and 2 against 1 and 3.
        let rules = Ruleset::default_for(Variant::Push);
        let seats = [
            player("ann", 27.0, 4.0),
            player("bob", 24.0, 6.0),
            bot(Level::Hard, 29.0, 1.0),
            player("cid", 21.0, 7.5),
        ];
        let config = WengLinConfig::new();
        let ann_team = [wl(&seats[0]), wl(&seats[2])];
        let bob_team = [wl(&seats[1]), wl(&seats[3])];
        let rows = [
            ([1, 3, 1, 3], Outcomes::WIN, "ann's team lower"),
            ([3, 1, 3, 1], Outcomes::LOSS, "bob's team lower"),
            ([1, 1, 1, 1], Outcomes::DRAW, "the teams tie"),
            // A partner who left is placed after every finisher: the team stands by the other.
            ([1, 2, 4, 2], Outcomes::WIN, "ann's partner left"),
        ];
        for (places, outcome, why) in rows {
            let rated = RatingModel::default()
                .rate(&rules, &seats, &standings(&places))
                .expect("rated");
            let (a, b) = weng_lin_two_teams(&ann_team, &bob_team, &outcome, &config);
            assert_rating(rated.seats[0].after, a[0], why);
            assert_rating(rated.seats[2].after, a[1], why);
            assert_rating(rated.seats[1].after, b[0], why);
            assert_rating(rated.seats[3].after, b[1], why);
        }
    }

    #[test]
    fn push_played_alone_is_a_free_for_all() {
        let rules =
            Ruleset::new(Variant::Push, Some(serde_json::json!({"individual": true}))).expect("rules");
        let seats: Vec<RatedSeat> = (0..4).map(|i| player(&format!("p{i}"), 25.0, 8.0)).collect();
        let rated = RatingModel::default()
            .rate(&rules, &seats, &standings(&[1, 2, 3, 4]))
            .expect("rated");
        let means: Vec<f64> = rated.seats.iter().map(|s| s.after.mean).collect();
        assert!(
            means.windows(2).all(|w| w[0] > w[1]),
            "four places, four different changes: {means:?}"
        );
    }

    #[test]
    fn a_bot_level_learns_once_per_seat_against_the_others() {
        // One person beats three hard bots.
        let rules = Ruleset::default_for(Variant::MayI);
        let hard = (28.0, 2.0);
        let seats = [
            player("ann", 25.0, 6.0),
            bot(Level::Hard, hard.0, hard.1),
            bot(Level::Hard, hard.0, hard.1),
            bot(Level::Hard, hard.0, hard.1),
        ];
        let rated = RatingModel::default()
            .rate(&rules, &seats, &standings(&[1, 2, 3, 4]))
            .expect("rated");
        let config = WengLinConfig::new();

        // The person: the whole table, as the crate rates it.
        let teams: Vec<[WengLinRating; 1]> = seats.iter().map(|s| [wl(s)]).collect();
        let ranked: Vec<(&[WengLinRating], MultiTeamOutcome)> = teams
            .iter()
            .zip(1..)
            .map(|(t, p)| (&t[..], MultiTeamOutcome::new(p)))
            .collect();
        assert_rating(
            rated.seats[0].after,
            weng_lin_multi_team(&ranked, &config)[0][0],
            "ann",
        );

        // The level: three losses to ann in turn, each from the rating the last one left.
        let ann = wl(&seats[0]);
        let mut level = wl(&seats[1]);
        for _ in 0..3 {
            level = weng_lin(&ann, &level, &Outcomes::WIN, &config).1;
        }
        for change in &rated.seats[1..] {
            assert_rating(
                change.after,
                level,
                &format!("hard bot at seat {}", change.seat.0),
            );
        }
        let updates = rated.updates();
        assert_eq!(updates.len(), 2, "ann and the hard level, once each: {updates:?}");
        assert_eq!(updates[1], (&Participant::Bot(Level::Hard), rated.seats[1].after));
    }

    #[test]
    fn a_bot_in_a_partnership_learns_from_the_whole_game() {
        let rules = Ruleset::default_for(Variant::Push);
        let seats = [
            player("ann", 25.0, 6.0),
            bot(Level::Normal, 24.0, 2.0),
            player("bob", 26.0, 5.0),
            player("cid", 23.0, 7.0),
        ];
        let rated = RatingModel::default()
            .rate(&rules, &seats, &standings(&[1, 3, 1, 3]))
            .expect("rated");
        let (_, losers) = weng_lin_two_teams(
            &[wl(&seats[0]), wl(&seats[2])],
            &[wl(&seats[1]), wl(&seats[3])],
            &Outcomes::WIN,
            &WengLinConfig::new(),
        );
        assert_rating(rated.seats[1].after, losers[0], "the normal bot lost with cid");
    }

    #[test]
    fn seats_and_standings_must_describe_one_game() {
        let rules = Ruleset::default_for(Variant::MayI);
        let two = [player("ann", 25.0, 8.0), player("bob", 25.0, 8.0)];
        let model = RatingModel::default();
        let rows: [(&[RatedSeat], Vec<Standing>, RatingError, &str); 5] = [
            (&two[..1], standings(&[1]), RatingError::TooFewSeats, "one seat"),
            (
                &two,
                standings(&[1]),
                RatingError::Standings { seats: 2 },
                "a seat without a place",
            ),
            (
                &two,
                vec![standings(&[1])[0].clone(), standings(&[1])[0].clone()],
                RatingError::Standings { seats: 2 },
                "a seat placed twice",
            ),
            (
                &two,
                standings(&[0, 1]),
                RatingError::Standings { seats: 2 },
                "place 0",
            ),
            (
                &[player("ann", 25.0, 8.0), player("ann", 20.0, 8.0)],
                standings(&[1, 2]),
                RatingError::PlayerTwice(PlayerId::try_from("ann").expect("id")),
                "one player in two seats",
            ),
        ];
        for (seats, standings, error, why) in rows {
            assert_eq!(model.rate(&rules, seats, &standings), Err(error), "{why}");
        }
        let split = [bot(Level::Easy, 20.0, 2.0), bot(Level::Easy, 21.0, 2.0)];
        assert_eq!(
            model.rate(&rules, &split, &standings(&[1, 2])),
            Err(RatingError::LevelRatings(Level::Easy)),
            "a level has one rating"
        );
    }

    #[test]
    fn leaderboards_sort_by_the_conservative_value_then_the_id() {
        let id = |s: &str| PlayerId::try_from(s).expect("id");
        let r = |mean, deviation| Rating { mean, deviation };
        // Conservative values 21, 20, 21 and 0.
        let mut rows = [
            (id("c"), r(30.0, 3.0)),
            (id("b"), r(35.0, 5.0)),
            (id("a"), r(27.0, 2.0)),
            (id("d"), Rating::initial()),
        ];
        rows.sort_by(|x, y| leaderboard_order((&x.0, x.1), (&y.0, y.1)));
        let order: Vec<&str> = rows.iter().map(|(p, _)| p.as_str()).collect();
        assert_eq!(order, ["a", "c", "b", "d"]);
        assert!(
            Rating::initial().conservative().abs() < 1e-9,
            "a new player starts at 0"
        );
    }

    #[test]
    fn the_display_scale_is_sixty_points_a_unit() {
        assert_eq!(Rating::initial().display(), 1500, "a new player shows 1500");
        let beta = Rating {
            mean: 25.0 + 25.0 / 6.0,
            deviation: 1.0,
        };
        assert_eq!(
            beta.display() - Rating::initial().display(),
            250,
            "β is 250 points"
        );
        assert_eq!(Rating::initial().conservative_display(), 0);
        assert_eq!(
            Rating {
                mean: 27.0,
                deviation: 2.0
            }
            .conservative_display(),
            1260
        );
    }

    #[test]
    fn a_participant_reads_back_from_its_key() {
        let rows = [
            Participant::Player(PlayerId::try_from("u-1:x").expect("id")),
            Participant::Bot(Level::Easy),
            Participant::Bot(Level::Hard),
        ];
        for p in rows {
            assert_eq!(Participant::from_key(&p.key()), Some(p.clone()), "{}", p.key());
        }
        assert_eq!(Participant::from_key("bot:genius"), None);
        assert_eq!(Participant::from_key("player:"), None, "an empty id is no player");
        assert_eq!(Participant::from_key("u-1"), None);
    }

    #[test]
    fn every_level_of_every_variant_has_a_seed_ordered_by_strength() {
        for variant in Variant::ALL {
            let seeds: Vec<Rating> = Level::iter().map(|l| bot_seed(variant, l)).collect();
            assert!(
                bot_seeds().filter(|(v, _, _)| *v == variant).count() == seeds.len(),
                "{variant}: a seed per level"
            );
            assert!(
                seeds.windows(2).all(|w| w[0].mean < w[1].mean),
                "{variant}: easy < normal < hard: {seeds:?}"
            );
        }
        assert_eq!(
            Participant::Player(PlayerId::try_from("a").expect("id")).unrated(Variant::Push),
            Rating::initial()
        );
        assert_eq!(
            Participant::Bot(Level::Hard).unrated(Variant::Push),
            bot_seed(Variant::Push, Level::Hard)
        );
    }
}
