//! The rate line says which mean it gives: the wall clock's, with the reads' rate without the time errors took
//! beside it (a full scan that met errors), or with the moves between regions in it (a quick scan).

use super::print_scan;
use crate::sample;
use drivescope_record::Direction;

fn text(r: &drivescope_record::ScanRecord) -> String {
    let mut out = Vec::new();
    print_scan(r, &mut out).unwrap();
    String::from_utf8(out).unwrap()
}

#[test]
fn the_rate_line_names_its_mean_and_gives_the_rate_without_errors_beside_it() {
    let mut r = sample::scan(3, 1 << 30, 100, 0, 1, Direction::Read);
    r.mb_per_s.mean = 89.8;
    r.mb_per_s.without_errors = Some(124.1);
    r.mb_per_s.error_ns = Some(800_000_000);
    let t = text(&r);
    assert!(
        t.contains("\n  rate      mean 89.8 MB/s over the wall clock (124.1 MB/s without the 800.00 ms spent on errors), min "),
        "{t}"
    );
    let q = sample::quick_scan(3, 1 << 30, 256);
    assert!(
        text(&q).contains("over the wall clock (the moves between regions included), min "),
        "{}",
        text(&q)
    );
}
