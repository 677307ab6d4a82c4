//! The kernel ring buffer's pages as `per_cpu/cpuN/trace_pipe_raw` hands them out: a page header (the
//! page's base timestamp and how many bytes it holds) and compressed events (a 32-bit header of
//! `type_len:5, time_delta:27`, then the record), each event's time a delta from the one before.

/// Where the page header's fields lie (from `events/header_page`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct PageLayout {
    pub commit_offset: usize,
    pub commit_size: usize,
    pub data_offset: usize,
}

impl Default for PageLayout {
    /// A 64-bit kernel's.
    fn default() -> Self {
        PageLayout {
            commit_offset: 8,
            commit_size: 8,
            data_offset: 16,
        }
    }
}

impl PageLayout {
    /// From `events/header_page`; the 64-bit layout where it does not say.
    pub fn parse(text: &str) -> PageLayout {
        let mut l = PageLayout::default();
        for line in text.lines() {
            let num = |key: &str| -> Option<usize> {
                line.split(';')
                    .find_map(|p| p.trim().strip_prefix(key))
                    .and_then(|v| v.parse().ok())
            };
            if line.contains(" commit;") {
                if let (Some(o), Some(s)) = (num("offset:"), num("size:")) {
                    l.commit_offset = o;
                    l.commit_size = s;
                }
            } else if line.contains(" data;") {
                if let Some(o) = num("offset:") {
                    l.data_offset = o;
                }
            }
        }
        l
    }
}

const PADDING: u32 = 29;
const TIME_EXTEND: u32 = 30;
const TIME_STAMP: u32 = 31;
const TS_SHIFT: u32 = 27;
/// The commit field's low bits are the length; the high ones flag missed events.
const COMMIT_MASK: u64 = (1 << 27) - 1;

