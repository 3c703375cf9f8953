//! [`Store`] for both SQL stores, each method its statements (from `sql/`), run once: where a
//! store goes its own way, [`SqlStore`]'s methods without a body say it.

use sqlx::{AssertSqlSafe, ColumnIndex, Database, Decode, Encode, Executor, IntoArguments, Type};
use uuid::Uuid;

use super::{Conn, SqlStore};
use crate::domain::{GameStatus, Participant, PlayerId, Rating};
use crate::store::ratings::SqlRatings;
use crate::store::sql::{
    CREATION_KEYS, Claimed, DELIVERIES_BY_STATUS, DUE_GAMES, EVENTS_AFTER, GAME_INSERT, GAMES_OVER,
    IDEMPOTENCY_KEYS, JWT_SECRET, JWT_SECRET_INSERT, KeyRow, LAST_DELIVERY_ERROR, LEASE, ORIGIN, OriginRow,
    PENDING_DELIVERIES, READY, RECORD, RowsAffected as _, SEAT_INSERT, SET_ASIDE, StatusCount,
    WAITING_TICKETS, event_row, game_in_sql, game_row, game_sql, key_sql, list_sql, listed_row, now_ms,
    now_us, recorded_event, webhook_counts,
};
use crate::store::write::{self, created_work};
use crate::store::{
    Attempt, Backlog, BoardCursor, BoardPage, Delivery, DueGame, EventRow, GameListing, GameRow, KeyClaim,
    KeyRef, ListedRow, Lock, NewGame, On, Origin, Outcome, PlayerRecord, RatingDue, RatingWrite,
    RecordedEvent, Settled, Standing, Store, StoreError, StoredResponse, Swept, WebhookCounts,
};

