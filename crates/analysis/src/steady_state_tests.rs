use super::*;
use drivescope_core::rng::Rng;

fn uniform(r: &mut Rng) -> f64 {
    (r.next_u64() >> 11) as f64 / (1u64 << 53) as f64
}

fn broken_limits(v: &Verdict) -> Vec<Limit> {
    match v {
        Verdict::NotReached { broken, .. } => broken.iter().map(|b| b.limit).collect(),
        other => panic!("expected not reached, got {other:?}"),
    }
}

#[test]
fn constants_are_the_pts_values() {
    let r = Rule::default();
    assert_eq!((r.window_rounds, r.max_rounds), (5, 25));
    assert_eq!((r.range_fraction, r.excursion_fraction), (0.20, 0.10));
}

#[test]
fn fewer_than_five_rounds_is_undecided() {
    for n in 0..5 {
        assert_eq!(
            judge(&vec![100.0; n]),
            Verdict::Undecided {
                rounds: n,
                latest: None
            }
        );
    }
    assert_eq!(judge(&[100.0; 5]).reached_round(), Some(5));
}

#[test]
fn window_statistics_are_exact() {
    let w = Window::of(3, &[90.0, 110.0, 100.0, 100.0, 100.0]);
    assert_eq!((w.first_round, w.last_round), (3, 7));
    assert_eq!((w.average, w.range), (100.0, 20.0));
    // Σ(x−2)(y−100) = 20 − 10 = 10, Σ(x−2)² = 10: slope 1, excursion 4.
    assert!((w.slope - 1.0).abs() < 1e-12 && (w.excursion - 4.0).abs() < 1e-12);
}

#[test]
fn range_exactly_at_twenty_percent_is_steady_and_just_over_is_not() {
    // Flat best-fit line (symmetric), range at the limit.
    for scale in [1.0, 37.5, 1e6] {
        let at = [90.0, 105.0, 110.0, 105.0, 90.0].map(|v| v * scale);
        let w = Window::of(1, &at);
        assert!(w.excursion.abs() < 1e-9 * scale);
        assert_eq!(judge(&at).reached_round(), Some(5), "scale {scale}");
        let over = [89.95, 105.0, 110.05, 105.0, 89.95].map(|v| v * scale);
        let v = Rule {
            max_rounds: 5,
            ..Rule::default()
        }
        .judge(&over);
        assert_eq!(broken_limits(&v), vec![Limit::Range], "scale {scale}");
        if let Verdict::NotReached { broken, .. } = v {
            assert!((broken[0].over_by() - 0.001).abs() < 1e-4, "{broken:?}");
        }
    }
}

#[test]
fn excursion_exactly_at_ten_percent_is_steady_and_just_over_is_not() {
    for scale in [1.0, 3.0, 2e5] {
        // A straight line rising 10 of 100 across the window: range 10 %, excursion 10 %.
        let at = [95.0, 97.5, 100.0, 102.5, 105.0].map(|v| v * scale);
        assert_eq!(judge(&at).reached_round(), Some(5), "scale {scale}");
        let s = 2.525;
        let over = [
            100.0 - 2.0 * s,
            100.0 - s,
            100.0,
            100.0 + s,
            100.0 + 2.0 * s,
        ]
        .map(|v| v * scale);
        let v = Rule {
            max_rounds: 5,
            ..Rule::default()
        }
        .judge(&over);
        assert_eq!(broken_limits(&v), vec![Limit::Excursion], "scale {scale}");
        // The same line falling is judged alike.
        let mut falling = over;
        falling.reverse();
        let v = Rule {
            max_rounds: 5,
            ..Rule::default()
        }
        .judge(&falling);
        assert_eq!(broken_limits(&v), vec![Limit::Excursion]);
    }
}

/// Steep falls (each window touching one breaks the range), then flat from round `flat_from`.
fn settles_at(flat_from: usize, len: usize) -> Vec<f64> {
    (1..=len)
        .map(|r| {
            if r < flat_from {
                1000.0 * 0.8f64.powi(r as i32)
            } else {
                1000.0 * 0.8f64.powi(flat_from as i32)
            }
        })
        .collect()
}

#[test]
fn steady_at_round_twenty_five_is_reached_and_at_twenty_six_is_not() {
    let v = judge(&settles_at(21, 30));
    assert_eq!(v.reached_round(), Some(25));
    let v = judge(&settles_at(22, 30));
    assert_eq!(broken_limits(&v), vec![Limit::Range, Limit::Excursion]);
    match v {
        Verdict::NotReached { rounds, window, .. } => {
            assert_eq!(
                (rounds, window.first_round, window.last_round),
                (25, 21, 25)
            );
        }
        _ => unreachable!(),
    }
    // With 24 rounds the same series is still undecided.
    assert!(matches!(
        judge(&settles_at(22, 24)),
        Verdict::Undecided {
            rounds: 24,
            latest: Some(_)
        }
    ));
}

#[test]
fn a_flat_series_is_steady_at_the_first_window() {
    let v = judge(&[5000.0; 25]);
    match v {
        Verdict::Reached { round, window } => {
            assert_eq!(round, 5);
            assert_eq!(
                (window.range, window.excursion, window.average),
                (0.0, 0.0, 5000.0)
            );
        }
        other => panic!("{other:?}"),
    }
}

