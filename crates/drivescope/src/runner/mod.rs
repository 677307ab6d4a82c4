//! The runner: what every measuring command shares, written once. A command's arguments become a
//! plan (a value: building it prints nothing and creates nothing); the plan implements [`Measure`];
//! [`run`] measures it in a [`Session`] (the stop that SIGINT and SIGTERM set, checkpoints, the
//! resume check) and sends its record out the one way (`finish`: printed, saved, its exit code).

pub mod cuts;
pub mod session;

pub use cuts::Cuts;
pub use session::Session;

use crate::finish::{finish, Cmd, Finish, Outcome};
use crate::opts::store::StoreOpts;
use drivescope_store::RunId;
use std::io::Write;

/// What a record's text looks like for people.
pub type Text<R> = Box<dyn Fn(&R, &mut dyn Write) -> std::io::Result<()>>;

/// A measuring command's plan.
pub trait Measure {
    /// What it measures into.
    type Record: drivescope_record::Record;
    /// The command, for its exit codes and for the line that says how to continue a stopped run.
    const CMD: Cmd;
    /// Whether a run that stopped early can be continued with `--resume`.
    const RESUMABLE: bool = false;
    /// Measure in `s`; the record and how it leaves.
    fn measure(self, s: &Session) -> anyhow::Result<Measured<Self::Record>>;
}

/// A finished measurement and how it leaves.
pub struct Measured<R> {
    pub rec: R,
    pub text: Text<R>,
    /// `--json`: the document on stdout instead of the text.
    pub json: bool,
    pub store: StoreOpts,
    /// The stored run the record takes the place of (its checkpoints, or the run it continues).
    pub replace: Option<RunId>,
}

impl<R: drivescope_record::Record + 'static> Measured<R> {
    /// `rec`, printed as `text` (which says the findings itself, where the kind has any).
    pub fn new(
        rec: R,
        text: fn(&R, &mut dyn Write) -> std::io::Result<()>,
        json: bool,
        store: StoreOpts,
        replace: Option<RunId>,
    ) -> Measured<R> {
        Measured {
            rec,
            text: Box::new(text),
            json,
            store,
            replace,
        }
    }

    /// `rec`, printed as `text` followed by its findings.
    pub fn with_findings(
        rec: R,
        text: fn(&R, &mut dyn Write) -> std::io::Result<()>,
        json: bool,
        store: StoreOpts,
        replace: Option<RunId>,
    ) -> Measured<R> {
        Measured {
            text: Box::new(crate::finish::and_findings(text)),
            ..Measured::new(rec, text, json, store, replace)
        }
    }
}

/// Measure `plan` in `s` and finish its record.
pub fn run<M: Measure>(plan: M, s: &Session) -> anyhow::Result<Outcome> {
    let m = plan.measure(s)?;
    let how = Finish {
        json: m.json,
        store: &m.store,
        replace: m.replace,
        resume_with: M::RESUMABLE.then_some(M::CMD),
    };
    finish(m.rec, &*m.text, how)
}

/// Measure `plan` in a session of this process.
pub fn main<M: Measure>(plan: M) -> anyhow::Result<Outcome> {
    run(plan, &Session::new()?)
}
