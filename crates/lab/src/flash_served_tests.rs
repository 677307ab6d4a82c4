use super::*;
use crate::timing::{Op, Timeline};
use drivescope_core::rng::Rng;

fn model(size_mib: u64, spare: f64, block_kib: u64, mb_s: f64, extra: &str) -> Model {
    let text = format!(
        "name='f'\nsize='{size_mib}M'\nzones={{rates_mb_s=[{mb_s}]}}\noverhead='20us'\n\
         flash={{page='4K',block='{block_kib}K',spare={spare}}}\n{extra}"
    );
    Model::from_toml_str(&text, "test").unwrap()
}

/// Random 4 KiB writes back to back at QD1 from `*now`; the mean service time (ns).
fn random_writes(t: &mut Timeline, rng: &mut Rng, size: u64, n: u64, now: &mut u64) -> f64 {
    let begin = *now;
    for _ in 0..n {
        let off = rng.below(size / 4096) * 4096;
        *now = t.schedule(Op::Write, off, 4096, *now).done_ns;
    }
    (*now - begin) as f64 / n as f64
}

fn precondition(t: &mut Timeline, size: u64, now: &mut u64) {
    for _ in 0..2 {
        let mut off = 0;
        while off < size {
            *now = t.schedule(Op::Write, off, 128 << 10, *now).done_ns;
            off += 128 << 10;
        }
    }
}

#[test]
fn the_section_parses_and_bad_geometry_is_refused() {
    let m = model(64, 0.07, 256, 100.0, "");
    let f = m.flash.as_ref().unwrap();
    assert_eq!(
        (f.page, f.block, f.idle_after_ns),
        (4096, 256 << 10, 100_000_000)
    );
    let cfg = f.config(m.size);
    assert_eq!((cfg.pages_per_block, cfg.user_blocks), (64, 256));
    for (extra, why) in [
        (
            "flash={page='4K',block='6K',spare=0.1}",
            "whole number of pages",
        ),
        (
            "flash={page='4K',block='48M',spare=0.1}",
            "whole number of flash blocks",
        ),
        ("flash={page='1000',spare=0.1}", "512-byte"),
        ("flash={spare=0}", "spare"),
        (
            "flash={spare=0.1}\nwrite_cache={size='4M',rate_mb_s=500}",
            "excludes",
        ),
    ] {
        let text = format!("name='x'\nsize='64M'\nzones={{rates_mb_s=[100]}}\n{extra}");
        let e = Model::from_toml_str(&text, "t").unwrap_err().to_string();
        assert!(e.contains(why), "{e} should mention {why}");
    }
}

#[test]
fn a_fresh_write_programs_its_own_pages_only() {
    let m = model(32, 0.1, 256, 100.0, "");
    let mut t = Timeline::new(&m);
    let page_ns = xfer_ns(4096, 100.0);
    // Serial: overhead, then the pages.
    let o = t.schedule(Op::Write, 8192, 4096, 1_000);
    assert_eq!(o.done_ns, 1_000 + 20_000 + page_ns as u64);
    let o2 = t.schedule(Op::Write, 1 << 20, 16384, o.done_ns);
    assert_eq!(o2.done_ns - o.done_ns, 20_000 + (4.0 * page_ns) as u64);
    // A write smaller than a page still programs one; reads pay no collection.
    let o3 = t.schedule(Op::Write, 3 << 20, 512, o2.done_ns);
    assert_eq!(o3.done_ns - o2.done_ns, 20_000 + page_ns as u64);
    let c = t.flash_counters().unwrap();
    assert_eq!((c.host_pages, c.foreground_media_pages), (6, 6));
}

/// Over a space of drives (size, spare area, block, rate drawn with a fixed seed), random 4 KiB
/// writes after the precondition fall from the fresh rate to the truth's steady rate, within
/// 10 % on the model's clock, and the write amplification settles on the truth's.
#[test]
fn random_writes_fall_to_the_truths_steady_rate_over_a_space_of_drives() {
    let mut draw = Rng::new(44);
    for _ in 0..6 {
        let size = [32u64, 48, 64][draw.below(3) as usize];
        let spare = 0.07 + draw.below(44) as f64 / 100.0;
        let block = [128u64, 256, 512][draw.below(3) as usize];
        let mb_s = 40.0 + draw.below(200) as f64;
        let m = model(size, spare, block, mb_s, "");
        let truth = m.truth().flash.unwrap();
        assert!(
            (truth.wa_random / truth.wa_analytic - 1.0).abs() < 0.15,
            "{truth:?}"
        );
        let mut t = Timeline::new(&m);
        let mut rng = Rng::new(7);
        let mut now = 0;
        precondition(&mut t, m.size, &mut now);
        let pages = m.size / 4096;
        let fresh = random_writes(&mut t, &mut rng, m.size, 200, &mut now);
        let fresh_iops = 1e9 / fresh;
        assert!(
            (fresh_iops / truth.rnd4k_fresh_write_iops - 1.0).abs() < 0.02,
            "fresh {fresh_iops} vs {truth:?}"
        );
        random_writes(&mut t, &mut rng, m.size, 6 * pages, &mut now);
        let before = t.flash_counters().unwrap();
        let steady = 1e9 / random_writes(&mut t, &mut rng, m.size, 2 * pages, &mut now);
        let wa = t
            .flash_counters()
            .unwrap()
            .since(&before)
            .write_amplification();
        let want = truth.rnd4k_steady_write_iops;
        assert!(
            (steady / want - 1.0).abs() < 0.10,
            "size {size} spare {spare} block {block}: steady {steady} vs {want}"
        );
        assert!((wa / truth.wa_random - 1.0).abs() < 0.10, "{wa} {truth:?}");
        assert!(steady < 0.9 * fresh_iops, "no fall: {steady} {fresh_iops}");
    }
}

