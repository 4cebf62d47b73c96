//! StableHLO and other MLIR text is not HLO module text: `jax.jit(f).lower(...).as_text()`
//! and `.compiler_ir()` give MLIR (`module @jit_f attributes {...} {`), which XLA has not
//! compiled, scheduled or laid out yet. Rather than a diagnostic for each of its lines, the
//! reader answers it with one line that says what to give instead.

use super::diagnostic::{Diagnostic, DiagnosticKind};

/// What [`Module::parse`](super::super::Module::parse) says of MLIR text, on its first line.
///
/// ```
/// use xlayout::hlo::{Module, NOT_HLO};
/// assert_eq!(Module::parse("module @m {\n}\n").diagnostics[0].message, NOT_HLO);
/// ```
pub const NOT_HLO: &str = "this is MLIR (StableHLO, what `lower(...).as_text()` gives), not HLO \
module text: give the compiled module, `jax.jit(f).lower(...).compile().as_text()`, or the \
`*after_optimizations.txt` that XLA_FLAGS=--xla_dump_to=DIR writes";

/// The one diagnostic for MLIR text, if `text` is MLIR: its first line that is not blank or
/// a `//` comment opens an MLIR module or function, defines an MLIR attribute alias
/// (`#loc = ...`), or is a StableHLO or MHLO operation. HLO text never starts so.
///
/// ```
/// use xlayout::hlo::Module;
/// let m = Module::parse("module @jit_f attributes {mhlo.num_partitions = 1 : i32} {\n  func.func public @main(%arg0: tensor<8xf32>) -> tensor<8xf32> {\n");
/// assert_eq!(m.diagnostics.len(), 1);
/// assert!(m.diagnostics[0].message.contains("compile().as_text()"));
/// assert!(Module::parse("HloModule m\n%p = f32[2]{0} parameter(0)\n").diagnostics.is_empty());
/// ```
pub(crate) fn not_hlo(text: &str) -> Option<Diagnostic> {
    let (n, line) = text
        .lines()
        .enumerate()
        .map(|(n, l)| (n + 1, l.trim()))
        .find(|(_, l)| !l.is_empty() && !l.starts_with("//"))?;
    let opens = ["module @", "module {", "module attributes", "builtin.module", "func.func", "#"];
    let mlir = opens.iter().any(|o| line.starts_with(o))
        || (line.starts_with('%') && (line.contains("= stablehlo.") || line.contains("= mhlo.")));
    mlir.then(|| Diagnostic::new(n, DiagnosticKind::UnreadableLine, NOT_HLO))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn mlir_openings_and_hlo_ones() {
        for text in [
            "\n// comment\nmodule @jit_f {\n",
            "#loc = loc(unknown)\nmodule {\n",
            "%0 = stablehlo.add %a, %b : tensor<2xf32>\n",
            "func.func @main() {\n",
        ] {
            assert!(not_hlo(text).is_some(), "{text}");
        }
        assert_eq!(not_hlo("\n\nmodule @m {\n").unwrap().line, 3);
        for text in
            ["", "HloModule m\n", "%p = f32[2]{0} parameter(0)\n", "ENTRY %e {\n", "modules = 3\n"]
        {
            assert!(not_hlo(text).is_none(), "{text}");
        }
    }
}
