//! Hostile input for the HLO reader: it never panics, reports what it cannot read, and
//! does a bounded amount of work per byte. The inputs below are large enough that a reader
//! that re-scanned the rest of the text at each line (or at each `/*`) would not finish
//! (hundreds of thousands of lines times megabytes); no time is measured.

use proptest::prelude::*;
use xlayout::hlo::{decode, Analysis, DiagnosticKind, InstrId, Module, Report, ReportOptions};

/// Everything the library does with a text, down to the JSON.
fn everything(bytes: &[u8]) -> (usize, usize) {
    let (text, problems) = decode(bytes);
    let m = Module::parse(&text);
    let a = Analysis::new(&m);
    let o = ReportOptions { group_by: Some(xlayout::hlo::GroupBy::Op), ..ReportOptions::default() };
    let r = Report::new(&a, o);
    let json = serde_json::to_string(&r).expect("a report always serializes");
    assert!(json.starts_with('{'));
    (m.instructions.len(), problems.len() + m.diagnostics.len())
}

#[test]
fn unterminated_comments_on_every_line() {
    let line = "  %x = (f32[2]{0}, /* this comment never ends f32[3]) add(%a, /* nor this\n";
    let text = format!("HloModule m\nENTRY %e {{\n{}}}\n", line.repeat(100_000));
    let m = Module::parse(&text);
    // Each line: two comments left open (one reported), the shape cut at the first, and
    // its `(` open where the next line starts; the last line's `(` is closed by the `}` meant
    // for the computation (as a JSON `}` would be), which is then reported unclosed.
    let kinds = |k| m.diagnostics.iter().filter(|d| d.kind == k).count();
    assert_eq!(kinds(DiagnosticKind::Unterminated), 100_000);
    assert_eq!(kinds(DiagnosticKind::Unclosed), 99_999);
    assert_eq!(kinds(DiagnosticKind::Structure), 1);
    assert_eq!(m.lines, 100_003);
}

#[test]
fn one_long_line_of_openers_and_comment_starts() {
    // 4 MB on one line: a shape that opens a comment every few bytes, none closed.
    let text =
        format!("%x = (f32[1], {} add(%y)\n%z = f32[1]{{0}} negate(%x)\n", "/*(".repeat(1 << 20));
    let m = Module::parse(&text);
    assert_eq!(m.instructions.len(), 1);
    assert_eq!(m.instructions[InstrId::new(0)].name, "z");
    let kinds: Vec<_> = m.diagnostics.iter().map(|d| d.kind).collect();
    use DiagnosticKind::*;
    assert_eq!(kinds, [UnreadableLine, Unclosed, InvalidShape, Unterminated]);
    // A million unclosed brackets swallow the lines after them until one starts a statement.
    let text = format!(
        "%x = f32[1]{{0}} add({}\n{}%y = f32[1]{{0}} negate(%x)\n",
        "(".repeat(1 << 20),
        "junk\n".repeat(100_000)
    );
    let m = Module::parse(&text);
    assert_eq!(m.instructions.iter().map(|i| i.name).collect::<Vec<_>>(), ["x", "y"]);
    assert_eq!(m.diagnostics.len(), 1);
}

#[test]
fn deep_nesting_is_refused_before_the_parser() {
    let deep = format!("%t = {}f32[1]{} tuple(%a)\n", "(".repeat(100_000), ")".repeat(100_000));
    let m = Module::parse(&deep);
    assert_eq!(m.diagnostics.len(), 1);
    assert_eq!(m.diagnostics[0].kind, DiagnosticKind::InvalidShape);
    assert!(m.diagnostics[0].message.contains("nest 100001 deep"), "{}", m.diagnostics[0].message);
    // 60 levels are read.
    let ok = format!("%t = {}f32[1]{} tuple(%a)\n", "(".repeat(60), ")".repeat(60));
    let m = Module::parse(&ok);
    assert!(m.diagnostics.is_empty(), "{:?}", m.diagnostics);
    let a = Analysis::new(&m);
    assert_eq!(a.facts(InstrId::new(0)).unwrap().total.array_bytes, 4);
}

#[test]
fn many_lines_of_everything_at_once() {
    // Strings, escapes, unclosed strings, stray braces, tables, headers, binary bytes.
    let mut bytes = Vec::new();
    for i in 0..20_000 {
        bytes.extend_from_slice(
            format!(
                "HloModule m{i}\nFileNames\n{i} \"f\\\"{i}\"\nx {{\n}}\n}}\n%a{i} = s4[{i}]{{0:T(1024)E(4)}} p(%b, \"unclosed\nBINARY\n%c{i} = (f32[{i}]{{0:T(8,128)}}, /*index=5*/token[]) tuple(), metadata={{op_name=\"a\\\"/b(c)=[d]\"}}\n"
            )
            .replace("BINARY", "\u{1}")
            .as_bytes(),
        );
        // Bytes that are not UTF-8 on a line of their own.
        let at = bytes.len() - 1;
        bytes.splice(at..at, [b'\n', 0xff, 0xfe]);
    }
    let (instructions, problems) = everything(&bytes);
    assert_eq!(instructions, 40_000);
    assert!(problems > 60_000, "{problems}");
}

#[test]
fn huge_sizes_and_ranks() {
    let text = "%a = f32[1152921504606846976]{0:T(8,128)} parameter(0)\n\
                %b = s8[4611686018427387904]{0:T(8,128)} parameter(1)\n\
                %c = f32[1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,3]{32,31,30,29,28,27,26,25,24,23,22,21,20,19,18,17,16,15,14,13,12,11,10,9,8,7,6,5,4,3,2,1,0:T(8,128)} parameter(2)\n\
                %d = f32[?,3]{1,0:T(8,128)} parameter(3)\n";
    let m = Module::parse(text);
    assert!(m.diagnostics.is_empty(), "{:?}", m.diagnostics);
    let a = Analysis::new(&m);
    // No size beyond int64 (2^60 floats and 2^62 bytes, each tiled to 8 rows), none for `?`: an
    // explanation instead.
    for i in [0, 1, 3].map(InstrId::new) {
        let leaf = &a.facts(i).unwrap().leaves[0];
        assert!(leaf.sizes.is_none() && leaf.no_size.is_some(), "{i:?}: {leaf:?}");
    }
    // Rank 33: 33 x 32 orders sized exactly; the 3 goes most minor... it is already.
    let c = a.facts(InstrId::new(2)).unwrap().leaves[0].sizes.unwrap();
    assert_eq!(c.array_bytes, 8 * 128 * 4);
    let r = Report::new(&a, ReportOptions::default());
    assert_eq!((r.totals.unsized_owners, r.totals.owned.instructions), (3, 4));
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 256, ..ProptestConfig::default() })]

    /// Any bytes at all.
    #[test]
    fn arbitrary_bytes_never_panic(bytes in proptest::collection::vec(any::<u8>(), 0..2000)) {
        everything(&bytes);
    }

    /// A real module with a piece cut out and HLO punctuation put in.
    #[test]
    fn mutated_modules_never_panic(
        cut in 0usize..6000,
        len in 0usize..400,
        insert in "[\\[\\](){}\"/*%=,:<>?\\\\ \na-z0-9TSEL]{0,40}",
    ) {
        let original = include_str!("data/hlo/gpu_attention_step.txt");
        let start = cut.min(original.len());
        let end = (start + len).min(original.len());
        let mut bytes = original.as_bytes()[..start].to_vec();
        bytes.extend_from_slice(insert.as_bytes());
        bytes.extend_from_slice(&original.as_bytes()[end..]);
        everything(&bytes);
    }
}
