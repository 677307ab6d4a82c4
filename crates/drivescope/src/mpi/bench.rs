//! `drivescope bench` on every rank: each opens its own target (`{rank}`, `{host}` filled in),
//! runs the bench through the gate, and sends its record (or its error) to rank 0, which merges,
//! prints and stores one `multi` record.

use super::gate::{MpiGate, DONE, FAILED, GO, STOPPED};
use crate::cmd::bench::{options, plan, BenchArgs};
use crate::cmd::{workload, EXIT_FAILURE, EXIT_INTERRUPTED};
use drivescope_core::bench;
use drivescope_core::rank_target::expand;
use drivescope_core::scan::hostname;
use drivescope_record::{Header, Kind, MultiRecord, RankResult, TargetInfo, TargetType};
use mpi::datatype::PartitionMut;
use mpi::traits::*;
use std::process::ExitCode;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;

pub fn run(a: BenchArgs) -> anyhow::Result<ExitCode> {
    let universe =
        mpi::initialize().ok_or_else(|| anyhow::anyhow!("MPI is initialized already"))?;
    let world = universe.world();
    let rank = world.rank() as u32;
    let size = world.size() as u32;
    let host = hostname();
    let target = expand(&a.w.target, rank, &host);
    let stop = Arc::new(AtomicBool::new(false));
    crate::signals::stop_on_interrupt(&stop)?;

    // Every rank is quiet while it runs; rank 0 prints the merged record at the end.
    let mut w = a.w.clone();
    w.target = target.clone();
    w.quiet = true;
    w.no_live = true;
    let mut gate = MpiGate::new(&world, a.stonewall);
    let mut mine = RankResult {
        rank,
        host: host.clone(),
        target: target.clone(),
        windows: Vec::new(),
        bench: None,
        error: None,
    };
    let result = plan(&a).and_then(|(tests, rws)| {
        let mut opened = workload::open(&w, &rws, &stop)?;
        // Ranks on one shared target do not all hit the same offsets.
        opened.common.seed ^= u64::from(rank) << 32;
        Ok((options(&a, tests, rws, opened.common), opened))
    });
    // Everyone learns whether every rank could open its target before any measures.
    let opened_ok = gate.agree(if result.is_ok() { GO } else { FAILED }) == GO;
    match result {
        Err(e) => {
            mine.error = Some(format!("{e:#}"));
        }
        Ok((opts, opened)) if opened_ok => {
            match bench::bench_gated(&opened.target, &opts, &mut gate, &stop, &mut |_| {}) {
                Ok(mut rec) => {
                    rec.header.device = crate::identity::of(&target);
                    let mut at = 0;
                    for t in &rec.tests {
                        let n = t.runs.len();
                        mine.windows.push(gate.windows[at..at + n].to_vec());
                        at += n;
                    }
                    let state = if stop.load(Ordering::Relaxed) {
                        STOPPED
                    } else {
                        DONE
                    };
                    mine.bench = Some(rec);
                    gate.leave(state);
                }
                Err(e) => {
                    mine.error = Some(e.to_string());
                    gate.leave(FAILED);
                }
            }
        }
        Ok(_) => {}
    }
    let state = gate.closed.unwrap_or(GO);

    // Each rank's result goes to rank 0 as JSON: first the lengths, then the bytes.
    let bytes = serde_json::to_vec(&mine)?;
    let root = world.process_at_rank(0);
    let len = bytes.len() as i32;
    if rank != 0 {
        root.gather_into(&len);
        root.gather_varcount_into(&bytes[..]);
        return Ok(exit(state));
    }
    let mut lens = vec![0i32; size as usize];
    root.gather_into_root(&len, &mut lens[..]);
    let displs: Vec<i32> = lens
        .iter()
        .scan(0, |at, &n| {
            let d = *at;
            *at += n;
            Some(d)
        })
        .collect();
    let mut all = vec![0u8; lens.iter().map(|&n| n as usize).sum()];
    {
        let mut part = PartitionMut::new(&mut all[..], &lens[..], &displs[..]);
        root.gather_varcount_into_root(&bytes[..], &mut part);
    }
    let mut members = Vec::with_capacity(size as usize);
    for (&d, &n) in displs.iter().zip(&lens) {
        members.push(serde_json::from_slice::<RankResult>(
            &all[d as usize..(d + n) as usize],
        )?);
    }
    drop(all);
    let rec = merge(&a, size, members, state);
    for (m, e) in rec.failed() {
        eprintln!(
            "drivescope: rank {} on {} ({}) failed: {e}",
            m.rank, m.host, m.target
        );
    }
    workload::output(&rec, &a.w, false, crate::cmd::text_multi)?;
    Ok(exit(state))
}

/// Every rank ends with the same code: failure when any rank failed, interrupted when any was.
fn exit(state: i64) -> ExitCode {
    match state {
        FAILED => ExitCode::from(EXIT_FAILURE),
        STOPPED => ExitCode::from(EXIT_INTERRUPTED),
        _ => ExitCode::SUCCESS,
    }
}

fn merge(a: &BenchArgs, size: u32, members: Vec<RankResult>, state: i64) -> MultiRecord {
    let benches = || members.iter().filter_map(|m| m.bench.as_ref());
    let target = benches()
        .map(|b| b.header.target.clone())
        .next()
        .map(|t| TargetInfo {
            path: a.w.target.clone(),
            ..t
        })
        .unwrap_or(TargetInfo {
            path: a.w.target.clone(),
            kind: TargetType::Null,
            size: 0,
            logical_block_size: 0,
        });
    let started = benches().map(|b| b.header.started_at.clone()).min();
    let ended = benches().map(|b| b.header.ended_at.clone()).max();
    let now = humantime::format_rfc3339_seconds(std::time::SystemTime::now()).to_string();
    let mut header = Header::new(
        Kind::Multi,
        target,
        members.first().map(|m| m.host.clone()).unwrap_or_default(),
        started.unwrap_or_else(|| now.clone()),
    );
    header.ended_at = ended.unwrap_or(now);
    MultiRecord {
        header,
        command: "bench".into(),
        target_template: a.w.target.clone(),
        ranks: size,
        stonewall: a.stonewall,
        interrupted: state == STOPPED || state == FAILED,
        profile: benches()
            .map(|b| b.profile.clone())
            .next()
            .unwrap_or_default(),
        runs: a.runs,
        duration_ns: a.duration.as_nanos() as u64,
        tests: drivescope_analysis::multi::aggregate(&members),
        members,
    }
}
