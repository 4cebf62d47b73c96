//! `Peak` against XLA itself: the 59 JAX CPU programs of tests/data/hlo/jax_cpu, each with
//! XLA's scheduled module, its live ranges (`live_range.txt`, `HloLiveRange::ToString`)
//! and its buffer assignment. For every program the flattened sequence, every value's
//! live range, the peak step, the values listed at the peak (with their bytes, in XLA's
//! order) and the peak bytes are XLA's, exactly; the high-water mark and the largest sum
//! of XLA's search equal generate.py's figures in the manifest.

use std::collections::BTreeMap;

use serde_json::Value;
use xlayout::hlo::{
    decode, size_differences, Analysis, Bound, BufferAssignment, LiveRangeDump, Module, Peak, Rule,
};

fn read(program: &str, file: &str) -> String {
    decode(&crate::support::data(&format!("hlo/jax_cpu/{program}/{file}"))).0.into_owned()
}

fn manifest() -> Vec<Value> {
    crate::support::jax_programs()
}

/// What differs between the project's peak of one program and XLA's files; empty when
/// everything agrees.
fn differences(program: &Value) -> Vec<String> {
    let name = program["name"].as_str().unwrap();
    differences_of(program, &read(name, "after_optimizations.txt"))
}

/// [`differences`] for the program's module written as `text`.
fn differences_of(program: &Value, text: &str) -> Vec<String> {
    let name = program["name"].as_str().unwrap();
    let xla = LiveRangeDump::parse(&read(name, "live_range.txt"));
    let m = Module::parse(text);
    let a = Analysis::new(&m);
    let peak = Peak::new(&a);
    let mut out = Vec::new();
    let mut check = |what: &str, ours: String, theirs: String| {
        if ours != theirs {
            out.push(format!("{name}: {what}: ours {ours}, XLA's {theirs}"));
        }
    };
    check("rules not modelled", format!("{:?}", peak.not_modelled), "[]".into());
    assert!(xla.problems.is_empty(), "{name}: {:?}", xla.problems);
    let sequence: Vec<&str> = peak.sequence.iter().map(|&i| m.instructions[i].name).collect();
    check("sequence", format!("{sequence:?}"), format!("{:?}", xla.sequence));
    let ours: BTreeMap<(String, Vec<u64>), (u64, u64)> = peak
        .values
        .iter()
        .map(|v| {
            let index = v.shape_index.iter().map(|&k| u64::from(k)).collect();
            let key = (m.instructions[v.instruction].name.to_string(), index);
            (key, (u64::from(v.range.start), u64::from(v.range.end)))
        })
        .collect();
    let theirs: BTreeMap<(String, Vec<u64>), (u64, u64)> = xla
        .ranges
        .iter()
        .map(|r| ((r.instruction.clone(), r.shape_index.clone()), (r.start, r.end)))
        .collect();
    for (key, r) in &theirs {
        check(
            &format!("range of {key:?}"),
            format!("{:?}", ours.get(key)),
            format!("{:?}", Some(r)),
        );
    }
    for key in ours.keys().filter(|k| !theirs.contains_key(*k)) {
        check(&format!("value {key:?}"), "a live range".into(), "none".into());
    }
    check("peak step", peak.xla.step.to_string(), format!("{}", xla.peak_step.unwrap()));
    let live: Vec<(String, Vec<u32>, u64)> = peak
        .xla
        .live
        .iter()
        .map(|&v| {
            let v = &peak.values[v];
            (
                m.instructions[v.instruction].name.to_string(),
                v.shape_index.clone(),
                v.sizes.unwrap().bytes,
            )
        })
        .collect();
    let xla_live: Vec<(String, Vec<u32>, u64)> = xla
        .live
        .iter()
        .map(|l| {
            (l.instruction.clone(), l.shape_index.iter().map(|&k| k as u32).collect(), l.bytes)
        })
        .collect();
    check("peak list", format!("{live:?}"), format!("{xla_live:?}"));
    check("peak bytes", peak.xla.bytes.to_string(), format!("{}", xla.peak_bytes().unwrap()));
    let lr = &program["live_range"];
    check("peak bytes (manifest)", peak.xla.bytes.to_string(), lr["peak_bytes"].to_string());
    check(
        "peak instruction",
        m.instructions[peak.xla.instruction.unwrap()].name.to_string(),
        lr["peak_instruction"].as_str().unwrap().to_string(),
    );
    let r = &program["reproduction"];
    check(
        "largest sum of the search",
        peak.xla.search_bytes.to_string(),
        r["sweep_running_max_bytes"].to_string(),
    );
    let hw = peak.high_water.bytes;
    check(
        "high-water mark",
        format!("{} at {}", hw.total, hw.step),
        format!("{} at {}", r["max_live_bytes_over_steps"], r["first_step_with_max_live_bytes"]),
    );
    // On CPU there are no tiles: ArraySize is ByteSizeOf, so the marks agree.
    check(
        "high-water with padding",
        peak.high_water.array_bytes.total.to_string(),
        hw.total.to_string(),
    );
    out
}

