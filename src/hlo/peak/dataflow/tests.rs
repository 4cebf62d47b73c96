//! The dataflow on small modules written by hand, a rule of XLA's at a time: what defines
//! the value at each position, as `HloDataflowAnalysis` in SSA form says it (the rules:
//! `/work/shared/spec/xla-allocation.md` §2.2; the while's three phis per index as XLA's own
//! `buffer_assignment_values.txt` of `tests/data/hlo/jax_cpu/fori_loop_carry` lists them:
//! `while.1{1} (phi)`, `arg_tuple.6{1} (phi)`, `arg_tuple.5{1} (phi)`, and `a_0_` at every
//! position of the element the body passes through).

use super::super::schedule::Schedule;
use super::*;
use crate::hlo::Module;

/// What the value at a position is: the instruction that defines it, the shape index there,
/// and whether it is a phi.
type Value = (String, Vec<u32>, bool);

/// The dataflow of module `text`, and a reader of the value at `instruction{index}`.
fn values(text: &str, check: impl FnOnce(&dyn Fn(&str, &[u64]) -> Option<Value>)) {
    let m = Module::parse(text);
    assert!(m.diagnostics.is_empty(), "{:?}", m.diagnostics);
    let a = Analysis::new(&m);
    let s = Schedule::new(&m, m.entry.unwrap());
    let (mut notes, mut embedded) = (Vec::new(), Vec::new());
    let d = Dataflow::new(&a, &s, &mut notes, &mut embedded);
    assert!(notes.is_empty() && embedded.is_empty(), "{notes:?} {embedded:?}");
    let value = |name: &str, index: &[u64]| {
        let i = m.instruction_id(name).unwrap_or_else(|| panic!("no instruction {name}"));
        let node = d.tree(i).at(index)?;
        let flow = d.values[d.value(i, node)?];
        let tree = d.tree(flow.instruction);
        Some((m.instructions[flow.instruction].name.to_string(), tree.index(flow.node), flow.phi))
    };
    check(&value);
}

/// A value defined by `name` at the whole of its shape.
fn defined(name: &str) -> Option<Value> {
    Some((name.to_string(), Vec::new(), false))
}

/// The phi of `name` at `index`.
fn phi(name: &str, index: &[u32]) -> Option<Value> {
    Some((name.to_string(), index.to_vec(), true))
}

/// A loop whose body updates the counter and `x` and passes `k` through unchanged.
const WHILE: &str = "HloModule w, is_scheduled=true

%body (p: (s32[], f32[4], f32[8])) -> (s32[], f32[4], f32[8]) {
  %p = (s32[], f32[4]{0}, f32[8]{0}) parameter(0)
  %i = s32[] get-tuple-element(%p), index=0
  %x = f32[4]{0} get-tuple-element(%p), index=1
  %k = f32[8]{0} get-tuple-element(%p), index=2
  %one = s32[] constant(1)
  %i1 = s32[] add(%i, %one)
  %x1 = f32[4]{0} negate(%x)
  ROOT %r = (s32[], f32[4]{0}, f32[8]{0}) tuple(%i1, %x1, %k)
}

%cond (q: (s32[], f32[4], f32[8])) -> pred[] {
  %q = (s32[], f32[4]{0}, f32[8]{0}) parameter(0)
  %j = s32[] get-tuple-element(%q), index=0
  %n = s32[] constant(10)
  ROOT %lt = pred[] compare(%j, %n), direction=LT
}

ENTRY %main (a: f32[4], b: f32[8]) -> (f32[4], f32[8]) {
  %a = f32[4]{0} parameter(0)
  %b = f32[8]{0} parameter(1)
  %zero = s32[] constant(0)
  %init = (s32[], f32[4]{0}, f32[8]{0}) tuple(%zero, %a, %b)
  %w = (s32[], f32[4]{0}, f32[8]{0}) while(%init), condition=%cond, body=%body
  %wx = f32[4]{0} get-tuple-element(%w), index=1
  %wk = f32[8]{0} get-tuple-element(%w), index=2
  ROOT %out = (f32[4]{0}, f32[8]{0}) tuple(%wx, %wk)
}
";

/// A `while` defines no value; at every index its result, its body's parameter and its
/// condition's parameter each get a phi of {the init value, the body root's value}. Where
/// the body passes an element through, the body root's value there is the phi itself:
/// without the self-reference one input is left, and every phi of that index is the init
/// value (`PhiGraph::Optimize`). Elsewhere two values meet and the three phis stay.
#[test]
fn a_while_merges_what_its_body_changes_and_passes_the_rest_through() {
    values(WHILE, |value| {
        // Passed through: the init value `b` at every position of index 2.
        for (at, index) in [
            ("w", &[2][..]),
            ("p", &[2]),
            ("q", &[2]),
            ("k", &[]),
            ("r", &[2]),
            ("wk", &[]),
            ("out", &[1]),
            ("init", &[2]),
        ] {
            assert_eq!(value(at, index), defined("b"), "{at}{index:?}");
        }
        // Changed by the body: a phi at each of the three, the body's reads and the
        // while's readers see it.
        for (at, index, of) in [
            ("w", &[1][..], "w"),
            ("wx", &[], "w"),
            ("out", &[0], "w"),
            ("p", &[1], "p"),
            ("x", &[], "p"),
            ("q", &[1], "q"),
        ] {
            assert_eq!(value(at, index), phi(of, &[1]), "{at}{index:?}");
        }
        for (at, of) in [("w", "w"), ("p", "p"), ("q", "q")] {
            assert_eq!(value(at, &[0]), phi(of, &[0]), "{at}{{0}}");
            // The index tables of `init` and `r` meet too.
            assert_eq!(value(at, &[]), phi(of, &[]), "{at}{{}}");
        }
        assert_eq!(value("i", &[]), phi("p", &[0]));
        assert_eq!(value("j", &[]), phi("q", &[0]));
        // The body root's elements are the values of its operands; the tuples define their
        // index tables only.
        assert_eq!(value("r", &[1]), defined("x1"));
        assert_eq!(value("r", &[0]), defined("i1"));
        assert_eq!(value("r", &[]), defined("r"));
        assert_eq!(value("init", &[]), defined("init"));
        assert_eq!(value("init", &[1]), defined("a"));
        assert_eq!(value("out", &[]), defined("out"));
    });
}

