//! The service's metrics, kept in a `prometheus` registry of its own (one per application, so
//! several in one process do not mix) and served in the Prometheus text format.

use std::collections::HashMap;
use std::time::Duration;

use prometheus::core::{Collector, Desc};
use prometheus::proto::{Counter, Metric, MetricFamily, MetricType};
use prometheus::{
    Encoder, HistogramOpts, HistogramVec, IntCounterVec, IntGauge, IntGaugeVec, Opts, Registry, TextEncoder,
};

/// Every metric the service serves; the names here are the names served.
#[derive(Clone, Debug)]
pub struct Metrics {
    registry: Registry,
    /// Also served, by [`RequestCounts`], as the request counter.
    latency: HistogramVec,
    pool: IntGaugeVec,
    streams: IntGauge,
    moves: IntCounterVec,
    games_created: IntCounterVec,
    database_errors: IntCounterVec,
    webhooks: IntCounterVec,
    timeouts: prometheus::IntCounter,
    /// Games set aside by a background pass (their stored state does not load).
    set_aside: prometheus::IntCounter,
    /// Quick play's pools matched (`continental_pools_matched_total`).
    pools_matched: prometheus::IntCounter,
    bot_decisions: HistogramVec,
    bot_moves_refused: IntCounterVec,
    /// Brought up to the process's count as it is served (`telemetry::traces`).
    spans_dropped: prometheus::IntCounter,
    /// Each kind of background work's pieces in hand now, and what waits for it.
    in_flight: IntGaugeVec,
    backlog: IntGaugeVec,
}

/// A kind of background work, for `continental_background_in_flight` and
/// `continental_background_backlog`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, strum::EnumIter)]
pub enum Work {
    /// Webhook deliveries: in flight, and pending.
    Webhooks,
    /// Games of bots that think apart: in hand, and games whose turn is due.
    Bots,
    /// Paced bot moves: timers armed.
    Paced,
    /// Quick play: tickets waiting.
    Tickets,
}

impl Work {
    /// Its label.
    pub fn label(self) -> &'static str {
        match self {
            Work::Webhooks => "webhooks",
            Work::Bots => "bots",
            Work::Paced => "paced",
            Work::Tickets => "tickets",
        }
    }
}

/// How a webhook delivery attempt ended, for `continental_webhook_deliveries_total`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum WebhookResult {
    /// Answered 2xx.
    Delivered,
    /// Failed; to be retried.
    Retried,
    /// Failed for the last time, after a day: given up.
    GivenUp,
    /// Ended after its claim's lease was taken by another claim: not recorded, whatever it
    /// was (the other claim's outcome stands).
    Late,
}

/// What a move came to, for `continental_moves_total`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum MoveOutcome {
    /// Accepted and stored.
    Applied,
    /// Refused by the rules or the request's preconditions (a 4xx).
    Refused,
    /// Could not complete: the database was unavailable or something unexpected failed.
    Failed,
}

impl MoveOutcome {
    fn label(self) -> &'static str {
        match self {
            MoveOutcome::Applied => "applied",
            MoveOutcome::Refused => "refused",
            MoveOutcome::Failed => "failed",
        }
    }
}

/// `continental_http_requests_total`, served from the counts of the latency histogram's series
/// (the same labels): a request then looks up one series, not two.
struct RequestCounts {
    latency: HistogramVec,
    desc: Desc,
}

impl RequestCounts {
    const NAME: &str = "continental_http_requests_total";
    const HELP: &str = "HTTP requests answered, by route pattern, method and status.";

    fn new(latency: HistogramVec) -> RequestCounts {
        let labels = ["route", "method", "status"].map(String::from).to_vec();
        let desc =
            Desc::new(Self::NAME.into(), Self::HELP.into(), labels, HashMap::new()).expect("a valid metric");
        RequestCounts { latency, desc }
    }
}

impl Collector for RequestCounts {
    fn desc(&self) -> Vec<&Desc> {
        vec![&self.desc]
    }

