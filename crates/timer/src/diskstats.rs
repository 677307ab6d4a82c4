//! `/proc/diskstats`: the kernel's per-device I/O counters (Documentation/admin-guide/iostats.rst).
//!
//! After major, minor and name, the fields used here are: 1 reads completed, 3 sectors read, 5 writes
//! completed, 7 sectors written, 10 time spent doing I/Os (`io_ticks`, ms: the time the device had at least
//! one command in flight). Sectors are always 512 bytes, whatever the device's own sector size.

use drivescope_record::DeviceIo;
use std::collections::BTreeMap;

/// One device's counters at one moment.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Counters {
    pub major: u32,
    pub minor: u32,
    pub reads: u64,
    pub sectors_read: u64,
    pub writes: u64,
    pub sectors_written: u64,
    pub io_ticks_ms: u64,
}

/// Every device's counters, by name.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Snapshot(pub BTreeMap<String, Counters>);

/// Parses the text of /proc/diskstats (lines it cannot read are skipped).
pub fn parse(text: &str) -> Snapshot {
    let mut out = BTreeMap::new();
    for line in text.lines() {
        let f: Vec<&str> = line.split_whitespace().collect();
        if f.len() < 13 {
            continue;
        }
        let n = |i: usize| f[i].parse::<u64>().ok();
        let (Some(major), Some(minor)) = (n(0), n(1)) else {
            continue;
        };
        let (Some(reads), Some(sr), Some(writes), Some(sw), Some(ticks)) =
            (n(3), n(5), n(7), n(9), n(12))
        else {
            continue;
        };
        out.insert(
            f[2].to_string(),
            Counters {
                major: major as u32,
                minor: minor as u32,
                reads,
                sectors_read: sr,
                writes,
                sectors_written: sw,
                io_ticks_ms: ticks,
            },
        );
    }
    Snapshot(out)
}

/// Reads /proc/diskstats now.
pub fn snapshot() -> std::io::Result<Snapshot> {
    Ok(parse(&std::fs::read_to_string("/proc/diskstats")?))
}

/// What happened on `name` between two snapshots (counters that went backwards, as after a device was
/// removed and another took its name, count as zero).
pub fn delta(before: &Snapshot, after: &Snapshot, name: &str) -> DeviceIo {
    let a = after.0.get(name).copied().unwrap_or_default();
    let b = before.0.get(name).copied().unwrap_or(a);
    DeviceIo {
        name: name.to_string(),
        read_bytes: a.sectors_read.saturating_sub(b.sectors_read) * 512,
        read_ios: a.reads.saturating_sub(b.reads),
        written_bytes: a.sectors_written.saturating_sub(b.sectors_written) * 512,
        write_ios: a.writes.saturating_sub(b.writes),
        busy_ns: a.io_ticks_ms.saturating_sub(b.io_ticks_ms) * 1_000_000,
    }
}

/// The watched devices (always, in their order), then every other device whose counters moved.
pub fn deltas(before: &Snapshot, after: &Snapshot, watched: &[String]) -> Vec<DeviceIo> {
    let mut out: Vec<DeviceIo> = watched.iter().map(|n| delta(before, after, n)).collect();
    for name in after.0.keys() {
        if watched.contains(name) {
            continue;
        }
        let d = delta(before, after, name);
        if d.read_ios + d.write_ios > 0 || d.busy_ns > 0 {
            out.push(d);
        }
    }
    out
}

/// The name of the device `major:minor`.
pub fn name_of(snap: &Snapshot, major: u32, minor: u32) -> Option<&str> {
    snap.0
        .iter()
        .find(|(_, c)| c.major == major && c.minor == minor)
        .map(|(n, _)| n.as_str())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn this_machines_diskstats_parse_whole() {
        let text = std::fs::read_to_string("/proc/diskstats").unwrap();
        let snap = parse(&text);
        let lines = text.lines().filter(|l| !l.trim().is_empty()).count();
        assert_eq!(snap.0.len(), lines, "every line is a device");
        // Each device's numbers are the line's own fields 4, 6, 8, 10 and 13.
        for line in text.lines() {
            let f: Vec<&str> = line.split_whitespace().collect();
            let c = snap.0[f[2]];
            assert_eq!(c.reads.to_string(), f[3]);
            assert_eq!(c.sectors_read.to_string(), f[5]);
            assert_eq!(c.writes.to_string(), f[7]);
            assert_eq!(c.sectors_written.to_string(), f[9]);
            assert_eq!(c.io_ticks_ms.to_string(), f[12]);
            assert_eq!(name_of(&snap, c.major, c.minor), Some(f[2]));
        }
    }

    #[test]
    fn deltas_are_bytes_and_ns_and_list_watched_and_moved_devices() {
        let before = parse(
            "   8       0 sda 100 0 800 5 50 0 400 3 0 20 8 0 0 0 0\n   7       0 loop0 1 0 8 0 0 0 0 0 0 0 0 0 0 0 0\n 252 0 vdb 7 0 56 0 0 0 0 0 0 9 0\n",
        );
        let after = parse(
            "   8       0 sda 110 0 2848 9 51 0 408 3 0 270 12 0 0 0 0\n   7       0 loop0 1 0 8 0 0 0 0 0 0 0 0 0 0 0 0\n 252 0 vdb 7 0 56 0 0 0 0 0 0 9 0\n",
        );
        let d = deltas(&before, &after, &["vdb".to_string()]);
        assert_eq!(d.len(), 2, "{d:?}");
        assert_eq!(d[0].name, "vdb");
        assert_eq!(
            d[0],
            DeviceIo {
                name: "vdb".into(),
                ..Default::default()
            }
        );
        assert_eq!(
            d[1],
            DeviceIo {
                name: "sda".into(),
                read_bytes: 2048 * 512,
                read_ios: 10,
                written_bytes: 8 * 512,
                write_ios: 1,
                busy_ns: 250_000_000,
            }
        );
    }
}
