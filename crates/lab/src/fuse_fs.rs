//! The FUSE file system: one regular file, `disk.img`, whose reads and writes complete when the
//! model's timeline says so.
//!
//! A request handler never sleeps: it submits the command to the [`Timeline`] (held by the
//! [`ReplyClock`], under its mutex), does the data transfer against the sparse backing file at
//! once, and parks the reply object with the clock. The clock's one thread lets the device decide
//! when each command completes (at once for a device that serves in arrival order; when its media
//! comes free for one that reorders its queue) and sends each reply at its deadline (sleep with
//! 1 ns timer slack to ~50 µs before it, then spin). So any number of commands can be in flight
//! with two FUSE threads, and a serial model is still served strictly one at a time by its
//! virtual clock.
//!
//! The file is opened with `FOPEN_DIRECT_IO` (no page cache: every read reaches the model) and
//! the session asks for `FUSE_ASYNC_DIO`, so a loop device attached with `--direct-io=on` keeps
//! several commands in flight.

use crate::fake::FakeMedia;
use crate::flash_smart::{document, SMART_NAME};
use crate::marginal::Marginal;
use crate::model::Model;
use crate::power_cut::{CutTruth, Volatile};
use crate::temperature::{Heat, TEMP_NAME};
use crate::timing::{fails, Op, Timeline};
use fuser::{
    Errno, FileAttr, FileHandle, FileType, Filesystem, FopenFlags, Generation, INodeNo, InitFlags,
    KernelConfig, LockOwner, OpenFlags, ReplyAttr, ReplyData, ReplyDirectory, ReplyEmpty,
    ReplyEntry, ReplyOpen, ReplyWrite, Request, WriteFlags,
};
use std::collections::{BTreeMap, BinaryHeap, HashMap};
use std::ffi::OsStr;
use std::fs::File;
use std::os::unix::fs::FileExt;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Condvar, Mutex, OnceLock};
use std::time::{Duration, Instant, SystemTime};

/// The file name served at the mount point.
pub const IMAGE_NAME: &str = "disk.img";
const ROOT: u64 = 1;
const IMAGE: u64 = 2;
/// `temp1_input`, served when the model has a temperature.
const TEMP: u64 = 3;
/// `power_loss_protection`, served when the model has a write cache: `1` when it declares
/// power-loss protection, else `0`.
const PLP: u64 = 4;
/// The name the write cache's power-loss protection is declared under, beside the image.
pub const PLP_NAME: &str = "power_loss_protection";
/// `power`, served when the model has a write cache: write `cut` to cut the power (see
/// [`crate::power_cut`]), `on` to bring it back; reads say which, and what the last cut lost.
const POWER: u64 = 5;
/// The name of the power switch beside the image.
pub const POWER_NAME: &str = "power";
/// `smart.json`, served when the model has a `flash` section: its page counters as `smartctl
/// --json` prints a Crucial/Micron SSD's attributes (see [`crate::flash_smart`]).
const SMART: u64 = 6;
/// How long before a deadline the reply clock stops sleeping and spins.
const SPIN_NS: u64 = 50_000;
const TTL: Duration = Duration::from_secs(3600);

/// What the emulator has served so far (also: which request sizes the kernel sent).
#[derive(Debug, Default)]
pub struct Counters {
    pub reads: AtomicU64,
    pub writes: AtomicU64,
    pub bytes_read: AtomicU64,
    pub bytes_written: AtomicU64,
    pub errors: AtomicU64,
    pub flushes: AtomicU64,
    /// Discards (holes punched) a flash model took.
    pub discards: AtomicU64,
    /// Request size → count, for reads and writes together.
    pub sizes: Mutex<BTreeMap<u32, u64>>,
    /// Largest lateness of a reply behind its deadline, ns.
    pub max_late_ns: AtomicU64,
    /// Commands the model would have finished before the host even delivered them (a
    /// sequential stream bridged over a host gap longer than the command's service time): the
    /// host's round trip, not the model, set their pace, so their timing is not the model's.
    pub host_bound: AtomicU64,
    /// Commands that other devices' transfers on the shared bus held up (0 off a bus).
    pub bus_waits: AtomicU64,
    /// The disk was pulled ([`crate::LabDevice::pull`]): every command from now fails with ENODEV,
    /// also where the FUSE connection could not be aborted.
    pub pulled: std::sync::atomic::AtomicBool,
}

