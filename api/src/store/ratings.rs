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
    ($store:ty, $db:ty) => {
        impl $store {
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
