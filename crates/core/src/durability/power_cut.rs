//! The guided power-cut test: numbered, checksummed records, each flushed and then acknowledged
//! to a log on other storage before the next is written; after the cut, the records the log
//! names are read back (see [`super::power_cut_verify`]).
//!
//! A record fills one 4 KiB block: a magic, the run's identity, its number, then data that
//! follows from those two alone (so a reader can rebuild exactly what was written), and a
//! 64-bit FNV-1a checksum of everything before it. Record `n` goes to slot `n mod slots` of the
//! record area, which the test writes round and round.

use crate::rng::Rng;

/// Bytes per record: one 4 KiB block.
pub const RECORD_BYTES: u64 = 4096;
/// The name of the test file in a directory target.
pub const FILE_NAME: &str = "drivescope-power-cut.dat";
const MAGIC: &[u8; 8] = b"DSPCUT01";

/// FNV-1a, 64 bits.
pub fn checksum(data: &[u8]) -> u64 {
    let mut h: u64 = 0xcbf2_9ce4_8422_2325;
    for b in data {
        h ^= *b as u64;
        h = h.wrapping_mul(0x0000_0100_0000_01b3);
    }
    h
}

/// Fill `buf` (one record) with record `number` of run `run`; returns its checksum.
pub fn encode(run: u64, number: u64, buf: &mut [u8]) -> u64 {
    let len = buf.len();
    buf[..8].copy_from_slice(MAGIC);
    buf[8..16].copy_from_slice(&run.to_le_bytes());
    buf[16..24].copy_from_slice(&number.to_le_bytes());
    buf[24..32].copy_from_slice(&(len as u64).to_le_bytes());
    let mut rng = Rng::new(run ^ number.wrapping_mul(0x9e37_79b9_7f4a_7c15) ^ 0x5eed);
    for chunk in buf[32..len - 8].chunks_mut(8) {
        let v = rng.next_u64().to_le_bytes();
        chunk.copy_from_slice(&v[..chunk.len()]);
    }
    let sum = checksum(&buf[..len - 8]);
    buf[len - 8..].copy_from_slice(&sum.to_le_bytes());
    sum
}

/// What a block holds, read as a record.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Parsed {
    Zeros,
    /// A record's header; `intact` when its checksum matches.
    Record {
        run: u64,
        number: u64,
        intact: bool,
    },
    Other,
}

/// Read `buf` as a record.
pub fn parse(buf: &[u8]) -> Parsed {
    if buf.iter().all(|b| *b == 0) {
        return Parsed::Zeros;
    }
    let len = buf.len();
    if len < 40 || &buf[..8] != MAGIC {
        return Parsed::Other;
    }
    let word = |i: usize| u64::from_le_bytes(buf[i..i + 8].try_into().expect("8 bytes"));
    let intact = word(24) == len as u64 && checksum(&buf[..len - 8]) == word(len - 8);
    Parsed::Record {
        run: word(8),
        number: word(16),
        intact,
    }
}

/// Where the records go, and how the test is known again after the cut: the log's first line.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct LogHeader {
    pub run: u64,
    pub record_bytes: u64,
    /// Byte offset of slot 0 in the target (the device, or the test file).
    pub offset: u64,
    pub slots: u64,
    /// The target as the writer was given it.
    pub target: String,
}

const LOG_TAG: &str = "drivescope power-cut log 1";

impl LogHeader {
    /// A new run's header with a fresh identity.
    pub fn new(target: &str, offset: u64, slots: u64) -> LogHeader {
        let t = std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map_or(0, |d| d.as_nanos() as u64);
        let mut rng = Rng::new(t ^ ((std::process::id() as u64) << 32));
        LogHeader {
            run: rng.next_u64() | 1,
            record_bytes: RECORD_BYTES,
            offset,
            slots,
            target: target.into(),
        }
    }

    /// The line (without its newline).
    pub fn line(&self) -> String {
        format!(
            "{LOG_TAG} run={:016x} record_bytes={} offset={} slots={} target={}",
            self.run, self.record_bytes, self.offset, self.slots, self.target
        )
    }

    /// Read a header line back.
    pub fn parse(line: &str) -> Option<LogHeader> {
        let rest = line.strip_prefix(LOG_TAG)?.trim_start();
        let (fields, target) = rest.split_once(" target=")?;
        let mut h = LogHeader {
            run: 0,
            record_bytes: 0,
            offset: 0,
            slots: 0,
            target: target.into(),
        };
        for f in fields.split_whitespace() {
            let (k, v) = f.split_once('=')?;
            match k {
                "run" => h.run = u64::from_str_radix(v, 16).ok()?,
                "record_bytes" => h.record_bytes = v.parse().ok()?,
                "offset" => h.offset = v.parse().ok()?,
                "slots" => h.slots = v.parse().ok()?,
                _ => {}
            }
        }
        (h.run != 0 && h.record_bytes >= 512 && h.slots > 0).then_some(h)
    }

    /// Byte offset of record `n`.
    pub fn offset_of(&self, n: u64) -> u64 {
        self.offset + (n % self.slots) * self.record_bytes
    }
}

/// One acknowledgement line: the record's number and checksum.
pub fn ack_line(number: u64, sum: u64) -> String {
    format!("{number} {sum:016x}")
}

/// A log read back: its header, and the checksums of records 0, 1, … in order.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Log {
    pub header: LogHeader,
    pub sums: Vec<u64>,
}

/// Read a log's text. A last line without its newline was being written when the writer
/// stopped: it is not an acknowledgement, and is left out.
pub fn parse_log(text: &str) -> Result<Log, String> {
    let mut lines = text.split_inclusive('\n');
    let first = lines.next().unwrap_or("");
    let header = LogHeader::parse(first.trim_end())
        .ok_or("not a drivescope power-cut log (its first line is not the log's header)")?;
    let mut sums = Vec::new();
    for (i, l) in lines.enumerate() {
        if !l.ends_with('\n') {
            break;
        }
        let bad = || format!("line {} of the log is not `NUMBER CHECKSUM`: {l:?}", i + 2);
        let (n, s) = l.trim_end().split_once(' ').ok_or_else(bad)?;
        let n: u64 = n.parse().map_err(|_| bad())?;
        let s = u64::from_str_radix(s, 16).map_err(|_| bad())?;
        if n != sums.len() as u64 {
            return Err(format!(
                "line {} of the log acknowledges record {n} where {} follows",
                i + 2,
                sums.len()
            ));
        }
        sums.push(s);
    }
    Ok(Log { header, sums })
}

#[cfg(test)]
#[path = "power_cut_tests.rs"]
mod tests;
