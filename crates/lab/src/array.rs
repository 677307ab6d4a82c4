//! Array presets: the member disks of a mirror or a stripe, each a flat lab model with its own rate, on
//! independent paths or behind one shared bus ([`crate::Bus`]), one member optionally slow, with the truth a
//! correct instrument must find on them.
//!
//! The truth is stated for sequential reads that keep each member busy, as the array read experiment does:
//! - each member alone reads its own rate, capped by the bus it is behind;
//! - all members at once read their sum, capped by the bus ([`crate::truth::bus_aggregate_mb_s`]);
//! - the members read in **parallel** when the bus lets their sum through, take **turns** when it lets no
//!   more through than the fastest member alone, and share a **cap** in between;
//! - a **stripe** moves every stream over all members in step, so the slowest sets the pace: `n ×` the
//!   slowest member, capped as all members at once are; one reader or several alike;
//! - a **mirror** keeps [`ArrayPreset::copies`] copies of each block (two, as btrfs `raid1` does whatever the
//!   member count) and serves one reader from one copy at a time (btrfs chooses the copy by the reader's process
//!   id), so one reader reads one member's rate: between the slowest and the fastest member's; as many readers
//!   as members spread over the copies of what they read: at least the slowest `copies` members' sum (what
//!   they read lies on the same members) and at most all members at once (it lies in chunks on every member),
//!   capped by the bus;
//! - a **raid10** (btrfs `raid10`) stripes over mirrored pairs, two copies of each block: one reader reads one
//!   copy of each stripe (btrfs picks the same copy index, by process id, in every pair), so half the members
//!   in step: between half the members at the slowest member's pace and half at the fastest's; as many readers
//!   as members read at least that and at most all members at once;
//! - a mirror with a **missing** member (btrfs mounted `-o degraded` without it, [`ArrayPreset::degraded`])
//!   reads from the members left: each rate above over them, and the blocks whose other copy lay on the
//!   missing member come from their one copy left, so several readers may be held to one member's rate.
//!
//! Writes by one writer through the array (a file on it), each member writing at its read rate × its model's
//! `write_rate_factor` ([`ArrayPreset::writing_at`]): a stripe writes `n ×` its slowest member; a mirror writes
//! each block to every copy, at the pace of the slower copy, between the slowest member and the slower of the
//! two fastest; a raid10 writes both copies of every pair, half the members at the slowest's pace; the bus carries
//! each copy, so it caps a mirror's and a raid10's writes at the bus over the copies.
//!
//! The slow member is named when it reads alone under [`SLOW_SHARE`] of the others (the preset makes it far
//! slower); a bus that caps every member to the same rate hides a slow member, and the truth says so.

use crate::truth::bus_aggregate_mb_s;
use crate::{Bus, LabDevice, LabError, Model, ModelError};

/// A slow member reads under this share of the others' rate alone (the presets use a third).
pub const SLOW_SHARE: f64 = 0.6;

/// How an array lays its data over its members.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Layout {
    /// Every member holds a copy (RAID 1, btrfs `raid1`).
    Mirror,
    /// Data is striped over the members (RAID 0, btrfs `raid0`).
    Stripe,
    /// Data is striped over mirrored pairs of members (RAID 10, btrfs `raid10`).
    Raid10,
}

impl Layout {
    /// The btrfs data profile for this layout.
    pub fn btrfs_profile(self) -> &'static str {
        match self {
            Layout::Mirror => "raid1",
            Layout::Stripe => "raid0",
            Layout::Raid10 => "raid10",
        }
    }
}

/// An array's members as lab models and the bus they share, if any.
#[derive(Debug, Clone)]
pub struct ArrayPreset {
    pub name: String,
    pub layout: Layout,
    /// One flat model per member, in member order.
    pub members: Vec<Model>,
    /// The shared bus rate, MB/s: `None` for members on independent paths.
    pub bus_mb_s: Option<f64>,
    /// Copies of each block: two for a mirror of two or more members (btrfs `raid1`) and for a raid10, one
    /// for a stripe.
    pub copies: usize,
    /// The member that is gone (its index): the array is built with it, then mounted degraded without it.
    pub missing: Option<usize>,
}