#[test]
fn every_program_matches_xla() {
    let programs = manifest();
    assert_eq!(programs.len(), 59);
    let failures: Vec<String> = programs.iter().flat_map(differences).collect();
    assert!(failures.is_empty(), "{} differences:\n{}", failures.len(), failures.join("\n"));
}

/// XLA's parser is blind to line ends: each program joined onto one line (its stack-frame
/// tables too) is the same module to it (`hlo_module_from_text` prints the same text for
/// both, checked with jax 0.10.2 for all 59). Read so, every instruction, metadata and
/// source location is the one read from the lines, and the peak is XLA's exactly.
#[test]
fn every_program_joined_onto_one_line_matches_xla() {
    let programs = manifest();
    let mut failures = Vec::new();
    for program in &programs {
        let name = program["name"].as_str().unwrap();
        let text = read(name, "after_optimizations.txt");
        let one_line = xlayout::hlo::lines(&text).collect::<Vec<_>>().join(" ");
        let (lines, joined) = (Module::parse(&text), Module::parse(&one_line));
        assert_eq!(joined.lines, 1, "{name}");
        assert!(joined.diagnostics.is_empty(), "{name}: {:?}", joined.diagnostics);
        fn same<'m>(m: &'m Module<'m>) -> impl PartialEq + std::fmt::Debug + 'm {
            let instructions: Vec<_> = m
                .instructions
                .iter_enumerated()
                .map(|(i, ins)| {
                    let meta = m.metadata(i).clone();
                    (ins.name, ins.opcode, ins.shape_text, ins.is_root, meta, m.source(i))
                })
                .collect();
            let computations: Vec<_> =
                m.computations.iter().map(|c| (c.name, c.is_entry, c.instructions)).collect();
            (m.name, m.is_scheduled, instructions, computations)
        }
        assert_eq!(same(&joined), same(&lines), "{name}");
        failures.extend(differences_of(program, &one_line));
    }
    assert!(failures.is_empty(), "{} differences:\n{}", failures.len(), failures.join("\n"));
}

#[test]
fn buffer_assignment_sizes_are_the_projects() {
    for program in manifest() {
        let name = program["name"].as_str().unwrap();
        let text = read(name, "after_optimizations.txt");
        let m = Module::parse(&text);
        let a = Analysis::new(&m);
        let b = BufferAssignment::parse(&read(name, "buffer_assignment.txt"));
        assert!(b.problems.is_empty(), "{name}: {:?}", b.problems);
        let ba = &program["buffer_assignment"];
        assert_eq!(b.allocations.len() as u64, ba["allocation_count"].as_u64().unwrap(), "{name}");
        assert_eq!(b.total_bytes(), ba["total_allocation_bytes"].as_u64().unwrap(), "{name}");
        let d = size_differences(&b, &a);
        assert!(d.is_empty(), "{name}: {d:?}");
    }
}

