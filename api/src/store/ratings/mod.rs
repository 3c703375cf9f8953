//! The statements of ratings, players and leaderboards (docs/ratings.md): their text, written
//! once for PostgreSQL (one server or a Citus cluster, where `ratings` and `rated_games` are
//! distributed by tenant) and SQLite, and the reading of their rows. Both stores run them by
//! the same code (`run.rs`), which the [`Store`](super::Store) methods call, beginning
//! transactions and holding rows as each store's dialect says.

mod run;

pub(super) use run::SqlRatings;

use std::collections::HashMap;

use sqlx::{ColumnIndex, Database, Decode, Encode, QueryBuilder, Row, Type};

use super::{BoardCursor, BoardPage, BoardRow, PlayerRating, Standing, StoreError};
use crate::domain::Rating;

/// The stored text of each of `participants`' keys, for an `IN` list.
pub(super) fn keys(participants: &[crate::domain::Participant]) -> Vec<String> {
    participants.iter().map(crate::domain::Participant::key).collect()
}

/// Each of `participants`' keys with the rating its row starts from, once each, in the keys'
/// order: the order their rows are held in.
pub(super) fn starts(
    participants: &[(crate::domain::Participant, crate::domain::Rating)],
) -> Vec<(String, crate::domain::Rating)> {
    let mut starts: Vec<_> = participants.iter().map(|(p, start)| (p.key(), *start)).collect();
    starts.sort_by(|a, b| a.0.cmp(&b.0));
    starts.dedup_by(|a, b| a.0 == b.0);
    starts
}

/// Buckets of a leaderboard's counts per unit of the conservative value: a power of two, so
/// that a bucket's bounds and a value's bucket are exact in floating point, as the database
/// compares them (about one display point a bucket).
const BUCKETS_PER_UNIT: f64 = 64.0;

/// The bucket of `board_counts` a player of conservative value `conservative` is counted in.
#[expect(
    clippy::cast_possible_truncation,
    reason = "a conservative value is a few hundred units at most: its bucket fits"
)]
pub(super) fn bucket(conservative: f64) -> i64 {
    (conservative * BUCKETS_PER_UNIT).floor() as i64
}

/// The value where bucket `bucket` ends: every value of the bucket is below it.
#[expect(clippy::cast_precision_loss, reason = "a bucket is far below 2^53: exact")]
pub(super) fn bucket_end(bucket: i64) -> f64 {
    (bucket + 1) as f64 / BUCKETS_PER_UNIT
}

/// How `board_counts` changes when the players `inserted` (their rows made at their unrated
/// value, `stored`) and the ratings `written` (each row's value before, in `stored`) land:
/// per bucket, in the buckets' order (the order two ratings lock them in), no bucket left
/// unchanged.
pub(super) fn bucket_changes(
    inserted: &[String],
    stored: &std::collections::HashMap<String, crate::domain::Rating>,
    written: &[(String, crate::domain::Rating)],
) -> Vec<(i64, i64)> {
    let on_board = |key: &str| key.starts_with("player:");
    let mut changes = std::collections::BTreeMap::<i64, i64>::new();
    for key in inserted.iter().filter(|k| on_board(k)) {
        if let Some(unrated) = stored.get(key) {
            *changes.entry(bucket(unrated.conservative())).or_default() += 1;
        }
    }
    for (key, rating) in written.iter().filter(|(k, _)| on_board(k)) {
        if let Some(before) = stored.get(key) {
            *changes.entry(bucket(before.conservative())).or_default() -= 1;
            *changes.entry(bucket(rating.conservative())).or_default() += 1;
        }
    }
    changes.into_iter().filter(|(_, n)| *n != 0).collect()
}

/// Up to `limit` games of `due` (the table, or one of its shards) waiting to be rated and not
/// leased at `now`, the longest waiting first.
pub(super) fn rating_candidates_sql(due: &str, now: &str, limit: &str) -> String {
    format!(
        "SELECT game_id, tenant, due_at FROM {due} WHERE lease_until <= {now} ORDER BY due_at LIMIT {limit}"
    )
}

