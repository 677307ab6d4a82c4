//! Lost or damaged, on emulated lab disks (FUSE + loop) whose truth is known: the presets
//! whose damage grows as it is read (margins of 1, 16 and 128 MiB, and eight patches) are
//! scanned to the end, never taken for a lost disk, with their damage mapped against the
//! truth; the preset that goes away mid-scan ends as lost (exit code 4). Needs root and FUSE;
//! fails loudly without them.

use common::lab::{one_at_a_time, start};
use common::typed::record_of;
use common::*;
use drivescope_lab::{LabDevice, Model};
use drivescope_record::ScanRecord;
use drivescope_testkit as common;

const MIB: u64 = 1 << 20;
const BS: u64 = 64 * 1024;

fn scan(dev: &LabDevice) -> (Option<i32>, String, ScanRecord) {
    let path = dev.loop_device().unwrap().to_str().unwrap().to_string();
    let out = drivescope(&["scan", &path, "--json", "--quiet", "--no-store"]);
    let err = String::from_utf8_lossy(&out.stderr).to_string();
    (out.status.code(), err, record_of(&out))
}

/// Merged `[start, end)` spans.
fn merged(mut v: Vec<(u64, u64)>) -> Vec<(u64, u64)> {
    v.sort();
    let mut out: Vec<(u64, u64)> = Vec::new();
    for (a, b) in v {
        match out.last_mut() {
            Some(l) if a <= l.1 => l.1 = l.1.max(b),
            _ => out.push((a, b)),
        }
    }
    out
}

fn inside(span: (u64, u64), of: &[(u64, u64)]) -> bool {
    of.iter().any(|&(a, b)| a <= span.0 && span.1 <= b)
}

#[test]
fn damage_that_grows_as_it_is_read_is_mapped_and_never_taken_for_a_lost_disk() {
    if skip_without_root("serves FUSE lab disks on loop devices") {
        return;
    }
    let _one = one_at_a_time();
    for name in ["growing-1m", "growing-16m", "growing-128m", "many-patches"] {
        let model = Model::preset(name).unwrap();
        let truth = model.truth();
        let dev = start(&model);
        let (code, err, d) = scan(&dev);
        drop(dev);
        assert_eq!(code, Some(0), "{name}: {err}");
        assert!(d.device_lost.is_none(), "{name}: {:?}", d.device_lost);
        assert!(
            d.lost_inconclusive.is_none(),
            "{name}: {:?}",
            d.lost_inconclusive
        );
        assert!(!d.interrupted, "{name}");
        assert_eq!(d.covered, truth.size, "{name}");
        assert!(d.failed_extents_cut.is_none() && d.untried_extents_cut.is_none());
        // What the scan reports not good: failed extents and untried stretches.
        let not_good = merged(
            d.failed_extents
                .iter()
                .map(|e| (e.offset, e.offset + e.length))
                .chain(
                    d.untried_extents
                        .iter()
                        .map(|e| (e.offset, e.offset + e.length)),
                )
                .collect(),
        );
        // Truth: every sector that always fails is reported not good; what is reported so
        // lies within its spot's margins and one command more on each side.
        let hull: Vec<(u64, u64)> = truth
            .bad
            .iter()
            .map(|s| {
                let m = s.marginal.unwrap_or(0) + BS;
                (s.offset.saturating_sub(m), s.offset + s.length + m)
            })
            .collect();
        for s in &truth.bad {
            assert!(
                inside((s.offset, s.offset + s.length), &not_good),
                "{name}: spot at {} ({} B) not all reported: {not_good:?}",
                s.offset,
                s.length
            );
        }
        for &span in &not_good {
            assert!(
                inside(span, &hull),
                "{name}: {span:?} reported not good, outside every spot and its margins"
            );
        }
        let reported: u64 = not_good.iter().map(|(a, b)| b - a).sum();
        let core: u64 = truth.bad.iter().map(|s| s.length).sum();
        eprintln!(
            "{name}: {} spots, {core} B failing, {reported} B reported failed or untried, \
             {} failed sectors listed",
            truth.bad.len(),
            d.failed_total
        );
    }
}

#[test]
fn a_disk_that_goes_away_mid_scan_ends_as_lost() {
    if skip_without_root("serves FUSE lab disks on loop devices") {
        return;
    }
    let _one = one_at_a_time();
    // The preset fails every command with EIO once it has served 400 MiB of reads; the loop
    // device stays. Its twin fails them with ENODEV.
    let preset = Model::preset("vanishing").unwrap();
    let mut enodev = preset.clone();
    enodev.vanish.as_mut().unwrap().errno = "ENODEV".into();
    for model in [preset, enodev] {
        let truth = model.truth();
        let gone = truth.vanish.clone().expect("vanish truth");
        let dev = start(&model);
        let (code, err, d) = scan(&dev);
        drop(dev);
        let what = format!("errno {}", gone.errno);
        assert_eq!(code, Some(4), "{what}: device-lost exit code: {err}");
        let why = d.device_lost.as_deref().expect("lost");
        eprintln!("{what}: {why}");
        let says = if gone.errno == libc::ENODEV {
            "the device is gone (No such device"
        } else {
            "3 places at least 64.0 MiB from it"
        };
        assert!(why.contains(says), "{what}: {why}");
        assert!(err.contains(why), "{what}: {err}");
        assert!(d.interrupted, "{what}");
        // Everything before it went was read (the kernel's own reads of a new block device,
        // a few KiB, count towards the 400 MiB too); nothing after it is called bad.
        assert!(
            d.bytes <= gone.after_read && d.bytes + 4 * MIB >= gone.after_read,
            "{what}: read {}",
            d.bytes
        );
        assert!(
            d.covered >= d.bytes && d.covered <= gone.after_read + 2 * MIB,
            "{what}: covered {}",
            d.covered
        );
        assert_eq!(d.failed_total, 0, "{what}: {:?}", d.failed);
    }
}