/// How the members' paths let them read together.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Paths {
    /// Their sum gets through.
    Parallel,
    /// A shared path caps their sum above one member's rate.
    Capped,
    /// A shared path lets no more through than the fastest member alone: they take turns.
    Serialized,
}

/// What a correct instrument finds on an [`ArrayPreset`] (MB/s = 10^6 B/s).
#[derive(Debug, Clone, PartialEq)]
pub struct ArrayTruth {
    pub layout: Layout,
    /// Each member alone, in member order; 0 for the missing member.
    pub alone_mb_per_s: Vec<f64>,
    /// The member that is gone: the array is degraded, and every rate below is over the members left.
    pub missing: Option<usize>,
    /// All members at once, their sum.
    pub together_mb_per_s: f64,
    pub paths: Paths,
    /// The member that reads alone under [`SLOW_SHARE`] of the others' median.
    pub slow_member: Option<usize>,
    /// The array by one reader: the least and the most it may read (a mirror's reader gets the copy it
    /// is given; a stripe's is one rate).
    pub one_reader_mb_per_s: (f64, f64),
    /// The array by as many readers as members, their sum: the least and the most it may read (which members
    /// hold a mirror's copies of what is read is the file system's choice).
    pub readers_mb_per_s: (f64, f64),
    /// The array by one writer: the least and the most it may write (which members a mirror's copies go to is
    /// the file system's choice).
    pub write_mb_per_s: (f64, f64),
    /// The members write well below their read rate (under [`WRITES_BELOW`] of what the array would write were
    /// they to write as fast as they read), and the array's writes show it: no bus hides it.
    pub writes_below_reads: bool,
}

/// The array writes under this share of what its members' read rates promise: its writes are slow.
pub const WRITES_BELOW: f64 = 0.7;

/// A flat model of `mb_s` and `size` bytes, no cache, answering at once: the member disk.
pub fn member_model(name: &str, mb_s: f64, size: u64) -> Result<Model, ModelError> {
    let text = format!(
        "name = '{name}'\nsize = {size}\nzones = {{ rates_mb_s = [{mb_s}] }}\nlookahead = '20ms'\n"
    );
    Model::from_toml_str(&text, "array preset")
}

/// `n` members of `member_mb_s` and `size` bytes each, behind a bus of `bus_mb_s` when given, the member
/// `slow.0` reading at `slow.1` × the others' rate when given.
pub fn preset(
    layout: Layout,
    n: usize,
    member_mb_s: f64,
    size: u64,
    bus_mb_s: Option<f64>,
    slow: Option<(usize, f64)>,
) -> Result<ArrayPreset, ModelError> {
    let members = (0..n)
        .map(|i| {
            let rate = match slow {
                Some((s, factor)) if s == i => member_mb_s * factor,
                _ => member_mb_s,
            };
            member_model(&format!("member-{i}"), rate, size)
        })
        .collect::<Result<Vec<_>, _>>()?;
    let path = match bus_mb_s {
        Some(b) => format!("bus-{b:.0}"),
        None => "independent".into(),
    };
    let slow_part = slow.map_or(String::new(), |(s, _)| format!("-slow-{s}"));
    Ok(ArrayPreset {
        name: format!(
            "{}-{n}x{member_mb_s:.0}-{path}{slow_part}",
            layout.btrfs_profile()
        ),
        layout,
        members,
        bus_mb_s,
        copies: match layout {
            Layout::Mirror | Layout::Raid10 => n.min(2),
            Layout::Stripe => 1,
        },
        missing: None,
    })
}

/// One writer's rate over members that write at `rates` (member order, the missing one left out), `copies`
/// copies of each block, behind a bus of `cap`: the least and the most.
fn write_range(layout: Layout, rates: &[f64], copies: usize, cap: f64) -> (f64, f64) {
    let mut sorted = rates.to_vec();
    sorted.sort_by(f64::total_cmp);
    let n = sorted.len();
    if n == 0 {
        return (0.0, 0.0);
    }
    let slowest = sorted[0];
    match layout {
        Layout::Stripe => {
            let r = (n as f64 * slowest).min(cap);
            (r, r)
        }
        Layout::Raid10 => {
            let r = ((n / 2) as f64 * slowest).min(cap / 2.0);
            (r, r)
        }
        Layout::Mirror => {
            let c = copies.clamp(1, n) as f64;
            let best = sorted[n - c as usize];
            (slowest.min(cap / c), best.min(cap / c))
        }
    }
}