/// The statement of a player's standing ([`Store::standing`](super::Store::standing)), with
/// `bytes` the store's byte order: `$1` tenant, `$2` variant, `$3` the player's key, `$4` their
/// conservative value negated, `$5` its bucket, `$6` where the bucket ends, negated, `$7` and
/// `$8` the rows wanted above and below. Their row (side 0) with the players ahead (the counts
/// of the buckets above theirs, and the rows of their own bucket ahead of them) and on the
/// board, then the rows just above (side -1) and just below (side 1).
pub(super) fn standing_sql(bytes: &str) -> String {
    let board = "FROM ratings WHERE tenant = $1 AND variant = $2 AND participant LIKE 'player:%'";
    format!(
        "SELECT * FROM (SELECT participant, mean, deviation, games, (mean - 3 * deviation) AS conservative, \
               0 AS side, \
               CAST((SELECT COALESCE(SUM(players), 0) FROM board_counts WHERE tenant = $1 AND variant = $2 AND bucket > $5) \
                 + (SELECT COUNT(*) {board} AND 3 * deviation - mean > $6 AND 3 * deviation - mean <= $4 \
                    AND (3 * deviation - mean, participant{bytes}) < ($4, $3)) AS BIGINT) AS ahead, \
               CAST((SELECT COALESCE(SUM(players), 0) FROM board_counts WHERE tenant = $1 AND variant = $2) AS BIGINT) AS players \
             FROM ratings WHERE tenant = $1 AND variant = $2 AND participant = $3) AS own \
             UNION ALL \
             SELECT * FROM (SELECT participant, mean, deviation, games, (mean - 3 * deviation) AS conservative, \
               -1 AS side, CAST(0 AS BIGINT) AS ahead, CAST(0 AS BIGINT) AS players {board} \
               AND 3 * deviation - mean <= $4 AND (3 * deviation - mean, participant{bytes}) < ($4, $3) \
               ORDER BY 3 * deviation - mean DESC, participant{bytes} DESC LIMIT $7) AS above \
             UNION ALL \
             SELECT * FROM (SELECT participant, mean, deviation, games, (mean - 3 * deviation) AS conservative, \
               1 AS side, CAST(0 AS BIGINT) AS ahead, CAST(0 AS BIGINT) AS players {board} \
               AND 3 * deviation - mean >= $4 AND (3 * deviation - mean, participant{bytes}) > ($4, $3) \
               ORDER BY 3 * deviation - mean, participant{bytes} LIMIT $8) AS below"
    )
}

/// The columns of a leaderboard's row ([`BoardRow`](super::BoardRow)).
pub(super) const BOARD_COLUMNS: &str =
    "SELECT participant, mean, deviation, games, (mean - 3 * deviation) AS conservative";

/// A game that may be claimed for rating.
#[derive(serde::Deserialize)]
pub(super) struct RatingCandidate {
    pub(super) game_id: uuid::Uuid,
    pub(super) tenant: String,
    pub(super) due_at: i64,
}

/// Claims game `$1` for rating, leased until `$2`, if its lease ran out by `$3`.
const CLAIM_RATING: &str = "UPDATE ratings_due SET lease_until = $2 WHERE game_id = $1 AND lease_until <= $3";

/// Takes game `$1` off the rating queue.
const RATING_DONE: &str = "DELETE FROM ratings_due WHERE game_id = $1";

/// The changes kept with game `$2` of tenant `$1` once it was rated.
const RATED_CHANGES: &str = "SELECT changes FROM rated_games WHERE tenant = $1 AND game_id = $2";

/// The marker that game `$2` of tenant `$1` (variant `$3`) is rated, with its changes `$4`, at
/// `$5`; nothing when another rating of it came first.
const MARK_RATED: &str = "INSERT INTO rated_games (tenant, game_id, variant, changes, rated_at) \
    VALUES ($1, $2, $3, $4, $5) ON CONFLICT (tenant, game_id) DO NOTHING";

/// Participant `$3`'s new rating (`$4`, `$5`) in variant `$2` of tenant `$1`, one game more and
/// `$6` won more, at `$7`.
const WRITE_RATING: &str = "UPDATE ratings SET mean = $4, deviation = $5, games = games + 1, won = won + $6, \
    updated_at = $7 WHERE tenant = $1 AND variant = $2 AND participant = $3";

/// Player `$2`'s rows of tenant `$1`, by variant: a range of `ratings_by_participant`.
const PLAYER_RATINGS: &str = "SELECT variant, mean, deviation, games, won FROM ratings \
    WHERE tenant = $1 AND participant = $2 ORDER BY variant";

/// How many games of tenant `$1` player `$2` sat at, and how many of them finished.
const PLAYER_GAMES: &str = "SELECT COUNT(*) AS games, \
    COALESCE(SUM(CASE WHEN status = 'finished' THEN 1 ELSE 0 END), 0) AS finished \
    FROM games WHERE tenant = $1 AND id IN (SELECT game_id FROM seats WHERE player = $2)";

