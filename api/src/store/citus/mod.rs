//! A Citus cluster: what the PostgreSQL store does differently when its database is a
//! cluster's. An action's statements go to its game's worker (`nodes.rs`: a pool per worker and
//! the placements by which a game's id names its worker); its write is one call of the
//! distributed function `continental_write` ([`cluster_write`]); background work reads its
//! candidates shard by shard, so that a lost worker holds up only its own games.

pub(super) mod nodes;

use std::collections::BTreeSet;
use std::sync::PoisonError;

use uuid::Uuid;

use crate::store::run::SqlStore as _;

use super::ratings::SqlRatings;
use super::sql::{Candidate, Purge, SWEEP_BATCH, delivery_candidates_sql, due_sql};
use super::tickets::SqlTickets as _;
use super::write::Write;
use super::{DueGame, PgStore, StoreError};

/// An expired row, as a shard answers it: its time and its value of the column the table is
/// spread by.
#[derive(serde::Deserialize)]
struct Expired<V> {
    at: i64,
    route: V,
}

/// A value written into a command run on a shard (which takes no parameters).
pub(in crate::store) trait Literal {
    /// The value as an SQL literal.
    fn literal(&self) -> String;
}

impl Literal for Uuid {
    fn literal(&self) -> String {
        format!("'{self}'")
    }
}

impl Literal for String {
    fn literal(&self) -> String {
        // An escape string, so that no server setting changes how it reads.
        format!("E'{}'", self.replace('\\', "\\\\").replace('\'', "\\'"))
    }
}

/// The command `node` runs for [`PgStore::on_shards`]: `command` on each of its shards, one
/// JSON array per node, of one JSON array of rows per shard, in order.
fn node_command(node: &NodeShards, command: impl Fn(&[String]) -> String) -> String {
    let each: Vec<String> = node
        .shards
        .iter()
        .enumerate()
        .map(|(i, names)| {
            format!(
                "SELECT {i} AS n, (SELECT coalesce(json_agg(t), '[]') FROM ({}) t) AS rows",
                command(names)
            )
        })
        .collect();
    format!(
        "SELECT json_agg(rows ORDER BY n)::text FROM ({}) shards",
        each.join(" UNION ALL ")
    )
}

/// What `node` answered (`result`, an error's text unless `success`), shard by shard, each
/// with its shard's name; a node that failed fails for each of its shards.
fn shard_answers(node: NodeShards, success: bool, result: Option<String>) -> Vec<(String, ShardAnswer)> {
    let NodeShards { host, port, shards } = node;
    let node = format!("{host}:{port}");
    let result = result.unwrap_or_default();
    let per_shard: Result<Vec<serde_json::Value>, String> = if success {
        serde_json::from_str(&result).map_err(|e| e.to_string())
    } else {
        Err(result)
    };
    shards
        .into_iter()
        .enumerate()
        .map(|(i, mut names)| {
            let answer = match &per_shard {
                Ok(rows) => rows
                    .get(i)
                    .cloned()
                    .ok_or_else(|| "no answer for a shard".to_owned()),
                Err(e) => Err(e.clone()),
            };
            let answer = ShardAnswer {
                node: node.clone(),
                answer,
            };
            (names.swap_remove(0), answer)
        })
        .collect()
}

/// A node of the cluster and the shards it holds: of each, its name and those of the
/// co-located shards asked for with it.
struct NodeShards {
    host: String,
    port: i32,
    shards: Vec<Vec<String>>,
}

/// What one shard answered a command run on it alone.
struct ShardAnswer {
    /// The node that holds it, as `host:port`.
    node: String,
    /// Its rows, as a JSON array, or why its node failed.
    answer: Result<serde_json::Value, String>,
}

impl PgStore {
    /// [`Store::due_games`]: on a cluster, read shard by shard, so that the games of the
    /// workers that answer are found while another one is away.
    pub(super) async fn due_by_shard(
        &self,
        now: i64,
        after: Option<DueGame>,
        limit: i64,
    ) -> Result<Vec<DueGame>, StoreError> {
        if !self.cluster {
            return self.due_in_one(now, after, limit).await;
        }
        let cursor = after.map(|a| (a.next_due.to_string(), a.id.literal()));
        let answers = self
            .on_each_shard(&["games"], |names| {
                let after = cursor.as_ref().map(|(d, id)| (d.as_str(), id.as_str()));
                due_sql(&names[0], &now.to_string(), after, &limit.to_string())
            })
            .await?;
        let mut due: Vec<DueGame> = self.read_answers(answers, "turn deadlines");
        due.sort_by_key(|d| (d.next_due, d.id));
        due.truncate(usize::try_from(limit).unwrap_or(0));
        Ok(due)
    }

