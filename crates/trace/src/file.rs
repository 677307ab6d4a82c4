//! The kept trace's file format (`time --keep-trace FILE`, read by `replay`).
//!
//! ```text
//! drivescope-trace/1\n                 the magic line
//! {"devices":[…],"command":[…],…}\n    one line of JSON: a TraceHeader
//! record × n                           40 bytes each, little-endian, in completion order
//! ```
//!
//! A record is `dev u32, bytes u32, sector u64, issue_ns u64, complete_ns u64, error i32, op u8, flags u8,
//! 2 bytes zero`; flag bit 0 is `sync`. Records are streamed as requests complete, so memory stays flat however
//! long the traced command runs, and a trace cut short (a killed run) reads up to its last whole record.

use crate::{Op, Request, TraceFileError};
use serde::{Deserialize, Serialize};
use std::io::{BufRead, Write};

/// The first line of every kept trace.
pub const TRACE_MAGIC: &str = "drivescope-trace/1";

/// Bytes per record.
pub const RECORD_BYTES: usize = 40;

/// A traced device: its number as the records carry it and its name under /sys/block.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct TraceDevice {
    /// `major << 20 | minor`.
    pub dev: u32,
    pub name: String,
    /// Logical sector size in bytes.
    #[serde(default)]
    pub logical_block_size: u32,
}

/// What a kept trace is a trace of.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct TraceHeader {
    pub devices: Vec<TraceDevice>,
    /// The traced command as run.
    pub command: Vec<String>,
    /// When the trace started (RFC 3339, UTC).
    pub started: String,
    /// The drivescope version that wrote it.
    pub tool_version: String,
}

/// Streams requests to a kept trace.
pub struct TraceWriter<W: Write> {
    out: W,
    written: u64,
}

impl<W: Write> TraceWriter<W> {
    /// Writes the magic line and the header.
    pub fn new(mut out: W, header: &TraceHeader) -> Result<Self, TraceFileError> {
        let json =
            serde_json::to_string(header).map_err(|e| TraceFileError::Header(e.to_string()))?;
        writeln!(out, "{TRACE_MAGIC}")?;
        writeln!(out, "{json}")?;
        Ok(TraceWriter { out, written: 0 })
    }

    pub fn write(&mut self, r: &Request) -> Result<(), TraceFileError> {
        self.out.write_all(&encode(r))?;
        self.written += 1;
        Ok(())
    }

    /// Requests written so far.
    pub fn written(&self) -> u64 {
        self.written
    }

    /// Flushes and hands back the writer.
    pub fn finish(mut self) -> Result<W, TraceFileError> {
        self.out.flush()?;
        Ok(self.out)
    }
}

/// Reads a kept trace: the header, then requests one by one.
pub struct TraceReader<R: BufRead> {
    input: R,
    header: TraceHeader,
    index: u64,
}

impl<R: BufRead> TraceReader<R> {
    pub fn new(mut input: R) -> Result<Self, TraceFileError> {
        let mut magic = String::new();
        input.read_line(&mut magic)?;
        if magic.trim_end_matches('\n') != TRACE_MAGIC {
            return Err(TraceFileError::NotATrace);
        }
        let mut line = String::new();
        input.read_line(&mut line)?;
        let header: TraceHeader = serde_json::from_str(line.trim_end())
            .map_err(|e| TraceFileError::Header(e.to_string()))?;
        Ok(TraceReader {
            input,
            header,
            index: 0,
        })
    }

    pub fn header(&self) -> &TraceHeader {
        &self.header
    }

    /// The next request; `None` at a clean end; `Torn` where the file ends inside a record.
    pub fn next_request(&mut self) -> Result<Option<Request>, TraceFileError> {
        let mut buf = [0u8; RECORD_BYTES];
        let mut got = 0;
        while got < RECORD_BYTES {
            match self.input.read(&mut buf[got..])? {
                0 => break,
                n => got += n,
            }
        }
        if got == 0 {
            return Ok(None);
        }
        if got < RECORD_BYTES {
            return Err(TraceFileError::Torn { index: self.index });
        }
        let r = decode(&buf).ok_or(TraceFileError::BadOp {
            index: self.index,
            code: buf[36],
        })?;
        self.index += 1;
        Ok(Some(r))
    }
}