    fn collect(&self) -> Vec<MetricFamily> {
        let mut counts = MetricFamily::default();
        counts.set_name(Self::NAME.into());
        counts.set_help(Self::HELP.into());
        counts.set_field_type(MetricType::COUNTER);
        for histogram in self.latency.collect() {
            for series in histogram.get_metric() {
                let mut count = Counter::default();
                // Counts are far below 2^53: exact as a float.
                count.set_value(series.get_histogram().get_sample_count() as f64);
                let mut metric = Metric::from_label(series.get_label().to_vec());
                metric.set_counter(count);
                counts.mut_metric().push(metric);
            }
        }
        vec![counts]
    }
}

/// Keeps `continental_open_streams` one higher while it lives.
#[derive(Debug)]
pub struct StreamGuard(IntGauge);

impl Drop for StreamGuard {
    fn drop(&mut self) {
        self.0.dec();
    }
}

/// A counter named `name`, with its `help`.
fn counter(name: &str, help: &str) -> prometheus::IntCounter {
    prometheus::IntCounter::new(name, help).expect("valid metric")
}

/// Counters named `name`, one per value of `labels`.
fn counters(name: &str, help: &str, labels: &[&str]) -> IntCounterVec {
    IntCounterVec::new(Opts::new(name, help), labels).expect("valid metric")
}

/// Gauges named `name`, one per value of `labels`.
fn gauges(name: &str, help: &str, labels: &[&str]) -> IntGaugeVec {
    IntGaugeVec::new(Opts::new(name, help), labels).expect("valid metric")
}

/// Histograms named `name` with `buckets` (seconds), one per value of `labels`.
fn histograms(name: &str, help: &str, buckets: &[f64], labels: &[&str]) -> HistogramVec {
    HistogramVec::new(HistogramOpts::new(name, help).buckets(buckets.to_vec()), labels).expect("valid metric")
}

impl Default for Metrics {
    fn default() -> Metrics {
        Metrics::new()
    }
}

impl Metrics {
    /// A fresh registry with every metric at zero.
    ///
    /// # Panics
    /// Never: the fixed names and labels below are valid and registered once.
    pub fn new() -> Metrics {
        let metrics = Metrics {
            registry: Registry::new(),
            latency: histograms(
                "continental_http_request_duration_seconds",
                "Time from a request's headers to its response, by route pattern, method and status.",
                &[
                    0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5, 5.0, 10.0,
                ],
                &["route", "method", "status"],
            ),
            pool: gauges(
                "continental_db_pool_connections",
                "Database connections of the pools (on a Citus cluster, to every node), by state (in_use, idle).",
                &["state"],
            ),
            streams: IntGauge::new("continental_open_streams", "Event streams open now.")
                .expect("valid metric"),
            moves: counters(
                "continental_moves_total",
                "Moves by variant, action and outcome (applied, refused, failed).",
                &["variant", "action", "outcome"],
            ),
            games_created: counters(
                "continental_games_created_total",
                "Games created, by variant.",
                &["variant"],
            ),
            database_errors: counters(
                "continental_database_errors_total",
                "Requests failed by the database, by kind (unavailable: timed out or unreachable; other).",
                &["kind"],
            ),
            webhooks: counters(
                "continental_webhook_deliveries_total",
                "Webhook delivery attempts by result (delivered, retried, given_up: after a day of failures; late: ended after another claim took its lease, not recorded).",
                &["result"],
            ),
            timeouts: counter(
                "continental_turns_timed_out_total",
                "Turns the server played because their deadline passed.",
            ),
            set_aside: counter(
                "continental_games_set_aside_total",
                "Games a background pass set aside because their stored state does not load.",
            ),
            pools_matched: counter(
                "continental_pools_matched_total",
                "Quick play's pools this replica matched, each in a transaction of its own: one when a ticket arrives or leaves, or the clock could seat a waiting one, however many wait.",
            ),
            bot_decisions: histograms(
                "continental_bot_decision_seconds",
                "Time a bot that thinks apart from the requests took to decide, by level.",
                &[0.001, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0],
                &["level"],
            ),
            bot_moves_refused: counters(
                "continental_bot_moves_refused_total",
                "Bot proposals the game refused (or, in the bot's turn, no move found), by level: each played as normal's move or the simplest legal one instead.",
                &["level"],
            ),
            spans_dropped: counter(
                "continental_trace_spans_dropped_total",
                "Spans not exported: the export queue full (a collector slow), or an export failed (a collector down) and the batches of the second after it; 0 when traces are off.",
            ),
            in_flight: gauges(
                "continental_background_in_flight",
                "Pieces of background work this replica has in hand now, by kind (webhooks: deliveries in flight; bots: games whose bot thinks or waits for a thread; paced: paced bot moves armed).",
                &["work"],
            ),
            backlog: gauges(
                "continental_background_backlog",
                "What waits for background work, as last read from the database, by kind (webhooks: deliveries pending; bots: games whose turn deadline has passed; tickets: quick play's tickets waiting).",
                &["work"],
            ),
        };
        metrics.register();
        metrics.start_known_labels();
        metrics
    }

