//! A scan's every failed sector as CSV (`drivescope scan --failed-list FILE`): one row per
//! failed-list entry, `lba,offset,errno,latency_ns`, written as the scan finds them (so at a
//! queue depth over 1 not in position order) and never held in memory.

use crate::Result;
use drivescope_record::{Event, FailedExtent};
use std::io::Write;

/// The column names, in order.
pub const COLUMNS: [&str; 4] = ["lba", "offset", "errno", "latency_ns"];

/// Writes rows as they come; keeps the first error (a sink cannot return one) for
/// [`FailedList::finish`].
pub struct FailedList<W: Write> {
    w: csv::Writer<W>,
    rows: u64,
    error: Option<crate::Error>,
}

impl FailedList<std::fs::File> {
    /// Create (or truncate) `path` and write the header.
    pub fn create(path: &std::path::Path) -> Result<Self> {
        let f = std::fs::File::create(path).map_err(|e| crate::Error::Io(path.into(), e))?;
        FailedList::new(f)
    }
}

impl<W: Write> FailedList<W> {
    pub fn new(out: W) -> Result<Self> {
        let mut w = csv::Writer::from_writer(out);
        w.write_record(COLUMNS)?;
        Ok(FailedList {
            w,
            rows: 0,
            error: None,
        })
    }

    /// One failed-list entry.
    pub fn row(&mut self, e: &Event) {
        self.put(
            e.lba,
            e.offset,
            e.errno.map(|n| n.to_string()).unwrap_or_default(),
            e.latency_ns.to_string(),
        );
    }

    /// Every sector of an extent found by an earlier part of a resumed scan (its latencies
    /// are not kept: the column is left empty).
    pub fn extent(&mut self, x: &FailedExtent, sector: u64) {
        for lba in x.first_lba..=x.last_lba {
            self.put(lba, lba * sector, x.errno.to_string(), String::new());
        }
    }

    fn put(&mut self, lba: u64, offset: u64, errno: String, latency: String) {
        if self.error.is_some() {
            return;
        }
        match self
            .w
            .write_record([lba.to_string(), offset.to_string(), errno, latency])
        {
            Ok(()) => self.rows += 1,
            Err(e) => self.error = Some(e.into()),
        }
    }

    /// Flush; the rows written, or the first error.
    pub fn finish(mut self) -> Result<u64> {
        if let Some(e) = self.error.take() {
            return Err(e);
        }
        self.w.flush()?;
        Ok(self.rows)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rows_of_entries_and_of_an_earlier_extent() {
        let mut out = Vec::new();
        let mut l = FailedList::new(&mut out).unwrap();
        l.row(&Event {
            offset: 5120,
            lba: 10,
            latency_ns: 1500,
            errno: Some(5),
        });
        l.extent(
            &FailedExtent {
                offset: 512,
                length: 1024,
                first_lba: 1,
                last_lba: 2,
                errno: 61,
                count: 2,
                ..Default::default()
            },
            512,
        );
        assert_eq!(l.finish().unwrap(), 3);
        assert_eq!(
            String::from_utf8(out).unwrap(),
            "lba,offset,errno,latency_ns\n10,5120,5,1500\n1,512,61,\n2,1024,61,\n"
        );
    }
}
