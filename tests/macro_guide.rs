//! The guide's examples as a user's crate would write them: each ```` ``` ```` block of
//! `src/guide.rs` (but the `compile_fail` ones, which doctests check) becomes a test of a
//! fresh crate whose only dependency is `xlayout`, built on its own. A doctest could not tell:
//! it links every dev-dependency of xlayout (`half` among them), which a user's crate does
//! not have.

use std::path::Path;
use std::process::Command;

/// The code blocks of a doc comment's text, `# ` lines shown, `compile_fail` blocks left out.
fn examples(doc: &str) -> Vec<String> {
    let mut out = Vec::new();
    // Inside a block: `Some(kept)`, with the code of a block that is kept.
    let mut block: Option<Option<String>> = None;
    for line in doc.lines() {
        let line = line.trim_start().strip_prefix("//!").unwrap_or(line);
        let line = line.strip_prefix(' ').unwrap_or(line);
        match (&mut block, line.strip_prefix("```")) {
            (None, Some(info)) => block = Some((!info.contains("compile_fail")).then(String::new)),
            (Some(_), Some(_)) => out.extend(block.take().flatten()),
            (Some(Some(code)), None) => {
                *code += line.strip_prefix("# ").unwrap_or(if line == "#" { "" } else { line });
                code.push('\n');
            }
            _ => {}
        }
    }
    out
}

/// One test function per example; an example that ends in `Ok::<...>(())` runs in a closure
/// whose result is unwrapped, as rustdoc runs it.
fn test_crate_source(examples: &[String]) -> String {
    let mut src = String::from("//! The examples of xlayout's guide.\n#![allow(unused)]\n");
    for (k, code) in examples.iter().enumerate() {
        let body = if code.trim_end().ends_with("(())") {
            format!("let run = || {{\n{code}}};\nrun().unwrap();\n")
        } else {
            code.clone()
        };
        src += &format!("\n#[test]\nfn example_{k}() {{\n{body}}}\n");
    }
    src
}

#[test]
fn guide_examples_build_and_run_in_a_crate_that_depends_only_on_xlayout() {
    let root = env!("CARGO_MANIFEST_DIR");
    let examples = examples(include_str!("../src/guide.rs"));
    assert_eq!(examples.len(), 6, "{examples:#?}");
    let dir = Path::new(root).join("target/guide-user");
    std::fs::create_dir_all(dir.join("src")).unwrap();
    let manifest = format!(
        "[package]\nname = \"xlayout-guide-user\"\nversion = \"0.0.0\"\nedition = \"2021\"\n\
         publish = false\n\n[workspace]\n\n[dependencies]\n\
         xlayout = {{ path = {root:?}, default-features = false, features = [\"std\"] }}\n"
    );
    std::fs::write(dir.join("Cargo.toml"), manifest).unwrap();
    std::fs::write(dir.join("src/lib.rs"), test_crate_source(&examples)).unwrap();
    let cargo = std::env::var("CARGO").unwrap_or_else(|_| String::from("cargo"));
    let out = Command::new(cargo)
        .current_dir(&dir)
        .args(["test", "--offline", "--lib"])
        // The dependencies the no_std user crate builds too, without xlayout's features.
        .args(["--target-dir", &format!("{root}/target/no-std-user")])
        .output()
        .unwrap();
    let stdout = String::from_utf8_lossy(&out.stdout);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "{stderr}\n{stdout}");
    assert!(stdout.contains("test result: ok. 6 passed"), "{stdout}");
}
