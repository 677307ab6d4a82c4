//! The array read experiment: the same sequential read on each member alone, then on all members at once, then
//! on the array itself by one reader and by several at once, each for one window. The analysis rule (`drivescope_analysis::array`) reads the rates:
//! members in parallel, capped by a path they share, or taking turns, and a member well below the others.
//!
//! Members are read at their own devices; the array through its device (md, dm) or a file on it (btrfs).
//! Members are only read; the array is written through by one writer only when the caller says writes are
//! allowed (its test file, or an array device offered for destruction), after the reads.

use drivescope_core::bench::{run_once, Access, RunOptions, Rw, TestSpec};
use drivescope_core::engine::{DataPattern, EngineError, EngineKind, Reap};
use drivescope_core::screen::{shared_path, SharedOptions};
use drivescope_core::target::{Target, TargetError};
use drivescope_core::units::mb_per_s;
use drivescope_record::{Array, ArrayReads};
use std::sync::atomic::{AtomicBool, Ordering};

/// Each member's device opened for reading, in the array's member order.
pub fn open_members(array: &Array) -> Result<Vec<Target>, TargetError> {
    array
        .members
        .iter()
        .map(|m| Target::open_read(&m.dev_path.to_string_lossy()))
        .collect()
}

/// The members alone and together (`members` in the array's member order), then `whole`, the array, by one
/// reader and (when `readers` is 2 or more) by `readers` readers at once, and (when `write`) written by one
/// writer; `None` when stopped before the reads were done. A member that could not be read reads as 0, an
/// array that could not be written writes as 0.
pub fn array_reads(
    array: &Array,
    members: &[&Target],
    whole: Option<&Target>,
    readers: u32,
    write: bool,
    o: &SharedOptions,
    stop: &AtomicBool,
) -> Option<ArrayReads> {
    let shared = shared_path(members, o, stop);
    if stop.load(Ordering::Relaxed) || shared.alone.len() != members.len() {
        return None;
    }
    let array_mb_per_s = whole.map(|t| read_whole(t, 1, o, stop).unwrap_or(0.0));
    let readers = if whole.is_some() && readers >= 2 {
        readers
    } else {
        0
    };
    let readers_mb_per_s = whole
        .filter(|_| readers >= 2)
        .map(|t| read_whole(t, readers, o, stop).unwrap_or(0.0));
    let write_mb_per_s = whole
        .filter(|_| write)
        .map(|t| whole_run(t, 1, Rw::Write, o, stop).unwrap_or(0.0));
    if stop.load(Ordering::Relaxed) {
        return None;
    }
    Some(ArrayReads {
        array: array.clone(),
        block_size: o.block_size,
        queue_depth: o.queue_depth,
        duration_ns: o.duration_ns,
        alone_mb_per_s: shared.alone,
        together_mb_per_s: shared.together,
        array_mb_per_s,
        readers,
        readers_mb_per_s,
        write_mb_per_s,
    })
}

/// `target` read in order for the window: by one reader over its first half, as each member alone is read,
/// or by `readers` readers at once, each over its own slice of the whole.
fn read_whole(
    target: &Target,
    readers: u32,
    o: &SharedOptions,
    stop: &AtomicBool,
) -> Result<f64, EngineError> {
    whole_run(target, readers, Rw::Read, o, stop)
}

