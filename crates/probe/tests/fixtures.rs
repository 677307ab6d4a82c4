//! identify() on fixture trees laid out as the kernel lays out sysfs (see
//! tests/fixtures/make_fixtures.py for the layout and its sources).

use drivescope_probe::block::{BlockInfo, BlockRole, Transport};
use drivescope_probe::smart::parse_smartctl_json;
use drivescope_probe::swaps::swap_devices;
use drivescope_probe::{
    identify_with, kernel_name, list_block_devices, target_partitions, Identity, Node, Options,
    Roots, TargetKind,
};
use std::path::{Path, PathBuf};

fn fixture(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/fixtures")
        .join(name)
}

fn roots(name: &str) -> Roots {
    Roots::under(&fixture(name))
}

fn id(fix: &str, target: &Path) -> Identity {
    let opts = Options {
        smart: true,
        dns: false,
    };
    identify_with(target, &roots(fix), &opts)
        .unwrap_or_else(|e| panic!("identify {} in {fix}: {e:#}", target.display()))
}

/// A real file on this machine: with a fixture's mountinfo, it resolves through the
/// fixture's root mount.
fn real_file() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("Cargo.toml")
}

fn block<'a>(id: &'a Identity, name: &str) -> &'a BlockInfo {
    id.block_devices()
        .find(|b| b.name == name)
        .unwrap_or_else(|| panic!("{name} not in chain: {:#?}", id.layers))
}

/// The chain as a list of short labels, following the first `below` at each step.
fn chain(id: &Identity) -> Vec<String> {
    let mut out = Vec::new();
    let mut i = 0;
    loop {
        let l = &id.layers[i];
        out.push(match &l.node {
            Node::File { .. } => "file".to_string(),
            Node::Directory { .. } => "dir".to_string(),
            Node::Filesystem { fstype, .. } => format!("fs:{fstype}"),
            Node::Network { protocol, .. } => format!("net:{protocol}"),
            Node::Block(b) => format!("block:{}", b.name),
            Node::Null => "null".to_string(),
        });
        match l.below.first() {
            Some(&b) => i = b,
            None => break,
        }
    }
    out
}

fn approx(a: Option<f64>, b: f64) -> bool {
    a.is_some_and(|a| (a - b).abs() < 0.05)
}

#[test]
fn sata_hdd_on_ahci() {
    let f = fixture("sata_ahci");
    let id = id("sata_ahci", &f.join("dev/sda"));
    assert_eq!(id.kind, TargetKind::BlockDevice);
    let sda = block(&id, "sda");
    assert_eq!(sda.transport, Transport::Sata);
    assert_eq!(sda.role, BlockRole::Disk);
    assert_eq!(sda.size_bytes, Some(7814037168 * 512));
    assert_eq!(sda.logical_sector_size, Some(512));
    assert_eq!(sda.physical_sector_size, Some(4096));
    assert_eq!(sda.rotational, Some(true));
    assert_eq!(sda.scheduler.as_deref(), Some("mq-deadline"));
    assert_eq!(sda.nr_requests, Some(64));
    assert_eq!(sda.write_cache.as_deref(), Some("write back"));
    assert_eq!(sda.partitions, vec!["sda1".to_string()]);
    assert_eq!(sda.major_minor.as_deref(), Some("8:0"));
    let hw = sda.hardware.as_ref().expect("hardware");
    // From IDENTIFY, not the truncated INQUIRY strings.
    assert_eq!(hw.model.as_deref(), Some("ST4000DM004-2CV104"));
    assert_eq!(hw.serial.as_deref(), Some("ZFN0ABCD"));
    assert_eq!(hw.firmware.as_deref(), Some("0001"));
    assert_eq!(hw.wwn.as_deref(), Some("naa.5000c500a1b2c3d4"));
    assert_eq!(hw.vendor, None, "libata's 'ATA' is not a vendor");
    assert_eq!(hw.rotation_rate_rpm, Some(5400));
    assert_eq!(hw.queue_depth, Some(32));
    assert_eq!(hw.ncq, Some(true));
    assert_eq!(hw.ncq_supported, Some(true));
    let sata = hw.sata.as_ref().expect("sata link");
    assert_eq!(sata.link, "link1");
    assert_eq!(sata.speed_gbps, Some(6.0));
    assert_eq!(sata.drive_max_gbps, Some(6.0));
    assert_eq!(sata.limit_gbps, None);
    assert!(hw.usb.is_none() && hw.pcie.is_none() && hw.nvme.is_none());
    // The AHCI controller is integrated (directly under the host bridge): no PCIe link.
    assert_eq!(id.links.len(), 1, "{:?}", id.links);
    assert_eq!(id.links[0].name, "ata1");
    assert_eq!(id.links[0].kind, "sata");
    assert_eq!(id.path_ceiling_mb_per_s, Some(600.0));
    assert_eq!(id.path_ceiling_mb_per_s(), Some(600.0));
    let smart = hw.smart.as_ref().expect("smart note");
    assert!(!smart.read);
    assert!(smart
        .note
        .as_deref()
        .is_some_and(|n| n.contains("not the live")));
}

