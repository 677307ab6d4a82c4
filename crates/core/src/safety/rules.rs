//! Every rule of the gate as one pure function of what was read about the device
//! ([`DeviceState`]) and what the user asked ([`WriteRequest`]).

use super::confirm::DeviceName;
use super::refusal::Refusal;
use super::signature::Signature;
use drivescope_probe::{BlockInfo, Identity, TargetKind};
use std::path::{Path, PathBuf};

/// What the user asked for.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct WriteRequest {
    /// `--destructive`: writing a device is what the user wants.
    pub destructive: bool,
    /// `--force`: a partition table or file-system signature may be overwritten.
    pub force: bool,
    /// `--confirm`, or the answer typed at the prompt.
    pub confirm: Option<String>,
    /// Paths whose file system must not be on the device (the results store).
    pub protect: Vec<PathBuf>,
}

/// What the rules look at, read once ([`DeviceState::read`]).
#[derive(Debug, Clone, PartialEq)]
pub struct DeviceState {
    /// The device as the user named it.
    pub spec: String,
    /// The device and the chain under it, as the probe reads it.
    pub identity: Identity,
    /// Its partitions, read as the probe reads a block device (mounts, holders).
    pub partitions: Vec<BlockInfo>,
    /// Kernel names of the block devices in use as swap.
    pub swap: Vec<String>,
    /// `major:minor` of the file system that holds `/`.
    pub root: Option<String>,
    /// The protected paths and the `major:minor` of the file system that holds each.
    pub protected: Vec<(PathBuf, String)>,
    /// What its first and last sectors hold.
    pub signature: Signature,
}

/// Proof that every rule passed for one device: only [`check`] makes one, and only an
/// approval opens a block device for writing.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Approval {
    path: PathBuf,
    major: u32,
    minor: u32,
    size: u64,
}

impl Approval {
    /// The device node it was given for.
    pub fn path(&self) -> &Path {
        &self.path
    }
    /// Its device number as (major, minor).
    pub fn dev(&self) -> (u32, u32) {
        (self.major, self.minor)
    }
    /// Its size in bytes when checked.
    pub fn size(&self) -> u64 {
        self.size
    }
}

/// Apply every rule, in this order, refusing with the first that fails:
/// `--destructive` given; a block device (whole or partition); then for it and each of its
/// partitions: not mounted, not swap, no holders, not holding `/`, not holding a protected
/// path; not read-only; its size known and not zero; no signature unless `--force`; and the
/// confirmation names it ([`DeviceName::accepts`]).
pub fn check(state: &DeviceState, req: &WriteRequest) -> Result<Approval, Refusal> {
    let dev = || state.spec.clone();
    let other = |msg: &str| Refusal::Other {
        dev: dev(),
        msg: msg.into(),
    };
    if !req.destructive {
        return Err(Refusal::NotDestructive(dev()));
    }
    let id = &state.identity;
    let target = id
        .target_block()
        .filter(|_| matches!(id.kind, TargetKind::BlockDevice | TargetKind::Partition))
        .ok_or_else(|| Refusal::NotBlockDevice(dev()))?;
    for (i, b) in std::iter::once(target).chain(&state.partitions).enumerate() {
        let what = || {
            if i == 0 {
                "the device".to_string()
            } else {
                format!("its partition {}", b.name)
            }
        };
        if let Some(at) = b.mount_points.first() {
            return Err(Refusal::Mounted {
                dev: dev(),
                what: what(),
                at: at.display().to_string(),
            });
        }
        if state.swap.contains(&b.name) {
            return Err(Refusal::Swap {
                dev: dev(),
                what: what(),
            });
        }
        if !b.holders.is_empty() {
            return Err(Refusal::Held {
                dev: dev(),
                what: what(),
                holders: b.holders.join(", "),
            });
        }
        let mm = b.major_minor.as_deref();
        if mm.is_some() && state.root.as_deref() == mm {
            return Err(Refusal::Root {
                dev: dev(),
                what: what(),
            });
        }
        if let Some((p, _)) = state.protected.iter().find(|(_, d)| Some(d.as_str()) == mm) {
            return Err(Refusal::Protected {
                dev: dev(),
                what: what(),
                protected: p.display().to_string(),
            });
        }
    }
    if target.read_only == Some(true) {
        return Err(Refusal::ReadOnly(dev()));
    }
    let size = target.size_bytes.ok_or_else(|| other("size unknown"))?;
    if size == 0 {
        return Err(other("the device is empty (no medium?)"));
    }
    let (major, minor) = target
        .major_minor
        .as_deref()
        .and_then(|mm| mm.split_once(':'))
        .and_then(|(a, b)| Some((a.parse().ok()?, b.parse().ok()?)))
        .ok_or_else(|| other("device number unknown"))?;
    if !req.force {
        match &state.signature {
            Signature::Clean => {}
            Signature::Found { what, offset } => {
                return Err(Refusal::Signature {
                    dev: dev(),
                    signature: what.clone(),
                    offset: *offset,
                })
            }
            Signature::Unreadable(msg) => return Err(other(msg)),
            Signature::NotRead => return Err(other("its first sectors were not read")),
        }
    }
    let name = DeviceName::of(id).ok_or_else(|| other("size unknown"))?;
    match &req.confirm {
        None => Err(Refusal::NotConfirmed {
            dev: dev(),
            desc: name.describe(),
            expected: name.confirmation_arg(),
            kind: name.kind().into(),
        }),
        Some(given) if !name.accepts(given) => Err(Refusal::WrongConfirmation {
            dev: dev(),
            desc: name.describe(),
            given: given.clone(),
            expected: name.confirmation_arg(),
            kind: name.kind().into(),
        }),
        Some(_) => Ok(Approval {
            path: PathBuf::from(&state.spec),
            major,
            minor,
            size,
        }),
    }
}
