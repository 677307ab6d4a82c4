//! Sets DRIVESCOPE_GIT_COMMIT for `drivescope --version`. Cargo runs this again when HEAD,
//! the branch, the index or the binary's sources change; `-dirty` is as of that run.

#[path = "build/git_commit.rs"]
mod git_commit;

fn main() {
    let dir = std::path::PathBuf::from(std::env::var_os("CARGO_MANIFEST_DIR").unwrap());
    let d = git_commit::describe("git", &dir);
    println!("cargo:rustc-env=DRIVESCOPE_GIT_COMMIT={}", d.commit);
    println!("cargo:rerun-if-changed=build.rs");
    println!("cargo:rerun-if-changed=build/git_commit.rs");
    // The binary's own sources, so that editing them is seen as -dirty.
    println!("cargo:rerun-if-changed=src");
    for path in d.watch {
        println!("cargo:rerun-if-changed={}", path.display());
    }
}
