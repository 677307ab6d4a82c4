//! Writes a demo report of sample runs: `cargo run -p drivescope-report --example demo -- OUT_DIR`.

use drivescope_report::{html, png, sample, Run};

fn main() {
    let dir = std::path::PathBuf::from(
        std::env::args()
            .nth(1)
            .unwrap_or_else(|| "demo-report".into()),
    );
    let docs = sample::gallery();
    let runs: Vec<Run> = docs
        .into_iter()
        .enumerate()
        .map(|(i, d)| Run::new(Some(i as i64 + 1), d))
        .collect();
    let (html, charts) = html::render(&runs, "drivescope demo report").expect("render");
    std::fs::create_dir_all(&dir).expect("create output directory");
    std::fs::write(dir.join("report.html"), html).expect("write report");
    for p in png::write_all(&charts, &dir).expect("png") {
        println!("{}", p.display());
    }
}
