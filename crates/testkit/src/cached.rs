//! A stored diagnosis that found a read cache, placed on a test's own loop device, and the read
//! bench it speaks for: the document is a real run's (a lab raid-cache disk,
//! crates/analysis/tests/fixtures/diagnose-raid-cache.json).

use super::scratch::run;
use drivescope_record::Document;

const FIXTURE: &str = include_str!("../../analysis/tests/fixtures/diagnose-raid-cache.json");

/// The fixture as if it had run on `dev` over `backing`: every name of its loop device is
/// `dev`'s, the backing file the one given.
pub fn diagnosis_on(dev: &str, backing: &str) -> Document {
    let name = dev.trim_start_matches("/dev/");
    let text = FIXTURE
        .replace("/dev/loop0", dev)
        .replace("\"loop0\"", &format!("\"{name}\""))
        .replace("/tmp/lab-raid-cache/disk.img", backing);
    serde_json::from_str(&text).expect("the fixture reads as a document")
}

/// The text of a read bench of 32 MiB (inside the fixture's ~69 MiB cache) on `dev`, with `store`.
pub fn bench_text(dev: &str, store: &str) -> String {
    let (code, out, err) = run(&[
        "bench",
        dev,
        "--rw",
        "read",
        "--test",
        "SEQ1M Q1T1",
        "--runs",
        "1",
        "--duration",
        "200ms",
        "--size",
        "32M",
        "--store",
        store,
    ]);
    assert_eq!(code, 0, "stderr: {err}");
    out
}
