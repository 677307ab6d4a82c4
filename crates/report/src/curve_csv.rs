//! A scan's transfer-rate curve as CSV (`scan --curve-csv FILE`): one row per position bin, with the LBA of
//! its start in the device's logical sectors and the rate to three decimals.

use crate::exporter::{one, Exporter};
use crate::{Error, Result, Run};
use drivescope_record::{Document, ScanRecord};
use std::io::Write;

/// The curve of one scan: `offset,length,lba,mb_per_s,min_ns,max_ns`.
pub struct CurveCsv;

impl Exporter for CurveCsv {
    fn export(&self, runs: &[Run], out: &mut dyn Write) -> Result<()> {
        let run = one("curve csv", runs)?;
        let Document::Scan(r) = &run.doc else {
            return Err(Error::NotScan { kind: run.kind() });
        };
        write(r, out)
    }
}

fn write(r: &ScanRecord, out: &mut dyn Write) -> Result<()> {
    let mut w = csv::Writer::from_writer(out);
    w.write_record(["offset", "length", "lba", "mb_per_s", "min_ns", "max_ns"])?;
    let lbs = r.header.target.logical_block_size.max(1) as u64;
    for p in &r.curve {
        w.write_record([
            p.offset.to_string(),
            p.length.to_string(),
            (p.offset / lbs).to_string(),
            format!("{:.3}", p.mb_per_s),
            p.min_ns.to_string(),
            p.max_ns.to_string(),
        ])?;
    }
    Ok(w.flush()?)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::sample;
    use drivescope_record::Direction;

    #[test]
    fn one_row_per_bin_with_its_lba() {
        let mut rec = sample::scan(1, 1 << 30, 40, 0, 0, Direction::Read);
        rec.header.target.logical_block_size = 4096;
        let first = rec.curve[1].clone();
        let run = Run::new(Some(1), rec);
        let text = String::from_utf8(CurveCsv.to_bytes(&[run]).unwrap()).unwrap();
        let lines: Vec<&str> = text.lines().collect();
        assert_eq!(lines[0], "offset,length,lba,mb_per_s,min_ns,max_ns");
        assert_eq!(lines.len(), 41);
        assert_eq!(
            lines[2],
            format!(
                "{},{},{},{:.3},{},{}",
                first.offset,
                first.length,
                first.offset / 4096,
                first.mb_per_s,
                first.min_ns,
                first.max_ns
            )
        );
        assert!(first.offset > 0 && lines[2].split(',').nth(2) != Some("0"));
    }

    #[test]
    fn only_scans_have_a_curve() {
        let err = CurveCsv
            .to_bytes(&[Run::new(Some(2), sample::bench(1))])
            .unwrap_err();
        assert!(matches!(err, Error::NotScan { .. }), "{err}");
    }
}
