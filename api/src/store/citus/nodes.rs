//! On a Citus cluster, where each game lives: a pool of connections to every node that holds
//! games, and the cluster's placements (which node holds each range of hashed game ids). An
//! action's statements go straight to its game's node, which runs them on its own shards with
//! no node in between (docs/performance.md#scaling-out). A replica hashes a game's id itself, as
//! Citus does, so it routes a game it has never seen without asking the coordinator.

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex, PoisonError};
use std::time::{Duration, Instant};

use sqlx::{PgConnection, PgPool};
use uuid::Uuid;

use super::StoreError;

/// How long the placements are trusted before they are read again: a shard moved by the
/// rebalancer is found within this even by reads (meanwhile the old node relays, so nothing
/// is lost but a hop); an action finds it at once, by its read missing there.
const PLACEMENTS_KEPT: Duration = Duration::from_secs(60);

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

/// The nodes of a cluster that hold games, each with its pool, and the cluster's placements.
#[derive(Debug)]
pub struct Nodes {
    /// The service's own pool: where the placements are read first.
    own: PgPool,
    /// Each node's pool, by the node's group id; none for the node the service's own URL
    /// names, which its own pool serves.
    pools: Vec<(i32, Option<PgPool>)>,
    /// The longest one reading of the placements may take from one node.
    bound: Duration,
    /// The placements last read.
    placements: Mutex<Arc<Placements>>,
    /// One reading of the placements at a time: those who missed meanwhile use its result.
    reading: tokio::sync::Mutex<()>,
    /// A reading of stale placements is under way in the background.
    refreshing: AtomicBool,
}

/// The shards of `games`, each a range of hashed ids, and the node of each.
#[derive(Debug, Default)]
struct Placements {
    /// By range, in order.
    shards: Vec<Shard>,
    /// When they were last read, or tried to be; `None`: never.
    read_at: Option<Instant>,
}

/// One shard of `games`, its co-located shards with it.
#[derive(Clone, Debug)]
struct Shard {
    /// The lowest hash it holds.
    min: i32,
    /// The highest hash it holds.
    max: i32,
    /// The index of its node in `pools`; `None`: a node added since the service started, which
    /// the service's own pool reaches through Citus.
    node: Option<usize>,
    /// Its names there.
    shards: Arc<GameShards>,
}

/// Where a game is, as [`Nodes::place`] finds it.
pub struct Placed<'a> {
    /// The pool of its node; none when that is the service's own.
    pub pool: Option<&'a PgPool>,
    /// Its shards there.
    pub shards: Arc<GameShards>,
}

impl Placements {
    /// The shard of hash `hash`.
    fn of(&self, hash: i32) -> Option<&Shard> {
        let after = self.shards.partition_point(|s| s.min <= hash);
        self.shards.get(after.checked_sub(1)?).filter(|s| hash <= s.max)
    }

    /// Read too long ago, or never.
    fn stale(&self) -> bool {
        self.read_at.is_none_or(|at| at.elapsed() >= PLACEMENTS_KEPT)
    }
}

impl Nodes {
    /// Nodes with these pools, by group id, beside the service's own pool; each reading of the
    /// placements from one node bounded by `bound`. The placements are read at once.
    pub async fn new(own: PgPool, pools: Vec<(i32, Option<PgPool>)>, bound: Duration) -> Nodes {
        let nodes = Nodes {
            own,
            pools,
            bound,
            placements: Mutex::default(),
            reading: tokio::sync::Mutex::new(()),
            refreshing: AtomicBool::new(false),
        };
        nodes.read_placements().await;
        nodes
    }

    /// The pools of the nodes other than the service's own.
    pub fn pools(&self) -> impl Iterator<Item = &PgPool> {
        self.pools.iter().filter_map(|(_, pool)| pool.as_ref())
    }

    /// The placements last read.
    fn current(&self) -> Arc<Placements> {
        self.placements
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .clone()
    }

