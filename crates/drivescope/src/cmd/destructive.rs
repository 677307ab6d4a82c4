//! `--destructive`, `--confirm`, `--force`: the user's side of the destructive gate
//! (`drivescope_core::safety`), shared by `scan --write` and the write tests of bench, sweep
//! and soak.

use super::Refused;
use drivescope_core::safety::{self, Candidate};
use drivescope_core::target::Target;
use std::io::{BufRead, IsTerminal, Write};
use std::path::PathBuf;

#[derive(clap::Args, Debug, Clone, Default)]
pub struct DestructiveOpts {
    /// Allow writing to a block device, destroying its data. Needs --confirm (or, on a
    /// terminal, the serial typed at a prompt); refused while the device or a partition of it
    /// is mounted, swap, held (md, dm, LVM), holds / or the results store.
    #[arg(long)]
    pub destructive: bool,
    /// Name the device to write: its serial number, or, for a device without one, its model
    /// (kernel name when it has none) and size as `drivescope info` shows them ("loop3 1.00 GiB").
    #[arg(long, value_name = "SERIAL")]
    pub confirm: Option<String>,
    /// With --destructive: write even over a partition table or file-system signature.
    #[arg(long)]
    pub force: bool,
}

/// Open `spec` for destructive writes, or refuse with one line (exit code 3).
/// `protect`: the results store, whose file system must not be on the device.
pub fn open(spec: &str, d: &DestructiveOpts, protect: &[PathBuf]) -> anyhow::Result<Target> {
    if !d.destructive {
        return Err(Refused(format!(
            "{spec}: writing a block device destroys its data; add --destructive and \
             --confirm SERIAL (see `drivescope info {spec}`)"
        ))
        .into());
    }
    let cand = safety::inspect(spec, protect, d.force).map_err(|e| Refused(e.to_string()))?;
    let given = match &d.confirm {
        Some(c) => Some(c.clone()),
        None => prompt(&cand),
    };
    let gate = cand
        .confirm(given.as_deref())
        .map_err(|e| Refused(e.to_string()))?;
    Ok(Target::open_destructive(&gate)?)
}

/// On a terminal, ask for the serial (or model and size); None elsewhere.
fn prompt(c: &Candidate) -> Option<String> {
    if !(std::io::stdin().is_terminal() && std::io::stderr().is_terminal()) {
        return None;
    }
    let mut err = std::io::stderr();
    let _ = write!(
        err,
        "drivescope: this DESTROYS ALL DATA on {} ({}).\nType {} to go on: ",
        c.spec(),
        c.describe(),
        c.expected_kind()
    );
    let _ = err.flush();
    let mut line = String::new();
    std::io::stdin().lock().read_line(&mut line).ok()?;
    let line = line.trim().to_string();
    (!line.is_empty()).then_some(line)
}
