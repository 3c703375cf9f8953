//! Webhooks: each event of a game with a `webhook_url` is POSTed from the outbox the action
//! wrote in its own transaction, signed as the Standard Webhooks specification says
//! (`webhook-id`, `webhook-timestamp`, `webhook-signature: v1,<base64 HMAC-SHA256>`), at
//! least once, in order per game, retried with exponential backoff for a day
//! (`CONTINENTAL_WEBHOOK_GIVE_UP_S`). Any replica delivers: claims carry a lease, and a game's
//! next event waits for the one before it until that one is delivered or given up.

use std::net::{IpAddr, SocketAddr};
use std::sync::Arc;
use std::sync::atomic::{AtomicI64, Ordering};
use std::time::{Duration, Instant};

use base64::Engine as _;
use base64::engine::general_purpose::STANDARD as BASE64;
use hmac::{Hmac, KeyInit, Mac};
use sha2::Sha256;
use tokio::sync::Semaphore;
use tracing::Instrument;

use crate::domain::WebhookError;
use crate::metrics::{WebhookResult, Work};
use crate::state::AppState;
use crate::store::{Attempt, Delivery, Settled, Store, now_ms};
use crate::telemetry::traces;
use crate::wire::WebhookDelivery;

/// Longest a receiver may take to answer.
const TIMEOUT: Duration = Duration::from_secs(5);
/// How long a claimed delivery is this worker's before another may take it (well past
/// [`TIMEOUT`]; shorter only in tests, `CONTINENTAL_TEST_WEBHOOK_LEASE_MS`).
const LEASE_MS: i64 = 30_000;
/// The longest wait between two attempts.
const MAX_BACKOFF_MS: i64 = 60 * 60 * 1000;
/// Deliveries claimed at once, at most.
const BATCH: usize = 128;
/// Attempts in flight at once on one replica, one game's each: a receiver that hangs holds one
/// per game of its, until [`TIMEOUT`].
pub const IN_FLIGHT: usize = 256;
/// The prefix of a Standard Webhooks secret.
const SECRET_PREFIX: &str = "whsec_";

/// A fresh signing secret: `whsec_` and 32 random bytes in base64.
pub(super) fn new_secret() -> String {
    use rand::RngCore;
    let mut key = [0u8; 32];
    rand::rng().fill_bytes(&mut key);
    format!("{SECRET_PREFIX}{}", BASE64.encode(key))
}

/// The `webhook-signature` of `body` sent as delivery `id` at `timestamp` (unix seconds):
/// `v1,` and the base64 HMAC-SHA256, keyed by the secret's decoded key, of
/// `"<id>.<timestamp>.<body>"`; `None` if the secret is not a `whsec_` base64 key.
pub fn sign(secret: &str, id: &str, timestamp: i64, body: &[u8]) -> Option<String> {
    let key = BASE64.decode(secret.strip_prefix(SECRET_PREFIX)?).ok()?;
    let mut mac = Hmac::<Sha256>::new_from_slice(&key).ok()?;
    mac.update(format!("{id}.{timestamp}.").as_bytes());
    mac.update(body);
    Some(format!("v1,{}", BASE64.encode(mac.finalize().into_bytes())))
}

/// Whether a webhook may reach `ip`: never the service's own network (loopback, private,
/// link-local, unspecified, shared, broadcast, multicast) unless private hosts are allowed.
fn reachable(ip: IpAddr, allow_private: bool) -> bool {
    if allow_private {
        return true;
    }
    let ip = match ip {
        IpAddr::V6(v6) => v6.to_ipv4_mapped().map_or(IpAddr::V6(v6), IpAddr::V4),
        v4 => v4,
    };
    let internal = match ip {
        IpAddr::V4(v4) => {
            let [a, b, ..] = v4.octets();
            v4.is_loopback()
                || v4.is_private()
                || v4.is_link_local()
                || v4.is_unspecified()
                || v4.is_broadcast()
                || v4.is_multicast()
                // 100.64.0.0/10, carrier-grade NAT, and 0.0.0.0/8.
                || (a == 100 && (64..128).contains(&b))
                || a == 0
        }
        IpAddr::V6(v6) => {
            v6.is_loopback()
                || v6.is_unspecified()
                || v6.is_unique_local()
                || v6.is_unicast_link_local()
                || v6.is_multicast()
        }
    };
    !internal
}