    /// Where game `id` is, by the placements: no round trip. When they are stale, they are read
    /// again in the background, meanwhile trusted. `None` when no placement is known for it or
    /// its node was added since the service started: the caller then goes through its own
    /// pool, which routes as Citus does.
    pub fn place(self: &Arc<Self>, id: Uuid) -> Option<Placed<'_>> {
        let placements = self.current();
        if placements.stale() && !self.refreshing.swap(true, Ordering::AcqRel) {
            let nodes = self.clone();
            tokio::spawn(async move {
                let _one = nodes.reading.lock().await;
                if nodes.current().stale() {
                    nodes.read_placements().await;
                }
                nodes.refreshing.store(false, Ordering::Release);
            });
        }
        let shard = placements.of(uuid_hash(id))?;
        let node = shard.node?;
        Some(Placed {
            pool: self.pools.get(node).and_then(|(_, pool)| pool.as_ref()),
            shards: shard.shards.clone(),
        })
    }

    /// Game `id` was not on the node its placement `seen` named, but that node, by `via`,
    /// found it in the cluster: its shard moved. The placements are read again now by `via`,
    /// which has just answered (so that a coordinator away costs nothing), unless another
    /// caller did since, so that the game's next statements go straight to its new node. By
    /// `via` alone: its caller holds it, and would wait for another connection of its pool
    /// while holding one. When it does not answer, the placements are read again by the next
    /// look-up ([`Nodes::place`]), in the background.
    pub async fn moved(&self, id: Uuid, seen: &Arc<GameShards>, via: &mut PgConnection) {
        let _one = self.reading.lock().await;
        let still = self
            .current()
            .of(uuid_hash(id))
            .is_some_and(|s| Arc::ptr_eq(&s.shards, seen));
        if still {
            match self.bounded(Self::placements_on(via)).await {
                Some(read) => self.keep(Some(read)),
                None => {
                    let mut placements = self.placements.lock().unwrap_or_else(PoisonError::into_inner);
                    *placements = Arc::new(Placements {
                        shards: placements.shards.clone(),
                        read_at: None,
                    });
                }
            }
        }
    }

    /// Reads the placements from the service's own node, then from each other node in turn
    /// (every node keeps the cluster's metadata), and keeps them. When none answers, the
    /// placements known are kept, and tried again when next stale.
    async fn read_placements(&self) {
        let mut read = None;
        for pool in std::iter::once(&self.own).chain(self.pools()) {
            if read.is_some() {
                break;
            }
            read = self.bounded(Self::placements_on(pool)).await;
        }
        self.keep(read);
    }

    /// Keeps the placements `read`, as read now; none read: those known, tried again when next
    /// stale.
    fn keep(&self, read: Option<Vec<(i32, i32, i32, GameShards)>>) {
        let mut placements = self.placements.lock().unwrap_or_else(PoisonError::into_inner);
        let shards = match read {
            Some(read) => read
                .into_iter()
                .map(|(min, max, group, shards)| Shard {
                    min,
                    max,
                    node: self.pools.iter().position(|&(g, _)| g == group),
                    shards: Arc::new(shards),
                })
                .collect(),
            None => {
                tracing::warn!(
                    "no node of the cluster answers for its placements: games are routed by those read before"
                );
                placements.shards.clone()
            }
        };
        *placements = Arc::new(Placements {
            shards,
            read_at: Some(Instant::now()),
        });
    }

    /// What `read` gives within the bound of one reading; `None` when it fails or takes longer.
    async fn bounded<T>(&self, read: impl Future<Output = Result<T, StoreError>>) -> Option<T> {
        match tokio::time::timeout(self.bound, read).await {
            Ok(Ok(read)) => Some(read),
            Ok(Err(e)) => {
                tracing::debug!(error = %e, "the cluster's placements not read from one node");
                None
            }
            Err(_) => {
                tracing::debug!("the cluster's placements not read from one node in time");
                None
            }
        }
    }

    /// The shards of `games` as the node `on` reaches knows them, by range: each one's lowest
    /// and highest hash, the group id of its node, and its names there.
    async fn placements_on<'e>(
        on: impl sqlx::PgExecutor<'e>,
    ) -> Result<Vec<(i32, i32, i32, GameShards)>, StoreError> {
        // One placement per shard; were a move to show two, the newest.
        let mut rows: Vec<(i32, i32, i32, i64, String, String)> = sqlx::query_as(
            "SELECT DISTINCT ON (s.shardid) s.shardminvalue::int, s.shardmaxvalue::int, p.groupid, s.shardid, \
                shard_name('games', s.shardid)::text, shard_name('idempotency_keys', k.shardid)::text \
             FROM pg_dist_shard s \
             JOIN pg_dist_placement p ON p.shardid = s.shardid \
             JOIN pg_dist_shard k ON k.logicalrelid = 'idempotency_keys'::regclass \
                AND k.shardminvalue = s.shardminvalue \
             WHERE s.logicalrelid = 'games'::regclass \
             ORDER BY s.shardid, p.placementid DESC",
        )
        .fetch_all(on)
        .await?;
        rows.sort_by_key(|r| r.0);
        Ok(rows
            .into_iter()
            .map(|(min, max, group, shard, games, keys)| {
                let placed_here = format!(
                    " AND EXISTS (SELECT 1 FROM pg_dist_placement WHERE shardid = {shard} \
                     AND groupid = (SELECT groupid FROM pg_dist_local_group))"
                );
                (
                    min,
                    max,
                    group,
                    GameShards {
                        games,
                        keys,
                        placed_here,
                    },
                )
            })
            .collect())
    }
}

