//! Serving a model: mount the FUSE file system, optionally attach a loop device, and tear both
//! down again — on drop too, so a failing test still unmounts and detaches.

use crate::bus::Bus;
use crate::fuse_fs::{Counters, LabFs, Power, ReplyClock, Stats, IMAGE_NAME};
use crate::model::Model;
use crate::power_cut::CutTruth;
use crate::timing::Timeline;
use drivescope_core::loopdev::LoopDevice;
use fuser::{BackgroundSession, Config, MountOption, Session};
use std::fs::File;
use std::os::unix::fs::MetadataExt;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

/// File-system name of lab mounts: the source column of `/proc/mounts` (type `fuse`).
pub const FS_NAME: &str = drivescope_record::LAB_FS_NAME;

/// Why a lab device could not be served.
#[derive(Debug, thiserror::Error)]
pub enum LabError {
    #[error("the lab needs {0}")]
    Environment(String),
    #[error("shared bus: {0}")]
    Bus(String),
    #[error("{what}: {source}")]
    Io {
        what: String,
        source: std::io::Error,
    },
}

fn io(what: impl Into<String>) -> impl FnOnce(std::io::Error) -> LabError {
    let what = what.into();
    move |source| LabError::Io { what, source }
}

/// Check that this process can serve lab devices: root, `/dev/fuse`, and (for loop devices)
/// `losetup`. The error says what is missing; tests turn it into a failure, never a skip.
pub fn check_environment(with_loop: bool) -> Result<(), LabError> {
    // SAFETY: geteuid cannot fail.
    if unsafe { libc::geteuid() } != 0 {
        return Err(LabError::Environment(
            "root (mounting FUSE and attaching loop devices)".into(),
        ));
    }
    if let Err(e) = std::fs::OpenOptions::new()
        .read(true)
        .write(true)
        .open("/dev/fuse")
    {
        return Err(LabError::Environment(format!(
            "/dev/fuse ({e}); install Debian's fuse3 and load the fuse module"
        )));
    }
    if with_loop {
        let ok = std::process::Command::new("losetup")
            .arg("--version")
            .output()
            .is_ok_and(|o| o.status.success());
        if !ok {
            return Err(LabError::Environment(
                "losetup (Debian's util-linux / mount)".into(),
            ));
        }
    }
    Ok(())
}

/// A sparse backing file of `size` bytes, already unlinked so it can never be left behind.
fn backing_file(size: u64) -> Result<File, LabError> {
    static N: AtomicU64 = AtomicU64::new(0);
    let shm = Path::new("/dev/shm");
    let dir = if shm.is_dir() {
        shm.to_path_buf()
    } else {
        std::env::temp_dir()
    };
    let path = dir.join(format!(
        "drivescope-lab-{}-{}.backing",
        std::process::id(),
        N.fetch_add(1, Ordering::Relaxed)
    ));
    let file = std::fs::OpenOptions::new()
        .read(true)
        .write(true)
        .create_new(true)
        .open(&path)
        .map_err(io(format!("creating {}", path.display())))?;
    let _ = std::fs::remove_file(&path);
    file.set_len(size)
        .map_err(io(format!("sizing {}", path.display())))?;
    Ok(file)
}

/// An emulated disk being served. Dropping it detaches the loop device, unmounts and stops.
pub struct LabDevice {
    model: Model,
    mountdir: PathBuf,
    remove_dir: bool,
    image: PathBuf,
    session: Option<BackgroundSession>,
    conn: Option<u64>,
    loopdev: Option<LoopDevice>,
    clock: Arc<ReplyClock>,
    clock_thread: Option<std::thread::JoinHandle<()>>,
    counters: Arc<Counters>,
    bus: Option<Arc<Bus>>,
    power: Option<Arc<Power>>,
}

impl std::fmt::Debug for LabDevice {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("LabDevice")
            .field("model", &self.model.name)
            .field("image", &self.image)
            .field("loop", &self.loop_device())
            .field("bus_mb_s", &self.bus.as_ref().map(|b| b.rate_mb_s()))
            .finish()
    }
}

impl LabDevice {
    /// Serve `model` as `mountdir/disk.img` (the directory is created if missing) and, with
    /// `with_loop`, attach it read-write to a loop device with direct I/O.
    pub fn start(model: &Model, mountdir: &Path, with_loop: bool) -> Result<LabDevice, LabError> {
        Self::start_on(model, mountdir, with_loop, None)
    }