    /// The candidates of [`Store::claim_deliveries`] (the games whose first pending delivery
    /// is due): on a cluster, read shard by shard, each shard by its own range scan of
    /// `webhook_heads_due`.
    pub(super) async fn delivery_candidates(
        &self,
        now: i64,
        limit: i64,
    ) -> Result<Vec<Candidate>, StoreError> {
        if !self.cluster {
            return self.delivery_candidates_in_one(now, limit).await;
        }
        let answers = self
            .on_each_shard(&["webhook_heads"], |names| {
                delivery_candidates_sql(&names[0], &now.to_string(), &limit.to_string())
            })
            .await?;
        let mut candidates: Vec<Candidate> = self.read_answers(answers, "webhook deliveries");
        candidates.sort_by_key(|c| c.due_at);
        candidates.truncate(usize::try_from(limit).unwrap_or(0));
        Ok(candidates)
    }

    /// The pools of [`Tickets::due_pools`](super::Tickets::due_pools): on a cluster, read
    /// shard by shard (a tenant's pools are on one shard, so each shard ranks its own tenants'),
    /// so that a worker away holds up only the tenants it holds.
    pub(super) async fn due_pools_by_shard(
        &self,
        until: i64,
        per_tenant: i64,
        limit: i64,
    ) -> Result<Vec<super::tickets::DueRow>, StoreError> {
        if !self.cluster {
            return self.due_pools_in_one(until, per_tenant, limit).await;
        }
        let answers = self
            .on_each_shard(&["ticket_pools"], |names| {
                super::tickets::due_pools_sql(&names[0], until, per_tenant, limit)
            })
            .await?;
        Ok(self.read_answers(answers, "quick play's pools"))
    }

    /// The tenants with tickets where `condition` holds, to be read one by one (each is one
    /// shard's query on a cluster, found shard by shard, so that a worker away holds up only
    /// the tenants it holds); on one server, `[None]`: every tenant in one query.
    pub(super) async fn tenants_by_shard(&self, condition: &str) -> Result<Vec<Option<String>>, StoreError> {
        if !self.cluster {
            return Ok(vec![None]);
        }
        #[derive(serde::Deserialize)]
        struct Tenant {
            tenant: String,
        }
        let answers = self
            .on_each_shard(&["tickets"], |names| {
                format!("SELECT DISTINCT tenant FROM {} WHERE {condition}", names[0])
            })
            .await?;
        let mut tenants: Vec<String> = self
            .read_answers::<Tenant>(answers, "tickets")
            .into_iter()
            .map(|t| t.tenant)
            .collect();
        tenants.sort();
        tenants.dedup();
        Ok(tenants.into_iter().map(Some).collect())
    }

    /// Sweeps the expired rows of `purge` (see `purge`); on a cluster, each shard's candidates
    /// read from that shard alone, with a cursor of its own, so that the rows of the workers
    /// that answer are swept while another one is away.
    pub(super) async fn purge_by_shard<V>(&self, purge: &Purge, before: i64) -> Result<u64, StoreError>
    where
        V: for<'r> sqlx::Decode<'r, sqlx::Postgres>
            + for<'q> sqlx::Encode<'q, sqlx::Postgres>
            + sqlx::Type<sqlx::Postgres>,
        V: Clone + PartialEq + Send + Sync + Unpin + 'static,
        V: Literal + serde::de::DeserializeOwned,
    {
        if !self.cluster {
            return self.purge::<V>(purge, before).await;
        }
        // Each shard's cursor; a shard leaves once it answered a short batch, or failed.
        let mut cursors: Vec<(String, Option<(i64, V)>)> = Vec::new();
        let mut first = true;
        let mut deleted = 0;
        while first || !cursors.is_empty() {
            let shards: Vec<String> = cursors.iter().map(|(name, _)| name.clone()).collect();
            let answers = self
                .on_shards(&[purge.table], (!first).then_some(shards.as_slice()), |names| {
                    let after = cursors
                        .iter()
                        .find(|(name, _)| *name == names[0])
                        .and_then(|(_, after)| after.as_ref())
                        .map(|(at, value)| (at.to_string(), value.literal()));
                    let after = after.as_ref().map(|(at, value)| (at.as_str(), value.as_str()));
                    purge.candidates_in(&names[0], &before.to_string(), after)
                })
                .await?;
            first = false;
            let mut next = Vec::new();
            let mut batch: Vec<V> = Vec::new();
            for (shard, answer) in answers {
                let rows: Vec<Expired<V>> = self.read_answers(vec![answer], "the sweep");
                // The rows come in the order of the shard's query (an aggregate over a sorted
                // subquery keeps its order): the last is the cursor.
                if rows.len() as i64 == SWEEP_BATCH
                    && let Some(last) = rows.last()
                {
                    next.push((shard, Some((last.at, last.route.clone()))));
                }
                for r in rows {
                    if !batch.contains(&r.route) {
                        batch.push(r.route);
                    }
                }
            }
            deleted += self.delete_expired(purge, batch, before).await?;
            cursors = next;
        }
        Ok(deleted)
    }

