//! Where runs are kept: `--store PATH|CONNINFO` (default: a SQLite file in the XDG data directory) and
//! `--no-store`.

use anyhow::Context;
use drivescope_store::{Location, RunId, Store};
use std::path::PathBuf;

/// How `--store` reads its value: a PostgreSQL connection string, else a SQLite path (see
/// [`Location::parse`]).
pub fn location_parser() -> impl clap::builder::TypedValueParser<Value = Location> {
    use clap::builder::TypedValueParser;
    clap::builder::OsStringValueParser::new().map(Location::parse)
}

/// For commands that measure: every run is saved unless `--no-store`.
#[derive(clap::Args, Debug, Clone, Default)]
pub struct StoreOpts {
    /// Results store: a SQLite file, or a PostgreSQL database that many hosts share
    /// (postgresql://USER@HOST/DB, postgres://…, or libpq's `host=/run/postgresql dbname=DB user=USER`:
    /// a value that starts with a libpq keyword and `=`). Anything else is a path; write ./host=x
    /// for a file of that name. Default: $XDG_DATA_HOME/drivescope/runs.sqlite, else
    /// ~/.local/share/drivescope/runs.sqlite.
    #[arg(long, value_name = "PATH|CONNINFO", value_parser = location_parser())]
    pub store: Option<Location>,
    /// Do not save this run in the results store.
    #[arg(long, conflicts_with = "store")]
    pub no_store: bool,
}

impl StoreOpts {
    /// The store's file when runs are saved in SQLite (None with `--no-store` or a PostgreSQL
    /// store): it must not live on a device that a destructive run writes.
    pub fn protected(&self) -> Vec<PathBuf> {
        match self.location() {
            Ok(Some(Location::Sqlite(p))) => vec![p],
            _ => vec![],
        }
    }

    /// Open the store (for `--resume`), whatever `--no-store` says: it must exist.
    pub fn open_store(&self) -> anyhow::Result<Store> {
        let location = or_default(self.store.as_ref())?;
        refuse_missing(&location)?;
        Store::open(&location).with_context(|| format!("opening the results store {location}"))
    }

    /// The store as it is, when runs are saved and there is one to read (a SQLite file that
    /// exists; a PostgreSQL database that answers): none is created to look.
    pub fn open_existing(&self) -> Option<Store> {
        open_existing(self.location().ok()??)
    }

    /// The store named by `--store` (else the default one), whatever `--no-store` says.
    pub fn named(&self) -> Option<Location> {
        match &self.store {
            Some(l) => Some(l.clone()),
            None => Store::default_path().ok().map(Location::Sqlite),
        }
    }

    /// Saves `doc` unless `--no-store` and returns its run number; says on stderr why the run was not
    /// saved and where, or (unless quiet: see [`crate::say`]) `saved as run N`. A store that cannot be written never
    /// fails the command: the run's results are already out.
    pub fn save(&self, doc: &drivescope_record::Document) -> Option<i64> {
        self.save_over(doc, None)
    }

    /// Where runs are saved (None with `--no-store`; the line that says why when there is no data
    /// directory, or a store named by `--store` would need a directory that does not exist: only the
    /// default store's directory is created).
    pub fn location(&self) -> Result<Option<Location>, String> {
        if self.no_store {
            return Ok(None);
        }
        match &self.store {
            Some(l) => match l.path().map(parent_dir) {
                Some(dir) if !dir.is_dir() => Err(format!(
                    "there is no directory {} for the store (a store is created only in a directory that exists)",
                    dir.display()
                )),
                _ => Ok(Some(l.clone())),
            },
            None => Store::default_path()
                .map(|p| Some(Location::Sqlite(p)))
                .map_err(|e| e.fault(&Location::Sqlite(PathBuf::new())).to_string()),
        }
    }

