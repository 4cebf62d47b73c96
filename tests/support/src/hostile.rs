//! The hostile inputs of the hostile-input rounds (issues 24 and 31), generated at any size: one
//! generator per class of input that once cost more than linear time or memory. The
//! scaling test (`tests/hostile.rs`) runs each at two sizes and compares the work; the
//! example `hostile_input` writes one to standard output for the release-build
//! measurements in BENCHMARKS.md. (The fuzz target `hlo_repeated` generalizes them: a
//! piece from the fuzzer's bytes, repeated; `tests/fuzz_props.rs` runs it on a piece of
//! each class.)

use std::fmt::Write as _;

/// A class of hostile input.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Class {
    /// One long line of closed strings: `"x" "x" "x" ...`.
    Strings,
    /// One long line of closed comments: `/**/ /**/ ...`.
    Comments,
    /// A module whose lines end in a carriage return alone.
    LoneCr,
    /// A fusion whose root tuple reads each element through one long chain of
    /// `get-tuple-element`.
    GteChain,
    /// A `conditional` naming the same branch computation many times, over a wide tuple.
    SameBranch,
    /// Every instruction in a memory space of its own (`S(k)`).
    SpacePerInstruction,
    /// One tuple whose every leaf is in a memory space of its own.
    SpacePerLeaf,
    /// A `while` naming many condition computations.
    WhileConditions,
    /// Many `input_output_alias` pairs.
    AliasPairs,
    /// Many `get-tuple-element`s with an index out of range, of one wide tuple.
    BadIndexGtes,
    /// A fusion whose custom-call writes many outputs over its operands
    /// (`output_to_operand_aliasing`, issue 31 item 6).
    AliasedOutputs,
    /// Many lines of one byte that is not UTF-8.
    NotUtf8Lines,
    /// Many lines of one shape each, for the line-based commands, ending in a lone CR.
    ShapeLines,
    /// An out-of-memory report's entry followed by many lines that are no field of it, for
    /// `xlayout oom`.
    OomLines,
    /// A module written on one line (XLA's parser is blind to line ends): many statements,
    /// each with strings and brackets, after the last on the same line.
    OneLine,
    /// The dump for `xlayout oom --hlo`: a module of one instruction, `%f.1`, whose tuple
    /// shape, `op_name` and `source_file` are each a third of the text (the last two with an
    /// escaped quote, so that the reader holds them as copies of their own).
    JoinDump,
    /// The report for it: entries of about 150 bytes, each naming `f.1` with another shape
    /// (`f32[]`), every tenth naming an instruction the dump does not have.
    JoinReport,
    /// One tuple whose every element is tuples nested as deep as the limit allows around one
    /// `f32[]`: two bytes of text per subshape, and shape indices as long as they get.
    DeepTuples,
    /// One tuple of many leaves that pad (`f32[100,2]{1,0:T(8,128)}`, 13 times its data),
    /// each with a better layout to find.
    PaddedLeaves,
    /// One tuple of the shortest leaves there are, `f32[]`: seven bytes a leaf.
    ShortLeaves,
    /// An out-of-memory report pasted as a JSON string on one line, whose every escaped line
    /// is one number (`\n1\n1...`).
    OomNumber,
    /// An out-of-memory report of the smallest entries there are (`1. Size: 4B`).
    OomEntries,
}

impl Class {
    /// Every class, in the order of the issue's table.
    pub const ALL: [Class; 22] = [
        Class::Strings,
        Class::Comments,
        Class::LoneCr,
        Class::GteChain,
        Class::SameBranch,
        Class::SpacePerInstruction,
        Class::SpacePerLeaf,
        Class::WhileConditions,
        Class::AliasPairs,
        Class::BadIndexGtes,
        Class::AliasedOutputs,
        Class::NotUtf8Lines,
        Class::ShapeLines,
        Class::OomLines,
        Class::OneLine,
        Class::JoinDump,
        Class::JoinReport,
        Class::DeepTuples,
        Class::PaddedLeaves,
        Class::ShortLeaves,
        Class::OomNumber,
        Class::OomEntries,
    ];

