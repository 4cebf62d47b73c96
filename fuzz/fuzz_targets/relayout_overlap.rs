//! Fuzz target `relayout_overlap`: `checks::buffers::overlap_case` on every input (the properties are documented there).
#![no_main]

#[path = "../../tests/checks/mod.rs"]
mod checks;

libfuzzer_sys::fuzz_target!(|data: &[u8]| {
    let _ = checks::buffers::overlap_case(data);
});
