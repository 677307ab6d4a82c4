//! Small things a user reads, as the command says them: an OS error said once, not twice; a
//! sweep's headline names the region it ran over (`--size`), not the whole file or device.

use common::scratch::run;
use common::scratch::TestDir;
use drivescope_testkit as common;

#[test]
fn an_os_error_is_said_once_and_names_the_directory() {
    // /proc takes no new files: creating the test file fails with an OS error.
    let (code, out, err) = run(&["bench", "/proc", "--no-store"]);
    assert_eq!(code, 1, "{err}");
    assert_eq!(out, "");
    assert_eq!(err.lines().count(), 1, "{err}");
    assert_eq!(err.matches("os error").count(), 1, "{err}");
    assert!(
        err.starts_with("drivescope: cannot create a test file in /proc: "),
        "{err}"
    );
}

#[test]
fn a_sweep_names_the_region_it_ran_over() {
    let d = TestDir::new("pw", "sweep");
    let f = d.file("disk.img");
    std::fs::write(&f, vec![0u8; 8 << 20]).unwrap();
    let (code, out, err) = run(&[
        "sweep",
        &f,
        "--size",
        "1M",
        "--qd",
        "1",
        "--threads",
        "1",
        "--duration",
        "50ms",
        "--no-store",
        "--no-live",
    ]);
    assert_eq!(code, 0, "{err}");
    let head = out.lines().next().unwrap();
    assert!(head.contains("(1.0 MiB, "), "{head}");
    assert!(!head.contains("8.0 MiB"), "{head}");
}
