//! The fuzz targets' properties (`tests/support/src/checks/`), bounded, on every `cargo test`: the seed
//! corpus the fuzz targets start from (`fuzz/seeds/`), then a fixed number of inputs from a
//! seeded generator: mutations of those seeds for the text targets, random bytes for the
//! structured ones. The fuzzer explores far more (README, Fuzzing); this keeps the properties
//! true between its runs.

use crate::support::checks;

use std::collections::HashMap;
use std::path::Path;

use checks::Reached;

/// How many cases reached each stage; printed, and checked against a floor.
#[derive(Default)]
struct Tally(HashMap<Reached, usize>);

impl Tally {
    fn add(&mut self, r: Reached) {
        *self.0.entry(r).or_default() += 1;
    }

    /// Fails when fewer than `min` cases reached `stage`: the generator lost its reach.
    fn at_least(&self, stage: Reached, min: usize) {
        self.at_least_in(&[stage], min);
    }

    /// Fails when fewer than `min` cases reached one of `stages`.
    fn at_least_in(&self, stages: &[Reached], min: usize) {
        eprintln!("{:?}", self.0);
        let n: usize = stages.iter().map(|s| self.0.get(s).copied().unwrap_or(0)).sum();
        assert!(n >= min, "{n} cases reached {stages:?}, fewer than {min}: {:?}", self.0);
    }
}

/// A small deterministic generator (SplitMix64): the same inputs on every run.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }

    fn below(&mut self, n: usize) -> usize {
        (self.next() % n as u64) as usize
    }

    fn bytes(&mut self, max: usize) -> Vec<u8> {
        let n = self.below(max + 1);
        (0..n).map(|_| self.next() as u8).collect()
    }
}

/// The committed seed files of one fuzz target.
fn seeds(target: &str) -> Vec<Vec<u8>> {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("fuzz/seeds").join(target);
    let mut files: Vec<_> = std::fs::read_dir(&dir)
        .unwrap_or_else(|e| panic!("{}: {e}", dir.display()))
        .map(|e| e.unwrap().path())
        .collect();
    files.sort();
    assert!(!files.is_empty(), "no seeds in {}", dir.display());
    files.iter().map(|f| std::fs::read(f).unwrap()).collect()
}

/// Pieces of the grammar and of hostile input that mutations insert.
const TOKENS: &[&str] = &[
    "(",
    ")",
    "[",
    "]",
    "{",
    "}",
    "<",
    ">",
    ",",
    ":",
    "*",
    "?",
    "<=",
    "T(",
    "L(",
    "E(",
    "S(",
    "#(",
    "*(",
    "SC(",
    "M(",
    "b(",
    "f32",
    "s4",
    "u2",
    "pred",
    "token[]",
    "opaque[]",
    "0",
    "1",
    "2",
    "-1",
    "128",
    "4294967296",
    "9223372036854775807",
    "9223372036854775808",
    "/*",
    "*/",
    "//",
    "\n",
    " ",
    "é",
    "\u{fffd}",
    "/*index=5*/",
    "(*,2)",
    "(8,128)(2,1)",
];

/// One to four edits of `input`: insert one of `tokens`, delete a range of up to `span`
/// bytes, overwrite a byte (half the time one that is not ASCII), or repeat a range.
fn mutate(rng: &mut Rng, input: &[u8], tokens: &[&str], span: usize) -> Vec<u8> {
    let mut v = input.to_vec();
    for _ in 0..1 + rng.below(4) {
        let at = rng.below(v.len() + 1);
        match rng.below(4) {
            0 => {
                let t = tokens[rng.below(tokens.len())].as_bytes();
                v.splice(at..at, t.iter().copied());
            }
            1 => {
                let end = (at + rng.below(span)).min(v.len());
                v.drain(at..end);
            }
            2 if at < v.len() => v[at] = rng.next() as u8,
            _ => {
                let end = (at + rng.below(span)).min(v.len());
                let piece = v[at..end].to_vec();
                for _ in 0..rng.below(4) {
                    v.splice(at..at, piece.iter().copied());
                }
            }
        }
    }
    v
}

#[test]
fn shape_text_seeds_and_mutations() {
    let seeds = seeds("shape_text");
    seeds.iter().for_each(|s| checks::shape_text(s));
    let mut rng = Rng(1);
    for _ in 0..3000 {
        let seed = &seeds[rng.below(seeds.len())];
        let input = mutate(&mut rng, seed, TOKENS, 8);
        checks::shape_text(&input);
    }
    for _ in 0..500 {
        checks::shape_text(&rng.bytes(64));
    }
}

/// Every seed of `target` through `check`.
fn seeded(target: &str, check: fn(&[u8]) -> Reached) -> Tally {
    let mut tally = Tally::default();
    seeds(target).iter().for_each(|s| tally.add(check(s)));
    tally
}

