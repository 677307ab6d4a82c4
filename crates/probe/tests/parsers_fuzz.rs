//! Property runs over what the probe reads from the kernel and from smartctl (mountinfo,
//! /proc/swaps, smartctl's JSON, ATA IDENTIFY words, sysfs numbers): any text, and the fixtures'
//! real files with a few characters changed, parse or are skipped, never a panic. Small budget.

use drivescope_probe::ata_id::{format_words, AtaIdentify};
use drivescope_probe::mounts::{mount_for, parse_mountinfo};
use drivescope_probe::smart::parse_smartctl_json;
use drivescope_probe::swaps::parse_swaps;
use drivescope_probe::sysfs::{bracketed, parse_u64};
use proptest::prelude::*;
use proptest::sample::Index;
use std::path::{Path, PathBuf};

fn fixture(path: &str) -> String {
    let p = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/fixtures")
        .join(path);
    std::fs::read_to_string(&p).unwrap_or_else(|e| panic!("{}: {e}", p.display()))
}

/// A real file with up to four characters replaced, inserted or removed, or cut short after a
/// word (a line missing its last fields).
fn edited(files: &'static [&'static str]) -> impl Strategy<Value = String> {
    let edit = (any::<Index>(), 0u8..4, any::<char>());
    (
        prop::sample::select(files),
        prop::collection::vec(edit, 0..5),
    )
        .prop_map(|(f, edits)| {
            let mut chars: Vec<char> = fixture(f).chars().collect();
            for (at, how, c) in edits {
                let i = at.index(chars.len() + 1);
                match how {
                    0 if i < chars.len() => chars[i] = c,
                    1 => chars.insert(i, c),
                    2 if i < chars.len() => {
                        chars.remove(i);
                    }
                    3 => {
                        let cut = (i..chars.len()).find(|&j| chars[j] == ' ');
                        chars.truncate(cut.unwrap_or(chars.len()));
                    }
                    _ => {}
                }
            }
            chars.into_iter().collect()
        })
}

fn text(files: &'static [&'static str]) -> impl Strategy<Value = String> {
    prop_oneof![any::<String>(), "[0-9a-fx: \\\\\\-\n]{0,40}", edited(files)]
}

const MOUNTINFO: &[&str] = &[
    "sata_ahci/proc/self/mountinfo",
    "nfs/proc/self/mountinfo",
    "usb_uas/proc/self/mountinfo",
];
const SWAPS: &[&str] = &["spare_disks/proc/swaps"];
const SMARTCTL: &[&str] = &[
    "smartctl/ata.json",
    "smartctl/nvme.json",
    "smartctl/open_failed.json",
    "smartctl/ata_failing.json",
    "smartctl/ata_attributes.json",
    "smartctl/nvme_healthy.json",
    "smartctl/nvme_media_errors.json",
    "smartctl/loop_device.json",
];
const ATA_ID: &[&str] =
    &["sata_ahci/sys/devices/pci0000:00/0000:00:17.0/ata1/link1/dev1.0/ata_device/dev1.0/id"];

proptest! {
    #![proptest_config(ProptestConfig { cases: 768, failure_persistence: None, ..ProptestConfig::default() })]

    #[test]
    fn mountinfo_never_panics(t in text(MOUNTINFO), path in "/[a-z/ .]{0,20}", dev in any::<Option<(u32, u32)>>()) {
        let mounts = parse_mountinfo(&t);
        if let Some(m) = mount_for(&mounts, &PathBuf::from(path), dev) {
            let _ = m.super_option("addr");
        }
    }

    #[test]
    fn swaps_never_panic(t in text(SWAPS)) {
        prop_assert!(parse_swaps(&t).iter().all(|p| !p.is_empty()));
    }

    #[test]
    fn smartctl_json_never_panics(t in text(SMARTCTL)) {
        let smart = parse_smartctl_json(&t);
        if serde_json::from_str::<serde_json::Value>(&t).is_err() {
            // output that is no JSON is said so, never read as health data
            prop_assert!(!smart.read && smart.note.is_some_and(|n| n.contains("not JSON")));
        }
    }

    #[test]
    fn ata_identify_never_panics(t in text(ATA_ID), words in prop::collection::vec(any::<u16>(), 250..260)) {
        for text in [t, format_words(&words)] {
            if let Some(id) = AtaIdentify::parse(&text) {
                let _ = (id.serial(), id.firmware(), id.model(), id.wwn(), id.rotation_rate());
                let _ = (id.ncq_supported(), id.max_queue_depth(), id.max_sata_gbps(), id.lba48_sectors());
            }
        }
    }

    #[test]
    fn sysfs_values_never_panic(t in prop_oneof![
        any::<String>(),
        "0[xX][0-9a-fA-F]{0,20}|[0-9]{0,22}|\\[[a-z]{0,5}\\]",
    ]) {
        let _ = (parse_u64(&t), bracketed(&t));
    }
}
