//! A run as text for a terminal (`drivescope show`): identity, parameters, results, bands, slow and failed.

use crate::doc::{num_at, str_at, Run};
use crate::format::{bytes, duration, thousands};
use crate::metrics;
use std::fmt::Write;

/// How many slow or failed commands `show` lists before it says how many more there are.
pub const LIST_MAX: usize = 20;

pub fn show(run: &Run) -> String {
    let d = &run.doc;
    let mut o = String::new();
    let _ = writeln!(o, "{} · {} · {}", run.label(), run.kind(), run.device());
    let mut id = Vec::new();
    if let Some(f) = str_at(d, &["device", "firmware"]) {
        id.push(format!("firmware {f}"));
    }
    if let Some(c) = num_at(d, &["device", "capacity"]) {
        id.push(bytes(c));
    }
    if let Some(t) = str_at(d, &["device", "transport"]) {
        id.push(t.to_string());
    }
    if !id.is_empty() {
        let _ = writeln!(o, "  device   {}", id.join(", "));
    }
    if let Some(p) = str_at(d, &["target", "path"]) {
        let size = num_at(d, &["target", "size"])
            .map(|s| format!(" ({})", bytes(s)))
            .unwrap_or_default();
        let _ = writeln!(o, "  target   {p}{size}");
    }
    let when = format!(
        "{} → {}",
        str_at(d, &["started_at"]).unwrap_or("?"),
        str_at(d, &["ended_at"]).unwrap_or("?")
    );
    let _ = writeln!(
        o,
        "  run      {when} on {} (drivescope {})",
        str_at(d, &["host"]).unwrap_or("?"),
        str_at(d, &["tool", "version"]).unwrap_or("?")
    );
    let params = crate::page::params(d);
    if !params.is_empty() {
        let p: Vec<String> = params.iter().map(|(k, v)| format!("{k}={v}")).collect();
        let _ = writeln!(o, "  params   {}", p.join(" "));
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
    for (key, title) in [("slow", "slow commands"), ("failed", "failed commands")] {
        let list = run.array(key);
        let total = num_at(d, &[&format!("{key}_total")]).unwrap_or(list.len() as f64) as usize;
        if list.is_empty() {
            continue;
        }
        let _ = writeln!(o, "\n  {title} ({total}):");
        for e in list.iter().take(LIST_MAX) {
            let errno = num_at(e, &["errno"])
                .map(|x| format!("  errno {x}"))
                .unwrap_or_default();
            let _ = writeln!(
                o,
                "    LBA {:>14}  offset {:>18}  {:>10}{errno}",
                num_at(e, &["lba"]).map_or("?".into(), |v| format!("{v}")),
                num_at(e, &["offset"]).map_or("?".into(), |v| format!("{v}")),
                num_at(e, &["latency_ns"]).map_or("?".into(), duration)
            );
        }
        if total > LIST_MAX {
            let _ = writeln!(
                o,
                "    … {} more (drivescope export RUN --format csv --table {key})",
                thousands((total - LIST_MAX) as f64)
            );
        }
    }
    o
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::sample;

    #[test]
    fn shows_identity_results_and_lists() {
        let run = Run::new(Some(4), sample::scan(2, 1 << 30, 100, 30, 2, "read"));
        let t = show(&run);
        assert!(t.starts_with("run 4 · scan · ACME HD"), "{t}");
        assert!(t.contains("Rate read mean"));
        assert!(
            t.contains("slow commands (30)") && t.contains("… 10 more"),
            "{t}"
        );
        assert!(t.contains("errno 5"));
        assert!(t.contains("block_size=65536"));
    }
}