    /// Its name on the command line of the example.
    pub fn name(self) -> &'static str {
        match self {
            Class::Strings => "strings",
            Class::Comments => "comments",
            Class::LoneCr => "lone-cr",
            Class::GteChain => "gte-chain",
            Class::SameBranch => "same-branch",
            Class::SpacePerInstruction => "space-per-instruction",
            Class::SpacePerLeaf => "space-per-leaf",
            Class::WhileConditions => "while-conditions",
            Class::AliasPairs => "alias-pairs",
            Class::BadIndexGtes => "bad-index-gtes",
            Class::AliasedOutputs => "aliased-outputs",
            Class::NotUtf8Lines => "not-utf8-lines",
            Class::ShapeLines => "shape-lines",
            Class::OomLines => "oom-lines",
            Class::OneLine => "one-line",
            Class::JoinDump => "join-dump",
            Class::JoinReport => "join-report",
            Class::DeepTuples => "deep-tuples",
            Class::PaddedLeaves => "padded-leaves",
            Class::ShortLeaves => "short-leaves",
            Class::OomNumber => "oom-number",
            Class::OomEntries => "oom-entries",
        }
    }

    /// Whether it is a text for the line-based commands or `xlayout oom`, not a module.
    pub fn is_report(self) -> bool {
        matches!(
            self,
            Class::ShapeLines
                | Class::OomLines
                | Class::JoinReport
                | Class::OomNumber
                | Class::OomEntries
        )
    }

    /// The class called `name`.
    pub fn parse(name: &str) -> Option<Class> {
        Class::ALL.into_iter().find(|c| c.name() == name)
    }
}

/// Repeats `piece(k)` for k = 0, 1, ... until `out` holds `len` more bytes.
fn fill(out: &mut String, len: usize, mut piece: impl FnMut(&mut String, usize)) {
    let end = out.len() + len;
    let mut k = 0;
    while out.len() < end {
        piece(out, k);
        k += 1;
    }
}

/// How many times `piece` (of about `each` bytes) fits in `len`: at least 1.
fn count(len: usize, each: usize) -> usize {
    (len / each).max(1)
}

/// A tuple shape of `n` elements of `f32[1]{0}`.
fn wide(n: usize) -> String {
    let mut s = String::from("(");
    for k in 0..n {
        s += if k == 0 { "f32[1]{0}" } else { ", f32[1]{0}" };
    }
    s + ")"
}

/// `%name0, %name1, ...` for `n` names, or the one name `n` times when `same`.
fn names(prefix: &str, n: usize, same: bool) -> String {
    let mut s = String::new();
    for k in 0..n {
        if k > 0 {
            s += ", ";
        }
        let _ = if same { write!(s, "%{prefix}") } else { write!(s, "%{prefix}{k}") };
    }
    s
}

