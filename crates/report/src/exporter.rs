//! One trait for every output format. Each format lives in its own file and says what it makes of runs:
//!
//! | format | type | what |
//! |---|---|---|
//! | terminal text | [`crate::text::Text`] | each run as its command printed it; or the compare table |
//! | JSON | [`crate::json::Json`] | each run's document (drivescope/1), as saved |
//! | CSV | [`crate::csv::Csv`] | one table of one run |
//! | Markdown | [`crate::markdown::Markdown`] | a summary of each run; or the compare table |
//! | HTML | [`crate::html::Html`] | the self-contained report page; or the compare table as a fragment |
//! | PNG | [`crate::png::Png`] | one chart of the report page |
//! | curve CSV | [`crate::curve_csv::CurveCsv`] | the transfer-rate curve of one scan |
//! | fio json+ | [`crate::fio_json::FioJson`] | one run as fio's json+ output, for fio's own readers |
//!
//! A format that takes exactly one run refuses any other number with [`crate::Error::OneRun`].

use crate::{Result, Run};
use std::io::Write;

/// An output format: writes what it makes of `runs` to `out`.
pub trait Exporter {
    fn export(&self, runs: &[Run], out: &mut dyn Write) -> Result<()>;

    /// The export in memory, so a caller writes a file only once the export succeeded.
    fn to_bytes(&self, runs: &[Run]) -> Result<Vec<u8>> {
        let mut out = Vec::new();
        self.export(runs, &mut out)?;
        Ok(out)
    }
}

/// The one run of a format that exports one run at a time.
pub(crate) fn one<'a>(format: &'static str, runs: &'a [Run]) -> Result<&'a Run> {
    match runs {
        [run] => Ok(run),
        _ => Err(crate::Error::OneRun {
            format,
            runs: runs.len(),
        }),
    }
}
