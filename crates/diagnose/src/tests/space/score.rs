//! Every finding of a diagnosis measured against its draw's truth: misses, false claims, inconclusive and blind
//! cases, and the error of each reported number against its tolerance, per behaviour.

use super::expect::{Expect, Tol, BEHAVIOURS};
use super::Spec;
use crate::tests::support::Diagnosed;
use drivescope_record::{Confidence, Verdict};
use std::collections::BTreeMap;
use std::fmt::Write;

/// One reported number's errors (relative to the truth; in the number's unit for an absolute tolerance).
#[derive(Debug, Default)]
pub struct Errors {
    pub tol: Option<Tol>,
    pub errors: Vec<f64>,
    pub outside: usize,
}

#[derive(Debug, Default)]
pub struct Row {
    pub draws: usize,
    /// Present and within reach.
    pub expected: usize,
    pub found: usize,
    pub inconclusive: usize,
    pub missed: usize,
    pub absent: usize,
    pub false_claims: usize,
    /// Present and within reach, but the budget left the experiment out (it says so: no guess).
    pub skipped: usize,
    /// Not judged, by reason, and how many of those made a claim all the same.
    pub blind: BTreeMap<&'static str, usize>,
    pub blind_claims: BTreeMap<&'static str, usize>,
    pub numbers: BTreeMap<&'static str, Errors>,
}

/// A draw the diagnosis got wrong: a miss, a false claim or a number out of tolerance.
#[derive(Debug)]
pub struct Failure {
    pub seed: u64,
    pub behaviour: &'static str,
    pub what: String,
}

#[derive(Debug, Default)]
pub struct Tally {
    pub rows: BTreeMap<&'static str, Row>,
    pub failures: Vec<Failure>,
    pub models: usize,
}

fn error(tol: Tol, got: f64, truth: f64) -> f64 {
    match tol {
        Tol::Abs(_) => (got - truth).abs(),
        _ => (got / truth - 1.0).abs(),
    }
}

impl Tally {
    /// Add another sample's scores to these.
    pub fn merge(&mut self, o: Tally) {
        self.models += o.models;
        self.failures.extend(o.failures);
        for (name, r) in o.rows {
            let m = self.rows.entry(name).or_default();
            m.draws += r.draws;
            m.expected += r.expected;
            m.found += r.found;
            m.inconclusive += r.inconclusive;
            m.skipped += r.skipped;
            m.missed += r.missed;
            m.absent += r.absent;
            m.false_claims += r.false_claims;
            for (k, v) in r.blind {
                *m.blind.entry(k).or_default() += v;
            }
            for (k, v) in r.blind_claims {
                *m.blind_claims.entry(k).or_default() += v;
            }
            for (k, e) in r.numbers {
                let n = m.numbers.entry(k).or_default();
                n.tol = e.tol;
                n.errors.extend(e.errors);
                n.outside += e.outside;
            }
        }
    }

