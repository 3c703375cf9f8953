//! Quick play's tickets on SQLite: a transaction that writes holds the database to its commit
//! (so no claim needs to skip rows another holds), and what changed is told to this process's
//! hub after the commit.

use sqlx::SqliteConnection;
use uuid::Uuid;

use super::super::hub::Signal;
use super::super::{SqliteStore, StoreError};
use super::{DueRow, POOLS_DUE, SqlTickets};

impl SqlTickets for SqliteStore {
    /// Nothing in the transaction: this process is told after the commit.
    async fn notify_pools(&self, _tx: &mut SqliteConnection) -> Result<(), StoreError> {
        Ok(())
    }

    /// Nothing in the transaction: this process is told after the commit.
    async fn notify_tickets(&self, _tx: &mut SqliteConnection, _ids: &[Uuid]) -> Result<(), StoreError> {
        Ok(())
    }

    fn pools_changed(&self) {
        self.live.publish(POOLS_DUE, Signal::Resync);
    }

    fn tickets_changed(&self, ids: &[Uuid]) {
        for id in ids {
            self.live.publish(*id, Signal::Resync);
        }
    }

    async fn due_pool_rows(
        &self,
        until: i64,
        per_tenant: i64,
        limit: i64,
    ) -> Result<Vec<DueRow>, StoreError> {
        self.due_pools_in_one(until, per_tenant, limit).await
    }

    async fn ticket_tenants(&self, _condition: &str) -> Result<Vec<Option<String>>, StoreError> {
        Ok(vec![None])
    }
}
