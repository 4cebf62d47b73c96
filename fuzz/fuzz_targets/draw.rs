//! Fuzz target `draw`: `checks::draw::draw_case` on every input (the properties are documented there).
#![no_main]

use xlayout_test_support::checks;

libfuzzer_sys::fuzz_target!(|data: &[u8]| {
    let _ = checks::draw::draw_case(data);
});
