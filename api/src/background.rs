//! Where the background passes and timers run: threads of their own, apart from the HTTP
//! server's, so that no pass, timer or delivery waits behind a request and none delays one.
//! Each [`Lane`] is one thread with a single-threaded tokio runtime and a `LocalSet` (a pass's
//! future need not be `Send`; it is made on the lane's thread from a closure that is). Startup
//! makes two: one for webhook deliveries, which wait on receivers and must answer within a
//! fraction of a second, and one for the passes that think and write games (deadlines, bots,
//! paced moves, matching, rating, the sweep), so that a pass's CPU never holds up a delivery.
//! Dropping a lane, or [`Lane::stop`], ends its tasks where they are (a delivery in flight is
//! attempted again when its lease runs out) and its thread.

use std::future::Future;
use std::pin::Pin;
use std::sync::Arc;
use std::thread::JoinHandle;

use tokio::sync::{mpsc, watch};

/// A pass to start on a lane: made there, from what the closure captured.
type Start = Box<dyn FnOnce() -> Pin<Box<dyn Future<Output = ()>>> + Send>;

/// One thread of background work.
#[derive(Debug)]
pub struct Lane {
    starts: Option<mpsc::UnboundedSender<Start>>,
    stop: Arc<watch::Sender<bool>>,
    thread: Option<JoinHandle<()>>,
}

impl Lane {
    /// A thread named `name`, running its own runtime until stopped.
    ///
    /// # Errors
    /// When the thread or its runtime cannot be made.
    pub fn new(name: &str) -> std::io::Result<Lane> {
        let runtime = tokio::runtime::Builder::new_current_thread()
            .enable_all()
            .build()?;
        let (starts, mut started) = mpsc::unbounded_channel::<Start>();
        let (stop, mut stopped) = watch::channel(false);
        let thread = std::thread::Builder::new().name(name.to_owned()).spawn(move || {
            let local = tokio::task::LocalSet::new();
            runtime.block_on(local.run_until(async move {
                let run = async {
                    while let Some(start) = started.recv().await {
                        tokio::task::spawn_local(start());
                    }
                    std::future::pending::<()>().await;
                };
                tokio::select! {
                    _ = stopped.wait_for(|stop| *stop) => {}
                    () = run => {}
                }
            }));
            // The tasks are dropped inside the runtime: a pass cut off while it holds a
            // pooled connection gives it back as it is dropped, which needs one.
            let inside = runtime.enter();
            drop(local);
            drop(inside);
            runtime.shutdown_background();
        })?;
        Ok(Lane {
            starts: Some(starts),
            stop: Arc::new(stop),
            thread: Some(thread),
        })
    }

    /// Starts the pass `make` makes, on this lane's thread.
    pub fn spawn<F, Fut>(&self, make: F)
    where
        F: FnOnce() -> Fut + Send + 'static,
        Fut: Future<Output = ()> + 'static,
    {
        if let Some(starts) = &self.starts {
            // Only a stopped lane refuses it, and then nothing is to run.
            let _ = starts.send(Box::new(move || Box::pin(make())));
        }
    }

    /// A handle that stops this lane's tasks at once, as a crash would (for tests).
    pub fn kill_handle(&self) -> LaneKill {
        LaneKill(Arc::clone(&self.stop))
    }

    /// Stops the lane's tasks where they are and waits for its thread to end.
    pub fn stop(mut self) {
        self.halt();
    }

    fn halt(&mut self) {
        self.starts = None;
        let _ = self.stop.send(true);
        if let Some(thread) = self.thread.take() {
            let _ = thread.join();
        }
    }
}

impl Drop for Lane {
    fn drop(&mut self) {
        self.halt();
    }
}

/// Stops a lane's tasks when [`LaneKill::kill`]ed.
#[derive(Clone, Debug)]
pub struct LaneKill(Arc<watch::Sender<bool>>);

impl LaneKill {
    /// Stops the lane's tasks now.
    pub fn kill(&self) {
        let _ = self.0.send(true);
    }
}
