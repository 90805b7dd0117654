//! Records whether this build is profile-guided (`make build` passes
//! `-Cprofile-use`, `scripts/pgo.sh`), so that a benchmark says which
//! build it measured (`satcp_core::BUILD`).
fn main() {
    println!("cargo:rerun-if-env-changed=CARGO_ENCODED_RUSTFLAGS");
    let flags = std::env::var("CARGO_ENCODED_RUSTFLAGS").unwrap_or_default();
    let kind = if flags.contains("profile-use") {
        "profile-guided"
    } else if flags.contains("profile-generate") {
        "instrumented"
    } else {
        "plain"
    };
    println!("cargo:rustc-env=SATCP_BUILD_KIND={kind}");
}