impl<S> Store for S
where
    S: SqlStore + SqlRatings,
    for<'c> &'c mut Conn<S>: Executor<'c, Database = S::Db>,
    <S::Db as Database>::Arguments: Default + IntoArguments<S::Db>,
    for<'a> &'a str: ColumnIndex<<S::Db as Database>::Row>,
    usize: ColumnIndex<<S::Db as Database>::Row>,
    for<'a, 't> &'a str: Encode<'t, S::Db> + Type<S::Db>,
    for<'a> &'a [u8]: Encode<'a, S::Db> + Type<S::Db>,
    for<'a> Option<&'a str>: Encode<'a, S::Db> + Type<S::Db>,
    Option<String>: for<'t> Encode<'t, S::Db> + Type<S::Db>,
    Option<i64>: for<'t> Encode<'t, S::Db> + Type<S::Db>,
    i32: for<'t> Encode<'t, S::Db> + for<'r> Decode<'r, S::Db> + Type<S::Db>,
    i64: for<'t> Encode<'t, S::Db> + for<'r> Decode<'r, S::Db> + Type<S::Db>,
    f64: for<'t> Encode<'t, S::Db> + for<'r> Decode<'r, S::Db> + Type<S::Db>,
    bool: for<'t> Encode<'t, S::Db> + for<'r> Decode<'r, S::Db> + Type<S::Db>,
    String: for<'t> Encode<'t, S::Db> + for<'r> Decode<'r, S::Db> + Type<S::Db>,
    Vec<u8>: for<'t> Encode<'t, S::Db> + for<'r> Decode<'r, S::Db> + Type<S::Db>,
    Uuid: for<'t> Encode<'t, S::Db> + for<'r> Decode<'r, S::Db> + Type<S::Db>,
    GameStatus: for<'t> Encode<'t, S::Db> + for<'r> Decode<'r, S::Db> + Type<S::Db>,
{
    async fn ready(&self) -> Result<(), StoreError> {
        sqlx::query(READY).execute(self.pool()).await?;
        Ok(())
    }

    async fn jwt_secret(&self, generated: String) -> Result<String, StoreError> {
        sqlx::query(JWT_SECRET_INSERT)
            .bind(generated)
            .execute(self.writer())
            .await?;
        Ok(sqlx::query_scalar(JWT_SECRET).fetch_one(self.pool()).await?)
    }

    async fn create_game(
        &self,
        new: &NewGame,
        key: Option<(&KeyRef, &StoredResponse)>,
    ) -> Result<bool, StoreError> {
        let mut tx = Self::begin(self.writer()).await?;
        let g = &new.game;
        let at_us = now_us();
        let at = at_us / 1_000_000;
        let (webhook_url, webhook_secret) = new.webhook.clone().unzip();
        let guard = match &new.bot_tables {
            Some(limit) => self.admit(&mut tx, g.id, limit).await?,
            None => S::Guard::default(),
        };
        let inserted = sqlx::query(GAME_INSERT)
            .bind(g.id)
            .bind(&g.variant)
            .bind(g.status)
            .bind(&g.state)
            .bind(g.version)
            .bind(&g.seed)
            .bind(&g.seed_commitment)
            .bind(at)
            .bind(new.events.len() as i64)
            .bind(&new.tenant)
            .bind(at_us)
            .bind(webhook_url)
            .bind(webhook_secret)
            .bind(g.next_due)
            .bind(new.rated)
            .execute(&mut *tx)
            .await?;
        if inserted.rows_affected() == 0 {
            // A rematch another request made first: it stands as made.
            return Ok(false);
        }
        for s in &new.seats {
            sqlx::query(SEAT_INSERT)
                .bind(g.id)
                .bind(s.seat)
                .bind(&s.name)
                .bind(&s.kind)
                .bind(&s.player)
                .execute(&mut *tx)
                .await?;
        }
        let events = write::events(&new.events, 1, at);
        let outbox = write::outbox(&new.events, 1, g.version);
        let kept = key.map(|(key, response)| write::kept(key, response, at));
        Self::insert_rows(&mut tx, g.id, &events, &outbox, kept.as_ref()).await?;
        let work = created_work(g, &outbox);
        self.notify_created(&mut tx, g.id, work).await?;
        tx.commit().await?;
        Self::release(guard).await;
        self.committed(g.id, 0, &[], work);
        Ok(true)
    }

    async fn origin(&self, id: Uuid) -> Result<Option<Origin>, StoreError> {
        let row = sqlx::query_as::<_, OriginRow>(ORIGIN)
            .bind(id)
            .fetch_optional(self.pool())
            .await?;
        Ok(row.map(Origin::from))
    }

    async fn game(&self, id: Uuid) -> Result<Option<GameRow>, StoreError> {
        let row = sqlx::query(AssertSqlSafe(game_sql()))
            .bind(id)
            .fetch_optional(self.reader_of(id).await)
            .await?;
        row.map(|r| game_row(&r)).transpose()
    }

    async fn game_in(&self, tenant: &str, id: Uuid) -> Result<Option<GameRow>, StoreError> {
        let row = sqlx::query(AssertSqlSafe(game_in_sql()))
            .bind(id)
            .bind(tenant)
            .fetch_optional(self.reader_of(id).await)
            .await?;
        row.map(|r| game_row(&r)).transpose()
    }

    async fn list_games(&self, tenant: &str, listing: &GameListing) -> Result<Vec<ListedRow>, StoreError> {
        let mut query = sqlx::query(AssertSqlSafe(list_sql(listing))).bind(tenant);
        if let Some(status) = listing.status {
            query = query.bind(status);
        }
        if let Some(player) = &listing.player {
            query = query.bind(player.as_str());
        }
        if let Some(after) = &listing.after {
            query = query.bind(after.created_us).bind(after.id);
        }
        let rows = query
            .bind(i64::from(listing.limit) + 1)
            .fetch_all(self.pool())
            .await?;
        rows.iter().map(listed_row).collect()
    }

    async fn events_after(&self, id: Uuid, after: i64, limit: i64) -> Result<Vec<EventRow>, StoreError> {
        let rows = sqlx::query(EVENTS_AFTER)
            .bind(id)
            .bind(after)
            .bind(limit)
            .fetch_all(self.reader_of(id).await)
            .await?;
        rows.iter().map(event_row).collect()
    }

    async fn record(&self, id: Uuid) -> Result<Vec<RecordedEvent>, StoreError> {
        let rows = sqlx::query(RECORD)
            .bind(id)
            .fetch_all(self.reader_of(id).await)
            .await?;
        rows.iter().map(recorded_event).collect()
    }

    async fn find_key(&self, key: &KeyRef) -> Result<Option<KeyClaim>, StoreError> {
        let pool = self.key_reader(key).await;
        let row = sqlx::query_as::<_, KeyRow>(AssertSqlSafe(key_sql(key.table())))
            .bind(key.game)
            .bind(key.seat)
            .bind(&key.key)
            .fetch_optional(pool)
            .await?;
        Ok(row.map(|row| row.claim(key)))
    }

    async fn sweep(&self, keys_before: i64, games_before: i64) -> Result<Swept, StoreError> {
        Ok(Swept {
            keys: self.purge_table::<Uuid>(&IDEMPOTENCY_KEYS, keys_before).await?
                + self.purge_table::<String>(&CREATION_KEYS, keys_before).await?,
            games: self.purge_table::<Uuid>(&GAMES_OVER, games_before).await?,
        })
    }

    async fn transact<T, E, F>(&self, on: On<'_>, lock: Lock, act: F) -> Result<Option<T>, E>
    where
        E: From<StoreError>,
        F: FnMut(&GameRow) -> Result<Outcome<T>, E>,
    {
        match lock {
            Lock::Optimistic => self.transact_optimistic(on, act).await,
            Lock::Row | Lock::Due { .. } => self.transact_held(on, lock, act).await,
        }
    }

    async fn due_games(
        &self,
        now: i64,
        after: Option<DueGame>,
        limit: i64,
    ) -> Result<Vec<DueGame>, StoreError> {
        self.due_candidates(now, after, limit).await
    }

    async fn lease(&self, id: Uuid, version: i64, held: i64, until: i64) -> Result<bool, StoreError> {
        let leased = sqlx::query(LEASE)
            .bind(id)
            .bind(version)
            .bind(held)
            .bind(until)
            .execute(self.writer_of(id).await)
            .await?;
        Ok(leased.rows_affected() > 0)
    }

    async fn set_aside(&self, id: Uuid, at: i64) -> Result<bool, StoreError> {
        let marked = sqlx::query(SET_ASIDE)
            .bind(id)
            .bind(at)
            .execute(self.writer_of(id).await)
            .await?;
        Ok(marked.rows_affected() > 0)
    }

    async fn claim_deliveries(&self, now: i64, lease: i64, limit: i64) -> Result<Vec<Delivery>, StoreError> {
        let lease_until = now.saturating_add(lease);
        let claimed = self.claim_heads(now, lease_until, limit).await?;
        let mut out = Vec::with_capacity(claimed.len());
        for c in claimed {
            let (game, at) = match c {
                Claimed::Delivery(d) => {
                    out.push(d);
                    continue;
                }
                Claimed::NotYet(game, at) => (game, Some(at)),
                Claimed::Empty(game) => (game, None),
            };
            // Rare: given back at once, each on its own, and logged if that fails (the lease
            // then runs out).
            if let Err(e) = self.give_back(game, lease_until, at, now).await {
                tracing::warn!(game = %game, error = %e, "a webhook head could not be given back; its lease runs out");
            }
        }
        Ok(out)
    }

    async fn settle_delivery(&self, d: &Delivery, attempt: &Attempt) -> Result<Settled, StoreError> {
        let (status, next, error) = attempt.outcome();
        self.settle(d, status, next, error, now_ms()).await
    }

    async fn backlog(&self, now: i64) -> Result<Backlog, StoreError> {
        let count = |sql: &'static str| sqlx::query_scalar::<_, i64>(sql).fetch_one(self.pool());
        Ok(Backlog {
            webhooks: count(PENDING_DELIVERIES).await?,
            due: sqlx::query_scalar(DUE_GAMES)
                .bind(now)
                .fetch_one(self.pool())
                .await?,
            tickets: count(WAITING_TICKETS).await?,
        })
    }

    async fn webhook_counts(&self, id: Uuid) -> Result<WebhookCounts, StoreError> {
        let pool = self.reader_of(id).await;
        let rows = sqlx::query_as::<_, StatusCount>(DELIVERIES_BY_STATUS)
            .bind(id)
            .fetch_all(pool)
            .await?;
        let last_error = sqlx::query_scalar(LAST_DELIVERY_ERROR)
            .bind(id)
            .fetch_optional(pool)
            .await?;
        Ok(webhook_counts(rows, last_error))
    }

    async fn ratings(
        &self,
        tenant: &str,
        variant: engine::Variant,
        participants: &[Participant],
    ) -> Result<Vec<Option<Rating>>, StoreError> {
        self.ratings_of(tenant, variant, participants).await
    }

    async fn claim_ratings(&self, now: i64, lease: i64, limit: i64) -> Result<Vec<RatingDue>, StoreError> {
        self.claim_ratings_in(now, lease, limit).await
    }

    async fn rate_game<E, F>(
        &self,
        tenant: &str,
        game: Uuid,
        variant: engine::Variant,
        participants: &[(Participant, Rating)],
        decide: F,
    ) -> Result<String, E>
    where
        E: From<StoreError>,
        F: FnOnce(&[(Participant, Rating)]) -> Result<RatingWrite, E>,
    {
        self.rate_game_in(tenant, game, variant, participants, decide)
            .await
    }

    async fn rating_done(&self, game: Uuid) -> Result<(), StoreError> {
        self.rating_done_in(game).await
    }

    async fn player(&self, tenant: &str, player: &PlayerId) -> Result<PlayerRecord, StoreError> {
        self.player_in(tenant, player).await
    }

    async fn leaderboard(
        &self,
        tenant: &str,
        variant: engine::Variant,
        limit: u32,
        after: Option<&BoardCursor>,
    ) -> Result<BoardPage, StoreError> {
        self.leaderboard_in(tenant, variant, limit, after).await
    }

    async fn standing(
        &self,
        tenant: &str,
        variant: engine::Variant,
        participant: &str,
        above: u32,
        below: u32,
    ) -> Result<Option<Standing>, StoreError> {
        self.standing_in(tenant, variant, participant, above, below).await
    }
}
