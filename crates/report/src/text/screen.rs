//! The human summary of a group screen: the drives side by side (best `*` and worst `!` of each row marked),
//! the reasons of every verdict other than pass, each drive alone and all together on the shared path, and the
//! findings. Fits 80 columns: four drives to a block of the table, more in further blocks.

use crate::compare::Mark;
use crate::screen::{duration, Sheet};
use drivescope_record::{Confidence, Criteria, Finding, Grade, ScreenRecord, SharedPath};
use drivescope_units::format_size;
use std::io::Write;

/// Width of the row labels.
const LABEL: usize = 14;
/// Width of a drive's column: its text (right-aligned) and the mark after it.
const TEXT: usize = 13;
/// Drives to a block of the table.
const PER_BLOCK: usize = 4;
/// Where lines of prose wrap.
const WIDTH: usize = 80;

/// The last `n` characters of `s`, `…` in front when cut (targets and serials differ at their end).
fn tail(s: &str, n: usize) -> String {
    let len = s.chars().count();
    if len <= n {
        return s.to_string();
    }
    let keep: String = s.chars().skip(len - (n - 1)).collect();
    format!("…{keep}")
}

/// The first `n` characters of `s`, `…` at the end when cut (models differ at their start).
fn head(s: &str, n: usize) -> String {
    if s.chars().count() <= n {
        return s.to_string();
    }
    let keep: String = s.chars().take(n - 1).collect();
    format!("{keep}…")
}

fn mark(m: Mark) -> char {
    match m {
        Mark::Best => '*',
        Mark::Worst => '!',
        Mark::None => ' ',
    }
}

/// `text` wrapped at [`WIDTH`], the first line after `first`, the others indented as deep.
fn wrapped(first: &str, text: &str) -> Vec<String> {
    let indent = " ".repeat(first.chars().count());
    let mut lines = Vec::new();
    let mut line = first.to_string();
    let mut empty = true;
    for word in text.split(' ') {
        if !empty && line.chars().count() + 1 + word.chars().count() > WIDTH {
            lines.push(std::mem::replace(&mut line, indent.clone()));
            empty = true;
        }
        if !empty {
            line.push(' ');
        }
        line.push_str(word);
        empty = false;
    }
    lines.push(line);
    lines
}

/// Print the summary of a group screen.
pub fn print_screen(r: &ScreenRecord, out: &mut dyn Write) -> std::io::Result<()> {
    let what = match (r.write, r.verify) {
        (false, _) => "read scan",
        (true, false) => "write scan",
        (true, true) => "write scan with read-back",
    };
    let mut notes = Vec::new();
    if r.interrupted {
        notes.push("stopped before every drive was done".to_string());
    }
    if let Some(id) = r.resumed_from {
        notes.push(format!("resumed from run {id}"));
    }
    writeln!(
        out,
        "drivescope screen: {} drive{}, {what}, {}{}",
        r.members.len(),
        if r.members.len() == 1 { "" } else { "s" },
        duration(r.duration_ns),
        notes.iter().map(|n| format!("; {n}")).collect::<String>()
    )?;
    let sheet = Sheet::new(r);
    table(&sheet, out)?;
    if sheet.marked() {
        writeln!(out, "(* best, ! worst)")?;
    }
    for m in &r.members {
        if let Some(why) = m.smart_not_read() {
            for l in wrapped(&format!("{}: ", m.target), &why) {
                writeln!(out, "{l}")?;
            }
        }
    }
    reasons(r, out)?;
    for (array, drives) in drivescope_record::group_arrays(&r.members) {
        let what = format!(
            "{} belong to {array}: what they read together is what the array's members do (`drivescope \
             diagnose` of the array reads it by them)",
            drives.join(", ")
        );
        for l in wrapped("array: ", &what) {
            writeln!(out, "{l}")?;
        }
    }
    if let Some(sp) = &r.shared_path {
        shared(r, sp, out)?;
    }
    findings(&r.header.findings, out)?;
    criteria(&r.criteria, out)
}

fn table(sheet: &Sheet, out: &mut dyn Write) -> std::io::Result<()> {
    let n = sheet.heads.len();
    for start in (0..n).step_by(PER_BLOCK) {
        let cols = start..(start + PER_BLOCK).min(n);
        if start > 0 {
            writeln!(out)?;
        }
        let heads = &sheet.heads[cols.clone()];
        let line = |label: &str, cells: Vec<String>| {
            let mut l = format!("{label:<LABEL$}");
            for c in cells {
                l += &format!("  {c}");
            }
            l.trim_end().to_string()
        };
        let texts = |f: &dyn Fn(&crate::screen::Head) -> Option<String>| -> Vec<String> {
            heads
                .iter()
                .map(|h| format!("{:>TEXT$} ", f(h).unwrap_or_default()))
                .collect()
        };
        writeln!(
            out,
            "{}",
            line("drive", texts(&|h| Some(tail(&h.target, TEXT))))
        )?;
        if heads.iter().any(|h| h.model.is_some()) {
            let models = texts(&|h| h.model.as_deref().map(|m| head(m, TEXT)));
            writeln!(out, "{}", line("model", models))?;
        }
        if heads.iter().any(|h| h.serial.is_some()) {
            let serials = texts(&|h| h.serial.as_deref().map(|s| tail(s, TEXT)));
            writeln!(out, "{}", line("serial", serials))?;
        }
        for row in &sheet.rows {
            let cells = row.cells[cols.clone()]
                .iter()
                .map(|c| format!("{:>TEXT$}{}", c.text, mark(c.mark)))
                .collect();
            writeln!(out, "{}", line(&row.label, cells))?;
        }
    }
    Ok(())
}

