//! The live view of `steady` on a real terminal: a small lab flash disk (FUSE + loop) whose
//! rounds settle, run inside tmux. While the rounds run the pane shows the convergence panel
//! and the phase (the round and cell); the run then ends by itself on the normal screen with its
//! summary. Needs root, FUSE and tmux (Debian `tmux`).

use common::tmux::Tmux;
use common::{require_root, skip_without_root};
use drivescope_core::safety::DeviceName;
use drivescope_lab::Model;
use drivescope_testkit as common;
use std::path::Path;
use std::time::Duration;

const BIN: &str = env!("CARGO_BIN_EXE_drivescope");

fn confirmation(dev: &Path) -> String {
    let id = drivescope_probe::identify(dev, &drivescope_probe::Roots::default()).unwrap();
    DeviceName::of(&id).unwrap().confirmation()
}

#[test]
fn steady_shows_its_rounds_converging_and_ends_on_the_normal_screen() {
    if skip_without_root("serves a FUSE lab disk on a loop device") {
        return;
    }
    require_root();
    assert!(
        std::process::Command::new("tmux")
            .arg("-V")
            .output()
            .is_ok(),
        "this test drives the live view in tmux (Debian: apt-get install tmux)"
    );
    let _one = common::lab::one_at_a_time();
    let text = "name='live-steady'\nsize='32M'\nzones={rates_mb_s=[60]}\noverhead='20us'\n\
                flash={page='4K',block='256K',spare=0.12}\n";
    let m = Model::from_toml_str(text, "test").unwrap();
    let dev = common::lab::start(&m);
    let target = dev.target().display().to_string();
    let shell = format!(
        "{BIN} steady {target} --destructive --confirm '{}' --matrix tracked --round-time 500ms \
         --no-store; echo EXIT=$?; sleep 600",
        confirmation(dev.target()).replace('\'', r"'\''")
    );
    let tmux = Tmux::session("live-steady", &shell, 100, 34);
    // A round finished and not yet steady: the panel has it, the phase line says where the run is.
    // (A run that ends first shows its pane in the failure below.)
    let live = tmux.wait_for(Duration::from_secs(60), |p| {
        (p.contains("    round  1") && p.contains("not steady yet: ")) || p.contains("EXIT=")
    });
    assert!(tmux.alternate(), "{live}");
    assert!(
        live.contains(&format!("drivescope steady {target}")),
        "{live}"
    );
    assert!(live.contains("convergence of RND4K write IOPS"), "{live}");
    assert!(live.contains("of at most 25 rounds finished"), "{live}");
    assert!(live.contains("MB/s of the test that runs now"), "{live}");
    assert!(
        live.contains("RND4K Q32T1 write · round ") && live.contains(" of at most 25, cell 1 of 1"),
        "{live}"
    );
    let done = tmux.wait_for(Duration::from_secs(120), |p| p.contains("EXIT="));
    assert!(!tmux.alternate(), "{done}");
    assert!(done.contains("EXIT=0"), "{done}");
    assert!(!done.contains("MB/s of the test that runs now"), "{done}");
    assert!(done.contains("steady state (iops test) of"), "{done}");
}