/// The middle value (the upper one of an even count).
fn middle(mut v: Vec<f64>) -> f64 {
    v.sort_by(f64::total_cmp);
    v.get(v.len() / 2).copied().unwrap_or(0.0)
}

impl ArrayPreset {
    /// The same array with every member writing at `factor` × its read rate (flash whose writes are slower
    /// than its reads).
    pub fn writing_at(mut self, factor: f64) -> ArrayPreset {
        for m in &mut self.members {
            m.write_rate_factor = factor;
        }
        if factor != 1.0 {
            self.name = format!("{}-writes-{factor:.2}", self.name);
        }
        self
    }

    /// The same array with member `member` gone: a mirror of three or more members, so that two or more are
    /// left to read (a stripe does not mount without a member; a raid10's missing copy is left out of the
    /// truth). `None` for any other.
    pub fn degraded(mut self, member: usize) -> Option<ArrayPreset> {
        let n = self.members.len();
        if self.layout != Layout::Mirror || n < 3 || member >= n {
            return None;
        }
        self.missing = Some(member);
        self.name = format!("{}-missing-{member}", self.name);
        Some(self)
    }

    /// Serve the members, each on a loop device in a fresh mount directory, all behind one bus when the
    /// preset has one; a failure tears down the members started before it.
    pub fn serve(&self) -> Result<Vec<LabDevice>, LabError> {
        let bus = self.bus_mb_s.map(Bus::new).transpose()?;
        self.members
            .iter()
            .map(|m| LabDevice::start_temp_on(m, true, bus.clone()))
            .collect()
    }

    /// The truth of this array (see the module documentation).
    pub fn truth(&self) -> ArrayTruth {
        let cap = self.bus_mb_s.unwrap_or(f64::INFINITY);
        let alone: Vec<f64> = self
            .members
            .iter()
            .enumerate()
            .map(|(i, m)| {
                if Some(i) == self.missing {
                    0.0
                } else {
                    m.peak_media_mb_s().min(cap)
                }
            })
            .collect();
        // The members left, in member order.
        let left: Vec<(usize, f64)> = alone
            .iter()
            .enumerate()
            .filter(|(i, _)| Some(*i) != self.missing)
            .map(|(i, r)| (i, *r))
            .collect();
        let rates: Vec<f64> = left.iter().map(|l| l.1).collect();
        let sum: f64 = rates.iter().sum();
        let together = bus_aggregate_mb_s(&rates, cap);
        let fastest = rates.iter().cloned().fold(0.0, f64::max);
        let slowest = rates.iter().cloned().fold(f64::INFINITY, f64::min);
        let paths = if together >= sum {
            Paths::Parallel
        } else if together <= fastest {
            Paths::Serialized
        } else {
            Paths::Capped
        };
        let slow_member = (left.len() >= 2)
            .then(|| {
                let &(i, rate) = left.iter().min_by(|a, b| a.1.total_cmp(&b.1))?;
                let others: Vec<f64> = left.iter().filter(|l| l.0 != i).map(|l| l.1).collect();
                (rate < SLOW_SHARE * middle(others)).then_some(i)
            })
            .flatten();
        let n = rates.len() as f64;
        let mut sorted = rates.clone();
        sorted.sort_by(f64::total_cmp);
        let (one_reader, readers) = match self.layout {
            Layout::Stripe => {
                let r = (n * slowest).min(together);
                ((r, r), (r, r))
            }
            Layout::Raid10 => {
                let half = (n / 2.0).floor();
                let lo = (half * slowest).min(cap);
                ((lo, (half * fastest).min(cap)), (lo, together))
            }
            Layout::Mirror => {
                // Each copy that is left: one fewer for the blocks that had one on the missing member.
                let c = self.copies - usize::from(self.missing.is_some());
                let least = bus_aggregate_mb_s(&sorted[..c.clamp(1, sorted.len())], cap);
                ((slowest, fastest), (least, together))
            }
        };
        // Writes: each member at its read rate × its write factor (capped by the bus it is behind).
        let writes: Vec<f64> = left
            .iter()
            .map(|&(i, _)| {
                let m = &self.members[i];
                (m.peak_media_mb_s() * m.write_rate_factor).min(cap)
            })
            .collect();
        let copies = self.copies.min(rates.len());
        let write = write_range(self.layout, &writes, copies, cap);
        let as_reads = write_range(self.layout, &rates, copies, cap);
        ArrayTruth {
            write_mb_per_s: write,
            writes_below_reads: write.1 < WRITES_BELOW * as_reads.0,
            layout: self.layout,
            alone_mb_per_s: alone,
            missing: self.missing,
            together_mb_per_s: together,
            paths,
            slow_member,
            one_reader_mb_per_s: one_reader,
            readers_mb_per_s: readers,
        }
    }
}

