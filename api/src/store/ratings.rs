//! The statements of ratings, players and leaderboards (docs/ratings.md), the same text on
//! PostgreSQL (one server or a Citus cluster, where `ratings` and `rated_games` are distributed
//! by tenant) and SQLite: [`ratings_sql!`] makes them methods of each store.

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

/// Implements the rating statements for `$store` on `$db`: inherent methods that its
/// [`Store`](super::Store) methods call.
macro_rules! ratings_sql {
    ($store:ty, $db:ty, $begin:literal, $lock:literal) => {
        impl $store {
            /// [`Store::claim_ratings`]: candidates read without a lock, each claimed by a
            /// conditional update of its own row (its game's shard, on a cluster).
            pub(super) async fn claim_ratings_in(
                &self,
                now: i64,
                lease: i64,
                limit: i64,
            ) -> Result<Vec<RatingDue>, StoreError> {
                let candidates = self.rating_candidates(now, limit).await?;
                let mut claimed = Vec::with_capacity(candidates.len());
                for candidate in candidates {
                    let game = candidate.game_id;
                    let taken = sqlx::query(
                        "UPDATE ratings_due SET lease_until = $2 WHERE game_id = $1 AND lease_until <= $3",
                    )
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

            /// The candidates of [`Store::claim_ratings`] in one query (one server).
            pub(super) async fn rating_candidates_in_one(
                &self,
                now: i64,
                limit: i64,
            ) -> Result<Vec<super::ratings::RatingCandidate>, StoreError> {
                let rows = sqlx::query(sqlx::AssertSqlSafe(super::ratings::rating_candidates_sql("ratings_due", "$1", "$2")))
                    .bind(now)
                    .bind(limit)
                    .fetch_all(&self.pool)
                    .await?;
                rows.iter()
                    .map(|r| {
                        Ok(super::ratings::RatingCandidate {
                            game_id: r.try_get("game_id")?,
                            tenant: r.try_get("tenant")?,
                            due_at: r.try_get("due_at")?,
                        })
                    })
                    .collect()
            }

            /// [`Store::rating_done`].
            pub(super) async fn rating_done_in(&self, game: Uuid) -> Result<(), StoreError> {
                sqlx::query("DELETE FROM ratings_due WHERE game_id = $1")
                    .bind(game)
                    .execute(self.writer_of(game).await)
                    .await?;
                Ok(())
            }

            /// [`Store::rate_game`]: one transaction on the tenant's rows. The marker first
            /// (a game rated already is answered with its changes); then every participant's
            /// row, made from the rating it starts from when missing and then held, in the order
            /// of their keys (so that two games rated at once wait for each other, never
            /// deadlock); then the marker inserted (nothing else written if another rating of
            /// the game won the race), the new ratings and the leaderboard's counts.
            pub(super) async fn rate_game_in<E, F>(
                &self,
                tenant: &str,
                game: Uuid,
                variant: engine::Variant,
                participants: &[(crate::domain::Participant, crate::domain::Rating)],
                decide: F,
            ) -> Result<String, E>
            where
                E: From<StoreError>,
                F: FnOnce(&[(crate::domain::Participant, crate::domain::Rating)]) -> Result<RatingWrite, E>,
            {
                let mut tx = self.writer().begin_with($begin).await.map_err(StoreError::from)?;
                if let Some(changes) = Self::rated_changes(&mut tx, tenant, game).await? {
                    return Ok(changes);
                }
                let at = now();
                let starts = super::ratings::starts(participants);
                let inserted = Self::insert_missing(&mut tx, tenant, variant, &starts, at).await?;
                let keys: Vec<String> = starts.into_iter().map(|(key, _)| key).collect();
                let stored = Self::hold_ratings(&mut tx, tenant, variant, &keys).await?;
                let ratings: Vec<_> = participants
                    .iter()
                    .map(|(p, start)| (p.clone(), stored.get(&p.key()).copied().unwrap_or(*start)))
                    .collect();
                let write = decide(&ratings)?;
                if !Self::mark_rated(&mut tx, tenant, game, variant, &write.changes, at).await? {
                    // Rated by another replica since the marker was read: its changes stand.
                    drop(tx);
                    let mut conn = self.pool.acquire().await.map_err(StoreError::from)?;
                    return Ok(Self::rated_changes(&mut conn, tenant, game)
                        .await?
                        .unwrap_or(write.changes));
                }
                Self::write_ratings(&mut tx, tenant, variant, &write.rows, at).await?;
                // The leaderboard's counts move in the same transaction (docs/ratings.md#leaderboards).
                let written: Vec<_> = write.rows.iter().map(|r| (r.participant.key(), r.rating)).collect();
                let changes = super::ratings::bucket_changes(&inserted, &stored, &written);
                Self::move_board_counts(&mut tx, tenant, variant, &changes).await?;
                tx.commit().await.map_err(StoreError::from)?;
                Ok(write.changes)
            }

            /// Makes the rows of `starts` (each key with the rating its row starts from) that
            /// `tenant` has not in `variant`, in one statement: the keys of the rows made.
            async fn insert_missing(
                conn: &mut <$db as sqlx::Database>::Connection,
                tenant: &str,
                variant: engine::Variant,
                starts: &[(String, crate::domain::Rating)],
                at: i64,
            ) -> Result<Vec<String>, StoreError> {
                let mut insert = sqlx::QueryBuilder::<$db>::new(
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
                let rows = insert.build().fetch_all(&mut *conn).await?;
                Ok(rows
                    .iter()
                    .map(|r| r.try_get::<String, _>("participant"))
                    .collect::<Result<Vec<_>, _>>()?)
            }

            /// The rows of `keys` (sorted) read and held until the commit, in the keys' order.
            async fn hold_ratings(
                conn: &mut <$db as sqlx::Database>::Connection,
                tenant: &str,
                variant: engine::Variant,
                keys: &[String],
            ) -> Result<std::collections::HashMap<String, crate::domain::Rating>, StoreError> {
                let mut held = Self::rows_of(tenant, variant, keys);
                held.push(" ORDER BY participant").push($lock);
                let rows = held.build().fetch_all(&mut *conn).await?;
                Self::ratings_by_key(&rows)
            }

            /// Inserts the marker that game `game` is rated, with its `changes`; `false` when
            /// another rating of it came first (then nothing is to be written).
            async fn mark_rated(
                conn: &mut <$db as sqlx::Database>::Connection,
                tenant: &str,
                game: Uuid,
                variant: engine::Variant,
                changes: &str,
                at: i64,
            ) -> Result<bool, StoreError> {
                let marked = sqlx::query(
                    "INSERT INTO rated_games (tenant, game_id, variant, changes, rated_at) VALUES ($1, $2, $3, $4, $5) \
                     ON CONFLICT (tenant, game_id) DO NOTHING",
                )
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
                conn: &mut <$db as sqlx::Database>::Connection,
                tenant: &str,
                variant: engine::Variant,
                rows: &[super::RatedRow],
                at: i64,
            ) -> Result<(), StoreError> {
                for row in rows {
                    sqlx::query(
                        "UPDATE ratings SET mean = $4, deviation = $5, games = games + 1, won = won + $6, updated_at = $7 \
                         WHERE tenant = $1 AND variant = $2 AND participant = $3",
                    )
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
                conn: &mut <$db as sqlx::Database>::Connection,
                tenant: &str,
                variant: engine::Variant,
                changes: &[(i64, i64)],
            ) -> Result<(), StoreError> {
                if changes.is_empty() {
                    return Ok(());
                }
                let mut counts = sqlx::QueryBuilder::<$db>::new(
                    "INSERT INTO board_counts (tenant, variant, bucket, players) ",
                );
                counts.push_values(changes, |mut row, (bucket, n)| {
                    row.push_bind(tenant).push_bind(variant.id()).push_bind(*bucket).push_bind(*n);
                });
                counts.push(
                    " ON CONFLICT (tenant, variant, bucket) DO UPDATE SET players = board_counts.players + excluded.players",
                );
                counts.build().execute(&mut *conn).await?;
                Ok(())
            }

            /// The statement that reads `tenant`'s rows in `variant` of `keys`.
            fn rows_of(tenant: &str, variant: engine::Variant, keys: &[String]) -> sqlx::QueryBuilder<$db> {
                let mut query = sqlx::QueryBuilder::<$db>::new(
                    "SELECT participant, mean, deviation FROM ratings WHERE tenant = ",
                );
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
                query
            }

            /// The ratings of rows read by [`rows_of`](Self::rows_of), by participant key.
            fn ratings_by_key(
                rows: &[<$db as sqlx::Database>::Row],
            ) -> Result<std::collections::HashMap<String, crate::domain::Rating>, StoreError> {
                let mut stored = std::collections::HashMap::with_capacity(rows.len());
                for r in rows {
                    let rating = crate::domain::Rating {
                        mean: r.try_get("mean")?,
                        deviation: r.try_get("deviation")?,
                    };
                    stored.insert(r.try_get("participant")?, rating);
                }
                Ok(stored)
            }

            /// [`Store::player`]: the player's rows of `ratings`, then their games counted.
            pub(super) async fn player_in(
                &self,
                tenant: &str,
                player: &crate::domain::PlayerId,
            ) -> Result<PlayerRecord, StoreError> {
                let key = crate::domain::Participant::Player(player.clone()).key();
                let rows = sqlx::query(
                    "SELECT variant, mean, deviation, games, won FROM ratings \
                     WHERE tenant = $1 AND participant = $2 ORDER BY variant",
                )
                .bind(tenant)
                .bind(&key)
                .fetch_all(&self.pool)
                .await?;
                let mut ratings = Vec::with_capacity(rows.len());
                for r in &rows {
                    ratings.push(PlayerRating {
                        variant: r.try_get("variant")?,
                        rating: crate::domain::Rating {
                            mean: r.try_get("mean")?,
                            deviation: r.try_get("deviation")?,
                        },
                        games: r.try_get("games")?,
                        won: r.try_get("won")?,
                    });
                }
                let counted = sqlx::query(
                    "SELECT COUNT(*) AS games, COALESCE(SUM(CASE WHEN status = 'finished' THEN 1 ELSE 0 END), 0) AS finished \
                     FROM games WHERE tenant = $1 AND id IN (SELECT game_id FROM seats WHERE player = $2)",
                )
                .bind(tenant)
                .bind(player.as_str())
                .fetch_one(&self.pool)
                .await?;
                Ok(PlayerRecord {
                    ratings,
                    games: counted.try_get("games")?,
                    finished: counted.try_get("finished")?,
                })
            }

            /// [`Store::leaderboard`]: one page of the tenant's players in `variant` by keyset
            /// on the index `ratings_keyset` (the conservative value negated, so that the board's
            /// order is the index's ascending one, then the key's bytes), the conservative value
            /// as the database computes it (which the cursor keeps): a range of the index, however
            /// deep the page.
            pub(super) async fn leaderboard_in(
                &self,
                tenant: &str,
                variant: engine::Variant,
                limit: u32,
                after: Option<&BoardCursor>,
            ) -> Result<Vec<BoardRow>, StoreError> {
                let bytes = Self::BYTE_ORDER;
                let mut query = sqlx::QueryBuilder::<$db>::new(super::ratings::BOARD_COLUMNS);
                query
                    .push(" FROM ratings WHERE tenant = ")
                    .push_bind(tenant)
                    .push(" AND variant = ")
                    .push_bind(variant.id())
                    .push(" AND participant LIKE 'player:%'");
                if let Some(after) = after {
                    // The scalar bound is the one SQLite's planner ranges on; the row value is
                    // the exact keyset (and PostgreSQL's range).
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
                    .push(format!(" ORDER BY 3 * deviation - mean, participant{bytes} LIMIT "))
                    .push_bind(i64::from(limit) + 1);
                let rows = query.build().fetch_all(&self.pool).await?;
                rows.iter().map(Self::board_row).collect()
            }

            /// [`Store::standing`]: the player's row read, then, in one statement (one
            /// snapshot), their row again with the players ahead (the counts of the buckets
            /// above theirs, and the rows of their own bucket ahead of them: a short range of
            /// the index) and on the board, the rows just above and just below; read again if
            /// their rating moved in between.
            pub(super) async fn standing_in(
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
                    // Rated between the two reads: read again (a third time, take what it says).
                    if standing.own.rating != rating && attempt < 3 {
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
            ) -> Result<Option<crate::domain::Rating>, StoreError> {
                let own = sqlx::query(
                    "SELECT mean, deviation FROM ratings WHERE tenant = $1 AND variant = $2 AND participant = $3",
                )
                .bind(tenant)
                .bind(variant.id())
                .bind(participant)
                .fetch_optional(&self.pool)
                .await?;
                let Some(own) = own else {
                    return Ok(None);
                };
                Ok(Some(crate::domain::Rating {
                    mean: own.try_get("mean")?,
                    deviation: own.try_get("deviation")?,
                }))
            }

            /// The one statement of [`standing_in`](Self::standing_in), for a player last read
            /// at `rating`: their row now, the players ahead and on the board, and the rows
            /// around theirs in the board's order; `None` when their row is gone.
            async fn standing_around(
                &self,
                tenant: &str,
                variant: engine::Variant,
                participant: &str,
                rating: crate::domain::Rating,
                above: u32,
                below: u32,
            ) -> Result<Option<Standing>, StoreError> {
                let bucket = super::ratings::bucket(rating.conservative());
                let rows = sqlx::query(sqlx::AssertSqlSafe(super::ratings::standing_sql(Self::BYTE_ORDER)))
                    .bind(tenant)
                    .bind(variant.id())
                    .bind(participant)
                    .bind(-rating.conservative())
                    .bind(bucket)
                    .bind(-super::ratings::bucket_end(bucket))
                    .bind(i64::from(above))
                    .bind(i64::from(below) + 1)
                    .fetch_all(&self.pool)
                    .await?;
                let mut standing = None;
                let (mut ahead_rows, mut below_rows) = (Vec::new(), Vec::new());
                for r in &rows {
                    let side: i32 = r.try_get("side")?;
                    let row = Self::board_row(r)?;
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

            /// A row of [`BOARD_COLUMNS`](super::ratings::BOARD_COLUMNS).
            fn board_row(r: &<$db as sqlx::Database>::Row) -> Result<BoardRow, StoreError> {
                Ok(BoardRow {
                    participant: r.try_get("participant")?,
                    rating: crate::domain::Rating {
                        mean: r.try_get("mean")?,
                        deviation: r.try_get("deviation")?,
                    },
                    games: r.try_get("games")?,
                    conservative: r.try_get("conservative")?,
                })
            }

            /// The changes kept with game `game` of `tenant` once it was rated.
            async fn rated_changes(
                conn: &mut <$db as sqlx::Database>::Connection,
                tenant: &str,
                game: Uuid,
            ) -> Result<Option<String>, StoreError> {
                let row = sqlx::query("SELECT changes FROM rated_games WHERE tenant = $1 AND game_id = $2")
                    .bind(tenant)
                    .bind(game)
                    .fetch_optional(&mut *conn)
                    .await?;
                Ok(row.map(|r| r.try_get("changes")).transpose()?)
            }

            /// [`Store::ratings`]: one read of the tenant's rows.
            pub(super) async fn ratings_of(
                &self,
                tenant: &str,
                variant: engine::Variant,
                participants: &[crate::domain::Participant],
            ) -> Result<Vec<Option<crate::domain::Rating>>, StoreError> {
                if participants.is_empty() {
                    return Ok(Vec::new());
                }
                let keys = super::ratings::keys(participants);
                let rows = Self::rows_of(tenant, variant, &keys).build().fetch_all(&self.pool).await?;
                let stored = Self::ratings_by_key(&rows)?;
                Ok(keys.iter().map(|key| stored.get(key).copied()).collect())
            }
        }
    };
}

pub(super) use ratings_sql;
