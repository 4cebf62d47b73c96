//! (d) HLO module text: any bytes through `xlayout::hlo`'s stages (decode, parse, analysis,
//! report), as `xlayout hlo` runs them.
//!
//! Properties: no panic; decoding is the identity on UTF-8 and reports each line that is not
//! (inside the text's lines, in order); every diagnostic is on a line of the text, in line
//! order, at most `MAX_LISTED` of a kind and one that counts the rest; every instruction is on a line of the text and its shape, when read, is valid;
//! every row and the whole report serialize to JSON.

use xlayout::hlo::{decode, lines, Analysis, GroupBy, Module, Report, ReportOptions, MAX_LISTED};

use super::Reached;

/// The bytes as a module, through every stage.
pub fn hlo_text(data: &[u8]) -> Reached {
    let (text, problems) = decode(data);
    match std::str::from_utf8(data) {
        Ok(s) => {
            assert!(problems.is_empty(), "{problems:?}");
            assert_eq!(&*text, s);
        }
        Err(_) => assert!(!problems.is_empty(), "a decoding error without a diagnostic"),
    }
    let mut m = Module::parse(&text);
    m.add_diagnostics(problems);
    let lines = lines(&text).count();
    assert!(m.lines <= lines, "{} lines read of {lines}", m.lines);
    let mut listed = std::collections::HashMap::new();
    for d in m.diagnostics.iter().filter(|d| d.more == 0) {
        *listed.entry(d.kind).or_insert(0) += 1;
    }
    assert!(listed.values().all(|&n| n <= MAX_LISTED), "{listed:?}");
    for d in m.diagnostics.iter().filter(|d| d.more > 0) {
        assert_eq!(listed.get(&d.kind), Some(&MAX_LISTED), "{d:?}");
    }
    for w in m.diagnostics.windows(2) {
        assert!(w[0].line <= w[1].line, "diagnostics out of line order: {w:?}");
    }
    for d in &m.diagnostics {
        assert!((1..=lines).contains(&d.line), "{d:?} of {lines} lines");
    }
    for (i, ins) in m.instructions.iter_enumerated() {
        assert!((1..=lines).contains(&ins.line), "{i:?} on line {}", ins.line);
        if let Some(shape) = m.shape(i) {
            assert_eq!(shape.validate(), Ok(()), "{i:?}");
        }
        // Names resolve to an instruction of that name in the same computation, and to a
        // computation of that name.
        for o in &ins.operands {
            if let Some(id) = o.id {
                let named = &m.instructions[id];
                assert_eq!((named.name, named.computation), (o.name, ins.computation), "{i:?}");
            }
        }
        for c in &ins.called {
            assert_eq!(c.id.map(|c| m.computations[c].name), c.id.and(Some(c.name)), "{i:?}");
            assert_eq!(c.id, m.computation_id(c.name));
        }
        assert_eq!(m.instruction(ins.name).map(|first| first.name), Some(ins.name));
    }
    let analysis = Analysis::new(&m);
    let report = Report::new(&analysis, ReportOptions::default());
    for i in m.instructions.ids() {
        let row = report.row(i);
        assert_eq!(row.line, m.instructions[i].line);
        // The names a row shares are numbers in its report's tables.
        assert_eq!(row.computation, m.instructions[i].computation, "{i:?}");
        let files = report.source_files.names().len();
        assert!(row.source_file.map_or(true, |f| (f as usize) < files), "{i:?}");
        assert_eq!(row.source_file.is_some(), m.source(i).is_some(), "{i:?}");
        serde_json::to_string(&row).expect("a row serializes");
    }
    for options in [
        ReportOptions::default(),
        ReportOptions {
            top: 2,
            min_bytes: 1 << 20,
            group_by: Some(GroupBy::Op),
            op_depth: Some(1),
        },
        ReportOptions { top: 1, min_bytes: 0, group_by: Some(GroupBy::Opcode), op_depth: None },
        ReportOptions { top: 3, min_bytes: 0, group_by: Some(GroupBy::Shape), op_depth: None },
    ] {
        let report = Report::new(&analysis, options);
        serde_json::to_string(&report).expect("a report serializes");
        let _ = report.expanding_more_than(11, 10);
    }
    if m.instructions.is_empty() {
        Reached::Refused
    } else {
        Reached::Full
    }
}