/// A snapshot of [`Counters`].
#[derive(Debug, Clone, serde::Serialize)]
pub struct Stats {
    pub reads: u64,
    pub writes: u64,
    pub bytes_read: u64,
    pub bytes_written: u64,
    pub errors: u64,
    pub flushes: u64,
    pub discards: u64,
    pub request_sizes: BTreeMap<u32, u64>,
    pub max_late_ns: u64,
    pub host_bound: u64,
    pub bus_waits: u64,
}

impl Counters {
    pub fn snapshot(&self) -> Stats {
        Stats {
            reads: self.reads.load(Ordering::Relaxed),
            writes: self.writes.load(Ordering::Relaxed),
            bytes_read: self.bytes_read.load(Ordering::Relaxed),
            bytes_written: self.bytes_written.load(Ordering::Relaxed),
            errors: self.errors.load(Ordering::Relaxed),
            flushes: self.flushes.load(Ordering::Relaxed),
            discards: self.discards.load(Ordering::Relaxed),
            request_sizes: self.sizes.lock().expect("sizes").clone(),
            max_late_ns: self.max_late_ns.load(Ordering::Relaxed),
            host_bound: self.host_bound.load(Ordering::Relaxed),
            bus_waits: self.bus_waits.load(Ordering::Relaxed),
        }
    }
}

enum Action {
    Data(ReplyData, Vec<u8>),
    ReadError(ReplyData, Errno),
    Written(ReplyWrite, u32),
    WriteError(ReplyWrite, Errno),
    Done(ReplyEmpty),
    DoneError(ReplyEmpty, Errno),
}

impl Action {
    /// The same reply as a failure: what a command in flight gets when the power goes.
    fn failed(self) -> Action {
        match self {
            Action::Data(r, _) | Action::ReadError(r, _) => Action::ReadError(r, Errno::EIO),
            Action::Written(r, _) | Action::WriteError(r, _) => Action::WriteError(r, Errno::EIO),
            Action::Done(r) | Action::DoneError(r, _) => Action::DoneError(r, Errno::EIO),
        }
    }
}

struct Pending {
    deadline: u64,
    seq: u64,
    action: Action,
}

impl PartialEq for Pending {
    fn eq(&self, o: &Self) -> bool {
        (self.deadline, self.seq) == (o.deadline, o.seq)
    }
}
impl Eq for Pending {}
impl PartialOrd for Pending {
    fn partial_cmp(&self, o: &Self) -> Option<std::cmp::Ordering> {
        Some(self.cmp(o))
    }
}
impl Ord for Pending {
    // Reversed: BinaryHeap is a max-heap, the earliest deadline must come out first.
    fn cmp(&self, o: &Self) -> std::cmp::Ordering {
        (o.deadline, o.seq).cmp(&(self.deadline, self.seq))
    }
}

struct ClockState {
    heap: BinaryHeap<Pending>,
    seq: u64,
    stop: bool,
    /// The device in virtual time: it decides when each command completes.
    timeline: Timeline,
    /// Replies of commands the device has not decided yet, by ticket.
    parked: HashMap<u64, Action>,
    /// Deadlines of commands decided before their reply was handed over, by ticket.
    early: HashMap<u64, u64>,
    /// Replies the host sees late (the model's `late_replies`), and how many commands the
    /// device has completed.
    late: Option<crate::late::LateReplies>,
    decided: u64,
}

/// Sends replies at their deadlines, measured from a common epoch, and makes the device's
/// decisions in time: a reordering device picks its next command when its media comes free.
pub struct ReplyClock {
    epoch: Instant,
    state: Mutex<ClockState>,
    wake: Condvar,
    counters: Arc<Counters>,
    /// The disk's temperature, told of every command the device decides.
    heat: OnceLock<Arc<Heat>>,
}

impl ReplyClock {
    /// Start the clock's thread.
    pub fn start(
        model: &Model,
        epoch: Instant,
        counters: Arc<Counters>,
    ) -> std::io::Result<(Arc<ReplyClock>, std::thread::JoinHandle<()>)> {
        Self::start_timeline(Timeline::new(model), epoch, counters)
    }

    /// Start the clock's thread for a device whose state is `timeline` (one on a shared bus:
    /// `epoch` must then be the bus's).
    pub fn start_timeline(
        timeline: Timeline,
        epoch: Instant,
        counters: Arc<Counters>,
    ) -> std::io::Result<(Arc<ReplyClock>, std::thread::JoinHandle<()>)> {
        let late = timeline.model().late_replies.clone();
        let clock = Arc::new(ReplyClock {
            epoch,
            state: Mutex::new(ClockState {
                heap: BinaryHeap::new(),
                seq: 0,
                stop: false,
                timeline,
                parked: HashMap::new(),
                early: HashMap::new(),
                late,
                decided: 0,
            }),
            wake: Condvar::new(),
            counters,
            heat: OnceLock::new(),
        });
        let c = clock.clone();
        let handle = std::thread::Builder::new()
            .name("lab-reply-clock".into())
            .spawn(move || c.run())?;
        Ok((clock, handle))
    }

