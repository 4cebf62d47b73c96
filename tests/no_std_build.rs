//! Builds and tests tests/no_std_user on its own, in its own target directory, so that its
//! xlayout is the one it asks for: `default-features = false`, no `alloc`, renamed to `xl`.
//! (Inside `cargo test --workspace` other packages turn `alloc` on for everyone.)

use std::process::Command;

#[test]
fn no_std_user_without_alloc_builds_and_passes() {
    let cargo = std::env::var("CARGO").unwrap_or_else(|_| String::from("cargo"));
    let root = env!("CARGO_MANIFEST_DIR");
    let out = Command::new(cargo)
        .current_dir(root)
        .args(["test", "--offline", "-p", "xlayout-no-std-user", "--lib"])
        .args(["--target-dir", &format!("{root}/target/no-std-user")])
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(out.status.success(), "{stderr}\n{stdout}");
    assert!(stdout.contains("test tests::generated_code_works_without_alloc ... ok"), "{stdout}");
    // The xlayout it links was built without alloc: in the feature tree, the target-side
    // layout-runtime (xlayout's own dependency, not the macro's host copy) has no features.
    let tree = Command::new(std::env::var("CARGO").unwrap_or_else(|_| String::from("cargo")))
        .current_dir(root)
        .args(["tree", "--offline", "-p", "xlayout-no-std-user", "-e", "normal"])
        .args(["-f", "{p} [{f}]", "--prefix", "depth"])
        .output()
        .unwrap();
    let tree = String::from_utf8_lossy(&tree.stdout);
    let line = |depth: &str, name: &str| {
        tree.lines().find(|l| l.starts_with(depth) && l.contains(name)).map(|l| l.to_string())
    };
    let runtime =
        line("2layout-runtime", "layout-runtime").expect("xlayout depends on layout-runtime");
    assert!(runtime.ends_with("[]"), "layout-runtime with features: {runtime}\n{tree}");
    let facade = line("1xlayout", "xlayout").expect("the user depends on xlayout");
    assert!(facade.ends_with("[]"), "xlayout with features: {facade}\n{tree}");
}
