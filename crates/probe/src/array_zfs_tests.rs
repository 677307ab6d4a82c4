//! `zpool status` tables as zfs-fuse printed them for pools made over loop devices (the fixtures in
//! `tests/fixtures/zpool/`, see their README), and a by-id name as kernel ZFS lists a disk, resolved over a
//! device tree built as devtmpfs lays it out.

use super::*;
use std::fs;

fn fixture(name: &str) -> PoolStatus {
    let p = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/fixtures/zpool")
        .join(name);
    parse_status(&fs::read_to_string(&p).unwrap_or_else(|e| panic!("{}: {e}", p.display())))
}

fn leaves(st: &PoolStatus) -> Vec<(String, Vec<&str>)> {
    st.vdevs
        .iter()
        .map(|v| {
            (
                v.kind.clone(),
                v.leaves.iter().map(|l| l.name.as_str()).collect(),
            )
        })
        .collect()
}

#[test]
fn each_layout_s_data_vdevs_and_leaves_are_read_and_named_in_the_array_rule_s_words() {
    let m3 = fixture("mirror3.txt");
    assert_eq!((m3.pool.as_str(), m3.state.as_str()), ("dstest", "ONLINE"));
    assert_eq!(
        leaves(&m3),
        [("mirror".into(), vec!["loop1", "loop2", "loop3"])]
    );
    assert_eq!(level(&m3).as_deref(), Some("raid1c3"));

    let s3 = fixture("stripe3.txt");
    assert_eq!(
        leaves(&s3),
        [
            ("disk".into(), vec!["loop1"]),
            ("disk".into(), vec!["loop2"]),
            ("disk".into(), vec!["loop3"])
        ]
    );
    assert_eq!(level(&s3).as_deref(), Some("raid0"));

    let r10 = fixture("raid10.txt");
    assert_eq!(
        leaves(&r10),
        [
            ("mirror".into(), vec!["loop1", "loop2"]),
            ("mirror".into(), vec!["loop3", "loop0"])
        ]
    );
    assert_eq!(level(&r10).as_deref(), Some("raid10"));

    let rz = fixture("raidz.txt");
    assert_eq!(
        leaves(&rz),
        [("raidz1".into(), vec!["loop1", "loop2", "loop3"])]
    );
    assert_eq!(level(&rz).as_deref(), Some("raidz1"));
}

#[test]
fn log_and_cache_devices_are_no_members_and_an_unavailable_leaf_is_missing_with_where_it_was() {
    let lc = fixture("mirror_log_cache.txt");
    assert_eq!(
        leaves(&lc),
        [("mirror".into(), vec!["loop1", "loop2", "loop3"])]
    );
    let d = fixture("mirror_degraded.txt");
    assert_eq!(d.state, "DEGRADED");
    let gone = &d.vdevs[0].leaves[2];
    assert_eq!(
        (gone.name.as_str(), gone.state.as_str(), gone.was.as_deref()),
        ("15989300661916856568", "UNAVAIL", Some("/dev/loop3"))
    );
    assert_eq!(d.vdevs.len(), 1, "{d:?}");
}

/// A device tree: `dev/NAME` nodes (plain files stand in for nodes: only their names are resolved), a
/// by-id link, and `sys/class/block/NAME`.
struct Tree(PathBuf);

impl Tree {
    fn new(tag: &str, names: &[&str]) -> Tree {
        let dir = std::env::temp_dir().join(format!("drivescope-zfs-{tag}-{}", std::process::id()));
        let _ = fs::remove_dir_all(&dir);
        for n in names {
            fs::create_dir_all(dir.join("sys/class/block").join(n)).unwrap();
            fs::write(dir.join("sys/class/block").join(n).join("dev"), "7:1\n").unwrap();
            fs::create_dir_all(dir.join("dev")).unwrap();
            fs::write(dir.join("dev").join(n), "").unwrap();
        }
        fs::create_dir_all(dir.join("proc")).unwrap();
        Tree(dir)
    }

    fn roots(&self) -> Roots {
        Roots::under(&self.0)
    }
}

impl Drop for Tree {
    fn drop(&mut self) {
        let _ = fs::remove_dir_all(&self.0);
    }
}