/// `cases` random byte strings of up to `max_len` bytes through `check`.
fn generated(rng: &mut Rng, cases: usize, max_len: usize, check: fn(&[u8]) -> Reached) -> Tally {
    let mut tally = Tally::default();
    for _ in 0..cases {
        tally.add(check(&rng.bytes(max_len)));
    }
    tally
}

#[test]
fn plan_seeds_and_generated_arrays() {
    seeded("plan", checks::plan_case).at_least(Reached::Full, 200);
    let mut rng = Rng(2);
    let tally = generated(&mut rng, 600, 96, checks::plan_case);
    tally.at_least(Reached::Full, 200);
    tally.at_least(Reached::Sampled, 30);
    tally.at_least(Reached::Refused, 150);
    let seeds = seeds("plan");
    for _ in 0..300 {
        let seed = &seeds[rng.below(seeds.len())];
        checks::plan_case(&mutate(&mut rng, seed, TOKENS, 8));
    }
}

#[test]
fn relayout_seeds_and_generated_pairs() {
    // Compared on every path (Full), some of them also measuring (Measured).
    let compared = [Reached::Full, Reached::Measured];
    seeded("relayout", checks::relayout_case).at_least_in(&compared, 80);
    let tally = generated(&mut Rng(3), 400, 128, checks::relayout_case);
    tally.at_least_in(&compared, 250);
    // 19 of these 400 measure: a block must have more slices than three rounds of its
    // candidates take, which few buffers of at most 64 KiB do.
    tally.at_least(Reached::Measured, 15);
    tally.at_least(Reached::Refused, 10);
}

#[test]
fn peak_seeds() {
    seeded("peak", checks::hlo::peak_text).at_least(Reached::Full, 50);
    let mut rng = Rng(5);
    for _ in 0..100 {
        checks::hlo::peak_text(&rng.bytes(300));
    }
}

#[test]
fn draw_seeds_and_generated_shapes() {
    seeded("draw", checks::draw::draw_case).at_least(Reached::Full, 20);
    let tally = generated(&mut Rng(7), 600, 64, checks::draw::draw_case);
    tally.at_least(Reached::Full, 150);
    tally.at_least(Reached::Refused, 100);
}

#[test]
fn overlapping_buffers_generated() {
    let tally = generated(&mut Rng(8), 600, 128, checks::buffers::overlap_case);
    // Checked and run in place (Full), refused for a length or an overlap (Refused), at the
    // end of the address space (Sampled).
    tally.at_least(Reached::Full, 90);
    tally.at_least(Reached::Refused, 100);
    tally.at_least(Reached::Sampled, 10);
}

/// Pieces of out-of-memory report text that mutations insert.
const OOM_TOKENS: &[&str] = &[
    "\n",
    "  1. Size: 1.5G\n",
    "     Shape: f32[3,5]{1,0:T(2,2)}\n",
    "     Operator: op_name=\"x\"\n",
    "     Unpadded size: 60B\n",
    "     Extra memory due to padding: 192.00M (4.0x expansion)\n",
    "     XLA label: fusion.1 = f32[8,128]{1,0:T(8,128)} fusion(p.0)\n",
    "     Allocation type: HLO temp\n",
    "     ==========================\n",
];

#[test]
fn oom_seeds_and_mutations() {
    seeded("oom", checks::oom::oom_text).at_least(Reached::Full, 6);
    let seeds = seeds("oom");
    let mut rng = Rng(6);
    for _ in 0..300 {
        let seed = &seeds[rng.below(seeds.len())];
        checks::oom::oom_text(&mutate(&mut rng, seed, OOM_TOKENS, 40));
    }
}

/// Pieces of HLO module text that mutations insert.
const HLO_TOKENS: &[&str] = &[
    "\n",
    "}",
    "{",
    "ENTRY %main () -> f32[] {\n",
    "ROOT ",
    "%x = ",
    " parameter(0)",
    "(",
    ")",
    "f32[8,128]{1,0:T(8,128)}",
    "metadata={op_name=\"",
    "\"",
    "/*",
    "*/",
    "calls=",
    "while(",
    "condition=",
    "body=",
    "tuple(",
    "get-tuple-element(",
    "index=0",
    ", ",
];

#[test]
fn hlo_seeds_and_mutations() {
    seeded("hlo", checks::hlo::hlo_text).at_least(Reached::Full, 50);
    let seeds = seeds("hlo");
    let mut rng = Rng(4);
    let mut tally = Tally::default();
    for _ in 0..60 {
        let seed = &seeds[rng.below(seeds.len())];
        tally.add(checks::hlo::hlo_text(&mutate(&mut rng, seed, HLO_TOKENS, 64)));
    }
    tally.at_least(Reached::Full, 30);
    for _ in 0..200 {
        checks::hlo::hlo_text(&rng.bytes(200));
    }
}

