//! Fuzz target `relayout_overlap`: `checks::buffers::overlap_case` on every input (the properties are documented there).
#![no_main]

use xlayout_test_support::checks;

libfuzzer_sys::fuzz_target!(|data: &[u8]| {
    let _ = checks::buffers::overlap_case(data);
});
