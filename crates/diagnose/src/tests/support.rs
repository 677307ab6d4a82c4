//! Running a diagnosis on a modelled device, and reading what it found.

use super::model::{Model, Seen, GIB};
use crate::{diagnose_on, DiagnoseOptions, DiagnoseRun};
use drivescope_core::engine::{DataPattern, EngineKind};
use drivescope_core::target::Target;
use drivescope_record::{
    DiagnoseRecord, Experiment, Finding, FindingCode, Header, Kind, Outcome, Verdict,
};
use std::sync::atomic::AtomicBool;
use std::sync::Arc;
use std::time::Duration;

/// A read-only diagnosis of a whole 1 GiB block device in `budget_s` seconds.
pub fn options(budget_s: u64) -> DiagnoseOptions {
    DiagnoseOptions {
        engine: EngineKind::Auto,
        data: DataPattern::Zero,
        size: GIB,
        budget: Duration::from_secs(budget_s),
        writes: false,
        no_writes_why: "read-only: write experiments on a device need --destructive and --confirm"
            .into(),
        whole_device: true,
        block_device: true,
        watch: None,
    }
}

/// The same, with write experiments allowed.
pub fn writing(budget_s: u64) -> DiagnoseOptions {
    DiagnoseOptions {
        writes: true,
        ..options(budget_s)
    }
}

/// A diagnosis that ran, with what the device saw.
pub struct Diagnosed {
    pub rec: DiagnoseRecord,
    pub seen: Arc<Seen>,
    /// The experiments announced, in order.
    pub said: Vec<Experiment>,
    /// Virtual time the device ran, ns.
    pub device_ns: u64,
}

/// Diagnose the device `m` models.
pub fn diagnose(m: Model, o: &DiagnoseOptions) -> Diagnosed {
    diagnose_with(
        m,
        o,
        DiagnoseRun::default(),
        &AtomicBool::new(false),
        |_| {},
    )
}

/// Diagnose the device `m` models, continuing `run`, stopped by `stop`; `on_say` hears each experiment as it
/// starts.
pub fn diagnose_with(
    m: Model,
    o: &DiagnoseOptions,
    run: DiagnoseRun,
    stop: &AtomicBool,
    mut on_say: impl FnMut(Experiment),
) -> Diagnosed {
    let size = m.size;
    let (dev, seen) = m.device();
    let target = Target::open_read(&format!("null:{size}")).unwrap();
    let header = Header::new(
        Kind::Diagnose,
        target.info(),
        "host".into(),
        "2026-11-25T00:00:00Z".into(),
    );
    let mut said = Vec::new();
    let rec = diagnose_on(&dev, &target, header, o, run, stop, &mut |e, _| {
        said.push(e);
        on_say(e);
    });
    Diagnosed {
        rec,
        seen,
        said,
        device_ns: dev.device_ns(),
    }
}

impl Diagnosed {
    pub fn finding(&self, code: FindingCode) -> Option<&Finding> {
        self.rec.header.findings.iter().find(|f| f.code == code)
    }

    /// The finding `code`, which must be there; its numbers are read with [`Diagnosed::number`].
    pub fn found(&self, code: FindingCode) -> &Finding {
        self.finding(code.clone())
            .unwrap_or_else(|| panic!("no {code:?} finding; outcomes: {:#?}", self.rec.outcomes))
    }

    pub fn number(&self, code: FindingCode, name: &str) -> f64 {
        let f = self.found(code.clone());
        f.number(name)
            .unwrap_or_else(|| panic!("{code:?} has no {name}: {:?}", f.evidence))
    }

    pub fn outcome(&self, e: Experiment) -> &Outcome {
        self.rec
            .outcomes
            .iter()
            .find(|o| o.experiment == e)
            .unwrap_or_else(|| panic!("no outcome for {e:?}: {:#?}", self.rec.outcomes))
    }

    pub fn verdict(&self, e: Experiment) -> Verdict {
        self.outcome(e).verdict
    }

    /// Why `e` was skipped, if it was.
    pub fn skipped(&self, e: Experiment) -> Option<&str> {
        self.rec
            .skipped
            .iter()
            .find(|s| s.experiment == e)
            .map(|s| s.why.as_str())
    }

    pub fn codes(&self) -> Vec<FindingCode> {
        self.rec
            .header
            .findings
            .iter()
            .map(|f| f.code.clone())
            .collect()
    }
}

/// `got` within `rel` (relative) of `want`.
#[track_caller]
pub fn near(what: &str, got: f64, want: f64, rel: f64) {
    assert!(
        (got - want).abs() <= want.abs() * rel,
        "{what}: {got} is not within {:.0} % of {want}",
        rel * 100.0
    );
}

/// The experiment whose outcome line speaks of `code`.
pub fn experiment_of(code: &FindingCode) -> Option<Experiment> {
    Some(match code {
        FindingCode::Zones => Experiment::Zones,
        FindingCode::LinkCap => Experiment::Link,
        FindingCode::WarmUp => Experiment::WarmUp,
        FindingCode::ThermalThrottle => Experiment::Throttle,
        FindingCode::ReadCache => Experiment::ReadCache,
        FindingCode::WriteBurst => Experiment::WriteCache,
        FindingCode::Smr => Experiment::Smr,
        FindingCode::NoQueueing => Experiment::Queueing,
        _ => return None,
    })
}