/// One statement of a player's reads, and the column an index must find its rows by.
#[derive(Clone, Debug)]
pub struct PlayerStatement {
    /// The SQL text, as the store sends it: `$1` the tenant, `$2` the player (their key for
    /// `ratings`, their id for `seats`), then a listing's cursor and limit where it has them.
    pub sql: String,
    /// The column an index must find the player's rows by (`participant`, `player`).
    pub by: &'static str,
}

/// Every statement a player's reads run (docs/performance.md#player-reads), for tests of their
/// plans: the profile's two (their ratings, their games counted), and a page of their games,
/// the first and one after a cursor.
pub fn player_sql() -> Vec<PlayerStatement> {
    let page = |after: Option<super::Cursor>| super::GameListing {
        status: None,
        player: Some(crate::domain::PlayerId::try_from("any").expect("an id")),
        limit: 1,
        after,
    };
    let cursor = super::Cursor {
        created_us: 0,
        id: uuid::Uuid::nil(),
    };
    vec![
        PlayerStatement {
            sql: PLAYER_RATINGS.to_owned(),
            by: "participant",
        },
        PlayerStatement {
            sql: PLAYER_GAMES.to_owned(),
            by: "player",
        },
        PlayerStatement {
            sql: super::list_sql(&page(None)),
            by: "player",
        },
        PlayerStatement {
            sql: super::list_sql(&page(Some(cursor))),
            by: "player",
        },
    ]
}

/// Participant `$3`'s rating in variant `$2` of tenant `$1`.
const OWN_RATING: &str =
    "SELECT mean, deviation FROM ratings WHERE tenant = $1 AND variant = $2 AND participant = $3";

/// Makes the rows of `starts` (each key with the rating its row starts from) that `tenant` has
/// not in `variant`, at `at`, returning the keys of the rows made: one statement.
fn insert_missing_statement<DB: Database>(
    tenant: &str,
    variant: engine::Variant,
    starts: &[(String, Rating)],
    at: i64,
) -> QueryBuilder<DB>
where
    DB::Arguments: Default,
    i64: for<'t> Encode<'t, DB> + Type<DB>,
    f64: for<'t> Encode<'t, DB> + Type<DB>,
    for<'a, 't> &'a str: Encode<'t, DB> + Type<DB>,
{
    let mut insert = QueryBuilder::<DB>::new(
        "INSERT INTO ratings (tenant, variant, participant, mean, deviation, games, won, updated_at) ",
    );
    insert.push_values(starts, |mut row, (key, start)| {
        row.push_bind(tenant)
            .push_bind(variant.id())
            .push_bind(key.as_str())
            .push_bind(start.mean)
            .push_bind(start.deviation)
            .push_bind(0_i64)
            .push_bind(0_i64)
            .push_bind(at);
    });
    insert.push(" ON CONFLICT (tenant, variant, participant) DO NOTHING RETURNING participant");
    insert
}

/// The statement that reads `tenant`'s rows in `variant` of `keys`, each store's way of
/// holding them (`lock`) appended after `order` when given.
fn rows_of<DB: Database>(
    tenant: &str,
    variant: engine::Variant,
    keys: &[String],
    order: Option<&str>,
) -> QueryBuilder<DB>
where
    DB::Arguments: Default,
    for<'a, 't> &'a str: Encode<'t, DB> + Type<DB>,
{
    let mut query =
        QueryBuilder::<DB>::new("SELECT participant, mean, deviation FROM ratings WHERE tenant = ");
    query
        .push_bind(tenant)
        .push(" AND variant = ")
        .push_bind(variant.id())
        .push(" AND participant IN (");
    let mut list = query.separated(", ");
    for key in keys {
        list.push_bind(key.as_str());
    }
    list.push_unseparated(")");
    if let Some(order) = order {
        query.push(order);
    }
    query
}

/// Adds `changes` (per bucket, players in or out) to `tenant`'s leaderboard counts in
/// `variant`: one statement.
fn board_counts_statement<DB: Database>(
    tenant: &str,
    variant: engine::Variant,
    changes: &[(i64, i64)],
) -> QueryBuilder<DB>
where
    DB::Arguments: Default,
    i64: for<'t> Encode<'t, DB> + Type<DB>,
    for<'a, 't> &'a str: Encode<'t, DB> + Type<DB>,
{
    let mut counts = QueryBuilder::<DB>::new("INSERT INTO board_counts (tenant, variant, bucket, players) ");
    counts.push_values(changes, |mut row, (bucket, n)| {
        row.push_bind(tenant)
            .push_bind(variant.id())
            .push_bind(*bucket)
            .push_bind(*n);
    });
    counts.push(
        " ON CONFLICT (tenant, variant, bucket) DO UPDATE SET players = board_counts.players + excluded.players",
    );
    counts
}

