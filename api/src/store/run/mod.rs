//! The code that runs the statements of `sql/`, written once for both stores: traits over
//! [`Dialect`](super::sql::Dialect) whose methods are the store's operations (binding, row
//! mapping, the transaction's shape), implemented by `PgStore` and `SqliteStore` alike. What a
//! dialect says differently is the dialect's ([`Dialect`](super::sql::Dialect)'s constants and
//! its `begin`); the few operations that differ in kind are the trait's methods without a
//! body, each store's own.

mod games;
mod store;

pub(super) use store::SqlStore;

/// A connection of store `S`'s database.
pub(super) type Conn<S> = <<S as super::sql::Dialect>::Db as sqlx::Database>::Connection;
