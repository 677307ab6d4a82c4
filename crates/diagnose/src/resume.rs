//! A diagnosis stopped before its end (a signal, `kill -9`, a failed device) and continued: what its
//! checkpoints hold, what a resumed run keeps, and the test file a killed run left behind.

use drivescope_record::{DiagnoseRecord, DiagnoseResume, Experiment, OwnFile, Skipped};
use std::os::unix::fs::MetadataExt;
use std::path::Path;

/// How far a diagnosis got: the experiments that ran to their end, and the budget they used.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Progress {
    pub finished: Vec<Experiment>,
    pub finished_ns: u64,
}

impl Progress {
    fn unfinished(&self) -> impl Iterator<Item = Experiment> + '_ {
        Experiment::ALL
            .into_iter()
            .filter(|e| !self.finished.contains(e))
    }
}

/// The stopped diagnosis `prior` made ready to go on: the finished experiments kept as they are, every
/// other one forgotten (an experiment cut short runs again whole), the device error, the stop and the
/// findings cleared (they are computed again over every experiment).
pub(crate) fn continued(mut prior: DiagnoseRecord) -> (DiagnoseRecord, Progress) {
    let progress = prior
        .resume
        .take()
        .map_or_else(Progress::default, |r| Progress {
            finished: r.finished,
            finished_ns: r.finished_ns,
        });
    for e in progress.unfinished() {
        prior.clear(e);
    }
    prior.device_error = None;
    prior.lost_inconclusive = None;
    prior.workload.interrupted = false;
    prior.checkpoint = None;
    prior.header.findings.clear();
    prior.outcomes.clear();
    (prior, progress)
}

/// What a diagnosis would save were it stopped now: the finished experiments with their findings, the
/// others listed as not run, and what `--resume` needs.
pub(crate) fn snapshot(
    rec: &DiagnoseRecord,
    p: &Progress,
    directory: Option<&str>,
    test_file: Option<OwnFile>,
) -> DiagnoseRecord {
    let mut s = rec.clone();
    for e in p.unfinished() {
        s.clear(e);
        s.skipped.push(Skipped {
            experiment: e,
            why: "not run: the diagnosis stopped before it".into(),
        });
    }
    s.workload.interrupted = true;
    s.elapsed_ns = p.finished_ns;
    s.resume = left(p, directory).map(|r| DiagnoseResume { test_file, ..r });
    crate::assess(&mut s);
    s
}

/// The resume state of a diagnosis that got as far as `p`: none when every experiment ran to its end.
pub(crate) fn left(p: &Progress, directory: Option<&str>) -> Option<DiagnoseResume> {
    (p.unfinished().next().is_some()).then(|| DiagnoseResume {
        planned: Experiment::ALL.to_vec(),
        finished: p.finished.clone(),
        finished_ns: p.finished_ns,
        directory: directory.map(str::to_string),
        test_file: None,
    })
}

/// Remove the test file `f` that a killed diagnosis left in its directory target `dir`: only that file
/// (its name a test file's, in `dir`, the same inode), and only when it is still there. `Ok(true)` when it
/// was removed.
pub fn remove_stale(f: &OwnFile, dir: &Path) -> std::io::Result<bool> {
    let path = Path::new(&f.path);
    let named = path
        .file_name()
        .and_then(|n| n.to_str())
        .is_some_and(|n| n.starts_with("drivescope-test-") && n.ends_with(".tmp"));
    let canonical = |p: &Path| std::fs::canonicalize(p).unwrap_or_else(|_| p.to_path_buf());
    let in_dir = path
        .parent()
        .is_some_and(|p| canonical(p) == canonical(dir));
    if !named || !in_dir {
        return Err(std::io::Error::new(
            std::io::ErrorKind::InvalidInput,
            format!(
                "{} is not a test file of {}; left as it is",
                f.path,
                dir.display()
            ),
        ));
    }
    match std::fs::symlink_metadata(path) {
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(false),
        Err(e) => Err(e),
        Ok(m) if m.file_type().is_file() && m.ino() == f.inode => {
            std::fs::remove_file(path)?;
            Ok(true)
        }
        Ok(_) => Ok(false),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn own(path: &Path) -> OwnFile {
        OwnFile {
            path: path.display().to_string(),
            inode: std::fs::metadata(path).unwrap().ino(),
        }
    }

    #[test]
    fn only_the_named_test_file_with_its_inode_is_removed() {
        let dir = std::env::temp_dir().join(format!("drivescope-stale-{}", std::process::id()));
        let other = dir.join("elsewhere");
        std::fs::create_dir_all(&other).unwrap();
        let file = dir.join("drivescope-test-1-0.tmp");
        std::fs::write(&file, b"x").unwrap();
        let f = own(&file);
        // A file of another name, or in another directory than the target, is never touched.
        let data = dir.join("data.bin");
        std::fs::write(&data, b"x").unwrap();
        assert!(remove_stale(&own(&data), &dir).is_err());
        assert!(remove_stale(&f, &other).is_err());
        assert!(data.exists() && file.exists());
        // The same name on another file (another inode) is someone else's.
        let moved = dir.join("kept");
        std::fs::rename(&file, &moved).unwrap();
        std::fs::write(&file, b"y").unwrap();
        let now = own(&file);
        if now.inode != f.inode {
            assert!(!remove_stale(&f, &dir).unwrap());
            assert!(file.exists());
        }
        // The file itself is removed, once.
        assert!(remove_stale(&now, &dir).unwrap());
        assert!(!file.exists());
        assert!(!remove_stale(&now, &dir).unwrap());
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
