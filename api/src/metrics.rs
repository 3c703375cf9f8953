//! A few counters in the Prometheus text format. Hand-rolled: four numbers do not need a crate.

use std::fmt::Write;
use std::sync::atomic::{AtomicU64, Ordering};

/// The service's counters.
#[derive(Debug, Default)]
pub struct Metrics {
    responses: [AtomicU64; 5],
    games_created: AtomicU64,
    actions_applied: AtomicU64,
    actions_refused: AtomicU64,
}

impl Metrics {
    /// Counts one response with this status.
    pub fn response(&self, status: u16) {
        let class = usize::from(status / 100).clamp(1, 5) - 1;
        self.responses[class].fetch_add(1, Ordering::Relaxed);
    }

    /// Counts a created game.
    pub fn game_created(&self) {
        self.games_created.fetch_add(1, Ordering::Relaxed);
    }

    /// Counts an action, applied or refused.
    pub fn action(&self, applied: bool) {
        let counter = if applied {
            &self.actions_applied
        } else {
            &self.actions_refused
        };
        counter.fetch_add(1, Ordering::Relaxed);
    }

    /// The counters in the Prometheus text exposition format.
    pub fn render(&self) -> String {
        let mut out = String::new();
        let get = |c: &AtomicU64| c.load(Ordering::Relaxed);
        out.push_str("# HELP continental_http_responses_total HTTP responses by status class.\n");
        out.push_str("# TYPE continental_http_responses_total counter\n");
        for (i, c) in self.responses.iter().enumerate() {
            let _ = writeln!(
                out,
                "continental_http_responses_total{{class=\"{}xx\"}} {}",
                i + 1,
                get(c)
            );
        }
        out.push_str("# HELP continental_games_created_total Games created.\n");
        out.push_str("# TYPE continental_games_created_total counter\n");
        let _ = writeln!(
            out,
            "continental_games_created_total {}",
            get(&self.games_created)
        );
        out.push_str("# HELP continental_actions_total Game actions by result.\n");
        out.push_str("# TYPE continental_actions_total counter\n");
        let _ = writeln!(
            out,
            "continental_actions_total{{result=\"applied\"}} {}",
            get(&self.actions_applied)
        );
        let _ = writeln!(
            out,
            "continental_actions_total{{result=\"refused\"}} {}",
            get(&self.actions_refused)
        );
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn counts_show_up_by_class() {
        let m = Metrics::default();
        m.response(200);
        m.response(201);
        m.response(404);
        let text = m.render();
        assert!(
            text.contains("continental_http_responses_total{class=\"2xx\"} 2"),
            "{text}"
        );
        assert!(
            text.contains("continental_http_responses_total{class=\"4xx\"} 1"),
            "{text}"
        );
    }
}