/// Resolves `url`'s host now.
async fn resolve(url: &reqwest::Url) -> Result<Vec<IpAddr>, String> {
    let port = url.port_or_known_default().unwrap_or(443);
    match url.host() {
        Some(url::Host::Ipv4(ip)) => Ok(vec![IpAddr::V4(ip)]),
        Some(url::Host::Ipv6(ip)) => Ok(vec![IpAddr::V6(ip)]),
        Some(url::Host::Domain(name)) => tokio::net::lookup_host((name, port))
            .await
            .map(|addrs| addrs.map(|a| a.ip()).collect())
            .map_err(|e| format!("{name} does not resolve: {e}")),
        None => Err("no host".to_owned()),
    }
}

/// Refuses a webhook URL whose host does not resolve, or resolves to an address of the
/// service's own network.
///
/// # Errors
/// [`WebhookError::Unresolvable`], [`WebhookError::Private`].
pub(super) async fn check_host(url: &reqwest::Url, allow_private: bool) -> Result<(), WebhookError> {
    let ips = resolve(url).await.map_err(WebhookError::Unresolvable)?;
    if ips.is_empty() || ips.iter().any(|ip| !reachable(*ip, allow_private)) {
        return Err(WebhookError::Private);
    }
    Ok(())
}

/// The client's resolver: the addresses a name resolves to when it is connected to, private
/// ones refused, so a name that changes its address after the check still cannot reach
/// inside.
struct GuardedResolver {
    allow_private: bool,
}

impl reqwest::dns::Resolve for GuardedResolver {
    fn resolve(&self, name: reqwest::dns::Name) -> reqwest::dns::Resolving {
        let allow_private = self.allow_private;
        let host = name.as_str().to_owned();
        Box::pin(async move {
            let addrs: Vec<SocketAddr> = tokio::net::lookup_host((host.as_str(), 0))
                .await?
                .filter(|a| reachable(a.ip(), allow_private))
                .collect();
            if addrs.is_empty() {
                return Err(format!("{host} resolves to no address a webhook may reach").into());
            }
            Ok(Box::new(addrs.into_iter()) as reqwest::dns::Addrs)
        })
    }
}

/// Takes the query and fragment off `url`, so that it may be shown (a log line, `last_error`,
/// the delivery status): receivers often authenticate by a token in the query, and the
/// scheme, host, port and path tell which receiver it is.
fn strip_query(url: &mut reqwest::Url) {
    url.set_query(None);
    url.set_fragment(None);
}

/// A stored webhook URL as it may be shown (see [`strip_query`]); nothing of one that does not
/// read as a URL, which creation never stores.
pub(super) fn shown(url: &str) -> String {
    reqwest::Url::parse(url)
        .map(|mut url| {
            strip_query(&mut url);
            url.to_string()
        })
        .unwrap_or_default()
}

/// The delay before retry number `attempt + 1` (from 0): the base, doubled each time, at most
/// an hour.
fn backoff_ms(base_s: f64, attempts: i64) -> i64 {
    let base = (base_s * 1000.0).max(1.0);
    let factor = 2f64.powi(i32::try_from(attempts.clamp(0, 30)).unwrap_or(30));
    (base * factor).min(MAX_BACKOFF_MS as f64) as i64
}

/// How deliveries are attempted: the settings each attempt needs.
#[derive(Clone, Copy)]
struct Policy {
    allow_private: bool,
    /// The first retry's delay, in seconds.
    retry_s: f64,
    /// A failure this long after the event gives the delivery up.
    give_up_ms: i64,
    /// How long a claim holds a delivery before another may take it.
    lease_ms: i64,
}

/// One attempt at one delivery.
async fn attempt(client: &reqwest::Client, d: &Delivery, policy: Policy, span: &tracing::Span) -> Attempt {
    let failure = match post(client, d, policy.allow_private, span).await {
        Ok(()) => return Attempt::Delivered,
        Err(e) => e,
    };
    let now = now_ms();
    if now.saturating_sub(d.created_at) >= policy.give_up_ms {
        Attempt::GivenUp { error: failure }
    } else {
        Attempt::Retry {
            at: now.saturating_add(backoff_ms(policy.retry_s, d.attempts)),
            error: failure,
        }
    }
}

/// POSTs one delivery, signed, in a client span whose `traceparent` it sends; `Err` with a
/// short reason unless the receiver answered 2xx.
async fn post(
    client: &reqwest::Client,
    d: &Delivery,
    allow_private: bool,
    span: &tracing::Span,
) -> Result<(), String> {
    let url = reqwest::Url::parse(&d.url).map_err(|e| e.to_string())?;
    let status = send(client, d, url, allow_private, span)
        .instrument(span.clone())
        .await;
    traces::delivered(span, status.as_ref().ok().copied());
    match status {
        Ok(s) if (200..300).contains(&s) => Ok(()),
        Ok(s) => Err(reqwest::StatusCode::from_u16(s).map_or_else(|_| s.to_string(), |s| s.to_string())),
        Err(e) => Err(e),
    }
}

