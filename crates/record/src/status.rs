//! How a run stands now, as people are shown it: the state its document was saved in, with a
//! checkpoint told apart into a run that is still going and one whose process has gone.
//!
//! [`crate::RunState`] is what the document says and what the store indexes; it cannot know
//! whether the process behind a checkpoint still runs. Every reader that shows a run's state
//! (`runs`, `show`, `serve`) asks [`RunStatus::of`] so they all say the same word.

use crate::{Checkpoint, Document, RunState};

/// How a run stands now.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum RunStatus {
    /// It ran to the end of what it was asked.
    Finished,
    /// Its last document is a checkpoint and the process that saves them still runs.
    Running,
    /// It was stopped early (SIGINT, SIGTERM), or its last document is a checkpoint whose process
    /// has gone (killed, crashed, the machine went down).
    Interrupted,
    /// The device went away during the run.
    DeviceLost,
}

impl RunStatus {
    /// The name machine-readable lists write (`runs --json`): `finished`, `running`,
    /// `interrupted`, `device_lost`.
    pub fn as_str(self) -> &'static str {
        match self {
            RunStatus::Finished => "finished",
            RunStatus::Running => "running",
            RunStatus::Interrupted => "interrupted",
            RunStatus::DeviceLost => "device_lost",
        }
    }

    /// The words a person reads: `finished`, `running`, `interrupted`, `device lost`.
    pub fn words(self) -> &'static str {
        match self {
            RunStatus::DeviceLost => "device lost",
            s => s.as_str(),
        }
    }

    /// The status of a run saved in `state`; `checkpoint` is who saved its last document, when
    /// it is a checkpoint (a checkpoint that does not say who saved it counts as interrupted).
    pub fn of_saved(state: RunState, checkpoint: Option<&Checkpoint>) -> RunStatus {
        match state {
            RunState::Finished => RunStatus::Finished,
            RunState::Interrupted => RunStatus::Interrupted,
            RunState::DeviceLost => RunStatus::DeviceLost,
            RunState::Checkpoint if checkpoint.is_some_and(Checkpoint::writer_running) => {
                RunStatus::Running
            }
            RunState::Checkpoint => RunStatus::Interrupted,
        }
    }

    /// The status of the run `doc` records (`None` for a document that is not a run).
    pub fn of(doc: &Document) -> Option<RunStatus> {
        Some(RunStatus::of_saved(doc.state()?, doc.checkpoint()))
    }
}

impl std::fmt::Display for RunStatus {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.pad(self.words())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::liveness::ended_process;

    #[test]
    fn a_checkpoint_is_running_while_its_process_runs_and_interrupted_after() {
        let me = Checkpoint::this_process(1);
        let ended = ended_process();
        let of = RunStatus::of_saved;
        assert_eq!(of(RunState::Checkpoint, Some(&me)), RunStatus::Running);
        assert_eq!(
            of(RunState::Checkpoint, Some(&ended)),
            RunStatus::Interrupted
        );
        assert_eq!(of(RunState::Checkpoint, None), RunStatus::Interrupted);
        // What a document says of its own end is kept, whoever saved it.
        assert_eq!(of(RunState::Finished, Some(&me)), RunStatus::Finished);
        assert_eq!(of(RunState::Interrupted, None), RunStatus::Interrupted);
        assert_eq!(of(RunState::DeviceLost, None), RunStatus::DeviceLost);
    }

    #[test]
    fn names_for_lists_and_words_for_people() {
        assert_eq!(RunStatus::DeviceLost.as_str(), "device_lost");
        assert_eq!(RunStatus::DeviceLost.to_string(), "device lost");
        assert_eq!(RunStatus::Running.words(), "running");
        assert_eq!(format!("{:<9}|", RunStatus::Finished), "finished |");
    }
}