#[test]
fn a_slow_drift_inside_the_range_limit_is_never_steady() {
    // A fall of 3 %–4.5 % a round keeps every window's range under 20 % but its line over 10 %.
    let mut r = Rng::new(17);
    for _ in 0..200 {
        let fall = 0.03 + 0.015 * uniform(&mut r);
        let start = 10f64.powf(2.0 + 4.0 * uniform(&mut r));
        let series: Vec<f64> = (0..25).map(|i| start * (1.0 - fall).powi(i)).collect();
        let v = judge(&series);
        assert_eq!(broken_limits(&v), vec![Limit::Excursion], "fall {fall}");
        for end in 5..=25 {
            let w = Window::of(end - 4, &series[end - 5..end]);
            assert!(w.range_ratio() < RANGE_FRACTION, "fall {fall}: {w:?}");
        }
    }
}

#[test]
fn a_noisy_series_is_steady_only_where_its_window_holds_both_limits() {
    let mut r = Rng::new(5);
    let series: Vec<f64> = (0..25)
        .map(|_| 1000.0 * (1.0 + 0.16 * (uniform(&mut r) - 0.5)))
        .collect();
    match judge(&series) {
        Verdict::Reached { round, window } => {
            assert!(window.range_ratio() <= 0.2 && window.excursion_ratio() <= 0.1);
            for end in 5..round {
                assert!(!Window::of(end - 4, &series[end - 5..end])
                    .broken(&Rule::default())
                    .is_empty());
            }
        }
        other => panic!("{other:?}"),
    }
    // Noise of ±25 % breaks the range in every window.
    let wild: Vec<f64> = (0..25)
        .map(|i| if i % 2 == 0 { 1250.0 } else { 750.0 })
        .collect();
    assert!(broken_limits(&judge(&wild)).contains(&Limit::Range));
}

#[test]
fn seeded_random_series_with_known_truth() {
    // `k` steep falls (1.5× to 2.25× the next, the last at least 1.5× the level), then a level with noise of at most ±4 %: every
    // window inside the level holds range ≤ 8 % and excursion ≤ 2.4 × 4 % < 10 %; every window that
    // touches a fall breaks the range (≥ 1 − 1.04 / 1.5 ≈ 31 %). So steady state is at round k + 5.
    let mut r = Rng::new(2026);
    let (mut reached, mut not_reached) = (0, 0);
    for _ in 0..500 {
        let k = r.below(24) as usize;
        let level = 10f64.powf(1.0 + 6.0 * uniform(&mut r));
        let noise = 0.04 * uniform(&mut r);
        let mut series = Vec::new();
        for i in 0..k {
            series.push(level * 1.5f64.powi((k - i) as i32) * (1.0 + 0.5 * uniform(&mut r)));
        }
        while series.len() < 25 {
            series.push(level * (1.0 + noise * (2.0 * uniform(&mut r) - 1.0)));
        }
        let v = judge(&series);
        if k + 5 <= 25 {
            assert_eq!(v.reached_round(), Some(k + 5), "k {k}");
            reached += 1;
        } else {
            assert!(broken_limits(&v).contains(&Limit::Range), "k {k}");
            not_reached += 1;
        }
    }
    assert!(reached > 300 && not_reached > 20, "{reached} {not_reached}");
}

#[test]
fn a_zero_or_negative_average_is_never_steady() {
    assert_eq!(
        broken_limits(&judge(&[0.0; 25])),
        vec![Limit::Range, Limit::Excursion]
    );
    assert!(matches!(judge(&[-1.0; 25]), Verdict::NotReached { .. }));
    let mut with_nan = vec![100.0; 25];
    with_nan[24] = f64::NAN;
    assert_eq!(judge(&with_nan).reached_round(), Some(5));
}

#[test]
fn parameters_are_honoured() {
    let strict = Rule {
        range_fraction: 0.05,
        excursion_fraction: 0.02,
        window_rounds: 3,
        max_rounds: 10,
    };
    let at = [100.0, 102.0, 101.0];
    assert_eq!(strict.judge(&at).reached_round(), Some(3));
    let v = strict.judge(&[
        100.0, 110.0, 100.0, 110.0, 100.0, 110.0, 100.0, 110.0, 100.0, 110.0, 100.0,
    ]);
    match v {
        Verdict::NotReached { rounds, window, .. } => {
            assert_eq!((rounds, window.last_round), (10, 10))
        }
        other => panic!("{other:?}"),
    }
}

#[test]
fn the_records_verdict_says_what_the_rule_says_with_its_window() {
    use drivescope_record::SteadyState;
    // Falling, then flat from round 4: steady at round 8 (window 4–8).
    let v = [200.0, 150.0, 120.0, 100.0, 101.0, 99.0, 100.0, 100.0, 100.0];
    let r = verdict(&v, 25);
    assert_eq!(r.state, SteadyState::Reached);
    assert_eq!(r.round, Some(8));
    let w = r.window.as_ref().unwrap();
    assert_eq!((w.first_round, w.last_round), (4, 8));
    assert_eq!((w.range_allowed, w.excursion_allowed), (0.20, 0.10));
    assert!(r.why.starts_with("steady at round 8"), "{}", r.why);
    // Rising and scattered for 25 rounds: not reached, both limits named; fewer rounds: undecided.
    let scatter: Vec<f64> = (0..25)
        .map(|i| 100.0 + 20.0 * i as f64 + if i % 2 == 1 { 60.0 } else { 0.0 })
        .collect();
    let r = verdict(&scatter, 25);
    assert_eq!(r.state, SteadyState::NotReached);
    assert!(
        r.why.contains("range") && r.why.contains("best-fit line"),
        "{}",
        r.why
    );
    assert_eq!(r.window.unwrap().first_round, 21);
    let r = verdict(&scatter[..7], 25);
    assert_eq!(r.state, SteadyState::Undecided);
    assert_eq!(verdict(&scatter[..3], 25).window, None);
    // A run that asks for fewer rounds ends at its own limit.
    assert_eq!(verdict(&scatter[..10], 10).state, SteadyState::NotReached);
}
