//! `drivescope time --trace` on loop devices the test makes (ext4 over files in /dev/shm): the fingerprint
//! of a 4 KiB random-read fio job, of a direct `dd` of 1 MiB blocks and of a cold `cat` says what each
//! does; the kept trace holds the requests the fingerprint counts; and where the trace cannot be taken (not
//! root, no usable tracefs, the device gone) one line says so and the runs are still timed. Needs root.

use common::typed::record_of_ok;
use common::{drivescope_cmd, skip_without_root, Ext4Mount};
use drivescope_record::{AccessPattern, FindingCode, Fingerprint, IoDirection, TimeRecord};
use drivescope_testkit as common;
use drivescope_trace::TraceReader;
use std::path::{Path, PathBuf};
use std::process::{Command, Output};

const MIB: u64 = 1 << 20;

/// One traced run at a time: cold runs drop the page cache, and traces share the process's instance name
/// only per process (each drivescope is its own process, but the page cache is everyone's).
fn one_at_a_time() -> std::sync::MutexGuard<'static, ()> {
    static LOCK: std::sync::Mutex<()> = std::sync::Mutex::new(());
    LOCK.lock().unwrap_or_else(|p| p.into_inner())
}

fn time_out(cwd: &Path, args: &[&str]) -> Output {
    drivescope_cmd()
        .arg("time")
        .arg("--cwd")
        .arg(cwd)
        .args(["--json", "--quiet", "--no-store"])
        .args(args)
        .output()
        .expect("run drivescope time")
}

