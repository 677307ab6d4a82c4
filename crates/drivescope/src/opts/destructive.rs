//! `--destructive`, `--confirm`, `--force`: the user's side of the destructive gate
//! (`drivescope_core::safety`), shared by `scan --write` and the write tests of bench, sweep
//! and soak. The gate decides; this asks the question on a terminal and reports the refusal.

use crate::finish::Refused;
use drivescope_core::safety::{self, WriteError, WriteRequest};
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
    #[arg(long, value_name = "SERIAL", help = confirm_help())]
    pub confirm: Option<String>,
    /// With --destructive: write even over a partition table or file-system signature.
    #[arg(long)]
    pub force: bool,
}

/// `--confirm`'s help, with the example spelled by the gate's own function.
fn confirm_help() -> String {
    format!(
        "Name the device to write: its serial number, or, for a device without one, its model \
         (kernel name when it has none) and size as `drivescope info` shows them (\"{}\")",
        safety::confirmation_example()
    )
}

/// Open `spec` for destructive writes, or refuse with one line (exit code 3).
/// `protect`: the results store, whose file system must not be on the device.
pub fn open(spec: &str, d: &DestructiveOpts, protect: &[PathBuf]) -> anyhow::Result<Target> {
    let req = WriteRequest {
        destructive: d.destructive,
        force: d.force,
        confirm: d.confirm.clone(),
        protect: protect.to_vec(),
    };
    safety::open_for_write(spec, &req, ask).map_err(|e| match e {
        WriteError::Refused(r) => Refused(r.to_string()).into(),
        WriteError::Open(e) => e.into(),
    })
}

/// Open a scan's target: read-only, or, to write, through the gate for a block device (the null target
/// stores nothing and needs none). Writes to anything else are refused: drivescope never writes to an
/// existing file. `command` names the command in the refusal (`scan`, `screen`).
pub fn open_scan_target(
    spec: &str,
    write: bool,
    command: &str,
    d: &DestructiveOpts,
    protect: &[PathBuf],
) -> anyhow::Result<Target> {
    if !write || spec.starts_with("null:") {
        return Ok(Target::open_read(spec)?);
    }
    let meta = std::fs::metadata(spec).map_err(|e| match e.kind() {
        std::io::ErrorKind::NotFound => anyhow::anyhow!("{spec}: no such file or device"),
        _ => anyhow::anyhow!("{spec}: {e}"),
    })?;
    if !std::os::unix::fs::FileTypeExt::is_block_device(&meta.file_type()) {
        return Err(Refused(format!(
            "{spec}: {command} --write writes only to block devices (drivescope never writes to an \
             existing file)"
        ))
        .into());
    }
    open(spec, d, protect)
}

/// On a terminal, put the gate's question and read the answer; None elsewhere.
fn ask(question: &str) -> Option<String> {
    if !(std::io::stdin().is_terminal() && std::io::stderr().is_terminal()) {
        return None;
    }
    let mut err = std::io::stderr();
    let _ = write!(err, "{question}");
    let _ = err.flush();
    let mut line = String::new();
    std::io::stdin().lock().read_line(&mut line).ok()?;
    let line = line.trim().to_string();
    (!line.is_empty()).then_some(line)
}

#[cfg(test)]
mod tests {
    use drivescope_core::safety::confirmation_example;

    /// The README shows the same confirmation example as `--help` and the gate.
    #[test]
    fn readme_shows_the_gates_example() {
        let readme = include_str!("../../../../README.md");
        let shown = format!("--confirm \"{}\"", confirmation_example());
        assert!(
            readme.contains(&shown),
            "README.md should show {shown} (the spelling drivescope shows and accepts)"
        );
    }

    /// Every command with a write gate shows the example in its `--help`.
    #[test]
    fn help_shows_the_gates_example() {
        use clap::CommandFactory;
        let mut cli = crate::Cli::command();
        for sub in ["scan", "screen", "bench", "sweep", "soak", "steady"] {
            let help = cli
                .find_subcommand_mut(sub)
                .unwrap_or_else(|| panic!("no {sub}"))
                .render_help()
                .to_string();
            assert!(
                help.contains(&format!("(\"{}\")", confirmation_example())),
                "{sub} --help: {help}"
            );
        }
    }
}
