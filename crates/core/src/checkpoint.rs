//! Checkpoints of long runs (scan, soak): a running job hands a snapshot of itself — the
//! document it would save if it were stopped at that moment, with its resume state — to a
//! callback at a bounded interval; the callback (off the job's threads) saves it in the
//! results store as one run updated in place. A checkpoint names the process that saved it, so
//! `runs` tells a run that is still going from one that was killed (SIGKILL, a crash, a power
//! cut), which `--resume` then continues.

use drivescope_probe::Identity;
use drivescope_record::Checkpoint;

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

/// Whether a run may be continued on the device that `now` names: when the interrupted run's
/// device had serial numbers, the same ones (every block device with hardware, top first).
/// `Err` holds the serials then and now.
pub fn same_device(
    then: Option<&Identity>,
    now: Option<&Identity>,
) -> Result<(), (Vec<String>, Vec<String>)> {
    let (then, now) = (serials(then), serials(now));
    if !then.is_empty() && then != now {
        return Err((then, now));
    }
    Ok(())
}

/// The serial numbers of every block device with hardware in the identity, top first.
fn serials(id: Option<&Identity>) -> Vec<String> {
    id.into_iter()
        .flat_map(|id| id.block_devices())
        .filter_map(|b| b.hardware.as_ref()?.serial.clone())
        .collect()
}

/// Lower the calling thread's scheduling priority: the normal policy (also when the scan runs
/// under a real-time one, `chrt`) at nice 10, so a thread that writes checkpoints yields the
/// CPU to the scan and the kernel's I/O workers.
pub fn background_thread() {
    // SAFETY: plain system calls on the calling thread (id 0 and its tid); a failure leaves
    // the policy and priority as they were.
    unsafe {
        let normal = libc::sched_param { sched_priority: 0 };
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
    let pid = std::process::id();
    Checkpoint {
        pid,
        process_start: process_start(pid).unwrap_or(0),
        boot_id: boot_id(),
        every_ns,
    }
}

/// Whether the process that saved `c` is still running (on this host, in this boot).
pub fn still_running(c: &Checkpoint) -> bool {
    c.boot_id == boot_id() && !c.boot_id.is_empty() && process_start(c.pid) == Some(c.process_start)
}

fn boot_id() -> String {
    std::fs::read_to_string("/proc/sys/kernel/random/boot_id")
        .map(|s| s.trim().to_string())
        .unwrap_or_default()
}

/// Field 22 of `/proc/PID/stat`: the process's start time in clock ticks after boot.
fn process_start(pid: u32) -> Option<u64> {
    let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).ok()?;
    // The command name (field 2) is in parentheses and may hold spaces: count after it.
    let rest = &stat[stat.rfind(')')? + 1..];
    rest.split_whitespace().nth(19)?.parse().ok()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn this_process_is_running_and_a_dead_one_is_not() {
        let me = this_process(1);
        assert!(me.process_start > 0 && !me.boot_id.is_empty());
        assert!(still_running(&me));
        // A child that has exited and been reaped.
        let mut child = std::process::Command::new("true").spawn().unwrap();
        let pid = child.id();
        let started = process_start(pid);
        child.wait().unwrap();
        let gone = Checkpoint {
            pid,
            process_start: started.unwrap_or(1),
            ..me.clone()
        };
        assert!(!still_running(&gone));
        // The same process in another boot is not this one.
        let other_boot = Checkpoint {
            boot_id: "00000000-0000-0000-0000-000000000000".into(),
            ..me.clone()
        };
        assert!(!still_running(&other_boot));
        // A process of the same id that started at another time is another process.
        let reused = Checkpoint {
            process_start: me.process_start + 1,
            ..me
        };
        assert!(!still_running(&reused));
    }
}