    /// Nanoseconds since the epoch.
    pub fn now_ns(&self) -> u64 {
        self.epoch.elapsed().as_nanos() as u64
    }

    fn push(&self, deadline: u64, action: Action) {
        let mut s = self.state.lock().expect("clock");
        let earliest = Self::queue(&mut s, deadline, action);
        drop(s);
        if earliest {
            self.wake.notify_one();
        }
    }

    /// Queue a reply; true when it is now the earliest.
    fn queue(s: &mut ClockState, deadline: u64, action: Action) -> bool {
        s.seq += 1;
        let seq = s.seq;
        let earliest = s.heap.peek().is_none_or(|p| deadline < p.deadline);
        s.heap.push(Pending {
            deadline,
            seq,
            action,
        });
        earliest
    }

    /// A command arrives now: it joins the device's queue. Returns its ticket, to hand its
    /// reply over with [`ReplyClock::park`].
    fn submit(&self, op: Op, offset: u64, len: u64) -> u64 {
        let mut s = self.state.lock().expect("clock");
        // Read the clock under the lock, so arrivals are ordered as the timeline sees them.
        let now = self.now_ns();
        let id = s.timeline.submit(op, offset, len, now);
        self.decide(&mut s, now);
        drop(s);
        // The clock thread may have to make the device's next decision sooner.
        self.wake.notify_one();
        id
    }

    /// The reply to the command with ticket `id`, sent when the device completes it.
    fn park(&self, id: u64, action: Action) {
        let mut s = self.state.lock().expect("clock");
        let earliest = match s.early.remove(&id) {
            Some(deadline) => Self::queue(&mut s, deadline, action),
            None => {
                s.parked.insert(id, action);
                false
            }
        };
        drop(s);
        if earliest {
            self.wake.notify_one();
        }
    }

    /// A discard arriving now: a flash drive unmaps the pages (it takes no media time).
    fn discard(&self, offset: u64, len: u64) {
        self.state
            .lock()
            .expect("clock")
            .timeline
            .discard(offset, len);
    }

    /// A flash drive's page counters so far (None for a model without a `flash` section).
    pub fn flash_counters(&self) -> Option<crate::flash::Counters> {
        self.state.lock().expect("clock").timeline.flash_counters()
    }

    /// The write cache's dirty bytes now (0 without one).
    fn dirty_now(&self) -> u64 {
        let mut s = self.state.lock().expect("clock");
        let now = self.now_ns();
        s.timeline.dirty_at(now)
    }

    /// The power goes now: the dirty bytes the write cache held, emptied. Every command still
    /// in flight fails at once: a flush the power cut short never completes.
    fn cut_power(&self) -> u64 {
        let mut s = self.state.lock().expect("clock");
        let now = self.now_ns();
        let pending: Vec<Pending> = std::mem::take(&mut s.heap).into_vec();
        for p in pending {
            Self::queue(&mut s, now, p.action.failed());
        }
        let parked: Vec<u64> = s.parked.keys().copied().collect();
        for id in parked {
            if let Some(a) = s.parked.remove(&id) {
                s.parked.insert(id, a.failed());
            }
        }
        let dirty = s.timeline.cut_power(now);
        drop(s);
        self.wake.notify_one();
        dirty
    }

    /// A flush arriving now: when the device has written its cache out.
    fn flush_now(&self) -> u64 {
        let mut s = self.state.lock().expect("clock");
        let now = self.now_ns();
        s.timeline.flush(now)
    }

    /// Let the device decide what is due by `now`, and queue the replies it completes.
    fn decide(&self, s: &mut ClockState, now: u64) {
        for d in s.timeline.advance(now) {
            if let Some(h) = self.heat.get() {
                h.command(d.arrival, d.outcome.done_ns);
            }
            if d.outcome.done_ns <= d.arrival {
                self.counters.host_bound.fetch_add(1, Ordering::Relaxed);
            }
            s.decided += 1;
            let late = s.late.as_ref().map_or(0, |l| l.delay_ns(s.decided));
            let due = d.outcome.done_ns + late;
            match s.parked.remove(&d.id) {
                Some(action) => {
                    Self::queue(s, due, action);
                }
                None => {
                    s.early.insert(d.id, due);
                }
            }
        }
        let waits = s.timeline.bus_waits();
        self.counters.bus_waits.store(waits, Ordering::Relaxed);
    }

