//! What `--resume` checks: the stored run to continue (not still running, of the command's kind,
//! with something left to do), and that it continues on the target and device it ran on.

use drivescope_probe::Identity;
use drivescope_record::{FromDocument, Header, Kind};
use drivescope_store::RunId;

/// The stored run `run` names (a number, or `last`: the newest run, of `last_of` when given) to
/// continue: refused while its process still runs, an error when it is `not_it` (another kind),
/// or when `left` says why nothing is left to do.
pub fn load<T: FromDocument>(
    store: &crate::opts::store::StoreOpts,
    run: &str,
    last_of: Option<Kind>,
    not_it: &str,
    left: impl FnOnce(&T) -> Option<String>,
) -> anyhow::Result<(RunId, T)> {
    // A name that can never be a run is said before the store is looked for.
    if run != "last" {
        if let Err(e) = run.parse::<i64>() {
            return Err(drivescope_store::Error::NotARunName(run.to_string(), e).into());
        }
    }
    let store = store.open_store()?;
    let id = store.resolve(run, last_of)?;
    let doc = store.get(id)?;
    crate::checkpoints::refuse_running(&doc, id.0)?;
    let rec = T::from_document(doc).map_err(|_| anyhow::anyhow!("run {} is not {not_it}", id.0))?;
    if let Some(why) = left(&rec) {
        anyhow::bail!("run {} {why}", id.0);
    }
    Ok((id, rec))
}

/// A run continues on the target it ran on: the same path, and the same device by the rule
/// `scan --resume` follows (the same serial numbers when it had any).
/// `ran_on`: the target path the run was given (its header's, or the directory its test file was
/// in).
pub fn check_same_target(
    run: &Header,
    ran_on: &str,
    target: &str,
    device: &Option<Identity>,
    id: i64,
) -> anyhow::Result<()> {
    let canonical = |s: &str| std::fs::canonicalize(s).unwrap_or_else(|_| s.into());
    if canonical(target) != canonical(ran_on) {
        return Err(crate::finish::Refused(format!(
            "run {id} ran on {ran_on}, not {target}; refused"
        ))
        .into());
    }
    check_same_device(run.device.as_ref(), device, id)
}

/// The device must be the one of the interrupted run: same serial numbers when it had any, else
/// nothing known of both that differs.
pub fn check_same_device(
    prior: Option<&Identity>,
    now: &Option<Identity>,
    id: i64,
) -> anyhow::Result<()> {
    drivescope_core::checkpoint::same_device(prior, now.as_ref()).map_err(|why| {
        crate::finish::Refused(format!("run {id} was made on {why}; refused")).into()
    })
}