fn time(cwd: &Path, args: &[&str]) -> TimeRecord {
    let out = time_out(cwd, args);
    assert!(
        out.status.success(),
        "{args:?}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    record_of_ok(&out)
}

fn fingerprint(d: &TimeRecord) -> &Fingerprint {
    d.fingerprint
        .as_ref()
        .unwrap_or_else(|| panic!("no fingerprint; notes: {:?}", d.notes))
}

/// A file of `size` random bytes in `dir`, written out to the device.
fn write_file(dir: &Path, name: &str, size: u64) {
    let st = Command::new("dd")
        .args(["if=/dev/urandom", "bs=1M", "status=none", "conv=fsync"])
        .arg(format!("of={name}"))
        .arg(format!("count={}", size / MIB))
        .current_dir(dir)
        .status()
        .unwrap();
    assert!(st.success());
}

fn loop_name(fs: &Ext4Mount) -> String {
    fs.dev_path()
        .file_name()
        .unwrap()
        .to_string_lossy()
        .into_owned()
}

fn queue_kb(dev: &str, what: &str) -> u64 {
    std::fs::read_to_string(format!("/sys/block/{dev}/queue/{what}"))
        .unwrap()
        .trim()
        .parse()
        .unwrap()
}

/// Read requests and read bytes, and those of them that match `keep`.
fn reads(f: &Fingerprint, keep: impl Fn(u64, AccessPattern) -> bool) -> (u64, u64, u64, u64) {
    let mut all = (0, 0, 0, 0);
    for c in f
        .classes
        .iter()
        .filter(|c| c.direction == IoDirection::Read)
    {
        all.0 += c.requests;
        all.1 += c.bytes;
        if keep(c.size_max_bytes, c.pattern) {
            all.2 += c.requests;
            all.3 += c.bytes;
        }
    }
    all
}

#[test]
fn fio_4k_random_reads_at_depth_one_read_as_4k_random_at_depth_one_and_the_kept_trace_matches() {
    if skip_without_root("traces block requests through tracefs on a loop device") {
        return;
    }
    let _one = one_at_a_time();
    let fs = Ext4Mount::new(400 * MIB);
    write_file(&fs.dir, "data", 256 * MIB);
    let kept = std::env::temp_dir().join(format!("drivescope-kept-{}.trace", std::process::id()));
    let pressure = common::busy::Pressure::start();
    let d = time(
        &fs.dir,
        &[
            "--cold",
            "--runs",
            "1",
            "--keep-trace",
            kept.to_str().unwrap(),
            "--",
            "fio",
            "--name=r",
            "--filename=data",
            "--rw=randread",
            "--bs=4k",
            "--iodepth=1",
            "--direct=1",
            "--size=256M",
            "--time_based",
            "--runtime=3",
        ],
    );
    let f = fingerprint(&d);
    eprintln!("{:#?}", f.classes);
    assert_eq!(f.devices, [loop_name(&fs)]);
    assert_eq!(f.run_label(), "cold run 1");
    let (n, _, small, _) = reads(f, |size, _| size == 4096);
    let (_, _, random, _) = reads(f, |_, p| p == AccessPattern::Random);
    assert!(n >= 5000, "{n} reads in 3 s of fio");
    assert!(small as f64 >= 0.9 * n as f64, "{small} of {n} reads 4 KiB");
    assert!(
        random as f64 >= 0.9 * n as f64,
        "{random} of {n} reads random"
    );
    assert!(f.busy_ns > 0 && f.busy_ns <= f.wall_ns);
    let busy_host = pressure
        .and_then(|p| p.share())
        .filter(|s| *s >= common::busy::BUSY);
    // A RAM disk read at depth one makes some 200 000 events a second. A reader starved of CPU by
    // other work lets the kernel's buffer overrun: the run says so, and a completion whose event was
    // lost pairs with a later one, so the depth is not the program's. On a host not under pressure
    // nothing may be lost.
    if f.lost_events > 0 {
        let share = busy_host.unwrap_or_else(|| {
            panic!(
                "{} trace events lost, the CPUs not under pressure",
                f.lost_events
            )
        });
        assert!(
            f.notes.iter().any(|n| n.contains("dropped")),
            "{:?}",
            f.notes
        );
        eprintln!(
            "inconclusive: {} events lost with the CPUs {:.0} % under pressure, mean queue depth {:.2}",
            f.lost_events,
            share * 100.0,
            f.mean_queue_depth
        );
    } else {
        assert!(
            (0.95..=1.2).contains(&f.mean_queue_depth),
            "mean queue depth {}",
            f.mean_queue_depth
        );
    }
    // The finding needs the disk busy for a good part of the run: a host too busy to keep fio
    // issuing leaves the disk idle between reads, and the rule rightly stays silent there.
    let finding = d
        .header
        .findings
        .iter()
        .find(|x| x.code == FindingCode::LatencyBound);
    match (finding, busy_host) {
        (Some(finding), _) => assert!(
            finding
                .claim
                .contains("mostly 4 KiB random reads at queue depth 1: latency-bound"),
            "{}",
            finding.claim
        ),
        (None, Some(share)) => eprintln!(
            "inconclusive: no latency-bound finding with the CPUs {:.0} % under pressure (disk busy {:.0} % of the run)",
            share * 100.0,
            f.busy_ns as f64 * 100.0 / f.wall_ns as f64
        ),
        (None, None) => panic!("no latency-bound finding: {:?}", d.header.findings),
    }

    // The kept trace: the same requests, in completion order, on the traced device.
    let r = TraceReader::new(std::io::BufReader::new(std::fs::File::open(&kept).unwrap())).unwrap();
    assert_eq!(r.header().devices[0].name, loop_name(&fs));
    assert_eq!(r.header().command[0], "fio");
    let mut count = 0u64;
    let mut last = 0;
    for q in r {
        let q = q.expect("a whole record");
        assert!(q.complete_ns >= last, "completion order");
        last = q.complete_ns;
        count += 1;
    }
    assert_eq!(
        count, f.requests,
        "the kept trace holds what the fingerprint counts"
    );
    std::fs::remove_file(&kept).unwrap();
}

#[test]
fn a_direct_dd_of_1m_blocks_is_sequential_in_requests_the_devices_limit_splits() {
    if skip_without_root("traces block requests through tracefs on a loop device") {
        return;
    }
    let _one = one_at_a_time();
    let fs = Ext4Mount::new(400 * MIB);
    write_file(&fs.dir, "data", 200 * MIB);
    // The device takes at most max_sectors_kb in one request, and at most max_segments pieces of memory:
    // a 1 MiB block of dd's goes down in as many requests as the smaller limit needs when its pages are
    // scattered, and in as few as max_sectors_kb allows when they are contiguous (a huge page).
    let dev = loop_name(&fs);
    let most = queue_kb(&dev, "max_sectors_kb") * 1024;
    let limit = most.min(queue_kb(&dev, "max_segments") * 4096);
    let (fewest, pieces) = (MIB.div_ceil(most), MIB.div_ceil(limit));
    let d = time(
        &fs.dir,
        &[
            "--cold",
            "--runs",
            "1",
            "--trace",
            "--",
            "dd",
            "if=data",
            "of=/dev/null",
            "bs=1M",
            "iflag=direct",
            "status=none",
        ],
    );
    let f = fingerprint(&d);
    eprintln!("{:#?}", f.classes);
    // The file's data: requests over 16 KiB (ext4's metadata reads are single 4 KiB blocks). Most of it goes
    // in requests of at least half the limit; a block whose pages are partly contiguous splits unevenly, and
    // its last piece may be smaller (a CI run saw 3.5 % of the bytes in such pieces), down to one page, which
    // the filter then leaves out (a run beside other tests saw one 4 KiB piece in every block: 0.4 %).
    let (_, b, n, data) = reads(f, |size, _| size > 16 * 1024);
    let (_, _, _, big) = reads(f, |size, _| size * 2 > limit);
    let (_, _, _, seq) = reads(f, |_, p| p == AccessPattern::Sequential);
    let blocks = 200;
    assert!(
        b >= 200 * MIB
            && data as f64 >= 0.95 * (200 * MIB) as f64
            && big as f64 >= 0.9 * data as f64,
        "{b} bytes read, {data} in data requests, {big} in large ones"
    );
    let (low, high) = (blocks * fewest, blocks * pieces);
    assert!(
        n as f64 >= 0.97 * low as f64 && n as f64 <= 1.03 * high as f64,
        "{n} data reads, expected {low} to {high}: {blocks} blocks of 1 MiB in {fewest} to {pieces} \
         requests each (a request at most {most} bytes, or {limit} of scattered memory)"
    );
    let mean = data as f64 / n as f64;
    let (small, large) = (MIB as f64 / pieces as f64, MIB as f64 / fewest as f64);
    assert!(
        mean >= 0.95 * small && mean <= 1.05 * large,
        "mean request {mean:.0} bytes, expected {small:.0} to {large:.0}"
    );
    assert!(
        seq as f64 >= 0.9 * b as f64,
        "{seq} of {b} bytes sequential"
    );
    assert_eq!(
        d.header
            .findings
            .iter()
            .find(|x| x.claim.starts_with("I/O of"))
            .map(|x| x.code.clone()),
        Some(FindingCode::ThroughputBound)
    );
}

#[test]
fn a_cold_cat_reads_sequentially_in_readahead_sized_requests() {
    if skip_without_root("traces block requests through tracefs on a loop device") {
        return;
    }
    let _one = one_at_a_time();
    let fs = Ext4Mount::new(400 * MIB);
    write_file(&fs.dir, "data", 200 * MIB);
    // A loop device keeps the readahead a former binding gave it (one was found at 2560 KiB, above its
    // 1280 KiB request cap, so no request could be readahead-sized): the kernel's default on this
    // test's own device.
    std::fs::write(
        format!("/sys/block/{}/queue/read_ahead_kb", loop_name(&fs)),
        "128",
    )
    .unwrap();
    // cat advises the kernel that it reads sequentially, which doubles the file's readahead window.
    let ra = queue_kb(&loop_name(&fs), "read_ahead_kb") * 1024;
    let d = time(
        &fs.dir,
        &["--cold", "--runs", "1", "--trace", "--", "cat", "data"],
    );
    let f = fingerprint(&d);
    eprintln!("{:#?}", f.classes);
    let (n, b, _, ra_sized) = reads(f, |size, _| size == ra || size == 2 * ra);
    let (_, _, seq_n, seq) = reads(f, |_, p| p == AccessPattern::Sequential);
    assert!(b >= 200 * MIB, "{b} bytes read");
    assert!(
        ra_sized as f64 >= 0.9 * b as f64,
        "{ra_sized} of {b} bytes in readahead-sized ({ra} or {} bytes) requests ({n} reads)",
        2 * ra
    );
    assert!(
        seq as f64 >= 0.9 * b as f64 && seq_n as f64 >= 0.9 * n as f64,
        "{seq_n} of {n} reads sequential ({seq} of {b} bytes)"
    );
}

/// The one line that says why a run was not traced (stderr carries nothing else with --json --quiet).
fn one_line(out: &Output) -> String {
    let e = String::from_utf8_lossy(&out.stderr).into_owned();
    let lines: Vec<&str> = e.lines().filter(|l| l.contains("not traced")).collect();
    assert_eq!(lines.len(), 1, "one line: {e}");
    lines[0].to_string()
}

fn untraced_but_timed(out: &Output, why: &str) {
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let line = one_line(out);
    assert!(line.contains(why), "{line}");
    let d: TimeRecord = record_of_ok(out);
    assert!(d.fingerprint.is_none());
    assert_eq!(d.modes[0].runs.len(), 2, "the runs are timed all the same");
    assert!(d.notes.iter().any(|n| n.contains(why)), "{:?}", d.notes);
}

#[test]
fn a_user_who_is_not_root_gets_one_line_and_the_timing() {
    if skip_without_root("runs drivescope as another user with setpriv") {
        return;
    }
    let out = Command::new("setpriv")
        .args(["--reuid=nobody", "--regid=nogroup", "--clear-groups"])
        .arg(env!("CARGO_BIN_EXE_drivescope"))
        .args([
            "time", "--warm", "--runs", "2", "--trace", "--json", "--quiet",
        ])
        .args(["--no-store", "--cwd", "/", "--", "true"])
        .current_dir("/")
        .output()
        .expect("setpriv (util-linux)");
    untraced_but_timed(&out, "needs root");
}

#[test]
fn a_tracefs_that_cannot_be_used_gets_one_line_and_the_timing() {
    if skip_without_root("hides tracefs in a mount namespace") {
        return;
    }
    let _one = one_at_a_time();
    let fs = Ext4Mount::new(64 * MIB);
    // In a mount namespace of its own, a tmpfs hides tracefs, and without CAP_SYS_ADMIN drivescope cannot
    // mount it again.
    let script = format!(
        "mount -t tmpfs none /sys/kernel/tracing && exec setpriv --bounding-set -sys_admin \
         --inh-caps -sys_admin {} time --warm --runs 2 --trace --json --quiet --no-store --cwd {} -- true",
        env!("CARGO_BIN_EXE_drivescope"),
        fs.path()
    );
    let out = Command::new("unshare")
        .args(["--mount", "--propagation", "private", "sh", "-c", &script])
        .env(
            "XDG_DATA_HOME",
            std::env::temp_dir().join(format!("drivescope-test-store-{}", std::process::id())),
        )
        .output()
        .expect("unshare (util-linux)");
    untraced_but_timed(&out, "tracefs is not mounted at /sys/kernel/tracing");
}

#[test]
fn a_device_that_goes_away_during_the_traced_run_gets_one_line_and_the_timing() {
    if skip_without_root("detaches a loop device under a traced run") {
        return;
    }
    let _one = one_at_a_time();
    let file = PathBuf::from(format!(
        "/dev/shm/drivescope-gone-{}.img",
        std::process::id()
    ));
    std::fs::File::create(&file)
        .and_then(|f| f.set_len(64 * MIB))
        .unwrap();
    let out = Command::new("losetup")
        .args(["--find", "--show"])
        .arg(&file)
        .output()
        .unwrap();
    let dev = String::from_utf8_lossy(&out.stdout).trim().to_string();
    assert!(Command::new("mkfs.ext4")
        .args(["-q", "-F", &dev])
        .status()
        .unwrap()
        .success());
    let dir = std::env::temp_dir().join(format!("drivescope-gone-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    assert!(Command::new("mount")
        .arg(&dev)
        .arg(&dir)
        .status()
        .unwrap()
        .success());
    std::fs::write(dir.join("f"), vec![1u8; 1 << 20]).unwrap();
    // The traced run reads, then lets the file system go and detaches its device: when the run's last
    // reference goes, the loop device is detached.
    let line = format!(
        "cat f >/dev/null; cd /; umount -l {d}; losetup -d {dev}; \
         for i in $(seq 50); do [ \"$(cat /sys/block/{n}/size)\" = 0 ] && break; sleep 0.1; done",
        d = dir.display(),
        n = dev.trim_start_matches("/dev/")
    );
    let out = drivescope_cmd()
        .args([
            "time", "--cold", "--runs", "2", "-i", "--trace", "--json", "--quiet",
        ])
        .args(["--no-store", "--cwd"])
        .arg(&dir)
        .args(["--shell", &line])
        .output()
        .unwrap();
    // Already detached and unmounted where the run went as planned.
    let _ = Command::new("losetup")
        .args(["-d", &dev])
        .stderr(std::process::Stdio::null())
        .status();
    let _ = Command::new("umount")
        .arg("-l")
        .arg(&dir)
        .stderr(std::process::Stdio::null())
        .status();
    let _ = std::fs::remove_dir(&dir);
    let _ = std::fs::remove_file(&file);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let line = one_line(&out);
    assert!(line.contains("went away"), "{line}");
    let d: TimeRecord = record_of_ok(&out);
    assert!(d.fingerprint.is_none());
    assert!(!d.modes[0].runs.is_empty(), "the run is timed all the same");
}
