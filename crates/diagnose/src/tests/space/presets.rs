//! The lab's presets (crates/lab/src/presets.rs) as named draws: each lies in [`super::Space::WIDE`]. Seek
//! ranges become one access time, NCQ a number of overlapping commands; temperature, slow spots and bad sectors
//! are no part of these spaces.

use super::{Media, Spec};
use crate::tests::model::{Smr, MIB};

fn hdd(size_mib: u64, outer: f64, inner: f64, zones: u32, access_ms: f64, lanes: usize) -> Spec {
    Spec {
        media: Media::Hdd,
        size: size_mib * MIB,
        outer,
        inner,
        zones,
        access_ns: (access_ms * 1e6) as u64,
        lanes,
        write_factor: 1.0,
        warm_up: None,
        throttle: None,
        read_cache: None,
        write_cache: None,
        link: None,
        smr: None,
        noise: None,
        writes: true,
        budget_s: 180,
    }
}

fn flash(size_mib: u64, rate: f64, access_us: f64, lanes: usize) -> Spec {
    Spec {
        media: Media::Flash,
        outer: rate,
        inner: rate,
        zones: 0,
        access_ns: (access_us * 1e3) as u64,
        ..hdd(size_mib, rate, rate, 0, 0.0, lanes)
    }
}

/// Every preset the space holds, by its lab name.
pub fn all() -> Vec<(&'static str, Spec)> {
    vec![
        ("hdd-7200", hdd(256, 200.0, 100.0, 16, 8.0, 32)),
        ("hdd-5400-laptop", hdd(128, 120.0, 60.0, 12, 11.0, 32)),
        (
            "usb-bridge-hdd",
            Spec {
                link: Some(40.0),
                ..hdd(128, 120.0, 60.0, 12, 11.0, 1)
            },
        ),
        (
            "raid-cache",
            Spec {
                read_cache: Some((64 * MIB, 1200.0)),
                write_cache: Some((64 * MIB, 1500.0)),
                ..hdd(256, 90.0, 70.0, 4, 6.0, 16)
            },
        ),
        (
            "ssd-slc",
            Spec {
                write_factor: 0.25,
                write_cache: Some((64 * MIB, 480.0)),
                ..flash(256, 480.0, 60.0, 32)
            },
        ),
        (
            "nas-1gbe",
            Spec {
                link: Some(118.0),
                ..hdd(256, 200.0, 110.0, 8, 8.0, 8)
            },
        ),
        (
            "capped-180",
            Spec {
                link: Some(180.0),
                ..hdd(256, 250.0, 170.0, 8, 8.0, 32)
            },
        ),
        (
            "cold-start",
            Spec {
                warm_up: Some((20.0, 0.5)),
                ..hdd(256, 200.0, 100.0, 16, 8.0, 32)
            },
        ),
        (
            "nvme-throttle",
            Spec {
                throttle: Some((5.0, 0.45, 4.0)),
                ..flash(256, 480.0, 60.0, 32)
            },
        ),
        (
            "smr-nas",
            Spec {
                smr: Some(Smr {
                    cache: 48 * MIB,
                    rate: 180.0,
                    band: MIB,
                    stall_ns: 500_000_000,
                    idle_after_ns: 1_000_000_000,
                    drain: 40.0,
                }),
                ..hdd(256, 180.0, 90.0, 16, 8.0, 32)
            },
        ),
        ("cmr-nas", hdd(256, 180.0, 90.0, 16, 8.0, 32)),
        (
            "usb-stick",
            Spec {
                link: Some(40.0),
                ..flash(128, 50.0, 60.0, 1)
            },
        ),
    ]
}