fn peak_of(text: &str) -> (Module<'_>, Peak) {
    let m = Module::parse(text);
    let peak = Peak::new(&Analysis::new(&m));
    (m, peak)
}

fn data(name: &str) -> String {
    crate::support::data_text(&format!("hlo/peak/{name}"))
}

/// A TPU-style module with tiles: XLA's sizes (`ByteSizeOf`, no tiles) against the
/// allocations (`ArraySize`) and the data, derived by hand.
///
/// Sizes: x, e, s `f32[8,100]{1,0:T(8,128)}`: 3200 bytes of data, 8x128x4 = 4096 allocated.
/// m `pred[8,100]{..E(32)}`: ByteSizeOf 800x32/8 = 3200, allocated 4096, data 800 (a byte
/// per pred). big, n `bf16[16,1280,40]{2,1,0:T(8,128)(2,1)}`: 1638400 data, 5242880
/// allocated (40 -> 128). t: a 3-element index table, 24.
///
/// Steps x0 big1 m2 e3 n4 s5 t6 (7 in all). Ranges: x, big 0-7 (entry parameters); m 2-7
/// (in the ROOT tuple); e 3-5 (read by s); n 4-7, s 5-7 (in the ROOT); t 6-7.
/// XLA's search (to end + 1, weights = instruction shapes): t4 3286400, t5 3289600,
/// t6 3289624 (e still counted), t7 3286424: peak step 6. Printed at 6 (e excluded):
/// big, n, m, s, x, t = 1638400x2 + 3200x3 + 24 = 3286424.
#[test]
fn tiles_pad_the_allocation_not_xlas_peak_bytes() {
    let text = data("tpu_padded_step.txt");
    let (m, peak) = peak_of(&text);
    assert!(peak.exact(), "{:?}", peak.not_modelled);
    let x = &peak.xla;
    assert_eq!((x.step, x.bytes, x.search_bytes), (6, 3_286_424, 3_289_624));
    assert_eq!(x.array_bytes, 5_242_880 * 2 + 4096 * 3 + 24);
    assert_eq!(x.logical_bytes, 1_638_400 * 2 + 3200 * 2 + 800 + 24);
    let names: Vec<&str> =
        x.live.iter().map(|&v| m.instructions[peak.values[v].instruction].name).collect();
    assert_eq!(names, ["big", "n", "m", "s", "x", "t"]);
    // At step 5 x, big, m, e, n and s are live: the true high-water mark.
    let hw = peak.high_water;
    assert_eq!((hw.bytes.step, hw.bytes.total), (5, 1_638_400 * 2 + 3200 * 4));
    assert_eq!((hw.array_bytes.step, hw.array_bytes.total), (5, 5_242_880 * 2 + 4096 * 4));
    assert_eq!(
        (hw.logical_bytes.step, hw.logical_bytes.total),
        (5, 1_638_400 * 2 + 3200 * 3 + 800)
    );
    assert_eq!(m.instructions[hw.bytes.instruction.unwrap()].name, "s");
    assert_eq!(peak.bounds, None);
}

/// `async-start`/`async-done` are not modelled: the output says so and bounds the mark.
///
/// Values: a 1024 (0-6), start's five (index table 24, {0} 8, {0,0} 1024, {1} 1024, {2} 4:
/// 2084, 1-3, read by done), b 4096 (2-4), done 1024 (3-5), c 1024 (4-5), out 1024 (5-6).
/// Largest live total: step 3, a + start + b + done = 1024 + 2084 + 4096 + 1024 = 8228.
/// Upper: start's, done's and their operands' values live to the end: step 4 holds a,
/// start, b, done, c = 9252; plus the asynchronous computation's values (p, r: 2048),
/// which are placed nowhere: 11300.
#[test]
fn asynchronous_operations_are_bounded() {
    let text = data("async_copy.txt");
    let (m, peak) = peak_of(&text);
    assert!(!peak.exact());
    let rules: Vec<(Rule, usize, Vec<&str>)> = peak
        .not_modelled
        .iter()
        .map(|n| {
            (n.rule, n.count, n.instructions.iter().map(|&i| m.instructions[i].name).collect())
        })
        .collect();
    assert_eq!(rules, [(Rule::Asynchronous, 2, vec!["start", "done"])]);
    assert_eq!((peak.high_water.bytes.step, peak.high_water.bytes.total), (3, 8228));
    let b = peak.bounds.unwrap();
    assert_eq!(b.bytes, Bound { lower: 8228, upper: Some(11_300) });
    assert_eq!(b.array_bytes, b.bytes);
}

