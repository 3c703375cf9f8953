//! Quick play's tickets on PostgreSQL (one server or a Citus cluster): what changed is
//! announced by `NOTIFY` in the writing transaction, so that only a commit is heard.

use sqlx::{AssertSqlSafe, PgConnection};
use uuid::Uuid;

use super::super::hub::{CHANNEL, Work, note};
use super::super::{PgStore, StoreError};
use super::{DueRow, POOLS_DUE, SqlTickets};

impl SqlTickets for PgStore {
    async fn notify_pools(&self, tx: &mut PgConnection) -> Result<(), StoreError> {
        sqlx::query("SELECT pg_notify($1, $2)")
            .bind(CHANNEL)
            .bind(note(POOLS_DUE, 0, &[], Work::default()))
            .execute(&mut *tx)
            .await?;
        Ok(())
    }

    async fn notify_tickets(&self, tx: &mut PgConnection, ids: &[Uuid]) -> Result<(), StoreError> {
        if ids.is_empty() {
            return Ok(());
        }
        let notes: Vec<String> = ids.iter().map(|id| note(*id, 0, &[], Work::default())).collect();
        let sql = format!("SELECT pg_notify('{CHANNEL}', n) FROM unnest($1::text[]) AS n");
        sqlx::query(AssertSqlSafe(sql))
            .bind(notes)
            .execute(&mut *tx)
            .await?;
        Ok(())
    }

    /// Nothing more: `NOTIFY` in the transaction announced it on commit.
    fn pools_changed(&self) {}

    /// Nothing more: `NOTIFY` in the transaction announced it on commit.
    fn tickets_changed(&self, _ids: &[Uuid]) {}

    async fn due_pool_rows(
        &self,
        until: i64,
        per_tenant: i64,
        limit: i64,
    ) -> Result<Vec<DueRow>, StoreError> {
        self.due_pools_by_shard(until, per_tenant, limit).await
    }

    async fn ticket_tenants(&self, condition: &str) -> Result<Vec<Option<String>>, StoreError> {
        self.tenants_by_shard(condition).await
    }
}