    /// Stop after sending everything still pending at once.
    pub fn stop(&self) {
        self.state.lock().expect("clock").stop = true;
        self.wake.notify_one();
    }

    fn run(&self) {
        // Fine-grained timers for this thread only: the default slack is 50 µs.
        // SAFETY: prctl(PR_SET_TIMERSLACK) takes plain integers and only affects this thread.
        unsafe {
            libc::prctl(libc::PR_SET_TIMERSLACK, 1 as libc::c_ulong, 0, 0, 0);
        }
        boost_current_thread();
        let mut s = self.state.lock().expect("clock");
        loop {
            let decision = s.timeline.next_decision();
            if s.stop || decision.is_some_and(|t| t <= self.now_ns()) {
                let now = if s.stop { u64::MAX } else { self.now_ns() };
                self.decide(&mut s, now);
            }
            let reply = s.heap.peek().map(|p| p.deadline);
            let next = match (reply, s.timeline.next_decision()) {
                (Some(a), Some(b)) => Some(a.min(b)),
                (a, b) => a.or(b),
            };
            let Some(next) = next else {
                if s.stop {
                    return;
                }
                s = self.wake.wait(s).expect("clock");
                continue;
            };
            let now = self.now_ns();
            if next > now && !s.stop {
                let left = next - now;
                if left > SPIN_NS {
                    s = self
                        .wake
                        .wait_timeout(s, Duration::from_nanos(left - SPIN_NS))
                        .expect("clock")
                        .0;
                    continue;
                }
                drop(s);
                while self.now_ns() < next {
                    std::hint::spin_loop();
                }
                s = self.state.lock().expect("clock");
                continue;
            }
            if reply.is_none_or(|r| r > next) {
                // A decision is due, no reply yet: decide at the top of the loop.
                continue;
            }
            let p = s.heap.pop().expect("peeked");
            drop(s);
            let late = self.now_ns().saturating_sub(p.deadline);
            self.counters.max_late_ns.fetch_max(late, Ordering::Relaxed);
            match p.action {
                Action::Data(r, d) => r.data(&d),
                Action::ReadError(r, e) => r.error(e),
                Action::Written(r, n) => r.written(n),
                Action::WriteError(r, e) => r.error(e),
                Action::Done(r) => r.ok(),
                Action::DoneError(r, e) => r.error(e),
            }
            s = self.state.lock().expect("clock");
        }
    }
}

/// Give the calling thread a modest real-time priority (SCHED_FIFO 10), so that replies leave
/// on time on a busy machine; best effort (needs root or CAP_SYS_NICE). Every wait of the lab's
/// threads is bounded, and the kernel's RT throttling still leaves 5 % to everyone else.
pub fn boost_current_thread() -> bool {
    // Zeroed, then the priority: musl's sched_param has more fields than glibc's.
    // SAFETY: sched_param is plain integers; all zero is a valid value.
    let mut param: libc::sched_param = unsafe { std::mem::zeroed() };
    param.sched_priority = 10;
    // SAFETY: pid 0 is the calling thread; param is a valid sched_param.
    unsafe { libc::sched_setscheduler(0, libc::SCHED_FIFO, &param) == 0 }
}

thread_local! {
    static BOOSTED: std::cell::Cell<bool> = const { std::cell::Cell::new(false) };
}

/// The file system: one image file backed by a sparse file, timed by the model.
pub struct LabFs {
    model: Model,
    marginal: Marginal,
    /// The data path of a disk that fakes its capacity (none: the plain backing file).
    fake: Option<FakeMedia>,
    backing: File,
    clock: Arc<ReplyClock>,
    counters: Arc<Counters>,
    heat: Option<Arc<Heat>>,
    power: Arc<Power>,
}

/// The power switch of a served disk, shared with [`crate::LabDevice`].
#[derive(Default)]
pub struct Power {
    volatile: Mutex<Volatile>,
    /// The image, to restore what a cut loses (set when the file system is made).
    backing: OnceLock<File>,
    clock: OnceLock<Arc<ReplyClock>>,
    protected: bool,
}

