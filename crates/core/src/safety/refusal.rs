//! Why a destructive write was refused: one line each.

/// Why a destructive write was refused. One line each.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum Refusal {
    #[error("{0}: writing a block device destroys its data; add --destructive and --confirm SERIAL (see `drivescope info {0}`)")]
    NotDestructive(String),
    #[error("{0}: writes go only to block devices (and to test files drivescope creates in a directory)")]
    NotBlockDevice(String),
    #[error("{dev}: {what} is mounted on {at}; unmount it first")]
    Mounted {
        dev: String,
        what: String,
        at: String,
    },
    #[error("{dev}: {what} is in use as swap; swapoff it first")]
    Swap { dev: String, what: String },
    #[error(
        "{dev}: {what} is held by {holders} (md, device-mapper, LVM or similar); stop those first"
    )]
    Held {
        dev: String,
        what: String,
        holders: String,
    },
    #[error("{dev}: {what} holds the root file system")]
    Root { dev: String, what: String },
    #[error("{dev}: {what} holds {protected}")]
    Protected {
        dev: String,
        what: String,
        protected: String,
    },
    #[error("{0}: the device is read-only")]
    ReadOnly(String),
    #[error(
        "{dev}: it carries {signature} (at byte {offset}); add --force to overwrite it anyway"
    )]
    Signature {
        dev: String,
        signature: String,
        offset: u64,
    },
    #[error(
        "{dev} ({desc}): writing destroys its data; confirm with --confirm {expected} ({kind})"
    )]
    NotConfirmed {
        dev: String,
        desc: String,
        /// The confirmation, quoted for a shell when it has spaces.
        expected: String,
        kind: String,
    },
    #[error("{dev} ({desc}): the confirmation {given:?} does not name this device; it takes --confirm {expected} ({kind})")]
    WrongConfirmation {
        dev: String,
        desc: String,
        given: String,
        expected: String,
        kind: String,
    },
    #[error("{dev}: {msg}")]
    Other { dev: String, msg: String },
}