/// Sends one delivery to `url`; the receiver's status, or why there is none.
async fn send(
    client: &reqwest::Client,
    d: &Delivery,
    url: reqwest::Url,
    allow_private: bool,
    span: &tracing::Span,
) -> Result<u16, String> {
    // A name is checked by the client's resolver; an address written in the URL here.
    match url.host() {
        Some(url::Host::Domain(_)) => {}
        _ => {
            let ips = resolve(&url).await?;
            if ips.iter().any(|ip| !reachable(*ip, allow_private)) {
                return Err("the webhook's address is not one a webhook may reach".to_owned());
            }
        }
    }
    let event: serde_json::Value = serde_json::from_str(&d.event).map_err(|e| e.to_string())?;
    let kind = event.get("type").and_then(|t| t.as_str()).unwrap_or_default();
    let body = serde_json::to_vec(&WebhookDelivery {
        id: &d.id,
        game_id: d.game_id,
        seq: d.seq,
        version: d.version,
        kind,
        event: &event,
    })
    .map_err(|e| e.to_string())?;
    let mut request = client.post(url);
    for (name, value) in traces::propagation(span) {
        request = request.header(name, value);
    }
    signed_send(request, &d.id, &d.secret, body).await
}

/// Signs `body` as delivery `id` with `secret` and sends it by `request`; the receiver's
/// status, or why there is none.
async fn signed_send(
    request: reqwest::RequestBuilder,
    id: &str,
    secret: &str,
    body: Vec<u8>,
) -> Result<u16, String> {
    let timestamp = now_ms() / 1000;
    let signature = sign(secret, id, timestamp, &body).ok_or("the stored secret does not read")?;
    let res = request
        .header("content-type", "application/json")
        .header("webhook-id", id)
        .header("webhook-timestamp", timestamp.to_string())
        .header("webhook-signature", signature)
        .body(body)
        .send()
        .await
        .map_err(|mut e| {
            // The client's error names the URL it was sending to.
            if let Some(url) = e.url_mut() {
                strip_query(url);
            }
            crate::error::chain(&e)
        })?;
    Ok(res.status().as_u16())
}

/// The client webhooks go out with: no redirects, at most [`TIMEOUT`] an attempt, every name
/// resolved by the guard on private addresses.
///
/// # Errors
/// The client cannot be built (no TLS backend).
pub(super) fn client(allow_private: bool) -> reqwest::Result<reqwest::Client> {
    reqwest::Client::builder()
        .timeout(TIMEOUT)
        .redirect(reqwest::redirect::Policy::none())
        .user_agent(concat!("continental/", env!("CARGO_PKG_VERSION")))
        .dns_resolver(Arc::new(GuardedResolver { allow_private }))
        .build()
}

/// POSTs `body` (JSON) to `url` as delivery `id`, signed with `secret` as every webhook is,
/// under the same guard on private addresses; `Err` with a short reason unless the receiver
/// answered 2xx. For the tournaments' own deliveries (`service/tournaments.rs`).
pub(super) async fn post_signed(
    state: &AppState,
    client: &reqwest::Client,
    url: &str,
    id: &str,
    secret: &str,
    body: Vec<u8>,
) -> Result<(), String> {
    let allow_private = state.asynchronous.webhook_allow_private;
    let url = reqwest::Url::parse(url).map_err(|e| e.to_string())?;
    if !matches!(url.host(), Some(url::Host::Domain(_))) {
        let ips = resolve(&url).await?;
        if ips.iter().any(|ip| !reachable(*ip, allow_private)) {
            return Err("the webhook's address is not one a webhook may reach".to_owned());
        }
    }
    match signed_send(client.post(url), id, secret, body).await? {
        s if (200..300).contains(&s) => Ok(()),
        s => Err(reqwest::StatusCode::from_u16(s).map_or_else(|_| s.to_string(), |s| s.to_string())),
    }
}

/// When a delivery written at `created_at` that failed its attempt number `attempts + 1` is
/// tried again (unix ms), by the server's retry settings; `None` once it is given up.
pub(super) fn retry_at(state: &AppState, attempts: i64, created_at: i64) -> Option<i64> {
    let settings = &state.asynchronous;
    let give_up_ms = i64::try_from(settings.webhook_give_up_s.saturating_mul(1000)).unwrap_or(i64::MAX);
    let now = now_ms();
    (now.saturating_sub(created_at) < give_up_ms)
        .then(|| now.saturating_add(backoff_ms(settings.webhook_retry_s, attempts)))
}

