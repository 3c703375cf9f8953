//! When a background pass runs next ([`Schedule`]): at the soonest time it knows work is due
//! (from its own last read, or a due time a commit announced through the hub), never sooner
//! than its floor after its last run, so that work it cannot take yet or a stream of wake-ups
//! costs at most a read a floor, and never later than its backstop after it, for the work
//! nothing announces: what a stopped replica left under its lease, a due time it stored.

use std::time::Duration;

use tokio::time::Instant;

use crate::store::now_ms;

/// One pass's next run.
#[derive(Debug)]
pub(super) struct Schedule {
    floor: Duration,
    backstop: Duration,
    /// When the last run started; none before the first, which runs at once.
    last: Option<Instant>,
    /// The soonest due time known since the last run started (unix ms).
    due: Option<i64>,
}

impl Schedule {
    /// A pass that runs at most once a `floor` and at least once a `backstop`.
    pub(super) fn new(floor: Duration, backstop: Duration) -> Schedule {
        Schedule {
            floor,
            backstop: backstop.max(floor),
            last: None,
            due: None,
        }
    }

    /// Work is due at `at` (unix ms), if anything is.
    pub(super) fn due_at(&mut self, at: Option<i64>) {
        if let Some(at) = at {
            self.due = Some(self.due.map_or(at, |due| due.min(at)));
        }
    }

    /// Work is due now.
    pub(super) fn due_now(&mut self) {
        self.due_at(Some(now_ms()));
    }

    /// When the pass runs next.
    pub(super) fn next(&self) -> Instant {
        let Some(last) = self.last else {
            return Instant::now();
        };
        let latest = last + self.backstop;
        let due = self.due.map(|at| {
            Instant::now() + Duration::from_millis(u64::try_from(at.saturating_sub(now_ms())).unwrap_or(0))
        });
        due.map_or(latest, |due| due.min(latest)).max(last + self.floor)
    }

    /// A run starts now: what is due is its to find, and what it leaves due it says by
    /// [`Schedule::due_at`].
    pub(super) fn ran(&mut self) {
        self.last = Some(Instant::now());
        self.due = None;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// `at` is `from` plus `ms`, give or take the test's own running time.
    fn about(at: Instant, from: Instant, ms: u64) -> bool {
        let off = at
            .saturating_duration_since(from)
            .as_millis()
            .abs_diff(u128::from(ms));
        off < 200
    }

    #[test]
    fn a_pass_runs_when_due_within_its_floor_and_backstop() {
        let second = Duration::from_secs(1);
        let mut schedule = Schedule::new(second, 10 * second);
        let start = Instant::now();
        assert!(about(schedule.next(), start, 0), "the first run at once");
        schedule.ran();
        assert!(about(schedule.next(), start, 10_000), "nothing due: the backstop");
        schedule.due_at(Some(now_ms() + 4_000));
        assert!(about(schedule.next(), start, 4_000), "when due");
        schedule.due_now();
        assert!(
            about(schedule.next(), start, 1_000),
            "never sooner than the floor"
        );
        schedule.due_at(None);
        assert!(
            about(schedule.next(), start, 1_000),
            "nothing new: what was known"
        );
        schedule.ran();
        assert!(about(schedule.next(), start, 10_000), "a run takes what was due");
    }
}
