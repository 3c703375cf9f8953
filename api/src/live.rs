//! Live event streams: a seat's `text/event-stream`, fed by the store's hub ([`Live`]) and
//! read from the database only to start, to resume, or to catch up when it fell behind or the
//! listener reconnected ([`Signal::Resync`]).

use std::time::{Duration, Instant};

use actix_web::web::Bytes;
use futures_util::Stream;
use tokio::sync::{broadcast, mpsc};
use uuid::Uuid;

use crate::store::{Database, EventRow, Live, Signal, Store, Subscription};
use crate::wire::StreamFailure;

/// A comment line sent on an idle stream, so that proxies keep it open.
const HEARTBEAT: Duration = Duration::from_secs(15);

/// Chunks written for a stream and not yet taken by its connection.
const STREAM_BUFFER: usize = 16;

/// A client that takes no chunk for this long while its buffer is full is dropped.
const SLOW_CLIENT: Duration = Duration::from_secs(10);

/// Events read from the database at a time while catching up.
const CATCH_UP_PAGE: i64 = 200;

/// One stream of one game's events as one seat may see them: where it starts, and how an
/// event body is redacted for its seat.
pub struct StreamPlan<R> {
    /// The game.
    pub game: Uuid,
    /// Resume after this sequence number.
    pub after: i64,
    /// The game had no event to come when the stream started: void, or finished with its
    /// rematch made.
    pub over: bool,
    /// An event body as this seat may see it; `None` for a body this release cannot read.
    pub redact: R,
}

/// Why a stream stops.
enum Stop {
    /// The game has no event to come and every event is sent: the stream ends normally.
    GameOver,
    /// The client went away or is too slow to read.
    Gone,
    /// The stream cannot go on (the database failed, the service stops): say so and end.
    Cannot(StreamFailure),
}

impl Live {
    /// The body of a `text/event-stream` for `plan`, fed from `subscription` and, to start,
    /// resume or catch up, from `db`.
    pub fn stream<R>(
        &self,
        db: Database,
        subscription: Subscription,
        plan: StreamPlan<R>,
    ) -> impl Stream<Item = Result<Bytes, std::convert::Infallible>> + use<R>
    where
        R: Fn(&str) -> Option<serde_json::Value> + 'static,
    {
        let (tx, rx) = mpsc::channel(STREAM_BUFFER);
        // A task of the connection's own worker: the body below only drains its buffer.
        actix_web::rt::spawn(async move {
            let mut writer = Writer {
                tx,
                db,
                game: plan.game,
                cursor: plan.after,
                redact: plan.redact,
            };
            let stop = writer.run(subscription, plan.over).await;
            if let Stop::Cannot(failure) = stop {
                let _ = writer.tx.try_send(Bytes::from(failure.message()));
            }
        });
        futures_util::stream::unfold(rx, |mut rx| async move { rx.recv().await.map(|b| (Ok(b), rx)) })
    }
}

/// Writes one stream: events after `cursor`, each exactly once, in order.
struct Writer<R> {
    tx: mpsc::Sender<Bytes>,
    db: Database,
    game: Uuid,
    cursor: i64,
    redact: R,
}

impl<R> Writer<R>
where
    R: Fn(&str) -> Option<serde_json::Value>,
{
    async fn run(&mut self, mut sub: Subscription, over: bool) -> Stop {
        match self.catch_up().await {
            Err(stop) => return stop,
            Ok(()) if over => return Stop::GameOver,
            Ok(()) => {}
        }
        let mut heartbeat = tokio::time::interval_at(tokio::time::Instant::now() + HEARTBEAT, HEARTBEAT);
        let mut lagged: Option<Instant> = None;
        loop {
            let step = tokio::select! {
                biased;
                _ = sub.closing.wait_for(|c| *c) => Err(Stop::Cannot(StreamFailure::ShuttingDown)),
                () = self.tx.closed() => Err(Stop::Gone),
                signal = sub.signals.recv() => match signal {
                    Ok(Signal::Events { last, .. }) if last <= self.cursor => Ok(()),
                    Ok(Signal::Events { events: Some(rows), .. })
                        if rows.first().is_some_and(|r| r.seq <= self.cursor + 1) => self.send(&rows).await,
                    // Not carried, or after a gap: from the table.
                    Ok(Signal::Events { .. } | Signal::Resync) => self.catch_up().await,
                    Err(broadcast::error::RecvError::Lagged(_)) => {
                        // Behind once: catch up. Behind again within a minute: too slow.
                        if lagged.is_some_and(|at| at.elapsed() < Duration::from_secs(60)) {
                            Err(Stop::Cannot(StreamFailure::TooSlow))
                        } else {
                            lagged = Some(Instant::now());
                            self.catch_up().await
                        }
                    }
                    Err(broadcast::error::RecvError::Closed) => Err(Stop::Cannot(StreamFailure::Unavailable)),
                },
                _ = heartbeat.tick() => self.write(Bytes::from_static(b": heartbeat\n\n")).await,
            };
            if let Err(stop) = step {
                return stop;
            }
        }
    }

    /// Reads and sends every event after the cursor from the database.
    async fn catch_up(&mut self) -> Result<(), Stop> {
        loop {
            let rows = match self.db.events_after(self.game, self.cursor, CATCH_UP_PAGE).await {
                Ok(rows) => rows,
                Err(e) => {
                    tracing::warn!(game = %self.game, error = %e, "event stream cannot read the database");
                    return Err(Stop::Cannot(StreamFailure::Unavailable));
                }
            };
            self.send(&rows).await?;
            if (rows.len() as i64) < CATCH_UP_PAGE {
                return Ok(());
            }
        }
    }

    /// Sends the rows after the cursor as one chunk, and moves the cursor.
    async fn send(&mut self, rows: &[EventRow]) -> Result<(), Stop> {
        let mut text = String::new();
        let mut over = false;
        let from = self.cursor;
        for row in rows.iter().filter(|r| r.seq > from) {
            let event = (self.redact)(&row.body).ok_or(Stop::Cannot(StreamFailure::Unavailable))?;
            let kind = event.get("type").and_then(|t| t.as_str()).unwrap_or("event");
            // A finished game's last event is its rematch; a void game has none.
            over |= matches!(kind, "rematch" | "game_void");
            text.push_str(&format!("id: {}\nevent: {kind}\ndata: {event}\n\n", row.seq));
            self.cursor = row.seq;
        }
        if !text.is_empty() {
            self.write(Bytes::from(text)).await?;
        }
        if over { Err(Stop::GameOver) } else { Ok(()) }
    }

    /// Hands a chunk to the connection; a client that takes nothing for [`SLOW_CLIENT`] is dropped.
    async fn write(&self, chunk: Bytes) -> Result<(), Stop> {
        self.tx
            .send_timeout(chunk, SLOW_CLIENT)
            .await
            .map_err(|_| Stop::Gone)
    }
}