    /// As [`StoreOpts::save`], in place of run `over` when given (a scan's checkpoints); a
    /// new run when that one is gone.
    pub fn save_over(&self, doc: &drivescope_record::Document, over: Option<RunId>) -> Option<i64> {
        let location = match self.location() {
            Ok(Some(l)) => l,
            Ok(None) => return None,
            Err(why) => {
                eprintln!("drivescope: the run was not saved: {why}");
                return None;
            }
        };
        let new = location.path().is_some_and(|p| !p.exists());
        let saved = Store::open(&location).and_then(|mut store| store.save_or_replace(doc, over));
        match saved {
            Ok(id) => {
                if new {
                    crate::note!("created the results store {}", shown(&location));
                }
                crate::note!("saved as run {id} in {location}");
                Some(id.0)
            }
            Err(e) => {
                let why = e.fault(&location);
                eprintln!(
                    "drivescope: the run was not saved in {}: {why}",
                    shown(&location)
                );
                None
            }
        }
    }
}

/// The store at `location` as it is (a SQLite file that exists; a PostgreSQL database that
/// answers): none is created to look.
pub fn open_existing(location: Location) -> Option<Store> {
    if location.path().is_some_and(|p| !p.exists()) {
        return None;
    }
    Store::open(location).ok()
}

/// A store's place for messages: a SQLite file's absolute path, a connection string without its password.
pub fn shown(location: &Location) -> String {
    match location {
        Location::Sqlite(p) => std::path::absolute(p)
            .unwrap_or_else(|_| p.clone())
            .display()
            .to_string(),
        other => other.to_string(),
    }
}

/// For commands that read the store.
#[derive(clap::Args, Debug, Clone, Default)]
pub struct StorePath {
    /// Results store: a SQLite file, or a PostgreSQL database (postgresql://USER@HOST/DB,
    /// postgres://…, or libpq's `host=/run/postgresql dbname=DB user=USER`). Default:
    /// $XDG_DATA_HOME/drivescope/runs.sqlite, else ~/.local/share/drivescope/runs.sqlite.
    #[arg(long, value_name = "PATH|CONNINFO", value_parser = location_parser())]
    pub store: Option<Location>,
}

impl StorePath {
    /// For commands that only read: the store as it is, opened read-only, so that nothing is created or
    /// changed (a store in a directory one may read but not write reads as well). A store that does not exist
    /// is refused, saying where runs are saved; one of an older schema is upgraded first where it can be
    /// written, and that is said.
    pub fn open(&self) -> anyhow::Result<Store> {
        let location = self.existing()?;
        Store::open_read_only(&location)
            .with_context(|| format!("opening the results store {}", shown(&location)))
    }

    /// The store to read, when it exists (refused in one line otherwise), upgraded first where it is of an
    /// older schema and can be written.
    pub fn existing(&self) -> anyhow::Result<Location> {
        let location = self.present()?;
        if let Err(drivescope_store::Error::TooOld { .. }) = Store::open_read_only(&location) {
            Store::open(&location)
                .with_context(|| format!("upgrading the results store {}", shown(&location)))?;
            eprintln!(
                "drivescope: upgraded the results store {} to schema version {}",
                shown(&location),
                drivescope_store::SCHEMA_VERSION
            );
        }
        Ok(location)
    }
}

impl StorePath {
    /// The store to read, when it exists (refused in one line otherwise), as it is.
    pub fn present(&self) -> anyhow::Result<Location> {
        let location = or_default(self.store.as_ref())?;
        refuse_missing(&location)?;
        Ok(location)
    }
}

fn or_default(location: Option<&Location>) -> anyhow::Result<Location> {
    Ok(match location {
        Some(l) => l.clone(),
        None => Location::Sqlite(Store::default_path()?),
    })
}

/// The directory a SQLite store's file lies in (`.` for a bare file name).
fn parent_dir(path: &std::path::Path) -> &std::path::Path {
    path.parent()
        .filter(|d| !d.as_os_str().is_empty())
        .unwrap_or(std::path::Path::new("."))
}

