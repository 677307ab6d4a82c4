//! The human summary of a scan or quick scan record. Works from the record alone, so a stored run prints
//! as it did when it ran.

use super::sparkline;
use drivescope_record::{Reap, ScanRecord, Surface};
use drivescope_units::{
    format_count, format_elapsed, format_ns, format_offset, format_rate, format_size,
};
use std::io::Write;

/// Failed extents and slow regions a summary lists before it says how many more there are.
const LIST_MAX: usize = 10;

/// Print the summary of a scan or quick scan.
pub fn print_scan(r: &ScanRecord, out: &mut dyn Write) -> std::io::Result<()> {
    let quick = r.is_quick();
    writeln!(
        out,
        "drivescope {} {} ({}, {:?}, {}-byte sectors): {}, {}, QD{}",
        if quick {
            "quick scan"
        } else if r.write {
            "write scan"
        } else {
            "scan"
        },
        r.header.target.path,
        format_size(r.header.target.size),
        r.header.target.kind,
        r.header.target.logical_block_size,
        r.engine,
        format_size(r.block_size),
        r.queue_depth,
    )?;
    let lbs = r.header.target.logical_block_size.max(1) as u64;
    writeln!(
        out,
        "  range     {} .. {} (LBA {} .. {}){}",
        format_offset(r.offset),
        format_offset(r.offset + r.length),
        r.offset / lbs,
        (r.offset + r.length) / lbs,
        if r.interrupted { "  [interrupted]" } else { "" }
    )?;
    writeln!(
        out,
        "  {}   {} in {} commands, {}{}",
        if r.write { "written" } else { "read   " },
        format_size(r.bytes),
        format_count(r.commands as f64),
        format_elapsed(r.duration_ns),
        r.resumed_from
            .map(|id| format!(" (resumed from run {id})"))
            .unwrap_or_default()
    )?;
    // Only where offsets are a medium's positions: elsewhere the ratio means nothing.
    let zone = r
        .zone_ratio
        .filter(|_| r.header.positions().is_ok())
        .map(|z| format!("; zone ratio {z:.3} (last 5 % / first 5 %)"))
        .unwrap_or_default();
    // Which mean this is: bytes over the wall clock, and beside it the reads without the time errors took.
    let mean = match (r.mb_per_s.without_errors, r.mb_per_s.error_ns) {
        (Some(clean), Some(ns)) => format!(
            "mean {} over the wall clock ({} without the {} spent on errors)",
            format_rate(r.mb_per_s.mean),
            format_rate(clean),
            format_elapsed(ns)
        ),
        _ if r.regions.is_some() => format!(
            "mean {} over the wall clock (the moves between regions included)",
            format_rate(r.mb_per_s.mean)
        ),
        _ => format!("mean {}", format_rate(r.mb_per_s.mean)),
    };
    writeln!(
        out,
        "  rate      {mean}, min {}, max {}{zone}",
        format_rate(r.mb_per_s.min),
        format_rate(r.mb_per_s.max)
    )?;
    let l = &r.latency;
    let mut pct: Vec<(f64, String)> = l
        .percentiles_ns
        .iter()
        .map(|(k, v)| (k.parse().unwrap_or(0.0), format!("p{k} {}", format_ns(*v))))
        .collect();
    pct.sort_by(|a, b| a.0.total_cmp(&b.0));
    let pct: Vec<String> = pct.into_iter().map(|(_, s)| s).collect();
    writeln!(
        out,
        "  latency   mean {}, sd {}, min {}, max {}",
        format_ns(l.mean_ns),
        format_ns(l.stddev_ns),
        format_ns(l.min_ns),
        format_ns(l.max_ns)
    )?;
    writeln!(out, "            {}", pct.join("  "))?;
    let bands: Vec<String> = r
        .bands
        .iter()
        .map(|b| format!("{} {}", b.label, format_count(b.count as f64)))
        .collect();
    writeln!(out, "  bands     {}", bands.join(" | "))?;
    if let Some(regions) = &r.regions {
        let rates: Vec<f64> = regions.iter().map(|g| g.mb_per_s).collect();
        writeln!(
            out,
            "  regions   {} {}",
            regions.len(),
            sparkline(&rates, 64)
        )?;
        if let Some(worst) = regions.iter().max_by_key(|g| g.first_ns) {
            writeln!(
                out,
                "            slowest seek in: region {} at {} (LBA {}, {})",
                worst.index,
                format_offset(worst.offset),
                worst.offset / lbs,
                format_ns(worst.first_ns)
            )?;
        }
    } else if !r.curve.is_empty() {
        let rates: Vec<f64> = r.curve.iter().map(|p| p.mb_per_s).collect();
        writeln!(out, "  curve     {}", sparkline(&rates, 64))?;
    }
    if r.reap == Reap::Poll {
        writeln!(
            out,
            "  note      completions were polled: a CPU watched for each one instead of sleeping until it came as fio does (--reap sleep to sleep)"
        )?;
    }
    if let Some(s) = &r.surface {
        surface(r, s, out)?;
    }
    for (head, lines) in [
        super::extents::slow(r, LIST_MAX, super::extents::Hint::Json),
        super::extents::failed(r, LIST_MAX, super::extents::Hint::Json),
        super::extents::untried(r, LIST_MAX, super::extents::Hint::Json),
    ] {
        if head.is_empty() {
            continue;
        }
        writeln!(out, "  {head}")?;
        for l in lines {
            writeln!(out, "    {l}")?;
        }
    }
    if let Some(v) = &r.verify {
        let t = &v.totals;
        writeln!(
            out,
            "  verify    {} blocks of {} B read back{}: {} ok, {} wrong, {} misplaced, {} lost, {} unreadable{} ({})",
            v.blocks,
            v.unit,
            if v.complete { "" } else { " (stopped early)" },
            t.ok,
            t.wrong,
            t.misplaced,
            t.lost,
            t.unreadable,
            if t.unchecked > 0 {
                format!(", {} not read back", t.unchecked)
            } else {
                String::new()
            },
            format_rate(v.read_mb_per_s)
        )?;
        for (what, list) in [
            ("wrong", &v.wrong),
            ("misplaced", &v.misplaced),
            ("lost", &v.lost),
            ("unreadable", &v.unreadable),
        ] {
            for e in list.iter().take(10) {
                let holds = e
                    .holds_offset
                    .map(|h| format!("  holds the data of offset {}", format_offset(h)))
                    .unwrap_or_default();
                writeln!(
                    out,
                    "    {what:<10} offset {:>10}  LBA {:>12}  {}{holds}",
                    format_offset(e.offset),
                    e.lba,
                    format_size(e.length)
                )?;
            }
            if list.len() > 10 {
                writeln!(
                    out,
                    "    … {} more {what} extents (all in --json)",
                    list.len() - 10
                )?;
            }
        }
    }
    if let Some(t) = super::temperature::line(r.temperature.as_ref()) {
        writeln!(out, "  {t}")?;
    }
    if let Some(why) = &r.device_lost {
        writeln!(out, "  DEVICE LOST: {why}")?;
    }
    if let Some(why) = &r.lost_inconclusive {
        writeln!(out, "  device lost? inconclusive: {why}")?;
    }
    Ok(())
}

