//! Fuzz target `draw`: `checks::draw::draw_case` on every input (the properties are documented there).
#![no_main]

#[path = "../../tests/checks/mod.rs"]
mod checks;

libfuzzer_sys::fuzz_target!(|data: &[u8]| {
    let _ = checks::draw::draw_case(data);
});
