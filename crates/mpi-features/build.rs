//! Empty: the build dependencies are listed for their features only (see Cargo.toml).
fn main() {}
