//! Fuzz target `hlo_repeated`: `checks::hlo::hlo_repeated` on every input: a head, a piece
//! and a tail from the fuzzer's bytes, the piece repeated to tens of kilobytes, so that a
//! cost that grows faster than the input shows (the properties are documented there).
#![no_main]

use xlayout_test_support::checks;

libfuzzer_sys::fuzz_target!(|data: &[u8]| {
    let _ = checks::hlo::hlo_repeated(data);
});