impl Power {
    fn lock(&self) -> std::sync::MutexGuard<'_, Volatile> {
        self.volatile.lock().unwrap_or_else(|p| p.into_inner())
    }

    /// Cut the power now: the write cache's contents not on the media are lost, and every
    /// command fails until [`Power::on`]. Returns what was lost.
    pub fn cut(&self) -> CutTruth {
        let mut v = self.lock();
        let dirty = self.clock.get().map_or(0, |c| c.cut_power());
        let (restores, truth) = v.cut(dirty, self.protected);
        if let Some(b) = self.backing.get() {
            for (offset, old) in restores {
                if let Err(e) = b.write_all_at(&old, offset) {
                    eprintln!("drivescope-lab: restoring after a power cut: {e}");
                }
            }
        }
        truth
    }

    /// The power is back: the disk serves what survived.
    pub fn on(&self) {
        self.lock().power_on();
    }

    /// Every cut so far, oldest first.
    pub fn cuts(&self) -> Vec<CutTruth> {
        self.lock().cuts().to_vec()
    }

    fn dark(&self) -> bool {
        self.lock().dark()
    }
}

impl LabFs {
    pub fn new(
        model: &Model,
        backing: File,
        clock: Arc<ReplyClock>,
        counters: Arc<Counters>,
    ) -> Self {
        let heat = model.temperature.as_ref().map(|t| {
            let h = Arc::new(Heat::new(t, clock.now_ns()));
            let _ = clock.heat.set(h.clone());
            h
        });
        let power = Arc::new(Power {
            protected: model.write_cache.as_ref().is_some_and(|c| c.keeps()),
            ..Power::default()
        });
        if model.write_cache.is_some() {
            let _ = power.clock.set(clock.clone());
            if let Ok(b) = backing.try_clone() {
                let _ = power.backing.set(b);
            }
        }
        LabFs {
            model: model.clone(),
            marginal: Marginal::new(model),
            fake: model.fake.as_ref().map(FakeMedia::new),
            backing,
            clock,
            counters,
            heat,
            power,
        }
    }

    fn attr(&self, ino: u64) -> FileAttr {
        let (kind, perm, size, nlink) = if ino == ROOT {
            (FileType::Directory, 0o755, 0, 2)
        } else if ino == POWER {
            (FileType::RegularFile, 0o644, 4096, 1)
        } else if ino == TEMP || ino == PLP || ino == SMART {
            // As sysfs: a page-sized read-only file whose reads return the current value.
            (FileType::RegularFile, 0o444, 4096, 1)
        } else {
            (FileType::RegularFile, 0o644, self.model.size, 1)
        };
        FileAttr {
            ino: INodeNo(ino),
            size,
            blocks: size / 512,
            atime: SystemTime::UNIX_EPOCH,
            mtime: SystemTime::UNIX_EPOCH,
            ctime: SystemTime::UNIX_EPOCH,
            crtime: SystemTime::UNIX_EPOCH,
            kind,
            perm,
            nlink,
            // SAFETY: geteuid/getegid cannot fail.
            uid: unsafe { libc::geteuid() },
            gid: unsafe { libc::getegid() },
            rdev: 0,
            blksize: 4096,
            flags: 0,
        }
    }

    /// The flash model's SMART document now (empty without a `flash` section).
    fn smart_text(&self) -> String {
        match (&self.model.flash, self.clock.flash_counters()) {
            (Some(f), Some(c)) => document(&self.model.name, self.model.size, f.page, &c),
            _ => String::new(),
        }
    }

    /// The disk's power switch.
    pub fn power(&self) -> Arc<Power> {
        self.power.clone()
    }

    fn count_size(&self, size: u32) {
        *self
            .counters
            .sizes
            .lock()
            .expect("sizes")
            .entry(size)
            .or_insert(0) += 1;
    }

    /// Read stored data, as a fake disk returns it when it is one.
    fn load(&self, buf: &mut [u8], offset: u64) -> Result<(), i32> {
        match &self.fake {
            Some(f) => f.read(&self.backing, offset, buf),
            None => self
                .backing
                .read_exact_at(buf, offset)
                .map_err(|_| libc::EIO),
        }
    }

    /// Store data, as a fake disk stores it when it is one.
    fn store(&self, data: &[u8], offset: u64) -> std::io::Result<()> {
        match &self.fake {
            Some(f) => f.write(&self.backing, offset, data),
            None => self.backing.write_all_at(data, offset),
        }
    }

    /// The error every command fails with once the disk has gone away (`vanish`).
    fn gone(&self) -> Option<i32> {
        if self.counters.pulled.load(Ordering::Relaxed) {
            return Some(libc::ENODEV);
        }
        if self.model.write_cache.is_some() && self.power.dark() {
            return Some(libc::EIO);
        }
        let v = self.model.vanish.as_ref()?;
        v.gone(self.counters.bytes_read.load(Ordering::Relaxed))
            .then(|| v.errno())
    }

