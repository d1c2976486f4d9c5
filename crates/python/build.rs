//! Empty: it exists so that cargo reads this package's `[build-dependencies]`, which
//! align the host crates' features with the workspace build (see Cargo.toml).
fn main() {}