/// [`read_whole`] for reads or writes: `target` in order for the window by `threads` at once.
fn whole_run(
    target: &Target,
    readers: u32,
    rw: Rw,
    o: &SharedOptions,
    stop: &AtomicBool,
) -> Result<f64, EngineError> {
    let bs = o.block_size.max(4096);
    let share = if readers > 1 { 1 } else { 2 };
    let region = target.size / share / bs * bs;
    if region < bs * u64::from(readers.max(1)) {
        return Ok(0.0);
    }
    let spec = TestSpec {
        access: Access::Seq,
        block_size: bs,
        queue_depth: o.queue_depth.max(1),
        threads: readers.max(1),
    };
    let opts = RunOptions {
        engine: EngineKind::Auto,
        reap: Reap::Auto,
        data: DataPattern::Random,
        duration_ns: o.duration_ns,
        region,
        series_interval_ns: None,
        seed: 0,
        watch: None,
    };
    let r = run_once(target, &spec, rw, &opts, stop)?;
    let bytes = match rw {
        Rw::Write => r.write_bytes,
        _ => r.read_bytes,
    };
    Ok(mb_per_s(bytes, r.duration_ns))
}

/// An md stripe of `n` members that read as null targets (for tests).
#[cfg(test)]
pub(crate) fn array(n: usize) -> Array {
    Array {
        target: std::path::PathBuf::from("/dev/md0"),
        kind: drivescope_record::ArrayKind::Md,
        name: "md0".into(),
        level: Some("raid0".into()),
        profiles: Vec::new(),
        members: (0..n)
            .map(|i| drivescope_record::ArrayMember {
                name: format!("m{i}"),
                dev_path: std::path::PathBuf::from("null:1G"),
                major_minor: None,
            })
            .collect(),
        controller: None,
        notes: Vec::new(),
        missing: Vec::new(),
        paths_meet: None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::path::PathBuf;

    fn quick() -> SharedOptions {
        SharedOptions {
            duration_ns: 30_000_000,
            ..SharedOptions::default()
        }
    }

    #[test]
    fn every_member_and_the_array_are_read_with_one_window() {
        let a = array(3);
        let members = open_members(&a).unwrap();
        let refs: Vec<&Target> = members.iter().collect();
        let whole = Target::open_read("null:3G").unwrap();
        let stop = AtomicBool::new(false);
        let r = array_reads(&a, &refs, Some(&whole), 3, false, &quick(), &stop).unwrap();
        assert_eq!(r.alone_mb_per_s.len(), 3);
        assert_eq!(r.together_mb_per_s.len(), 3);
        assert!(
            r.alone_mb_per_s
                .iter()
                .chain(&r.together_mb_per_s)
                .all(|x| *x > 0.0),
            "{r:?}"
        );
        assert!(r.array_mb_per_s.is_some_and(|x| x > 0.0), "{r:?}");
        assert_eq!(r.readers, 3);
        assert!(r.readers_mb_per_s.is_some_and(|x| x > 0.0), "{r:?}");
        assert_eq!(r.duration_ns, 30_000_000);
        assert_eq!(r.array, a);
        assert_eq!(r.write_mb_per_s, None, "writes not allowed: none");
        // One reader asked for: the array is read once; writes allowed: written once.
        let r = array_reads(&a, &refs, Some(&whole), 1, true, &quick(), &stop).unwrap();
        assert_eq!((r.readers, r.readers_mb_per_s), (0, None));
        assert!(r.write_mb_per_s.is_some_and(|x| x > 0.0), "{r:?}");
        // Without the array's own device, only the members are read.
        let r = array_reads(&a, &refs, None, 3, true, &quick(), &stop).unwrap();
        assert_eq!((r.array_mb_per_s, r.write_mb_per_s), (None, None));
        assert_eq!((r.readers, r.readers_mb_per_s), (0, None));
    }

    #[test]
    fn a_stop_gives_no_record() {
        let a = array(2);
        let members = open_members(&a).unwrap();
        let refs: Vec<&Target> = members.iter().collect();
        let stop = AtomicBool::new(true);
        assert_eq!(
            array_reads(&a, &refs, None, 2, false, &quick(), &stop),
            None
        );
    }

    #[test]
    fn a_member_that_cannot_be_opened_is_an_error() {
        let mut a = array(2);
        a.members[1].dev_path = PathBuf::from("/nonexistent/drivescope-member");
        assert!(open_members(&a).is_err());
    }
}
