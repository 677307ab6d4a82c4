//! `screen --checkpoint`: the running group saved in the results store as one run, updated in
//! place by the shared checkpoint writer. Each drive's scan takes its snapshots through the
//! scan's own hook; the latest of every drive (or its result, once its scan has ended) is
//! merged into the group's document (drivescope_core::screen::checkpoint), which the group's
//! result replaces when it ends.

use crate::checkpoints::Writer;
use crate::opts::args::Every;
use crate::opts::store::StoreOpts;
use crate::runner::Session;
use drivescope_core::screen::checkpoint::{DriveState, GroupCheckpoints, Pending};
use drivescope_core::screen::group::set_result;
use drivescope_probe::Identity;
use drivescope_record::{Checkpoint, Document, ScreenRecord};
use std::sync::Mutex;
use std::time::Instant;

/// The group as the scans start, and what each drive's state needs to become its member.
pub struct Group {
    /// The group's document before the scans: the members (a resumed group's as it left them),
    /// the shared-path reads, the criteria.
    pub draft: ScreenRecord,
    /// The member each scanned drive is, in the order of the scans.
    pub scanned: Vec<usize>,
    /// Each member's device.
    pub devices: Vec<Option<Identity>>,
    /// Each member's stored scan that its scan continues.
    pub continues: Vec<Option<i64>>,
    pub started: Instant,
}

impl Group {
    /// Each scanned drive's latest state into its member.
    fn merge(&mut self, states: Vec<(usize, DriveState)>) {
        for (k, state) in states {
            let i = self.scanned[k];
            let (device, continues) = (self.devices[i].clone(), self.continues[i]);
            set_result(&mut self.draft.members[i], state, device, continues);
        }
    }

    /// The checkpoint: the group so far, judged, saved by `me`.
    fn document(&self, me: Checkpoint) -> Document {
        let mut rec = self.draft.clone();
        rec.header.end_now();
        rec.duration_ns = self.started.elapsed().as_nanos() as u64;
        rec.interrupted = true;
        rec.checkpoint = Some(me);
        drivescope_analysis::screen::judge(&mut rec);
        rec.into()
    }
}

/// Start the writer of the group's checkpoints in the session's store, every `every`.
/// `resumed[k]`: scanned drive `k` continues a scan (its member holds that scan's record).
pub fn start(
    s: &Session,
    store: &StoreOpts,
    every: Every,
    group: Group,
    resumed: Vec<bool>,
) -> (Option<Writer>, Option<GroupCheckpoints>) {
    let group = Mutex::new(group);
    let stamp = move |pending: Pending, me: Checkpoint| {
        let mut g = group.lock().unwrap_or_else(|p| p.into_inner());
        g.merge(pending.take());
        g.document(me)
    };
    let (writer, each) = s
        .checkpoints(every, store, true, None, "screen", stamp)
        .into_parts();
    (writer, each.map(|e| GroupCheckpoints::new(e, resumed)))
}