/// How much of the range is good, failed and untried, and what the error handling took.
fn surface(r: &ScanRecord, s: &Surface, out: &mut dyn Write) -> std::io::Result<()> {
    // What the first pass never got to is untried (older documents left it out of `untried`): percentages are of
    // the range.
    let unreached = r.length.saturating_sub(r.covered).max(s.unreached);
    let s = &Surface {
        untried: s.untried + unreached.saturating_sub(s.unreached),
        unreached,
        ..s.clone()
    };
    let all = s.good + s.failed + s.untried;
    let pct = |n: u64| {
        if all == 0 {
            String::new()
        } else {
            format!(" ({:.2} %)", n as f64 * 100.0 / all as f64)
        }
    };
    let (good, bad) = if r.write {
        ("written", "failed")
    } else {
        ("readable", "unreadable")
    };
    let unscraped = if s.unscraped > 0 {
        format!(
            ", {} of it in failed commands not read sector by sector",
            format_size(s.unscraped)
        )
    } else {
        String::new()
    };
    let never = if s.unreached > 0 {
        format!(
            ", {} of it never reached (the scan stopped first)",
            format_size(s.unreached)
        )
    } else {
        String::new()
    };
    writeln!(
        out,
        "  surface   {good} {}{}, {bad} {}{}{unscraped}, untried {}{}{never}",
        format_size(s.good),
        pct(s.good),
        format_size(s.failed),
        pct(s.failed),
        format_size(s.untried),
        pct(s.untried)
    )?;
    if s.failed + s.untried == 0 && r.failed_commands == 0 && r.failed_total == 0 {
        return Ok(()); // nothing failed: no error handling to speak of
    }
    let budget = match s.budget_ns {
        None => "no limit".to_string(),
        Some(b) => format!("budget {}", format_secs(b)),
    };
    writeln!(
        out,
        "  errors    first pass {}; trimming, scraping and retries {} ({budget}{})",
        format_secs(s.first_pass_ns),
        format_secs(s.error_handling_ns),
        if s.budget_ran_out {
            ", used up: what is left stays untried or unscraped"
        } else {
            ""
        }
    )
}

