//! A traced run's I/O fingerprint as `drivescope time --trace` prints it: one line on the run, one table
//! row per request class (the classes that took most of the device's time first), and the flushes,
//! queue depth and think time under it. The
//! sentence of what bounds it is the record's finding, printed with the others.

use crate::format::{bytes, duration};
use drivescope_record::Fingerprint;
use std::io::Write;

/// Rows shown at least, when there are more; more rows follow while what is left holds a
/// share that matters.
const ROWS: usize = 6;

/// The largest share of the device's time, the bytes or the requests that the classes left
/// out may hold together: past [`ROWS`], rows go on until the rest is under it on all three.
const REST: f64 = 0.05;

/// The device's time a class took: its requests times their mean service time.
fn time_of(c: &drivescope_record::IoClass) -> f64 {
    c.requests as f64 * c.service_ns_mean
}

/// The classes in the order shown, the ones that took most of the device's time first (a few
/// large requests can take more of it than many small ones), and how many get rows of their own.
fn shown(f: &Fingerprint) -> (Vec<&drivescope_record::IoClass>, usize) {
    let mut order: Vec<&drivescope_record::IoClass> = f.classes.iter().collect();
    order.sort_by(|a, b| {
        time_of(b)
            .total_cmp(&time_of(a))
            .then(b.bytes.cmp(&a.bytes))
            .then(b.requests.cmp(&a.requests))
    });
    let total = |g: &dyn Fn(&drivescope_record::IoClass) -> f64| -> f64 {
        f.classes.iter().map(g).sum::<f64>()
    };
    let (time, bytes, reqs) = (
        total(&time_of),
        total(&|c| c.bytes as f64),
        total(&|c| c.requests as f64),
    );
    let share = |rest: &[&drivescope_record::IoClass],
                 g: &dyn Fn(&drivescope_record::IoClass) -> f64,
                 all: f64| {
        if all > 0.0 {
            rest.iter().map(|c| g(c)).sum::<f64>() / all
        } else {
            0.0
        }
    };
    let mut rows = ROWS.min(order.len());
    while rows < order.len() {
        let rest = &order[rows..];
        if share(rest, &time_of, time) < REST
            && share(rest, &|c| c.bytes as f64, bytes) < REST
            && share(rest, &|c| c.requests as f64, reqs) < REST
        {
            break;
        }
        rows += 1;
    }
    // A single class left over is shown as itself, not as "1 other class".
    if rows + 1 == order.len() {
        rows += 1;
    }
    (order, rows)
}

fn pct(part: u64, whole: u64) -> String {
    if whole == 0 {
        return "-".into();
    }
    let p = part as f64 * 100.0 / whole as f64;
    if p > 0.0 && p < 1.0 {
        "<1 %".into()
    } else {
        format!("{p:.0} %")
    }
}

