//! (d) HLO module text: any bytes through `xlayout::hlo`'s stages (decode, parse, analysis,
//! report), as `xlayout hlo` runs them.
//!
//! Properties: no panic; decoding is the identity on UTF-8 and reports each line that is not
//! (inside the text's lines, in order); every diagnostic is on a line of the text, in line
//! order; every instruction is on a line of the text and its shape, when read, is valid;
//! every row and the whole report serialize to JSON.

use xlayout::hlo::{decode, Analysis, GroupBy, Module, Report, ReportOptions};

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
    let lines = text.split('\n').count();
    assert!(m.lines <= lines, "{} lines read of {lines}", m.lines);
    for w in m.diagnostics.windows(2) {
        assert!(w[0].line <= w[1].line, "diagnostics out of line order: {w:?}");
    }
    for d in &m.diagnostics {
        assert!((1..=lines).contains(&d.line), "{d:?} of {lines} lines");
    }
    for (i, ins) in m.instructions.iter().enumerate() {
        assert!((1..=lines).contains(&ins.line), "instruction {i} on line {}", ins.line);
        if let Some(shape) = m.shape(i) {
            assert_eq!(shape.validate(), Ok(()), "instruction {i}");
        }
    }
    let analysis = Analysis::new(&m);
    for i in 0..m.instructions.len() {
        let row = analysis.row(i);
        assert_eq!(row.line, m.instructions[i].line);
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