    /// Like [`LabDevice::start`], the device's transfers also crossing the shared `bus` (see
    /// [`crate::bus`]) when one is given: every device started on the same bus shares its rate.
    pub fn start_on(
        model: &Model,
        mountdir: &Path,
        with_loop: bool,
        bus: Option<Arc<Bus>>,
    ) -> Result<LabDevice, LabError> {
        Self::start_inner(model, mountdir, with_loop, false, bus)
    }

    /// Like [`LabDevice::start`] with a fresh mount directory under the temp dir, removed at
    /// the end.
    pub fn start_temp(model: &Model, with_loop: bool) -> Result<LabDevice, LabError> {
        Self::start_temp_on(model, with_loop, None)
    }

    /// Like [`LabDevice::start_temp`], on the shared `bus` when one is given.
    pub fn start_temp_on(
        model: &Model,
        with_loop: bool,
        bus: Option<Arc<Bus>>,
    ) -> Result<LabDevice, LabError> {
        static N: AtomicU64 = AtomicU64::new(0);
        let dir = std::env::temp_dir().join(format!(
            "drivescope-lab-{}-{}",
            std::process::id(),
            N.fetch_add(1, Ordering::Relaxed)
        ));
        Self::start_inner(model, &dir, with_loop, true, bus)
    }

    fn start_inner(
        model: &Model,
        mountdir: &Path,
        with_loop: bool,
        remove_dir: bool,
        bus: Option<Arc<Bus>>,
    ) -> Result<LabDevice, LabError> {
        model.validate().map_err(|e| LabError::Io {
            what: "model".into(),
            source: std::io::Error::other(e.to_string()),
        })?;
        check_environment(with_loop)?;
        let created = !mountdir.exists();
        std::fs::create_dir_all(mountdir)
            .map_err(io(format!("creating {}", mountdir.display())))?;
        let counters = Arc::new(Counters::default());
        // Devices on one bus count their virtual time from the bus's epoch.
        let (timeline, epoch) = match &bus {
            Some(b) => (Timeline::on_bus(model, b.clone()), b.epoch()),
            None => (Timeline::new(model), Instant::now()),
        };
        let (clock, clock_thread) = ReplyClock::start_timeline(timeline, epoch, counters.clone())
            .map_err(io("reply clock"))?;
        let mut dev = LabDevice {
            model: model.clone(),
            mountdir: mountdir.to_path_buf(),
            remove_dir: remove_dir || created,
            image: mountdir.join(IMAGE_NAME),
            session: None,
            conn: None,
            loopdev: None,
            clock: clock.clone(),
            clock_thread: Some(clock_thread),
            counters: counters.clone(),
            bus,
            power: None,
        };
        // From here on, Drop cleans up whatever was set up.
        let fs = LabFs::new(model, backing_file(model.size)?, clock, counters);
        dev.power = Some(fs.power());
        let mut config = Config::default();
        config.mount_options = vec![
            MountOption::FSName(FS_NAME.into()),
            MountOption::RW,
            MountOption::NoAtime,
        ];
        config.n_threads = Some(2);
        config.clone_fd = true;
        let session = Session::new(fs, mountdir, &config)
            .map_err(io(format!("mounting FUSE at {}", mountdir.display())))?;
        dev.session = Some(session.spawn().map_err(io("FUSE session thread"))?);
        dev.conn = std::fs::metadata(mountdir).ok().map(|m| m.dev());
        if with_loop {
            let l = LoopDevice::attach(&dev.image, false, true).map_err(io(format!(
                "attaching {} to a loop device",
                dev.image.display()
            )))?;
            // No request merging: at QD > 1 the block layer would otherwise join adjacent
            // commands (8 × 64 KiB into one 512 KiB request), and the model would see fewer,
            // larger commands than the tool issued.
            if let Some(name) = l.path().file_name() {
                let knob = Path::new("/sys/block").join(name).join("queue/nomerges");
                let _ = std::fs::write(knob, "2");
            }
            dev.loopdev = Some(l);
        }
        Ok(dev)
    }

    /// The model being served.
    pub fn model(&self) -> &Model {
        &self.model
    }

    /// The FUSE file, `MOUNTDIR/disk.img`.
    pub fn image(&self) -> &Path {
        &self.image
    }

    /// The mount directory.
    pub fn mountdir(&self) -> &Path {
        &self.mountdir
    }

