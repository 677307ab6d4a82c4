//! The map of a scan's range: every stretch that is not known good, as untried (never read),
//! failed (a command over it failed, its sectors not yet each read) or bad (sectors that failed
//! on their own). Whatever the map does not hold, up to where the first pass has gone, read
//! fine. Adjacent stretches of the same kind and errno are one entry, so memory grows with the
//! number of damaged places, never with the device: a dead area of any size is one entry.

use drivescope_record::{Area, AreaKind, FailedExtent, UntriedExtent};
use std::collections::BTreeMap;

/// What a stretch is, with the errno and latency of its failure.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct State {
    pub kind: AreaKind,
    pub errno: i32,
    /// Failed stretches: the failing command's latency and where it started.
    pub latency_ns: u64,
    pub origin: u64,
}

impl State {
    pub fn untried() -> State {
        State {
            kind: AreaKind::Untried,
            errno: 0,
            latency_ns: 0,
            origin: 0,
        }
    }

    pub fn bad(errno: i32) -> State {
        State {
            kind: AreaKind::Bad,
            errno,
            latency_ns: 0,
            origin: 0,
        }
    }

    pub fn failed(errno: i32, latency_ns: u64, origin: u64) -> State {
        State {
            kind: AreaKind::Failed,
            errno,
            latency_ns,
            origin,
        }
    }

    /// Whether two adjacent stretches are one entry (the first one's latency and origin stay).
    fn joins(&self, o: &State) -> bool {
        self.kind == o.kind && self.errno == o.errno
    }
}

/// One entry: `[start, end)`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Piece {
    pub start: u64,
    pub end: u64,
    pub state: State,
}

impl Piece {
    pub fn kind(&self) -> AreaKind {
        self.state.kind
    }
    pub fn len(&self) -> u64 {
        self.end - self.start
    }
}

/// Totals of the map, bytes.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Totals {
    pub untried: u64,
    pub failed: u64,
    pub bad: u64,
}

/// The stretches not known good, keyed by their start.
#[derive(Debug, Clone, Default)]
pub struct SurfaceMap {
    map: BTreeMap<u64, (u64, State)>,
    peak: usize,
}

impl SurfaceMap {
    pub fn new() -> Self {
        SurfaceMap::default()
    }

    /// Entries held now.
    pub fn len(&self) -> usize {
        self.map.len()
    }

    pub fn is_empty(&self) -> bool {
        self.map.is_empty()
    }

    /// Most entries held at once.
    pub fn peak(&self) -> usize {
        self.peak
    }

    fn piece(start: u64, v: &(u64, State)) -> Piece {
        Piece {
            start,
            end: v.0,
            state: v.1,
        }
    }

    /// The entry holding `offset`.
    pub fn at(&self, offset: u64) -> Option<Piece> {
        self.map
            .range(..=offset)
            .next_back()
            .filter(|(_, v)| v.0 > offset)
            .map(|(&s, v)| Self::piece(s, v))
    }

    /// The first entry that ends after `offset`.
    pub fn from(&self, offset: u64) -> Option<Piece> {
        if let Some(p) = self.at(offset) {
            return Some(p);
        }
        self.map
            .range(offset..)
            .next()
            .map(|(&s, v)| Self::piece(s, v))
    }

    /// The entry that ends exactly at `offset`.
    pub fn ending_at(&self, offset: u64) -> Option<Piece> {
        self.map
            .range(..offset)
            .next_back()
            .filter(|(_, v)| v.0 == offset)
            .map(|(&s, v)| Self::piece(s, v))
    }

    /// The entry that starts exactly at `offset`.
    pub fn starting_at(&self, offset: u64) -> Option<Piece> {
        self.map.get(&offset).map(|v| Self::piece(offset, v))
    }

    /// Whether any bad stretch lies in `[a, b)`.
    pub fn any_bad(&self, a: u64, b: u64) -> bool {
        let first = self.at(a).map_or(a, |p| p.start);
        self.map
            .range(first..b)
            .any(|(_, v)| v.1.kind == AreaKind::Bad && v.0 > a)
    }