#[test]
fn modules_the_model_cannot_follow_say_why() {
    // Not scheduled: the text order is taken, and said so.
    let (_, p) = peak_of("HloModule m\n\nENTRY %e {\n  %p = f32[4]{0} parameter(0)\n  ROOT %n = f32[4]{0} negate(%p)\n}\n");
    assert_eq!(p.not_modelled.iter().map(|n| n.rule).collect::<Vec<_>>(), [Rule::NotScheduled]);
    assert_eq!((p.xla.step, p.xla.bytes), (1, 32));
    assert_eq!(p.bounds.unwrap().bytes, Bound { lower: 32, upper: Some(32) });
    // Without a schedule any order is possible: at most every value at once (5 x 1 KiB);
    // at least the parameter (live throughout) and, at c's step in any order, c and both
    // its operands: 4 KiB. The text order's own mark, 4 KiB at step 3, lies between.
    let text = "HloModule m\n\nENTRY %e {\n  %p = f32[256]{0} parameter(0)\n  %a = f32[256]{0} negate(%p)\n  %b = f32[256]{0} exponential(%p)\n  %c = f32[256]{0} add(%a, %b)\n  ROOT %r = f32[256]{0} negate(%c)\n}\n";
    let (_, p) = peak_of(text);
    assert_eq!((p.high_water.bytes.step, p.high_water.bytes.total), (3, 4096));
    assert_eq!(p.bounds.unwrap().bytes, Bound { lower: 4096, upper: Some(5120) });
    // No ENTRY: nothing to flatten.
    let (_, p) = peak_of("%f {\n  ROOT %p = f32[4]{0} parameter(0)\n}\n");
    assert_eq!(p.not_modelled[0].rule, Rule::NoEntry);
    assert!(p.values.is_empty() && p.sequence.is_empty());
    // An unread shape: no size, so no upper bound.
    let (_, p) = peak_of("HloModule m, is_scheduled=true\n\nENTRY %e {\n  %p = f32[4]{0} parameter(0)\n  ROOT %n = f32[4]{5} negate(%p)\n}\n");
    assert_eq!(p.not_modelled.iter().map(|n| n.rule).collect::<Vec<_>>(), [Rule::Unsized]);
    assert_eq!(p.bounds.unwrap().bytes, Bound { lower: 16, upper: None });
}