/// A SQLite store that is not there, refused in one line that says where runs are saved.
fn refuse_missing(location: &Location) -> anyhow::Result<()> {
    let Some(path) = location.path().filter(|p| !p.is_file()) else {
        return Ok(());
    };
    match Store::default_path() {
        Ok(default) if default == path => anyhow::bail!(
            "no results store at {} yet: the commands that measure save their runs there",
            path.display()
        ),
        Ok(default) => anyhow::bail!(
            "no results store at {}; runs are saved to {} by default",
            path.display(),
            default.display()
        ),
        Err(_) => anyhow::bail!("no results store at {}", path.display()),
    }
}

/// A run named on the command line: its number, or `last` for the newest.
pub fn resolve(store: &Store, run: &str) -> anyhow::Result<RunId> {
    Ok(store.resolve(run, None)?)
}

/// Loads runs for the report commands.
pub fn load(store: &Store, runs: &[String]) -> anyhow::Result<Vec<drivescope_report::Run>> {
    runs.iter()
        .map(|r| {
            let id = resolve(store, r)?;
            Ok(drivescope_report::Run::new(Some(id.0), store.get(id)?))
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use drivescope_record::Direction;
    use drivescope_report::sample;
    use proptest::prelude::*;

    /// A store of `runs` sample scans, in a directory removed when dropped.
    struct Stored(Store, std::path::PathBuf);

    impl Drop for Stored {
        fn drop(&mut self) {
            let _ = std::fs::remove_dir_all(&self.1);
        }
    }

    fn store(name: &str, runs: usize) -> Stored {
        let dir =
            std::env::temp_dir().join(format!("drivescope-resolve-{}-{name}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        let mut store = Store::open(dir.join("runs.sqlite")).unwrap();
        for seed in 0..runs as u64 {
            let doc = sample::scan(seed + 1, 1 << 30, 4, 0, 0, Direction::Read);
            store.save(&doc.into()).unwrap();
        }
        Stored(store, dir)
    }

    /// Run names as people type them: numbers, `last`, near misses, anything.
    fn run_name() -> impl Strategy<Value = String> {
        prop_oneof![
            any::<String>(),
            any::<i64>().prop_map(|n| n.to_string()),
            "[+-]?[0-9]{0,24}",
            "(last|LAST|Last| last|last )(~[0-9]{0,3}|-[0-9]|\\^)?",
            "0x[0-9a-f]{1,4}|[0-9]+\\.[0-9]|[0-9]e[0-9]",
        ]
    }

    #[test]
    fn last_is_the_newest_and_numbers_are_themselves() {
        let stored = store("names", 3);
        let s = &stored.0;
        assert_eq!(resolve(s, "last").unwrap(), RunId(3));
        assert_eq!(resolve(s, "2").unwrap(), RunId(2));
        let empty = store("empty", 0);
        let e = resolve(&empty.0, "last").unwrap_err();
        assert_eq!(format!("{e:#}"), "the store holds no runs yet");
    }

    #[test]
    fn any_run_name_resolves_or_says_why_in_one_line() {
        let stored = store("fuzz", 3);
        let s = &stored.0;
        let mut runner = proptest::test_runner::TestRunner::new(ProptestConfig {
            cases: 400,
            failure_persistence: None,
            ..ProptestConfig::default()
        });
        runner
            .run(&run_name(), |name| {
                match resolve(s, &name) {
                    Ok(id) if name == "last" => prop_assert_eq!(id, RunId(3)),
                    Ok(id) => prop_assert_eq!(Ok(id.0), name.parse::<i64>()),
                    Err(e) => {
                        let line = format!("{e:#}");
                        prop_assert!(!line.contains('\n'), "{}", line);
                        prop_assert!(line.contains(&format!("{name:?}")), "{}", line);
                    }
                }
                if let Err(e) = load(s, std::slice::from_ref(&name)) {
                    let line = format!("{e:#}");
                    prop_assert!(!line.contains('\n'), "{}", line);
                }
                Ok(())
            })
            .unwrap();
    }
}