/// One page of `tenant`'s players in `variant` after `after`, at most `limit` and one more, by
/// keyset on the index `ratings_keyset` (the conservative value negated, then the key compared
/// by its bytes as `bytes` says), each row with the players ahead of the page (`ahead`).
///
/// The players ahead are counted as a standing counts them ([`standing_sql`]), up to and with
/// the cursor's place: the counts of the buckets above its bucket, and the rows of its own
/// bucket up to it, a short range of the same index. One statement, so the page and its ranks
/// are of one snapshot, and ranks are the board's as it is now, however it moved since the
/// cursor was given.
fn leaderboard_statement<DB: Database>(
    bytes: &str,
    tenant: &str,
    variant: engine::Variant,
    limit: u32,
    after: Option<&BoardCursor>,
) -> QueryBuilder<DB>
where
    DB::Arguments: Default,
    i64: for<'t> Encode<'t, DB> + Type<DB>,
    f64: for<'t> Encode<'t, DB> + Type<DB>,
    for<'a, 't> &'a str: Encode<'t, DB> + Type<DB>,
{
    let mut query = QueryBuilder::<DB>::new(BOARD_COLUMNS);
    match after {
        Some(after) => {
            let bucket = bucket(after.conservative);
            query
                .push(", CAST((SELECT COALESCE(SUM(players), 0) FROM board_counts WHERE tenant = ")
                .push_bind(tenant)
                .push(" AND variant = ")
                .push_bind(variant.id())
                .push(" AND bucket > ")
                .push_bind(bucket)
                .push(") + (SELECT COUNT(*) FROM ratings WHERE tenant = ")
                .push_bind(tenant)
                .push(" AND variant = ")
                .push_bind(variant.id())
                .push(" AND participant LIKE 'player:%' AND 3 * deviation - mean > ")
                .push_bind(-bucket_end(bucket))
                .push(" AND 3 * deviation - mean <= ")
                .push_bind(-after.conservative)
                .push(format!(" AND (3 * deviation - mean, participant{bytes}) <= ("))
                .push_bind(-after.conservative)
                .push(", ")
                .push_bind(after.participant.as_str())
                .push(")) AS BIGINT) AS ahead");
        }
        None => {
            query.push(", CAST(0 AS BIGINT) AS ahead");
        }
    }
    query
        .push(" FROM ratings WHERE tenant = ")
        .push_bind(tenant)
        .push(" AND variant = ")
        .push_bind(variant.id())
        .push(" AND participant LIKE 'player:%'");
    if let Some(after) = after {
        // The scalar bound is the one SQLite's planner ranges on; the row value is the exact
        // keyset (and PostgreSQL's range).
        query
            .push(" AND 3 * deviation - mean >= ")
            .push_bind(-after.conservative)
            .push(format!(" AND (3 * deviation - mean, participant{bytes}) > ("))
            .push_bind(-after.conservative)
            .push(", ")
            .push_bind(after.participant.as_str())
            .push(")");
    }
    query
        .push(format!(
            " ORDER BY 3 * deviation - mean, participant{bytes} LIMIT "
        ))
        .push_bind(i64::from(limit) + 1);
    query
}

/// A page from the rows of [`leaderboard_statement`].
fn board_page<R: Row>(rows: &[R]) -> Result<BoardPage, StoreError>
where
    for<'a> &'a str: ColumnIndex<R>,
    f64: for<'a> Decode<'a, R::Database> + Type<R::Database>,
    i64: for<'a> Decode<'a, R::Database> + Type<R::Database>,
    String: for<'a> Decode<'a, R::Database> + Type<R::Database>,
{
    let ahead = match rows.first() {
        Some(r) => u64::try_from(r.try_get::<i64, _>("ahead")?).unwrap_or(0),
        None => 0,
    };
    Ok(BoardPage {
        rows: rows.iter().map(board_row).collect::<Result<_, _>>()?,
        ahead,
    })
}

/// The rating of a row with `mean` and `deviation`.
fn rating_of<R: Row>(r: &R) -> Result<Rating, StoreError>
where
    for<'a> &'a str: ColumnIndex<R>,
    f64: for<'a> Decode<'a, R::Database> + Type<R::Database>,
{
    Ok(Rating {
        mean: r.try_get("mean")?,
        deviation: r.try_get("deviation")?,
    })
}

