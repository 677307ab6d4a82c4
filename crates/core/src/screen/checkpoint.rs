//! Checkpoints of a group: every drive's scan takes its snapshots through the scan's own hook
//! ([`scan::Checkpoints`], at settled moments), and the group is saved by one writer as one
//! document. The latest state of each drive (a snapshot, or its result once its scan has ended)
//! waits in the drive's slot until the writer takes every slot at once: a snapshot that
//! arrives while the writer is busy replaces the same drive's older one, never another
//! drive's, so the writer always merges the latest state of every drive.
//!
//! A stored group must name what each drive is to do when it is resumed, so the writer is
//! woken only once every drive has a state: a snapshot, a result, or (a resumed drive) the
//! record it continues. Drives start together and snapshot at the same interval, so that is
//! the first interval, unless a drive is past its first pass by then (its failed areas are
//! read sector by sector, which takes no snapshots): then the group is first saved when that
//! drive ends.

use crate::checkpoint::Checkpoints;
use crate::scan::{self, ScanRecord};
use std::sync::{Arc, Mutex, MutexGuard};

/// A drive's latest state: a snapshot (interrupted, with its resume state) or the scan's
/// result, or why the scan ended without one.
pub type DriveState = Result<ScanRecord, super::DriveError>;

/// The drives' latest states not yet taken by the writer, handed to it with each wake-up.
#[derive(Clone)]
pub struct Pending(Arc<Mutex<Slots>>);

struct Slots {
    latest: Vec<Option<DriveState>>,
    /// Which drives have a state (now, or taken earlier, or from before the run).
    known: Vec<bool>,
}

impl Pending {
    fn lock(&self) -> MutexGuard<'_, Slots> {
        self.0.lock().unwrap_or_else(|p| p.into_inner())
    }

    /// Every drive's latest state since the last take, by drive index, each taken once.
    pub fn take(&self) -> Vec<(usize, DriveState)> {
        let mut s = self.lock();
        s.latest
            .iter_mut()
            .enumerate()
            .filter_map(|(i, x)| Some((i, x.take()?)))
            .collect()
    }
}

/// Where the drives of a running group hand their states. Clones share the slots and the
/// writer.
#[derive(Clone)]
pub struct GroupCheckpoints(Arc<Inner>);

struct Inner {
    pending: Pending,
    every_ns: u64,
    /// Wakes the writer (the group's [`Checkpoints::save`]: returns at once).
    wake: Mutex<Box<dyn FnMut(Pending) + Send>>,
}

impl std::fmt::Debug for GroupCheckpoints {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("GroupCheckpoints")
            .field("every_ns", &self.0.every_ns)
            .finish_non_exhaustive()
    }
}

impl GroupCheckpoints {
    /// The group's drives (`known[i]`: drive `i` has a state already, the record a resumed
    /// drive continues) hand their states to `group`, whose `save` is called with the pending
    /// slots each time a drive has a new state and every drive has one.
    pub fn new(group: Checkpoints<Pending>, known: Vec<bool>) -> GroupCheckpoints {
        let slots = Slots {
            latest: known.iter().map(|_| None).collect(),
            known,
        };
        GroupCheckpoints(Arc::new(Inner {
            pending: Pending(Arc::new(Mutex::new(slots))),
            every_ns: group.every_ns,
            wake: Mutex::new(group.save),
        }))
    }

    /// Drive `i`'s scan checkpoints: its snapshots go to its slot, at the group's interval.
    pub fn drive(&self, i: usize) -> scan::Checkpoints {
        let me = self.clone();
        scan::Checkpoints {
            every_ns: self.0.every_ns,
            save: Box::new(move |rec| me.put(i, Ok(rec))),
        }
    }

    /// Drive `i`'s scan has ended with `r`.
    pub fn ended(&self, i: usize, r: &DriveState) {
        self.put(i, r.clone())
    }

