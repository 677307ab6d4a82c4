//! The gate in front of every destructive write to a block device.
//!
//! [`open_for_write`] is the only way to open a block device for writing. It reads what the
//! rules look at once ([`DeviceState::read`], through the probe), applies every rule
//! ([`check`], a pure function of that state and the [`WriteRequest`], so the rules are
//! tested on the probe's fixture trees), asks for the confirmation when none was given, and
//! opens the device with `O_EXCL`, so the kernel itself refuses a device that was mounted or
//! claimed between the checks and the open.
//!
//! Rules, each refused with one line ([`Refusal`]):
//! * `--destructive` is given;
//! * the target is a whole block device or partition (never a regular file);
//! * neither it nor any of its partitions is mounted or used as swap;
//! * neither it nor any of its partitions has holders (md, dm, LVM, bcache);
//! * neither it nor any of its partitions holds the root file system or a protected path
//!   (drivescope's own results store);
//! * it is not read-only;
//! * it carries no partition table or file-system signature, unless `force`;
//! * the confirmation names it: its serial, or (without a serial) its model (or kernel name
//!   when it has no model) and its size as `drivescope info` shows them ([`DeviceName`]).

mod confirm;
mod read;
mod refusal;
mod rules;
mod signature;

pub use confirm::{confirmation_example, DeviceName};
pub use refusal::Refusal;
pub use rules::{check, Approval, DeviceState, WriteRequest};
pub use signature::Signature;

use crate::target::{Target, TargetError};
use drivescope_probe::Roots;

/// Why a device could not be opened for writing.
#[derive(Debug, thiserror::Error)]
pub enum WriteError {
    /// A rule refused it (exit code 3).
    #[error(transparent)]
    Refused(#[from] Refusal),
    /// It passed, but opening it failed (busy, gone, changed since the checks).
    #[error(transparent)]
    Open(#[from] TargetError),
}

/// Open the block device `spec` for destructive writes, or say why not. When the request
/// carries no confirmation and every other rule passed, `ask` is given the question to put to
/// the user ([`DeviceName::prompt`]) and returns the answer, or None where no one can answer.
pub fn open_for_write(
    spec: &str,
    req: &WriteRequest,
    ask: impl FnOnce(&str) -> Option<String>,
) -> Result<Target, WriteError> {
    let state = DeviceState::read(spec, &Roots::default(), req)?;
    let approval = match check(&state, req) {
        Err(Refusal::NotConfirmed { .. }) if req.confirm.is_none() => {
            let question = DeviceName::of(&state.identity).map(|n| n.prompt(spec));
            let req = WriteRequest {
                confirm: question.as_deref().and_then(ask),
                ..req.clone()
            };
            check(&state, &req)?
        }
        checked => checked?,
    };
    Ok(Target::open_block_rw(
        approval.path(),
        approval.dev(),
        approval.size(),
    )?)
}
