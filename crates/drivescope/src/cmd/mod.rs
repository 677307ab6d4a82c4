//! One file per subcommand.

pub mod bench;
pub mod capacity;
pub mod compare;
pub mod compare_prediction;
pub mod completions;
pub mod diagnose;
pub mod durability;
pub mod durability_power_cut;
pub mod export;
pub mod info;
pub mod lab;
pub mod manpage;
pub mod replay;
pub mod report;
pub mod runs;
pub mod scan;
pub mod screen;
pub mod serve;
pub mod show;
pub mod soak;
pub mod steady;
pub mod store;
pub mod sweep;
pub mod time;
pub mod time_predict;

/// Writes what `exporter` makes of `runs` to `file`, or to stdout. The export is made in full first, so a
/// failed one leaves no file behind.
pub fn emit(
    exporter: &dyn drivescope_report::Exporter,
    runs: &[drivescope_report::Run],
    file: Option<&std::path::Path>,
) -> anyhow::Result<()> {
    use anyhow::Context;
    let bytes = exporter.to_bytes(runs)?;
    match file {
        Some(path) => {
            std::fs::write(path, bytes).with_context(|| format!("writing {}", path.display()))
        }
        None => Ok(crate::finish::print_all(&bytes)?),
    }
}
