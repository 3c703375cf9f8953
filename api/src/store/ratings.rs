//! The statements of ratings, players and leaderboards (docs/ratings.md), the same text on
//! PostgreSQL (one server or a Citus cluster, where `ratings` and `rated_games` are distributed
//! by tenant) and SQLite: [`ratings_sql!`] makes them methods of each store.

/// The stored text of each of `participants`' keys, for an `IN` list.
pub(super) fn keys(participants: &[crate::domain::Participant]) -> Vec<String> {
    participants.iter().map(crate::domain::Participant::key).collect()
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
                let rows = sqlx::query(
                    "SELECT game_id, tenant FROM ratings_due WHERE lease_until <= $1 ORDER BY due_at LIMIT $2",
                )
                .bind(now)
                .bind(limit)
                .fetch_all(&self.pool)
                .await?;
                let mut claimed = Vec::with_capacity(rows.len());
                for r in &rows {
                    let game: Uuid = r.try_get("game_id")?;
                    let taken = sqlx::query(
                        "UPDATE ratings_due SET lease_until = $2 WHERE game_id = $1 AND lease_until <= $3",
                    )
                    .bind(game)
                    .bind(now + lease)
                    .bind(now)
                    .execute(self.pool_of(game).await)
                    .await?;
                    if taken.rows_affected() == 1 {
                        claimed.push(RatingDue {
                            game,
                            tenant: r.try_get("tenant")?,
                        });
                    }
                }
                Ok(claimed)
            }

            /// [`Store::rating_done`].
            pub(super) async fn rating_done_in(&self, game: Uuid) -> Result<(), StoreError> {
                sqlx::query("DELETE FROM ratings_due WHERE game_id = $1")
                    .bind(game)
                    .execute(self.pool_of(game).await)
                    .await?;
                Ok(())
            }

            /// [`Store::rate_game`]: one transaction on the tenant's rows. The marker first
            /// (a game rated already is answered with its changes); then every participant's
            /// row, made from its unrated rating when missing and then held, in the order of
            /// their keys (so that two games rated at once wait for each other, never deadlock);
            /// then the marker inserted (nothing else written if another rating of the game
            /// won the race) and the new ratings.
            pub(super) async fn rate_game_in<E, F>(
                &self,
                tenant: &str,
                game: Uuid,
                variant: engine::Variant,
                participants: &[crate::domain::Participant],
                decide: F,
            ) -> Result<String, E>
            where
                E: From<StoreError>,
                F: FnOnce(&[(crate::domain::Participant, crate::domain::Rating)]) -> Result<RatingWrite, E>,
            {
                use crate::domain::Rating;
                let mut tx = self.pool.begin_with($begin).await.map_err(StoreError::from)?;
                if let Some(changes) = Self::rated_changes(&mut tx, tenant, game).await? {
                    return Ok(changes);
                }
                let at = now();
                let mut keys = super::ratings::keys(participants);
                keys.sort();
                keys.dedup();
                let mut insert = sqlx::QueryBuilder::<$db>::new(
                    "INSERT INTO ratings (tenant, variant, participant, mean, deviation, games, won, updated_at) ",
                );
                insert.push_values(&keys, |mut row, key| {
                    let unrated = crate::domain::Participant::from_key(key)
                        .map_or_else(Rating::initial, |p| p.unrated(variant));
                    row.push_bind(tenant)
                        .push_bind(variant.id())
                        .push_bind(key.as_str())
                        .push_bind(unrated.mean)
                        .push_bind(unrated.deviation)
                        .push_bind(0_i64)
                        .push_bind(0_i64)
                        .push_bind(at);
                });
                insert.push(" ON CONFLICT (tenant, variant, participant) DO NOTHING");
                insert.build().execute(&mut *tx).await.map_err(StoreError::from)?;
                let mut held = sqlx::QueryBuilder::<$db>::new(
                    "SELECT participant, mean, deviation FROM ratings WHERE tenant = ",
                );
                held.push_bind(tenant)
                    .push(" AND variant = ")
                    .push_bind(variant.id())
                    .push(" AND participant IN (");
                let mut list = held.separated(", ");
                for key in &keys {
                    list.push_bind(key.as_str());
                }
                list.push_unseparated(")");
                held.push(" ORDER BY participant").push($lock);
                let rows = held.build().fetch_all(&mut *tx).await.map_err(StoreError::from)?;
                let mut stored = std::collections::HashMap::with_capacity(rows.len());
                for r in &rows {
                    let key: String = r.try_get("participant").map_err(StoreError::from)?;
                    let rating = Rating {
                        mean: r.try_get("mean").map_err(StoreError::from)?,
                        deviation: r.try_get("deviation").map_err(StoreError::from)?,
                    };
                    stored.insert(key, rating);
                }
                let ratings: Vec<_> = participants
                    .iter()
                    .map(|p| {
                        let rating = stored.get(&p.key()).copied().unwrap_or_else(|| p.unrated(variant));
                        (p.clone(), rating)
                    })
                    .collect();
                let write = decide(&ratings)?;
                let marked = sqlx::query(
                    "INSERT INTO rated_games (tenant, game_id, variant, changes, rated_at) VALUES ($1, $2, $3, $4, $5) \
                     ON CONFLICT (tenant, game_id) DO NOTHING",
                )
                .bind(tenant)
                .bind(game)
                .bind(variant.id())
                .bind(&write.changes)
                .bind(at)
                .execute(&mut *tx)
                .await
                .map_err(StoreError::from)?;
                if marked.rows_affected() == 0 {
                    // Rated by another replica since the marker was read: its changes stand.
                    drop(tx);
                    let mut conn = self.pool.acquire().await.map_err(StoreError::from)?;
                    return Ok(Self::rated_changes(&mut conn, tenant, game)
                        .await?
                        .unwrap_or(write.changes));
                }
                for row in &write.rows {
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
                    .execute(&mut *tx)
                    .await
                    .map_err(StoreError::from)?;
                }
                tx.commit().await.map_err(StoreError::from)?;
                Ok(write.changes)
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

            /// [`Store::ratings`]: one read of the tenant's rows, the missing ones unrated.
            pub(super) async fn ratings_of(
                &self,
                tenant: &str,
                variant: engine::Variant,
                participants: &[crate::domain::Participant],
            ) -> Result<Vec<(crate::domain::Participant, crate::domain::Rating)>, StoreError> {
                use crate::domain::Rating;
                if participants.is_empty() {
                    return Ok(Vec::new());
                }
                let keys = super::ratings::keys(participants);
                let mut query = sqlx::QueryBuilder::<$db>::new(
                    "SELECT participant, mean, deviation FROM ratings WHERE tenant = ",
                );
                query
                    .push_bind(tenant)
                    .push(" AND variant = ")
                    .push_bind(variant.id())
                    .push(" AND participant IN (");
                let mut list = query.separated(", ");
                for key in &keys {
                    list.push_bind(key.as_str());
                }
                list.push_unseparated(")");
                let rows = query.build().fetch_all(&self.pool).await?;
                let mut stored = std::collections::HashMap::with_capacity(rows.len());
                for r in &rows {
                    let key: String = r.try_get("participant")?;
                    let rating = Rating {
                        mean: r.try_get("mean")?,
                        deviation: r.try_get("deviation")?,
                    };
                    stored.insert(key, rating);
                }
                Ok(participants
                    .iter()
                    .zip(&keys)
                    .map(|(p, key)| {
                        let rating = stored
                            .get(key)
                            .copied()
                            .unwrap_or_else(|| p.unrated(variant));
                        (p.clone(), rating)
                    })
                    .collect())
            }
        }
    };
}

pub(super) use ratings_sql;