    fn submit(&self, op: Op, offset: u64, len: u64) -> u64 {
        if !BOOSTED.get() {
            BOOSTED.set(true);
            boost_current_thread();
        }
        self.clock.submit(op, offset, len)
    }
}

impl Filesystem for LabFs {
    fn init(&mut self, _req: &Request, config: &mut KernelConfig) -> std::io::Result<()> {
        // Let the kernel keep many direct-I/O requests in flight (a loop device at QD32). A
        // serial model still serves them one at a time; only the host's turnaround between
        // commands overlaps, as it does in front of a real bridge that cannot queue.
        let _ = config.add_capabilities(InitFlags::FUSE_ASYNC_DIO);
        let _ = config.set_max_background(512);
        let _ = config.set_congestion_threshold(384);
        let _ = config.set_max_write(1 << 20);
        Ok(())
    }

    fn lookup(&self, _req: &Request, parent: INodeNo, name: &OsStr, reply: ReplyEntry) {
        if parent.0 == ROOT && name == IMAGE_NAME {
            reply.entry(&TTL, &self.attr(IMAGE), Generation(0));
        } else if parent.0 == ROOT && name == TEMP_NAME && self.heat.is_some() {
            reply.entry(&TTL, &self.attr(TEMP), Generation(0));
        } else if parent.0 == ROOT && name == PLP_NAME && self.model.write_cache.is_some() {
            reply.entry(&TTL, &self.attr(PLP), Generation(0));
        } else if parent.0 == ROOT && name == POWER_NAME && self.model.write_cache.is_some() {
            reply.entry(&TTL, &self.attr(POWER), Generation(0));
        } else if parent.0 == ROOT && name == SMART_NAME && self.model.flash.is_some() {
            reply.entry(&TTL, &self.attr(SMART), Generation(0));
        } else {
            reply.error(Errno::ENOENT);
        }
    }

    fn getattr(&self, _req: &Request, ino: INodeNo, _fh: Option<FileHandle>, reply: ReplyAttr) {
        match ino.0 {
            ROOT | IMAGE => reply.attr(&TTL, &self.attr(ino.0)),
            TEMP if self.heat.is_some() => reply.attr(&TTL, &self.attr(ino.0)),
            PLP | POWER if self.model.write_cache.is_some() => reply.attr(&TTL, &self.attr(ino.0)),
            SMART if self.model.flash.is_some() => reply.attr(&TTL, &self.attr(ino.0)),
            _ => reply.error(Errno::ENOENT),
        }
    }

    fn setattr(
        &self,
        _req: &Request,
        ino: INodeNo,
        _mode: Option<u32>,
        _uid: Option<u32>,
        _gid: Option<u32>,
        size: Option<u64>,
        _atime: Option<fuser::TimeOrNow>,
        _mtime: Option<fuser::TimeOrNow>,
        _ctime: Option<SystemTime>,
        _fh: Option<FileHandle>,
        _crtime: Option<SystemTime>,
        _chgtime: Option<SystemTime>,
        _bkuptime: Option<SystemTime>,
        _flags: Option<fuser::BsdFileFlags>,
        reply: ReplyAttr,
    ) {
        // A disk does not change size; everything else is accepted and ignored.
        if ino.0 == IMAGE && size.is_some_and(|s| s != self.model.size) {
            reply.error(Errno::EPERM);
        } else {
            reply.attr(&TTL, &self.attr(ino.0));
        }
    }

    fn open(&self, _req: &Request, ino: INodeNo, flags: OpenFlags, reply: ReplyOpen) {
        if ino.0 == POWER {
            reply.opened(FileHandle(0), FopenFlags::FOPEN_DIRECT_IO);
        } else if ino.0 == TEMP || ino.0 == PLP || ino.0 == SMART {
            if flags.0 & libc::O_ACCMODE != libc::O_RDONLY {
                reply.error(Errno::EACCES);
            } else {
                reply.opened(FileHandle(0), FopenFlags::FOPEN_DIRECT_IO);
            }
        } else if ino.0 != IMAGE {
            reply.error(Errno::EISDIR);
        } else if flags.0 & libc::O_TRUNC != 0 {
            reply.error(Errno::EPERM);
        } else {
            reply.opened(FileHandle(0), FopenFlags::FOPEN_DIRECT_IO);
        }
    }

