//! The array experiment inside a diagnosis: whether the target is an array (members in sysfs, or named by
//! the user), the read window its share of the budget allows, and what goes in the record. It runs before the
//! other experiments, reads only, and is kept by a resumed diagnosis once it ran to its end.

use crate::array::{array_reads, open_members};
use crate::Budget;
use drivescope_core::engine::Now;
use drivescope_core::screen::SharedOptions;
use drivescope_core::target::Target;
use drivescope_probe::{Array, ArrayKind, Roots};
use drivescope_record::{DiagnoseRecord, Experiment, Skipped};
use std::path::Path;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Duration;

/// What a diagnosis knows of the target as an array.
#[derive(Debug, Clone, PartialEq)]
pub enum Found {
    /// Two or more members to read.
    Members(Array),
    /// The target looks like an array (a hardware RAID's logical drive, an md or btrfs array whose members
    /// are not all there) but shows fewer than two members: why, in words.
    NoMembers(String),
}

/// The share of the budget the array experiment may use.
const BUDGET_SHARE: u32 = 4;
/// The read window bounds: long enough for a rate, short enough for three members in a small budget.
const MIN_WINDOW: Duration = Duration::from_millis(250);
const MAX_WINDOW: Duration = Duration::from_secs(3);

/// The members of `target` (a device or a directory), or of the devices `named` when given. `Ok(None)`: no
/// array (a single device, a single-device file system, a null target). An error only for members the user
/// named that cannot be found.
pub fn find(target: &str, named: &[String], roots: &Roots) -> Result<Option<Found>, String> {
    let path = Path::new(target);
    if !named.is_empty() {
        if named.len() < 2 {
            return Err(format!(
                "--members names {}: an array needs two or more",
                named.join(",")
            ));
        }
        let a = drivescope_probe::named(path, named, roots).map_err(|e| e.to_string())?;
        return Ok(Some(Found::Members(a)));
    }
    if target.is_empty() || target.starts_with("null:") {
        return Ok(None);
    }
    let Ok(a) = drivescope_probe::members(path, roots) else {
        return Ok(None);
    };
    if a.is_array() {
        return Ok(Some(Found::Members(a)));
    }
    let says = match a.kind {
        ArrayKind::Device => a.controller.is_some(),
        ArrayKind::Btrfs | ArrayKind::Zfs => a.members.is_empty() || !a.missing.is_empty(),
        ArrayKind::Md | ArrayKind::Dm => true,
        ArrayKind::Named => false,
    };
    Ok(says.then(|| {
        let mut why = a.notes.join("; ");
        if why.is_empty() {
            why = format!("{} shows fewer than two members", a.name);
        }
        Found::NoMembers(format!(
            "{why}; name the member devices with --members to read them"
        ))
    }))
}

/// The window each read of the experiment runs: a quarter of the budget over the reads (each member alone,
/// all together, the array by one reader and by several), within [`MIN_WINDOW`]..[`MAX_WINDOW`].
pub fn window(budget: Duration, members: usize) -> Duration {
    let reads = members as u32 + 3;
    (budget / BUDGET_SHARE / reads).clamp(MIN_WINDOW, MAX_WINDOW)
}