    /// Registers every metric, and the request counts read from the latency histogram.
    fn register(&self) {
        for c in [
            Box::new(RequestCounts::new(self.latency.clone())) as Box<dyn prometheus::core::Collector>,
            Box::new(self.in_flight.clone()),
            Box::new(self.backlog.clone()),
            Box::new(self.spans_dropped.clone()),
            Box::new(self.bot_decisions.clone()),
            Box::new(self.bot_moves_refused.clone()),
            Box::new(self.webhooks.clone()),
            Box::new(self.timeouts.clone()),
            Box::new(self.set_aside.clone()),
            Box::new(self.pools_matched.clone()),
            Box::new(self.latency.clone()),
            Box::new(self.pool.clone()),
            Box::new(self.streams.clone()),
            Box::new(self.moves.clone()),
            Box::new(self.games_created.clone()),
            Box::new(self.database_errors.clone()),
        ] {
            self.registry.register(c).expect("each metric registered once");
        }
    }

    /// Starts the known labels at zero, so that a rate over a series that has not moved yet is
    /// 0, not absent.
    fn start_known_labels(&self) {
        for variant in engine::Variant::ALL.map(|v| v.id()) {
            self.games_created.with_label_values(&[variant]);
            for action in <engine::ActionKind as strum::IntoEnumIterator>::iter() {
                for outcome in [MoveOutcome::Applied, MoveOutcome::Refused, MoveOutcome::Failed] {
                    self.moves
                        .with_label_values(&[variant, action.name(), outcome.label()]);
                }
            }
        }
        for level in <engine::bot::Level as strum::IntoEnumIterator>::iter() {
            self.bot_moves_refused
                .with_label_values(&[crate::domain::level_name(level).as_str()]);
        }
        for kind in ["unavailable", "other"] {
            self.database_errors.with_label_values(&[kind]);
        }
        for result in ["delivered", "retried", "given_up", "late"] {
            self.webhooks.with_label_values(&[result]);
        }
        for state in ["in_use", "idle"] {
            self.pool.with_label_values(&[state]);
        }
        for work in <Work as strum::IntoEnumIterator>::iter() {
            self.in_flight.with_label_values(&[work.label()]);
            self.backlog.with_label_values(&[work.label()]);
        }
    }

    /// Counts a bot of `level` (its name) whose proposal the game refused.
    pub fn bot_move_refused(&self, level: &str) {
        self.bot_moves_refused.with_label_values(&[level]).inc();
    }

    /// Records how long a bot of `level` (its name) took to decide, apart from the requests.
    pub fn bot_decided(&self, level: &str, took: Duration) {
        self.bot_decisions
            .with_label_values(&[level])
            .observe(took.as_secs_f64());
    }

    /// Counts a webhook delivery attempt.
    pub fn webhook(&self, result: WebhookResult) {
        let label = match result {
            WebhookResult::Delivered => "delivered",
            WebhookResult::Retried => "retried",
            WebhookResult::GivenUp => "given_up",
            WebhookResult::Late => "late",
        };
        self.webhooks.with_label_values(&[label]).inc();
    }

