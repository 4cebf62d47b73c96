//! The predicted buffer assignment against XLA itself: for each of the 59 JAX CPU programs
//! of tests/data/hlo/jax_cpu, `compiled.memory_analysis()` (the manifest) field by field,
//! and XLA's own allocations (`buffer_assignment.txt`) one by one: index, size, kind, the
//! values each holds and their offsets.

use std::collections::BTreeSet;

use serde_json::Value;
use xlayout::hlo::{decode, Analysis, Assignment, Bound, BufferAssignment, Module, Peak, Rule};

fn read(dir: &str, program: &str, file: &str) -> String {
    decode(&crate::support::data(&format!("hlo/{dir}/{program}/{file}"))).0.into_owned()
}

/// The prediction of one program's module.
fn predict(dir: &str, name: &str) -> Assignment {
    let text = read(dir, name, "after_optimizations.txt");
    Peak::new(&Analysis::new(&Module::parse(&text))).assignment
}

/// What differs between the predicted `memory_analysis()` of one program and XLA's.
fn figures(name: &str, a: &Assignment, ma: &Value) -> Vec<String> {
    let mut out = Vec::new();
    let field = |k: &str| ma[k].as_u64().unwrap();
    let pairs = [
        ("argument_size_in_bytes", a.argument_bytes),
        ("output_size_in_bytes", a.output_bytes),
        ("alias_size_in_bytes", a.alias_bytes),
        ("temp_size_in_bytes", a.temp_bytes),
    ];
    for (k, ours) in pairs {
        if ours != field(k) {
            out.push(format!("{name}: {k}: ours {ours}, XLA's {}", field(k)));
        }
    }
    let allocated = field("argument_size_in_bytes") + field("output_size_in_bytes")
        - field("alias_size_in_bytes")
        + field("temp_size_in_bytes");
    if a.allocated_bytes != allocated {
        out.push(format!("{name}: allocated: ours {}, XLA's {allocated}", a.allocated_bytes));
    }
    if !a.exact() {
        out.push(format!("{name}: not modelled: {:?}", a.not_modelled));
    }
    out
}

/// One allocation as both sides can say it: size, kind, and its values (instruction,
/// shape index, offset, size).
type Described = (u64, String, BTreeSet<(String, Vec<u64>, u64, u64)>);

/// The allocations of one program, predicted and XLA's, each described, in index order.
fn both(dir: &str, name: &str) -> (Vec<Described>, Vec<Described>) {
    let text = read(dir, name, "after_optimizations.txt");
    let m = Module::parse(&text);
    let a = Peak::new(&Analysis::new(&m)).assignment;
    let xla = BufferAssignment::parse(&read(dir, name, "buffer_assignment.txt"));
    assert!(xla.problems.is_empty(), "{name}: {:?}", xla.problems);
    let kind = |param: Option<u64>, out: bool, c: bool, t: bool, temp: bool| {
        format!("param {param:?} live-out {out} constant {c} thread-local {t} temp {temp}")
    };
    let ours = a
        .allocations
        .iter()
        .map(|x| {
            let values = x
                .values
                .iter()
                .map(|v| {
                    let index = v.shape_index.iter().map(|&k| u64::from(k)).collect();
                    (m.instructions[v.instruction].name.to_string(), index, v.offset, v.size)
                })
                .collect();
            let k = kind(x.parameter, x.maybe_live_out, x.constant, x.thread_local, x.temp);
            (x.size, k, values)
        })
        .collect();
    let theirs = xla
        .allocations
        .iter()
        .map(|x| {
            let values = x
                .values
                .iter()
                .map(|v| (v.instruction.clone(), v.shape_index.clone(), v.offset, v.size))
                .collect();
            let temp = x.attributes.contains("preallocated-temp");
            (x.size, kind(x.parameter, x.maybe_live_out, x.constant, x.thread_local, temp), values)
        })
        .collect();
    (ours, theirs)
}

/// What differs between the predicted allocations and XLA's, but for the order of
/// allocations of one size and kind (constants, thread-local scalars): XLA orders those by
/// where their instructions are in memory, which the text does not keep. Also returns
/// whether that order differs.
fn allocations(dir: &str, name: &str) -> (Vec<String>, bool) {
    let (ours, theirs) = both(dir, name);
    let mut out = Vec::new();
    if ours.len() != theirs.len() {
        out.push(format!("{name}: {} allocations, XLA has {}", ours.len(), theirs.len()));
    }
    let mut reordered = false;
    for (i, (x, y)) in ours.iter().zip(&theirs).enumerate() {
        if x == y {
            continue;
        }
        // Another allocation of XLA's with this one's size and kind holds these values.
        let equal = |z: &Described| z.0 == x.0 && z.1 == x.1 && x.0 == y.0 && x.1 == y.1;
        if theirs.iter().any(|z| equal(z) && z.2 == x.2) {
            reordered = true;
            continue;
        }
        out.push(format!("{name}: allocation {i}: ours {x:?}, XLA's {y:?}"));
    }
    (out, reordered)
}