fn format_secs(ns: u64) -> String {
    format_elapsed(ns)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::sample;
    use drivescope_record::{
        Direction, Extent, FailedExtent, Surface, UntriedExtent, VerifyReport, VerifyTotals,
    };

    fn text(r: &ScanRecord) -> String {
        let mut out = Vec::new();
        print_scan(r, &mut out).unwrap();
        String::from_utf8(out).unwrap()
    }

    #[test]
    fn lists_the_first_ten_slow_regions_and_the_failed_extents() {
        let r = sample::scan(2, 1 << 30, 100, 30, 2, Direction::Read);
        let t = text(&r);
        assert!(t.starts_with("drivescope scan /dev/sdx (1.0 GiB, Block, 512-byte sectors): "));
        assert!(
            t.contains("\n  slow (>= 50.00 ms): 30 commands in 30 regions\n"),
            "{t}"
        );
        assert!(
            t.contains("\n    offset        0 B    64.0 KiB  LBA 0-127  1 command, slowest "),
            "{t}"
        );
        assert!(
            t.contains("\n    … 20 more regions (all in --json)\n"),
            "{t}"
        );
        assert!(t.contains("\n  failed: 2 sectors in 2 extents\n"), "{t}");
        assert_eq!(t.matches("  errno 5  1 sector\n").count(), 2, "{t}");
        assert_eq!(t.matches("\n    offset ").count(), 10 + 2, "{t}");
        assert!(t.contains("\n  curve     "), "{t}");
    }

    #[test]
    fn a_bad_mebibyte_is_one_line_and_a_cut_list_says_where_it_stops() {
        let mut r = sample::scan(2, 1 << 30, 100, 0, 0, Direction::Read);
        r.failed_total = 2048 + 3;
        r.failed_extents = vec![
            sample::failed_extent(2048, 2048),
            FailedExtent {
                offset: 4096 * 512,
                length: 3 * 512,
                first_lba: 4096,
                last_lba: 4098,
                errno: 61,
                count: 3,
                ..Default::default()
            },
        ];
        let t = text(&r);
        assert!(t.contains("\n  slow (>= 50.00 ms): none\n"), "{t}");
        assert!(t.contains("\n  failed: 2051 sectors in 2 extents\n    offset    1.0 MiB     1.0 MiB  LBA 2048-4095  errno 5  2048 sectors\n    offset    2.0 MiB     1.5 KiB  LBA 4096-4098  errno 61  3 sectors\n"), "{t}");
        r.failed_total += 10;
        r.failed_extents_cut = Some(8 << 20);
        let t = text(&r);
        assert!(
            t.contains("\n  failed: 2061 sectors in over 2 extents\n"),
            "{t}"
        );
        assert!(
            t.contains("\n    the list stops at offset 8.0 MiB (2 extents kept); what lies beyond is counted only\n"),
            "{t}"
        );
    }

    #[test]
    fn a_bounded_scan_says_what_is_readable_unreadable_and_untried() {
        // 1 GiB; one damaged area of 16 MiB from LBA 204800 whose edges were trimmed to the
        // sector: 2 failed sectors, 10 MiB in failed commands, the rest never read.
        let mut r = sample::scan(2, 1 << 30, 100, 0, 0, Direction::Read);
        let (first, len) = (204_800u64, 16u64 << 20);
        r.failed_total = 2;
        r.failed_extents = vec![FailedExtent {
            offset: first * 512,
            length: len,
            first_lba: first,
            last_lba: first + len / 512 - 1,
            errno: 5,
            count: 2,
            unscraped: (10 << 20) - 1024,
            untried: 6 << 20,
        }];
        r.untried_extents = (0..3)
            .map(|i| UntriedExtent {
                offset: first * 512 + (i * 2 + 1) * (2 << 20),
                length: 2 << 20,
                first_lba: first + (i * 2 + 1) * 4096,
                last_lba: first + (i * 2 + 2) * 4096 - 1,
            })
            .collect();
        r.surface = Some(Surface {
            good: (1 << 30) - len,
            failed: (10 << 20) + 1024 - 1024,
            unscraped: (10 << 20) - 1024,
            untried: 6 << 20,
            unreached: 0,
            first_pass_ns: 12_300_000_000,
            error_handling_ns: 64_000_000_000,
            budget_ns: Some(60_000_000_000),
            budget_ran_out: true,
        });
        let t = text(&r);
        assert!(
            t.contains("\n  surface   readable 1008.0 MiB (98.44 %), unreadable 10.0 MiB (0.98 %), 10.0 MiB of it in failed commands not read sector by sector, untried 6.0 MiB (0.59 %)\n"),
            "{t}"
        );
        assert!(
            t.contains("\n  errors    first pass 12.30 s; trimming, scraping and retries 1m 4s (budget 1m, used up: what is left stays untried or unscraped)\n"),
            "{t}"
        );
        assert!(
            t.contains("\n  failed: 2 sectors and 10.0 MiB in failed commands not read sector by sector in 1 extent\n    offset  100.0 MiB    16.0 MiB  LBA 204800-237567  errno 5  2 sectors, 10.0 MiB in failed commands not read sector by sector, 6.0 MiB untried\n"),
            "{t}"
        );
        assert!(
            t.contains("\n  untried (neither good nor failed): 6.0 MiB in 3 stretches\n    offset  102.0 MiB     2.0 MiB  LBA 208896-212991\n"),
            "{t}"
        );
        // A write scan says written and failed.
        r.write = true;
        assert!(text(&r).contains("\n  surface   written 1008.0 MiB (98.44 %), failed 10.0 MiB"));
        // A clean scan: one surface line, no error line, no untried list.
        let mut c = sample::scan(2, 1 << 30, 100, 0, 0, Direction::Read);
        c.surface = Some(Surface {
            good: 1 << 30,
            first_pass_ns: 5_000_000_000,
            error_handling_ns: 2_000,
            budget_ns: Some(60_000_000_000),
            ..Surface::default()
        });
        let t = text(&c);
        assert!(
            t.contains("\n  surface   readable 1.0 GiB (100.00 %), unreadable 0 B (0.00 %), untried 0 B (0.00 %)\n  slow"),
            "{t}"
        );
        assert!(!t.contains("untried (") && !t.contains("errors "), "{t}");
    }

    #[test]
    fn a_quick_scan_shows_its_regions_and_slowest_seek() {
        let t = text(&sample::quick_scan(3, 1 << 40, 256));
        assert!(t.starts_with("drivescope quick scan "), "{t}");
        assert!(t.contains("\n  regions   256 "), "{t}");
        assert!(t.contains("\n            slowest seek in: region "), "{t}");
        assert!(!t.contains("\n  curve "), "{t}");
    }

    #[test]
    fn a_write_scan_reports_its_read_back() {
        let mut r = sample::scan(4, 1 << 30, 10, 0, 0, Direction::Write);
        let bad = |i: u64| Extent {
            offset: i * 4096,
            lba: i * 8,
            length: 4096,
            holds_offset: Some(i * 8192),
        };
        r.verify = Some(VerifyReport {
            seed: 1,
            unit: 4096,
            complete: false,
            blocks: 262144,
            totals: VerifyTotals {
                ok: 262132,
                misplaced: 12,
                ..VerifyTotals::default()
            },
            wrong: vec![],
            misplaced: (1..=12).map(bad).collect(),
            lost: vec![],
            unreadable: vec![],
            read_duration_ns: 1_000_000_000,
            read_mb_per_s: 1073.7,
        });
        let t = text(&r);
        assert!(t.starts_with("drivescope write scan "), "{t}");
        assert!(t.contains("\n  written   1.0 GiB in "), "{t}");
        assert!(
            t.contains("\n  verify    262144 blocks of 4096 B read back (stopped early): 262132 ok, 0 wrong, 12 misplaced, 0 lost, 0 unreadable (1073.7 MB/s)\n"),
            "{t}"
        );
        assert!(
            t.contains("\n    misplaced  offset    4.0 KiB  LBA            8  4.0 KiB  holds the data of offset 8.0 KiB\n"),
            "{t}"
        );
        assert_eq!(t.matches("\n    misplaced  offset").count(), 10, "{t}");
        assert!(
            t.ends_with("\n    … 2 more misplaced extents (all in --json)\n"),
            "{t}"
        );
    }
}
