//! Built-in models. Each is written in the model file format itself, so `drivescope lab presets
//! --toml NAME` prints a starting point for a model of one's own.
//!
//! Sizes are scaled down (128–256 MiB) so that a full scan takes seconds; rates, latencies and
//! cache behaviour are those of the real thing. `--size` scales a preset up or down.

use crate::model::{Model, ModelError};

/// A built-in model: its name, a one-line summary, and its model text.
#[derive(Debug, Clone, Copy)]
pub struct Preset {
    pub name: &'static str,
    pub summary: &'static str,
    pub toml: &'static str,
}

impl Preset {
    /// The model it describes.
    pub fn model(&self) -> Model {
        Model::from_toml_str(self.toml, &format!("preset {}", self.name))
            .expect("built-in presets are valid")
    }
}

/// Every built-in model.
pub const PRESETS: &[Preset] = &[
    Preset {
        name: "hdd-7200",
        summary: "3.5\" 7200 rpm disk: 16 zones from 200 down to 100 MB/s, NCQ (32, reordered by position), two slow spots, one bad sector",
        toml: r#"name = "hdd-7200"
description = "3.5-inch 7200 rpm disk: 16 zones, 200 MB/s outer to 100 MB/s inner; NCQ reorders up to 32 commands"
size = "256M"
zones = { count = 16, outer_mb_s = 200, inner_mb_s = 100 }
overhead = "15us"
seek = { min = "0.8ms", max = "16ms" }
rotation = { rpm = 7200 }
queue = { mode = "parallel", depth = 32 }
interface_mb_s = 550
slow = [
  { offset = "40M", length = "64K", latency = "120ms" },
  { offset = "170M", length = "4K", latency = "70ms" },
]
bad = [{ offset = "130M", length = "4K", read = true, write = false, latency = "20ms" }]
temperature = { idle_c = 36, busy_c = 42, time_constant = "60s" }
"#,
    },
    Preset {
        name: "hdd-5400-laptop",
        summary: "2.5\" 5400 rpm laptop disk: 12 zones from 120 down to 60 MB/s, NCQ (32, reordered by position), one slow spot",
        toml: r#"name = "hdd-5400-laptop"
description = "2.5-inch 5400 rpm laptop disk: 12 zones, 120 MB/s outer to 60 MB/s inner; NCQ reorders up to 32 commands"
size = "128M"
zones = { count = 12, outer_mb_s = 120, inner_mb_s = 60 }
overhead = "20us"
seek = { min = "1.5ms", max = "22ms" }
rotation = { rpm = 5400 }
queue = { mode = "parallel", depth = 32 }
interface_mb_s = 280
slow = [{ offset = "90M", length = "4K", latency = "90ms" }]
"#,
    },
    Preset {
        name: "usb-bridge-hdd",
        summary: "laptop disk behind a USB 2.0 bridge without UAS: one command at a time in arrival order, capped at 40 MB/s",
        toml: r#"name = "usb-bridge-hdd"
description = "2.5-inch disk behind a USB 2.0 bridge without command queueing (BOT): serial, 40 MB/s cap"
size = "128M"
zones = { count = 12, outer_mb_s = 120, inner_mb_s = 60 }
overhead = "250us"
seek = { min = "1.5ms", max = "22ms" }
rotation = { rpm = 5400 }
queue = { mode = "serial" }
interface_mb_s = 40
"#,
    },
    Preset {
        name: "raid-cache",
        summary: "RAID controller with 64 MiB read and write-back cache in front of a slow 90-70 MB/s disk, queue of 16 reordered by position",
        toml: r#"name = "raid-cache"
description = "controller read cache (LRU) and write-back cache, 64 MiB each, in front of a slow disk"
size = "256M"
zones = { count = 4, outer_mb_s = 90, inner_mb_s = 70 }
overhead = "40us"
seek = { min = "1ms", max = "12ms" }
rotation = { rpm = 7200 }
read_cache = { size = "64M", rate_mb_s = 1200 }
write_cache = { size = "64M", rate_mb_s = 1500 }
queue = { mode = "parallel", depth = 16 }
"#,
    },
    Preset {
        name: "ssd-slc",
        summary: "SATA SSD: 480 MB/s, 32 commands overlap; writes at 480 MB/s into a 64 MiB SLC cache (non-volatile), then 120 MB/s",
        toml: r#"name = "ssd-slc"
description = "SATA SSD with an SLC write cache: fast until it fills, then native TLC write speed; what the SLC holds is durable"
size = "256M"
zones = { rates_mb_s = [480] }
write_rate_factor = 0.25
overhead = "60us"
write_cache = { size = "64M", rate_mb_s = 480, volatile = false }
queue = { mode = "parallel", depth = 32 }
interface_mb_s = 550
temperature = { idle_c = 38, busy_c = 52, time_constant = "30s" }
"#,
    },
    Preset {
        name: "nas-1gbe",
        summary: "NAS disk over 1 GbE (iSCSI-like): 200-110 MB/s disk capped at 118 MB/s, 150 us round trip, 8 commands queued and reordered",
        toml: r#"name = "nas-1gbe"
description = "a disk in a NAS reached over 1 GbE: the network caps it at 118 MB/s"
size = "256M"
zones = { count = 8, outer_mb_s = 200, inner_mb_s = 110 }
overhead = "150us"
seek = { min = "0.8ms", max = "16ms" }
rotation = { rpm = 7200 }
queue = { mode = "parallel", depth = 8 }
interface_mb_s = 118
"#,
    },
    Preset {
        name: "nas-smb",
        summary: "NAS disk shared over SMB on 1 GbE: 180-100 MB/s disk capped at 110 MB/s, 200 us round trip, 8 commands queued and reordered",
        toml: r#"name = "nas-smb"
description = "a disk in a NAS shared over SMB on 1 GbE: the network and the protocol cap it at 110 MB/s"
size = "256M"
zones = { count = 8, outer_mb_s = 180, inner_mb_s = 100 }
overhead = "200us"
seek = { min = "0.8ms", max = "16ms" }
rotation = { rpm = 7200 }
queue = { mode = "parallel", depth = 8 }
interface_mb_s = 110
"#,
    },
    Preset {
        name: "capped-180",
        summary: "7200 rpm disk (250-170 MB/s) behind a bridge that tops out at 180 MB/s, a rate no usual link delivers; NCQ (32, reordered by position)",
        toml: r#"name = "capped-180"
description = "3.5-inch 7200 rpm disk, 250 MB/s outer to 170 MB/s inner, behind a bridge or controller that caps it at 180 MB/s"
size = "256M"
zones = { count = 8, outer_mb_s = 250, inner_mb_s = 170 }
overhead = "30us"
seek = { min = "0.8ms", max = "16ms" }
rotation = { rpm = 7200 }
queue = { mode = "parallel", depth = 32 }
interface_mb_s = 180
"#,
    },
    Preset {
        name: "cold-start",
        summary: "7200 rpm disk at half speed for its first 20 s of work (low-temperature mode: served at 9 °C, it warms to ~24 °C), NCQ (32, reordered by position)",
        toml: r#"name = "cold-start"
description = "hdd-7200 profile that runs at half speed for the first 20 s after its first command, served cold (9 °C) and warming to ~24 °C"
size = "256M"
zones = { count = 16, outer_mb_s = 200, inner_mb_s = 100 }
overhead = "15us"
seek = { min = "0.8ms", max = "16ms" }
rotation = { rpm = 7200 }
queue = { mode = "parallel", depth = 32 }
warmup = { factor = 0.5, duration = "20s" }
temperature = { start_c = 9, idle_c = 21, busy_c = 24, time_constant = "6s" }
"#,
    },
    Preset {
        name: "nvme-throttle",
        summary: "NVMe SSD in a hot slot: 480 MB/s flat, 32 commands overlap; after 5 s of sustained work it throttles to 0.45x, 4 s idle cools it",
        toml: r#"name = "nvme-throttle"
description = "SSD without a heat sink: flat 480 MB/s until 5 s of sustained work heat it, then 0.45x until it rests 4 s (a real drive's 15 s and 12 s, scaled down 3x in time)"
size = "256M"
zones = { rates_mb_s = [480] }
overhead = "60us"
queue = { mode = "parallel", depth = 32 }
throttle = { factor = 0.45, after = "5s", cooling = "4s" }
temperature = { idle_c = 45, busy_c = 78, time_constant = "4s" }
"#,
    },
    Preset {
        name: "smr-nas",
        summary: "drive-managed SMR disk sold for NAS use: 5400 rpm, 16 zones from 180 down to 90 MB/s, NCQ (32, reordered by position); random writes fill a 48 MiB media cache, then stall 500 ms per band cleaned; 1 s idle drains it at 40 MB/s",
        toml: r#"name = "smr-nas"
description = "drive-managed SMR NAS disk: non-sequential writes go to a 48 MiB media cache at 180 MB/s; once it is full each 1 MiB band cleaned stalls the drive 500 ms; after 1 s idle it drains at 40 MB/s"
size = "256M"
zones = { count = 16, outer_mb_s = 180, inner_mb_s = 90 }
overhead = "30us"
seek = { min = "0.8ms", max = "16ms" }
rotation = { rpm = 5400 }
queue = { mode = "parallel", depth = 32 }
interface_mb_s = 550
smr = { media_cache = "48M", cache_mb_s = 180, band = "1M", stall = "500ms", idle_after = "1s", drain_mb_s = 40 }
"#,
    },
    Preset {
        name: "cmr-nas",
        summary: "the CMR twin of smr-nas: the same 5400 rpm disk, zones, seeks and NCQ (32, reordered by position), without a media cache",
        toml: r#"name = "cmr-nas"
description = "conventional (CMR) NAS disk: smr-nas without its media cache, every write goes to its place"
size = "256M"
zones = { count = 16, outer_mb_s = 180, inner_mb_s = 90 }
overhead = "30us"
seek = { min = "0.8ms", max = "16ms" }
rotation = { rpm = 5400 }
queue = { mode = "parallel", depth = 32 }
interface_mb_s = 550
"#,
    },
    Preset {
        name: "usb-stick",
        summary: "genuine USB flash stick: 50 MB/s media behind a 40 MB/s USB 2.0 link, one command at a time; the twin of the fake-* presets",
        toml: r#"name = "usb-stick"
description = "a genuine USB flash stick: every byte it reports keeps its data"
size = "128M"
zones = { rates_mb_s = [50] }
overhead = "60us"
queue = { mode = "serial" }
interface_mb_s = 40
"#,
    },
    Preset {
        name: "fake-wrap-48of128",
        summary: "counterfeit USB stick: reports 128 MiB, keeps 48 MiB; writes past it wrap around onto the start (every 48 MiB), one command at a time",
        toml: r#"name = "fake-wrap-48of128"
description = "a counterfeit stick whose addresses wrap around at 48 MiB, a modulus that is no power of two"
size = "128M"
zones = { rates_mb_s = [50] }
overhead = "60us"
queue = { mode = "serial" }
interface_mb_s = 40
[fake]
real = "48M"
mode = "wrap"
"#,
    },
    Preset {
        name: "fake-wrap-3000of4096",
        summary: "counterfeit USB stick: reports 4 GiB, keeps 3000 MiB; writes past it wrap around every 3000 MiB, one command at a time",
        toml: r#"name = "fake-wrap-3000of4096"
description = "a counterfeit stick of 4 GiB whose addresses wrap around at 3000 MiB"
size = "4G"
zones = { rates_mb_s = [50] }
overhead = "60us"
queue = { mode = "serial" }
interface_mb_s = 40
[fake]
real = "3000M"
mode = "wrap"
"#,
    },
    Preset {
        name: "fake-disk-wrap-3000of4096",
        summary: "counterfeit drive built on a disk: reports 4 GiB, keeps 3000 MiB and wraps around there; every command that does not continue the last one seeks 5 to 10 ms",
        toml: r#"name = "fake-disk-wrap-3000of4096"
description = "a counterfeit 4 GiB drive whose scattered commands cost 5 to 10 ms (a disk behind it, or cheap flash with slow random writes); addresses wrap around at 3000 MiB"
size = "4G"
zones = { rates_mb_s = [50] }
overhead = "60us"
seek = { min = "5ms", max = "10ms" }
queue = { mode = "serial" }
interface_mb_s = 40
[fake]
real = "3000M"
mode = "wrap"
"#,
    },
    Preset {
        name: "fake-2tb-32g",
        summary: "the common counterfeit stick: reports 2 TB, keeps 32 GiB and wraps around there, 50 MB/s behind USB 2.0, one command at a time (sparse: costs what is written)",
        toml: r#"name = "fake-2tb-32g"
description = "a counterfeit \"2 TB\" stick that keeps 32 GiB; addresses wrap around at 32 GiB"
size = "2000000000000"
zones = { rates_mb_s = [50] }
overhead = "60us"
queue = { mode = "serial" }
interface_mb_s = 40
[fake]
real = "32G"
mode = "wrap"
"#,
    },
    Preset {
        name: "fake-drop",
        summary: "counterfeit USB stick: reports 128 MiB, keeps 64 MiB; writes past it are acknowledged and dropped (reads give zeros), one command at a time",
        toml: r#"name = "fake-drop"
description = "a counterfeit stick that throws away every write past 64 MiB"
size = "128M"
zones = { rates_mb_s = [50] }
overhead = "60us"
queue = { mode = "serial" }
interface_mb_s = 40
[fake]
real = "64M"
mode = "drop"
"#,
    },
    Preset {
        name: "fake-limbo",
        summary: "counterfeit USB stick: reports 128 MiB, keeps 32 MiB; writes past it land in a 16 MiB cache that keeps only the latest, one command at a time",
        toml: r#"name = "fake-limbo"
description = "a counterfeit stick whose writes past 32 MiB survive only while they are among the last 16 MiB written there"
size = "128M"
zones = { rates_mb_s = [50] }
overhead = "60us"
queue = { mode = "serial" }
interface_mb_s = 40
[fake]
real = "32M"
mode = "limbo"
cache = "16M"
"#,
    },
    Preset {
        name: "fake-readerr",
        summary: "counterfeit USB stick: reports 128 MiB, keeps 64 MiB; reads past it fail (EIO), one command at a time",
        toml: r#"name = "fake-readerr"
description = "a counterfeit stick whose reads past 64 MiB fail"
size = "128M"
zones = { rates_mb_s = [50] }
overhead = "60us"
queue = { mode = "serial" }
interface_mb_s = 40
[fake]
real = "64M"
mode = "readerr"
"#,
    },
    Preset {
        name: "growing-1m",
        summary: "failing SSD: 64 KiB unreadable at 200 MiB and 1 MiB on each side that reads once and then fails (damage that grows as it is read), 400 MB/s, 32 commands overlap",
        toml: r#"name = "growing-1m"
description = "a failing drive whose damage grows while it is read: 64 KiB always fails, the 1 MiB on each side reads once and fails every read after"
size = "512M"
zones = { rates_mb_s = [400] }
overhead = "5us"
queue = { mode = "parallel", depth = 32 }
bad = [{ offset = "200M", length = "64K", latency = "2ms", marginal = "1M" }]
"#,
    },
    Preset {
        name: "growing-16m",
        summary: "failing SSD: 256 KiB unreadable at 200 MiB and 16 MiB on each side that reads once and then fails, 400 MB/s, 32 commands overlap",
        toml: r#"name = "growing-16m"
description = "a failing drive whose damage grows while it is read: 256 KiB always fails, the 16 MiB on each side reads once and fails every read after"
size = "512M"
zones = { rates_mb_s = [400] }
overhead = "5us"
queue = { mode = "parallel", depth = 32 }
bad = [{ offset = "200M", length = "256K", latency = "2ms", marginal = "16M" }]
"#,
    },
    Preset {
        name: "growing-128m",
        summary: "failing SSD: 1 MiB unreadable at 400 MiB and 128 MiB on each side that reads once and then fails, 400 MB/s, 32 commands overlap",
        toml: r#"name = "growing-128m"
description = "a failing drive whose damage grows while it is read: 1 MiB always fails, the 128 MiB on each side reads once and fails every read after"
size = "1G"
zones = { rates_mb_s = [400] }
overhead = "5us"
queue = { mode = "parallel", depth = 32 }
bad = [{ offset = "400M", length = "1M", latency = "2ms", marginal = "128M" }]
"#,
    },
    Preset {
        name: "many-patches",
        summary: "failing SSD: eight damaged patches from one sector to 1 MiB over 1 GiB, most with margins of 4 KiB to 8 MiB that read once and then fail, 400 MB/s, 32 commands overlap",
        toml: r#"name = "many-patches"
description = "a failing drive damaged in eight places, fixed and growing"
size = "1G"
zones = { rates_mb_s = [400] }
overhead = "5us"
queue = { mode = "parallel", depth = 32 }
bad = [
  { offset = "10M", length = 512, latency = "2ms" },
  { offset = "130M", length = "64K", latency = "2ms", marginal = "4K" },
  { offset = "250M", length = "1M", latency = "2ms", marginal = "8M" },
  { offset = "380M", length = "4K", latency = "2ms", marginal = "2M" },
  { offset = "500M", length = "256K", latency = "2ms" },
  { offset = "640M", length = "32K", latency = "2ms", marginal = "512K" },
  { offset = "770M", length = "128K", latency = "2ms", marginal = "4M" },
  { offset = "1000M", length = "8K", latency = "2ms", marginal = "1M" },
]
"#,
    },
    Preset {
        name: "vanishing",
        summary: "SSD that goes away after serving 400 MiB of reads: every command after fails with EIO and the kernel keeps the device, 400 MB/s, 32 commands overlap",
        toml: r#"name = "vanishing"
description = "a drive that dies in the middle of a scan: after 400 MiB of reads every command fails with EIO, the block device stays"
size = "1G"
zones = { rates_mb_s = [400] }
overhead = "5us"
queue = { mode = "parallel", depth = 32 }
vanish = { after_read = "400M" }
"#,
    },
];