#[test]
fn memory_analysis_of_every_program_is_xlas() {
    let programs = crate::support::jax_programs();
    assert_eq!(programs.len(), 59);
    let mut failures = Vec::new();
    for p in &programs {
        let name = p["name"].as_str().unwrap();
        let a = predict("jax_cpu", name);
        failures.extend(figures(name, &a, &p["memory_analysis"]));
        // XLA's own file says the same (the command's comparison reads it).
        let text = read("jax_cpu", name, "after_optimizations.txt");
        let m = Module::parse(&text);
        let xla = BufferAssignment::parse(&read("jax_cpu", name, "buffer_assignment.txt"));
        if xla.memory_analysis(&m.input_output_alias) != a.memory_analysis() {
            failures.push(format!("{name}: buffer_assignment.txt's figures differ"));
        }
    }
    assert!(failures.is_empty(), "{} differences:\n{}", failures.len(), failures.join("\n"));
}

/// The larger programs of generate_large.py (attention gradients in bf16 of 2 GB, a scan
/// writing a 128 MiB buffer in place, MLP training steps, ...): `memory_analysis()` field
/// by field, and the allocations of XLA's file.
#[test]
fn memory_analysis_of_every_large_program_is_xlas() {
    let programs = crate::support::large_jax_programs();
    assert!(programs.len() >= 12, "{}", programs.len());
    let mut failures = Vec::new();
    for p in &programs {
        let name = p["name"].as_str().unwrap();
        let a = predict("jax_cpu_large", name);
        failures.extend(figures(name, &a, &p["memory_analysis"]));
        let (differences, _) = allocations("jax_cpu_large", name);
        failures.extend(differences);
    }
    assert!(failures.is_empty(), "{} differences:\n{}", failures.len(), failures.join("\n"));
}

/// The programs where XLA orders allocations of one size and kind otherwise than the
/// prediction (see [`allocations`]); their contents agree.
const REORDERED: [&str; 6] = [
    "mlp_grad",
    "mlp_value_and_grad",
    "mlp_sgd_step_donated",
    "remat_mlp_grad",
    "attention_grad",
    "random_normal",
];

#[test]
fn allocations_of_every_program_are_xlas() {
    let mut failures = Vec::new();
    let mut reordered = Vec::new();
    for p in crate::support::jax_programs() {
        let name = p["name"].as_str().unwrap();
        let (differences, r) = allocations("jax_cpu", name);
        failures.extend(differences);
        if r {
            reordered.push(name.to_string());
        }
    }
    assert!(failures.is_empty(), "{} differences:\n{}", failures.len(), failures.join("\n"));
    assert_eq!(reordered, REORDERED);
}

fn assignment_of(text: &str) -> (Module<'_>, Assignment) {
    let m = Module::parse(text);
    let a = Peak::new(&Analysis::new(&m)).assignment;
    (m, a)
}

/// A donated parameter (`input_output_alias`): the output is written over it, so its
/// allocation counts as an argument and as an output, and once in what is allocated. The
/// donated parameter lives to its last use (step 1), and both `x` (steps 1-2) and the
/// output `n` (steps 2-3) go in its allocation: each starts where the one before ends and
/// may write over it (`exponential` and `negate` are element-wise).
#[test]
fn a_donated_parameter_is_an_argument_and_an_output_counted_once() {
    let (m, a) = assignment_of(
        "HloModule m, is_scheduled=true, input_output_alias={ {}: (0, {}, may-alias) }\n\nENTRY %e {\n  %p = f32[1024]{0} parameter(0)\n  %x = f32[1024]{0} exponential(%p)\n  ROOT %n = f32[1024]{0} negate(%x)\n}\n",
    );
    assert!(a.exact(), "{:?}", a.not_modelled);
    assert_eq!(
        (a.argument_bytes, a.output_bytes, a.alias_bytes, a.temp_bytes),
        (4096, 4096, 4096, 0)
    );
    assert_eq!(a.allocated_bytes, 4096);
    let p = &a.allocations[0];
    assert!(p.aliased_with_output && p.maybe_live_out && p.parameter == Some(0));
    let names: Vec<&str> = p.values.iter().map(|v| m.instructions[v.instruction].name).collect();
    assert_eq!(names, ["p", "x", "n"]);
}

/// Not donated, the same program needs the parameter and the output, and no temporary:
/// buffers are taken largest first, live-out first among equals, so the output `n` gets its
/// allocation first; `x` (steps 1-2) cannot go in the parameter's (read-only) but fits in
/// `n`'s, since `n` starts where `x` ends and, `negate` being element-wise, may write over
/// it.
#[test]
fn a_temporary_goes_in_the_output_that_may_write_over_it() {
    let (m, a) = assignment_of(
        "HloModule m, is_scheduled=true\n\nENTRY %e {\n  %p = f32[1024]{0} parameter(0)\n  %x = f32[1024]{0} exponential(%p)\n  ROOT %n = f32[1024]{0} negate(%x)\n}\n",
    );
    assert_eq!(
        (a.argument_bytes, a.output_bytes, a.temp_bytes, a.allocated_bytes),
        (4096, 4096, 0, 8192)
    );
    let names = |k: usize| -> Vec<&str> {
        a.allocations[k].values.iter().map(|v| m.instructions[v.instruction].name).collect()
    };
    assert_eq!((names(0), names(1)), (vec!["x", "n"], vec!["p"]));
    // With `copy` instead of `negate`, `n` never writes over its operand: `x` is a
    // temporary of its own.
    let (_, a) = assignment_of(
        "HloModule m, is_scheduled=true\n\nENTRY %e {\n  %p = f32[1024]{0} parameter(0)\n  %x = f32[1024]{0} exponential(%p)\n  ROOT %n = f32[1024]{0} copy(%x)\n}\n",
    );
    assert_eq!((a.temp_bytes, a.heap_bytes, a.allocated_bytes), (4096, 4096, 12_288));
}