#[test]
fn members_are_the_leaves_found_as_block_devices_and_the_missing_ones_are_named() {
    let t = Tree::new("degraded", &["loop1", "loop2", "sdb1"]);
    let a = array_of(
        Path::new("/pool"),
        &fixture("mirror_degraded.txt"),
        &t.roots(),
    );
    assert_eq!(a.kind, ArrayKind::Zfs);
    assert_eq!(a.name, "dsa");
    let names: Vec<&str> = a.members.iter().map(|m| m.name.as_str()).collect();
    assert_eq!(
        names,
        ["loop1", "loop2"],
        "log and cache devices are no members"
    );
    assert_eq!(
        a.missing,
        ["15989300661916856568 (UNAVAIL, was /dev/loop3)"]
    );
    assert!(a.is_array());
    assert!(
        a.notes.iter().any(|n| n.contains("DEGRADED")),
        "{:?}",
        a.notes
    );

    // A by-id name as kernel ZFS lists a partitioned whole disk, resolved through its link.
    let by_id = t.0.join("dev/disk/by-id");
    fs::create_dir_all(&by_id).unwrap();
    std::os::unix::fs::symlink(
        "../../sdb1",
        by_id.join("ata-WDC_WD40EFRX-68N32N0_WD-X1-part1"),
    )
    .unwrap();
    let text = fs::read_to_string(
        Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/zpool/mirror3.txt"),
    )
    .unwrap()
    .replace("loop3  ", "ata-WDC_WD40EFRX-68N32N0_WD-X1-part1  ");
    let st = parse_status(&text);
    let a = array_of(Path::new("/pool"), &st, &t.roots());
    let names: Vec<&str> = a.members.iter().map(|m| m.name.as_str()).collect();
    assert_eq!(names, ["loop1", "loop2", "sdb1"]);
    assert_eq!(a.members[2].dev_path, t.0.join("dev/sdb1"));
    // A leaf that is no block device here is said, not guessed.
    let st = parse_status(&text.replace("loop2  ", "nosuch  "));
    let a = array_of(Path::new("/pool"), &st, &t.roots());
    assert_eq!(a.members.len(), 2);
    assert!(
        a.notes
            .iter()
            .any(|n| n.starts_with("nosuch: a member of pool dstest")),
        "{:?}",
        a.notes
    );
}

#[test]
fn a_mixed_or_unknown_layout_is_not_named_and_says_so() {
    let st = PoolStatus {
        pool: "p".into(),
        state: "ONLINE".into(),
        vdevs: vec![
            Vdev {
                kind: "mirror".into(),
                leaves: vec![],
            },
            Vdev {
                kind: "disk".into(),
                leaves: vec![],
            },
        ],
    };
    assert_eq!(level(&st), None);
    let a = array_of(Path::new("/p"), &st, &Roots::default());
    assert!(
        a.notes.iter().any(|n| n.contains("does not judge")),
        "{:?}",
        a.notes
    );
}

#[test]
fn every_pool_s_table_is_read_and_a_drive_names_the_pools_that_hold_it_or_its_partition() {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/zpool");
    let mirror = fs::read_to_string(dir.join("mirror3.txt")).unwrap();
    let stripe = fs::read_to_string(dir.join("stripe3.txt"))
        .unwrap()
        .replace("loop1 ", "loop7 ")
        .replace("loop2 ", "loop8 ")
        .replace("loop3 ", "sdb1  ");
    let both = format!("{mirror}\n{stripe}");
    assert_eq!(split_pools(&both).len(), 2);
    let t = Tree::new(
        "pools",
        &["loop1", "loop2", "loop3", "loop7", "loop8", "sdb1"],
    );
    let parts = |p: &[&str]| p.iter().map(|s| s.to_string()).collect::<Vec<_>>();
    assert_eq!(
        pools_in(&both, &parts(&["loop2"]), &t.roots()),
        ["zfs dstest (mirror)"]
    );
    // A drive whose partition is a member.
    assert_eq!(
        pools_in(&both, &parts(&["sdb", "sdb1"]), &t.roots()),
        ["zfs dsa (disk)"]
    );
    assert!(pools_in(&both, &parts(&["loop9"]), &t.roots()).is_empty());
    // A pool of one device is no array.
    let one = mirror
        .replace("\t  mirror-0  ONLINE       0     0     0\n", "")
        .replace("\t    loop2   ONLINE       0     0     0\n", "")
        .replace("\t    loop3   ONLINE       0     0     0\n", "");
    assert_eq!(split_pools(&one).len(), 1);
    assert!(
        pools_in(&one, &parts(&["loop1"]), &t.roots()).is_empty(),
        "{one}"
    );
}
