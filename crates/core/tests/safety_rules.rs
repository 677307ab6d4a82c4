//! The write gate's rules on the probe's sysfs fixture trees: the state is read through the
//! probe as on a live system (under fixture Roots), and `check` refuses or approves.
//! Facts a fixture tree cannot hold (the device's first sectors, the file systems of `/` and
//! of the results store on this machine) are set on the state read.

use drivescope_core::safety::{check, DeviceName, DeviceState, Refusal, Signature, WriteRequest};
use drivescope_probe::Roots;
use std::path::{Path, PathBuf};

fn fixture(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../probe/tests/fixtures")
        .join(name)
}

/// The state of `dev` (a node of fixture `fix`) as the gate reads it; the device's first
/// sectors are taken to be blank.
fn state(fix: &str, dev: &str) -> DeviceState {
    let spec = fixture(fix).join("dev").join(dev);
    let mut s = DeviceState::read(
        spec.to_str().unwrap(),
        &Roots::under(&fixture(fix)),
        &WriteRequest::default(),
    )
    .unwrap_or_else(|e| panic!("{fix}/{dev}: {e}"));
    assert_eq!(s.signature, Signature::NotRead, "a fixture has no sectors");
    s.signature = Signature::Clean;
    s
}

/// `--destructive --confirm CONFIRM`.
fn confirmed(confirm: &str) -> WriteRequest {
    WriteRequest {
        destructive: true,
        confirm: Some(confirm.into()),
        ..WriteRequest::default()
    }
}

fn forced(confirm: &str) -> WriteRequest {
    WriteRequest {
        force: true,
        ..confirmed(confirm)
    }
}

#[test]
fn a_free_device_with_the_confirmation_is_approved() {
    // loop0: 1 GiB, no serial, no model: its kernel name and size.
    let s = state("sata_ahci", "loop0");
    let ok = check(&s, &confirmed("loop0 1.0 GiB")).expect("approved");
    assert_eq!(ok.dev(), (7, 0));
    assert_eq!(ok.size(), 1 << 30);
    assert_eq!(ok.path(), fixture("sata_ahci").join("dev/loop0"));
    for spelling in [
        "loop0 1 GiB",
        "loop0 1.00 GiB",
        "loop0 1GiB",
        "LOOP0 1.0 gib",
    ] {
        assert!(check(&s, &confirmed(spelling)).is_ok(), "{spelling}");
    }
}

#[test]
fn without_destructive_or_confirmation_it_is_refused() {
    let s = state("sata_ahci", "loop0");
    let no_flag = WriteRequest {
        confirm: Some("loop0 1.0 GiB".into()),
        ..WriteRequest::default()
    };
    assert!(matches!(
        check(&s, &no_flag),
        Err(Refusal::NotDestructive(_))
    ));
    let unconfirmed = WriteRequest {
        destructive: true,
        ..WriteRequest::default()
    };
    match check(&s, &unconfirmed) {
        Err(r @ Refusal::NotConfirmed { .. }) => {
            let line = r.to_string();
            assert!(
                line.contains("confirm with --confirm \"loop0 1.0 GiB\""),
                "{line}"
            );
            assert!(line.contains("loop0, no serial, 1.0 GiB"), "{line}");
        }
        r => panic!("{r:?}"),
    }
    for wrong in ["loop0 2 GiB", "loop1 1.0 GiB", "loop0", "ZFN0ABCD", ""] {
        match check(&s, &confirmed(wrong)) {
            Err(r @ Refusal::WrongConfirmation { .. }) => {
                assert!(r.to_string().contains("does not name this device"))
            }
            r => panic!("{wrong:?}: {r:?}"),
        }
    }
}

#[test]
fn a_device_with_a_serial_takes_its_serial() {
    // vdb: a free virtio disk with a serial.
    let s = state("spare_disks", "vdb");
    assert!(check(&s, &confirmed("SPARE0001")).is_ok());
    assert!(check(&s, &confirmed("spare0001 2.0 GiB")).is_ok());
    assert!(matches!(
        check(&s, &confirmed("vdb 2.0 GiB")),
        Err(Refusal::WrongConfirmation { .. })
    ));
}

#[test]
fn a_mounted_partition_refuses_its_disk_even_with_force() {
    // sda1 holds / in the fixture's mountinfo.
    let s = state("sata_ahci", "sda");
    assert_eq!(s.partitions.len(), 1);
    let r = check(&s, &forced("ZFN0ABCD")).unwrap_err();
    assert_eq!(
        r,
        Refusal::Mounted {
            dev: s.spec.clone(),
            what: "its partition sda1".into(),
            at: "/".into(),
        }
    );
    assert!(r.to_string().contains("is mounted on /"));
    // the partition itself, confirmed by its disk's serial
    let p = state("sata_ahci", "sda1");
    match check(&p, &forced("ZFN0ABCD")) {
        Err(Refusal::Mounted { what, .. }) => assert_eq!(what, "the device"),
        r => panic!("{r:?}"),
    }
    // nvme: the same through another transport
    let n = state("nvme", "nvme0n1");
    assert!(matches!(
        check(&n, &forced("S4EWNX0R123456A")),
        Err(Refusal::Mounted { .. })
    ));
}