    /// The loop device, e.g. `/dev/loop3`, when attached.
    pub fn loop_device(&self) -> Option<&Path> {
        self.loopdev.as_ref().map(|l| l.path())
    }

    /// The block device if attached, else the image file: what to point a tool at.
    pub fn target(&self) -> &Path {
        self.loop_device().unwrap_or(&self.image)
    }

    /// What has been served so far.
    pub fn stats(&self) -> Stats {
        self.counters.snapshot()
    }

    /// A flash model's page counters so far: host pages, media programs, erases (None for a
    /// model without a `flash` section).
    pub fn flash_counters(&self) -> Option<crate::flash::Counters> {
        self.clock.flash_counters()
    }

    /// The shared bus the device is on, if any ([`Bus::rate_mb_s`], [`Bus::stats`]).
    pub fn bus(&self) -> Option<&Arc<Bus>> {
        self.bus.as_ref()
    }

    /// Pull the disk out: abort the FUSE connection, so every command in flight and after
    /// fails as on a dead device (the loop device stays attached, as a disk's node would
    /// until the tool closes it). Drop still cleans up.
    pub fn pull(&self) {
        // First in the file system itself: the abort goes through fusectl, which may not be
        // there to take it (mounted and unmounted again around each abort).
        self.counters
            .pulled
            .store(true, std::sync::atomic::Ordering::Relaxed);
        if let Some(dev) = self.conn {
            abort_connection(dev);
        }
        lazy_unmount(&self.mountdir);
    }

    /// Cut the power (see [`crate::power_cut`]): what the write cache held and had not made
    /// durable is lost, and every command fails with EIO until [`LabDevice::power_on`]. Returns
    /// the byte ranges lost (none on a disk without a cache or with a protected one).
    pub fn power_cut(&self) -> CutTruth {
        self.power.as_ref().map(|p| p.cut()).unwrap_or_default()
    }

    /// Bring the power back after [`LabDevice::power_cut`]: the disk serves what survived.
    pub fn power_on(&self) {
        if let Some(p) = &self.power {
            p.on();
        }
    }

    /// Every power cut so far, oldest first.
    pub fn power_cuts(&self) -> Vec<CutTruth> {
        self.power.as_ref().map(|p| p.cuts()).unwrap_or_default()
    }

    /// Tear down now and report the first error (drop does the same silently).
    pub fn stop(mut self) -> Result<(), LabError> {
        self.teardown()
    }

    fn teardown(&mut self) -> Result<(), LabError> {
        let mut first: Result<(), LabError> = Ok(());
        if let Some(l) = self.loopdev.take() {
            let path = l.path().to_path_buf();
            let mut result = l.detach();
            // A device still open elsewhere (udev probing, a tool) is detached when closed;
            // losetup reports busy only in odd races: retry briefly.
            for _ in 0..20 {
                if result.is_ok() {
                    break;
                }
                std::thread::sleep(Duration::from_millis(50));
                result = drivescope_core::loopdev::detach(&path);
            }
            if let Err(e) = result {
                first = Err(LabError::Io {
                    what: format!("detaching {}", path.display()),
                    source: e,
                });
            }
        }
        if let Some(session) = self.session.take() {
            let guard_done = {
                // Dropping the session unmounts (umount2; root needs no fusermount).
                let BackgroundSession { guard, .. } = session;
                guard
            };
            if mounted(&self.mountdir) {
                lazy_unmount(&self.mountdir);
            }
            // The session thread ends when the kernel closes the connection. If something still
            // holds the file (a loop device that could not be detached), abort the connection
            // so no thread is left waiting forever.
            let deadline = Instant::now() + Duration::from_secs(3);
            while !guard_done.is_finished() && Instant::now() < deadline {
                std::thread::sleep(Duration::from_millis(10));
            }
            if !guard_done.is_finished() {
                if let Some(dev) = self.conn {
                    abort_connection(dev);
                }
                let deadline = Instant::now() + Duration::from_secs(2);
                while !guard_done.is_finished() && Instant::now() < deadline {
                    std::thread::sleep(Duration::from_millis(10));
                }
            }
            if guard_done.is_finished() {
                let _ = guard_done.join();
            }
        }
        self.clock.stop();
        if let Some(t) = self.clock_thread.take() {
            let _ = t.join();
        }
        if self.remove_dir && !mounted(&self.mountdir) {
            let _ = std::fs::remove_dir(&self.mountdir);
        }
        first
    }
}