    pub fn score(&mut self, seed: u64, spec: &Spec, d: &Diagnosed) {
        self.models += 1;
        for (name, code) in BEHAVIOURS {
            let row = self.rows.entry(name).or_default();
            row.draws += 1;
            let f = d.finding(code.clone());
            let claimed = f.filter(|f| f.confidence > Confidence::Inconclusive);
            let experiment = super::super::support::experiment_of(code);
            let skipped = d
                .rec
                .outcomes
                .iter()
                .any(|o| o.verdict == Verdict::Skipped && Some(o.experiment) == experiment);
            let inconclusive = f.is_some_and(|f| f.confidence == Confidence::Inconclusive)
                || d.rec.outcomes.iter().any(|o| {
                    o.verdict == Verdict::Inconclusive
                        && super::super::support::experiment_of(code) == Some(o.experiment)
                });
            let mut fail = |what: String| {
                self.failures.push(Failure {
                    seed,
                    behaviour: name,
                    what,
                })
            };
            match spec.expect(code) {
                Expect::Blind(why) => {
                    *row.blind.entry(why).or_default() += 1;
                    if claimed.is_some() {
                        *row.blind_claims.entry(why).or_default() += 1;
                    }
                }
                Expect::Absent => {
                    row.absent += 1;
                    if let Some(f) = claimed {
                        row.false_claims += 1;
                        fail(format!("false claim ({:?}): {}", f.confidence, f.claim));
                    }
                }
                Expect::Found(checks) => {
                    row.expected += 1;
                    match claimed {
                        None if inconclusive => row.inconclusive += 1,
                        None if skipped => row.skipped += 1,
                        None => {
                            row.missed += 1;
                            let why = d
                                .rec
                                .outcomes
                                .iter()
                                .filter(|o| {
                                    super::super::support::experiment_of(code) == Some(o.experiment)
                                })
                                .map(|o| o.text.clone())
                                .collect::<Vec<_>>()
                                .join("; ");
                            fail(format!("missed: {why}"));
                        }
                        Some(f) => {
                            row.found += 1;
                            for ch in checks {
                                let e = row.numbers.entry(ch.number).or_default();
                                e.tol = Some(ch.tol);
                                let Some(got) = f.number(ch.number) else {
                                    e.outside += 1;
                                    fail(format!("no {} in: {}", ch.number, f.claim));
                                    continue;
                                };
                                e.errors.push(error(ch.tol, got, ch.truth));
                                if !ch.tol.holds(got, ch.truth) {
                                    e.outside += 1;
                                    fail(format!(
                                        "{} = {got:.4} against {:.4} ({:?}): {}",
                                        ch.number, ch.truth, ch.tol, f.claim
                                    ));
                                }
                            }
                        }
                    }
                }
            }
        }
    }

    /// The table per behaviour (Markdown), and the blind cases by reason.
    pub fn table(&self) -> String {
        let mut s = String::new();
        let pct = |v: f64, t: &Option<Tol>| match t {
            Some(Tol::Abs(_)) => format!("{v:.3}"),
            _ => format!("{:.1} %", v * 100.0),
        };
        writeln!(
            s,
            "| behaviour | draws | present in reach | found | inconclusive | skipped (budget) | missed | absent | false claims | not judged (of which claimed) |\n|---|---|---|---|---|---|---|---|---|---|"
        )
        .unwrap();
        for (name, r) in &self.rows {
            writeln!(
                s,
                "| {name} | {} | {} | {} | {} | {} | {} | {} | {} | {} ({}) |",
                r.draws,
                r.expected,
                r.found,
                r.inconclusive,
                r.skipped,
                r.missed,
                r.absent,
                r.false_claims,
                r.blind.values().sum::<usize>(),
                r.blind_claims.values().sum::<usize>()
            )
            .unwrap();
        }
        writeln!(
            s,
            "\n| behaviour | number | measured | median error | max error | tolerance | outside |\n|---|---|---|---|---|---|---|"
        )
        .unwrap();
        for (name, r) in &self.rows {
            for (n, e) in &r.numbers {
                let mut v = e.errors.clone();
                v.sort_by(f64::total_cmp);
                let med = v.get(v.len() / 2).copied().unwrap_or(0.0);
                let max = v.last().copied().unwrap_or(0.0);
                let tol = match e.tol {
                    Some(Tol::Rel(r, a)) if a > 0.0 => format!("±{:.0} % + {a}", r * 100.0),
                    Some(Tol::Rel(r, _)) => format!("±{:.0} %", r * 100.0),
                    Some(Tol::Abs(a)) => format!("±{a}"),
                    Some(Tol::AtMost(_)) => "≤ truth".into(),
                    Some(Tol::AtLeast(r)) if r > 0.0 => {
                        format!("≥ {:.0} % of truth", (1.0 - r) * 100.0)
                    }
                    Some(Tol::AtLeast(_)) => "≥ truth".into(),
                    None => String::new(),
                };
                writeln!(
                    s,
                    "| {name} | {n} | {} | {} | {} | {tol} | {} |",
                    v.len(),
                    pct(med, &e.tol),
                    pct(max, &e.tol),
                    e.outside
                )
                .unwrap();
            }
        }
        writeln!(s, "\nNot judged, by reason:\n").unwrap();
        for (name, r) in &self.rows {
            for (why, n) in &r.blind {
                let claimed = r.blind_claims.get(why).copied().unwrap_or(0);
                writeln!(s, "- {name}: {n} × {why} (claimed in {claimed})").unwrap();
            }
        }
        s
    }
}
