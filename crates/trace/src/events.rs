//! The two block tracepoints' binary records: field offsets read from the events' `format` files, and
//! the records decoded into issues and completions.

use crate::error::CaptureError;
use crate::Op;

/// Where a field lies in an event's record.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct Field {
    offset: usize,
    size: usize,
}

/// The fields of one event that drivescope reads.
#[derive(Debug, Clone, PartialEq, Eq)]
struct Fields {
    dev: Field,
    sector: Field,
    nr_sector: Field,
    rwbs: Field,
    /// `bytes` on issue, `error` on completion.
    extra: Field,
}

/// Both events' ids and layouts.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Layout {
    pub issue_id: u16,
    pub complete_id: u16,
    issue: Fields,
    complete: Fields,
}

/// What a request's `rwbs` says.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Rwbs {
    pub op: Op,
    pub sync: bool,
}

/// One decoded event.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Event {
    Issue {
        dev: u32,
        sector: u64,
        bytes: u32,
        rwbs: Rwbs,
    },
    Complete {
        dev: u32,
        sector: u64,
        nr_sector: u32,
        error: i32,
    },
}

fn parse_format(
    text: &str,
    event: &'static str,
    extra: &str,
) -> Result<(u16, Fields), CaptureError> {
    let bad = |why: String| CaptureError::EventFormat { event, why };
    let id = text
        .lines()
        .find_map(|l| l.strip_prefix("ID:"))
        .and_then(|v| v.trim().parse().ok())
        .ok_or_else(|| bad("no ID line".into()))?;
    let field = |name: &str| -> Result<Field, CaptureError> {
        for line in text.lines() {
            let line = line.trim();
            let Some(rest) = line.strip_prefix("field:") else {
                continue;
            };
            let mut parts = rest.split(';').map(str::trim);
            let decl = parts.next().unwrap_or("");
            let fname = decl
                .rsplit(' ')
                .next()
                .unwrap_or("")
                .split('[')
                .next()
                .unwrap_or("");
            if fname != name {
                continue;
            }
            let mut offset = None;
            let mut size = None;
            for p in parts {
                if let Some(v) = p.strip_prefix("offset:") {
                    offset = v.parse().ok();
                } else if let Some(v) = p.strip_prefix("size:") {
                    size = v.parse().ok();
                }
            }
            if let (Some(offset), Some(size)) = (offset, size) {
                return Ok(Field { offset, size });
            }
        }
        Err(bad(format!("no field {name}")))
    };
    let fields = Fields {
        dev: field("dev")?,
        sector: field("sector")?,
        nr_sector: field("nr_sector")?,
        rwbs: field("rwbs")?,
        extra: field(extra)?,
    };
    for (n, f, sizes) in [
        ("dev", fields.dev, &[4usize][..]),
        ("sector", fields.sector, &[8][..]),
        ("nr_sector", fields.nr_sector, &[4][..]),
        (extra, fields.extra, &[4][..]),
    ] {
        if !sizes.contains(&f.size) {
            return Err(bad(format!("{n} is {} bytes", f.size)));
        }
    }
    Ok((id, fields))
}

impl Layout {
    /// From the two events' `format` files.
    pub fn parse(issue: &str, complete: &str) -> Result<Layout, CaptureError> {
        let (issue_id, issue) = parse_format(issue, "block_rq_issue", "bytes")?;
        let (complete_id, complete) = parse_format(complete, "block_rq_complete", "error")?;
        Ok(Layout {
            issue_id,
            complete_id,
            issue,
            complete,
        })
    }

    /// Decodes one event's record (the bytes after the ring buffer's event header); `None` for another
    /// event or a record too short.
    pub fn decode(&self, data: &[u8]) -> Option<Event> {
        let id = u16::from_le_bytes(data.get(0..2)?.try_into().ok()?);
        let u32_at = |f: Field| -> Option<u32> {
            Some(u32::from_ne_bytes(
                data.get(f.offset..f.offset + 4)?.try_into().ok()?,
            ))
        };
        let u64_at = |f: Field| -> Option<u64> {
            Some(u64::from_ne_bytes(
                data.get(f.offset..f.offset + 8)?.try_into().ok()?,
            ))
        };
        if id == self.issue_id {
            let f = &self.issue;
            let rwbs = data.get(f.rwbs.offset..f.rwbs.offset + f.rwbs.size)?;
            Some(Event::Issue {
                dev: u32_at(f.dev)?,
                sector: u64_at(f.sector)?,
                bytes: u32_at(f.extra)?,
                rwbs: parse_rwbs(rwbs),
            })
        } else if id == self.complete_id {
            let f = &self.complete;
            Some(Event::Complete {
                dev: u32_at(f.dev)?,
                sector: u64_at(f.sector)?,
                nr_sector: u32_at(f.nr_sector)?,
                error: u32_at(f.extra)? as i32,
            })
        } else {
            None
        }
    }
}

