//! `scan --checkpoint`: a running scan's snapshots saved in the results store as one run,
//! updated in place, by a thread of their own (at a lower priority) so the scan never waits
//! for the store.

use drivescope_core::scan::{checkpoint, Checkpoints, ScanRecord};
use drivescope_probe::Identity;
use drivescope_record::Document;
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

/// What every snapshot carries besides the scan's own numbers.
pub struct Stamp {
    pub device: Option<Identity>,
    pub resumed_from: Option<i64>,
}

/// Start the writer for the store at `path`; the scan hands its snapshots to the returned
/// [`Checkpoints`]. A snapshot that arrives while the last one is still being written is
/// dropped (the next one follows an interval later).
pub fn start(path: Location, every: Duration, stamp: Stamp) -> (Writer, Checkpoints) {
    let every_ns = every.as_nanos().min(u64::MAX as u128) as u64;
    let (tx, rx) = mpsc::sync_channel::<ScanRecord>(1);
    let thread = std::thread::Builder::new()
        .name("checkpoints".into())
        .spawn(move || write_all(&path, every_ns, &stamp, rx))
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
    /// Wait for the last snapshot to be written (the scan has ended and dropped its
    /// [`Checkpoints`]).
    pub fn finish(self) -> Written {
        self.thread.join().unwrap_or_default()
    }
}

fn write_all(
    path: &Location,
    every_ns: u64,
    stamp: &Stamp,
    rx: mpsc::Receiver<ScanRecord>,
) -> Written {
    checkpoint::background_thread();
    let me = checkpoint::this_process(every_ns);
    let mut store: Option<Store> = None;
    let mut run: Option<RunId> = None;
    let mut told = false;
    for mut rec in rx {
        rec.header.device = stamp.device.clone();
        rec.resumed_from = stamp.resumed_from;
        rec.checkpoint = Some(me.clone());
        let doc = Document::from(rec);
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
                    "drivescope: a checkpoint was not saved in {}: {}; the scan goes on",
                    super::store_opts::shown(path),
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
