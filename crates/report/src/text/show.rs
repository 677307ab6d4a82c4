//! Any run as generic text for a terminal (`drivescope show` of a kind without its own summary): identity,
//! parameters, results, bands, a scan's slow regions and failed extents.

use super::extents::{self, Hint};
use crate::doc::{Run, LIST_MAX};
use crate::format::bytes;
use crate::metrics;
use drivescope_record::Document;
use std::fmt::Write;

/// The generic text of a run.
pub fn show(run: &Run) -> String {
    let mut o = String::new();
    let _ = writeln!(o, "{} · {} · {}", run.label(), run.kind(), run.device());
    let d = run.device_summary();
    let mut id = Vec::new();
    if let Some(f) = &d.firmware {
        id.push(format!("firmware {f}"));
    }
    if let Some(c) = d.capacity {
        id.push(bytes(c as f64));
    }
    if let Some(t) = &d.transport {
        id.push(t.clone());
    }
    if !id.is_empty() {
        let _ = writeln!(o, "  device   {}", id.join(", "));
    }
    if let Some(h) = run.header() {
        let _ = writeln!(
            o,
            "  target   {} ({})",
            h.target.path,
            bytes(h.target.size as f64)
        );
        let _ = writeln!(
            o,
            "  run      {} → {} on {} (drivescope {})",
            h.started_at, h.ended_at, h.host, h.tool.version
        );
    }
    let params = crate::params::of(&run.doc);
    if !params.is_empty() {
        let _ = writeln!(o, "  params   {}", crate::params::line(&params));
    }
    let ms = metrics::of(run);
    let w = ms
        .iter()
        .map(|m| m.label.chars().count())
        .max()
        .unwrap_or(0);
    if !ms.is_empty() {
        o.push('\n');
    }
    for m in &ms {
        let _ = writeln!(o, "  {:w$}  {}", m.label, m.unit.format(m.value));
    }
    if let Document::Scan(r) = &run.doc {
        for (head, lines) in [
            extents::slow(r, LIST_MAX, Hint::Export),
            extents::failed(r, LIST_MAX, Hint::Export),
            extents::untried(r, LIST_MAX, Hint::Export),
        ] {
            if lines.is_empty() {
                continue;
            }
            let _ = writeln!(o, "\n  {head}");
            for l in lines {
                let _ = writeln!(o, "    {l}");
            }
        }
    }
    o
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::sample;
    use drivescope_record::Direction;

    #[test]
    fn shows_identity_results_and_lists() {
        let run = Run::new(
            Some(4),
            sample::scan(2, 1 << 30, 100, 30, 2, Direction::Read),
        );
        let t = show(&run);
        assert!(t.starts_with("run 4 · scan · ACME HD"), "{t}");
        assert!(t.contains("Rate read mean"));
        assert!(
            t.contains("\n  slow (>= 50.00 ms): 30 commands in 30 regions\n"),
            "{t}"
        );
        assert!(
            t.contains(
                "\n    … 10 more regions (drivescope export RUN --format csv --table slow_regions)\n"
            ),
            "{t}"
        );
        assert!(t.contains("\n  failed: 2 sectors in 2 extents\n"), "{t}");
        assert_eq!(t.matches("  errno 5  1 sector\n").count(), 2, "{t}");
        assert!(t.contains("block size 64.0 KiB"), "{t}");
    }
}
