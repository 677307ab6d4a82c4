//! `drivescope scan` on every rank: each reads its own target (a device, or a file on a shared
//! mount, `{rank}` and `{host}` filled in) from start to end at the same moment, after one
//! barrier; rank 0 merges the ranks (rate over earliest start to latest end, every command's
//! latency, bands and slow and failed counts summed), prints and stores one `multi` record.

use super::drive::{drive, record, Asked};
use crate::finish::Finish;
use crate::finish::Outcome;
use crate::opts::destructive;
use crate::plan::scan::ScanPlan;
use drivescope_core::bench::RunGate;
use drivescope_core::scan;

pub fn run(args: ScanPlan) -> anyhow::Result<Outcome> {
    if args.cfg.write || args.resume.is_some() {
        anyhow::bail!(
            "under an MPI launcher a scan reads only: --write and --resume run in one process"
        );
    }
    if args.curve_csv.is_some() || args.failed_list.is_some() {
        anyhow::bail!(
            "under an MPI launcher --curve-csv and --failed-list are not written: each rank's \
             curve and failed commands are in the --json document"
        );
    }
    let template = args
        .target
        .clone()
        .ok_or_else(|| anyhow::anyhow!("give a target (a device, a file or null:SIZE)"))?;
    drive(
        &template,
        false,
        |target, _rank, _stop| {
            let t = destructive::open_scan_target(
                target,
                false,
                "scan",
                &args.destructive,
                &args.store.protected(),
            )?;
            let cfg = args.cfg.clone();
            // The range is checked before any rank starts.
            scan::plan(&cfg, &t)?;
            Ok((t, cfg))
        },
        |(t, cfg), gate, stop, mine| {
            if gate.before_run(0, stop).is_none() {
                // Another rank stopped before the scans began.
                return Ok(());
            }
            let live = drivescope_core::engine::Live(&t);
            let observer = scan::Observer::new(stop);
            let mut rec = scan::run(&live, &t, scan::Start::New(&cfg), observer)?;
            gate.ended(rec.bytes, rec.commands.saturating_sub(rec.failed_commands));
            rec.header.device = crate::identity::of(&mine.target);
            drivescope_analysis::annotate(&mut rec);
            mine.windows = vec![gate.windows.clone()];
            mine.scan = Some(Box::new(rec));
            Ok(())
        },
        |members, g| {
            let asked = Asked {
                command: "scan",
                template: &template,
                stonewall: false,
                profile: String::new(),
                runs: 1,
                duration_ns: 0,
            };
            let rec = record(asked, g, members);
            let how = Finish {
                json: args.json,
                store: &args.store,
                replace: None,
                resume_with: None,
            };
            let rec = crate::opts::workload::annotated(rec, &args.store);
            crate::finish::finish(rec, &super::text_multi, how)?;
            Ok(())
        },
    )
}
