//! The surface line of a scan stopped before its end: what it never reached is untried, and the percentages are
//! of the range (also for documents written before `unreached` was kept).

use super::print_scan;
use crate::sample;
use drivescope_record::{Direction, Surface};

fn text(r: &drivescope_record::ScanRecord) -> String {
    let mut out = Vec::new();
    print_scan(r, &mut out).unwrap();
    String::from_utf8(out).unwrap()
}

#[test]
fn a_stopped_scan_says_what_it_never_reached() {
    const GIB: u64 = 1 << 30;
    let mut r = sample::scan(3, 4 * GIB, 100, 0, 0, Direction::Read);
    r.interrupted = true;
    r.covered = 1331 << 20;
    r.bytes = r.covered - (64 << 10);
    let now = Surface {
        good: r.bytes,
        untried: (64 << 10) + (4 * GIB - r.covered),
        unreached: 4 * GIB - r.covered,
        ..Surface::default()
    };
    // A document that left the unreached part out of `untried`.
    let older = Surface {
        untried: 64 << 10,
        unreached: 0,
        ..now.clone()
    };
    for s in [now, older] {
        r.surface = Some(s);
        let t = text(&r);
        assert!(
            t.contains("\n  surface   readable 1.3 GiB (32.49 %), unreadable 0 B (0.00 %), untried 2.7 GiB (67.51 %), 2.7 GiB of it never reached (the scan stopped first)\n"),
            "{t}"
        );
    }
}