/// The worker each replica runs: claims due deliveries as it has room for them (at most
/// [`IN_FLIGHT`] attempts at once, each of another game), POSTs each in a task of its own and
/// records its outcome, which makes the game's next delivery due at once. When it claimed all
/// there was, it waits: for a nudge (an action's commit here, an outcome recorded), for the
/// soonest retry or lapsed lease it recorded, for deliveries another replica's commit announced
/// (claimed at most once a `heard_every`, so that a busy cluster's announcements cost one claim
/// that often), and at most a `backstop`, which finds what nothing announces (another
/// replica's retries and leases once it stopped). So different games' deliveries go in
/// parallel and each game's one after the other, in order. A receiver that answers slowly or
/// not at all holds only its own games' attempts (each at most [`TIMEOUT`]): the worker claims
/// the next deliveries meanwhile, and a failing receiver's retries back off alone. A slow claim
/// is logged with what it claimed and how long it took.
pub async fn deliver_webhooks(
    state: actix_web::web::Data<AppState>,
    heard_every: Duration,
    backstop: Duration,
) {
    let settings = &state.asynchronous;
    let policy = Policy {
        allow_private: settings.webhook_allow_private,
        retry_s: settings.webhook_retry_s,
        give_up_ms: i64::try_from(settings.webhook_give_up_s.saturating_mul(1000)).unwrap_or(i64::MAX),
        lease_ms: settings
            .test_webhook_lease_ms
            .map_or(LEASE_MS, |ms| i64::try_from(ms).unwrap_or(LEASE_MS)),
    };
    let client = match client(policy.allow_private) {
        Ok(c) => c,
        Err(e) => {
            tracing::error!(error = %e, "no webhook client: webhooks stay in the outbox");
            return;
        }
    };
    let room = Arc::new(Semaphore::new(IN_FLIGHT));
    // The soonest retry or lapsed lease the attempts recorded (unix ms), and the one known.
    let recorded = Arc::new(AtomicI64::new(i64::MAX));
    let mut known = i64::MAX;
    loop {
        // Room for one attempt at least before claiming: a claimed delivery is attempted at
        // once. Then as much more room as there is, up to a batch: under load, one claim takes
        // what many recorded outcomes made due.
        let Ok(first) = Arc::clone(&room).acquire_owned().await else {
            return;
        };
        let mut permits = vec![first];
        while permits.len() < BATCH {
            match Arc::clone(&room).try_acquire_owned() {
                Ok(p) => permits.push(p),
                Err(_) => break,
            }
        }
        let asked = permits.len();
        let started = Instant::now();
        let claimed_at = now_ms();
        let claimed = match state
            .db
            .claim_deliveries(claimed_at, policy.lease_ms, i64::try_from(asked).unwrap_or(1))
            .instrument(traces::pass("webhooks"))
            .await
        {
            Ok(c) => c,
            Err(e) => {
                tracing::warn!(error = %e, "webhook outbox unreadable");
                Vec::new()
            }
        };
        if let Some(took_ms) = state.slow_pass(started) {
            tracing::warn!(
                claimed = claimed.len(),
                took_ms,
                "slow pass over the webhook outbox"
            );
        }
        let drained = claimed.len() < asked;
        for (d, permit) in claimed.into_iter().zip(permits.drain(..)) {
            let (client, state, recorded) = (client.clone(), state.clone(), recorded.clone());
            state.metrics.in_flight(Work::Webhooks, 1);
            tokio::spawn(async move {
                if let Some(at) = deliver(&client, &state, &d, policy).await {
                    recorded.fetch_min(at, Ordering::AcqRel);
                }
                // The game's next event may go now: the worker claims it without waiting.
                state.outbox.notify_one();
                state.metrics.in_flight(Work::Webhooks, -1);
                drop(permit);
            });
        }
        drop(permits);
        if drained {
            // All that was due is claimed, what the claim found due with it.
            if known <= claimed_at {
                known = i64::MAX;
            }
            wait_for_deliveries(&state, &recorded, &mut known, heard_every, backstop).await;
        }
    }
}