/// The built-in model named `name`.
pub fn find(name: &str) -> Option<&'static Preset> {
    PRESETS.iter().find(|p| p.name == name)
}

/// A built-in model by name.
pub fn preset(name: &str) -> Option<Model> {
    find(name).map(Preset::model)
}

/// The model text of a preset.
pub fn preset_toml(name: &str) -> Option<&'static str> {
    find(name).map(|p| p.toml)
}

/// Names of all presets.
pub fn names() -> impl Iterator<Item = &'static str> {
    PRESETS.iter().map(|p| p.name)
}

impl Model {
    /// A built-in model by name (`drivescope lab presets` lists them).
    pub fn preset(name: &str) -> Option<Model> {
        preset(name)
    }

    /// A preset name, or else a path to a model file.
    pub fn load(name_or_path: &str) -> Result<Model, ModelError> {
        if let Some(m) = preset(name_or_path) {
            return Ok(m);
        }
        let p = std::path::Path::new(name_or_path);
        if p.exists() {
            return Model::from_toml_file(p);
        }
        Err(ModelError::Unknown(name_or_path.to_string()))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_preset_parses_and_is_named_after_itself() {
        for p in PRESETS {
            assert_eq!(p.model().name, p.name);
        }
        for required in [
            "hdd-7200",
            "hdd-5400-laptop",
            "usb-bridge-hdd",
            "raid-cache",
            "ssd-slc",
            "nas-1gbe",
            "nas-smb",
            "capped-180",
            "cold-start",
            "nvme-throttle",
            "smr-nas",
            "cmr-nas",
        ] {
            assert!(preset(required).is_some(), "{required}");
        }
        assert!(preset("floppy").is_none());
    }

    #[test]
    fn the_slow_and_the_2tb_fakes_state_their_truth() {
        let t = preset("fake-2tb-32g").unwrap().truth();
        let c = t.capacity.unwrap();
        assert_eq!(
            (c.nominal, c.real, c.modulus),
            (2_000_000_000_000, 32 << 30, Some(32 << 30))
        );
        let m = preset("fake-disk-wrap-3000of4096").unwrap();
        let s = m.seek.as_ref().unwrap();
        assert_eq!((s.min_ns, s.max_ns), (5_000_000, 10_000_000));
        assert_eq!(m.truth().capacity.unwrap().real, 3000 << 20);
    }

    #[test]
    fn cold_start_is_served_cold_and_warms_to_about_24_under_load() {
        let t = preset("cold-start").unwrap().temperature.unwrap();
        assert_eq!(t.start(), 9.0);
        let h = crate::temperature::Heat::new(&t, 0);
        let s = 1_000_000_000u64;
        h.command(0, 20 * s);
        let at_20 = h.celsius_at(20 * s);
        assert!((23.0..24.0).contains(&at_20), "{at_20}");
        h.command(20 * s, 60 * s);
        assert!((h.celsius_at(60 * s) - 24.0).abs() < 0.01);
        // Presets without a section serve no temperature.
        assert!(preset("usb-bridge-hdd").unwrap().temperature.is_none());
    }

    #[test]
    fn only_the_throttling_preset_throttles_and_its_truth_says_how() {
        for p in PRESETS {
            let t = p.model().truth().throttle;
            assert_eq!(t.is_some(), p.name == "nvme-throttle", "{}", p.name);
        }
        let t = preset("nvme-throttle").unwrap().truth().throttle.unwrap();
        assert_eq!(
            (t.factor, t.after_ns, t.cooling_ns),
            (0.45, 5_000_000_000, 4_000_000_000)
        );
    }

    #[test]
    fn hdd_7200_falls_from_200_to_100() {
        let m = preset("hdd-7200").unwrap();
        assert_eq!(m.media_mb_s(0), 200.0);
        assert_eq!(m.media_mb_s(m.size - 1), 100.0);
    }

    #[test]
    fn the_capped_presets_are_flat_at_their_cap_over_most_positions_and_fall_inside() {
        // (name, cap, share of the positions whose media is at or above the cap's 95 %)
        for (name, cap, share) in [("nas-smb", 110.0, 0.875), ("capped-180", 180.0, 0.875)] {
            let m = preset(name).unwrap();
            assert_eq!(m.interface_mb_s, Some(cap), "{name}");
            let points = 64;
            let on_top = (0..points)
                .filter(|i| m.media_mb_s(m.size / points * i) >= 0.95 * cap)
                .count();
            assert_eq!(on_top as f64 / points as f64, share, "{name}");
            // The inner zone reads under the cap: a disk, though not falling enough to show zones.
            let inner = m.media_mb_s(m.size - 1) / cap;
            assert!((0.86..0.95).contains(&inner), "{name}: {inner}");
        }
    }

    #[test]
    fn the_presets_cover_each_way_of_queueing() {
        use crate::model::QueueMode;
        use crate::timing::Timeline;
        // (name, reorders its queue by position, overlaps commands at all)
        for (name, reorders, queues) in [
            ("hdd-7200", true, true),
            ("hdd-5400-laptop", true, true),
            ("usb-bridge-hdd", false, false),
            ("raid-cache", true, true),
            ("ssd-slc", false, true),
            ("nas-1gbe", true, true),
            ("nas-smb", true, true),
            ("capped-180", true, true),
            ("cold-start", true, true),
            ("nvme-throttle", false, true),
            ("smr-nas", true, true),
            ("cmr-nas", true, true),
        ] {
            let m = preset(name).unwrap();
            assert_eq!(Timeline::new(&m).reorders(), reorders, "{name}");
            assert_eq!(m.queue.mode == QueueMode::Parallel, queues, "{name}");
            let p = find(name).unwrap();
            let says = if reorders {
                "reordered"
            } else if queues {
                "overlap"
            } else {
                "one command at a time"
            };
            assert!(p.summary.contains(says), "{name}: {}", p.summary);
        }
    }
}
