//! How a run ended, as its document says.

/// How a run ended: what `runs` lists and filters on.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum RunState {
    /// It ran to the end of what it was asked.
    Finished,
    /// It was stopped early (SIGINT, SIGTERM); a full scan can be continued with `--resume`.
    Interrupted,
    /// The device went away during the run.
    DeviceLost,
    /// A checkpoint of a scan, a soak, a screen or a diagnosis: the run is still going, or it was killed
    /// before it could save its own document (see [`crate::Checkpoint`]).
    Checkpoint,
}

impl RunState {
    pub fn as_str(self) -> &'static str {
        match self {
            RunState::Finished => "finished",
            RunState::Interrupted => "interrupted",
            RunState::DeviceLost => "device_lost",
            RunState::Checkpoint => "checkpoint",
        }
    }

    /// The state a stored name stands for (`None` for a name this version does not know).
    pub fn parse(s: &str) -> Option<RunState> {
        [
            RunState::Finished,
            RunState::Interrupted,
            RunState::DeviceLost,
            RunState::Checkpoint,
        ]
        .into_iter()
        .find(|r| r.as_str() == s)
    }
}

impl std::fmt::Display for RunState {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.pad(self.as_str())
    }
}

impl crate::Document {
    /// How the run ended (`None` for a document that is not a run: info, unknown kinds).
    pub fn state(&self) -> Option<RunState> {
        use crate::Document as D;
        let interrupted = match self {
            _ if self.checkpoint().is_some() => return Some(RunState::Checkpoint),
            D::Scan(r) if r.device_lost.is_some() => return Some(RunState::DeviceLost),
            D::Scan(r) => r.interrupted,
            D::Bench(r) => r.workload.interrupted,
            D::Sweep(r) => r.workload.interrupted,
            D::Soak(r) => r.workload.interrupted,
            D::Diagnose(r) if r.device_error.is_some() => return Some(RunState::DeviceLost),
            D::Diagnose(r) => r.workload.interrupted,
            D::Screen(r) => r.interrupted,
            D::Time(r) => r.interrupted,
            D::Capacity(r) => r.interrupted,
            D::Steady(r) => r.workload.interrupted,
            D::Durability(r) => r.interrupted,
            D::Replay(r) => r.interrupted,
            D::Multi(r) => r.interrupted,
            D::Info(_) | D::Unknown { .. } => return None,
        };
        Some(if interrupted {
            RunState::Interrupted
        } else {
            RunState::Finished
        })
    }
}

impl crate::Document {
    /// Who saved this document while the run went on, when it is a checkpoint.
    pub fn checkpoint(&self) -> Option<&crate::Checkpoint> {
        match self {
            crate::Document::Scan(r) => r.checkpoint.as_ref(),
            crate::Document::Soak(r) => r.checkpoint.as_ref(),
            crate::Document::Screen(r) => r.checkpoint.as_ref(),
            crate::Document::Diagnose(r) => r.checkpoint.as_ref(),
            crate::Document::Steady(r) => r.checkpoint.as_ref(),
            _ => None,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::RunState;

    #[test]
    fn names_read_back() {
        for s in [
            RunState::Finished,
            RunState::Interrupted,
            RunState::DeviceLost,
            RunState::Checkpoint,
        ] {
            assert_eq!(RunState::parse(s.as_str()), Some(s));
        }
        assert_eq!(RunState::parse("paused"), None);
    }
}