#[test]
fn partition_resolves_to_its_disk() {
    let f = fixture("sata_ahci");
    let id = id("sata_ahci", &f.join("dev/sda1"));
    assert_eq!(id.kind, TargetKind::Partition);
    assert_eq!(chain(&id), ["block:sda1", "block:sda"]);
    let p = block(&id, "sda1");
    assert_eq!(p.role, BlockRole::Partition);
    assert_eq!(p.transport, Transport::Sata);
    let part = p.partition.as_ref().expect("partition info");
    assert_eq!(part.number, Some(1));
    assert_eq!(part.start_sector, Some(2048));
    assert_eq!(part.parent, "sda");
    assert_eq!(p.mount_points, vec![PathBuf::from("/")]);
    // The queue belongs to the disk.
    assert_eq!(p.physical_sector_size, Some(4096));
    assert_eq!(id.path_ceiling_mb_per_s, Some(600.0));
}

#[test]
fn by_id_symlink_and_bare_name() {
    let f = fixture("sata_ahci");
    let a = id(
        "sata_ahci",
        &f.join("dev/disk/by-id/ata-ST4000DM004-2CV104_ZFN0ABCD"),
    );
    assert_eq!(chain(&a), ["block:sda"]);
    let b = id("sata_ahci", Path::new("sda1"));
    assert_eq!(chain(&b), ["block:sda1", "block:sda"]);
}

#[test]
fn file_resolves_to_fs_partition_disk() {
    let id = id("sata_ahci", &real_file());
    assert_eq!(id.kind, TargetKind::File);
    assert_eq!(chain(&id), ["file", "fs:ext4", "block:sda1", "block:sda"]);
    match &id.layers[1].node {
        Node::Filesystem {
            mount_point,
            source,
            major_minor,
            ..
        } => {
            assert_eq!(mount_point, Path::new("/"));
            assert_eq!(source, "/dev/sda1");
            assert_eq!(major_minor, "8:1");
        }
        n => panic!("expected a file system, got {n:?}"),
    }
    assert_eq!(id.path_ceiling_mb_per_s, Some(600.0));
    let dir = id_dir();
    assert_eq!(dir.kind, TargetKind::Directory);
}

fn id_dir() -> Identity {
    id("sata_ahci", Path::new(env!("CARGO_MANIFEST_DIR")))
}

#[test]
fn loop_over_a_file_resolves_to_backing_file_and_disk() {
    let f = fixture("sata_ahci");
    let id = id("sata_ahci", &f.join("dev/loop0"));
    assert_eq!(
        chain(&id),
        ["block:loop0", "file", "fs:ext4", "block:sda1", "block:sda"]
    );
    let l = block(&id, "loop0");
    assert_eq!(l.role, BlockRole::Loop);
    assert_eq!(l.transport, Transport::Loop);
    let info = l.loop_dev.as_ref().expect("loop info");
    assert_eq!(
        info.backing_file.as_deref(),
        Some(Path::new("/srv/drivescope-fixture/images/disk.img"))
    );
    assert_eq!(info.direct_io, Some(false));
    assert_eq!(info.autoclear, Some(true));
    match &id.layers[1].node {
        Node::File { reachable, .. } => assert!(!reachable),
        n => panic!("expected the backing file, got {n:?}"),
    }
    assert_eq!(id.path_ceiling_mb_per_s, Some(600.0));
    assert_eq!(id.devices().count(), 1);
}

