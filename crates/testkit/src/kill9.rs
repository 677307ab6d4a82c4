//! What the kill -9 tests of long runs share: a results store of the test's own, the runs it
//! holds and the state `drivescope runs` shows, pseudo-random kill moments that can be
//! replayed, and a drivescope child started on the store.

use super::typed::listed_runs;
use super::{drivescope, drivescope_cmd};
use drivescope_record::{Document, RunState, RunStatus};
use drivescope_store::{ListFilter, Store};
use std::path::PathBuf;
use std::process::{Child, Stdio};

/// A results store of one test alone, removed on drop.
pub struct TempStore(pub PathBuf);

impl TempStore {
    /// A store under the temporary directory, named for the test (`what`) and its case.
    pub fn new(what: &str, name: &str) -> TempStore {
        let dir =
            std::env::temp_dir().join(format!("drivescope-{what}-{}-{name}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        // A store is created only in a directory that exists.
        std::fs::create_dir_all(&dir).unwrap();
        TempStore(dir.join("runs.sqlite"))
    }

    pub fn arg(&self) -> &str {
        self.0.to_str().unwrap()
    }

    /// The runs: (number, state, document), oldest first; none before the store exists.
    pub fn runs(&self) -> Vec<(i64, Option<RunState>, Document)> {
        if !self.0.exists() {
            return Vec::new();
        }
        let store = Store::open(&self.0).expect("open the test store");
        let mut l: Vec<_> = store
            .list(&ListFilter::default())
            .unwrap()
            .into_iter()
            .map(|r| (r.id.0, r.state, store.get(r.id).unwrap()))
            .collect();
        l.sort_by_key(|r| r.0);
        l
    }

    /// The state `drivescope runs` shows for run `id`, as JSON and in its table alike.
    pub fn listed_state(&self, id: i64) -> RunStatus {
        let listed = listed_runs(&["--store", self.arg()]);
        let row = listed.iter().find(|r| r.id == id);
        let state = row
            .unwrap_or_else(|| panic!("run {id} in {listed:?}"))
            .state
            .unwrap_or_else(|| panic!("run {id} has a state: {listed:?}"));
        let out = drivescope(&["runs", "--store", self.arg()]);
        let table = String::from_utf8_lossy(&out.stdout).to_string();
        let line = table
            .lines()
            .find(|l| l.trim_start().starts_with(&format!("{id} ")))
            .unwrap_or_else(|| panic!("run {id} in {table}"));
        assert!(line.contains(state.words()), "{table}");
        state
    }
}

impl Drop for TempStore {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(self.0.parent().unwrap());
    }
}

/// Pseudo-random fractions in [0, 1), from a seed printed so that a failure can be replayed
/// (`DRIVESCOPE_KILL9_SEED`).
pub fn random_fractions(n: usize) -> Vec<f64> {
    let seed = std::env::var("DRIVESCOPE_KILL9_SEED")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or_else(|| {
            std::time::SystemTime::now()
                .duration_since(std::time::UNIX_EPOCH)
                .unwrap()
                .subsec_nanos() as u64
        });
    eprintln!("kill moment seed: {seed} (DRIVESCOPE_KILL9_SEED)");
    let mut z = seed;
    (0..n)
        .map(|_| {
            z = z.wrapping_add(0x9E37_79B9_7F4A_7C15);
            let mut x = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
            x = (x ^ (x >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
            (x ^ (x >> 31)) as f64 / u64::MAX as f64
        })
        .collect()
}

/// Start `drivescope COMMAND ARGS --store STORE`, its output discarded.
pub fn spawn(command: &str, args: &[&str], store: &TempStore) -> Child {
    drivescope_cmd()
        .arg(command)
        .args(args)
        .args(["--store", store.arg()])
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .unwrap()
}

/// The totals of two scans that must cover the same range the same way, compared key by key
/// (`what` names the comparison in a failure).
pub fn assert_same_totals(
    a: &drivescope_record::ScanRecord,
    b: &drivescope_record::ScanRecord,
    what: &str,
) {
    let totals = |d: &drivescope_record::ScanRecord| {
        [
            ("bytes", d.bytes),
            ("commands", d.commands),
            ("failed_commands", d.failed_commands),
            ("covered", d.covered),
            ("length", d.length),
            ("offset", d.offset),
            ("block_size", d.block_size),
            ("failed_total", d.failed_total),
        ]
    };
    for ((key, x), (_, y)) in totals(a).into_iter().zip(totals(b)) {
        assert_eq!(x, y, "{what}{key}");
    }
}