/// Calls `f(timestamp, record)` for each data event in one page, in order. A page cut short ends the walk.
pub fn for_each_event(page: &[u8], layout: &PageLayout, mut f: impl FnMut(u64, &[u8])) {
    let Some(mut ts) = page
        .get(0..8)
        .map(|b| u64::from_le_bytes(b.try_into().unwrap()))
    else {
        return;
    };
    let commit = match layout.commit_size {
        4 => page
            .get(layout.commit_offset..layout.commit_offset + 4)
            .map(|b| u64::from(u32::from_le_bytes(b.try_into().unwrap()))),
        _ => page
            .get(layout.commit_offset..layout.commit_offset + 8)
            .map(|b| u64::from_le_bytes(b.try_into().unwrap())),
    };
    let Some(commit) = commit else { return };
    let start = layout.data_offset;
    let end = (start + (commit & COMMIT_MASK) as usize).min(page.len());
    let u32_at = |i: usize| -> Option<u32> {
        (i + 4 <= end).then(|| u32::from_le_bytes(page[i..i + 4].try_into().unwrap()))
    };
    let mut p = start;
    while p + 4 <= end {
        let Some(h) = u32_at(p) else { return };
        let type_len = h & 0x1f;
        let delta = u64::from(h >> 5);
        match type_len {
            PADDING => {
                if delta == 0 {
                    return; // the rest of the page is empty
                }
                let Some(len) = u32_at(p + 4) else { return };
                ts += delta;
                p += 4 + len as usize;
            }
            TIME_EXTEND => {
                let Some(hi) = u32_at(p + 4) else { return };
                ts += (u64::from(hi) << TS_SHIFT) + delta;
                p += 8;
            }
            TIME_STAMP => {
                let Some(hi) = u32_at(p + 4) else { return };
                let abs = (u64::from(hi) << TS_SHIFT) + delta;
                // The stamp keeps 59 bits; the top ones are the page's.
                ts = (ts & !((1u64 << 59) - 1)) | abs;
                p += 8;
            }
            0 => {
                let Some(len) = u32_at(p + 4) else { return };
                let len = len as usize;
                if len < 4 || p + 4 + len > end {
                    return;
                }
                ts += delta;
                f(ts, &page[p + 8..p + 4 + len]);
                p += 4 + len;
            }
            n => {
                let len = n as usize * 4;
                if p + 4 + len > end {
                    return;
                }
                ts += delta;
                f(ts, &page[p + 4..p + 4 + len]);
                p += 4 + len;
            }
        }
    }
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;

    /// Builds a page as the kernel lays it out, for tests.
    pub(crate) struct PageBuilder {
        buf: Vec<u8>,
    }

    impl PageBuilder {
        pub(crate) fn new(base_ts: u64) -> Self {
            let mut buf = vec![0u8; 16];
            buf[0..8].copy_from_slice(&base_ts.to_le_bytes());
            PageBuilder { buf }
        }
        fn word(&mut self, w: u32) {
            self.buf.extend_from_slice(&w.to_le_bytes());
        }
        /// A data event `delta` ns after the previous one; long records use the type_len 0 form.
        pub(crate) fn event(&mut self, delta: u32, data: &[u8]) -> &mut Self {
            let padded = data.len().div_ceil(4) * 4;
            if padded <= 28 * 4 {
                self.word((delta << 5) | (padded / 4) as u32);
            } else {
                self.word(delta << 5);
                self.word(padded as u32 + 4);
            }
            self.buf.extend_from_slice(data);
            self.buf.resize(self.buf.len() + padded - data.len(), 0);
            self
        }
        pub(crate) fn extend(&mut self, delta: u64) -> &mut Self {
            self.word((((delta & ((1 << 27) - 1)) as u32) << 5) | TIME_EXTEND);
            self.word((delta >> 27) as u32);
            self
        }
        pub(crate) fn stamp(&mut self, abs: u64) -> &mut Self {
            self.word((((abs & ((1 << 27) - 1)) as u32) << 5) | TIME_STAMP);
            self.word((abs >> 27) as u32);
            self
        }
        pub(crate) fn padding(&mut self, delta: u32, len: u32) -> &mut Self {
            self.word((delta << 5) | PADDING);
            // The length counts the bytes after the header, its own word included.
            self.word(len + 4);
            self.buf.resize(self.buf.len() + len as usize, 0);
            self
        }
        pub(crate) fn page(&self) -> Vec<u8> {
            let mut b = self.buf.clone();
            let commit = (b.len() - 16) as u64 | (1 << 31);
            b[8..16].copy_from_slice(&commit.to_le_bytes());
            b.resize(4096, 0);
            b
        }
    }

    fn walk(page: &[u8]) -> Vec<(u64, Vec<u8>)> {
        let mut out = Vec::new();
        for_each_event(page, &PageLayout::default(), |t, d| {
            out.push((t, d.to_vec()))
        });
        out
    }

    #[test]
    fn events_carry_their_times_through_deltas_extends_and_stamps() {
        let big = vec![7u8; 200];
        let page = PageBuilder::new(1_000)
            .event(5, &[1, 2, 3, 4])
            .extend(1 << 30)
            .event(10, &big)
            .padding(3, 8)
            .stamp(5_000_000_000)
            .event(1, &[9; 8])
            .page();
        let got = walk(&page);
        assert_eq!(got.len(), 3, "{got:?}");
        assert_eq!(got[0], (1_005, vec![1, 2, 3, 4]));
        assert_eq!(got[1].0, 1_005 + (1 << 30) + 10);
        assert_eq!(got[1].1, big);
        assert_eq!(got[2], (5_000_000_001, vec![9; 8]));
    }

    #[test]
    fn an_empty_or_short_page_yields_nothing() {
        assert!(walk(&PageBuilder::new(1).page()).is_empty());
        assert!(walk(&[0u8; 10]).is_empty());
        // A length that runs past the committed bytes ends the walk.
        let mut page = PageBuilder::new(1).event(1, &[1; 8]).page();
        page[8] = 6;
        assert!(walk(&page).is_empty());
    }

    #[test]
    fn the_header_page_format_is_read() {
        let text = "\tfield: u64 timestamp;\toffset:0;\tsize:8;\tsigned:0;\n\
                    \tfield: local_t commit;\toffset:8;\tsize:4;\tsigned:1;\n\
                    \tfield: int overwrite;\toffset:8;\tsize:1;\tsigned:1;\n\
                    \tfield: char data;\toffset:12;\tsize:4084;\tsigned:0;\n";
        assert_eq!(
            PageLayout::parse(text),
            PageLayout {
                commit_offset: 8,
                commit_size: 4,
                data_offset: 12
            }
        );
    }
}
