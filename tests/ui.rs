//! Compile errors of `layout!` and `ffi::handler!`, as the user sees them: one case per error
//! class, each with its reviewed `.stderr` in tests/ui/ (and tests/ui_ffi/, with the `ffi`
//! feature).

#[test]
fn compile_errors() {
    let t = trybuild::TestCases::new();
    t.compile_fail("tests/ui/*.rs");
}

#[cfg(feature = "ffi")]
#[test]
fn ffi_handler_compile_errors() {
    let t = trybuild::TestCases::new();
    t.compile_fail("tests/ui_ffi/*.rs");
}