#[test]
fn listing_skips_nothing_attached() {
    let list = list_block_devices(&roots("sata_ahci")).expect("list");
    let names: Vec<&str> = list
        .iter()
        .filter_map(|i| i.target_block().map(|b| b.name.as_str()))
        .collect();
    assert_eq!(names, ["loop0", "sda"]);
    // No SMART in listings.
    assert!(list[1]
        .devices()
        .all(|d| d.hardware.as_ref().is_some_and(|h| h.smart.is_none())));
}

#[test]
fn usb_bridge_with_usb_storage() {
    let f = fixture("usb_storage");
    let id = id("usb_storage", &f.join("dev/sdb"));
    let sdb = block(&id, "sdb");
    assert_eq!(sdb.transport, Transport::Usb);
    let hw = sdb.hardware.as_ref().expect("hardware");
    let usb = hw.usb.as_ref().expect("usb");
    assert_eq!(usb.device, "1-2");
    assert_eq!(usb.driver.as_deref(), Some("usb-storage"));
    assert_eq!(usb.queueing, Some(false));
    assert_eq!(usb.speed_mbit, Some(480.0));
    assert_eq!(usb.vendor_id.as_deref(), Some("152d"));
    assert_eq!(usb.manufacturer.as_deref(), Some("JMicron"));
    assert_eq!(hw.queue_depth, Some(1));
    assert_eq!(hw.model.as_deref(), Some("004-2CV104"));
    assert!(
        hw.sata.is_none(),
        "no ATA link is visible behind a USB bridge"
    );
    assert_eq!(id.links.len(), 1, "{:?}", id.links);
    assert_eq!(id.links[0].kind, "usb");
    assert_eq!(id.path_ceiling_mb_per_s, Some(40.0));
    assert!(id.notes.iter().any(|n| n.contains("no command queueing")));
}

#[test]
fn usb_bridge_with_uas_behind_a_hub() {
    let f = fixture("usb_uas");
    let id = id("usb_uas", &f.join("dev/sdb1"));
    assert_eq!(chain(&id), ["block:sdb1", "block:sdb"]);
    let hw = block(&id, "sdb").hardware.as_ref().expect("hardware");
    let usb = hw.usb.as_ref().expect("usb");
    assert_eq!(usb.device, "2-1.4");
    assert_eq!(usb.driver.as_deref(), Some("uas"));
    assert_eq!(usb.queueing, Some(true));
    assert_eq!(usb.speed_mbit, Some(5000.0));
    assert_eq!(hw.queue_depth, Some(30));
    let names: Vec<&str> = id.links.iter().map(|l| l.name.as_str()).collect();
    assert_eq!(
        names,
        ["2-1.4", "2-1"],
        "the bridge, then the hub; not the root hub"
    );
    assert_eq!(id.path_ceiling_mb_per_s, Some(500.0));
    assert!(!id.notes.iter().any(|n| n.contains("no command queueing")));
}

