//! A webhook receiver for tests: an HTTP server on port 0 that keeps every delivery and
//! answers with the status the test sets.

use std::sync::atomic::{AtomicU16, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use actix_web::{App, HttpRequest, HttpResponse, HttpServer, web};
use serde_json::Value;

/// One POST as received.
#[derive(Clone, Debug)]
pub struct Received {
    /// `webhook-id`.
    pub id: String,
    /// `webhook-timestamp`.
    pub timestamp: String,
    /// `webhook-signature`.
    pub signature: String,
    /// The raw body.
    pub body: Vec<u8>,
    /// The URL's query, as sent.
    pub query: String,
    /// The status answered.
    pub answered: u16,
}

impl Received {
    /// The body as JSON.
    pub fn json(&self) -> Value {
        serde_json::from_slice(&self.body).expect("a JSON delivery")
    }

    /// The delivery's `seq`.
    pub fn seq(&self) -> i64 {
        self.json()["seq"].as_i64().expect("a seq")
    }
}

#[derive(Default)]
struct Shared {
    received: Mutex<Vec<Received>>,
    status: AtomicU16,
}

/// A running receiver.
pub struct Receiver {
    /// Its URL.
    pub url: String,
    shared: Arc<Shared>,
}

async fn receive(req: HttpRequest, body: web::Bytes, shared: web::Data<Arc<Shared>>) -> HttpResponse {
    let header = |n: &str| {
        req.headers()
            .get(n)
            .and_then(|v| v.to_str().ok())
            .unwrap_or_default()
            .to_owned()
    };
    let answered = shared.status.load(Ordering::SeqCst);
    shared.received.lock().expect("the lock").push(Received {
        id: header("webhook-id"),
        timestamp: header("webhook-timestamp"),
        signature: header("webhook-signature"),
        body: body.to_vec(),
        query: req.query_string().to_owned(),
        answered,
    });
    HttpResponse::build(actix_web::http::StatusCode::from_u16(answered).expect("a status")).finish()
}

impl Receiver {
    /// Starts a receiver answering `status`.
    pub fn start(status: u16) -> Receiver {
        let shared = Arc::new(Shared::default());
        shared.status.store(status, Ordering::SeqCst);
        let data = web::Data::new(shared.clone());
        let server = HttpServer::new(move || {
            App::new()
                .app_data(data.clone())
                .default_service(web::to(receive))
        })
        .workers(1)
        .disable_signals()
        .bind("127.0.0.1:0")
        .expect("a port");
        let port = server.addrs()[0].port();
        actix_web::rt::spawn(server.run());
        Receiver {
            url: format!("http://127.0.0.1:{port}/hooks"),
            shared,
        }
    }

    /// Answers `status` from now on.
    pub fn answer(&self, status: u16) {
        self.shared.status.store(status, Ordering::SeqCst);
    }

    /// Every delivery attempt so far, in arrival order.
    pub fn all(&self) -> Vec<Received> {
        self.shared.received.lock().expect("the lock").clone()
    }

    /// The attempts answered 2xx, in arrival order.
    pub fn accepted(&self) -> Vec<Received> {
        self.all()
            .into_iter()
            .filter(|r| (200..300).contains(&r.answered))
            .collect()
    }

    /// Waits (30 s at most) until `done` holds for the attempts so far; panics with `what`
    /// otherwise.
    pub async fn wait_for(&self, what: &str, done: impl Fn(&[Received]) -> bool) -> Vec<Received> {
        self.wait_for_within(Duration::from_secs(30), what, done).await
    }

    /// Waits (`limit` at most) until `done` holds for the attempts so far; panics with `what`
    /// otherwise.
    pub async fn wait_for_within(
        &self,
        limit: Duration,
        what: &str,
        done: impl Fn(&[Received]) -> bool,
    ) -> Vec<Received> {
        let started = std::time::Instant::now();
        loop {
            let all = self.all();
            if done(&all) {
                return all;
            }
            if started.elapsed() > limit {
                panic!(
                    "waited {limit:?} for {what}; received {:?}",
                    all.iter().map(Received::json).collect::<Vec<_>>()
                );
            }
            actix_web::rt::time::sleep(Duration::from_millis(50)).await;
        }
    }
}