impl<R: BufRead> Iterator for TraceReader<R> {
    type Item = Result<Request, TraceFileError>;
    fn next(&mut self) -> Option<Self::Item> {
        self.next_request().transpose()
    }
}

fn encode(r: &Request) -> [u8; RECORD_BYTES] {
    let mut b = [0u8; RECORD_BYTES];
    b[0..4].copy_from_slice(&r.dev.to_le_bytes());
    b[4..8].copy_from_slice(&r.bytes.to_le_bytes());
    b[8..16].copy_from_slice(&r.sector.to_le_bytes());
    b[16..24].copy_from_slice(&r.issue_ns.to_le_bytes());
    b[24..32].copy_from_slice(&r.complete_ns.to_le_bytes());
    b[32..36].copy_from_slice(&r.error.to_le_bytes());
    b[36] = r.op.code();
    b[37] = u8::from(r.sync);
    b
}

fn decode(b: &[u8; RECORD_BYTES]) -> Option<Request> {
    let u32_at = |i: usize| u32::from_le_bytes(b[i..i + 4].try_into().unwrap());
    let u64_at = |i: usize| u64::from_le_bytes(b[i..i + 8].try_into().unwrap());
    Some(Request {
        dev: u32_at(0),
        bytes: u32_at(4),
        sector: u64_at(8),
        issue_ns: u64_at(16),
        complete_ns: u64_at(24),
        error: i32::from_le_bytes(b[32..36].try_into().unwrap()),
        op: Op::from_code(b[36])?,
        sync: b[37] & 1 == 1,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn header() -> TraceHeader {
        TraceHeader {
            devices: vec![TraceDevice {
                dev: (7 << 20) | 3,
                name: "loop3".into(),
                logical_block_size: 512,
            }],
            command: vec!["cat".into(), "big".into()],
            started: "2026-11-26T08:00:00Z".into(),
            tool_version: "0.1.0".into(),
        }
    }

    fn request(i: u64) -> Request {
        Request {
            dev: (7 << 20) | 3,
            sector: i * 8,
            bytes: 4096,
            op: if i.is_multiple_of(3) {
                Op::Write
            } else {
                Op::Read
            },
            sync: i.is_multiple_of(2),
            issue_ns: i * 1000,
            complete_ns: i * 1000 + 250,
            error: if i == 5 { -5 } else { 0 },
        }
    }

    #[test]
    fn requests_read_back_as_written() {
        let mut w = TraceWriter::new(Vec::new(), &header()).unwrap();
        for i in 0..10 {
            w.write(&request(i)).unwrap();
        }
        assert_eq!(w.written(), 10);
        let bytes = w.finish().unwrap();
        let r = TraceReader::new(&bytes[..]).unwrap();
        assert_eq!(r.header(), &header());
        let back: Vec<Request> = r.map(|x| x.unwrap()).collect();
        assert_eq!(back, (0..10).map(request).collect::<Vec<_>>());
    }

    #[test]
    fn a_torn_last_record_reads_up_to_it() {
        let mut w = TraceWriter::new(Vec::new(), &header()).unwrap();
        for i in 0..3 {
            w.write(&request(i)).unwrap();
        }
        let mut bytes = w.finish().unwrap();
        bytes.truncate(bytes.len() - 7);
        let mut r = TraceReader::new(&bytes[..]).unwrap();
        assert_eq!(r.next_request().unwrap(), Some(request(0)));
        assert_eq!(r.next_request().unwrap(), Some(request(1)));
        assert!(matches!(
            r.next_request(),
            Err(TraceFileError::Torn { index: 2 })
        ));
    }

    #[test]
    fn another_file_is_refused() {
        assert!(matches!(
            TraceReader::new(&b"drivescope/1\n{}\n"[..]),
            Err(TraceFileError::NotATrace)
        ));
    }
}