/// Malformed modules end, and what cannot be followed is named.
#[test]
fn hostile_modules_end_without_panicking() {
    let cases = [
        // get-tuple-element of a non-tuple, of a missing operand, out of range.
        "ENTRY %e {\n  %p = f32[2]{0} parameter(0)\n  %g = f32[2]{0} get-tuple-element(%p), index=0\n  %h = f32[2]{0} get-tuple-element(%nowhere), index=0\n  %t = (f32[2]{0}) tuple(%p)\n  ROOT %i = f32[2]{0} get-tuple-element(%t), index=7\n}\n",
        // Forwards in a cycle.
        "ENTRY %e {\n  %a = f32[2]{0} bitcast(%b)\n  ROOT %b = f32[2]{0} bitcast(%a)\n}\n",
        // A while whose body and condition are the entry itself, and a call of itself.
        "ENTRY %e {\n  %p = (f32[2]{0}) parameter(0)\n  %c = (f32[2]{0}) call(%p), to_apply=%e\n  ROOT %w = (f32[2]{0}) while(%c), condition=%e, body=%e\n}\n",
        // A loop whose body changes the tuple's size.
        "%b {\n  %q = (f32[2]{0}) parameter(0)\n  ROOT %r = (f32[2]{0}, f32[2]{0}) tuple(%q, %q)\n}\n\n%c {\n  %q2 = (f32[2]{0}) parameter(0)\n  ROOT %k = pred[] constant(true)\n}\n\nENTRY %e {\n  %p = (f32[2]{0}) parameter(0)\n  ROOT %w = (f32[2]{0}) while(%p), condition=%c, body=%b\n}\n",
        // One computation run by two calls, and a conditional with no branches.
        "%f {\n  ROOT %x = f32[2]{0} parameter(0)\n}\n\nENTRY %e {\n  %p = f32[2]{0} parameter(0)\n  %a = f32[2]{0} call(%p), to_apply=%f\n  %b = f32[2]{0} call(%a), to_apply=%f\n  %i = s32[] constant(0)\n  ROOT %c = f32[2]{0} conditional(%i)\n}\n",
        "",
        "ENTRY %e {\n}\n",
    ];
    for text in cases {
        let (_, p) = peak_of(text);
        assert!(!p.exact(), "{text}");
    }
    let (m, p) = peak_of(cases[0]);
    let unfollowed = p.not_modelled.iter().find(|n| n.rule == Rule::Unfollowed).unwrap();
    let names: Vec<&str> =
        unfollowed.instructions.iter().map(|&i| m.instructions[i].name).collect();
    assert_eq!(names, ["g", "h", "i"]);
    let (m, p) = peak_of(cases[4]);
    let several = p.not_modelled.iter().find(|n| n.rule == Rule::CalledSeveralTimes).unwrap();
    assert_eq!(m.instructions[several.instructions[0]].name, "x");
}

/// Nested loops thousands deep, and a tuple of ten thousand elements passed through a
/// loop: linear work, no recursion.
#[test]
fn deep_and_wide_modules_are_linear() {
    let depth = 2000;
    let mut text = String::from("HloModule deep, is_scheduled=true\n\n");
    for d in 0..depth {
        let inner = if d == 0 {
            format!("  ROOT %r{d} = (f32[4]{{0}}) tuple(%n{d})\n")
        } else {
            format!(
                "  ROOT %r{d} = (f32[4]{{0}}) while(%t{d}), condition=%c{d}, body=%b{}\n",
                d - 1
            )
        };
        text += &format!("%c{d} (x: (f32[4])) -> pred[] {{\n  %x{d} = (f32[4]{{0}}) parameter(0)\n  ROOT %k{d} = pred[] constant(true)\n}}\n\n");
        text += &format!("%b{d} (q: (f32[4])) -> (f32[4]) {{\n  %q{d} = (f32[4]{{0}}) parameter(0)\n  %g{d} = f32[4]{{0}} get-tuple-element(%q{d}), index=0\n  %n{d} = f32[4]{{0}} negate(%g{d})\n  %t{d} = (f32[4]{{0}}) tuple(%n{d})\n{inner}}}\n\n");
    }
    text += &format!("ENTRY %e {{\n  %p = (f32[4]{{0}}) parameter(0)\n  ROOT %w = (f32[4]{{0}}) while(%p), condition=%c0, body=%b{}\n}}\n", depth - 1);
    let (_, p) = peak_of(&text);
    assert!(p.exact(), "{:?}", p.not_modelled);
    assert_eq!(p.sequence.len(), 2 + 7 * depth);

    let n = 10_000;
    let elements = vec!["f32[1]{0}"; n].join(", ");
    let wide = format!("HloModule wide, is_scheduled=true\n\n%c (a: ({elements})) -> pred[] {{\n  %a = ({elements}) parameter(0)\n  ROOT %k = pred[] constant(true)\n}}\n\n%b (q: ({elements})) -> ({elements}) {{\n  ROOT %q = ({elements}) parameter(0)\n}}\n\nENTRY %e {{\n  %p = ({elements}) parameter(0)\n  ROOT %w = ({elements}) while(%p), condition=%c, body=%b\n}}\n");
    let (_, p) = peak_of(&wide);
    assert!(p.exact());
    // Every element passes through unchanged, so every phi of the loop is the entry
    // parameter's value: the values are p's (its index table, 8n bytes, and n arrays of 4)
    // and the condition's constant (1 byte, steps 2-3). Each of p's values weighs p's
    // whole shape in XLA's search, which peaks when the constant starts, at step 2.
    assert_eq!(p.values.len(), n + 2);
    assert_eq!((p.xla.step, p.xla.bytes), (2, 8 * n as u64 + 4 * n as u64 + 1));
    assert_eq!(p.xla.search_bytes, (n as u64 + 1) * 8 * n as u64 + 1);
}

