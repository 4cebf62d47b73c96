//! The facade, the macro and the runtime are one release: each pins the others with an exact
//! `=` requirement on this version, so cargo refuses to build a macro from one release with a
//! runtime from another (the macro computes constants with its copy of layout-runtime; the
//! facade's copy defines the traits those constants implement).

use serde_json::Value;

#[test]
fn crates_pin_each_other_exactly() {
    let cargo = std::env::var("CARGO").unwrap_or_else(|_| String::from("cargo"));
    let out = std::process::Command::new(cargo)
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .args(["metadata", "--format-version", "1", "--no-deps", "--offline"])
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let metadata: Value = serde_json::from_slice(&out.stdout).unwrap();
    let exact = format!("={}", env!("CARGO_PKG_VERSION"));
    let mut pins = Vec::new();
    for package in metadata["packages"].as_array().unwrap() {
        let name = package["name"].as_str().unwrap();
        if !["xlayout", "layout-macros", "layout-runtime"].contains(&name) {
            continue;
        }
        assert_eq!(package["version"], env!("CARGO_PKG_VERSION"), "{name}");
        for dep in package["dependencies"].as_array().unwrap() {
            let dep_name = dep["name"].as_str().unwrap();
            if dep_name.starts_with("layout-") && dep["kind"].is_null() {
                assert_eq!(dep["req"].as_str(), Some(exact.as_str()), "{name} -> {dep_name}");
                pins.push(format!("{name} -> {dep_name}"));
            }
        }
    }
    pins.sort();
    assert_eq!(
        pins,
        [
            "layout-macros -> layout-runtime",
            "xlayout -> layout-macros",
            "xlayout -> layout-runtime"
        ]
    );
}

/// A crate that depends on `xlayout` with its default features builds the library only: the
/// command's dependencies (its argument parser and writers) live in `xlayout-cli`.
#[test]
fn the_library_builds_none_of_the_command_s_dependencies() {
    let cargo = std::env::var("CARGO").unwrap_or_else(|_| String::from("cargo"));
    let tree = |package: &str| {
        let out = std::process::Command::new(&cargo)
            .current_dir(env!("CARGO_MANIFEST_DIR"))
            .args(["tree", "--offline", "-e", "normal", "--prefix", "none", "-p", package])
            .output()
            .unwrap();
        assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
        let text = String::from_utf8(out.stdout).unwrap();
        let mut names: Vec<String> =
            text.lines().filter_map(|l| l.split(' ').next()).map(str::to_owned).collect();
        names.sort();
        names.dedup();
        names
    };
    let command_only = ["clap", "serde_json"];
    let library = tree("xlayout");
    assert!(library.contains(&String::from("layout-runtime")), "{library:?}");
    for name in command_only {
        assert!(!library.contains(&String::from(name)), "the library builds {name}: {library:?}");
    }
    // The command does use them: the check above would pass vacuously if `cargo tree`
    // printed nothing useful.
    let command = tree("xlayout-cli");
    for name in command_only {
        assert!(command.contains(&String::from(name)), "{command:?}");
    }
}
