//! Writes a demo report of sample runs: `cargo run -p drivescope-report --example demo -- OUT_DIR`.

use drivescope_record::{Direction, Document};
use drivescope_report::{html, png, sample, Run};

fn main() {
    let dir = std::path::PathBuf::from(
        std::env::args()
            .nth(1)
            .unwrap_or_else(|| "demo-report".into()),
    );
    let docs: Vec<Document> = vec![
        sample::scan(1, 1 << 40, 1000, 200, 3, Direction::Read).into(),
        sample::scan(1, 1 << 40, 1000, 20, 0, Direction::Write).into(),
        sample::scan(2, 1 << 40, 1000, 5, 0, Direction::Read).into(),
        sample::quick_scan(3, 1 << 40, 256).into(),
        sample::bench(4).into(),
        sample::bench(5).into(),
        sample::sweep(6).into(),
        sample::soak(7, 600).into(),
    ];
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