    /// Moves the count of `work`'s pieces in hand by `by`.
    pub fn in_flight(&self, work: Work, by: i64) {
        self.in_flight.with_label_values(&[work.label()]).add(by);
    }

    /// Sets the count of `work`'s pieces in hand.
    pub fn set_in_flight(&self, work: Work, n: i64) {
        self.in_flight.with_label_values(&[work.label()]).set(n);
    }

    /// Records what waits for `work`, as just read.
    pub fn backlog(&self, work: Work, n: i64) {
        self.backlog.with_label_values(&[work.label()]).set(n);
    }

    /// Counts `n` pools of quick play matched.
    pub fn pools_matched(&self, n: usize) {
        self.pools_matched.inc_by(u64::try_from(n).unwrap_or(u64::MAX));
    }

    /// Counts a game set aside because its stored state does not load.
    pub fn game_set_aside(&self) {
        self.set_aside.inc();
    }

    /// Counts a turn the server played because its deadline passed.
    pub fn turn_timed_out(&self) {
        self.timeouts.inc();
    }

    /// Counts one answered request and its latency. `route` is the matched pattern (never the
    /// raw path, which would make a series per game).
    pub fn request(&self, route: &str, method: &str, status: u16, elapsed: Duration) {
        let mut status_text = itoa::Buffer::new();
        // One series: the counter is served from its count (`RequestCounts`).
        self.latency
            .with_label_values(&[route, method, status_text.format(status)])
            .observe(elapsed.as_secs_f64());
    }

    /// Counts a created game.
    pub fn game_created(&self, variant: &str) {
        self.games_created.with_label_values(&[variant]).inc();
    }

    /// Counts a move.
    pub fn moved(&self, variant: &str, action: engine::ActionKind, outcome: MoveOutcome) {
        self.moves
            .with_label_values(&[variant, action.name(), outcome.label()])
            .inc();
    }

    /// Counts a request the database failed: `unavailable` or not.
    pub fn database_error(&self, unavailable: bool) {
        let kind = if unavailable { "unavailable" } else { "other" };
        self.database_errors.with_label_values(&[kind]).inc();
    }

    /// An open stream, counted until the guard is dropped.
    pub fn stream_opened(&self) -> StreamGuard {
        self.streams.inc();
        StreamGuard(self.streams.clone())
    }

    /// Records the pool's connections as last seen.
    pub fn pool(&self, in_use: u32, idle: u32) {
        self.pool.with_label_values(&["in_use"]).set(i64::from(in_use));
        self.pool.with_label_values(&["idle"]).set(i64::from(idle));
    }

    /// Everything in the Prometheus text exposition format.
    pub fn render(&self) -> String {
        let dropped = crate::telemetry::traces::spans_dropped();
        self.spans_dropped
            .inc_by(dropped.saturating_sub(self.spans_dropped.get()));
        let mut out = Vec::new();
        // Encoding our own registry into memory does not fail; an empty page would show it.
        let _ = TextEncoder::new().encode(&self.registry.gather(), &mut out);
        String::from_utf8(out).unwrap_or_default()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn requests_show_up_by_route_and_status() {
        let m = Metrics::new();
        m.request("/v1/games/{id}", "GET", 200, Duration::from_millis(3));
        m.request("/v1/games/{id}", "GET", 200, Duration::from_millis(4));
        m.request("/v1/games/{id}", "GET", 404, Duration::from_millis(1));
        let text = m.render();
        assert!(
            text.contains(
                "continental_http_requests_total{method=\"GET\",route=\"/v1/games/{id}\",status=\"200\"} 2"
            ),
            "{text}"
        );
        assert!(
            text.contains("continental_http_request_duration_seconds_count{method=\"GET\",route=\"/v1/games/{id}\",status=\"404\"} 1"),
            "{text}"
        );
    }

    #[test]
    fn a_stream_guard_counts_while_it_lives() {
        let m = Metrics::new();
        let a = m.stream_opened();
        let b = m.stream_opened();
        drop(a);
        assert!(
            m.render().contains("continental_open_streams 1"),
            "{}",
            m.render()
        );
        drop(b);
        assert!(m.render().contains("continental_open_streams 0"));
    }
}