/// The input of `class`, about `len` bytes long.
pub fn generate(class: Class, len: usize) -> Vec<u8> {
    let mut s = String::new();
    match class {
        Class::Strings => fill(&mut s, len, |s, _| *s += "\"x\" "),
        Class::Comments => fill(&mut s, len, |s, _| *s += "/**/ "),
        Class::LoneCr => {
            s += "HloModule m, is_scheduled=true\r\rENTRY %e {\r  %a0 = f32[2]{0} parameter(0)\r";
            fill(&mut s, len, |s, k| {
                let _ = write!(s, "  %a{} = f32[2]{{0}} negate(%a{k})\r", k + 1);
            });
            s += "}\r";
        }
        Class::GteChain => {
            // Half the text the chain, half the tuple: each of its elements reads the chain.
            let chain = count(len / 2, 60);
            let leaves = count(len / 2, 30);
            let t = wide(leaves);
            let _ = write!(
                s,
                "HloModule m, is_scheduled=true\n\n%fused (p: f32[1]) -> {t} {{\n  %g0 = f32[1]{{0}} parameter(0)\n"
            );
            for k in 1..chain {
                let _ =
                    writeln!(s, "  %g{k} = f32[1]{{0}} get-tuple-element(%g{}), index=0", k - 1);
            }
            let last = format!("g{}", chain - 1);
            let _ = write!(
                s,
                "  ROOT %r = {t} tuple({})\n}}\n\nENTRY %e (a: f32[1]) -> {t} {{\n  %a = f32[1]{{0}} parameter(0)\n  ROOT %f = {t} fusion(%a), kind=kLoop, calls=%fused\n}}\n",
                names(&last, leaves, true)
            );
        }
        Class::SameBranch => {
            // Half the text the tuple's elements (written six times), half the branches.
            let n = count(len / 2, 66);
            let branches = count(len / 2, 12);
            let t = wide(n);
            let _ = write!(
                s,
                "HloModule m, is_scheduled=true\n\n%b (p: {t}) -> {t} {{\n  ROOT %p = {t} parameter(0)\n}}\n\n\
                 ENTRY %e (i: s32[], a: {t}) -> {t} {{\n  %i = s32[] parameter(0)\n  %a = {t} parameter(1)\n  \
                 ROOT %c = {t} conditional(%i, {}), branch_computations={{{}}}\n}}\n",
                names("a", branches, true),
                names("b", branches, true)
            );
        }
        Class::SpacePerInstruction => {
            s += "HloModule m\n\nENTRY %e {\n";
            fill(&mut s, len, |s, k| {
                let _ = writeln!(s, "  %p{k} = f32[1]{{0:S({k})}} parameter({k})");
            });
            s += "}\n";
        }
        Class::SpacePerLeaf => {
            s += "HloModule m\n\nENTRY %e {\n  ROOT %t = (";
            fill(&mut s, len, |s, k| {
                let _ = write!(s, "{}f32[1]{{0:S({k})}}", if k == 0 { "" } else { ", " });
            });
            s += ") parameter(0)\n}\n";
        }
        Class::WhileConditions => {
            let k = count(len, 130);
            s += "HloModule m, is_scheduled=true\n\n%body (p: (s32[])) -> (s32[]) {\n  ROOT %bp = (s32[]) parameter(0)\n}\n\n";
            for c in 0..k {
                let _ = write!(
                    s,
                    "%c{c} (p: (s32[])) -> pred[] {{\n  %q{c} = (s32[]) parameter(0)\n  ROOT %r{c} = pred[] constant(true)\n}}\n\n"
                );
            }
            let _ = write!(
                s,
                "ENTRY %e (a: s32[]) -> (s32[]) {{\n  %a = s32[] parameter(0)\n  %t = (s32[]) tuple(%a)\n  \
                 ROOT %w = (s32[]) while(%t), condition={{{}}}, body=%body\n}}\n",
                names("c", k, false)
            );
        }
        Class::AliasPairs => {
            let n = count(len, 70);
            s += "HloModule m, is_scheduled=true, input_output_alias={ ";
            for k in 0..n {
                let _ =
                    write!(s, "{}{{{k}}}: ({k}, {{}}, may-alias)", if k == 0 { "" } else { ", " });
            }
            s += " }\n\nENTRY %e {\n";
            for k in 0..n {
                let _ = writeln!(s, "  %p{k} = f32[1]{{0}} parameter({k})");
            }
            let _ = write!(s, "  ROOT %t = {} tuple({})\n}}\n", wide(n), names("p", n, false));
        }
        Class::BadIndexGtes => {
            // Half the text the tuple, half the get-tuple-elements.
            let n = count(len / 2, 11);
            let gtes = count(len / 2, 60);
            let _ = write!(
                s,
                "HloModule m, is_scheduled=true\n\nENTRY %e {{\n  %t = {} parameter(0)\n",
                wide(n)
            );
            for k in 0..gtes {
                let _ = writeln!(s, "  %g{k} = f32[1]{{0}} get-tuple-element(%t), index=99999999");
            }
            s += "  ROOT %r = f32[1]{0} parameter(1)\n}\n";
        }
        Class::AliasedOutputs => {
            // Per output: a fused parameter (38 bytes), an operand and a pair of the
            // custom-call (25), an entry parameter (34) and the fusion's operand (6).
            let n = count(len, 103);
            let t = wide(n);
            s += "HloModule m, is_scheduled=true\n\n%fused {\n";
            for k in 0..n {
                let _ = writeln!(s, "  %q{k} = f32[1]{{0}} parameter({k})");
            }
            let _ = write!(s, "  ROOT %c = {t} custom-call({}), custom_call_target=\"x\", output_to_operand_aliasing={{", names("q", n, false));
            for k in 0..n {
                let _ = write!(s, "{}{{{k}}}: ({k}, {{}})", if k == 0 { "" } else { ", " });
            }
            s += "}\n}\n\nENTRY %e {\n";
            for k in 0..n {
                let _ = writeln!(s, "  %p{k} = f32[1]{{0}} parameter({k})");
            }
            let _ = write!(
                s,
                "  ROOT %f = {t} fusion({}), kind=kLoop, calls=%fused\n}}\n",
                names("p", n, false)
            );
        }
        Class::NotUtf8Lines => {
            let mut bytes = Vec::with_capacity(len + 2);
            while bytes.len() < len {
                bytes.extend_from_slice(b"\xff\n");
            }
            return bytes;
        }
        Class::ShapeLines => {
            fill(&mut s, len, |s, k| {
                let _ = write!(s, "f32[{},8]{{1,0:T(8,128)}}\r", k % 1000 + 1);
            });
        }
        Class::OneLine => {
            s += "HloModule m, is_scheduled=true FileNames 1 \"m.py\" ENTRY %e { %a0 = f32[2]{0} \
                  parameter(0), metadata={op_name=\"a b\" source_file=\"m.py\" source_line=1}";
            fill(&mut s, len, |s, k| {
                let _ = write!(
                    s,
                    " %a{} = f32[2]{{0}} negate(%a{k}), metadata={{op_name=\"x \\\"}}\\\" y\"}}",
                    k + 1
                );
            });
            s += " }\n";
        }
        Class::OomLines => {
            s += "Ran out of memory in memory space hbm. Used 2.00G of 1.00G hbm.\n  Largest program allocations in hbm:\n  1. Size: 4B\n     Shape: f32[]\n";
            fill(&mut s, len, |s, _| *s += "??\n");
        }
        Class::JoinDump => {
            let third = len / 3;
            let shape = wide(count(third, 11));
            let mut op_name = String::from("jit(f)/\\\"q\\\"/");
            let rest = third.saturating_sub(op_name.len());
            fill(&mut op_name, rest, |s, k| {
                let _ = write!(s, "layer_{}/", k % 10);
            });
            let mut file = String::from("/src/\\\"q\\\"/");
            let rest = third.saturating_sub(file.len());
            fill(&mut file, rest, |s, _| *s += "d/");
            let _ = write!(
                s,
                "HloModule m, is_scheduled=true\n\nENTRY %e {{\n  ROOT %f.1 = {shape} parameter(0), \
                 metadata={{op_name=\"{op_name}\" source_file=\"{file}model.py\" source_line=7}}\n}}\n"
            );
        }
        Class::DeepTuples => {
            // Inside the outer tuple, as deep as the limit lets an element go.
            let depth = xlayout::limits::MAX_NESTING - 1;
            let element = format!("{}f32[]{}", "(".repeat(depth), ")".repeat(depth));
            s += "HloModule m, is_scheduled=true\n\nENTRY %e {\n  ROOT %t = (";
            fill(&mut s, len, |s, k| {
                *s += if k == 0 { "" } else { ", " };
                *s += &element;
            });
            s += ") parameter(0)\n}\n";
        }
        Class::PaddedLeaves | Class::ShortLeaves => {
            let leaf =
                if class == Class::PaddedLeaves { "f32[100,2]{1,0:T(8,128)}" } else { "f32[]" };
            s += "HloModule m, is_scheduled=true\n\nENTRY %e {\n  ROOT %t = (";
            fill(&mut s, len, |s, k| {
                *s += if k == 0 { "" } else { ", " };
                *s += leaf;
            });
            s += ") parameter(0)\n}\n";
        }
        Class::OomNumber => {
            s += "{\"error\": \"Ran out of memory in memory space hbm. Used 2.00G of 1.00G hbm.";
            fill(&mut s, len, |s, _| *s += "\\n1");
            s += "\"}\n";
        }
        Class::OomEntries => {
            s += "Ran out of memory in memory space hbm. Used 2.00G of 1.00G hbm.\n  Largest program allocations in hbm:\n";
            fill(&mut s, len, |s, _| *s += "  1. Size: 4B\n");
        }
        Class::JoinReport => {
            s += "Ran out of memory in memory space hbm. Used 2.00G of 1.00G hbm.\n  Largest program allocations in hbm:\n\n";
            fill(&mut s, len, |s, k| {
                let name = if k % 10 == 9 { format!("gone.{k}") } else { String::from("f.1") };
                let _ = write!(
                    s,
                    "  {}. Size: 4B\n     Shape: f32[]\n     Unpadded size: 4B\n     XLA label: {name} = parameter(0)\n     Allocation type: HLO temp\n     ==========================\n\n",
                    k + 1
                );
            });
        }
    }
    s.into_bytes()
}