/// Pieces of the hostile inputs of the second round, repeated by `hlo_repeated`: each once
/// cost more than linear work (the scaling test, `tests/hostile.rs`, holds them whole).
const REPEATED: &[(&[u8], &[u8], &[u8])] = &[
    (b"\"x\" ", b"", b"\n"),
    (b"/**/ ", b"%a = f32[1]{0} parameter(0) ", b"\n"),
    (b"  %b = f32[2]{0} negate(%a)\r", b"HloModule m, is_scheduled=true\rENTRY %e {\r  %a = f32[2]{0} parameter(0)\r", b"}\r"),
    (b"\xff\n", b"", b""),
    (b"  %p = f32[1]{0:S(3)} parameter(0)\n", b"HloModule m\nENTRY %e {\n", b"}\n"),
    (b", f32[1]{0:S(5)}", b"HloModule m\nENTRY %e {\n  ROOT %t = (f32[1]{0}", b") parameter(0)\n}\n"),
    (b", %b", b"HloModule m, is_scheduled=true\n%b (p: (f32[1])) -> (f32[1]) {\n  ROOT %p = (f32[1]{0}) parameter(0)\n}\nENTRY %e {\n  %i = s32[] parameter(0)\n  %a = (f32[1]{0}) parameter(1)\n  ROOT %c = (f32[1]{0}) conditional(%i, %a", b"), branch_computations={%b, %b}\n}\n"),
    (b"  %g = f32[1]{0} get-tuple-element(%t), index=99999\n", b"HloModule m, is_scheduled=true\nENTRY %e {\n  %t = (f32[1]{0}, f32[1]{0}) parameter(0)\n", b"  ROOT %r = f32[1]{0} parameter(1)\n}\n"),
    // A module on one line: statements end at the grammar, each walked once.
    (b" %b = f32[2]{0} negate(%a), metadata={op_name=\"x }\"} /* c */", b"HloModule m, is_scheduled=true ENTRY %e { %a = f32[2]{0} parameter(0)", b" }"),
    (b"} %c { %p = f32[] parameter(0) ", b"HloModule m %d { %q = f32[] parameter(0) ", b"}"),
];

/// Hostile pieces and lines of the seed modules, each repeated to tens of kilobytes: the
/// work of reading them grows no faster than they do (`checks::hlo::hlo_repeated`).
#[test]
fn hlo_repeated_pieces_cost_linear_work() {
    let mut tally = Tally::default();
    for (piece, head, tail) in REPEATED {
        let data = [*piece, head, tail].join(&0u8);
        tally.add(checks::hlo::hlo_repeated(&data));
    }
    // A run of a seed's lines repeated where it stands (a computation's instructions, a
    // computation, a header line).
    let seeds = seeds("hlo");
    let mut rng = Rng(5);
    for _ in 0..12 {
        let seed = &seeds[rng.below(seeds.len())];
        let ends: Vec<usize> =
            seed.iter().enumerate().filter(|(_, &b)| b == b'\n').map(|(i, _)| i + 1).collect();
        if ends.len() < 2 {
            continue;
        }
        let a = rng.below(ends.len() - 1);
        let b = a + 1 + rng.below((ends.len() - a - 1).min(4));
        let (start, end) = (ends[a], ends[b]);
        let data = [&seed[start..end], &seed[..start], &seed[end..]].join(&0u8);
        tally.add(checks::hlo::hlo_repeated(&data));
    }
    tally.at_least(Reached::Full, 10);
}

/// Every input a fuzz target has found (`fuzz/regressions/<target>/`, each file named for
/// what it broke), through that target's checks.
#[test]
fn fuzzer_findings() {
    let found = |target: &str| -> Vec<Vec<u8>> {
        let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("fuzz/regressions").join(target);
        let files = std::fs::read_dir(dir).unwrap();
        files.map(|f| std::fs::read(f.unwrap().path()).unwrap()).collect()
    };
    found("shape_text").iter().for_each(|d| checks::shape_text(d));
    for d in found("relayout") {
        let reached = checks::relayout_case(&d);
        assert!(matches!(reached, Reached::Full | Reached::Measured), "{reached:?}");
    }
    // render-span-past-cr: the error of `(\r`, at its end past the `\r`, panicked when
    // rendered (error.rs, a_span_at_a_carriage_return_gets_one_caret_after_the_line).
    let e = "(\r".parse::<xlayout::Shape>().unwrap_err();
    assert_eq!(e.span(), Some(2..2)); // the end of the text, where `)` was expected
    assert!(e.render("(\r").to_string().ends_with("\n  (\n    ^"), "{}", e.render("(\r"));
    // storage-width-122-bits: a valid layout may store elements in more than 64 bits
    // (`E(122)`); the checks' reference assumed it could not (a fault of the checks).
}