/// What the prediction says where the module is not what it models: a module without a
/// schedule (the text order is taken, and bounds given), a TPU layout (XLA:CPU's figure,
/// said to be another backend's), no entry (nothing, unbounded).
#[test]
fn modules_outside_the_model_say_why_and_give_bounds() {
    let (_, a) = assignment_of(
        "HloModule m\n\nENTRY %e {\n  %p = f32[256]{0} parameter(0)\n  %a = f32[256]{0} negate(%p)\n  ROOT %b = f32[256]{0} exponential(%a)\n}\n",
    );
    let rules: Vec<Rule> = a.not_modelled.iter().map(|n| n.rule).collect();
    assert_eq!(rules, [Rule::NotScheduled]);
    // At least the parameter; at most every value in an allocation of its own, each
    // rounded up to 64 bytes: 1 KiB each.
    assert_eq!(a.bounds, Some(Bound { lower: 1024, upper: Some(3072) }));
    assert!(a.bounds.unwrap().lower <= a.allocated_bytes);
    assert!(a.allocated_bytes <= a.bounds.unwrap().upper.unwrap());
    let (_, a) = assignment_of(
        "HloModule m, is_scheduled=true\n\nENTRY %e {\n  %p = f32[8,128]{1,0:T(8,128)} parameter(0)\n  ROOT %n = f32[8,128]{1,0:T(8,128)} negate(%p)\n}\n",
    );
    assert_eq!(a.not_modelled.iter().map(|n| n.rule).collect::<Vec<_>>(), [Rule::NotCpu]);
    assert_eq!(a.allocated_bytes, 8192);
    let (_, a) = assignment_of("%f {\n  ROOT %p = f32[4]{0} parameter(0)\n}\n");
    assert_eq!(a.not_modelled[0].rule, Rule::NoEntry);
    assert_eq!(a.bounds, Some(Bound { lower: 0, upper: None }));
}

/// The allocation's timeline adds up, on every committed dump of a CPU program: the top of
/// what the temporaries hold reaches, at its highest, XLA's `temp_size_in_bytes` exactly;
/// the tallest temporaries column is the headline's temporaries peak, at its step; and the
/// arguments, outputs and that top make what is allocated (less a parameter that is also an
/// output without being donated, which `memory_analysis()` counts twice).
#[test]
fn the_allocation_timeline_adds_up_to_xlas_figures() {
    let mut checked = 0;
    for (dir, p) in crate::support::every_jax_program() {
        let name = p["name"].as_str().unwrap();
        let text = read(dir, name, "after_optimizations.txt");
        let m = Module::parse(&text);
        let peak = Peak::new(&Analysis::new(&m));
        let a = &peak.assignment;
        let t = peak.allocation_timeline();
        assert_eq!(t.len(), peak.sequence.len(), "{name}");
        let ma = &p["memory_analysis"];
        let extent = t.iter().map(|s| s.extent).max().unwrap_or(0);
        assert_eq!(extent, ma["temp_size_in_bytes"].as_u64().unwrap(), "{name}");
        let tallest = t.iter().map(|s| s.temporaries).max().unwrap_or(0);
        assert_eq!(tallest, a.temp_peak.bytes, "{name}");
        if tallest > 0 {
            assert_eq!(t[a.temp_peak.step as usize].temporaries, tallest, "{name}");
            let first = t.iter().position(|s| s.temporaries == tallest).unwrap();
            assert_eq!(first, a.temp_peak.step as usize, "{name}");
        }
        assert!(tallest <= extent, "{name}");
        // The buffers listed at that step are what its column adds up.
        let at = &t[a.temp_peak.step as usize];
        let listed: u64 = peak.buffers_at(a.temp_peak.step).iter().map(|b| b.size).sum();
        assert_eq!(listed, at.parameters + at.outputs + at.temporaries, "{name}");
        let top = t.iter().map(|s| s.parameters + s.outputs + s.extent).max().unwrap_or(0);
        let twice: u64 = a
            .allocations
            .iter()
            .filter(|x| x.parameter.is_some() && x.maybe_live_out && !x.aliased_with_output)
            .map(|x| x.size)
            .sum();
        assert_eq!(top + twice, a.allocated_bytes, "{name}");
        checked += 1;
    }
    assert_eq!(checked, 71);
}
