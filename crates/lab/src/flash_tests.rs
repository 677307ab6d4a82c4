use super::*;

fn cfg(user_blocks: usize, pages_per_block: usize, op: f64) -> FlashConfig {
    FlashConfig {
        pages_per_block,
        user_blocks,
        over_provisioning: op,
    }
}

/// WA of `n` random host writes, measured from now.
fn random_wa(f: &mut Flash, n: u64) -> f64 {
    let a = f.counters();
    f.write_random(n);
    f.counters().since(&a).write_amplification()
}

#[test]
fn truth_solves_its_equation_and_falls_with_over_provisioning() {
    let mut last = f64::INFINITY;
    for op in [0.05, 0.07, 0.12, 0.25, 0.5, 1.0] {
        let wa = wa_truth(1.0 + op);
        let u = 1.0 - 1.0 / wa;
        assert!(
            (u - (-(1.0 + op) * (1.0 - u)).exp()).abs() < 1e-9,
            "op {op}"
        );
        assert!(wa > 1.0 && wa < last, "op {op}: {wa}");
        // Within 15 % of the textbook approximation over the usual range (it drifts apart beyond).
        if op <= 0.5 {
            assert!(
                (wa / wa_approximation(op) - 1.0).abs() < 0.15,
                "op {op}: {wa}"
            );
        }
        last = wa;
    }
    assert!(wa_truth(1.0).is_infinite());
}

#[test]
fn random_writes_converge_to_the_truth_across_sizes_and_over_provisioning() {
    // Blocks of 64 pages or more (real drives have hundreds): the large-block limit holds.
    for (i, &(blocks, ppb)) in [(512usize, 64usize), (1024, 64), (256, 128), (768, 128)]
        .iter()
        .enumerate()
    {
        for (j, &op) in [0.07, 0.1, 0.15, 0.25, 0.35, 0.5].iter().enumerate() {
            let c = cfg(blocks, ppb, op);
            let mut f = Flash::new(c, 11 + (i * 10 + j) as u64);
            let u = c.user_pages() as u64;
            f.write_sequential(0, 2 * u);
            f.write_random(4 * u);
            let wa = random_wa(&mut f, 2 * u);
            let truth = wa_truth(c.alpha());
            assert!(
                (wa / truth - 1.0).abs() < 0.10,
                "{blocks}x{ppb} op {op}: {wa:.3} vs {truth:.3}"
            );
            assert_eq!(f.mapped_pages(), c.user_pages());
        }
    }
}

#[test]
fn sequential_overwrites_need_no_copies() {
    for op in [0.07, 0.25] {
        let c = cfg(512, 64, op);
        let mut f = Flash::new(c, 3);
        let u = c.user_pages() as u64;
        f.write_sequential(0, u);
        let a = f.counters();
        f.write_sequential(0, 3 * u);
        let wa = f.counters().since(&a).write_amplification();
        assert!(wa < 1.01, "op {op}: {wa}");
    }
}

#[test]
fn fresh_drive_runs_at_media_speed_then_falls_as_spare_blocks_are_used() {
    let c = cfg(512, 64, 0.12);
    let mut f = Flash::new(c, 5);
    let u = c.user_pages() as u64;
    // Fresh out of box: the first user capacity of random writes lands on erased blocks.
    let fob = {
        let a = f.counters();
        f.write_random(u / 2);
        f.counters().since(&a)
    };
    assert_eq!(fob.write_amplification(), 1.0);
    assert_eq!(fob.host_pages_per_s(1000.0), 1000.0);
    // Then the collector starts copying, and the rate falls to the steady one.
    let mut rates = Vec::new();
    for _ in 0..12 {
        let a = f.counters();
        f.write_random(u / 2);
        rates.push(f.counters().since(&a).host_pages_per_s(1000.0));
    }
    let steady = 1000.0 / wa_truth(c.alpha());
    assert!(rates[0] > 1.5 * steady, "{rates:?}");
    let last = *rates.last().unwrap();
    assert!((last / steady - 1.0).abs() < 0.1, "{last} vs {steady}");
}