    fn read(
        &self,
        _req: &Request,
        ino: INodeNo,
        _fh: FileHandle,
        offset: u64,
        size: u32,
        _flags: OpenFlags,
        _lock: Option<LockOwner>,
        reply: ReplyData,
    ) {
        if ino.0 == TEMP || ino.0 == PLP || ino.0 == POWER || ino.0 == SMART {
            let text = match (&self.heat, &self.model.write_cache) {
                _ if ino.0 == SMART => self.smart_text(),
                (Some(h), _) if ino.0 == TEMP => h.text_at(self.clock.now_ns()),
                (_, Some(c)) if ino.0 == PLP => format!("{}\n", u8::from(c.protected)),
                (_, Some(_)) if ino.0 == POWER => self.power.lock().text(),
                _ => String::new(),
            };
            let b = text.as_bytes();
            let from = (offset as usize).min(b.len());
            let to = (from + size as usize).min(b.len());
            reply.data(&b[from..to]);
            return;
        }
        let len = (size as u64).min(self.model.size.saturating_sub(offset));
        if len == 0 {
            reply.data(&[]);
            return;
        }
        self.count_size(size);
        if let Some(e) = self.gone() {
            reply.error(Errno::from_i32(e));
            return;
        }
        self.counters.reads.fetch_add(1, Ordering::Relaxed);
        let id = self.submit(Op::Read, offset, len);
        let failed = fails(&self.model, Op::Read, offset, len)
            .or_else(|| self.marginal.read_fails(offset, len).then_some(libc::EIO));
        if let Some(e) = failed {
            self.counters.errors.fetch_add(1, Ordering::Relaxed);
            self.clock
                .park(id, Action::ReadError(reply, Errno::from_i32(e)));
            return;
        }
        let mut buf = vec![0u8; len as usize];
        match self.load(&mut buf, offset) {
            Ok(()) => {
                self.counters.bytes_read.fetch_add(len, Ordering::Relaxed);
                self.clock.park(id, Action::Data(reply, buf));
            }
            Err(e) => {
                self.counters.errors.fetch_add(1, Ordering::Relaxed);
                self.clock
                    .park(id, Action::ReadError(reply, Errno::from_i32(e)));
            }
        }
    }

    fn write(
        &self,
        _req: &Request,
        ino: INodeNo,
        _fh: FileHandle,
        offset: u64,
        data: &[u8],
        _write_flags: WriteFlags,
        _flags: OpenFlags,
        _lock: Option<LockOwner>,
        reply: ReplyWrite,
    ) {
        let len = data.len() as u64;
        if ino.0 == POWER {
            match std::str::from_utf8(data).map(str::trim) {
                Ok("cut") => {
                    self.power.cut();
                    reply.written(len as u32);
                }
                Ok("on") => {
                    self.power.on();
                    reply.written(len as u32);
                }
                _ => reply.error(Errno::EINVAL),
            }
            return;
        }
        if ino.0 == TEMP || ino.0 == PLP || ino.0 == SMART {
            reply.error(Errno::EACCES);
            return;
        }
        if offset.checked_add(len).is_none_or(|e| e > self.model.size) {
            reply.error(Errno::ENOSPC);
            return;
        }
        if len == 0 {
            reply.written(0);
            return;
        }
        self.count_size(len as u32);
        if let Some(e) = self.gone() {
            reply.error(Errno::from_i32(e));
            return;
        }
        self.counters.writes.fetch_add(1, Ordering::Relaxed);
        // With a volatile cache, what the write replaces is kept until the cache has drained
        // it, so that a power cut can take it back; the power cannot go meanwhile.
        let mut volatile = self
            .model
            .write_cache
            .as_ref()
            .filter(|c| !c.keeps())
            .map(|_| self.power.lock());
        if volatile.as_ref().is_some_and(|v| v.dark()) {
            reply.error(Errno::EIO);
            return;
        }
        let id = self.submit(Op::Write, offset, len);
        if let Some(v) = volatile.as_mut() {
            let mut old = vec![0u8; len as usize];
            if self.load(&mut old, offset).is_ok() {
                v.wrote(offset, old, self.clock.dirty_now());
            }
        }
        if let Some(e) = fails(&self.model, Op::Write, offset, len) {
            self.counters.errors.fetch_add(1, Ordering::Relaxed);
            self.clock
                .park(id, Action::WriteError(reply, Errno::from_i32(e)));
            return;
        }
        // Store the data, except the parts that fall on spots that lose writes.
        let mut stored = Ok(());
        let mut pos = offset;
        let end = offset + len;
        while pos < end && stored.is_ok() {
            let lost = self
                .model
                .lost_writes
                .iter()
                .find(|l| l.offset <= pos && pos < l.offset + l.length);
            let next = match lost {
                Some(l) => (l.offset + l.length).min(end),
                None => self
                    .model
                    .lost_writes
                    .iter()
                    .map(|l| l.offset)
                    .filter(|o| *o > pos)
                    .min()
                    .unwrap_or(end)
                    .min(end),
            };
            if lost.is_none() {
                let a = (pos - offset) as usize;
                let b = (next - offset) as usize;
                stored = self.store(&data[a..b], pos);
            }
            pos = next;
        }
        if stored.is_ok() {
            self.counters
                .bytes_written
                .fetch_add(len, Ordering::Relaxed);
            self.clock.park(id, Action::Written(reply, len as u32));
        } else {
            self.counters.errors.fetch_add(1, Ordering::Relaxed);
            self.clock.park(id, Action::WriteError(reply, Errno::EIO));
        }
    }