/// Waits, once the worker claimed all that was due, for more to come due: a nudge of this
/// replica's (a commit, an outcome recorded), the soonest retry or lapsed lease `known` (with
/// those `recorded` since), deliveries another replica announced (at most once a
/// `heard_every`), or the `backstop`.
async fn wait_for_deliveries(
    state: &AppState,
    recorded: &AtomicI64,
    known: &mut i64,
    heard_every: Duration,
    backstop: Duration,
) {
    let claimed = tokio::time::Instant::now();
    let mut heard = false;
    loop {
        *known = (*known).min(recorded.swap(i64::MAX, Ordering::AcqRel));
        let retry = Duration::from_millis(u64::try_from(known.saturating_sub(now_ms())).unwrap_or(0));
        let mut until = tokio::time::Instant::now() + retry.min(backstop);
        until = until.min(claimed + backstop);
        if heard {
            until = until.min(claimed + heard_every);
        }
        tokio::select! {
            () = state.outbox.notified() => return,
            () = state.live.wakes().deliveries_heard(), if !heard => heard = true,
            () = tokio::time::sleep_until(until) => return,
        }
    }
}

/// One attempt at delivery `d`, its outcome counted, logged and recorded. Returns when the
/// delivery is due again, if it is (unix ms): its retry's time, or its lease's end when the
/// outcome was not recorded.
async fn deliver(client: &reqwest::Client, state: &AppState, d: &Delivery, policy: Policy) -> Option<i64> {
    // The delivery's span, also around the lines that say how it went.
    let span = traces::delivery(d.game_id, d.version, &d.url);
    let outcome = attempt(client, d, policy, &span).await;
    let result = span.in_scope(|| match &outcome {
        Attempt::Delivered => WebhookResult::Delivered,
        Attempt::Retry { error, .. } => {
            tracing::info!(game = %d.game_id, seq = d.seq, %error, "webhook failed; will retry");
            WebhookResult::Retried
        }
        Attempt::GivenUp { error } => {
            tracing::warn!(game = %d.game_id, seq = d.seq, %error, "webhook given up");
            WebhookResult::GivenUp
        }
    });
    match state.db.settle_delivery(d, &outcome).await {
        Ok(Settled::Recorded) => {
            state.metrics.webhook(result);
            match outcome {
                Attempt::Retry { at, .. } => Some(at),
                Attempt::Delivered | Attempt::GivenUp { .. } => None,
            }
        }
        // This attempt outlived its lease, and another claim took the delivery (and has
        // delivered it, or attempts it now): recording this outcome would undo that one.
        Ok(Settled::Late) => {
            state.metrics.webhook(WebhookResult::Late);
            span.in_scope(|| {
                tracing::warn!(game = %d.game_id, seq = d.seq, "webhook outcome came after its lease was taken; not recorded");
            });
            None
        }
        // The lease runs out and the delivery is attempted again: at least once.
        Err(e) => {
            state.metrics.webhook(result);
            tracing::warn!(game = %d.game_id, error = %e, "webhook outcome not recorded");
            Some(now_ms().saturating_add(policy.lease_ms))
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn signature_matches_the_specification_example() {
        // The example of the Standard Webhooks specification.
        let secret = "whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw";
        let body = br#"{"test": 2432232314}"#;
        let sig = sign(secret, "msg_p5jXN8AQM9LWM0D4loKWxJek", 1614265330, body).expect("a signature");
        assert_eq!(sig, "v1,g0hM9SsE+OTPJTGt/tmIKtSyZlE3uFJELVlNIOLJ1OE=");
    }

    #[test]
    fn private_addresses_are_refused_unless_allowed() {
        for ip in [
            "127.0.0.1",
            "10.1.2.3",
            "192.168.0.1",
            "172.16.0.1",
            "169.254.169.254",
            "0.0.0.0",
            "::1",
            "fe80::1",
            "fd00::1",
            "::ffff:127.0.0.1",
            "100.64.0.1",
        ] {
            let ip: IpAddr = ip.parse().expect("an address");
            assert!(!reachable(ip, false), "{ip} is internal");
            assert!(reachable(ip, true), "{ip} allowed when private hosts are");
        }
        for ip in ["93.184.216.34", "2606:2800:220:1::1"] {
            let ip: IpAddr = ip.parse().expect("an address");
            assert!(reachable(ip, false), "{ip} is public");
        }
    }

    #[test]
    fn a_url_is_shown_without_its_query() {
        assert_eq!(
            shown("https://studio.example:8443/hooks/continental?token=TokenQRS789&x=1#part"),
            "https://studio.example:8443/hooks/continental"
        );
        assert_eq!(shown("not a url"), "");
    }

    #[test]
    fn backoff_doubles_from_the_base() {
        assert_eq!(backoff_ms(2.0, 0), 2_000);
        assert_eq!(backoff_ms(2.0, 1), 4_000);
        assert_eq!(backoff_ms(2.0, 40), MAX_BACKOFF_MS);
    }
}