#[test]
fn discard_restores_fresh_speed() {
    let c = cfg(512, 64, 0.07);
    let mut f = Flash::new(c, 9);
    let u = c.user_pages() as u64;
    f.write_sequential(0, u);
    f.write_random(4 * u);
    assert!(random_wa(&mut f, u / 4) > 4.0);
    f.discard(0, c.user_pages());
    assert_eq!(f.mapped_pages(), 0);
    // Whatever the collector takes now is empty: nothing is copied.
    let a = f.counters();
    f.write_random(u / 2);
    let after = f.counters().since(&a);
    assert_eq!(after.write_amplification(), 1.0);
    assert!(after.erases > 0, "blocks were reclaimed without copies");
}

#[test]
fn idle_time_lets_the_collector_pre_clean() {
    let c = cfg(512, 64, 0.25);
    let make = || {
        let mut f = Flash::new(c, 21);
        let u = c.user_pages() as u64;
        f.write_sequential(0, u);
        f.write_random(4 * u);
        f
    };
    let burst = 20 * c.pages_per_block as u64;
    let mut busy = make();
    let a = busy.counters();
    busy.write_random(burst);
    let busy_rate = busy.counters().since(&a).host_pages_per_s(1000.0);

    let mut rested = make();
    let copied = rested.idle(c.spare_blocks(), u64::MAX);
    assert!(copied > 0);
    assert!(rested.free_blocks() > GC_LOW_WATER + 20);
    let a = rested.counters();
    rested.write_random(burst);
    let d = rested.counters().since(&a);
    assert_eq!(d.idle_media_pages, 0);
    assert_eq!(
        d.host_pages_per_s(1000.0),
        1000.0,
        "a burst into pre-cleaned blocks waits for no copy"
    );
    assert!(busy_rate < 700.0, "{busy_rate}");
}

#[test]
fn same_seed_same_drive() {
    let c = cfg(256, 64, 0.1);
    let run = || {
        let mut f = Flash::new(c, 42);
        f.write_random(3 * c.user_pages() as u64);
        f.counters()
    };
    assert_eq!(run(), run());
}

#[test]
fn the_map_holds_exactly_the_pages_written_and_not_discarded() {
    let mut r = drivescope_core::rng::Rng::new(77);
    for case in 0..6 {
        let c = cfg(
            64 + r.below(192) as usize,
            16 << r.below(3),
            0.07 + 0.4 * (r.below(100) as f64 / 100.0),
        );
        let user = c.user_pages();
        let mut f = Flash::new(c, case);
        let mut mapped = vec![false; user];
        let mut host = 0;
        for _ in 0..200 {
            let start = r.below(user as u64) as usize;
            let n = 1 + r.below(user as u64 / 4) as usize;
            match r.below(4) {
                0 => {
                    f.discard(start, n);
                    mapped[start..(start + n).min(user)]
                        .iter_mut()
                        .for_each(|m| *m = false);
                }
                1 => {
                    f.write_sequential(start, n as u64);
                    (0..n).for_each(|i| mapped[(start + i) % user] = true);
                    host += n as u64;
                }
                2 => {
                    f.idle(c.spare_blocks(), r.below(4 * c.pages_per_block as u64));
                }
                _ => {
                    for _ in 0..n {
                        let lpn = r.below(user as u64) as usize;
                        f.write(lpn);
                        mapped[lpn] = true;
                    }
                    host += n as u64;
                }
            }
            assert_eq!(
                f.mapped_pages(),
                mapped.iter().filter(|&&m| m).count(),
                "case {case}"
            );
        }
        let k = f.counters();
        assert_eq!(k.host_pages, host);
        assert!(k.foreground_media_pages >= host);
        assert!(f.free_blocks() >= GC_LOW_WATER);
    }
}
