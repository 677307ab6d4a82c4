//! What `--resume` of a soak or a diagnosis checks of the target given: the run's own.

use drivescope_probe::Identity;
use drivescope_record::Header;

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

/// The device must be the one of the interrupted run: same serial numbers when it had any.
pub fn check_same_device(
    prior: Option<&Identity>,
    now: &Option<Identity>,
    id: i64,
) -> anyhow::Result<()> {
    drivescope_core::checkpoint::same_device(prior, now.as_ref()).map_err(|(then, current)| {
        crate::finish::Refused(format!(
            "run {id} was made on serial {}, this device has {}; refused",
            then.join(", "),
            if current.is_empty() {
                "none".to_string()
            } else {
                current.join(", ")
            }
        ))
        .into()
    })
}
