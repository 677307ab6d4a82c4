//! A cgroup v2 of the command's own, so that `io.stat` counts its I/O and no one else's.
//!
//! The cgroup is made under drivescope's own cgroup, only where that is writable and the io controller is
//! already enabled for its children: drivescope never changes which controllers a cgroup enables. Where it
//! cannot make one, it says why and the runs use the device counters alone.

use crate::error::CgroupError;
use drivescope_record::CgroupIo;
use std::collections::BTreeMap;
use std::fs::File;
use std::os::fd::AsRawFd;
use std::path::{Path, PathBuf};

/// A cgroup made for the command; removed when dropped.
#[derive(Debug)]
pub struct Cgroup {
    dir: PathBuf,
    procs: File,
}

/// Where the cgroup v2 hierarchy is mounted (from /proc/self/mountinfo).
fn cgroup2_mount() -> Option<PathBuf> {
    let text = std::fs::read_to_string("/proc/self/mountinfo").ok()?;
    text.lines().find_map(|l| {
        let (head, tail) = l.split_once(" - ")?;
        if tail.split_whitespace().next()? != "cgroup2" {
            return None;
        }
        head.split_whitespace().nth(4).map(PathBuf::from)
    })
}

/// This process's cgroup v2 path (the `0::` line of /proc/self/cgroup).
fn own_path() -> Option<String> {
    let text = std::fs::read_to_string("/proc/self/cgroup").ok()?;
    text.lines().find_map(|l| {
        l.strip_prefix("0::")
            .map(|p| p.trim_start_matches('/').to_string())
    })
}

impl Cgroup {
    /// Makes a child of this process's cgroup with io accounting, or says why it cannot.
    pub fn create() -> Result<Cgroup, CgroupError> {
        let mount = cgroup2_mount().ok_or(CgroupError::NotMounted)?;
        let parent = mount.join(own_path().ok_or(CgroupError::NotInCgroup)?);
        let dir = parent.join(format!("drivescope-time-{}", std::process::id()));
        std::fs::create_dir(&dir).map_err(|error| CgroupError::Create {
            parent: parent.clone(),
            error,
        })?;
        let made = Cgroup::open(dir.clone());
        if made.is_err() {
            let _ = std::fs::remove_dir(&dir);
        }
        made
    }

    fn open(dir: PathBuf) -> Result<Cgroup, CgroupError> {
        if !dir.join("io.stat").exists() {
            let parent = dir.parent().unwrap_or(&dir).to_path_buf();
            return Err(CgroupError::NoIoController(parent));
        }
        let procs = std::fs::OpenOptions::new()
            .write(true)
            .open(dir.join("cgroup.procs"))
            .map_err(|error| CgroupError::Procs {
                dir: dir.clone(),
                error,
            })?;
        Ok(Cgroup { dir, procs })
    }

    pub fn dir(&self) -> &Path {
        &self.dir
    }

    /// The descriptor a child writes "0" to, between fork and exec, to join the cgroup.
    pub fn procs_fd(&self) -> i32 {
        self.procs.as_raw_fd()
    }

    /// The cgroup's `io.stat` now, by `major:minor`.
    pub fn io_stat(&self) -> std::io::Result<BTreeMap<String, CgroupIo>> {
        Ok(parse_io_stat(&std::fs::read_to_string(
            self.dir.join("io.stat"),
        )?))
    }
}

impl Drop for Cgroup {
    fn drop(&mut self) {
        // A process the command left behind keeps the cgroup busy for a moment.
        for _ in 0..20 {
            if std::fs::remove_dir(&self.dir).is_ok() {
                return;
            }
            std::thread::sleep(std::time::Duration::from_millis(50));
        }
    }
}

/// Parses `io.stat`: `MAJ:MIN rbytes=… wbytes=… rios=… wios=… …` per line.
pub fn parse_io_stat(text: &str) -> BTreeMap<String, CgroupIo> {
    let mut out = BTreeMap::new();
    for line in text.lines() {
        let mut f = line.split_whitespace();
        let Some(dev) = f.next() else { continue };
        let mut io = CgroupIo {
            device: dev.to_string(),
            ..CgroupIo::default()
        };
        for kv in f {
            let Some((k, v)) = kv.split_once('=') else {
                continue;
            };
            let v: u64 = v.parse().unwrap_or(0);
            match k {
                "rbytes" => io.read_bytes = v,
                "wbytes" => io.written_bytes = v,
                "rios" => io.read_ios = v,
                "wios" => io.write_ios = v,
                _ => {}
            }
        }
        out.insert(dev.to_string(), io);
    }
    out
}

/// What the cgroup did between two readings, per device that moved.
pub fn io_delta(
    before: &BTreeMap<String, CgroupIo>,
    after: &BTreeMap<String, CgroupIo>,
) -> Vec<CgroupIo> {
    after
        .values()
        .filter_map(|a| {
            let b = before.get(&a.device).cloned().unwrap_or_default();
            let d = CgroupIo {
                device: a.device.clone(),
                read_bytes: a.read_bytes.saturating_sub(b.read_bytes),
                read_ios: a.read_ios.saturating_sub(b.read_ios),
                written_bytes: a.written_bytes.saturating_sub(b.written_bytes),
                write_ios: a.write_ios.saturating_sub(b.write_ios),
            };
            (d.read_ios + d.write_ios > 0).then_some(d)
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn io_stat_lines_and_their_deltas() {
        let before = parse_io_stat("8:0 rbytes=4096 wbytes=0 rios=1 wios=0 dbytes=0 dios=0\n");
        let after = parse_io_stat(
            "8:0 rbytes=1052672 wbytes=8192 rios=9 wios=2 dbytes=0 dios=0\n7:3 rbytes=0 wbytes=0 rios=0 wios=0\n",
        );
        let d = io_delta(&before, &after);
        assert_eq!(
            d,
            vec![CgroupIo {
                device: "8:0".into(),
                read_bytes: 1048576,
                read_ios: 8,
                written_bytes: 8192,
                write_ios: 2,
            }]
        );
    }
}
