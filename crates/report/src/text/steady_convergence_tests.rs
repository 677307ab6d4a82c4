use super::*;
use drivescope_analysis::steady_state::{verdict, MAX_ROUNDS, WINDOW_ROUNDS};
use drivescope_record::SteadyTest;
use proptest::prelude::*;

/// A record of rounds that measured `values`, judged by the rule as the run judges them after
/// its last round.
fn judged(test: SteadyTest, values: &[f64]) -> SteadyRecord {
    let mut r = crate::sample::steady(1, values);
    r.test = test;
    r.verdict = verdict(values, MAX_ROUNDS as u32);
    r
}

fn panel(r: &SteadyRecord) -> Convergence {
    convergence(r, MAX_ROUNDS as u32, WINDOW_ROUNDS as u32)
}

fn windowed(c: &Convergence) -> Vec<u32> {
    c.rounds
        .iter()
        .filter(|m| m.in_window)
        .map(|m| m.round)
        .collect()
}

/// A fresh drive's IOPS falling to its steady rate, then noise of ±1 %.
const CONVERGING: [f64; 10] = [
    98_000.0, 71_000.0, 52_000.0, 41_000.0, 36_500.0, 35_200.0, 34_800.0, 35_300.0, 34_900.0,
    35_100.0,
];

#[test]
fn a_converging_series_is_steady_from_its_rounds_window_and_says_so() {
    for cut in 1..=CONVERGING.len() {
        let values = &CONVERGING[..cut];
        let r = judged(SteadyTest::Iops, values);
        let c = panel(&r);
        assert_eq!(c.rounds.len(), cut);
        assert!(c.rounds.iter().all(|m| m.label.ends_with(" IOPS")));
        match r.verdict.round {
            Some(k) => {
                assert_eq!(c.standing, Standing::Reached { round: k });
                assert_eq!(c.standing_line(), format!("steady from round {k}"));
                assert_eq!(windowed(&c), (k - 4..=k).collect::<Vec<_>>());
                let w = c.window.as_ref().unwrap();
                assert!(!w.range_over() && !w.excursion_over(), "{w:?}");
                assert!(!c.limits_line().contains("(over)"));
            }
            None if cut < WINDOW_ROUNDS => {
                assert_eq!(
                    c.window_line(),
                    format!("the first window after 5 rounds ({cut} finished so far)")
                );
                assert!(windowed(&c).is_empty());
                assert_eq!(
                    c.standing_line(),
                    format!("not steady yet: {cut} of at most 25 rounds finished")
                );
            }
            None => {
                assert_eq!(c.standing, Standing::Converging { rounds: cut as u32 });
                assert_eq!(windowed(&c).len(), WINDOW_ROUNDS);
                assert_eq!(*windowed(&c).last().unwrap(), cut as u32);
                assert!(c.limits_line().contains("(over)"), "{}", c.limits_line());
            }
        }
    }
    // The whole series settles: at round 9, over rounds 5–9.
    let c = panel(&judged(SteadyTest::Iops, &CONVERGING));
    assert_eq!(c.standing, Standing::Reached { round: 9 });
    let w = c.window.unwrap();
    assert_eq!((w.first_round, w.last_round), (5, 9));
    assert_eq!(w.average_label, "35 340 IOPS");
}

#[test]
fn a_drifting_series_is_never_marked_steady_and_ends_not_reached_at_25() {
    // 3 % less each round: every window's range is within 20 %, its line moves some 12 %.
    let values: Vec<f64> = (0..25).map(|i| 50_000.0 * 0.97f64.powi(i)).collect();
    for cut in 1..=25 {
        let c = panel(&judged(SteadyTest::Iops, &values[..cut]));
        assert!(
            !matches!(c.standing, Standing::Reached { .. }),
            "round {cut}: {c:?}"
        );
        assert!(!c.standing_line().contains("steady from"));
        if let Some(w) = &c.window {
            assert!(!w.range_over(), "{w:?}");
            assert!(w.excursion_over(), "{w:?}");
            assert!(
                c.limits_line().ends_with("of 10 % allowed (over)"),
                "{}",
                c.limits_line()
            );
        }
    }
    let c = panel(&judged(SteadyTest::Iops, &values));
    assert_eq!(c.standing, Standing::NotReached { rounds: 25 });
    assert_eq!(c.standing_line(), "steady state not reached in 25 rounds");
    assert_eq!(windowed(&c), vec![21, 22, 23, 24, 25]);
}

