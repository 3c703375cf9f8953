//! On a Citus cluster, where each game lives: a pool of connections to every node that holds
//! games, and which node holds each game seen lately. An action's statements go straight to its
//! game's node, which runs them on its own shards with no node in between
//! (docs/performance.md#scaling-out).

use std::collections::HashMap;
use std::sync::{Arc, Mutex, PoisonError};
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

/// Where one game's rows are on the node that holds them: the shards an action reads.
#[derive(Debug)]
pub struct GameShards {
    /// The shard of `games`.
    pub games: String,
    /// The co-located shard of `idempotency_keys`.
    pub keys: String,
    /// A condition that holds only while the shard is placed on the node that runs it: after a
    /// move, the old node's copy is read no more.
    pub placed_here: String,
}

/// The nodes of a cluster that hold games, each with its pool, and which node holds each game
/// seen lately.
#[derive(Debug)]
pub struct Nodes {
    /// Each node's pool, by the node's group id; none for the node the service's own URL
    /// names, which its own pool serves.
    pools: Vec<(i32, Option<PgPool>)>,
    /// Games seen lately.
    placed: Mutex<HashMap<Uuid, Seen>>,
}

/// Where a game was, when last looked up.
#[derive(Debug)]
struct Seen {
    /// The index of its node in `pools`.
    node: usize,
    /// Its shards there.
    shards: Arc<GameShards>,
    /// When.
    at: Instant,
}

/// Where a game is, as [`Nodes::place`] finds it.
pub struct Placed<'a> {
    /// The pool of its node; none when that is the service's own.
    pub pool: Option<&'a PgPool>,
    /// Its shards there.
    pub shards: Arc<GameShards>,
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

    /// Where game `id` is, looked up through `own` (the service's own pool) when not known
    /// lately. `None` when the lookup fails or names a node added since the service started:
    /// the caller then goes through `own`, which routes as Citus does.
    pub async fn place(&self, own: &PgPool, id: Uuid) -> Option<Placed<'_>> {
        let known = self
            .placed
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .get(&id)
            .filter(|seen| seen.at.elapsed() < PLACEMENT_KEPT)
            .map(|seen| (seen.node, seen.shards.clone()));
        let (node, shards) = match known {
            Some(known) => known,
            None => {
                let (group, shards) = Self::look_up(own, id).await.ok()?;
                let node = self.pools.iter().position(|&(g, _)| g == group)?;
                let shards = Arc::new(shards);
                let mut placed = self.placed.lock().unwrap_or_else(PoisonError::into_inner);
                if placed.len() >= PLACEMENTS_KEPT {
                    placed.clear();
                }
                placed.insert(
                    id,
                    Seen {
                        node,
                        shards: shards.clone(),
                        at: Instant::now(),
                    },
                );
                (node, shards)
            }
        };
        Some(Placed {
            pool: self.pools.get(node).and_then(|(_, pool)| pool.as_ref()),
            shards,
        })
    }

    /// The group id of the node that holds game `id`'s shards, and their names.
    async fn look_up(own: &PgPool, id: Uuid) -> Result<(i32, GameShards), StoreError> {
        let (group, shard, games, keys): (i32, i64, String, String) = sqlx::query_as(
            "SELECT p.groupid, g.shardid, shard_name('games', g.shardid)::text, \
                shard_name('idempotency_keys', get_shard_id_for_distribution_column('idempotency_keys', $1))::text \
             FROM (SELECT get_shard_id_for_distribution_column('games', $1) AS shardid) g \
             JOIN pg_dist_placement p ON p.shardid = g.shardid LIMIT 1",
        )
        .bind(id)
        .fetch_one(own)
        .await?;
        let placed_here = format!(
            " AND EXISTS (SELECT 1 FROM pg_dist_placement WHERE shardid = {shard} \
             AND groupid = (SELECT groupid FROM pg_dist_local_group))"
        );
        Ok((
            group,
            GameShards {
                games,
                keys,
                placed_here,
            },
        ))
    }
}
