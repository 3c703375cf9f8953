//! A webhook receiver for tests: an HTTP server on port 0 that keeps every delivery and
//! answers with the status the test sets (or holds one request open until released); and the
//! checks of a delivery's signature.

use std::sync::atomic::{AtomicU16, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use actix_web::{App, HttpRequest, HttpResponse, HttpServer, web};
use base64::Engine as _;
use base64::engine::general_purpose::STANDARD as BASE64;
use hmac::{Hmac, KeyInit, Mac};
use serde_json::Value;
use sha2::Sha256;

use super::eventually;

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
    /// `traceparent`, if sent.
    pub traceparent: String,
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
    /// The status the next request is answered with once released, if it is to be held.
    hold_next: Mutex<Option<u16>>,
    /// Releases the request held.
    release: tokio::sync::Notify,
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
    let held = shared.hold_next.lock().expect("the lock").take();
    let answered = held.unwrap_or_else(|| shared.status.load(Ordering::SeqCst));
    shared.received.lock().expect("the lock").push(Received {
        id: header("webhook-id"),
        timestamp: header("webhook-timestamp"),
        signature: header("webhook-signature"),
        body: body.to_vec(),
        query: req.query_string().to_owned(),
        answered,
        traceparent: header("traceparent"),
    });
    if held.is_some() {
        shared.release.notified().await;
    }
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

    /// Holds the next request open (kept as received at once) until [`Receiver::release`],
    /// then answers it `status`: a sender that stalls mid-attempt.
    pub fn hold_next(&self, status: u16) {
        *self.shared.hold_next.lock().expect("the lock") = Some(status);
    }

    /// Answers the request held by [`Receiver::hold_next`].
    pub fn release(&self) {
        self.shared.release.notify_one();
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
        eventually(limit, what, async || {
            let all = self.all();
            if done(&all) {
                Ok(all)
            } else {
                Err(all.iter().map(Received::json).collect::<Vec<_>>())
            }
        })
        .await
    }
}

/// The HMAC check of the Standard Webhooks specification, written here independently of the
/// service's own.
pub fn verifies(secret: &str, r: &Received) -> bool {
    let key = BASE64
        .decode(secret.strip_prefix("whsec_").expect("a whsec_ secret"))
        .expect("a base64 key");
    let mut mac = Hmac::<Sha256>::new_from_slice(&key).expect("a key");
    mac.update(r.id.as_bytes());
    mac.update(b".");
    mac.update(r.timestamp.as_bytes());
    mac.update(b".");
    mac.update(&r.body);
    let expected = BASE64.encode(mac.finalize().into_bytes());
    r.signature
        .split(' ')
        .any(|s| s.strip_prefix("v1,") == Some(expected.as_str()))
}

/// Verifies a delivery with the `standardwebhooks` Python library; `None` (with a message)
/// when python3 is absent.
pub fn verified_by_the_library(secret: &str, r: &Received) -> Option<bool> {
    let script = "import sys, json\n\
from standardwebhooks import Webhook\n\
secret, msg_id, ts, sig = sys.argv[1:5]\n\
body = sys.stdin.buffer.read()\n\
Webhook(secret).verify(body, {'webhook-id': msg_id, 'webhook-timestamp': ts, 'webhook-signature': sig})\n\
print('verified')\n";
    let child = std::process::Command::new("python3")
        .args(["-c", script, secret, &r.id, &r.timestamp, &r.signature])
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn();
    let Ok(mut child) = child else {
        eprintln!("python3 is absent: the standardwebhooks check is skipped");
        return None;
    };
    {
        use std::io::Write;
        let mut stdin = child.stdin.take().expect("stdin");
        stdin.write_all(&r.body).expect("the body written");
    }
    let out = child.wait_with_output().expect("python3 ran");
    if !out.status.success() {
        eprintln!("standardwebhooks: {}", String::from_utf8_lossy(&out.stderr));
    }
    Some(out.status.success() && String::from_utf8_lossy(&out.stdout).contains("verified"))
}