#[test]
fn nvme_ssd_on_a_narrowed_pcie_link() {
    let f = fixture("nvme");
    let id = id("nvme", &f.join("dev/nvme0n1"));
    let d = block(&id, "nvme0n1");
    assert_eq!(d.transport, Transport::Nvme);
    assert_eq!(d.rotational, Some(false));
    assert_eq!(d.scheduler.as_deref(), Some("none"));
    let hw = d.hardware.as_ref().expect("hardware");
    assert_eq!(hw.model.as_deref(), Some("Samsung SSD 970 EVO Plus 1TB"));
    assert_eq!(hw.serial.as_deref(), Some("S4EWNX0R123456A"));
    assert_eq!(hw.firmware.as_deref(), Some("2B2QEXM7"));
    assert_eq!(hw.wwn.as_deref(), Some("eui.0025385b71b0a1c2"));
    let nvme = hw.nvme.as_ref().expect("nvme");
    assert_eq!(nvme.controller, "nvme0");
    assert_eq!(nvme.transport.as_deref(), Some("pcie"));
    let p = hw.pcie.as_ref().expect("pcie");
    assert_eq!(p.address, "0000:01:00.0");
    assert_eq!((p.generation, p.width), (Some(3), Some(2)));
    assert_eq!((p.max_generation, p.max_width), (Some(3), Some(4)));
    // One link: the root port describes the same link from above.
    assert_eq!(id.links.len(), 1, "{:?}", id.links);
    assert!(approx(
        id.path_ceiling_mb_per_s,
        2.0 * 8000.0 * 128.0 / 130.0 / 8.0
    ));
    assert!(id.notes.iter().any(|n| n.contains("below its maximum")));
}

#[test]
fn nfs_mount_resolves_server_and_interface() {
    let id = id("nfs", &real_file());
    assert_eq!(chain(&id), ["file", "fs:nfs4", "net:nfs"]);
    match &id.layers[2].node {
        Node::Network {
            protocol,
            server,
            address,
            export,
            interface,
        } => {
            assert_eq!(protocol, "nfs");
            assert_eq!(server.as_deref(), Some("nas.lan"));
            assert_eq!(address.as_deref(), Some("192.168.1.10"));
            assert_eq!(export.as_deref(), Some("/export/home"));
            let i = interface.as_ref().expect("interface");
            assert_eq!(i.name, "eth0");
            assert_eq!(i.speed_mbit, Some(1000));
            assert_eq!(i.mtu, Some(1500));
            assert_eq!(i.driver.as_deref(), Some("e1000e"));
            assert!(!i.is_virtual);
        }
        n => panic!("expected the network layer, got {n:?}"),
    }
    assert_eq!(id.links.len(), 1, "{:?}", id.links);
    assert_eq!(id.links[0].kind, "nic");
    assert!(approx(id.path_ceiling_mb_per_s, 117.7));
}

#[test]
fn identity_json_round_trips() {
    let f = fixture("sata_ahci");
    let id = id("sata_ahci", &f.join("dev/loop0"));
    let text = serde_json::to_string(&id).expect("serialize");
    let v: serde_json::Value = serde_json::from_str(&text).expect("json");
    assert_eq!(v["kind"], "block_device");
    assert_eq!(v["layers"][0]["layer"], "block");
    assert_eq!(v["layers"][0]["role"], "loop");
    assert_eq!(v["layers"][1]["layer"], "file");
    assert_eq!(v["layers"][2]["layer"], "filesystem");
    assert_eq!(v["layers"][4]["transport"], "sata");
    assert_eq!(v["path_ceiling_mb_per_s"], 600.0);
    let back: Identity = serde_json::from_str(&text).expect("deserialize");
    assert_eq!(back, id);
}

#[test]
fn missing_target_is_a_clear_error() {
    let opts = Options::default();
    let e = identify_with(
        Path::new("/nonexistent/drivescope-target"),
        &roots("sata_ahci"),
        &opts,
    )
    .expect_err("must fail");
    assert!(format!("{e:#}").contains("/nonexistent/drivescope-target"));
}

#[test]
fn null_target() {
    let id = id("sata_ahci", Path::new("null"));
    assert_eq!(id.kind, TargetKind::Null);
    assert_eq!(id.path_ceiling_mb_per_s, None);
}

#[test]
fn smartctl_json_ata() {
    let s = parse_smartctl_json(
        &std::fs::read_to_string(fixture("smartctl/ata.json")).expect("fixture"),
    );
    assert!(s.read);
    assert_eq!(s.model.as_deref(), Some("ST4000DM004-2CV104"));
    assert_eq!(s.temperature_c, Some(34));
    assert_eq!(s.power_on_hours, Some(21873));
    assert_eq!(s.reallocated_sectors, Some(8));
    assert_eq!(s.pending_sectors, Some(2));
    assert_eq!(s.passed, Some(true));
    assert_eq!(s.rotation_rate_rpm, Some(5425));
    assert_eq!(s.media_errors, None);
}