/// Two conditionals: one whose branches return a new value and the operand, and one whose
/// branches both return their parameter, which both are the same operand `a`.
const CONDITIONAL: &str = "HloModule c, is_scheduled=true

%negates (x0: f32[4]) -> f32[4] {
  %x0 = f32[4]{0} parameter(0)
  ROOT %n0 = f32[4]{0} negate(%x0)
}

%passes (x1: f32[4]) -> f32[4] {
  ROOT %x1 = f32[4]{0} parameter(0)
}

%passes.1 (x2: f32[4]) -> f32[4] {
  ROOT %x2 = f32[4]{0} parameter(0)
}

%passes.2 (x3: f32[4]) -> f32[4] {
  ROOT %x3 = f32[4]{0} parameter(0)
}

ENTRY %main (s: s32[], a: f32[4]) -> (f32[4], f32[4]) {
  %s = s32[] parameter(0)
  %a = f32[4]{0} parameter(1)
  %c1 = f32[4]{0} conditional(%s, %a, %a), branch_computations={%negates, %passes}
  %c2 = f32[4]{0} conditional(%s, %a, %a), branch_computations={%passes.1, %passes.2}
  ROOT %out = (f32[4]{0}, f32[4]{0}) tuple(%c1, %c2)
}
";

/// A `conditional` defines no value; at every index it gets a phi over its branches' roots,
/// and branch `b`'s parameter is the conditional's operand `b + 1`. Where the branches'
/// roots are one value the phi is that value.
#[test]
fn a_conditional_merges_its_branches_roots() {
    values(CONDITIONAL, |value| {
        assert_eq!(value("x0", &[]), defined("a"));
        assert_eq!(value("x1", &[]), defined("a"));
        assert_eq!(value("n0", &[]), defined("n0"));
        // `n0` or `a`: a phi.
        assert_eq!(value("c1", &[]), phi("c1", &[]));
        assert_eq!(value("out", &[0]), phi("c1", &[]));
        // `a` or `a`: `a`.
        assert_eq!(value("c2", &[]), defined("a"));
        assert_eq!(value("out", &[1]), defined("a"));
    });
}

/// Tuples, a nested one, read back through `get-tuple-element`s, a copy of a tuple, a
/// bitcast and a call.
const TUPLES: &str = "HloModule t, is_scheduled=true

%callee (y: f32[8]) -> (f32[8], f32[8]) {
  %y = f32[8]{0} parameter(0)
  %e = f32[8]{0} exponential(%y)
  ROOT %pair = (f32[8]{0}, f32[8]{0}) tuple(%y, %e)
}

ENTRY %main (a: f32[4], b: f32[8]) -> f32[8] {
  %a = f32[4]{0} parameter(0)
  %b = f32[8]{0} parameter(1)
  %t = (f32[4]{0}, f32[8]{0}) tuple(%a, %b)
  %nested = ((f32[4]{0}, f32[8]{0}), f32[4]{0}) tuple(%t, %a)
  %g = (f32[4]{0}, f32[8]{0}) get-tuple-element(%nested), index=0
  %h = f32[8]{0} get-tuple-element(%g), index=1
  %c = (f32[4]{0}, f32[8]{0}) copy(%t)
  %bc = f32[2,4]{1,0} bitcast(%h)
  %call = (f32[8]{0}, f32[8]{0}) call(%h), to_apply=%callee
  %ce = f32[8]{0} get-tuple-element(%call), index=1
  ROOT %n = f32[8]{0} negate(%ce)
}
";

/// A tuple defines its index table, its elements are its operands' values; a
/// `get-tuple-element` is the subtree it selects; a copy of a tuple defines a new index
/// table over the same elements; a bitcast is its operand's value; a call is its callee's
/// root, whose parameter is the call's operand.
#[test]
fn a_tuple_passes_its_elements_through_get_tuple_element() {
    values(TUPLES, |value| {
        assert_eq!(value("t", &[]), defined("t"));
        assert_eq!(value("t", &[0]), defined("a"));
        assert_eq!(value("t", &[1]), defined("b"));
        assert_eq!(value("nested", &[]), defined("nested"));
        assert_eq!(value("nested", &[0]), defined("t"));
        assert_eq!(value("nested", &[0, 1]), defined("b"));
        assert_eq!(value("nested", &[1]), defined("a"));
        assert_eq!(value("g", &[]), defined("t"));
        assert_eq!(value("g", &[1]), defined("b"));
        assert_eq!(value("h", &[]), defined("b"));
        assert_eq!(value("c", &[]), defined("c"));
        assert_eq!(value("c", &[0]), defined("a"));
        assert_eq!(value("c", &[1]), defined("b"));
        assert_eq!(value("bc", &[]), defined("b"));
        assert_eq!(value("y", &[]), defined("b"));
        assert_eq!(value("call", &[]), defined("pair"));
        assert_eq!(value("call", &[0]), defined("b"));
        assert_eq!(value("call", &[1]), defined("e"));
        assert_eq!(value("ce", &[]), defined("e"));
        assert_eq!(value("n", &[]), defined("n"));
    });
}