/// (e, peak) A module with XLA's two memory files beside it, as `xlayout hlo --peak
/// --buffer-assignment` reads them: the bytes split at 0 bytes into the module text, the
/// buffer assignment and the live ranges.
///
/// Properties: no panic; every value and mark names an instruction of the module and a step
/// of the flattened sequence, each live range starts before it ends, and where a rule is not
/// modelled each bound's lower end is below its upper one; the dump readers report problems on lines
/// of their text; the dumps serialize to JSON.
pub fn peak_text(data: &[u8]) -> Reached {
    use xlayout::hlo::{size_differences, BufferAssignment, LiveRangeDump, Peak};
    let mut parts = data.splitn(3, |&b| b == 0).map(String::from_utf8_lossy);
    let module = parts.next().unwrap_or_default();
    let (assignment, ranges) = (parts.next().unwrap_or_default(), parts.next().unwrap_or_default());
    let m = Module::parse(&module);
    let analysis = Analysis::new(&m);
    let peak = Peak::new(&analysis);
    let n = m.instructions.len();
    let steps = peak.sequence.len() as u32;
    assert!(peak.sequence.iter().all(|&i| i.index() < n));
    for v in &peak.values {
        assert!(v.instruction.index() < n, "{v:?}");
        assert!(v.range.start <= v.range.end, "{v:?}");
        // A live-out value lives to the end of the sequence: one step past the last.
        assert!(v.range.end <= steps, "{v:?} of {steps} steps");
    }
    assert!(peak.xla.live.iter().all(|&v| peak.values.get(v).is_some()));
    let marks = [peak.high_water.bytes, peak.high_water.array_bytes, peak.high_water.logical_bytes];
    for mark in &marks {
        assert!(mark.instruction.map_or(true, |i| i.index() < n), "{mark:?}");
    }
    if let Some(b) = peak.bounds {
        for bound in [b.bytes, b.array_bytes, b.logical_bytes] {
            assert!(bound.lower <= bound.upper.unwrap_or(u64::MAX), "{bound:?}");
        }
    }
    let _ = format!("{peak:?}");

    let b = BufferAssignment::parse(&assignment);
    let lines = xlayout::hlo::lines(&assignment).count();
    assert!(b.problems.iter().all(|p| (1..=lines).contains(&p.line)), "{:?}", b.problems);
    let _ = b.total_bytes();
    let _ = size_differences(&b, &analysis);
    serde_json::to_string(&b).expect("an assignment serializes");
    let r = LiveRangeDump::parse(&ranges);
    let _ = r.peak_bytes();
    serde_json::to_string(&r).expect("live ranges serialize");
    if peak.values.is_empty() {
        Reached::Refused
    } else {
        Reached::Full
    }
}

/// Bytes of the repeated part at the smaller of the two sizes [`hlo_repeated`] reads.
pub const REPEATED_BYTES: usize = 16 << 10;

/// (d, repeated) A module made of a head, a piece repeated and a tail (the bytes split at
/// their first two 0 bytes: piece, head, tail), read through every stage of `xlayout hlo`
/// and its peak with the piece repeated to fill [`REPEATED_BYTES`] and then four times as
/// many: the generator of every hostile input the scaling test holds (a long line of
/// strings, a chain of `get-tuple-element`s, a branch listed again and again are each a
/// piece repeated), and of those a fuzzer finds.
///
/// Property: the work (`xlayout::hlo::__steps`, the steps every loop a hostile input could
/// make long counts) at four times the size is at most five times the work at the smaller
/// one, plus a constant: the readers and the analyses are linear (or n log n) in their
/// input. No panic either.
pub fn hlo_repeated(data: &[u8]) -> Reached {
    let mut parts = data.splitn(3, |&b| b == 0);
    let piece = parts.next().unwrap_or_default();
    let (head, tail) = (parts.next().unwrap_or_default(), parts.next().unwrap_or_default());
    if piece.is_empty() {
        return Reached::Nothing;
    }
    let times = REPEATED_BYTES.div_ceil(piece.len());
    let work = |times: usize| {
        let mut bytes = Vec::with_capacity(head.len() + piece.len() * times + tail.len());
        bytes.extend_from_slice(head);
        for _ in 0..times {
            bytes.extend_from_slice(piece);
        }
        bytes.extend_from_slice(tail);
        let before = xlayout::hlo::__steps();
        let instructions = read_with_peak(&bytes);
        (xlayout::hlo::__steps().wrapping_sub(before), instructions)
    };
    let (small, _) = work(times);
    let (large, instructions) = work(4 * times);
    // The constant: what the head and tail cost whatever the piece, and the logarithm of
    // an n log n pass at these sizes.
    let slack = 4096 + 64 * (head.len() + tail.len()) as u64;
    assert!(
        large <= 5 * small + slack,
        "{small} steps with the piece {times} times, {large} with it {} times",
        4 * times
    );
    if instructions == 0 {
        Reached::Refused
    } else {
        Reached::Full
    }
}

/// Decode, read, analyse, report (grouped) and the peak with its summary, as `xlayout hlo`
/// and `xlayout peak` run them; the number of instructions read.
fn read_with_peak(bytes: &[u8]) -> usize {
    let (text, problems) = decode(bytes);
    let mut m = Module::parse(&text);
    m.add_diagnostics(problems);
    let analysis = Analysis::new(&m);
    let options = ReportOptions { group_by: Some(GroupBy::Op), ..ReportOptions::default() };
    let report = Report::new(&analysis, options);
    let _ = report.expanding_more_than(11, 10);
    let peak = xlayout::hlo::Peak::new(&analysis);
    let _ = peak.summary(&m, &Default::default());
    m.instructions.len()
}
