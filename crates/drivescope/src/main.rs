//! drivescope: the binary is glue. Arguments -> validated config -> library calls.

mod cmd;
mod progress;
mod signals;
mod summary;

use clap::{Parser, Subcommand};
use std::process::ExitCode;

#[derive(Parser)]
#[command(
    name = "drivescope",
    version,
    about = "Measure how a disk, SSD, RAID set, USB enclosure or NAS share really performs, and why.",
    after_help = "Sizes are binary: 64K = 64KiB = 65536 bytes, 1M = 1MiB, 1G = 1GiB. Rates are MB/s = 10^6 B/s."
)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand)]
enum Command {
    /// Read a whole device or range in order, timing every command (surface scan).
    Scan(cmd::scan::ScanArgs),
    /// Describe a device, file or directory and the path to it.
    Info(cmd::info::InfoArgs),
    /// Emulated reference disks with known ground truth.
    Lab(cmd::lab::LabArgs),
}

fn main() -> ExitCode {
    let cli = Cli::parse();
    let result = match cli.command {
        Command::Scan(a) => cmd::scan::run(a),
        Command::Info(a) => cmd::info::run(a),
        Command::Lab(a) => cmd::lab::run(a),
    };
    match result {
        Ok(code) => code,
        Err(e) => {
            eprintln!("drivescope: {e:#}");
            ExitCode::from(cmd::EXIT_FAILURE)
        }
    }
}