    /// Discard, for a flash model: a hole punched into the image (what a loop device sends for
    /// `blkdiscard`) unmaps its pages and reads back zeros. Other models refuse it, as a disk
    /// without TRIM does.
    fn fallocate(
        &self,
        _req: &Request,
        ino: INodeNo,
        _fh: FileHandle,
        offset: u64,
        length: u64,
        mode: i32,
        reply: ReplyEmpty,
    ) {
        if ino.0 == TEMP || ino.0 == SMART {
            reply.error(Errno::EACCES);
            return;
        }
        if self.model.flash.is_none() || self.fake.is_some() {
            reply.error(Errno::ENOSYS);
            return;
        }
        let punch = libc::FALLOC_FL_PUNCH_HOLE | libc::FALLOC_FL_KEEP_SIZE;
        if mode == 0 || mode == libc::FALLOC_FL_KEEP_SIZE {
            reply.ok();
            return;
        }
        if mode != punch && mode != libc::FALLOC_FL_ZERO_RANGE | libc::FALLOC_FL_KEEP_SIZE {
            reply.error(Errno::EOPNOTSUPP);
            return;
        }
        let end = offset.saturating_add(length).min(self.model.size);
        if end <= offset {
            reply.ok();
            return;
        }
        use std::os::fd::AsRawFd;
        // SAFETY: a valid descriptor and plain integers.
        let r = unsafe {
            libc::fallocate(
                self.backing.as_raw_fd(),
                punch,
                offset as libc::off_t,
                (end - offset) as libc::off_t,
            )
        };
        if r != 0 {
            reply.error(Errno::EIO);
            return;
        }
        self.clock.discard(offset, end - offset);
        self.counters.discards.fetch_add(1, Ordering::Relaxed);
        reply.ok();
    }

    fn flush(
        &self,
        _req: &Request,
        _ino: INodeNo,
        _fh: FileHandle,
        _lock: LockOwner,
        reply: ReplyEmpty,
    ) {
        reply.ok();
    }

    fn fsync(
        &self,
        _req: &Request,
        _ino: INodeNo,
        _fh: FileHandle,
        _datasync: bool,
        reply: ReplyEmpty,
    ) {
        if let Some(e) = self.gone() {
            reply.error(Errno::from_i32(e));
            return;
        }
        // The power cannot go between the flush's arrival and its reply's queueing: a cut
        // fails every reply queued before it.
        let power = self.model.write_cache.as_ref().map(|_| self.power.lock());
        if power.as_ref().is_some_and(|v| v.dark()) {
            reply.error(Errno::EIO);
            return;
        }
        self.counters.flushes.fetch_add(1, Ordering::Relaxed);
        let done = self.clock.flush_now();
        self.clock.push(done, Action::Done(reply));
    }

    fn readdir(
        &self,
        _req: &Request,
        ino: INodeNo,
        _fh: FileHandle,
        offset: u64,
        mut reply: ReplyDirectory,
    ) {
        if ino.0 != ROOT {
            reply.error(Errno::ENOTDIR);
            return;
        }
        let mut entries = vec![
            (ROOT, FileType::Directory, "."),
            (ROOT, FileType::Directory, ".."),
            (IMAGE, FileType::RegularFile, IMAGE_NAME),
        ];
        if self.heat.is_some() {
            entries.push((TEMP, FileType::RegularFile, TEMP_NAME));
        }
        if self.model.write_cache.is_some() {
            entries.push((PLP, FileType::RegularFile, PLP_NAME));
            entries.push((POWER, FileType::RegularFile, POWER_NAME));
        }
        if self.model.flash.is_some() {
            entries.push((SMART, FileType::RegularFile, SMART_NAME));
        }
        for (i, (ino, kind, name)) in entries.iter().enumerate().skip(offset as usize) {
            if reply.add(INodeNo(*ino), (i + 1) as u64, *kind, name) {
                break;
            }
        }
        reply.ok();
    }
}