#[test]
fn smartctl_json_nvme() {
    let s = parse_smartctl_json(
        &std::fs::read_to_string(fixture("smartctl/nvme.json")).expect("fixture"),
    );
    assert!(s.read);
    assert_eq!(s.media_errors, Some(0));
    assert_eq!(s.percentage_used, Some(3));
    assert_eq!(s.temperature_c, Some(41));
    assert_eq!(s.power_on_hours, Some(5120));
    assert_eq!(s.reallocated_sectors, None);
}

#[test]
fn smartctl_json_open_failure() {
    let s = parse_smartctl_json(
        &std::fs::read_to_string(fixture("smartctl/open_failed.json")).expect("fixture"),
    );
    assert!(!s.read);
    assert!(s
        .note
        .as_deref()
        .is_some_and(|n| n.contains("No such device")));
    let s = parse_smartctl_json("not json");
    assert!(!s.read && s.note.is_some());
}

#[test]
fn spare_disks_holders_read_only_and_swap() {
    let f = fixture("spare_disks");
    let r = roots("spare_disks");
    let vdb = id("spare_disks", &f.join("dev/vdb"));
    let b = block(&vdb, "vdb");
    assert_eq!(b.transport, Transport::Virtio);
    assert_eq!(b.size_bytes, Some(2 << 30));
    assert_eq!(b.major_minor.as_deref(), Some("254:16"));
    assert!(b.holders.is_empty() && b.mount_points.is_empty());
    assert_eq!(b.read_only, Some(false));
    let hw = b.hardware.as_ref().expect("hardware");
    assert_eq!(hw.serial.as_deref(), Some("SPARE0001"));
    assert_eq!(hw.model, None);

    let vdc = id("spare_disks", &f.join("dev/vdc"));
    assert_eq!(block(&vdc, "vdc").holders, ["md0"]);
    let md0 = id("spare_disks", &f.join("dev/md0"));
    assert_eq!(chain(&md0), ["block:md0", "block:vdc"]);
    let vdd = id("spare_disks", &f.join("dev/vdd"));
    assert_eq!(block(&vdd, "vdd").read_only, Some(true));

    // The partitions of a whole device, each read as a block device is.
    let vde = id("spare_disks", &f.join("dev/vde"));
    assert_eq!(block(&vde, "vde").partitions, ["vde1"]);
    let parts = target_partitions(&vde, &r).expect("partitions");
    assert_eq!(parts.len(), 1);
    assert_eq!(parts[0].name, "vde1");
    assert_eq!(parts[0].role, BlockRole::Partition);
    assert_eq!(parts[0].major_minor.as_deref(), Some("254:65"));
    assert!(target_partitions(&vdb, &r).unwrap().is_empty());
    // sda's partition carries the root mount.
    let sda = id("sata_ahci", &fixture("sata_ahci").join("dev/sda"));
    let parts = target_partitions(&sda, &roots("sata_ahci")).expect("partitions");
    assert_eq!(parts[0].mount_points, [PathBuf::from("/")]);

    // /proc/swaps names /dev/vde1: found under the fixture's device root, not the live /dev.
    assert_eq!(swap_devices(&r), ["vde1"]);
    assert!(swap_devices(&roots("sata_ahci")).is_empty());
    assert_eq!(
        kernel_name(Path::new("/dev/vdb"), &r).as_deref(),
        Some("vdb")
    );
    assert_eq!(kernel_name(Path::new("/dev/nope"), &r), None);
}

fn smartctl(name: &str) -> drivescope_probe::Smart {
    let path = fixture(&format!("smartctl/{name}"));
    parse_smartctl_json(&std::fs::read_to_string(&path).expect("fixture"))
}