#[test]
fn swap_holders_and_read_only_are_refused_even_with_force() {
    let vde = state("spare_disks", "vde");
    assert_eq!(vde.swap, ["vde1"]);
    assert_eq!(
        check(&vde, &forced("vde 2.0 GiB")),
        Err(Refusal::Swap {
            dev: vde.spec.clone(),
            what: "its partition vde1".into()
        })
    );
    let vdc = state("spare_disks", "vdc");
    match check(&vdc, &forced("vdc 2.0 GiB")) {
        Err(r @ Refusal::Held { .. }) => {
            assert!(r.to_string().contains("the device is held by md0"), "{r}")
        }
        r => panic!("{r:?}"),
    }
    let vdd = state("spare_disks", "vdd");
    assert!(matches!(
        check(&vdd, &forced("vdd 2.0 GiB")),
        Err(Refusal::ReadOnly(_))
    ));
}

#[test]
fn root_and_protected_file_systems_are_refused() {
    let mut s = state("spare_disks", "vdb");
    s.root = Some("254:16".into());
    assert!(matches!(
        check(&s, &forced("SPARE0001")),
        Err(Refusal::Root { .. })
    ));
    s.root = Some("8:1".into());
    s.protected = vec![(PathBuf::from("/srv/runs.sqlite"), "254:16".into())];
    match check(&s, &forced("SPARE0001")) {
        Err(r @ Refusal::Protected { .. }) => {
            assert!(r.to_string().contains("holds /srv/runs.sqlite"), "{r}")
        }
        r => panic!("{r:?}"),
    }
    s.protected[0].1 = "254:17".into();
    assert!(check(&s, &forced("SPARE0001")).is_ok());
}

#[test]
fn a_signature_needs_force() {
    let mut s = state("sata_ahci", "loop0");
    s.signature = Signature::Found {
        what: "an ext2/3/4 file system".into(),
        offset: 1080,
    };
    match check(&s, &confirmed("loop0 1.0 GiB")) {
        Err(r @ Refusal::Signature { .. }) => {
            assert!(r.to_string().contains("ext2/3/4 file system"), "{r}");
            assert!(r.to_string().contains("--force"), "{r}");
        }
        r => panic!("{r:?}"),
    }
    assert!(check(&s, &forced("loop0 1.0 GiB")).is_ok());
    // sectors that were not read, or could not be, are no proof of a blank device
    s.signature = Signature::NotRead;
    assert!(matches!(
        check(&s, &confirmed("loop0 1.0 GiB")),
        Err(Refusal::Other { .. })
    ));
    s.signature = Signature::Unreadable("reading its first sectors: EIO".into());
    assert!(matches!(
        check(&s, &confirmed("loop0 1.0 GiB")),
        Err(Refusal::Other { .. })
    ));
}

#[test]
fn files_and_directories_are_no_block_devices() {
    let roots = Roots::under(&fixture("sata_ahci"));
    let file = Path::new(env!("CARGO_MANIFEST_DIR")).join("Cargo.toml");
    for spec in [file.as_path(), Path::new(env!("CARGO_MANIFEST_DIR"))] {
        let mut s = DeviceState::read(spec.to_str().unwrap(), &roots, &WriteRequest::default())
            .expect("read");
        s.signature = Signature::Clean;
        assert_eq!(
            check(&s, &forced("x")),
            Err(Refusal::NotBlockDevice(spec.display().to_string()))
        );
    }
    assert!(matches!(
        DeviceState::read("/nonexistent/dev", &roots, &WriteRequest::default()),
        Err(Refusal::Other { .. })
    ));
}

#[test]
fn the_name_comes_from_the_device_and_the_block_devices_under_it() {
    let name = |fix: &str, dev: &str| DeviceName::of(&state(fix, dev).identity).expect("name");
    // a partition is named by its disk's serial
    let sda1 = name("sata_ahci", "sda1");
    assert_eq!(sda1.serial.as_deref(), Some("ZFN0ABCD"));
    assert_eq!(sda1.size, 7814033408 * 512);
    // loop0's backing file is on sda, but writing loop0 writes the file, not sda: loop0 is
    // named by its own kernel name and size
    let loop0 = name("sata_ahci", "loop0");
    assert_eq!(loop0.confirmation(), "loop0 1.0 GiB");
    // an md array by a member's serial, when it has one; else by its own name
    let md0 = name("spare_disks", "md0");
    assert_eq!(md0.serial, None);
    assert_eq!(md0.model, "md0");
    assert_eq!(name("spare_disks", "vdb").confirmation(), "SPARE0001");
}
