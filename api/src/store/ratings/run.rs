//! Ratings, players and leaderboards run once for both stores ([`SqlRatings`]): each store's
//! dialect holds its rows (`FOR UPDATE` on PostgreSQL, the database's write lock on SQLite) and
//! compares keys by their bytes (`COLLATE "C"`, SQLite's own `BINARY`).

use std::collections::HashMap;

use sqlx::{AssertSqlSafe, ColumnIndex, Database, Decode, Encode, Executor, IntoArguments, Row, Type};
use uuid::Uuid;

use super::super::run::Conn;
use super::super::sql::{Dialect, RowsAffected as _};
use super::super::{
    BoardCursor, BoardPage, PlayerRecord, RatedRow, RatingDue, RatingWrite, Standing, StoreError, now,
};
use super::{
    CLAIM_RATING, MARK_RATED, OWN_RATING, PLAYER_GAMES, PLAYER_RATINGS, RATED_CHANGES, RATING_DONE,
    RatingCandidate, STANDING_READS, WRITE_RATING, board_counts_statement, board_page, bucket,
    bucket_changes, bucket_end, candidate_row, insert_missing_statement, keys, leaderboard_statement,
    player_rating, rating_candidates_sql, rating_of, ratings_by_key, rows_of, standing_of, standing_sql,
    starts,
};
use crate::domain::{GameStatus, Participant, PlayerId, Rating};