    fn put(&self, i: usize, state: DriveState) {
        let whole = {
            let mut s = self.0.pending.lock();
            s.latest[i] = Some(state);
            s.known[i] = true;
            s.known.iter().all(|k| *k)
        };
        if whole {
            let mut wake = self.0.wake.lock().unwrap_or_else(|p| p.into_inner());
            (wake)(self.0.pending.clone());
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::mpsc;

    fn record(covered: u64) -> ScanRecord {
        let t = crate::target::Target::open_read("null:1M").unwrap();
        let cfg = scan::ScanConfig {
            length: Some(crate::units::SizeOrPercent::Bytes(64 * 1024)),
            ..scan::ScanConfig::default()
        };
        let stop = std::sync::atomic::AtomicBool::new(false);
        let live = crate::engine::Live(&t);
        let observer = scan::Observer::new(&stop);
        let mut r = scan::run(&live, &t, scan::Start::New(&cfg), observer).unwrap();
        r.covered = covered;
        r
    }

    /// A group of `n` drives whose writer is a channel that keeps one wake-up (as the
    /// store's writer does): wake-ups while one is queued are dropped.
    fn group(known: Vec<bool>) -> (GroupCheckpoints, mpsc::Receiver<Pending>) {
        let (tx, rx) = mpsc::sync_channel(1);
        let g = GroupCheckpoints::new(
            Checkpoints {
                every_ns: 7,
                save: Box::new(move |p| {
                    let _ = tx.try_send(p);
                }),
            },
            known,
        );
        (g, rx)
    }

    #[test]
    fn no_wake_up_until_every_drive_has_a_state() {
        let (g, rx) = group(vec![false, true, false]);
        (g.drive(0).save)(record(1));
        assert!(rx.try_recv().is_err(), "drive 2 has no state yet");
        g.ended(2, &Err(super::super::DriveError::Scan("gone".into())));
        let p = rx.try_recv().expect("every drive has a state");
        let got = p.take();
        assert_eq!(got.len(), 2);
        assert_eq!(got[0].1.as_ref().unwrap().covered, 1);
        assert!(matches!(&got[1], (2, Err(e)) if e.to_string() == "gone"));
        assert!(p.take().is_empty(), "each state is taken once");
        assert_eq!(g.drive(1).every_ns, 7);
    }

    #[test]
    fn a_writer_that_was_busy_gets_the_latest_state_of_every_drive() {
        let (g, rx) = group(vec![false, false]);
        let (mut a, mut b) = (g.drive(0), g.drive(1));
        (a.save)(record(1));
        (b.save)(record(10));
        // One wake-up queued, the second dropped; newer snapshots replace older ones.
        (a.save)(record(2));
        (b.save)(record(20));
        (a.save)(record(3));
        let p = rx.try_recv().unwrap();
        assert!(rx.try_recv().is_err());
        let covered: Vec<(usize, u64)> = p
            .take()
            .into_iter()
            .map(|(i, r)| (i, r.unwrap().covered))
            .collect();
        assert_eq!(covered, vec![(0, 3), (1, 20)]);
        // After the writer has taken them, a new snapshot wakes it again.
        (b.save)(record(30));
        let p = rx.try_recv().unwrap();
        assert_eq!(p.take().len(), 1);
    }

    #[test]
    fn a_group_of_two_scans_hands_over_each_drives_snapshots_and_its_result() {
        let targets: Vec<_> = (0..2)
            .map(|_| crate::target::Target::open_read("null:16G").unwrap())
            .collect();
        let drives: Vec<super::super::Drive> = targets
            .iter()
            .map(|t| super::super::Drive {
                target: t,
                cfg: scan::ScanConfig::default(),
                prior: None,
                progress: Default::default(),
            })
            .collect();
        let seen: Arc<Mutex<Vec<(usize, bool, u64)>>> = Default::default();
        let log = seen.clone();
        let g = GroupCheckpoints::new(
            Checkpoints {
                every_ns: 1_000_000,
                save: Box::new(move |p: Pending| {
                    for (i, s) in p.take() {
                        let r = s.unwrap();
                        log.lock().unwrap().push((i, r.interrupted, r.covered));
                    }
                }),
            },
            vec![false, false],
        );
        let stop = std::sync::atomic::AtomicBool::new(false);
        let devs = super::super::live_devices(&drives);
        let out = super::super::scan_all(&devs, &drives, &stop, &|_, _| {}, Some(&g));
        assert!(out.iter().all(|r| r.as_ref().is_ok_and(|r| !r.interrupted)));
        let seen = seen.lock().unwrap();
        for i in 0..2 {
            let mine: Vec<_> = seen.iter().filter(|s| s.0 == i).collect();
            let (last, snapshots) = mine.split_last().expect("the drive's states");
            assert_eq!((last.1, last.2), (false, 16 << 30), "its result last");
            assert!(
                snapshots.iter().all(|s| s.1 && s.2 > 0 && s.2 < 16 << 30),
                "{snapshots:?}"
            );
            assert!(
                snapshots.windows(2).all(|w| w[0].2 < w[1].2),
                "snapshots move on: {snapshots:?}"
            );
        }
        assert!(
            seen.iter().filter(|s| s.1).count() >= 2,
            "snapshots while the scans ran: {seen:?}"
        );
    }
}