    /// Mark `[a, b)` as `state`, or good when `None`.
    pub fn set(&mut self, a: u64, b: u64, state: Option<State>) {
        if a >= b {
            return;
        }
        // Cut what overlaps [a, b) out, keeping the parts outside it.
        let first = self.at(a).map_or(a, |p| p.start);
        let hit: Vec<(u64, (u64, State))> =
            self.map.range(first..b).map(|(&s, v)| (s, *v)).collect();
        for (s, (e, st)) in hit {
            self.map.remove(&s);
            if s < a {
                self.map.insert(s, (a, st));
            }
            if e > b {
                self.map.insert(b, (e, st));
            }
        }
        if let Some(st) = state {
            let (mut start, mut end) = (a, b);
            let mut kept = st;
            if let Some(p) = self.ending_at(a).filter(|p| p.state.joins(&st)) {
                self.map.remove(&p.start);
                start = p.start;
                kept = p.state;
            }
            if let Some(p) = self.starting_at(b).filter(|p| p.state.joins(&st)) {
                self.map.remove(&p.start);
                end = p.end;
            }
            self.map.insert(start, (end, kept));
        }
        self.peak = self.peak.max(self.map.len());
    }

    /// Every entry in position order.
    pub fn pieces(&self) -> impl Iterator<Item = Piece> + '_ {
        self.map.iter().map(|(&s, v)| Self::piece(s, v))
    }

    pub fn totals(&self) -> Totals {
        let mut t = Totals::default();
        for p in self.pieces() {
            match p.kind() {
                AreaKind::Untried => t.untried += p.len(),
                AreaKind::Failed => t.failed += p.len(),
                AreaKind::Bad => t.bad += p.len(),
            }
        }
        t
    }

    /// The failed extents: runs of adjacent entries from a failed or bad one to the last, with
    /// one errno (untried stretches between them join; those at either end do not), at most
    /// `cap` of them and where the list stops when there were more.
    pub fn extents(&self, sector: u64, cap: usize) -> (Vec<FailedExtent>, Option<u64>) {
        let sector = sector.max(1);
        let mut out: Vec<FailedExtent> = Vec::new();
        // The extent being built, and untried bytes right after it (joined if it goes on).
        let mut cur: Option<FailedExtent> = None;
        let mut gap = 0u64;
        let close = |out: &mut Vec<FailedExtent>, e: Option<FailedExtent>| {
            if let Some(mut e) = e {
                e.last_lba = (e.offset + e.length - 1) / sector;
                out.push(e);
            }
        };
        for p in self.pieces() {
            let follows = cur
                .as_ref()
                .is_some_and(|e| e.offset + e.length + gap == p.start);
            if p.kind() == AreaKind::Untried {
                if follows {
                    gap += p.len();
                } else {
                    close(&mut out, cur.take());
                    gap = 0;
                }
                continue;
            }
            let same = follows && cur.as_ref().is_some_and(|e| e.errno == p.state.errno);
            if same {
                let e = cur.as_mut().expect("extent");
                e.length += gap + p.len();
                e.untried += gap;
            } else {
                close(&mut out, cur.take());
                cur = Some(FailedExtent {
                    offset: p.start,
                    length: p.len(),
                    first_lba: p.start / sector,
                    last_lba: 0,
                    errno: p.state.errno,
                    count: 0,
                    unscraped: 0,
                    untried: 0,
                });
            }
            gap = 0;
            let e = cur.as_mut().expect("extent");
            match p.kind() {
                AreaKind::Bad => e.count += p.len() / sector,
                _ => e.unscraped += p.len(),
            }
        }
        close(&mut out, cur);
        let cut = (out.len() > cap).then(|| out[cap].offset);
        out.truncate(cap);
        (out, cut)
    }

    /// The untried stretches, at most `cap` of them and where the list stops.
    pub fn untried(&self, sector: u64, cap: usize) -> (Vec<UntriedExtent>, Option<u64>) {
        let sector = sector.max(1);
        let mut out = Vec::new();
        for p in self.pieces().filter(|p| p.kind() == AreaKind::Untried) {
            if out.len() == cap {
                return (out, Some(p.start));
            }
            out.push(UntriedExtent {
                offset: p.start,
                length: p.len(),
                first_lba: p.start / sector,
                last_lba: (p.end - 1) / sector,
            });
        }
        (out, None)
    }

    /// The entries as a resume state keeps them.
    pub fn areas(&self) -> Vec<Area> {
        self.pieces()
            .map(|p| Area {
                offset: p.start,
                length: p.len(),
                kind: p.kind(),
                errno: p.state.errno,
                latency_ns: p.state.latency_ns,
            })
            .collect()
    }

    /// A map from a resume state's entries.
    pub fn from_areas(areas: &[Area]) -> SurfaceMap {
        let mut m = SurfaceMap::new();
        for a in areas {
            let st = State {
                kind: a.kind,
                errno: a.errno,
                latency_ns: a.latency_ns,
                origin: a.offset,
            };
            m.set(a.offset, a.offset + a.length, Some(st));
        }
        m
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const S: u64 = 512;

    fn kinds(m: &SurfaceMap) -> Vec<(u64, u64, AreaKind)> {
        m.pieces().map(|p| (p.start, p.end, p.kind())).collect()
    }

    #[test]
    fn setting_splits_and_joins_neighbours_of_the_same_kind() {
        let mut m = SurfaceMap::new();
        m.set(0, 10 * S, Some(State::failed(5, 7, 0)));
        m.set(3 * S, 4 * S, None);
        m.set(5 * S, 6 * S, Some(State::bad(5)));
        assert_eq!(
            kinds(&m),
            vec![
                (0, 3 * S, AreaKind::Failed),
                (4 * S, 5 * S, AreaKind::Failed),
                (5 * S, 6 * S, AreaKind::Bad),
                (6 * S, 10 * S, AreaKind::Failed),
            ]
        );
        // Both pieces keep the failing command's latency.
        assert!(m
            .pieces()
            .filter(|p| p.kind() == AreaKind::Failed)
            .all(|p| p.state.latency_ns == 7));
        m.set(4 * S, 5 * S, Some(State::bad(5)));
        m.set(6 * S, 10 * S, Some(State::bad(5)));
        assert_eq!(
            kinds(&m),
            vec![(0, 3 * S, AreaKind::Failed), (4 * S, 10 * S, AreaKind::Bad)]
        );
        // Another errno is another entry.
        m.set(10 * S, 11 * S, Some(State::bad(61)));
        assert_eq!(m.len(), 3);
        assert_eq!(m.at(10 * S).unwrap().state.errno, 61);
        assert_eq!(m.ending_at(3 * S).unwrap().start, 0);
        assert_eq!(m.from(3 * S).unwrap().start, 4 * S);
        assert!(m.any_bad(0, 5 * S) && !m.any_bad(0, 4 * S));
        m.set(0, 20 * S, None);
        assert!(m.is_empty());
        assert_eq!(m.peak(), 4);
    }

    #[test]
    fn an_extent_runs_from_the_first_failure_to_the_last_over_untried_between() {
        let mut m = SurfaceMap::new();
        m.set(2 * S, 3 * S, Some(State::untried())); // alone: not an extent
        m.set(10 * S, 11 * S, Some(State::bad(5)));
        m.set(11 * S, 20 * S, Some(State::failed(5, 0, 11 * S)));
        m.set(20 * S, 30 * S, Some(State::untried()));
        m.set(30 * S, 31 * S, Some(State::bad(5)));
        m.set(31 * S, 33 * S, Some(State::untried())); // trailing: not in the extent
        m.set(40 * S, 41 * S, Some(State::bad(61)));
        let (e, cut) = m.extents(S, 10);
        assert_eq!(cut, None);
        assert_eq!(e.len(), 2);
        assert_eq!(
            (e[0].offset, e[0].length, e[0].first_lba, e[0].last_lba),
            (10 * S, 21 * S, 10, 30)
        );
        assert_eq!(
            (e[0].count, e[0].unscraped, e[0].untried),
            (2, 9 * S, 10 * S)
        );
        assert_eq!((e[1].first_lba, e[1].errno, e[1].count), (40, 61, 1));
        let (u, _) = m.untried(S, 10);
        assert_eq!(
            u.iter()
                .map(|u| (u.first_lba, u.last_lba))
                .collect::<Vec<_>>(),
            vec![(2, 2), (20, 29), (31, 32)]
        );
        let (_, cut) = m.extents(S, 1);
        assert_eq!(cut, Some(40 * S));
        let (u, cut) = m.untried(S, 2);
        assert_eq!((u.len(), cut), (2, Some(31 * S)));
        assert_eq!(
            m.totals(),
            Totals {
                untried: 13 * S,
                failed: 9 * S,
                bad: 3 * S
            }
        );
        let back = SurfaceMap::from_areas(&m.areas());
        assert_eq!(kinds(&back), kinds(&m));
    }
}