pub fn print_fingerprint(f: &Fingerprint, out: &mut dyn Write) -> std::io::Result<()> {
    writeln!(
        out,
        "  I/O of {} (traced on {}): {}, {}, the disk busy {} of {} ({:.0} %), mean queue depth {:.2}",
        f.run_label(),
        f.devices.join(", "),
        drivescope_units::count(f.requests, "request"),
        bytes(f.bytes() as f64),
        duration(f.busy_ns as f64),
        duration(f.wall_ns as f64),
        f.busy_share() * 100.0,
        f.mean_queue_depth
    )?;
    let data: u64 = f.classes.iter().map(|c| c.requests).sum();
    let total_bytes = f.bytes();
    let total_time = f.classes.iter().map(time_of).sum::<f64>().round() as u64;
    let (order, rows) = shown(f);
    writeln!(
        out,
        "    {:<26} {:>7} {:>9} {:>7} {:>10} {:>10} {:>10} {:>6}",
        "class", "time", "requests", "bytes", "mean", "p50", "p99", "QD"
    )?;
    for c in order.iter().take(rows) {
        writeln!(
            out,
            "    {:<26} {:>7} {:>9} {:>7} {:>10} {:>10} {:>10} {:>6.1}",
            c.label(),
            pct(time_of(c).round() as u64, total_time),
            pct(c.requests, data),
            pct(c.bytes, total_bytes),
            duration(c.service_ns_mean),
            duration(c.service_ns_p50 as f64),
            duration(c.service_ns_p99 as f64),
            c.queue_depth_mean
        )?;
    }
    if order.len() > rows {
        let rest = &order[rows..];
        writeln!(
            out,
            "    {:<26} {:>7} {:>9} {:>7}",
            format!("{} other classes", rest.len()),
            pct(
                rest.iter().map(|c| time_of(c)).sum::<f64>().round() as u64,
                total_time
            ),
            pct(rest.iter().map(|c| c.requests).sum(), data),
            pct(rest.iter().map(|c| c.bytes).sum(), total_bytes),
        )?;
    }
    let mut extra = Vec::new();
    if f.flushes > 0 {
        extra.push(drivescope_units::count_as(f.flushes, "flush", "flushes"));
    }
    if f.discards > 0 {
        extra.push(drivescope_units::count(f.discards, "discard"));
    }
    if f.sync_requests > 0 {
        extra.push(format!("{} sync", f.sync_requests));
    }
    if f.think.gaps > 0 {
        extra.push(format!(
            "idle gaps p50 {}, p90 {}, {} in all",
            duration(f.think.p50_ns as f64),
            duration(f.think.p90_ns as f64),
            duration(f.think.total_ns as f64)
        ));
    }
    if !extra.is_empty() {
        writeln!(out, "    {}", extra.join("; "))?;
    }
    for n in &f.notes {
        writeln!(out, "    note: {n}")?;
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use drivescope_record::{AccessPattern, IoClass, IoDirection, ThinkTime, TimeMode};

    fn class(dir: IoDirection, size: u64, pat: AccessPattern, n: u64, svc: f64) -> IoClass {
        IoClass {
            direction: dir,
            size_max_bytes: size,
            pattern: pat,
            requests: n,
            bytes: n * size,
            service_ns_mean: svc,
            service_ns_p50: svc as u64,
            service_ns_p99: svc as u64,
            queue_depth_mean: 1.0,
        }
    }

    fn fingerprint(classes: Vec<IoClass>) -> Fingerprint {
        Fingerprint {
            mode: TimeMode::Cold,
            run: 1,
            devices: vec!["sda".into()],
            requests: classes.iter().map(|c| c.requests).sum(),
            unmatched: 0,
            lost_events: 0,
            wall_ns: 10_000_000_000,
            busy_ns: 5_000_000_000,
            classes,
            flushes: 0,
            discards: 0,
            sync_requests: 0,
            queue_depth: Vec::new(),
            mean_queue_depth: 1.0,
            think: ThinkTime::default(),
            timeline: Vec::new(),
            timeline_step_s: 1.0,
            notes: Vec::new(),
        }
    }

    fn text(f: &Fingerprint) -> String {
        let mut out = Vec::new();
        print_fingerprint(f, &mut out).unwrap();
        String::from_utf8(out).unwrap()
    }

    /// Six classes of many small requests and thirteen of a few large ones, which move most of
    /// the bytes and take most of the disk's time: the large ones get rows, first, and nothing
    /// that matters is folded into "other classes".
    #[test]
    fn the_classes_that_take_the_time_lead_and_none_that_matter_are_folded() {
        use AccessPattern::{Random, Sequential};
        use IoDirection::{Read, Write};
        let mut classes = Vec::new();
        for (i, dir) in [Read, Write].into_iter().enumerate() {
            for size in [4096u64, 8192, 16384] {
                classes.push(class(dir, size, Random, 10_000 - i as u64, 100_000.0));
            }
        }
        for k in 0..13u64 {
            let dir = if k % 2 == 0 { Read } else { Write };
            let pat = if k % 3 == 0 { Random } else { Sequential };
            classes.push(class(
                dir,
                (128 << 10) << (k % 4),
                pat,
                300 + k,
                5_000_000.0,
            ));
        }
        let f = fingerprint(classes);
        let out = text(&f);
        let rows: Vec<&str> = out
            .lines()
            .skip_while(|l| !l.trim_start().starts_with("class"))
            .skip(1)
            .take_while(|l| !l.contains("note") && !l.contains("idle"))
            .collect();
        // Every row left out holds under 5 % of the time, bytes and requests together.
        if let Some(other) = rows.iter().find(|l| l.contains("other classes")) {
            let shares = other.split("other classes").nth(1).unwrap();
            for v in shares
                .split('%')
                .filter_map(|c| c.trim().parse::<f64>().ok())
            {
                assert!(v < 5.0, "{other}");
            }
        }
        // The first row is a large class (the time), not a 4 KiB one (the count).
        assert!(!rows[0].contains(" 4 KiB"), "{out}");
        assert!(rows.len() >= 13, "{out}");
        let (order, _) = shown(&f);
        for w in order.windows(2) {
            assert!(time_of(w[0]) >= time_of(w[1]));
        }
    }

    #[test]
    fn a_long_tail_of_tiny_classes_is_still_summed() {
        use AccessPattern::Random;
        use IoDirection::Read;
        let mut classes = vec![class(Read, 1 << 20, Random, 10_000, 5_000_000.0)];
        for k in 0..20u64 {
            classes.push(class(Read, 4096 << (k % 8), Random, 1, 1_000.0));
        }
        let out = text(&fingerprint(classes));
        assert!(out.contains("other classes"), "{out}");
    }
}
