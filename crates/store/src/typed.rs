//! Reading runs as their records: a run named on the command line (`12`, `last`), the runs of one
//! kind read as that kind's record, the newest of them, how a run stands now, and saving in place
//! of a checkpoint run.

use crate::error::{Error, Result};
use crate::query::{ListFilter, RunInfo};
use crate::{RunId, Store};
use drivescope_record::{Document, FromDocument, Kind, RunState, RunStatus};

/// The runs [`Store::runs_of`] walks: each listed run read as `T`, newest first.
pub struct RunsOf<'s, T> {
    store: &'s Store,
    listed: std::vec::IntoIter<RunInfo>,
    of: std::marker::PhantomData<T>,
}

impl<T: FromDocument> Iterator for RunsOf<'_, T> {
    type Item = Result<(RunId, T)>;

    /// The next run that reads as `T`: runs of another type and damaged ones are passed over; a
    /// store that fails to answer ends the walk with its error.
    fn next(&mut self) -> Option<Self::Item> {
        for info in self.listed.by_ref() {
            match self.store.get(info.id) {
                Ok(doc) => match T::from_document(doc) {
                    Ok(rec) => return Some(Ok((info.id, rec))),
                    Err(_) => continue,
                },
                Err(Error::Corrupt(..) | Error::NotFound(_)) => continue,
                Err(e) => {
                    self.listed = Vec::new().into_iter();
                    return Some(Err(e));
                }
            }
        }
        None
    }
}

impl Store {
    /// The run `run` names: its number, or `last` for the newest run (the newest of `kind` when
    /// given: a screen saves its drives' scans after its own start, so the newest run of all is
    /// one of them). A number is taken as it is; reading it says whether it is there.
    pub fn resolve(&self, run: &str, kind: Option<Kind>) -> Result<RunId> {
        if run != "last" {
            return run
                .parse()
                .map(RunId)
                .map_err(|e| Error::NotARunName(run.to_string(), e));
        }
        let newest = self.list(&ListFilter {
            kind: kind.as_ref().map(|k| k.as_str().to_string()),
            limit: Some(1),
            ..ListFilter::default()
        })?;
        newest.first().map(|r| r.id).ok_or(Error::NoRuns(kind))
    }

    /// The runs matching `filter` that read as `T`, newest first (oldest first when the filter
    /// says so), read one at a time as the walk goes. A filter that names no kind asks for `T`'s
    /// ([`FromDocument::kind`]). Runs of another type and damaged ones are passed over.
    pub fn runs_of<T: FromDocument>(&self, filter: &ListFilter) -> Result<RunsOf<'_, T>> {
        let mut filter = filter.clone();
        if filter.kind.is_none() {
            filter.kind = T::kind().map(|k| k.as_str().to_string());
        }
        Ok(RunsOf {
            store: self,
            listed: self.list(&filter)?.into_iter(),
            of: std::marker::PhantomData,
        })
    }

    /// The newest run matching `filter` that reads as `T` (see [`Store::runs_of`]).
    pub fn latest<T: FromDocument>(&self, filter: &ListFilter) -> Result<Option<(RunId, T)>> {
        self.runs_of(filter)?.next().transpose()
    }

    /// How the listed run stands now ([`RunStatus::of`]): its document is read only when it was
    /// saved as a checkpoint, to ask whether the process that saves them still runs (a
    /// checkpoint that cannot be read counts as interrupted). `None` for documents that are not
    /// runs.
    pub fn status(&self, info: &RunInfo) -> Option<RunStatus> {
        Some(match info.state? {
            RunState::Checkpoint => match self.get(info.id) {
                Ok(doc) => RunStatus::of(&doc).unwrap_or(RunStatus::Interrupted),
                Err(_) => RunStatus::Interrupted,
            },
            saved => RunStatus::of_saved(saved, None),
        })
    }

    /// Saves `doc` in place of run `over` when given (the run a long job's checkpoints went to),
    /// else as a new run; a new run too when `over` is gone. Returns the run's number.
    pub fn save_or_replace(&mut self, doc: &Document, over: Option<RunId>) -> Result<RunId> {
        match over {
            Some(id) => match self.replace(id, doc) {
                Err(Error::NotFound(_)) => self.save(doc),
                r => r.map(|()| id),
            },
            None => self.save(doc),
        }
    }
}