/// Every real module cut short at many places, and with lines dropped: no panic, and what
/// cannot be followed is named.
#[test]
fn damaged_real_modules_never_panic() {
    let mut seed: u64 = 0x5eed;
    let mut next = |n: usize| {
        seed = seed.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
        (seed >> 33) as usize % n.max(1)
    };
    for program in manifest() {
        let name = program["name"].as_str().unwrap();
        let text = read(name, "after_optimizations.txt");
        let lines: Vec<&str> = text.lines().collect();
        for _ in 0..4 {
            let cut = next(text.len());
            let cut = (0..=cut).rev().find(|&c| text.is_char_boundary(c)).unwrap();
            let _ = peak_of(&text[..cut]);
            let dropped = next(lines.len());
            let without: String = lines
                .iter()
                .enumerate()
                .filter(|(k, _)| *k != dropped)
                .map(|(_, l)| format!("{l}\n"))
                .collect();
            let _ = peak_of(&without);
        }
    }
}

/// The TPU-style and asynchronous modules cut short at every byte: no panic.
#[test]
fn small_modules_cut_anywhere() {
    for name in ["tpu_padded_step.txt", "async_copy.txt"] {
        let text = data(name);
        for cut in (0..=text.len()).filter(|&c| text.is_char_boundary(c)) {
            let (_, p) = peak_of(&text[..cut]);
            assert!(p.xla.step as usize <= p.sequence.len());
        }
    }
}

/// The timeline and the split the HTML report draws, against XLA: at XLA's peak step the
/// timeline holds XLA's printed peak bytes, its largest step is generate.py's high-water
/// mark of XLA's own ranges, and where no parameter is donated the parameters live at the
/// peak are XLA's `memory_analysis().argument_size_in_bytes` (every entry parameter lives
/// throughout).
#[test]
fn timeline_and_split_are_xlas_figures() {
    let mut argument_checks = 0;
    for program in manifest() {
        let name = program["name"].as_str().unwrap();
        let text = read(name, "after_optimizations.txt");
        let (m, peak) = peak_of(&text);
        let t = peak.timeline();
        let lr = &program["live_range"];
        assert_eq!(t.len() as u64, lr["max"].as_u64().unwrap(), "{name}");
        let at_peak = t[peak.xla.step as usize].live.bytes;
        assert_eq!(at_peak, lr["peak_bytes"].as_u64().unwrap(), "{name}");
        let high = t.iter().map(|s| s.live.bytes).max().unwrap();
        let r = &program["reproduction"];
        assert_eq!(high, r["max_live_bytes_over_steps"].as_u64().unwrap(), "{name}");
        let split = peak.split(&m);
        let sum = split.parameters.bytes + split.outputs.bytes + split.temporaries.bytes;
        assert_eq!(sum, peak.xla.bytes, "{name}");
        let ma = &program["memory_analysis"];
        if ma["alias_size_in_bytes"].as_u64() == Some(0) {
            argument_checks += 1;
            let arguments = ma["argument_size_in_bytes"].as_u64().unwrap();
            assert_eq!(split.parameters.bytes, arguments, "{name}");
        }
    }
    assert!(argument_checks >= 50, "{argument_checks}");
}