#[test]
fn a_whole_device_discard_makes_the_drive_fresh_again() {
    let m = model(32, 0.1, 256, 100.0, "");
    let mut t = Timeline::new(&m);
    let mut rng = Rng::new(3);
    let mut now = 0;
    precondition(&mut t, m.size, &mut now);
    random_writes(&mut t, &mut rng, m.size, 4 * (m.size / 4096), &mut now);
    let steady = random_writes(&mut t, &mut rng, m.size, 500, &mut now);
    t.discard(0, m.size);
    let before = t.flash_counters().unwrap();
    let after = random_writes(&mut t, &mut rng, m.size, 500, &mut now);
    let c = t.flash_counters().unwrap().since(&before);
    assert_eq!(
        c.foreground_media_pages, c.host_pages,
        "no copies after the discard"
    );
    assert!(after < steady / 2.0, "{after} vs {steady}");
}

#[test]
fn idle_time_lets_the_collector_clean_ahead() {
    let m = model(32, 0.2, 256, 100.0, "");
    let run = |idle: u64| {
        let mut t = Timeline::new(&m);
        let mut rng = Rng::new(5);
        let mut now = 0;
        precondition(&mut t, m.size, &mut now);
        random_writes(&mut t, &mut rng, m.size, 4 * (m.size / 4096), &mut now);
        now += idle;
        let before = t.flash_counters().unwrap();
        random_writes(&mut t, &mut rng, m.size, 300, &mut now);
        t.flash_counters().unwrap().since(&before)
    };
    let busy = run(0);
    let rested = run(5_000_000_000);
    assert!(busy.foreground_media_pages > busy.host_pages);
    assert_eq!(rested.foreground_media_pages, rested.host_pages);
    assert!(
        rested.idle_media_pages > 0,
        "cleaned while idle: {rested:?}"
    );
}

#[test]
fn the_procedure_on_the_virtual_clock_falls_and_settles() {
    let m = model(32, 0.12, 256, 80.0, "");
    let truth = m.truth().flash.unwrap();
    let round_ns = (m.size as f64 / 16.0 / 4096.0 / truth.rnd4k_steady_write_iops * 1e9) as u64;
    let p = Procedure {
        precondition_passes: 2,
        block: 4096,
        queue_depth: 4,
        round_ns,
        rounds: 40,
        seed: 9,
    };
    let r = rounds(&m, &p);
    assert_eq!(r.len(), 40);
    assert!(r[0].iops > 1.5 * truth.rnd4k_steady_write_iops, "{r:?}");
    assert!(r[0].wa < 0.5 * truth.wa_random, "{r:?}");
    assert!((r[39].wa / truth.wa_random - 1.0).abs() < 0.15, "{r:?}");
    let last: f64 = r[35..].iter().map(|x| x.iops).sum::<f64>() / 5.0;
    assert!(
        (last / truth.rnd4k_steady_write_iops - 1.0).abs() < 0.10,
        "{last} vs {truth:?}"
    );
    // The same procedure gives the same rounds (the truth a test compares with).
    assert_eq!(rounds(&m, &p), r);
}

/// A drifting drive's page programs slow by `drift` per second of its clock: after the same
/// writes at the same WA, its rounds fall by that factor per second, and never hold still.
#[test]
fn a_drifting_drive_keeps_slowing_by_its_drift() {
    let plain = model(16, 0.25, 256, 60.0, "");
    let text = "name='f'\nsize='16M'\nzones={rates_mb_s=[60]}\noverhead='20us'\n\
                flash={page='4K',block='256K',spare=0.25,drift=0.15}\n";
    let drifting = Model::from_toml_str(text, "test").unwrap();
    assert_eq!(drifting.truth().flash.unwrap().drift, 0.15);
    assert_eq!(plain.truth().flash.unwrap().drift, 0.0);
    let p = Procedure {
        precondition_passes: 2,
        block: 4096,
        queue_depth: 32,
        round_ns: 200_000_000,
        rounds: 25,
        seed: 3,
    };
    let steady: Vec<f64> = rounds(&plain, &p).iter().map(|r| r.iops).collect();
    let drift: Vec<f64> = rounds(&drifting, &p).iter().map(|r| r.iops).collect();
    let mean = |v: &[f64]| v.iter().sum::<f64>() / v.len() as f64;
    // The plain drive holds its last ten rounds within a few percent; the drifting one falls
    // from window to window by about 1.15 per second of rounds (1 s = five 200 ms rounds).
    assert!(
        (mean(&steady[15..20]) / mean(&steady[20..]) - 1.0).abs() < 0.05,
        "{steady:?}"
    );
    let fall = mean(&drift[15..20]) / mean(&drift[20..]);
    assert!(fall > 1.10 && fall < 1.20, "{fall} {drift:?}");
    let bad = "drift=-0.1";
    let text = format!("name='f'\nsize='16M'\nflash={{spare=0.25,{bad}}}\n");
    assert!(Model::from_toml_str(&text, "test").is_err());
}