/// The ratings of rows read by [`rows_of`], by participant key.
fn ratings_by_key<R: Row>(rows: &[R]) -> Result<HashMap<String, Rating>, StoreError>
where
    for<'a> &'a str: ColumnIndex<R>,
    f64: for<'a> Decode<'a, R::Database> + Type<R::Database>,
    String: for<'a> Decode<'a, R::Database> + Type<R::Database>,
{
    let mut stored = HashMap::with_capacity(rows.len());
    for r in rows {
        stored.insert(r.try_get("participant")?, rating_of(r)?);
    }
    Ok(stored)
}

/// A row of [`PLAYER_RATINGS`].
fn player_rating<R: Row>(r: &R) -> Result<PlayerRating, StoreError>
where
    for<'a> &'a str: ColumnIndex<R>,
    f64: for<'a> Decode<'a, R::Database> + Type<R::Database>,
    i64: for<'a> Decode<'a, R::Database> + Type<R::Database>,
    String: for<'a> Decode<'a, R::Database> + Type<R::Database>,
{
    Ok(PlayerRating {
        variant: r.try_get("variant")?,
        rating: rating_of(r)?,
        games: r.try_get("games")?,
        won: r.try_get("won")?,
    })
}

/// A row of [`BOARD_COLUMNS`].
fn board_row<R: Row>(r: &R) -> Result<BoardRow, StoreError>
where
    for<'a> &'a str: ColumnIndex<R>,
    f64: for<'a> Decode<'a, R::Database> + Type<R::Database>,
    i64: for<'a> Decode<'a, R::Database> + Type<R::Database>,
    String: for<'a> Decode<'a, R::Database> + Type<R::Database>,
{
    Ok(BoardRow {
        participant: r.try_get("participant")?,
        rating: rating_of(r)?,
        games: r.try_get("games")?,
        conservative: r.try_get("conservative")?,
    })
}

/// A row of [`rating_candidates_sql`].
fn candidate_row<R: Row>(r: &R) -> Result<RatingCandidate, StoreError>
where
    for<'a> &'a str: ColumnIndex<R>,
    uuid::Uuid: for<'a> Decode<'a, R::Database> + Type<R::Database>,
    i64: for<'a> Decode<'a, R::Database> + Type<R::Database>,
    String: for<'a> Decode<'a, R::Database> + Type<R::Database>,
{
    Ok(RatingCandidate {
        game_id: r.try_get("game_id")?,
        tenant: r.try_get("tenant")?,
        due_at: r.try_get("due_at")?,
    })
}

/// Where a player stands, from the rows of [`standing_sql`]: their own (side 0, with the
/// players ahead and on the board), those above (side -1) and below (side 1), each in the
/// board's order; `None` when their row is gone.
fn standing_of<R: Row>(rows: &[R]) -> Result<Option<Standing>, StoreError>
where
    for<'a> &'a str: ColumnIndex<R>,
    f64: for<'a> Decode<'a, R::Database> + Type<R::Database>,
    i64: for<'a> Decode<'a, R::Database> + Type<R::Database>,
    i32: for<'a> Decode<'a, R::Database> + Type<R::Database>,
    String: for<'a> Decode<'a, R::Database> + Type<R::Database>,
{
    let mut standing = None;
    let (mut ahead_rows, mut below_rows) = (Vec::new(), Vec::new());
    for r in rows {
        let side: i32 = r.try_get("side")?;
        let row = board_row(r)?;
        match side {
            0 => {
                let count = |c: &str| -> Result<u64, StoreError> {
                    let n: i64 = r.try_get(c)?;
                    Ok(u64::try_from(n).unwrap_or(0))
                };
                standing = Some((row, count("ahead")?, count("players")?));
            }
            s if s < 0 => ahead_rows.push(row),
            _ => below_rows.push(row),
        }
    }
    let Some((own, ahead, players)) = standing else {
        return Ok(None);
    };
    let key = |r: &BoardRow| (-r.conservative, r.participant.clone());
    ahead_rows.sort_by(|a, b| key(a).partial_cmp(&key(b)).unwrap_or(std::cmp::Ordering::Equal));
    below_rows.sort_by(|a, b| key(a).partial_cmp(&key(b)).unwrap_or(std::cmp::Ordering::Equal));
    Ok(Some(Standing {
        own,
        ahead,
        players,
        above: ahead_rows,
        below: below_rows,
    }))
}

/// How many times a standing is read when the player's rating moves between its two reads: a
/// third read is taken as it is.
const STANDING_READS: u32 = 3;
