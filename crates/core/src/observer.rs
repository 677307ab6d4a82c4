//! What a running job reports to and listens to, in one value: its live counters (progress), the
//! flag that stops it, where its checkpoints go, and the events it hands out as it finds them. A
//! library entry point takes one [`Observer`] instead of a callback per concern.

use crate::checkpoint::Checkpoints;
use std::sync::atomic::AtomicBool;
use std::sync::Arc;

/// Takes each event of a running job (a scan's failed-list entries), on the job's thread: it must
/// return at once.
pub type Events<E> = Box<dyn FnMut(&E) + Send>;

/// The progress `P` a job counts into, its stop flag, its checkpoints of record `R`, and its
/// events `E`.
pub struct Observer<'a, P, R, E = ()> {
    /// Live counters another thread (the live view) reads.
    pub progress: Arc<P>,
    /// The job ends, with what it has, once this is set.
    pub stop: &'a AtomicBool,
    /// Snapshots of the job at their interval, where the job keeps any.
    pub checkpoints: Option<Checkpoints<R>>,
    /// Each event as it is found.
    pub events: Option<Events<E>>,
}

impl<'a, P: Default, R, E> Observer<'a, P, R, E> {
    /// Fresh counters nobody reads, `stop`, no checkpoints and no events.
    pub fn new(stop: &'a AtomicBool) -> Self {
        Observer::counting(Arc::default(), stop)
    }
}

impl<'a, P, R, E> Observer<'a, P, R, E> {
    /// Counting into `progress`, stopped by `stop`; no checkpoints and no events.
    pub fn counting(progress: Arc<P>, stop: &'a AtomicBool) -> Self {
        Observer {
            progress,
            stop,
            checkpoints: None,
            events: None,
        }
    }

    /// The same, with the checkpoints `checkpoints` (none: none).
    pub fn with_checkpoints(self, checkpoints: Option<Checkpoints<R>>) -> Self {
        Observer {
            checkpoints,
            ..self
        }
    }

    /// The same, with the events handed to `events` (none: kept by the job only).
    pub fn with_events(self, events: Option<Events<E>>) -> Self {
        Observer { events, ..self }
    }
}

impl<P, R, E> std::fmt::Debug for Observer<'_, P, R, E> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Observer")
            .field("stop", &self.stop)
            .field("checkpoints", &self.checkpoints)
            .field("events", &self.events.is_some())
            .finish_non_exhaustive()
    }
}
