//! After the cut: read back every acknowledged record the log names and say which the storage
//! kept, lost or tore. Only the records after the last acknowledgement may be missing.

use super::power_cut::{encode, parse, Log, Parsed};
use crate::aligned::AlignedBuffers;
use drivescope_record::power_cut::{FoundInstead, PowerCutCheck, PowerCutLoss};
use std::fs::{File, OpenOptions};
use std::os::unix::fs::{FileExt, OpenOptionsExt};
use std::path::Path;

/// Losses listed with what was found instead (the counts cover all).
const LIST: usize = 100;
/// Records read per command.
const CHUNK: u64 = 256;

/// What stands in a slot instead of record `n` of `run`, given what was written (`want`).
pub fn found_instead(run: u64, n: u64, got: &[u8], want: &[u8]) -> (FoundInstead, Option<u64>) {
    match parse(got) {
        Parsed::Zeros => (FoundInstead::Zeros, None),
        Parsed::Record {
            run: r,
            number,
            intact: true,
        } if r == run && number < n => (FoundInstead::OlderRecord, Some(number)),
        Parsed::Record { run: r, intact, .. } if r != run && intact => {
            (FoundInstead::OtherRun, None)
        }
        _ => {
            // Some of its sectors made it to the media: torn.
            let part = got
                .chunks(512)
                .zip(want.chunks(512))
                .any(|(g, w)| g == w && w.iter().any(|b| *b != 0));
            if part {
                (FoundInstead::Torn, Some(n))
            } else {
                (FoundInstead::Other, None)
            }
        }
    }
}

fn open_read(path: &Path) -> std::io::Result<File> {
    let open = |flags: i32| OpenOptions::new().read(true).custom_flags(flags).open(path);
    match open(libc::O_DIRECT) {
        Err(e) if e.raw_os_error() == Some(libc::EINVAL) => open(0),
        r => r,
    }
}

/// Check `log`'s records on the target at `path` (the device, or the test file).
pub fn verify(path: &Path, log: &Log, log_name: &str) -> Result<PowerCutCheck, String> {
    let h = &log.header;
    let acked = log.sums.len() as u64;
    let file = open_read(path).map_err(|e| format!("{}: {e}", path.display()))?;
    let rb = h.record_bytes;
    let mut check = PowerCutCheck {
        log: log_name.into(),
        run: format!("{:016x}", h.run),
        record_bytes: rb,
        offset: h.offset,
        slots: h.slots,
        acknowledged: acked,
        ..Default::default()
    };
    // The newest acknowledged records, one slot short of the whole area: the slot after the
    // last acknowledged one may hold the record being written when the power went.
    let first = (acked + 1).saturating_sub(h.slots);
    let mut want = vec![0u8; rb as usize];
    let mut buf = AlignedBuffers::new(1, (CHUNK * rb) as usize, 4096);
    let mut n = first;
    while n <= acked {
        // Consecutive records in consecutive slots, up to the area's end.
        let slot = n % h.slots;
        let len = CHUNK.min(h.slots - slot).min(acked + 1 - n);
        let bytes = (len * rb) as usize;
        let chunk = &mut buf.slice_mut(0)[..bytes];
        file.read_exact_at(chunk, h.offset_of(n))
            .map_err(|e| format!("reading {} at {}: {e}", path.display(), h.offset_of(n)))?;
        for (i, got) in buf.slice(0)[..bytes].chunks(rb as usize).enumerate() {
            let m = n + i as u64;
            let sum = encode(h.run, m, &mut want);
            if m == acked {
                check.unacknowledged_found += u64::from(got == want.as_slice());
                continue;
            }
            if sum != log.sums[m as usize] {
                return Err(format!(
                    "{log_name}: record {m}'s checksum is not what the test writes: \
                     the log is damaged or not drivescope's"
                ));
            }
            check.checked += 1;
            if got == want.as_slice() {
                check.kept += 1;
                continue;
            }
            let (found, found_number) = found_instead(h.run, m, got, &want);
            if found == FoundInstead::Torn {
                check.torn_count += 1;
            } else {
                check.lost_count += 1;
            }
            if check.losses.len() < LIST {
                check.losses.push(PowerCutLoss {
                    number: m,
                    offset: h.offset_of(m),
                    found,
                    found_number,
                });
            }
        }
        n += len;
    }
    Ok(check)
}

#[cfg(test)]
mod tests {
    use super::super::power_cut::{ack_line, parse_log, LogHeader};
    use super::*;

    /// A target file with records 0..written of `h`, the log acknowledging 0..acked.
    fn setup(name: &str, h: &LogHeader, written: u64, acked: u64) -> (std::path::PathBuf, Log) {
        let path = std::env::temp_dir().join(format!("ds-pcv-{}-{name}", std::process::id()));
        let f = std::fs::File::create(&path).unwrap();
        f.set_len(h.offset + h.slots * h.record_bytes).unwrap();
        let mut text = format!("{}\n", h.line());
        let mut buf = vec![0u8; h.record_bytes as usize];
        for n in 0..written {
            let sum = encode(h.run, n, &mut buf);
            f.write_all_at(&buf, h.offset_of(n)).unwrap();
            if n < acked {
                text += &format!("{}\n", ack_line(n, sum));
            }
        }
        (path, parse_log(&text).unwrap())
    }

    #[test]
    fn everything_acknowledged_kept_and_the_record_in_flight_allowed() {
        let h = LogHeader::new("t", 8192, 64);
        let (path, log) = setup("kept", &h, 41, 40);
        let c = verify(&path, &log, "log").unwrap();
        assert_eq!((c.checked, c.kept, c.unacknowledged_found), (40, 40, 1));
        assert!(!c.broken());
        std::fs::remove_file(&path).unwrap();
    }

    #[test]
    fn round_the_ring_lost_and_torn_records_are_named_with_what_stood_there() {
        let h = LogHeader::new("t", 0, 16);
        // 40 records round a 16-slot ring: 25..=39 are checked (the slot of 40 is skipped).
        let (path, log) = setup("ring", &h, 40, 40);
        let f = std::fs::OpenOptions::new().write(true).open(&path).unwrap();
        let mut old = vec![0u8; 4096];
        encode(h.run, 33 - 16, &mut old);
        f.write_all_at(&old, h.offset_of(33)).unwrap(); // its previous generation
        f.write_all_at(&[0u8; 4096], h.offset_of(30)).unwrap(); // never written
        f.write_all_at(&[0u8; 1024], h.offset_of(35) + 3072)
            .unwrap(); // the tail missing
        let c = verify(&path, &log, "log").unwrap();
        assert_eq!((c.checked, c.kept), (15, 12));
        assert_eq!((c.lost_count, c.torn_count), (2, 1));
        let what: Vec<_> = c
            .losses
            .iter()
            .map(|l| (l.number, l.found, l.found_number))
            .collect();
        assert_eq!(
            what,
            vec![
                (30, FoundInstead::Zeros, None),
                (33, FoundInstead::OlderRecord, Some(17)),
                (35, FoundInstead::Torn, Some(35)),
            ]
        );
        assert!(c.broken());
        std::fs::remove_file(&path).unwrap();
    }

    #[test]
    fn a_log_of_another_writer_is_refused() {
        let h = LogHeader::new("t", 0, 16);
        let (path, mut log) = setup("other", &h, 4, 4);
        log.sums[2] ^= 1;
        assert!(verify(&path, &log, "log").unwrap_err().contains("damaged"));
        std::fs::remove_file(&path).unwrap();
    }
}