/// The ratings' statements, run by each SQL store: all but where the rating pass finds its
/// candidates ([`SqlRatings::rating_candidates`]: shard by shard on a Citus cluster).
pub(in crate::store) trait SqlRatings: Dialect
where
    for<'c> &'c mut Conn<Self>: Executor<'c, Database = Self::Db>,
    <Self::Db as Database>::Arguments: Default + IntoArguments<Self::Db>,
    for<'a> &'a str: ColumnIndex<<Self::Db as Database>::Row>,
    usize: ColumnIndex<<Self::Db as Database>::Row>,
    for<'a, 't> &'a str: Encode<'t, Self::Db> + Type<Self::Db>,
    for<'a> &'a [u8]: Encode<'a, Self::Db> + Type<Self::Db>,
    for<'a> Option<&'a str>: Encode<'a, Self::Db> + Type<Self::Db>,
    Option<String>: for<'t> Encode<'t, Self::Db> + Type<Self::Db>,
    Option<i64>: for<'t> Encode<'t, Self::Db> + Type<Self::Db>,
    i32: for<'t> Encode<'t, Self::Db> + for<'r> Decode<'r, Self::Db> + Type<Self::Db>,
    i64: for<'t> Encode<'t, Self::Db> + for<'r> Decode<'r, Self::Db> + Type<Self::Db>,
    f64: for<'t> Encode<'t, Self::Db> + for<'r> Decode<'r, Self::Db> + Type<Self::Db>,
    bool: for<'t> Encode<'t, Self::Db> + for<'r> Decode<'r, Self::Db> + Type<Self::Db>,
    String: for<'t> Encode<'t, Self::Db> + for<'r> Decode<'r, Self::Db> + Type<Self::Db>,
    Vec<u8>: for<'t> Encode<'t, Self::Db> + for<'r> Decode<'r, Self::Db> + Type<Self::Db>,
    Uuid: for<'t> Encode<'t, Self::Db> + for<'r> Decode<'r, Self::Db> + Type<Self::Db>,
    GameStatus: for<'t> Encode<'t, Self::Db> + for<'r> Decode<'r, Self::Db> + Type<Self::Db>,
{
    /// The candidates of [`Store::claim_ratings`](super::super::Store::claim_ratings).
    async fn rating_candidates(&self, now: i64, limit: i64) -> Result<Vec<RatingCandidate>, StoreError>;

    /// [`Store::ratings`](super::super::Store::ratings): one read of the tenant's rows.
    async fn ratings_of(
        &self,
        tenant: &str,
        variant: engine::Variant,
        participants: &[Participant],
    ) -> Result<Vec<Option<Rating>>, StoreError> {
        if participants.is_empty() {
            return Ok(Vec::new());
        }
        let keys = keys(participants);
        let rows = rows_of::<Self::Db>(tenant, variant, &keys, None)
            .build()
            .fetch_all(self.pool())
            .await?;
        let stored = ratings_by_key(&rows)?;
        Ok(keys.iter().map(|key| stored.get(key).copied()).collect())
    }

    /// [`Store::claim_ratings`](super::super::Store::claim_ratings): candidates read without a
    /// lock, each claimed by a conditional update of its own row (its game's shard, on a
    /// cluster).
    async fn claim_ratings_in(&self, now: i64, lease: i64, limit: i64) -> Result<Vec<RatingDue>, StoreError> {
        let candidates = self.rating_candidates(now, limit).await?;
        let mut claimed = Vec::with_capacity(candidates.len());
        for candidate in candidates {
            let game = candidate.game_id;
            let taken = sqlx::query(CLAIM_RATING)
                .bind(game)
                .bind(now + lease)
                .bind(now)
                .execute(self.writer_of(game).await)
                .await?;
            if taken.rows_affected() == 1 {
                claimed.push(RatingDue {
                    game,
                    tenant: candidate.tenant,
                });
            }
        }
        Ok(claimed)
    }

    /// The candidates of [`Store::claim_ratings`](super::super::Store::claim_ratings) in one
    /// query (one server).
    async fn rating_candidates_in_one(
        &self,
        now: i64,
        limit: i64,
    ) -> Result<Vec<RatingCandidate>, StoreError> {
        let rows = sqlx::query(AssertSqlSafe(rating_candidates_sql("ratings_due", "$1", "$2")))
            .bind(now)
            .bind(limit)
            .fetch_all(self.pool())
            .await?;
        rows.iter().map(candidate_row).collect()
    }

    /// [`Store::rating_done`](super::super::Store::rating_done).
    async fn rating_done_in(&self, game: Uuid) -> Result<(), StoreError> {
        sqlx::query(RATING_DONE)
            .bind(game)
            .execute(self.writer_of(game).await)
            .await?;
        Ok(())
    }

    /// [`Store::rate_game`](super::super::Store::rate_game): one transaction on the tenant's
    /// rows. The marker first (a game rated already is answered with its changes); then every
    /// participant's row, made from the rating it starts from when missing and then held, in
    /// the order of their keys (so that two games rated at once wait for each other, never
    /// deadlock); then the marker inserted (nothing else written if another rating of the game
    /// won the race), the new ratings and the leaderboard's counts.
    async fn rate_game_in<E, F>(
        &self,
        tenant: &str,
        game: Uuid,
        variant: engine::Variant,
        participants: &[(Participant, Rating)],
        decide: F,
    ) -> Result<String, E>
    where
        E: From<StoreError>,
        F: FnOnce(&[(Participant, Rating)]) -> Result<RatingWrite, E>,
    {
        let mut tx = Self::begin(self.writer()).await.map_err(StoreError::from)?;
        if let Some(changes) = Self::rated_changes(&mut tx, tenant, game).await? {
            return Ok(changes);
        }
        let at = now();
        let starts = starts(participants);
        let inserted = Self::insert_missing(&mut tx, tenant, variant, &starts, at).await?;
        let keys: Vec<String> = starts.into_iter().map(|(key, _)| key).collect();
        let stored = Self::hold_ratings(&mut tx, tenant, variant, &keys).await?;
        let ratings: Vec<_> = participants
            .iter()
            .map(|(p, start)| (p.clone(), stored.get(&p.key()).copied().unwrap_or(*start)))
            .collect();
        let write = decide(&ratings)?;
        if !Self::mark_rated(&mut tx, tenant, game, variant, &write.changes, at).await? {
            // Rated by another pass since the marker was read: its changes stand.
            drop(tx);
            let mut conn = self.pool().acquire().await.map_err(StoreError::from)?;
            return Ok(Self::rated_changes(&mut conn, tenant, game)
                .await?
                .unwrap_or(write.changes));
        }
        Self::write_ratings(&mut tx, tenant, variant, &write.rows, at).await?;
        // The leaderboard's counts move in the same transaction (docs/ratings.md#leaderboards).
        let written: Vec<_> = write
            .rows
            .iter()
            .map(|r| (r.participant.key(), r.rating))
            .collect();
        let changes = bucket_changes(&inserted, &stored, &written);
        Self::move_board_counts(&mut tx, tenant, variant, &changes).await?;
        tx.commit().await.map_err(StoreError::from)?;
        Ok(write.changes)
    }

    /// The changes kept with game `game` of `tenant` once it was rated.
    async fn rated_changes(
        conn: &mut Conn<Self>,
        tenant: &str,
        game: Uuid,
    ) -> Result<Option<String>, StoreError> {
        let row = sqlx::query(RATED_CHANGES)
            .bind(tenant)
            .bind(game)
            .fetch_optional(&mut *conn)
            .await?;
        Ok(row.map(|r| r.try_get("changes")).transpose()?)
    }

    /// Makes the rows of `starts` that `tenant` has not in `variant`: the keys of the rows made.
    async fn insert_missing(
        conn: &mut Conn<Self>,
        tenant: &str,
        variant: engine::Variant,
        starts: &[(String, Rating)],
        at: i64,
    ) -> Result<Vec<String>, StoreError> {
        let mut insert = insert_missing_statement::<Self::Db>(tenant, variant, starts, at);
        let rows = insert.build().fetch_all(&mut *conn).await?;
        Ok(rows
            .iter()
            .map(|r| r.try_get::<String, _>("participant"))
            .collect::<Result<Vec<_>, _>>()?)
    }

    /// The rows of `keys` (sorted) read and held until the commit, in the keys' order.
    async fn hold_ratings(
        conn: &mut Conn<Self>,
        tenant: &str,
        variant: engine::Variant,
        keys: &[String],
    ) -> Result<HashMap<String, Rating>, StoreError> {
        // In the keys' order, held until the commit.
        let order = format!(" ORDER BY participant{}", Self::FOR_UPDATE);
        let mut held = rows_of::<Self::Db>(tenant, variant, keys, Some(&order));
        let rows = held.build().fetch_all(&mut *conn).await?;
        ratings_by_key(&rows)
    }

    /// Inserts the marker that game `game` is rated, with its `changes`; `false` when another
    /// rating of it came first (then nothing is to be written).
    async fn mark_rated(
        conn: &mut Conn<Self>,
        tenant: &str,
        game: Uuid,
        variant: engine::Variant,
        changes: &str,
        at: i64,
    ) -> Result<bool, StoreError> {
        let marked = sqlx::query(MARK_RATED)
            .bind(tenant)
            .bind(game)
            .bind(variant.id())
            .bind(changes)
            .bind(at)
            .execute(&mut *conn)
            .await?;
        Ok(marked.rows_affected() == 1)
    }

    /// Writes each of `rows`' new rating, one game more and, for a winner, one won.
    async fn write_ratings(
        conn: &mut Conn<Self>,
        tenant: &str,
        variant: engine::Variant,
        rows: &[RatedRow],
        at: i64,
    ) -> Result<(), StoreError> {
        for row in rows {
            sqlx::query(WRITE_RATING)
                .bind(tenant)
                .bind(variant.id())
                .bind(row.participant.key())
                .bind(row.rating.mean)
                .bind(row.rating.deviation)
                .bind(i64::from(row.won))
                .bind(at)
                .execute(&mut *conn)
                .await?;
        }
        Ok(())
    }

    /// Adds `changes` (per bucket, players in or out) to the leaderboard's counts.
    async fn move_board_counts(
        conn: &mut Conn<Self>,
        tenant: &str,
        variant: engine::Variant,
        changes: &[(i64, i64)],
    ) -> Result<(), StoreError> {
        if changes.is_empty() {
            return Ok(());
        }
        let mut counts = board_counts_statement::<Self::Db>(tenant, variant, changes);
        counts.build().execute(&mut *conn).await?;
        Ok(())
    }

    /// [`Store::player`](super::super::Store::player): the player's rows of `ratings`, then
    /// their games counted.
    async fn player_in(&self, tenant: &str, player: &PlayerId) -> Result<PlayerRecord, StoreError> {
        let key = Participant::Player(player.clone()).key();
        let rows = sqlx::query(PLAYER_RATINGS)
            .bind(tenant)
            .bind(&key)
            .fetch_all(self.pool())
            .await?;
        let ratings = rows.iter().map(player_rating).collect::<Result<_, _>>()?;
        let counted = sqlx::query(PLAYER_GAMES)
            .bind(tenant)
            .bind(player.as_str())
            .fetch_one(self.pool())
            .await?;
        Ok(PlayerRecord {
            ratings,
            games: counted.try_get("games")?,
            finished: counted.try_get("finished")?,
        })
    }

    /// [`Store::leaderboard`](super::super::Store::leaderboard): one page of the tenant's
    /// players in `variant` by keyset on the index `ratings_keyset`, the conservative value as
    /// the database computes it (which the cursor keeps): a range of the index, however deep
    /// the page.
    async fn leaderboard_in(
        &self,
        tenant: &str,
        variant: engine::Variant,
        limit: u32,
        after: Option<&BoardCursor>,
    ) -> Result<BoardPage, StoreError> {
        let mut query = leaderboard_statement::<Self::Db>(Self::BYTE_ORDER, tenant, variant, limit, after);
        let rows = query.build().fetch_all(self.pool()).await?;
        board_page(&rows)
    }

    /// [`Store::standing`](super::super::Store::standing): the player's row read, then, in one
    /// statement (one snapshot), their row again with the players ahead and on the board and
    /// the rows just above and just below; read again if their rating moved in between.
    async fn standing_in(
        &self,
        tenant: &str,
        variant: engine::Variant,
        participant: &str,
        above: u32,
        below: u32,
    ) -> Result<Option<Standing>, StoreError> {
        let mut attempt = 0;
        loop {
            attempt += 1;
            let Some(rating) = self.own_rating(tenant, variant, participant).await? else {
                return Ok(None);
            };
            let Some(standing) = self
                .standing_around(tenant, variant, participant, rating, above, below)
                .await?
            else {
                return Ok(None);
            };
            if standing.own.rating != rating && attempt < STANDING_READS {
                continue;
            }
            return Ok(Some(standing));
        }
    }

    /// `participant`'s rating in `variant` at `tenant`, if they have a row.
    async fn own_rating(
        &self,
        tenant: &str,
        variant: engine::Variant,
        participant: &str,
    ) -> Result<Option<Rating>, StoreError> {
        let own = sqlx::query(OWN_RATING)
            .bind(tenant)
            .bind(variant.id())
            .bind(participant)
            .fetch_optional(self.pool())
            .await?;
        own.as_ref().map(rating_of).transpose()
    }

    /// The one statement of [`standing_in`](Self::standing_in) ([`standing_sql`]), for a player
    /// last read at `rating`.
    async fn standing_around(
        &self,
        tenant: &str,
        variant: engine::Variant,
        participant: &str,
        rating: Rating,
        above: u32,
        below: u32,
    ) -> Result<Option<Standing>, StoreError> {
        let bucket = bucket(rating.conservative());
        let rows = sqlx::query(AssertSqlSafe(standing_sql(Self::BYTE_ORDER)))
            .bind(tenant)
            .bind(variant.id())
            .bind(participant)
            .bind(-rating.conservative())
            .bind(bucket)
            .bind(-bucket_end(bucket))
            .bind(i64::from(above))
            .bind(i64::from(below) + 1)
            .fetch_all(self.pool())
            .await?;
        standing_of(&rows)
    }
}
