//! `drivescope info [TARGET]`: list block devices, or describe one target and the path from it
//! to the CPU with each link's ceiling. Never opens a device.

use crate::finish::Outcome;
use anyhow::Result;
use drivescope_probe::{identify_with, list_block_devices, Options, Roots};
use drivescope_record::InfoRecord;
use std::path::PathBuf;

#[derive(clap::Args)]
pub struct InfoArgs {
    /// Block device, partition, file or directory (a bare kernel name such as `sda` works too).
    /// Without it, the block devices are listed.
    pub target: Option<PathBuf>,
    /// Print one JSON document on stdout (schema drivescope/1, kind "info") instead of the text.
    #[arg(long)]
    pub json: bool,
    /// Do not run smartctl.
    #[arg(long)]
    pub no_smart: bool,
    /// Read sysfs from here instead of /sys (testing).
    #[arg(long, hide = true, default_value = "/sys")]
    pub sysfs_root: PathBuf,
    /// Read procfs from here instead of /proc (testing).
    #[arg(long, hide = true, default_value = "/proc")]
    pub procfs_root: PathBuf,
    /// Device nodes are here instead of /dev (testing).
    #[arg(long, hide = true, default_value = "/dev")]
    pub devfs_root: PathBuf,
}

pub fn run(args: InfoArgs) -> Result<Outcome> {
    let roots = Roots {
        sys: args.sysfs_root.clone(),
        proc: args.procfs_root.clone(),
        dev: args.devfs_root.clone(),
    };
    let rec = match &args.target {
        Some(t) => {
            let opts = Options {
                smart: !args.no_smart,
                dns: true,
            };
            InfoRecord::of_target(identify_with(t, &roots, &opts)?)
        }
        None => InfoRecord::of_devices(list_block_devices(&roots)?),
    };
    if args.json {
        // Through a JSON value, whose keys are sorted: the document reads as it always has.
        crate::finish::print_json(&serde_json::to_value(&rec)?)?;
    } else {
        crate::finish::print_all(drivescope_report::text::info(&rec).as_bytes())?;
    }
    Ok(Outcome::Success)
}