    /// Runs the query `command` makes of shard names on every shard of `tables[0]`, on the node
    /// that holds it, outside any transaction (Citus's `master_run_on_worker`), given the names
    /// of that shard and of the co-located shards of the other `tables`; its rows come back as
    /// JSON. The shards of a node that does not answer fail alone.
    async fn on_each_shard(
        &self,
        tables: &[&str],
        command: impl Fn(&[String]) -> String,
    ) -> Result<Vec<ShardAnswer>, StoreError> {
        Ok(self
            .on_shards(tables, None, command)
            .await?
            .into_iter()
            .map(|(_, answer)| answer)
            .collect())
    }

    /// As [`PgStore::on_each_shard`], on the shards of `tables[0]` named in `only` when given;
    /// each answer with its shard's name. The shards of one node are read by one command, on one
    /// connection, each by its own query: what fails together is what is lost together.
    async fn on_shards(
        &self,
        tables: &[&str],
        only: Option<&[String]>,
        command: impl Fn(&[String]) -> String,
    ) -> Result<Vec<(String, ShardAnswer)>, StoreError> {
        let nodes = self.shards_by_node(tables, only).await?;
        if nodes.is_empty() {
            return Ok(Vec::new());
        }
        let hosts: Vec<&str> = nodes.iter().map(|n| n.host.as_str()).collect();
        let ports: Vec<i32> = nodes.iter().map(|n| n.port).collect();
        let commands: Vec<String> = nodes.iter().map(|node| node_command(node, &command)).collect();
        let answers: Vec<(bool, Option<String>)> = sqlx::query_as(
            "SELECT success, result FROM master_run_on_worker($1, $2, $3, true) WITH ORDINALITY ORDER BY ordinality",
        )
        .bind(&hosts)
        .bind(&ports)
        .bind(&commands)
        .fetch_all(&self.pool)
        .await?;
        Ok(nodes
            .into_iter()
            .zip(answers)
            .flat_map(|(node, (success, result))| shard_answers(node, success, result))
            .collect())
    }

    /// The shards of `tables[0]` (those named in `only`, when given), each with the names of
    /// its co-located shards of the other `tables`, by the node that holds them.
    async fn shards_by_node(
        &self,
        tables: &[&str],
        only: Option<&[String]>,
    ) -> Result<Vec<NodeShards>, StoreError> {
        // Co-located shards cover the same range of hashed game ids.
        let placements: Vec<(String, i32, Vec<String>)> = sqlx::query_as(
            "SELECT n.nodename::text, n.nodeport, \
             array_agg(shard_name(b.logicalrelid, b.shardid)::text \
                ORDER BY array_position($1::text[]::regclass[], b.logicalrelid)) \
             FROM pg_dist_shard a \
             JOIN pg_dist_shard b ON b.logicalrelid = ANY ($1::text[]::regclass[]) \
                AND b.shardminvalue IS NOT DISTINCT FROM a.shardminvalue \
             JOIN pg_dist_placement p ON p.shardid = a.shardid \
             JOIN pg_dist_node n ON n.groupid = p.groupid AND n.noderole = 'primary' \
             WHERE a.logicalrelid = ($1::text[]::regclass[])[1] \
             GROUP BY a.shardid, n.nodename, n.nodeport ORDER BY n.nodename, n.nodeport, a.shardid",
        )
        .bind(tables)
        .fetch_all(&self.pool)
        .await?;
        let mut nodes: Vec<NodeShards> = Vec::new();
        for (host, port, names) in placements {
            if only.is_some_and(|only| !only.contains(&names[0])) {
                continue;
            }
            match nodes.last_mut() {
                Some(node) if node.host == host && node.port == port => node.shards.push(names),
                _ => nodes.push(NodeShards {
                    host,
                    port,
                    shards: vec![names],
                }),
            }
        }
        Ok(nodes)
    }

