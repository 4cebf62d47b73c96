//! Writes one of the hostile inputs `tests/hostile.rs` measures, at any size, to standard
//! output: the inputs BENCHMARKS.md times the release build on (generated in a scratch
//! directory and deleted after, as they are tens of megabytes).
//!
//! ```sh
//! cargo run --release --example hostile_input -- gte-chain 20 > /tmp/gte-chain.hlo
//! ```
//!
//! The first argument names the class (`hostile_inputs::Class::name`), the second the size
//! in MB (10^6 bytes).

use std::io::Write;

use xlayout_test_support::hostile::{self as hostile_inputs, Class};

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let (Some(class), Some(mb)) = (
        args.first().and_then(|c| Class::parse(c)),
        args.get(1).and_then(|m| m.parse::<f64>().ok()),
    ) else {
        let names: Vec<&str> = Class::ALL.iter().map(|c| c.name()).collect();
        eprintln!("usage: hostile_input CLASS MB\nclasses: {}", names.join(", "));
        std::process::exit(2);
    };
    let bytes = hostile_inputs::generate(class, (mb * 1e6) as usize);
    std::io::stdout().lock().write_all(&bytes).expect("standard output");
}
