//! A game's live stream (`text/event-stream`), read event by event.

use std::time::Duration;

use awc::ClientResponse;
use futures_util::StreamExt;

use super::Api;

/// How long a stream may stay silent when an event is due: a bound, not a measure.
const PATIENCE: Duration = Duration::from_secs(30);

/// One server-sent event.
#[derive(Debug)]
pub struct Sse {
    /// `id:`, the event's sequence number (none on the stream's last word).
    pub id: Option<i64>,
    /// `event:`, the event's type (or `error`).
    pub event: String,
    /// `data:`, the event as JSON.
    pub data: String,
}

/// Reads a `text/event-stream` response event by event.
pub struct SseReader<S> {
    response: ClientResponse<S>,
    buffer: String,
}

impl<S> SseReader<S>
where
    S: futures_util::Stream<Item = Result<actix_web::web::Bytes, awc::error::PayloadError>> + Unpin,
{
    /// The next event (comments skipped), or `None` once the stream ended.
    pub async fn next(&mut self) -> Option<Sse> {
        loop {
            if let Some(end) = self.buffer.find("\n\n") {
                let block: String = self.buffer.drain(..end + 2).collect();
                let mut sse = Sse {
                    id: None,
                    event: String::new(),
                    data: String::new(),
                };
                for line in block.lines() {
                    if let Some(v) = line.strip_prefix("id: ") {
                        sse.id = v.parse().ok();
                    } else if let Some(v) = line.strip_prefix("event: ") {
                        sse.event = v.to_owned();
                    } else if let Some(v) = line.strip_prefix("data: ") {
                        sse.data = v.to_owned();
                    }
                }
                if !sse.event.is_empty() {
                    return Some(sse);
                }
                continue;
            }
            let chunk = tokio::time::timeout(PATIENCE, self.response.next())
                .await
                .expect("the stream sends within the time allowed")?
                .expect("a readable chunk");
            self.buffer.push_str(&String::from_utf8_lossy(&chunk));
        }
    }

    /// Events up to and including sequence number `last`.
    pub async fn until(&mut self, last: i64) -> Vec<Sse> {
        let mut out = Vec::new();
        while out.last().and_then(|e: &Sse| e.id).is_none_or(|id| id < last) {
            out.push(self.next().await.expect("the stream goes on"));
        }
        out
    }
}

impl Api {
    /// Opens the live stream of game `id` as the holder of `token`, with a query (`?after=N`
    /// or empty) and extra headers; it must answer 200.
    pub async fn stream(
        &self,
        id: &str,
        token: &str,
        query: &str,
        headers: &[(&str, &str)],
    ) -> SseReader<
        impl futures_util::Stream<Item = Result<actix_web::web::Bytes, awc::error::PayloadError>> + Unpin + use<>,
    > {
        let mut req = self
            .client
            .get(format!("{}/v1/games/{id}/stream{query}", self.address))
            // Longer than the client's bound on a request: a stream stays open.
            .timeout(Duration::from_secs(600))
            .insert_header(("authorization", format!("Bearer {token}")));
        for (name, value) in headers {
            req = req.insert_header((*name, *value));
        }
        let response = req.send().await.expect("the stream opens");
        assert_eq!(response.status().as_u16(), 200, "the stream answers 200");
        SseReader {
            response,
            buffer: String::new(),
        }
    }

    /// Opens the live stream of quick-play ticket `id`; it must answer 200.
    pub async fn ticket_stream(
        &self,
        id: &str,
    ) -> SseReader<
        impl futures_util::Stream<Item = Result<actix_web::web::Bytes, awc::error::PayloadError>> + Unpin + use<>,
    > {
        let response = self
            .client
            .get(format!("{}/v1/matchmaking/tickets/{id}/events", self.address))
            .timeout(Duration::from_secs(600))
            .send()
            .await
            .expect("the stream opens");
        assert_eq!(response.status().as_u16(), 200, "the stream answers 200");
        SseReader {
            response,
            buffer: String::new(),
        }
    }
}
