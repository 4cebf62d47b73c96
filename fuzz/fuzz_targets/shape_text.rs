//! Fuzz target `shape_text`: `checks::shape_text` on every input (the properties are documented there).
#![no_main]

use xlayout_test_support::checks;

libfuzzer_sys::fuzz_target!(|data: &[u8]| checks::shape_text(data));
