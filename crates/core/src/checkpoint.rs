//! Checkpoints of long runs (scan, soak): a running job hands a snapshot of itself — the
//! document it would save if it were stopped at that moment, with its resume state — to a
//! callback at a bounded interval; the callback (off the job's threads) saves it in the
//! results store as one run updated in place. A checkpoint names the process that saved it, so
//! `runs` tells a run that is still going from one that was killed (SIGKILL, a crash, a power
//! cut), which `--resume` then continues.

use drivescope_probe::Identity;
use drivescope_record::{Checkpoint, DeviceMatch};

/// Where a running job's snapshots go, and how often.
pub struct Checkpoints<R> {
    /// The interval between snapshots, ns.
    pub every_ns: u64,
    /// Takes each snapshot, on the job's thread: it must return at once (hand the document to
    /// another thread to write).
    pub save: Box<dyn FnMut(R) + Send>,
}

impl<R> std::fmt::Debug for Checkpoints<R> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Checkpoints")
            .field("every_ns", &self.every_ns)
            .finish_non_exhaustive()
    }
}

/// Whether a run may be continued on the device that `now` names, by the record crate's one rule
/// ([`DeviceMatch`]): when the interrupted run's device had serial numbers, the same ones (every
/// block device with hardware, top first); without them, no fact both identities know may differ
/// (size, model, WWN, a loop device's backing file). `Err` says what the device was then, and is now.
pub fn same_device(then: Option<&Identity>, now: Option<&Identity>) -> Result<(), String> {
    match DeviceMatch::of(then, now) {
        DeviceMatch::Different { then, now } => Err(format!(
            "serial {}, this device has {}",
            then.join(", "),
            if now.is_empty() {
                "none".to_string()
            } else {
                now.join(", ")
            }
        )),
        DeviceMatch::Unlike(why) => Err(format!("another device: {why}")),
        DeviceMatch::Same | DeviceMatch::Untold => Ok(()),
    }
}

/// Lower the calling thread's scheduling priority: the normal policy (also when the scan runs
/// under a real-time one, `chrt`) at nice 10, so a thread that writes checkpoints yields the
/// CPU to the scan and the kernel's I/O workers.
pub fn background_thread() {
    // SAFETY: plain system calls on the calling thread (id 0 and its tid); a failure leaves
    // the policy and priority as they were.
    unsafe {
        // Zeroed, then the priority: musl's sched_param has more fields than glibc's.
        let mut normal: libc::sched_param = std::mem::zeroed();
        normal.sched_priority = 0;
        libc::sched_setscheduler(0, libc::SCHED_OTHER, &normal);
        libc::setpriority(libc::PRIO_PROCESS, libc::gettid() as libc::id_t, 10);
    }
}

/// CPU time the calling thread has used, ns.
pub fn thread_cpu_ns() -> u64 {
    let mut ts = libc::timespec {
        tv_sec: 0,
        tv_nsec: 0,
    };
    // SAFETY: ts is a valid timespec to write.
    let ok = unsafe { libc::clock_gettime(libc::CLOCK_THREAD_CPUTIME_ID, &mut ts) } == 0;
    if ok {
        ts.tv_sec as u64 * 1_000_000_000 + ts.tv_nsec as u64
    } else {
        0
    }
}

/// This process, as a checkpoint names it.
pub fn this_process(every_ns: u64) -> Checkpoint {
    Checkpoint::this_process(every_ns)
}

/// Whether the process that saved `c` is still running (on this host, in this boot).
pub fn still_running(c: &Checkpoint) -> bool {
    c.writer_running()
}