impl Drop for LabDevice {
    fn drop(&mut self) {
        if let Err(e) = self.teardown() {
            eprintln!("drivescope-lab: cleanup: {e}");
        }
    }
}

/// Abort the FUSE connection of the file system with device number `st_dev`, through the
/// fusectl file system (mounted for the moment when the system has not mounted it).
fn abort_connection(st_dev: u64) {
    const CONNS: &str = "/sys/fs/fuse/connections";
    // fusectl names a connection by the kernel's dev_t: major << 20 | minor.
    let name = ((libc::major(st_dev) as u64) << 20) | libc::minor(st_dev) as u64;
    let abort = format!("{CONNS}/{name}/abort");
    let mut mounted_here = false;
    if !Path::new(&abort).exists() {
        let c = |s: &str| std::ffi::CString::new(s).expect("no NUL");
        let (src, dir, fstype) = (c("fusectl"), c(CONNS), c("fusectl"));
        // SAFETY: valid NUL-terminated strings; no data argument.
        mounted_here = unsafe {
            libc::mount(
                src.as_ptr(),
                dir.as_ptr(),
                fstype.as_ptr(),
                0,
                std::ptr::null(),
            )
        } == 0;
    }
    let _ = std::fs::write(&abort, "1");
    if mounted_here {
        lazy_unmount(Path::new(CONNS));
    }
}

/// Whether `dir` is a mount point of a lab file system.
pub fn mounted(dir: &Path) -> bool {
    // No canonicalize: a dead FUSE server would make stat() fail or hang.
    let dir = if dir.is_absolute() {
        dir.to_path_buf()
    } else {
        std::env::current_dir().unwrap_or_default().join(dir)
    };
    lab_mounts().contains(&dir)
}

/// Mount points of all lab file systems (from `/proc/self/mounts`).
pub fn lab_mounts() -> Vec<PathBuf> {
    let text = std::fs::read_to_string("/proc/self/mounts").unwrap_or_default();
    text.lines()
        .filter_map(|l| {
            let mut f = l.split_whitespace();
            let src = f.next()?;
            let dir = f.next()?;
            let fstype = f.next()?;
            (src == FS_NAME && (fstype == "fuse" || fstype == format!("fuse.{FS_NAME}")))
                .then(|| PathBuf::from(unescape_mount(dir)))
        })
        .collect()
}

fn unescape_mount(s: &str) -> String {
    // /proc/mounts escapes space, tab, newline and backslash as \ooo.
    let mut out = String::new();
    let b = s.as_bytes();
    let mut i = 0;
    while i < b.len() {
        if b[i] == b'\\' && i + 3 < b.len() {
            if let Ok(v) = u8::from_str_radix(&s[i + 1..i + 4], 8) {
                out.push(v as char);
                i += 4;
                continue;
            }
        }
        out.push(b[i] as char);
        i += 1;
    }
    out
}

/// Detach a mount point from the tree now (`umount -l`); the kernel finishes when unused.
pub fn lazy_unmount(dir: &Path) {
    if let Ok(c) = std::ffi::CString::new(dir.as_os_str().as_encoded_bytes()) {
        // SAFETY: a valid NUL-terminated path; umount2 has no other preconditions.
        unsafe {
            libc::umount2(c.as_ptr(), libc::MNT_DETACH);
        }
    }
}

/// Remove what crashed lab runs left behind: loop devices backed by lab images, then the lab
/// mounts themselves. Returns what was cleaned, one line each.
pub fn cleanup_stale() -> Vec<String> {
    let mut done = vec![];
    let mounts = lab_mounts();
    if let Ok(out) = std::process::Command::new("losetup")
        .args(["--list", "--noheadings", "--output", "NAME,BACK-FILE"])
        .output()
    {
        for line in String::from_utf8_lossy(&out.stdout).lines() {
            let mut f = line.splitn(2, char::is_whitespace);
            let (Some(name), Some(back)) = (f.next(), f.next()) else {
                continue;
            };
            let back = Path::new(back.trim().trim_end_matches(" (deleted)"));
            if mounts.iter().any(|m| back.starts_with(m)) {
                let ok = drivescope_core::loopdev::detach(Path::new(name)).is_ok();
                done.push(format!(
                    "detached {name} ({}){}",
                    back.display(),
                    if ok { "" } else { " FAILED" }
                ));
            }
        }
    }
    for m in mounts {
        lazy_unmount(&m);
        done.push(format!("unmounted {}", m.display()));
    }
    done
}
