//! Whether the process that saved a checkpoint is still running: the process id, the time it
//! started (so a reused id is another process) and the boot it ran in (so another boot, or another
//! host sharing the store, is never taken for this one).

use crate::Checkpoint;

impl Checkpoint {
    /// This process, as a checkpoint names it; `every_ns` is the interval between checkpoints.
    pub fn this_process(every_ns: u64) -> Checkpoint {
        let pid = std::process::id();
        Checkpoint {
            pid,
            process_start: process_start(pid).unwrap_or(0),
            boot_id: boot_id(),
            every_ns,
        }
    }

    /// Whether the process that saved this checkpoint is still running (on this host, in this
    /// boot).
    pub fn writer_running(&self) -> bool {
        self.boot_id == boot_id()
            && !self.boot_id.is_empty()
            && process_start(self.pid) == Some(self.process_start)
    }
}

fn boot_id() -> String {
    std::fs::read_to_string("/proc/sys/kernel/random/boot_id")
        .map(|s| s.trim().to_string())
        .unwrap_or_default()
}

/// Field 22 of `/proc/PID/stat`: the process's start time in clock ticks after boot.
pub(crate) fn process_start(pid: u32) -> Option<u64> {
    let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).ok()?;
    // The command name (field 2) is in parentheses and may hold spaces: count after it.
    let rest = &stat[stat.rfind(')')? + 1..];
    rest.split_whitespace().nth(19)?.parse().ok()
}

/// A checkpoint named for a process that has ended: a child that ran and was reaped.
#[cfg(test)]
pub(crate) fn ended_process() -> Checkpoint {
    let mut child = std::process::Command::new("true").spawn().unwrap();
    let pid = child.id();
    let started = process_start(pid);
    child.wait().unwrap();
    Checkpoint {
        pid,
        process_start: started.unwrap_or(1),
        ..Checkpoint::this_process(1)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn this_process_is_running_and_a_dead_one_is_not() {
        let me = Checkpoint::this_process(1);
        assert!(me.process_start > 0 && !me.boot_id.is_empty());
        assert!(me.writer_running());
        assert!(!ended_process().writer_running());
        // The same process in another boot is not this one.
        let other_boot = Checkpoint {
            boot_id: "00000000-0000-0000-0000-000000000000".into(),
            ..me.clone()
        };
        assert!(!other_boot.writer_running());
        // A process of the same id that started at another time is another process.
        let reused = Checkpoint {
            process_start: me.process_start + 1,
            ..me
        };
        assert!(!reused.writer_running());
    }
}
