//! The order and dependencies of a trace's requests, as the replay issues them.
//!
//! Requests are issued in the trace's issue order. A request waits, in the replay, until as many
//! requests (any of them) have completed as had completed in the trace a reaction time before its
//! issue, or until fewer are in flight than the trace kept just before it ([`room`]), whichever needs
//! fewer completions (`after`); then for its think time. Which requests completed is left to the
//! target: a program that keeps N requests in flight refills a slot when any of them completes, and the
//! target completes them in its own order, so waiting for the trace's very requests would hold each one
//! behind any that happens to be slower in the replay and run the queue shallower than it was traced. A
//! request the trace issued with nothing else in flight (and none for a while) waits for all before it;
//! the replay never has more in flight than the trace's deepest queue.
//!
//! The reaction time ([`reaction`]) is the traced system's floor from a completion to an issue it
//! caused (interrupt, wake-up, the submitting call): a completion within it before an issue cannot have
//! caused the issue, and the replay pays such a path of its own. Think time is what passed in the trace
//! beyond it, from the later of the last completion a reaction before the issue and the previous issue
//! (a program busy issuing reacts to the next completion after that); from the previous issue for a
//! request that waited for none.

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
    /// How many requests (any of them) must be done before this one is issued: as many as had
    /// completed in the trace a reaction time or more before its issue, or fewer where the room
    /// the trace kept allows.
    pub after: usize,
    /// Trace time from the later of the last completion a reaction time before this issue and the
    /// previous issue, less the reaction floor (from the previous issue for a request that waited
    /// for none).
    pub think_ns: u64,
}

/// Every step in issue order, and the trace's reaction floor.
#[derive(Debug, Clone, Default)]
pub struct Schedule {
    pub steps: Vec<Step>,
    /// The traced system's reaction floor ([`reaction`]), which the replay does not wait for again.
    pub reaction_ns: u64,
}

impl Schedule {
    /// How long step `i` waits, once its dependencies are done, before it is issued.
    pub fn wait_ns(&self, i: usize, no_think: bool) -> u64 {
        if no_think {
            0
        } else {
            self.steps[i].think_ns
        }
    }
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
    let mut completions: Vec<u64> = requests.iter().map(|r| r.complete_ns).collect();
    completions.sort_unstable();
    let issues: Vec<u64> = by_issue.iter().map(|&i| requests[i].issue_ns).collect();
    let start = issues.first().copied().unwrap_or(0);
    let queued = queued(&issues, &completions);
    let reaction_ns = reaction(&issues, &completions, &queued);
    let room = room(&queued);
    let mut previous = start;
    let mut done = 0usize; // requests completed a reaction time or more before the current issue
    let steps: Vec<Step> = by_issue
        .iter()
        .enumerate()
        .map(|(k, &i)| {
            let r = requests[i];
            while done < completions.len() && completions[done] + reaction_ns <= r.issue_ns {
                done += 1;
            }
            let think_ns = match done.checked_sub(1) {
                Some(d) => {
                    let since = completions[d].max(previous);
                    r.issue_ns.saturating_sub(since + reaction_ns)
                }
                None => r.issue_ns - previous,
            };
            // A program with a free slot (fewer in flight than it kept just before) issues anyway,
            // after the same think time.
            let done = done.min(k + 1 - room[k]);
            previous = r.issue_ns;
            let (offset, len) = m.place(&r);
            Step {
                request: r,
                offset,
                len,
                write: r.op == Op::Write,
                skip: match r.op {
                    Op::Read => false,
                    Op::Write => !m.writable,
                    Op::Flush | Op::Discard => true,
                },
                after: done,
                think_ns,
            }
        })
        .collect();
    Schedule { steps, reaction_ns }
}

/// How many requests the trace had in flight at each issue (in issue order), the issued one included.
fn queued(issues: &[u64], completions: &[u64]) -> Vec<usize> {
    let mut done = 0usize;
    let mut q = Vec::with_capacity(issues.len());
    for (k, &t) in issues.iter().enumerate() {
        while done < completions.len() && completions[done] <= t {
            done += 1;
        }
        q.push((k + 1).saturating_sub(done).max(1));
    }
    q
}

/// The most the trace had in flight at any issue over the last `2 D` issues up to each (`D` the
/// deepest it went): the room a program had kept for its requests just before, which a replay may
/// fill again without waiting for the completions the trace happened to have seen.
pub fn room(queued: &[usize]) -> Vec<usize> {
    let window = 2 * queued.iter().copied().max().unwrap_or(1);
    // a sliding maximum: indices of decreasing values
    let mut best: std::collections::VecDeque<usize> = std::collections::VecDeque::new();
    let mut out = Vec::with_capacity(queued.len());
    for (k, &q) in queued.iter().enumerate() {
        while best.back().is_some_and(|&j| queued[j] <= q) {
            best.pop_back();
        }
        best.push_back(k);
        while best.front().is_some_and(|&j| j + window < k) {
            best.pop_front();
        }
        out.push(queued[best[0]]);
    }
    out
}

/// The traced system's reaction floor, from the issue times and the completion times (each sorted):
/// how long before an issue a completion must have come to have caused it. The larger of two bounds:
/// - depth: the trace never had more than `D` requests in flight, so before issue `k` at least
///   `k + 1 - D` requests had completed, the causes of the issues before it; counting only completions
///   a reaction earlier must still find that many, so the reaction is at most
///   `issue[k] - completion[k - D]` for every `k` (0 for a trace of no more than `D` requests);
/// - pace: a program reacting to a completion also submits, so its reaction is at least the shortest
///   gap between two issues with another request in flight (its back-to-back submissions). A program
///   too busy to keep its queue full never reaches its depth in the trace, and the depth bound alone
///   would then count completions that came while it was submitting.
pub fn reaction(issues: &[u64], completions: &[u64], queued: &[usize]) -> u64 {
    let depth = queued.iter().copied().max().unwrap_or(1);
    let pace = (1..issues.len())
        .filter(|&k| queued[k] > 1)
        .map(|k| issues[k] - issues[k - 1])
        .min();
    let by_depth = issues
        .iter()
        .enumerate()
        .skip(depth)
        .map(|(k, &t)| t.saturating_sub(completions[k - depth]))
        .min()
        .unwrap_or(0);
    by_depth.max(pace.unwrap_or(0))
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
    fn one_at_a_time_waits_for_the_one_before_and_keeps_the_gap_beyond_the_quickest() {
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
        // The quickest reaction (20 ns) is the system's own; the replay waits only beyond it.
        assert_eq!(s.reaction_ns, 20);
        assert_eq!(think, [0, 0, 10]);
        assert!((0..3).all(|i| s.wait_ns(i, true) == 0));
    }

    #[test]
    fn overlapping_requests_wait_for_as_many_completions_and_the_last_one_seen() {
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
        // D was issued with B and C completed, but only C within its reaction time; the trace had two
        // in flight just before, so one completion (whichever) gives it room.
        assert_eq!(after, [0, 0, 1, 2]);
        // Reaction floor: C was issued 20 ns after A completed, with two in flight at most.
        assert_eq!(s.reaction_ns, 20);
        // A request that waited for none keeps its whole gap from the first issue.
        // Think time from the last completion a reaction before (A for C, B for D), less the reaction.
        let think: Vec<u64> = s.steps.iter().map(|x| x.think_ns).collect();
        assert_eq!(think, [0, 10, 0, 30]);
        for (k, st) in s.steps.iter().enumerate() {
            assert!(st.after <= k);
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
