//! The crate documentation is the README (`src/lib.rs`), whose pictures are files under
//! `docs/`: paths that GitHub resolves next to the README but rustdoc and docs.rs do not. This
//! writes the README for rustdoc with each picture inlined as a `data:` URI, so the crate's
//! front page shows them wherever it is built. (Twenty lines of base64 here rather than a
//! dependency that every build of xlayout would compile.)
//!
//! It also finds the Chromium the browser tests run (tests/browser/chromium.rs), so that a
//! machine without one reports those tests `ignored`, with the reason, rather than `ok`.

use std::path::Path;

#[path = "tests/browser/chromium.rs"]
mod chromium;

/// Standard base64 (RFC 4648, with padding).
fn base64(bytes: &[u8]) -> String {
    const ALPHABET: &[u8; 64] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
    let mut out = String::with_capacity(bytes.len().div_ceil(3) * 4);
    for chunk in bytes.chunks(3) {
        let b = [chunk[0], *chunk.get(1).unwrap_or(&0), *chunk.get(2).unwrap_or(&0)];
        let n = u32::from(b[0]) << 16 | u32::from(b[1]) << 8 | u32::from(b[2]);
        for k in 0..4 {
            let digit =
                if k <= chunk.len() { ALPHABET[(n >> (18 - 6 * k) & 63) as usize] } else { b'=' };
            out.push(char::from(digit));
        }
    }
    out
}

/// Tells the browser tests (tests/browser.rs) which Chromium to run, or that there is none.
/// The build script runs again when `XLAYOUT_CHROMIUM` changes, when the browser found is
/// changed or removed, and, while none is found, when `CI` changes (under CI the tests must
/// fail rather than be ignored). Not when `PATH` changes: a virtual environment's `PATH`
/// would rebuild the library and everything above it at each activation; the reason the
/// ignored tests give says how to look again.
fn chromium() {
    println!("cargo:rustc-check-cfg=cfg(xlayout_no_chromium)");
    println!("cargo:rerun-if-env-changed=XLAYOUT_CHROMIUM");
    match chromium::find(|name| std::env::var_os(name), Path::is_file) {
        chromium::Chromium::Found(path) => {
            // A name that is not a file (a command left to PATH) would make cargo run the
            // script on every build: watch only a file.
            if path.is_file() {
                println!("cargo:rerun-if-changed={}", path.display());
            }
            println!("cargo:rustc-env=XLAYOUT_TEST_CHROMIUM={}", path.display());
        }
        chromium::Chromium::Ignore => {
            println!("cargo:rerun-if-env-changed=CI");
            println!("cargo:rustc-cfg=xlayout_no_chromium");
        }
        chromium::Chromium::Fail => println!("cargo:rerun-if-env-changed=CI"),
    }
}

fn main() {
    chromium();
    println!("cargo:rerun-if-changed=README.md");
    let readme = std::fs::read_to_string("README.md").expect("README.md");
    let mut doc = String::with_capacity(readme.len());
    for line in readme.lines() {
        let picture = line.strip_prefix("![").and_then(|l| l.rsplit_once("](docs/"));
        match picture {
            Some((alt, file)) => {
                let file = file.trim_end_matches(')');
                let path = Path::new("docs").join(file);
                println!("cargo:rerun-if-changed={}", path.display());
                let bytes = std::fs::read(&path).expect("a picture the README shows");
                let kind = if file.ends_with(".svg") { "svg+xml" } else { "png" };
                doc += &format!("![{alt}](data:image/{kind};base64,{})\n", base64(&bytes));
            }
            None => {
                doc += line;
                doc.push('\n');
            }
        }
    }
    let out = std::env::var("OUT_DIR").expect("cargo sets OUT_DIR");
    std::fs::write(Path::new(&out).join("README.md"), doc).expect("OUT_DIR is writable");
}
