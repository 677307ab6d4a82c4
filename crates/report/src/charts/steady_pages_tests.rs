use super::*;
use drivescope_record::{
    IdleBurst, IdleRecovery, IdleSegment, SteadyCell, SteadyCellSpec, SteadyRecord,
};

fn sample() -> SteadyRecord {
    crate::sample::steady(1, &[5000.0, 2700.0, 2800.0, 2750.0, 2820.0, 2790.0])
}

fn run_of(r: SteadyRecord) -> Run {
    Run::new(Some(3), r)
}

/// The reduced matrix: 3 mixes × 2 blocks, IOPS = 1e6 / KiB × (1 + reads share).
fn reduced(mut r: SteadyRecord) -> SteadyRecord {
    let cells: Vec<SteadyCellSpec> = [100u8, 65, 0]
        .iter()
        .flat_map(|&read_pct| {
            [64u64 << 10, 4 << 10].map(|block_size| SteadyCellSpec {
                read_pct,
                block_size,
            })
        })
        .collect();
    for x in r.rounds.iter_mut() {
        let c0 = x.cells[0].clone();
        x.cells = cells
            .iter()
            .map(|c| SteadyCell {
                read_pct: c.read_pct,
                block_size: c.block_size,
                iops: 1e6 / (c.block_size >> 10) as f64 * (1.0 + c.read_pct as f64 / 100.0),
                ..c0.clone()
            })
            .collect();
    }
    r.matrix = cells;
    r
}

#[test]
fn the_iops_surface_draws_a_line_per_mix_over_the_block_sizes() {
    let run = run_of(reduced(sample()));
    let cs = charts(&run, 0);
    let c = cs
        .iter()
        .find(|c| c.id.starts_with("steady-surface"))
        .unwrap();
    assert_eq!(c.marks, 6);
    for mix in ["100/0 R/W", "65/35 R/W", "0/100 R/W"] {
        assert!(c.svg.contains(mix), "{mix}");
    }
    assert!(c.svg.contains("64.0 KiB") && c.svg.contains("4.0 KiB"));
    // No other page for an IOPS test.
    assert_eq!(cs.len(), 1);
}

#[test]
fn a_single_cell_or_a_latency_run_has_no_surface() {
    assert!(charts(&run_of(sample()), 0).is_empty());
    let mut lat = reduced(sample());
    lat.test = SteadyTest::Latency;
    assert!(charts(&run_of(lat), 0).is_empty());
}

#[test]
fn write_saturation_draws_every_round_against_the_bytes_written() {
    let mut r = sample();
    r.test = SteadyTest::WriteSaturation;
    let cs = charts(&run_of(r), 0);
    assert_eq!(cs.len(), 1);
    assert!(cs[0].id.starts_with("steady-saturation"));
    assert_eq!(cs[0].marks, 6);
}

#[test]
fn idle_recovery_draws_every_burst() {
    let mut r = sample();
    r.test = SteadyTest::HostIdleRecovery;
    let burst = |at: u64, iops: f64| IdleBurst {
        at_ns: at,
        iops,
        bytes_written: 4096,
    };
    r.idle_recovery = Some(IdleRecovery {
        burst_ns: 1_000_000,
        idle_unit_ns: 1_000_000,
        cycles: 2,
        baseline_ns: 2_000_000,
        wait_states: vec![1, 2],
        baseline_iops: 2772.0,
        segments: [1u32, 2]
            .iter()
            .map(|&ws| IdleSegment {
                wait_state: ws,
                idle_ns: ws as u64 * 1_000_000,
                bursts: vec![burst(0, 2800.0 * ws as f64), burst(1, 2900.0 * ws as f64)],
                mean_iops: 2850.0 * ws as f64,
                recovery: 2850.0 * ws as f64 / 2772.0,
                baseline_after_iops: 2772.0,
                end_ns: 10,
            })
            .collect(),
    });
    let cs = charts(&run_of(r.clone()), 0);
    assert_eq!(cs.len(), 1);
    assert!(cs[0].id.starts_with("steady-idle"));
    assert_eq!(cs[0].marks, 4);
    assert!(cs[0].svg.contains("WS1, WS2"));
    let mut text = Vec::new();
    crate::text::print_steady(&r, &mut text).unwrap();
    let text = String::from_utf8(text).unwrap();
    assert!(text.contains("host idle recovery: 2 bursts of"), "{text}");
    assert!(text.contains("(2.06× steady)"), "{text}");
    assert_eq!(
        crate::text::steady_progress(&r).as_deref(),
        Some("idle recovery WS2: bursts at 5 700 IOPS (2.06× steady)")
    );
}