/// The operation and sync-ness from `rwbs` (`F` preflush, then one of `W`rite, `D`iscard (`DE` secure
/// erase), `F`lush, `R`ead, `N` other; then `F` FUA, `A` readahead, `S` sync, `M` metadata).
pub fn parse_rwbs(raw: &[u8]) -> Rwbs {
    let end = raw.iter().position(|&b| b == 0).unwrap_or(raw.len());
    let s = &raw[..end];
    let mut i = 0;
    let mut sync = false;
    if s.len() > 1 && s[0] == b'F' && matches!(s[1], b'W' | b'D' | b'F' | b'R' | b'N') {
        sync = true;
        i = 1;
    }
    let op = match s.get(i) {
        Some(b'W') => Op::Write,
        Some(b'R') => Op::Read,
        Some(b'F') => Op::Flush,
        // Discard, secure erase and the operations without data (write-zeroes, zone commands).
        _ => Op::Discard,
    };
    let flags = s.get(i + 1..).unwrap_or(&[]);
    if flags.contains(&b'F') || flags.contains(&b'S') {
        sync = true;
    }
    Rwbs { op, sync }
}

#[cfg(test)]
mod tests {
    use super::*;

    const ISSUE: &str = "name: block_rq_issue\nID: 2104\nformat:\n\
\tfield:unsigned short common_type;\toffset:0;\tsize:2;\tsigned:0;\n\
\tfield:dev_t dev;\toffset:8;\tsize:4;\tsigned:0;\n\
\tfield:sector_t sector;\toffset:16;\tsize:8;\tsigned:0;\n\
\tfield:unsigned int nr_sector;\toffset:24;\tsize:4;\tsigned:0;\n\
\tfield:unsigned int bytes;\toffset:28;\tsize:4;\tsigned:0;\n\
\tfield:char rwbs[10];\toffset:34;\tsize:10;\tsigned:0;\n";
    const COMPLETE: &str = "name: block_rq_complete\nID: 2107\nformat:\n\
\tfield:unsigned short common_type;\toffset:0;\tsize:2;\tsigned:0;\n\
\tfield:dev_t dev;\toffset:8;\tsize:4;\tsigned:0;\n\
\tfield:sector_t sector;\toffset:16;\tsize:8;\tsigned:0;\n\
\tfield:unsigned int nr_sector;\toffset:24;\tsize:4;\tsigned:0;\n\
\tfield:int error;\toffset:28;\tsize:4;\tsigned:1;\n\
\tfield:char rwbs[10];\toffset:34;\tsize:10;\tsigned:0;\n";

    /// A record laid out as the format above says.
    pub(crate) fn record(
        id: u16,
        dev: u32,
        sector: u64,
        nr: u32,
        extra: u32,
        rwbs: &str,
    ) -> Vec<u8> {
        let mut b = vec![0u8; 48];
        b[0..2].copy_from_slice(&id.to_le_bytes());
        b[8..12].copy_from_slice(&dev.to_ne_bytes());
        b[16..24].copy_from_slice(&sector.to_ne_bytes());
        b[24..28].copy_from_slice(&nr.to_ne_bytes());
        b[28..32].copy_from_slice(&extra.to_ne_bytes());
        b[34..34 + rwbs.len()].copy_from_slice(rwbs.as_bytes());
        b
    }

    #[test]
    fn the_kernels_format_files_parse_and_records_decode() {
        let l = Layout::parse(ISSUE, COMPLETE).unwrap();
        assert_eq!((l.issue_id, l.complete_id), (2104, 2107));
        let dev = (7 << 20) | 3;
        let e = l.decode(&record(2104, dev, 2048, 8, 4096, "RS")).unwrap();
        assert_eq!(
            e,
            Event::Issue {
                dev,
                sector: 2048,
                bytes: 4096,
                rwbs: Rwbs {
                    op: Op::Read,
                    sync: true
                }
            }
        );
        let e = l
            .decode(&record(2107, dev, 2048, 8, (-5i32) as u32, "R"))
            .unwrap();
        assert_eq!(
            e,
            Event::Complete {
                dev,
                sector: 2048,
                nr_sector: 8,
                error: -5
            }
        );
        assert_eq!(l.decode(&record(9, dev, 0, 0, 0, "R")), None);
        assert_eq!(l.decode(&[0x38, 0x08]), None, "too short");
    }

    #[test]
    fn a_format_without_a_field_is_refused() {
        let broken = ISSUE.replace("bytes", "octets");
        assert!(matches!(
            Layout::parse(&broken, COMPLETE),
            Err(CaptureError::EventFormat { .. })
        ));
    }

    #[test]
    fn rwbs_letters() {
        let p = |s: &str| parse_rwbs(s.as_bytes());
        assert_eq!(
            p("R"),
            Rwbs {
                op: Op::Read,
                sync: false
            }
        );
        assert_eq!(
            p("RA"),
            Rwbs {
                op: Op::Read,
                sync: false
            }
        );
        assert_eq!(
            p("WS"),
            Rwbs {
                op: Op::Write,
                sync: true
            }
        );
        assert_eq!(
            p("FWS"),
            Rwbs {
                op: Op::Write,
                sync: true
            }
        );
        assert_eq!(
            p("WFS"),
            Rwbs {
                op: Op::Write,
                sync: true
            }
        );
        assert_eq!(
            p("WM"),
            Rwbs {
                op: Op::Write,
                sync: false
            }
        );
        assert_eq!(
            p("F"),
            Rwbs {
                op: Op::Flush,
                sync: false
            }
        );
        assert_eq!(
            p("FF"),
            Rwbs {
                op: Op::Flush,
                sync: true
            }
        );
        assert_eq!(
            p("D"),
            Rwbs {
                op: Op::Discard,
                sync: false
            }
        );
        assert_eq!(
            p("N"),
            Rwbs {
                op: Op::Discard,
                sync: false
            }
        );
        assert_eq!(parse_rwbs(b"RS\0\0\0\0").op, Op::Read);
    }
}