#[test]
fn smartctl_json_of_a_failing_ata_drive() {
    let s = smartctl("ata_failing.json");
    assert!(s.read);
    assert_eq!(s.model.as_deref(), Some("Hitachi HDS721050DLE630"));
    assert_eq!(s.passed, Some(false));
    assert_eq!(s.reallocated_sectors, Some(1975));
    assert_eq!(s.pending_sectors, Some(8));
    assert_eq!(s.offline_uncorrectable, Some(0));
    assert_eq!(s.crc_errors, Some(0));
    assert_eq!(s.power_on_hours, Some(65592));
    assert_eq!(s.temperature_c, Some(25));
    assert_eq!((s.media_errors, s.critical_warning), (None, None));
}

#[test]
fn smartctl_json_attributes_only_take_the_printed_count() {
    let s = smartctl("ata_attributes.json");
    // No health status nor identity in `-A` output, but the counters are read.
    assert!(s.read);
    assert_eq!((s.passed, s.model.as_deref()), (None, None));
    assert_eq!(s.reallocated_sectors, Some(0));
    assert_eq!(s.pending_sectors, Some(0));
    assert_eq!(s.offline_uncorrectable, Some(0));
    assert_eq!(s.crc_errors, Some(0));
    assert_eq!(s.temperature_c, Some(29));
}

#[test]
fn smartctl_json_of_nvme_drives() {
    let s = smartctl("nvme_media_errors.json");
    assert!(s.read);
    assert_eq!(s.model.as_deref(), Some("Samsung SSD 970 EVO 500GB"));
    assert_eq!(s.media_errors, Some(7));
    assert_eq!(s.critical_warning, Some(0));
    assert_eq!(s.percentage_used, Some(3));
    assert_eq!((s.pending_sectors, s.crc_errors), (None, None));
    let s = smartctl("nvme_healthy.json");
    assert_eq!((s.media_errors, s.critical_warning), (Some(0), Some(0)));
    assert_eq!(s.power_on_hours, Some(6487));
}

#[test]
fn smartctl_json_of_a_loop_device_says_why() {
    let s = smartctl("loop_device.json");
    assert!(!s.read);
    assert_eq!(
        s.note.as_deref(),
        Some("/dev/loop0: Unable to detect device type")
    );
}

#[test]
fn smart_of_documents_without_the_newer_counters() {
    // A `smart` object as versions before the CRC, offline-uncorrectable and critical-warning counters wrote it.
    let old = r#"{"read": true, "note": null, "model": "M", "serial": null, "firmware": null,
        "rotation_rate_rpm": 0, "passed": true, "temperature_c": 30, "power_on_hours": 10,
        "reallocated_sectors": 1, "pending_sectors": 0, "media_errors": null, "percentage_used": null}"#;
    let s: drivescope_probe::Smart = serde_json::from_str(old).expect("older smart object");
    assert_eq!(s.reallocated_sectors, Some(1));
    assert_eq!(
        (s.crc_errors, s.offline_uncorrectable, s.critical_warning),
        (None, None, None)
    );
}

#[test]
fn smart_source_follows_block_devices_only() {
    use drivescope_probe::smart_drive::{source, Source};
    // A partition's drive is its disk; the identity's own reading comes with it.
    let f = fixture("sata_ahci");
    let part = id("sata_ahci", &f.join("dev/sda1"));
    match source(&part) {
        Source::Drive { node, reading } => {
            assert!(node.ends_with("dev/sda"), "{}", node.display());
            assert!(reading.is_some_and(|r| !r.read));
        }
        other => panic!("{other:?}"),
    }
    // A loop device has no drive of its own, though its backing file lies on one.
    let lo = id("sata_ahci", &f.join("dev/loop0"));
    assert!(
        lo.devices().count() > 0,
        "the backing file lies on a drive: {lo:#?}"
    );
    match source(&lo) {
        Source::Virtual { node } => assert!(node.ends_with("dev/loop0"), "{}", node.display()),
        other => panic!("{other:?}"),
    }
    // A file is no drive.
    let file = id("sata_ahci", &real_file());
    assert_eq!(source(&file), Source::NotBlock);
}
