//! Compile errors of `layout!`, as the user sees them: one case per error class, each with
//! its reviewed `.stderr` in tests/ui/.

#[test]
fn compile_errors() {
    let t = trybuild::TestCases::new();
    t.compile_fail("tests/ui/*.rs");
}
