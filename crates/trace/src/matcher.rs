//! Issues matched with their completions, in the order the kernel timed them.
//!
//! A request is known by its device and first sector while in flight. A completion may cover only part of
//! a request (the driver finished it in pieces): the rest stays in flight from the sector after the part.
//! A second issue of a request still in flight is a requeue (the driver gave it back): the later issue
//! counts. Flushes have no sector of their own, so a device's flushes complete first in, first out.

use crate::events::Event;
use crate::{Op, Request};
use std::collections::{HashMap, VecDeque};

#[derive(Debug, Clone, Copy)]
struct InFlight {
    /// The request as issued (its sector the first).
    req: Request,
    /// Bytes not completed yet.
    remaining: u64,
}

/// Matches events into requests. Memory holds only the requests in flight.
#[derive(Debug, Default)]
pub struct Matcher {
    inflight: HashMap<(u32, u64), InFlight>,
    flushes: HashMap<u32, VecDeque<InFlight>>,
    /// Completions with no issue seen (issued before the trace started).
    pub orphans: u64,
    /// Issues of a request already in flight.
    pub requeues: u64,
    /// The trace's time zero, in the events' clock.
    t0: u64,
}

impl Matcher {
    pub fn new(t0: u64) -> Matcher {
        Matcher {
            t0,
            ..Matcher::default()
        }
    }

    /// One event at time `ts`; a completed request goes to `done`.
    pub fn event(&mut self, ts: u64, e: &Event, done: &mut dyn FnMut(&Request)) {
        let t = ts.saturating_sub(self.t0);
        match *e {
            Event::Issue {
                dev,
                sector,
                bytes,
                rwbs,
            } => {
                let data = matches!(rwbs.op, Op::Read | Op::Write | Op::Discard);
                let bytes = if data { bytes } else { 0 };
                let f = InFlight {
                    req: Request {
                        dev,
                        sector,
                        bytes,
                        op: rwbs.op,
                        sync: rwbs.sync,
                        issue_ns: t,
                        complete_ns: t,
                        error: 0,
                    },
                    remaining: u64::from(bytes),
                };
                if bytes == 0 {
                    self.flushes.entry(dev).or_default().push_back(f);
                } else if self.inflight.insert((dev, sector), f).is_some() {
                    self.requeues += 1;
                }
            }
            Event::Complete {
                dev,
                sector,
                nr_sector,
                error,
            } => {
                let part = u64::from(nr_sector) * 512;
                if part == 0 {
                    match self.flushes.get_mut(&dev).and_then(VecDeque::pop_front) {
                        Some(mut f) => {
                            f.req.complete_ns = t.max(f.req.issue_ns);
                            f.req.error = error;
                            done(&f.req);
                        }
                        None => self.orphans += 1,
                    }
                    return;
                }
                let Some(mut f) = self.inflight.remove(&(dev, sector)) else {
                    self.orphans += 1;
                    return;
                };
                if error != 0 {
                    f.req.error = error;
                }
                if part < f.remaining {
                    f.remaining -= part;
                    self.inflight.insert((dev, sector + nr_sector as u64), f);
                } else {
                    f.req.complete_ns = t.max(f.req.issue_ns);
                    done(&f.req);
                }
            }
        }
    }

    /// Requests still in flight (issued, never seen to complete).
    pub fn in_flight(&self) -> u64 {
        (self.inflight.len() + self.flushes.values().map(VecDeque::len).sum::<usize>()) as u64
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::events::Rwbs;

    const DEV: u32 = (7 << 20) | 1;

    fn issue(sector: u64, bytes: u32, op: Op) -> Event {
        Event::Issue {
            dev: DEV,
            sector,
            bytes,
            rwbs: Rwbs { op, sync: false },
        }
    }
    fn complete(sector: u64, nr_sector: u32) -> Event {
        Event::Complete {
            dev: DEV,
            sector,
            nr_sector,
            error: 0,
        }
    }

    fn run(events: &[(u64, Event)]) -> (Vec<Request>, Matcher) {
        let mut m = Matcher::new(100);
        let mut out = Vec::new();
        for (t, e) in events {
            m.event(*t, e, &mut |r| out.push(*r));
        }
        (out, m)
    }

    #[test]
    fn overlapping_requests_match_by_sector_in_completion_order() {
        let (out, m) = run(&[
            (100, issue(0, 4096, Op::Read)),
            (110, issue(800, 8192, Op::Write)),
            (150, complete(800, 16)),
            (190, complete(0, 8)),
        ]);
        assert_eq!(out.len(), 2);
        assert_eq!(
            (out[0].sector, out[0].op, out[0].bytes),
            (800, Op::Write, 8192)
        );
        assert_eq!((out[0].issue_ns, out[0].complete_ns), (10, 50));
        assert_eq!((out[1].issue_ns, out[1].complete_ns), (0, 90));
        assert_eq!((m.orphans, m.in_flight()), (0, 0));
    }

    #[test]
    fn a_request_completed_in_parts_is_one_request_done_at_its_last_part() {
        let (out, m) = run(&[
            (100, issue(64, 3 * 4096, Op::Read)),
            (120, complete(64, 8)),
            (130, complete(72, 8)),
            (140, complete(80, 8)),
        ]);
        assert_eq!(out.len(), 1);
        assert_eq!(
            (out[0].sector, out[0].bytes, out[0].complete_ns),
            (64, 12288, 40)
        );
        assert_eq!(m.in_flight(), 0);
    }

    #[test]
    fn a_requeued_request_counts_once_from_its_last_issue() {
        let (out, m) = run(&[
            (100, issue(8, 4096, Op::Read)),
            (150, issue(8, 4096, Op::Read)),
            (170, complete(8, 8)),
        ]);
        assert_eq!(out.len(), 1);
        assert_eq!(out[0].issue_ns, 50);
        assert_eq!(m.requeues, 1);
    }

    #[test]
    fn flushes_complete_in_order_and_strays_are_counted() {
        let (out, m) = run(&[
            (100, issue(0, 0, Op::Flush)),
            (105, issue(0, 0, Op::Flush)),
            (110, complete(0, 0)),
            (120, complete(0, 0)),
            (130, complete(0, 0)),
            (140, complete(999, 8)),
            (150, issue(16, 4096, Op::Write)),
        ]);
        assert_eq!(out.len(), 2);
        assert!(out.iter().all(|r| r.op == Op::Flush && r.bytes == 0));
        assert_eq!((out[0].issue_ns, out[0].complete_ns), (0, 10));
        assert_eq!((out[1].issue_ns, out[1].complete_ns), (5, 20));
        assert_eq!(m.orphans, 2);
        assert_eq!(m.in_flight(), 1);
    }
}
