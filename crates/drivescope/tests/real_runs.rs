//! What `runs`, `show`, `compare`, `export` and `report` show for runs made on real devices: the device the run
//! was made on (its model, serial or kernel name, as `drivescope info` reads it) and whether it read or wrote.
//! The write scan needs root (a loop device); it fails loudly without it.

use common::typed::{document, listed_runs};
use common::*;
use drivescope_record::{DeviceSummary, Document, InfoRecord};
use drivescope_testkit as common;
use std::path::{Path, PathBuf};

fn ok(args: &[&str]) -> String {
    let out = drivescope(args);
    let (o, e) = (
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    );
    assert!(out.status.success(), "{args:?}: {:?}\n{o}\n{e}", out.status);
    o
}

fn fresh_dir(name: &str) -> PathBuf {
    // Under the build directory, so on the disk the workspace lives on (not a tmpfs /tmp).
    let d = Path::new(env!("CARGO_TARGET_TMPDIR"))
        .join(format!("real-runs-{}-{name}", std::process::id()));
    let _ = std::fs::remove_dir_all(&d);
    std::fs::create_dir_all(&d).unwrap();
    d
}

/// The device under `path` as `drivescope info --json` describes it.
fn device_of(path: &str) -> DeviceSummary {
    let info: InfoRecord = match document(ok(&["info", path, "--json"]).as_bytes()) {
        Document::Info(info) => *info,
        other => panic!("info printed a {:?} document", other.kind()),
    };
    DeviceSummary::of(&info.identity.expect("info names the target's identity"))
}

#[test]
fn a_scan_of_a_file_is_listed_and_reported_with_its_disk() {
    let d = fresh_dir("file");
    let file = d.join("scan-me.bin");
    let block: Vec<u8> = (0..1u64 << 20)
        .map(|i| (i.wrapping_mul(2_654_435_761) >> 13) as u8)
        .collect();
    std::fs::write(&file, block.repeat(16)).unwrap();
    let (file, store) = (
        file.to_str().unwrap(),
        d.join("runs.sqlite").to_str().unwrap().to_string(),
    );
    let disk = device_of(file);
    let label = disk
        .label()
        .expect("the workspace lives on a block device with a name at least");
    assert!(disk.transport.is_some(), "{disk:?}");

    ok(&["scan", file, "--quiet", "--store", &store]);

    let runs = ok(&["runs", "--store", &store]);
    assert!(runs.contains(&label), "runs names {label}:\n{runs}");
    let listed = listed_runs(&["--store", &store]);
    let dev = &listed[0].device;
    assert_eq!(dev.serial, disk.serial, "{listed:?}");
    assert_eq!(dev.model, disk.model, "{listed:?}");
    assert_eq!(dev.name, disk.name, "{listed:?}");
    assert_eq!(dev.transport, disk.transport);
    assert_eq!(dev.capacity, disk.capacity);
    // The serial (or, without one, the kernel name) finds the run.
    let key = disk.serial.clone().or(disk.name.clone()).unwrap();
    let found = ok(&["runs", "--device", &key, "--store", &store]);
    assert_eq!(found.lines().count(), 2, "header and run 1:\n{found}");

    let show = ok(&["show", "1", "--store", &store]);
    assert!(show.contains(&format!("run 1 · scan · {label}")), "{show}");
    let md = ok(&["export", "1", "--format", "md", "--store", &store]);
    if let Some(serial) = &disk.serial {
        assert!(md.contains(&format!("- **Serial:** {serial}")), "{md}");
    }
    let html = d.join("report.html");
    ok(&[
        "report",
        "1",
        "-o",
        html.to_str().unwrap(),
        "--store",
        &store,
    ]);
    let page = std::fs::read_to_string(&html).unwrap();
    assert!(
        page.contains(&format!("run 1 read · {label}")),
        "legend names the disk"
    );

    // A table the run does not have is said to be missing, naming the tables it has.
    let out = drivescope(&[
        "export", "1", "--format", "csv", "--table", "nope", "--store", &store,
    ]);
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(1), "{err}");
    assert!(err.contains("no table \"nope\" in this scan run"), "{err}");
    assert!(err.contains("curve") && !err.contains("png"), "{err}");
    let _ = std::fs::remove_dir_all(&d);
}

#[test]
fn a_write_scan_compares_and_draws_as_a_write() {
    if skip_without_root("creates loop devices") {
        return;
    }
    let dev = TmpfsLoop::new(16 << 20);
    let path = dev.path().to_str().unwrap().to_string();
    let name = dev
        .path()
        .file_name()
        .unwrap()
        .to_string_lossy()
        .into_owned();
    let confirm = format!("{name} 16.0 MiB");
    let d = fresh_dir("write");
    let store = d.join("runs.sqlite").to_str().unwrap().to_string();
    let base = ["--quiet", "--store", &store];
    let write = [
        "scan",
        &path,
        "--write",
        "--destructive",
        "--confirm",
        &confirm,
    ];
    ok(&[&write[..], &base[..]].concat());
    ok(&[&["scan", &path][..], &base[..]].concat());

    let stored = drivescope_store::Store::open(&store).unwrap();
    let Document::Scan(w) = stored.get(drivescope_store::RunId(1)).unwrap() else {
        panic!("run 1 is a scan");
    };
    assert!(w.write && w.header.device.is_some());

    // The write scan's numbers sit in write rows, the read scan's in read rows.
    let md = ok(&["compare", "1", "2", "--format", "md", "--store", &store]);
    let row = |label: &str| {
        md.lines()
            .find(|l| l.starts_with(&format!("| {label} |")))
            .unwrap_or_else(|| panic!("no row {label}:\n{md}"))
            .to_string()
    };
    let (w_row, r_row) = (row("Rate write mean"), row("Rate read mean"));
    let (w, r): (Vec<&str>, Vec<&str>) = (
        w_row.split('|').map(str::trim).collect(),
        r_row.split('|').map(str::trim).collect(),
    );
    assert!(w[2] != "—" && w[3] == "—", "{md}");
    assert!(r[2] == "—" && r[3] != "—", "{md}");

    // In the report the write curve is the dashed one, and its legend says so.
    let html = d.join("report.html");
    ok(&[
        &["report", "1", "2", "-o", html.to_str().unwrap()][..],
        &base[1..],
    ]
    .concat());
    let page = std::fs::read_to_string(&html).unwrap();
    assert!(
        page.contains(&format!("run 1 write · {name}")),
        "write legend"
    );
    assert!(
        page.contains(&format!("run 2 read · {name}")),
        "read legend"
    );
    let curve = page
        .split("id=\"chart-curve\"")
        .nth(1)
        .expect("a curve chart");
    let curve = &curve[..curve.find("</svg>").unwrap()];
    assert_eq!(
        curve.matches("stroke-dasharray=\"6 3\"").count(),
        2,
        "the write's line and its legend entry are dashed, nothing else"
    );
    drop(dev);
    let _ = std::fs::remove_dir_all(&d);
}
