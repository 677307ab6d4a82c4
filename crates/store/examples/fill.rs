//! Fills a store with many runs for the browser's benchmark (bench/serve_runs_page.py): each run a
//! copy of a real run's document (as `drivescope export RUN --format json` writes it), one minute
//! apart, on one of twenty targets and five hosts.
//!
//! Usage: cargo run --release -p drivescope-store --example fill -- STORE DOCUMENT.json COUNT

use drivescope_record::Document;
use drivescope_store::Store;

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let [store, doc, count] = &args[..] else {
        return Err("usage: fill STORE DOCUMENT.json COUNT".into());
    };
    let value: serde_json::Value = serde_json::from_str(&std::fs::read_to_string(doc)?)?;
    let seed = Document::from_value(value)?;
    let count: u64 = count.parse()?;
    let mut store = Store::open(store.as_str())?;
    let t0 = std::time::UNIX_EPOCH + std::time::Duration::from_secs(1_750_000_000);
    for i in 0..count {
        let mut d = seed.clone();
        let h = d.header_mut().ok_or("a document without a header")?;
        let at = t0 + std::time::Duration::from_secs(60 * i);
        h.started_at = humantime::format_rfc3339_seconds(at).to_string();
        h.ended_at = h.started_at.clone();
        h.host = format!("host{}", i % 5);
        h.target.path = format!("/dev/disk/by-id/drive-{:02}", i % 20);
        store.save(&d)?;
    }
    eprintln!("fill: {count} runs saved");
    Ok(())
}