/// The hash Citus spreads a `uuid` column by: PostgreSQL's `uuid_hash`, its `hash_bytes` (Bob
/// Jenkins's lookup3) of the 16 bytes, read as little-endian words as on the x86 and ARM
/// servers Citus runs on. A wrong guess would cost only a hop: the shard read misses and the
/// statement goes through Citus.
fn uuid_hash(id: Uuid) -> i32 {
    let k = id.as_bytes();
    let word = |i: usize| u32::from_le_bytes([k[i], k[i + 1], k[i + 2], k[i + 3]]);
    let init = 0x9e37_79b9_u32.wrapping_add(16).wrapping_add(3_923_095);
    let mut a = init.wrapping_add(word(0));
    let mut b = init.wrapping_add(word(4));
    let mut c = init.wrapping_add(word(8));
    // mix(a, b, c), once for the first twelve bytes.
    a = a.wrapping_sub(c) ^ c.rotate_left(4);
    c = c.wrapping_add(b);
    b = b.wrapping_sub(a) ^ a.rotate_left(6);
    a = a.wrapping_add(c);
    c = c.wrapping_sub(b) ^ b.rotate_left(8);
    b = b.wrapping_add(a);
    a = a.wrapping_sub(c) ^ c.rotate_left(16);
    c = c.wrapping_add(b);
    b = b.wrapping_sub(a) ^ a.rotate_left(19);
    a = a.wrapping_add(c);
    c = c.wrapping_sub(b) ^ b.rotate_left(4);
    b = b.wrapping_add(a);
    // The last four, then final(a, b, c).
    a = a.wrapping_add(word(12));
    c = (c ^ b).wrapping_sub(b.rotate_left(14));
    a = (a ^ c).wrapping_sub(c.rotate_left(11));
    b = (b ^ a).wrapping_sub(a.rotate_left(25));
    c = (c ^ b).wrapping_sub(b.rotate_left(16));
    a = (a ^ c).wrapping_sub(c.rotate_left(4));
    b = (b ^ a).wrapping_sub(a.rotate_left(14));
    c = (c ^ b).wrapping_sub(b.rotate_left(24));
    i32::from_ne_bytes(c.to_ne_bytes())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_game_id_hashes_as_postgresql_hashes_it() {
        // `SELECT uuid_hash(u)` on PostgreSQL 15 (x86-64).
        for (id, hash) in [
            ("00000000-0000-0000-0000-000000000000", 1_353_656_403),
            ("ffffffff-ffff-ffff-ffff-ffffffffffff", -682_383_255),
            ("0b6f3a4e-4c1e-4d5e-9a47-3c2b1d0e9f10", -306_063_659),
            ("6a1f0c1e-2b3c-4d5e-8f90-a1b2c3d4e5f6", -1_631_121_400),
            ("d3b07384-d113-4ec6-a5a1-1c0e0f0e1e2f", 587_769_253),
        ] {
            assert_eq!(uuid_hash(id.parse().expect("a uuid")), hash, "{id}");
        }
    }

    #[test]
    fn a_hash_finds_the_shard_whose_range_holds_it() {
        let shard = |min, max, name: &str| Shard {
            min,
            max,
            node: Some(0),
            shards: Arc::new(GameShards {
                games: name.to_owned(),
                keys: String::new(),
                placed_here: String::new(),
            }),
        };
        let placements = Placements {
            shards: vec![
                shard(i32::MIN, -1, "low"),
                shard(0, 9, "middle"),
                shard(10, i32::MAX, "high"),
            ],
            read_at: None,
        };
        let name = |hash| placements.of(hash).map(|s| s.shards.games.as_str());
        assert_eq!(name(i32::MIN), Some("low"));
        assert_eq!(name(-1), Some("low"));
        assert_eq!(name(0), Some("middle"));
        assert_eq!(name(9), Some("middle"));
        assert_eq!(name(10), Some("high"));
        assert_eq!(name(i32::MAX), Some("high"));
        assert!(Placements::default().of(0).is_none(), "none known: none");
        assert!(placements.stale(), "never read: stale");
    }
}