    /// The rows of the shards that answered. The nodes
    /// that did not answer are logged once per outage (`work` says what waits for them), and
    /// once more when they answer again: their games wait, the others' do not.
    fn read_answers<R: serde::de::DeserializeOwned>(&self, answers: Vec<ShardAnswer>, work: &str) -> Vec<R> {
        let mut rows = Vec::new();
        let mut failed = BTreeSet::new();
        let mut answered = BTreeSet::new();
        for ShardAnswer { node, answer } in answers {
            match answer.map(|rows| serde_json::from_value::<Vec<R>>(rows).map_err(|e| e.to_string())) {
                Ok(Ok(mut more)) => {
                    rows.append(&mut more);
                    answered.insert(node);
                }
                Ok(Err(error)) | Err(error) => {
                    if !failed.contains(&node) {
                        let mut away = self.away.lock().unwrap_or_else(PoisonError::into_inner);
                        if away.insert(node.clone()) {
                            tracing::warn!(%node, %error, "a node of the cluster does not answer: its games' {work} wait for it");
                        }
                    }
                    failed.insert(node);
                }
            }
        }
        let mut away = self.away.lock().unwrap_or_else(PoisonError::into_inner);
        for node in answered.difference(&failed) {
            if away.remove(node) {
                tracing::info!(%node, "a node of the cluster answers again: its games' background work resumes");
            }
        }
        rows
    }
}

/// The write of an accepted action on a Citus cluster: one call of `continental_write`
/// (migration `20261203000001_citus_write_one_value`) with `write` as its one JSON value,
/// distributed by the game's id. Outside a transaction block the coordinator hands the call to
/// the game's worker whole (and so does the worker itself, when the service's pool is the
/// worker's), which writes the game's own shards there with plain statements, under the shard
/// lock Citus's writes take: the row (on the condition of `write.read` and its version), the
/// events, the key, the seats, the outbox and the `NOTIFY`, in one round trip. Inside the
/// caller's transaction (a row held) it runs on the node of the connection, through the
/// distributed tables. Returns the new last seq, or `None` when the row had changed.
pub(super) async fn cluster_write(
    conn: &mut sqlx::PgConnection,
    write: &Write<'_>,
) -> Result<Option<i64>, StoreError> {
    debug_assert!(
        write
            .key
            .as_ref()
            .is_none_or(|k| k.table == "idempotency_keys" && k.game == write.game),
        "an action's key is its game's"
    );
    /// The function's value: the write, and the announcement its worker sends.
    #[derive(serde::Serialize)]
    struct Value<'a> {
        #[serde(flatten)]
        write: &'a Write<'a>,
        note: Option<String>,
    }
    let value = Value {
        write,
        note: write.note(),
    };
    let written: Option<i64> = sqlx::query_scalar("SELECT continental_write($1, $2)")
        .bind(write.game)
        .bind(sqlx::types::Json(value))
        .fetch_one(&mut *conn)
        .await
        .map_err(|e| match &e {
            // A copy of this request that stored the key first (the worker's error carries no
            // table name the coordinator would know).
            sqlx::Error::Database(db) if db.is_unique_violation() && write.key.is_some() => {
                StoreError::KeyTaken
            }
            _ => StoreError::from(e),
        })?;
    Ok(written)
}

impl SqlRatings for PgStore {
    /// The candidates of [`Store::claim_ratings`]: on a cluster, read shard by shard (the
    /// outbox lives with its games), so that a worker away holds up only its own games.
    async fn rating_candidates(
        &self,
        now: i64,
        limit: i64,
    ) -> Result<Vec<super::ratings::RatingCandidate>, StoreError> {
        if !self.cluster {
            return self.rating_candidates_in_one(now, limit).await;
        }
        let answers = self
            .on_each_shard(&["ratings_due"], |names| {
                super::ratings::rating_candidates_sql(&names[0], &now.to_string(), &limit.to_string())
            })
            .await?;
        let mut candidates: Vec<super::ratings::RatingCandidate> =
            self.read_answers(answers, "games to rate");
        candidates.sort_by_key(|c| c.due_at);
        candidates.truncate(usize::try_from(limit).unwrap_or(0));
        Ok(candidates)
    }
}