/// The named presets: a mirror and a stripe of three 256 MiB members of 40 MB/s, on independent paths, behind
/// one bus that serializes them (40 MB/s), behind a bus that caps them (70 MB/s), and with member 1 at a third
/// of the others' rate; then the mirror on independent paths with member 2 missing, and a raid10 of four.
pub fn presets() -> Vec<ArrayPreset> {
    const MB_S: f64 = 40.0;
    const SIZE: u64 = 256 << 20;
    let mut out = Vec::new();
    for layout in [Layout::Mirror, Layout::Stripe] {
        for (bus, slow) in [
            (None, None),
            (Some(MB_S), None),
            (Some(1.75 * MB_S), None),
            (None, Some((1, 1.0 / 3.0))),
        ] {
            out.push(preset(layout, 3, MB_S, SIZE, bus, slow).expect("a valid preset"));
        }
    }
    let mirror = preset(Layout::Mirror, 3, MB_S, SIZE, None, None).expect("a valid preset");
    out.push(mirror.degraded(2).expect("a mirror of three"));
    out.push(preset(Layout::Raid10, 4, MB_S, SIZE, None, None).expect("a valid preset"));
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn close(a: f64, b: f64) -> bool {
        (a - b).abs() < 1e-9 * b.max(1.0)
    }

    #[test]
    fn members_on_independent_paths_add_up_and_a_mirror_reader_gets_one_copy() {
        let p = preset(Layout::Mirror, 3, 40.0, 256 << 20, None, None).unwrap();
        assert_eq!(p.name, "raid1-3x40-independent");
        let t = p.truth();
        assert_eq!(t.alone_mb_per_s, vec![40.0; 3]);
        assert!(close(t.together_mb_per_s, 120.0));
        assert_eq!(t.paths, Paths::Parallel);
        assert_eq!(t.slow_member, None);
        assert_eq!(t.one_reader_mb_per_s, (40.0, 40.0));
        // Two copies of each block: readers spread over at least the two members that hold what they read.
        assert_eq!(t.readers_mb_per_s, (80.0, 120.0));
        // A stripe: one reader moves over all members in step.
        let s = preset(Layout::Stripe, 3, 40.0, 256 << 20, None, None)
            .unwrap()
            .truth();
        assert!(close(s.one_reader_mb_per_s.0, 120.0));
        assert_eq!(s.one_reader_mb_per_s.0, s.one_reader_mb_per_s.1);
    }

    #[test]
    fn a_bus_of_one_member_serializes_a_wider_one_caps() {
        for layout in [Layout::Mirror, Layout::Stripe] {
            let t = preset(layout, 3, 40.0, 256 << 20, Some(40.0), None)
                .unwrap()
                .truth();
            assert_eq!(t.paths, Paths::Serialized);
            assert!(close(t.together_mb_per_s, 40.0));
            assert!(close(t.readers_mb_per_s.1, 40.0));
            let t = preset(layout, 3, 40.0, 256 << 20, Some(70.0), None)
                .unwrap()
                .truth();
            assert_eq!(t.paths, Paths::Capped);
            assert!(close(t.together_mb_per_s, 70.0));
            assert!(close(t.readers_mb_per_s.1, 70.0));
        }
        // A bus wider than the sum is no cap.
        let t = preset(Layout::Stripe, 2, 40.0, 128 << 20, Some(100.0), None)
            .unwrap()
            .truth();
        assert_eq!(t.paths, Paths::Parallel);
    }

    #[test]
    fn the_slow_member_sets_a_stripes_pace_and_is_named() {
        let p = preset(Layout::Stripe, 3, 60.0, 256 << 20, None, Some((2, 0.25))).unwrap();
        let t = p.truth();
        assert_eq!(t.slow_member, Some(2));
        assert!(close(t.alone_mb_per_s[2], 15.0));
        assert!(close(t.one_reader_mb_per_s.0, 45.0), "{t:?}");
        assert!(close(t.together_mb_per_s, 135.0));
        let m = preset(Layout::Mirror, 3, 60.0, 256 << 20, None, Some((0, 0.25)))
            .unwrap()
            .truth();
        assert_eq!(m.slow_member, Some(0));
        assert_eq!(m.one_reader_mb_per_s, (15.0, 60.0));
        // The copies may lie on the slow member and one other, or on every member.
        assert_eq!(m.readers_mb_per_s, (75.0, 135.0));
        assert_eq!(t.readers_mb_per_s, t.one_reader_mb_per_s);
        // A bus at the slow member's rate caps every member to it: none is slower alone.
        let hidden = preset(
            Layout::Mirror,
            3,
            60.0,
            256 << 20,
            Some(15.0),
            Some((0, 0.25)),
        )
        .unwrap()
        .truth();
        assert_eq!(hidden.slow_member, None);
        assert_eq!(hidden.paths, Paths::Serialized);
        // A member a little slower than the others is not slow.
        let near = preset(Layout::Stripe, 3, 60.0, 256 << 20, None, Some((1, 0.8)))
            .unwrap()
            .truth();
        assert_eq!(near.slow_member, None);
    }

    #[test]
    fn the_named_presets_cover_both_layouts_every_path_and_a_slow_member() {
        let all = presets();
        assert_eq!(all.len(), 10);
        for layout in [Layout::Mirror, Layout::Stripe] {
            let truths: Vec<ArrayTruth> = all[..8]
                .iter()
                .filter(|p| p.layout == layout)
                .map(|p| p.truth())
                .collect();
            let paths: Vec<Paths> = truths.iter().map(|t| t.paths).collect();
            assert_eq!(
                paths,
                [
                    Paths::Parallel,
                    Paths::Serialized,
                    Paths::Capped,
                    Paths::Parallel
                ]
            );
            let slow: Vec<Option<usize>> = truths.iter().map(|t| t.slow_member).collect();
            assert_eq!(slow, [None, None, None, Some(1)]);
        }
        assert_eq!(all[8].name, "raid1-3x40-independent-missing-2");
        assert_eq!(all[9].name, "raid10-4x40-independent");
        let mut names: Vec<&str> = all.iter().map(|p| p.name.as_str()).collect();
        names.dedup();
        assert_eq!(names.len(), 10, "{names:?}");
        assert!(all
            .iter()
            .all(|p| p.members.iter().all(|m| m.size == 256 << 20)));
    }

    #[test]
    fn a_degraded_mirror_reads_from_the_members_left() {
        let p = preset(Layout::Mirror, 3, 40.0, 256 << 20, None, None)
            .unwrap()
            .degraded(2)
            .unwrap();
        assert_eq!(p.name, "raid1-3x40-independent-missing-2");
        let t = p.truth();
        assert_eq!(t.missing, Some(2));
        assert_eq!(t.alone_mb_per_s, vec![40.0, 40.0, 0.0]);
        assert!(close(t.together_mb_per_s, 80.0));
        assert_eq!((t.paths, t.slow_member), (Paths::Parallel, None));
        assert_eq!(t.one_reader_mb_per_s, (40.0, 40.0));
        // A block whose other copy lay on the missing member has one copy left: one member's rate at least.
        assert_eq!(t.readers_mb_per_s, (40.0, 80.0));
        // A slow member among those left is still named; a gone one is never slow.
        let s = preset(Layout::Mirror, 4, 60.0, 256 << 20, None, Some((1, 0.25)))
            .unwrap()
            .degraded(3)
            .unwrap()
            .truth();
        assert_eq!(s.slow_member, Some(1));
        assert_eq!(s.one_reader_mb_per_s, (15.0, 60.0));
        // Only a mirror of three or more can lose a member and stay an array to read.
        let two = preset(Layout::Mirror, 2, 40.0, 256 << 20, None, None).unwrap();
        assert!(two.degraded(0).is_none());
        for layout in [Layout::Stripe, Layout::Raid10] {
            let p = preset(layout, 4, 40.0, 256 << 20, None, None).unwrap();
            assert!(p.degraded(0).is_none());
        }
        let three = preset(Layout::Mirror, 3, 40.0, 256 << 20, None, None).unwrap();
        assert!(three.degraded(3).is_none());
    }

    #[test]
    fn a_raid10_reader_reads_half_the_members_in_step() {
        let p = preset(Layout::Raid10, 4, 40.0, 256 << 20, None, None).unwrap();
        assert_eq!((p.name.as_str(), p.copies), ("raid10-4x40-independent", 2));
        let t = p.truth();
        assert!(close(t.together_mb_per_s, 160.0));
        assert_eq!(t.one_reader_mb_per_s, (80.0, 80.0));
        assert_eq!(t.readers_mb_per_s, (80.0, 160.0));
        // A slow member slows the half that holds it; behind a bus, the bus caps both.
        let s = preset(Layout::Raid10, 4, 40.0, 256 << 20, None, Some((0, 0.25)))
            .unwrap()
            .truth();
        assert_eq!(s.one_reader_mb_per_s, (20.0, 80.0));
        let b = preset(Layout::Raid10, 4, 40.0, 256 << 20, Some(60.0), None)
            .unwrap()
            .truth();
        assert_eq!(b.paths, Paths::Capped);
        assert_eq!(b.one_reader_mb_per_s, (60.0, 60.0));
        assert_eq!(b.readers_mb_per_s, (60.0, 60.0));
    }

    #[test]
    fn a_stripe_writes_with_every_member_a_mirror_at_its_slower_copy() {
        let t = preset(Layout::Stripe, 3, 40.0, 256 << 20, None, None)
            .unwrap()
            .truth();
        assert_eq!(t.write_mb_per_s, (120.0, 120.0));
        assert!(!t.writes_below_reads);
        let m = preset(Layout::Mirror, 3, 60.0, 256 << 20, None, Some((0, 0.25)))
            .unwrap()
            .truth();
        // The copies go to the slow member and another, or to two fast ones.
        assert_eq!(m.write_mb_per_s, (15.0, 60.0));
        let r10 = preset(Layout::Raid10, 4, 40.0, 256 << 20, None, None)
            .unwrap()
            .truth();
        assert_eq!(r10.write_mb_per_s, (80.0, 80.0));
        // A bus carries every copy: a mirror behind 70 MB/s writes 35.
        let bus = preset(Layout::Mirror, 3, 40.0, 256 << 20, Some(70.0), None)
            .unwrap()
            .truth();
        assert_eq!(bus.write_mb_per_s, (35.0, 35.0));
        // Members that write at a quarter of their reads: the array's writes show it...
        let slow = preset(Layout::Stripe, 3, 40.0, 256 << 20, None, None)
            .unwrap()
            .writing_at(0.25);
        assert_eq!(slow.name, "raid0-3x40-independent-writes-0.25");
        let t = slow.truth();
        assert_eq!(t.write_mb_per_s, (30.0, 30.0));
        assert!(t.writes_below_reads);
        // ...unless a bus narrower than their writes hides it.
        let hidden = preset(Layout::Mirror, 3, 40.0, 256 << 20, Some(40.0), None)
            .unwrap()
            .writing_at(0.5)
            .truth();
        assert_eq!(hidden.write_mb_per_s, (20.0, 20.0));
        assert!(!hidden.writes_below_reads);
    }
}
