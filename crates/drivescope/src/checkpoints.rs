//! `scan --checkpoint`, `soak --checkpoint`: a running job's snapshots saved in the results
//! store as one run, updated in place, by a thread of their own (at a lower priority) so the
//! job never waits for the store.

use drivescope_core::checkpoint::{self, Checkpoints};
use drivescope_record::{Checkpoint, Document};
use drivescope_store::{Location, RunId, Store};
use std::sync::mpsc;
use std::thread::JoinHandle;
use std::time::Duration;

/// The thread that saves the snapshots.
pub struct Writer {
    thread: JoinHandle<Written>,
}

/// What the writer did: the run the snapshots went to (if any was saved), and the CPU time
/// it took.
#[derive(Debug, Default)]
pub struct Written {
    pub run: Option<RunId>,
    pub cpu_ns: u64,
}

/// Start the writer for the store at `path`: the job hands its snapshots to the returned
/// [`Checkpoints`], `stamp` makes each the document saved (adding who saved it, and what the
/// job does not know itself), in place of run `over` when given (a run continued in place),
/// else as a new run; `job` names the command in messages. A snapshot that arrives while the last one is still being written is
/// dropped (the next one follows an interval later).
pub fn start<R: Send + 'static>(
    path: Location,
    every: Duration,
    over: Option<RunId>,
    job: &'static str,
    stamp: impl Fn(R, Checkpoint) -> Document + Send + 'static,
) -> (Writer, Checkpoints<R>) {
    let every_ns = every.as_nanos().min(u64::MAX as u128) as u64;
    let (tx, rx) = mpsc::sync_channel::<R>(1);
    let thread = std::thread::Builder::new()
        .name("checkpoints".into())
        .spawn(move || write_all(&path, every_ns, over, job, &stamp, rx))
        .expect("start the checkpoint thread");
    let checkpoints = Checkpoints {
        every_ns,
        save: Box::new(move |rec| {
            let _ = tx.try_send(rec);
        }),
    };
    (Writer { thread }, checkpoints)
}

impl Writer {
    /// Wait for the last snapshot to be written (the job has ended and dropped its
    /// [`Checkpoints`]).
    pub fn finish(self) -> Written {
        self.thread.join().unwrap_or_default()
    }
}

fn write_all<R>(
    path: &Location,
    every_ns: u64,
    over: Option<RunId>,
    job: &str,
    stamp: &dyn Fn(R, Checkpoint) -> Document,
    rx: mpsc::Receiver<R>,
) -> Written {
    checkpoint::background_thread();
    let me = checkpoint::this_process(every_ns);
    let mut store: Option<Store> = None;
    let mut run: Option<RunId> = over;
    let mut told = false;
    for rec in rx {
        let doc = stamp(rec, me.clone());
        let saved = (|| {
            let s = match store.as_mut() {
                Some(s) => s,
                None => store.insert(Store::open(path)?),
            };
            match run {
                Some(id) => s.replace(id, &doc),
                None => s.save(&doc).map(|id| run = Some(id)),
            }
        })();
        if let Err(e) = saved {
            store = None; // opened again for the next one
            if !told {
                eprintln!(
                    "drivescope: a checkpoint was not saved in {}: {}; the {job} goes on",
                    crate::opts::store::shown(path),
                    e.fault(path)
                );
                told = true;
            }
        }
    }
    Written {
        run,
        cpu_ns: checkpoint::thread_cpu_ns(),
    }
}

/// `--resume` refuses a run whose checkpoint names a process that is still running.
pub fn refuse_running(doc: &Document, id: i64) -> anyhow::Result<()> {
    let running =
        drivescope_record::RunStatus::of(doc) == Some(drivescope_record::RunStatus::Running);
    if let Some(c) = doc.checkpoint().filter(|_| running) {
        anyhow::bail!(
            "run {id} is still running (process {}); continue it once that process has ended",
            c.pid
        );
    }
    Ok(())
}
