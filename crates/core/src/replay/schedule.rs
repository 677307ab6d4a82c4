//! The order and dependencies of a trace's requests, as the replay issues them.
//!
//! A request waits, in the replay, for every request that had completed before it was issued in the
//! trace: those are the first `after` requests in the trace's completion order. Its think time is what
//! passed in the trace between the last of those completions and its issue (between the trace's first
//! issue and its own for a request that waited for none). Requests are issued in the trace's issue order.

use drivescope_trace::{Op, Request};

/// One request as the replay issues it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Step {
    pub request: Request,
    /// Byte offset on the target.
    pub offset: u64,
    /// Bytes, rounded up to the target's logical block size.
    pub len: u32,
    pub write: bool,
    /// Not issued (a write on a read-only target, a flush, a discard): done as soon as it is due.
    pub skip: bool,
    /// How many requests, in the trace's completion order, must be done before this one is issued.
    pub after: usize,
    /// Trace time from the last of those completions (or from the first issue) to this issue.
    pub think_ns: u64,
}

/// Every step in issue order, and the steps in the trace's completion order.
#[derive(Debug, Clone, Default)]
pub struct Schedule {
    pub steps: Vec<Step>,
    /// Indices into `steps`, in the order the trace completed them.
    pub completion_order: Vec<usize>,
}

/// Where the trace's offsets land on the target.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Mapping {
    /// Target size in bytes.
    pub size: u64,
    /// Logical block size of the target: offsets and lengths are aligned to it.
    pub block: u32,
    /// Fold offsets past the end onto the target (else the caller refuses the trace first).
    pub wrap: bool,
    /// Writes may be issued.
    pub writable: bool,
}

impl Mapping {
    fn place(&self, r: &Request) -> (u64, u32) {
        let b = u64::from(self.block.max(512));
        let len = (u64::from(r.bytes).div_ceil(b) * b)
            .min(self.size / b * b)
            .max(b);
        let mut off = r.sector * 512 / b * b;
        if off + len > self.size {
            let room = (self.size - len) / b * b + b;
            off = if self.wrap {
                off % room
            } else {
                self.size - len
            };
            off = off / b * b;
        }
        (off, len as u32)
    }
}

/// The end of the furthest request, in bytes.
pub fn reach(requests: &[Request]) -> u64 {
    requests
        .iter()
        .map(|r| r.sector * 512 + u64::from(r.bytes))
        .max()
        .unwrap_or(0)
}

