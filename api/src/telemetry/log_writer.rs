//! The log's writer: lines gathered in memory and written to stdout by a thread of their own,
//! every [`EVERY`] or as soon as [`SOON`] bytes wait.
//!
//! A writer thread woken for every line (as `tracing-appender`'s is, through its channel) runs
//! once per request on a busy replica, each time a context switch and a `write`: about a tenth
//! of the CPU of a meld validation (docs/performance.md). Here a worker only appends to a
//! buffer; the thread wakes twenty times a second. Nothing is dropped: a worker that finds
//! [`FULL`] bytes waiting (stdout blocked) waits for the thread, and [`LogGuard`]'s drop
//! writes what is left.

use std::io::Write;
use std::sync::{Arc, Condvar, Mutex, MutexGuard, PoisonError};
use std::thread::JoinHandle;
use std::time::Duration;

use tracing_subscriber::fmt::MakeWriter;

/// How long a line may wait in memory.
const EVERY: Duration = Duration::from_millis(50);
/// Waiting bytes that wake the thread before its time.
const SOON: usize = 64 * 1024;
/// Waiting bytes that make the workers wait for the thread.
const FULL: usize = 4 * 1024 * 1024;

/// Where the workers' lines wait for the writer thread.
#[derive(Default)]
struct Pending {
    lines: Mutex<Waiting>,
    /// Wakes the thread: bytes past [`SOON`], or the end.
    wake: Condvar,
    /// Wakes the workers waiting on [`FULL`].
    drained: Condvar,
}

#[derive(Default)]
struct Waiting {
    bytes: Vec<u8>,
    closed: bool,
}

impl Pending {
    /// The lines, even if a thread panicked while holding them (a log line is still worth
    /// writing).
    fn lock(&self) -> MutexGuard<'_, Waiting> {
        self.lines.lock().unwrap_or_else(PoisonError::into_inner)
    }
}

/// The writer given to tracing: each event's line is appended to the waiting bytes.
#[derive(Clone)]
pub struct LogWriter {
    pending: Arc<Pending>,
}

/// Keep it until exit: its drop writes the lines still waiting and stops the thread.
#[must_use = "dropping the guard stops the log writer"]
pub struct LogGuard {
    pending: Arc<Pending>,
    thread: Option<JoinHandle<()>>,
}

/// A writer to `out` and the guard of its thread.
pub fn log_writer(out: impl Write + Send + 'static) -> (LogWriter, LogGuard) {
    let pending = Arc::new(Pending::default());
    let thread = {
        let pending = pending.clone();
        std::thread::Builder::new()
            .name("log-writer".into())
            .spawn(move || write_out(&pending, out))
            .ok()
    };
    let writer = LogWriter {
        pending: pending.clone(),
    };
    (writer, LogGuard { pending, thread })
}

/// The thread: takes what waits, writes it, until closed and empty.
fn write_out(pending: &Pending, mut out: impl Write) {
    let mut batch = Vec::new();
    loop {
        let closed = {
            let mut waiting = pending.lock();
            if !waiting.closed && waiting.bytes.len() < SOON {
                waiting = pending
                    .wake
                    .wait_timeout(waiting, EVERY)
                    .unwrap_or_else(PoisonError::into_inner)
                    .0;
            }
            std::mem::swap(&mut batch, &mut waiting.bytes);
            waiting.closed
        };
        pending.drained.notify_all();
        if !batch.is_empty() {
            // Stdout gone has nowhere to report to; the lines are dropped then.
            let _ = out.write_all(&batch).and_then(|()| out.flush());
            batch.clear();
        }
        if closed && pending.lock().bytes.is_empty() {
            return;
        }
    }
}

impl LogWriter {
    /// Appends `line` to what waits (waiting first if [`FULL`] bytes do).
    pub fn append(&self, line: &[u8]) {
        let mut waiting = self.pending.lock();
        while waiting.bytes.len() >= FULL && !waiting.closed {
            waiting = self
                .pending
                .drained
                .wait(waiting)
                .unwrap_or_else(PoisonError::into_inner);
        }
        waiting.bytes.extend_from_slice(line);
        if waiting.bytes.len() >= SOON {
            self.pending.wake.notify_one();
        }
    }
}

impl Write for LogWriter {
    fn write(&mut self, line: &[u8]) -> std::io::Result<usize> {
        self.append(line);
        Ok(line.len())
    }

    fn flush(&mut self) -> std::io::Result<()> {
        Ok(())
    }
}

impl<'a> MakeWriter<'a> for LogWriter {
    type Writer = LogWriter;

    fn make_writer(&'a self) -> LogWriter {
        self.clone()
    }
}

impl Drop for LogGuard {
    fn drop(&mut self) {
        self.pending.lock().closed = true;
        self.pending.wake.notify_one();
        if let Some(thread) = self.thread.take() {
            let _ = thread.join();
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// An `out` whose bytes the test can read.
    #[derive(Clone, Default)]
    struct Shared(Arc<Mutex<Vec<u8>>>);

    impl Write for Shared {
        fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
            self.0.lock().expect("the bytes").extend_from_slice(buf);
            Ok(buf.len())
        }

        fn flush(&mut self) -> std::io::Result<()> {
            Ok(())
        }
    }

    #[test]
    fn lines_are_written_in_order_within_their_time_and_all_of_them_at_the_end() {
        let out = Shared::default();
        let (writer, guard) = log_writer(out.clone());
        writer.make_writer().write_all(b"one\n").expect("written");
        writer.make_writer().write_all(b"two\n").expect("written");
        let started = std::time::Instant::now();
        while out.0.lock().expect("the bytes").is_empty() {
            assert!(
                started.elapsed() < Duration::from_secs(5),
                "a line waited too long"
            );
            std::thread::sleep(Duration::from_millis(5));
        }
        assert_eq!(*out.0.lock().expect("the bytes"), b"one\ntwo\n");
        // Many threads, more than FULL bytes in all: every line, each whole.
        let line = [b'x'; 1023];
        let threads: Vec<_> = (0..4)
            .map(|_| {
                let writer = writer.clone();
                std::thread::spawn(move || {
                    for _ in 0..2048 {
                        let mut w = writer.make_writer();
                        w.write_all(&[line.as_slice(), b"\n"].concat()).expect("written");
                    }
                })
            })
            .collect();
        threads
            .into_iter()
            .for_each(|t| t.join().expect("a writer thread"));
        writer.make_writer().write_all(b"last\n").expect("written");
        drop(guard);
        let written = out.0.lock().expect("the bytes").clone();
        let lines: Vec<&[u8]> = written.split(|b| *b == b'\n').collect();
        assert_eq!(lines.len(), 2 + 4 * 2048 + 1 + 1, "every line and the empty tail");
        assert!(lines[2..2 + 4 * 2048].iter().all(|l| *l == line.as_slice()));
        assert_eq!(lines[lines.len() - 2], b"last");
    }
}
