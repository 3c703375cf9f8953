//! On a Citus cluster, where each game lives: a pool of connections to every node that holds
//! games, and which node holds each game seen lately. An action's statements go straight to its
//! game's node, which runs them on its own shards with no node in between
//! (docs/performance.md#scaling-out).

use std::collections::HashMap;
use std::sync::{Mutex, PoisonError};
use std::time::{Duration, Instant};

use sqlx::PgPool;
use uuid::Uuid;

use super::StoreError;

/// How long a game's node is trusted before it is looked up again: a shard moved by the
/// rebalancer is found within this (meanwhile the old node relays, so nothing is lost but a hop).
const PLACEMENT_KEPT: Duration = Duration::from_secs(60);

/// How many games' nodes a replica keeps; past it the list starts again, so that requests for
/// any number of game ids cannot grow it.
const PLACEMENTS_KEPT: usize = 100_000;

/// The nodes of a cluster that hold games, each with its pool, and which node holds each game
/// seen lately.
#[derive(Debug)]
pub struct Nodes {
    /// Each node's pool, by the node's group id; none for the node the service's own URL
    /// names, which its own pool serves.
    pools: Vec<(i32, Option<PgPool>)>,
    /// Games seen lately: the index of their node in `pools`, and when it was looked up.
    placed: Mutex<HashMap<Uuid, (usize, Instant)>>,
}

impl Nodes {
    /// Nodes with these pools, by group id.
    pub fn new(pools: Vec<(i32, Option<PgPool>)>) -> Nodes {
        Nodes {
            pools,
            placed: Mutex::default(),
        }
    }

    /// The pools of the nodes other than the service's own.
    pub fn pools(&self) -> impl Iterator<Item = &PgPool> {
        self.pools.iter().filter_map(|(_, pool)| pool.as_ref())
    }

    /// The pool of the node that holds game `id`, looked up through `own` (the service's own
    /// pool) when not known lately. `None` when that node is `own`'s, or the lookup fails or
    /// names a node added since the service started: the caller then goes through `own`, which
    /// routes as Citus does.
    pub async fn pool_for(&self, own: &PgPool, id: Uuid) -> Option<&PgPool> {
        let known = self
            .placed
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .get(&id)
            .filter(|(_, at)| at.elapsed() < PLACEMENT_KEPT)
            .map(|&(node, _)| node);
        let node = match known {
            Some(node) => node,
            None => {
                let group = Self::group_of(own, id).await.ok()?;
                let node = self.pools.iter().position(|&(g, _)| g == group)?;
                let mut placed = self.placed.lock().unwrap_or_else(PoisonError::into_inner);
                if placed.len() >= PLACEMENTS_KEPT {
                    placed.clear();
                }
                placed.insert(id, (node, Instant::now()));
                node
            }
        };
        self.pools.get(node).and_then(|(_, pool)| pool.as_ref())
    }

    /// The group id of the node that holds game `id`'s shard.
    async fn group_of(own: &PgPool, id: Uuid) -> Result<i32, StoreError> {
        Ok(sqlx::query_scalar(
            "SELECT groupid FROM pg_dist_placement \
             WHERE shardid = get_shard_id_for_distribution_column('games', $1) LIMIT 1",
        )
        .bind(id)
        .fetch_one(own)
        .await?)
    }
}