/// The reasons of each verdict other than pass, worst first, one sentence each.
fn reasons(r: &ScreenRecord, out: &mut dyn Write) -> std::io::Result<()> {
    let judged: Vec<_> = r
        .members
        .iter()
        .filter_map(|m| Some((m, m.verdict.as_ref()?)))
        .filter(|(_, v)| v.grade != Grade::Pass)
        .collect();
    if judged.is_empty() {
        return Ok(());
    }
    writeln!(out, "verdicts:")?;
    for (m, v) in judged {
        writeln!(out, "  {}: {}", m.target, v.grade.as_str().to_uppercase())?;
        for reason in &v.reasons {
            for l in wrapped(&format!("    {:<10} ", reason.grade.as_str()), &reason.text) {
                writeln!(out, "{l}")?;
            }
        }
    }
    Ok(())
}

/// Each drive alone and all together, and their sums.
fn shared(r: &ScreenRecord, sp: &SharedPath, out: &mut dyn Write) -> std::io::Result<()> {
    let what = format!(
        "{} reads at QD{}, {:.1} s on each drive alone, then on all together{}",
        format_size(sp.block_size),
        sp.queue_depth,
        sp.duration_ns as f64 / 1e9,
        sp.parent
            .as_ref()
            .map(|p| format!("; they meet at {p}"))
            .unwrap_or_default()
    );
    for l in wrapped("shared path: ", &what) {
        writeln!(out, "{l}")?;
    }
    writeln!(
        out,
        "  {:<LABEL$}  {:>10}  {:>10}",
        "MB/s", "alone", "together"
    )?;
    for (i, m) in r.members.iter().enumerate() {
        let (a, t) = (sp.alone_mb_per_s.get(i), sp.together_mb_per_s.get(i));
        let f = |v: Option<&f64>| v.map_or("—".into(), |v| format!("{v:.1}"));
        writeln!(
            out,
            "  {:<LABEL$}  {:>10}  {:>10}",
            tail(&m.target, LABEL),
            f(a),
            f(t)
        )?;
    }
    let (a, t) = (sp.alone_sum(), sp.together_sum());
    let share = if a > 0.0 {
        format!("  ({:.0} % of alone)", t * 100.0 / a)
    } else {
        String::new()
    };
    writeln!(out, "  {:<LABEL$}  {a:>10.1}  {t:>10.1}{share}", "sum")
}

/// The findings as `print_findings` words them, wrapped.
fn findings(list: &[Finding], out: &mut dyn Write) -> std::io::Result<()> {
    if list.is_empty() {
        return Ok(());
    }
    writeln!(out, "findings:")?;
    for f in list {
        let what = f.code.as_str().replace('_', " ");
        let sure = match f.confidence {
            Confidence::Low => " (low confidence)",
            Confidence::Inconclusive => " (inconclusive)",
            _ => "",
        };
        let first = format!("  {} {what:<12} ", super::findings::mark(f.confidence));
        for l in wrapped(&first, &format!("{}{sure}", f.claim)) {
            writeln!(out, "{l}")?;
        }
    }
    Ok(())
}

/// The criteria, when they are not the defaults.
fn criteria(c: &Criteria, out: &mut dyn Write) -> std::io::Result<()> {
    let d = Criteria::default();
    if *c == d {
        return Ok(());
    }
    let mut set = Vec::new();
    let mut put = |name: &str, v: String, dv: String| {
        if v != dv {
            set.push(format!("{name} = {v}"));
        }
    };
    put(
        "max_failed_sectors",
        c.max_failed_sectors.to_string(),
        d.max_failed_sectors.to_string(),
    );
    put(
        "max_verify_errors",
        c.max_verify_errors.to_string(),
        d.max_verify_errors.to_string(),
    );
    put(
        "max_slow_commands",
        c.max_slow_commands.to_string(),
        d.max_slow_commands.to_string(),
    );
    put(
        "max_latency",
        drivescope_units::format_ns(c.max_latency_ns),
        drivescope_units::format_ns(d.max_latency_ns),
    );
    put(
        "below_siblings_pct",
        c.below_siblings_pct.to_string(),
        d.below_siblings_pct.to_string(),
    );
    put(
        "below_stretch_pct",
        c.below_stretch_pct.to_string(),
        d.below_stretch_pct.to_string(),
    );
    put(
        "below_history_pct",
        c.below_history_pct.to_string(),
        d.below_history_pct.to_string(),
    );
    for l in wrapped("criteria (not the defaults): ", &set.join(", ")) {
        writeln!(out, "{l}")?;
    }
    Ok(())
}