/// Run the experiment for `found` on its members and on `whole` (the array as the diagnosis reads it: its
/// device, or the test file on its file system), writing `whole` too when `writes` are allowed, into `rec`.
/// Kept as it is when `rec` has it already.
pub(crate) fn run<C: Now>(
    found: &Found,
    whole: &Target,
    writes: bool,
    budget: &Budget<C>,
    rec: &mut DiagnoseRecord,
    stop: &AtomicBool,
    say: &mut dyn FnMut(Experiment, &str),
) {
    let done = rec.array.is_some()
        || rec
            .skipped
            .iter()
            .any(|s| s.experiment == Experiment::Array);
    if done || stop.load(Ordering::Relaxed) {
        return;
    }
    let skip = |rec: &mut DiagnoseRecord, why: String| {
        rec.skipped.push(Skipped {
            experiment: Experiment::Array,
            why,
        })
    };
    let array = match found {
        Found::NoMembers(why) => return skip(rec, why.clone()),
        Found::Members(a) => a,
    };
    let n = array.members.len();
    let w = window(budget.total(), n);
    if budget.left() < w * (n as u32 + 3 + u32::from(writes)) {
        return skip(rec, "too little budget left for the members' reads".into());
    }
    let targets = match open_members(array) {
        Ok(t) => t,
        Err(e) => return skip(rec, format!("the members could not be opened: {e}")),
    };
    let names: Vec<&str> = array.members.iter().map(|m| m.name.as_str()).collect();
    let writer = if writes { " and 1 writer" } else { "" };
    say(
        Experiment::Array,
        &format!(
            "{} alone, all together, the array by 1 and {n} readers{writer}, {} ms each",
            names.join(", "),
            w.as_millis()
        ),
    );
    let refs: Vec<&Target> = targets.iter().collect();
    let o = SharedOptions {
        duration_ns: w.as_nanos() as u64,
        ..SharedOptions::default()
    };
    rec.array = array_reads(array, &refs, Some(whole), n as u32, writes, &o, stop);
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_window_is_a_quarter_of_the_budget_over_the_reads() {
        // 3 members: 6 reads in 45 s of a 180 s budget, at most 3 s each.
        assert_eq!(window(Duration::from_secs(180), 3), MAX_WINDOW);
        assert_eq!(window(Duration::from_secs(24), 3), Duration::from_secs(1));
        assert_eq!(window(Duration::from_secs(2), 8), MIN_WINDOW);
    }

    /// A sysfs tree with a hardware RAID logical drive (sda under megaraid_sas), an md mirror that shows one of
    /// its two members (md0 over sdb), and a plain disk (sdc).
    fn fixture(dir: &Path) -> Roots {
        use std::os::unix::fs::symlink;
        let sys = dir.join("sys");
        for d in ["class/block", "dev/block"] {
            std::fs::create_dir_all(sys.join(d)).unwrap();
        }
        std::fs::create_dir_all(dir.join("dev")).unwrap();
        let node = |name: &str, mm: &str, d: &Path| {
            std::fs::create_dir_all(d.join("slaves")).unwrap();
            std::fs::write(d.join("dev"), format!("{mm}\n")).unwrap();
            symlink(d, sys.join("class/block").join(name)).unwrap();
            symlink(d, sys.join("dev/block").join(mm)).unwrap();
            std::fs::write(dir.join("dev").join(name), "").unwrap();
        };
        let host = sys.join("devices/pci0000:00/0000:00:01.0/host0");
        std::fs::create_dir_all(host.join("scsi_host/host0")).unwrap();
        std::fs::write(host.join("scsi_host/host0/proc_name"), "megaraid_sas\n").unwrap();
        node("sda", "8:0", &host.join("target0:2:0/0:2:0:0/block/sda"));
        let virt = sys.join("devices/virtual/block");
        node("sdb", "8:16", &virt.join("sdb"));
        node("sdc", "8:32", &virt.join("sdc"));
        let md = virt.join("md0");
        node("md0", "9:0", &md);
        std::fs::create_dir_all(md.join("md")).unwrap();
        std::fs::write(md.join("md/level"), "raid1\n").unwrap();
        std::fs::write(md.join("md/raid_disks"), "2\n").unwrap();
        symlink(virt.join("sdb"), md.join("slaves/sdb")).unwrap();
        Roots::under(dir)
    }

    #[test]
    fn an_array_that_hides_its_members_is_said_in_one_sentence_and_a_plain_disk_is_no_array() {
        let dir =
            std::env::temp_dir().join(format!("drivescope-array-step-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        let roots = fixture(&dir);
        let said = |name: &str| match find(&roots.dev.join(name).to_string_lossy(), &[], &roots) {
            Ok(Some(Found::NoMembers(why))) => why,
            other => panic!("{name}: {other:?}"),
        };
        let why = said("sda");
        assert!(
            why.contains("hardware RAID controller (megaraid_sas)"),
            "{why}"
        );
        assert!(
            why.ends_with("name the member devices with --members to read them"),
            "{why}"
        );
        let why = said("md0");
        assert!(why.contains("md0 shows 1 of its 2 members"), "{why}");
        let plain = find(&roots.dev.join("sdc").to_string_lossy(), &[], &roots);
        assert_eq!(plain, Ok(None));
        let _ = std::fs::remove_dir_all(&dir);
    }

    #[test]
    fn named_members_must_be_two_and_exist() {
        let roots = Roots::default();
        assert!(find("/dev/md0", &["/dev/null".into()], &roots).is_err());
        assert!(find(
            "/dev/md0",
            &["/dev/null".into(), "/nonexistent/drivescope-member".into()],
            &roots
        )
        .is_err());
        match find(
            "/dev/md0",
            &["/dev/null".into(), "/dev/zero".into()],
            &roots,
        ) {
            Ok(Some(Found::Members(a))) => {
                assert_eq!(a.kind, ArrayKind::Named);
                let paths: Vec<_> = a.members.iter().map(|m| m.dev_path.clone()).collect();
                assert_eq!(paths, [Path::new("/dev/null"), Path::new("/dev/zero")]);
            }
            other => panic!("{other:?}"),
        }
        // A null target is never an array.
        assert_eq!(find("null:1G", &[], &roots), Ok(None));
    }
}