/// The schedule of `requests` (in any order) on a target mapped by `m`.
pub fn build(requests: &[Request], m: &Mapping) -> Schedule {
    let mut by_issue: Vec<usize> = (0..requests.len()).collect();
    by_issue.sort_by_key(|&i| (requests[i].issue_ns, i));
    let mut by_completion: Vec<usize> = (0..requests.len()).collect();
    by_completion.sort_by_key(|&i| (requests[i].complete_ns, i));
    let start = by_issue.first().map_or(0, |&i| requests[i].issue_ns);
    // position of each request in issue order
    let mut step_of = vec![0usize; requests.len()];
    for (s, &i) in by_issue.iter().enumerate() {
        step_of[i] = s;
    }
    let mut done = 0usize; // requests completed strictly before the current issue
    let steps = by_issue
        .iter()
        .map(|&i| {
            let r = requests[i];
            while done < by_completion.len()
                && requests[by_completion[done]].complete_ns < r.issue_ns
            {
                done += 1;
            }
            let since = if done == 0 {
                start
            } else {
                requests[by_completion[done - 1]].complete_ns
            };
            let (offset, len) = m.place(&r);
            let write = r.op == Op::Write;
            Step {
                request: r,
                offset,
                len,
                write,
                skip: match r.op {
                    Op::Read => false,
                    Op::Write => !m.writable,
                    Op::Flush | Op::Discard => true,
                },
                after: done,
                think_ns: r.issue_ns.saturating_sub(since),
            }
        })
        .collect();
    Schedule {
        steps,
        completion_order: by_completion.iter().map(|&i| step_of[i]).collect(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn req(sector: u64, issue: u64, complete: u64, op: Op) -> Request {
        Request {
            dev: 1,
            sector,
            bytes: 4096,
            op,
            sync: false,
            issue_ns: issue,
            complete_ns: complete,
            error: 0,
        }
    }

    const M: Mapping = Mapping {
        size: 1 << 20,
        block: 512,
        wrap: false,
        writable: false,
    };

    #[test]
    fn one_at_a_time_waits_for_the_one_before_and_keeps_the_gap() {
        // completion order as a kept trace has it
        let rs = [
            req(0, 100, 150, Op::Read),
            req(8, 170, 200, Op::Read),
            req(64, 230, 300, Op::Read),
        ];
        let s = build(&rs, &M);
        let after: Vec<usize> = s.steps.iter().map(|x| x.after).collect();
        let think: Vec<u64> = s.steps.iter().map(|x| x.think_ns).collect();
        assert_eq!(after, [0, 1, 2]);
        assert_eq!(think, [0, 20, 30]);
        assert_eq!(s.completion_order, [0, 1, 2]);
    }

    #[test]
    fn overlapping_requests_wait_only_for_what_completed_before_them() {
        // Two in flight: B is issued while A runs; C after A completes; D after B and C.
        let rs = [
            req(0, 0, 100, Op::Read),    // A
            req(8, 10, 200, Op::Read),   // B
            req(16, 120, 180, Op::Read), // C completes before B
            req(24, 250, 260, Op::Read), // D
        ];
        // the file is in completion order: A, C, B, D
        let file = [rs[0], rs[2], rs[1], rs[3]];
        let s = build(&file, &M);
        let issued: Vec<u64> = s.steps.iter().map(|x| x.request.issue_ns).collect();
        assert_eq!(issued, [0, 10, 120, 250]);
        let after: Vec<usize> = s.steps.iter().map(|x| x.after).collect();
        assert_eq!(after, [0, 0, 1, 3]);
        let think: Vec<u64> = s.steps.iter().map(|x| x.think_ns).collect();
        assert_eq!(think, [0, 10, 20, 50]);
        // completion order A(step 0), C(step 2), B(step 1), D(step 3)
        assert_eq!(s.completion_order, [0, 2, 1, 3]);
        // No step waits for itself or for a later step.
        for (k, st) in s.steps.iter().enumerate() {
            assert!(s.completion_order[..st.after].iter().all(|&d| d < k));
        }
    }

    #[test]
    fn writes_flushes_and_discards_are_skipped_on_a_read_only_target() {
        let rs = [
            req(0, 0, 10, Op::Write),
            req(0, 20, 30, Op::Flush),
            req(0, 40, 50, Op::Discard),
            req(0, 60, 70, Op::Read),
        ];
        let skip: Vec<bool> = build(&rs, &M).steps.iter().map(|x| x.skip).collect();
        assert_eq!(skip, [true, true, true, false]);
        let rw = Mapping {
            writable: true,
            ..M
        };
        let skip: Vec<bool> = build(&rs, &rw).steps.iter().map(|x| x.skip).collect();
        assert_eq!(skip, [false, true, true, false]);
    }

    #[test]
    fn offsets_align_to_the_target_and_fold_when_asked() {
        let m = Mapping {
            size: 1 << 20,
            block: 4096,
            wrap: true,
            writable: false,
        };
        let mut r = req(9, 0, 1, Op::Read); // byte 4608: not 4 KiB aligned
        r.bytes = 1024;
        assert_eq!(m.place(&r), (4096, 4096));
        let far = req((3 << 20) / 512 + 8, 0, 1, Op::Read); // 3 MiB + 4 KiB on a 1 MiB target
        let (off, len) = m.place(&far);
        assert_eq!((off, len), (4096, 4096));
        assert!(off + u64::from(len) <= m.size);
        // Without folding a request past the end is placed at the end (the caller refuses first).
        let (off, _) = Mapping { wrap: false, ..m }.place(&far);
        assert_eq!(off, (1 << 20) - 4096);
        assert_eq!(reach(&[far]), (3 << 20) + 4096 + 4096);
    }
}