#[test]
fn a_window_at_the_limits_is_steady_and_one_just_past_is_not() {
    // Average 100, range exactly 20, a flat line: at the range's limit, steady.
    let at = [150.0, 90.0, 110.0, 100.0, 110.0, 90.0];
    let c = panel(&judged(SteadyTest::Iops, &at));
    assert_eq!(c.standing, Standing::Reached { round: 6 });
    let w = c.window.as_ref().unwrap();
    assert_eq!(
        w.limits(),
        "range 20.0 % of 20 % allowed, excursion 0.0 % of 10 % allowed"
    );
    // Its excursion at the limit: a line from 95 to 105 over five rounds, average 100.
    let line = [95.0, 97.5, 100.0, 102.5, 105.0];
    let c = panel(&judged(SteadyTest::Iops, &line));
    assert_eq!(c.standing, Standing::Reached { round: 5 });
    let w = c.window.as_ref().unwrap();
    assert!(!w.range_over() && !w.excursion_over(), "{w:?}");
    assert_eq!(
        w.limits(),
        "range 10.0 % of 20 % allowed, excursion 10.0 % of 10 % allowed"
    );
    // A hair past the range: not steady, the range marked over and the line not.
    let past = [90.0, 110.1, 100.0, 110.0, 90.0];
    let c = panel(&judged(SteadyTest::Iops, &past));
    assert_eq!(c.standing, Standing::Converging { rounds: 5 });
    let w = c.window.as_ref().unwrap();
    assert!(w.range_over() && !w.excursion_over(), "{w:?}");
    assert_eq!(c.window_line(), "window rounds 1–5: average 100 IOPS");
    assert_eq!(
        c.limits_line(),
        "range 20.1 % of 20 % allowed (over), excursion 0.0 % of 10 % allowed"
    );
}

#[test]
fn the_latency_test_shows_latencies() {
    let ns = [900e3, 620e3, 505e3, 500e3, 505e3, 498e3, 502e3];
    let c = panel(&judged(SteadyTest::Latency, &ns));
    assert!(c.latency);
    assert_eq!(c.rounds[0].label, "900.0 µs");
    assert_eq!(c.standing, Standing::Reached { round: 7 });
    assert_eq!(c.window_line(), "window rounds 3–7: average 502.0 µs");
}

#[test]
fn before_the_first_round_the_panel_waits_for_a_window() {
    let c = Convergence::none("RND4K write IOPS".into(), false, 25, 5);
    assert_eq!(
        c.lines(),
        vec![
            "the first window after 5 rounds (0 finished so far)".to_string(),
            String::new(),
            "not steady yet: 0 of at most 25 rounds finished".to_string()
        ]
    );
}

proptest! {
    /// Over series of any length up to the limit, levels from 10 to 10^7 and noise from none to
    /// ±40 %: the panel marks exactly the verdict's window, says steady exactly when the rule
    /// does, and marks a limit over exactly when the window breaks it.
    #[test]
    fn the_panel_says_what_the_rule_says(
        level in 10.0f64..1e7,
        noise in 0.0f64..0.4,
        drift in -0.05f64..0.05,
        seed in any::<u64>(),
        n in 1usize..=25,
        latency in any::<bool>(),
    ) {
        let mut s = seed | 1;
        let values: Vec<f64> = (0..n)
            .map(|i| {
                s ^= s << 13;
                s ^= s >> 7;
                s ^= s << 17;
                let u = (s >> 11) as f64 / (1u64 << 53) as f64;
                level * (1.0 + drift).powi(i as i32) * (1.0 + noise * (u - 0.5))
            })
            .collect();
        let test = if latency { SteadyTest::Latency } else { SteadyTest::Iops };
        let r = judged(test, &values);
        let c = panel(&r);
        prop_assert_eq!(c.rounds.len(), n);
        prop_assert!(c.rounds.iter().zip(&values).all(|(m, &v)| m.value == v));
        match &r.verdict.window {
            None => {
                prop_assert!(n < WINDOW_ROUNDS);
                prop_assert!(windowed(&c).is_empty() && c.window.is_none());
                prop_assert!(c.limits_line().is_empty());
            }
            Some(w) => {
                prop_assert_eq!(windowed(&c), (w.first_round..=w.last_round).collect::<Vec<_>>());
                let f = c.window.as_ref().unwrap();
                let steady = r.verdict.state == SteadyState::Reached;
                prop_assert_eq!(steady, !f.range_over() && !f.excursion_over());
                prop_assert_eq!(c.limits_line().contains("(over)"), !steady);
            }
        }
        let reached = matches!(c.standing, Standing::Reached { .. });
        prop_assert_eq!(reached, r.verdict.state == SteadyState::Reached);
        prop_assert_eq!(c.standing_line().starts_with("steady from round"), reached);
        prop_assert_eq!(
            c.standing_line().contains("not reached"),
            r.verdict.state == SteadyState::NotReached
        );
    }
}
