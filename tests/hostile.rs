//! Hostile input: every input of the hostile-input issues, and the limits, answered with an
//! error or a correct result in bounded memory, measured by a counting allocator; and the
//! work of reading each class of hostile module at two sizes, counted in steps and bytes
//! allocated, growing no faster than the input.
//!
//! The tests take one lock, so the allocator's counts belong to the case being measured
//! (the harness runs the tests of one binary on several threads). Times are printed, not
//! asserted: speed is for benchmarks.

use std::alloc::{GlobalAlloc, Layout as AllocLayout, System};
use std::sync::atomic::{AtomicUsize, Ordering::Relaxed};
use std::sync::{Mutex, MutexGuard};
use std::time::Instant;

use xlayout::hlo::{
    decode, Analysis, DiagnosticKind, Keyed, Module, Peak, Report, ReportOptions, Rule,
    RunningTotals, Sum, Totals,
};
use xlayout::oom::{join, join_problems, Named, OomReport};
use xlayout::{limits, ArrayShape, Dim, ErrorKind, Layout, PrimitiveType, Shape, Tile};

use xlayout_test_support::checks;
use xlayout_test_support::hostile::{self as hostile_inputs, Class};

/// Counts live bytes, their peak since the last reset, and all bytes allocated.
struct Counting;

static LIVE: AtomicUsize = AtomicUsize::new(0);
static PEAK: AtomicUsize = AtomicUsize::new(0);
static TOTAL: AtomicUsize = AtomicUsize::new(0);

/// Held by every test of this binary while it runs: one at a time.
static ONE_AT_A_TIME: Mutex<()> = Mutex::new(());

fn one_at_a_time() -> MutexGuard<'static, ()> {
    // A test that failed while holding the lock poisons it; the others still run.
    ONE_AT_A_TIME.lock().unwrap_or_else(|e| e.into_inner())
}

// SAFETY: every call is forwarded to the system allocator with the caller's arguments, so
// this allocator upholds GlobalAlloc's contract exactly as `System` does; the counters are
// atomics and never allocate.
unsafe impl GlobalAlloc for Counting {
    unsafe fn alloc(&self, layout: AllocLayout) -> *mut u8 {
        // SAFETY: the caller's contract for `alloc` is passed on unchanged.
        let p = unsafe { System.alloc(layout) };
        if !p.is_null() {
            let live = LIVE.fetch_add(layout.size(), Relaxed) + layout.size();
            PEAK.fetch_max(live, Relaxed);
            TOTAL.fetch_add(layout.size(), Relaxed);
        }
        p
    }

    unsafe fn dealloc(&self, ptr: *mut u8, layout: AllocLayout) {
        // SAFETY: `ptr` was allocated by `alloc` above (that is, by `System`) with `layout`.
        unsafe { System.dealloc(ptr, layout) };
        LIVE.fetch_sub(layout.size(), Relaxed);
    }
}

#[global_allocator]
static ALLOCATOR: Counting = Counting;

/// The budget of the hostile-input issue: 64 MB for any of its inputs.
const BUDGET: usize = 64 << 20;

/// Runs `f` and returns its result with the peak of bytes allocated while it ran (beyond
/// what was live before), printing the time it took.
fn measure<R>(name: &str, f: impl FnOnce() -> R) -> (R, usize) {
    let start = Instant::now();
    let (r, peak) = peak_of(f);
    eprintln!("{name}: {:?}, peak {} bytes", start.elapsed(), peak);
    (r, peak)
}

/// Runs `f` and returns its result with the peak of bytes allocated while it ran (beyond
/// what was live before).
fn peak_of<R>(f: impl FnOnce() -> R) -> (R, usize) {
    let base = LIVE.load(Relaxed);
    PEAK.store(base, Relaxed);
    let r = f();
    (r, PEAK.load(Relaxed) - base)
}

fn kind<T: std::fmt::Debug>(r: Result<T, xlayout::Error>) -> ErrorKind {
    r.unwrap_err().kind()
}

#[test]
fn every_hostile_input_is_answered_in_bounded_memory() {
    let _one = one_at_a_time();
    // 1. Unbalanced and balanced nesting: an error, never a stack overflow, even on a thread
    //    with a 2 MiB stack.
    let open = "(".repeat(100_000);
    let balanced = format!("{}f32[]{}", "(".repeat(10_000), ")".repeat(10_000));
    let deep = std::thread::Builder::new()
        .stack_size(2 << 20)
        .spawn(move || {
            let a = "(".repeat(4000).parse::<Shape>().unwrap_err().kind();
            let b = open.parse::<Shape>().unwrap_err().kind();
            let c = balanced.parse::<Shape>().unwrap_err();
            (a, b, c.kind(), c.span())
        })
        .unwrap()
        .join()
        .unwrap();
    let at = limits::MAX_NESTING;
    assert_eq!(
        deep,
        (
            ErrorKind::NestingTooDeep,
            ErrorKind::NestingTooDeep,
            ErrorKind::NestingTooDeep,
            Some(at..at + 1)
        )
    );
    // The deepest nesting allowed parses, and prints back.
    let ok = format!("{}f32[]{}", "(".repeat(at), ")".repeat(at));
    let s: Shape = ok.parse().unwrap();
    assert_eq!(s.to_string(), format!("{}f32[]{}", "(".repeat(at), ")".repeat(at)));

    // 2. 1,000 deep, 200,000 elements (1.4 MB of text): refused at the 65th level, cheaply.
    let elements = vec!["f32[]"; 200_000].join(", ");
    let text = format!("{}{elements}{}", "(".repeat(1000), ")".repeat(1000));
    let (r, peak) = measure("2: 1000 deep x 200000", || text.parse::<Shape>());
    assert_eq!(kind(r), ErrorKind::NestingTooDeep);
    assert!(peak < BUDGET, "{peak}");
    //    At the limit with all its elements it is valid, and memory stays linear in the text:
    //    a scalar of 7 bytes of text becomes a model `Shape` of 144 bytes, in a vector that
    //    grows by doubling (so up to three such vectors' worth while it grows).
    let text = format!("{}{elements}{}", "(".repeat(64), ")".repeat(64));
    let (r, peak) = measure("2: 64 deep x 200000", || text.parse::<Shape>());
    assert!(r.is_ok());
    assert!(peak < 64 * text.len(), "{peak} for {} bytes of text", text.len());

    // 3. Validation is linear in the rank: a shape built in code with rank 250,000 (the
    //    parser refuses ranks beyond the limit at the text).
    let rank = 250_000;
    let mut a = ArrayShape::new(PrimitiveType::F32, std::iter::repeat(1).take(rank));
    let (r, peak) = measure("3: validate rank 250000", || Shape::Array(a.clone()).validate());
    assert!(r.is_ok());
    assert!(peak < BUDGET, "{peak}");
    a.layout.as_mut().unwrap().minor_to_major[0] = 0; // 0 twice: first and last
    let (r, _) = measure("3: validate rank 250000, duplicate", || a.check().map(|_| ()));
    assert_eq!(kind(r), ErrorKind::MinorToMajorDuplicate);
    let valid = ArrayShape::new(PrimitiveType::F32, std::iter::repeat(1).take(rank));
    assert_eq!(kind(valid.check().map(|_| ())), ErrorKind::RankTooLarge);
    let dims = vec!["1"; rank].join(",");
    let (r, peak) = measure("3: parse rank 250000", || format!("f32[{dims}]").parse::<Shape>());
    assert_eq!(kind(r), ErrorKind::RankTooLarge);
    assert!(peak < BUDGET, "{peak}");

    // 4. Plans of many tile levels: 20,000 levels are refused at the text; at the limits
    //    (rank 256, 16 levels of all-1 tiles over every dimension) the plan is small.
    let text = format!("f32[2]{{0:T{}}}", "(1)".repeat(20_000));
    let (r, peak) = measure("4: 20000 tile levels", || text.parse::<Shape>());
    assert_eq!(kind(r), ErrorKind::TooManyTileLevels);
    assert!(peak < BUDGET, "{peak}");
    let r = limits::MAX_RANK;
    let ones = format!("({})", vec!["1"; r].join(","));
    let m2m: Vec<String> = (0..r).rev().map(|d| d.to_string()).collect();
    // 32 dimensions of 2 and the rest of 1: 2^32 elements, row-major whatever the tiles.
    let dims: Vec<&str> = (0..r).map(|d| if d < 32 { "2" } else { "1" }).collect();
    let text = format!(
        "f32[{}]{{{}:T{}}}",
        dims.join(","),
        m2m.join(","),
        ones.repeat(limits::MAX_TILE_LEVELS)
    );
    let a: ArrayShape = text.parse().unwrap();
    let (plan, peak) = measure("4: rank 256 x 16 levels of ones", || a.plan());
    let plan = plan.unwrap();
    let index: Vec<usize> = (0..r).map(|d| usize::from(d < 32)).collect();
    assert_eq!(plan.offset(&index).unwrap(), (1 << 32) - 1);
    assert!(peak < BUDGET, "{peak}");
    //    Built in code past the limits: refused by the checked type.
    let mut a = ArrayShape::new(PrimitiveType::F32, [2]);
    a.layout.as_mut().unwrap().tiles = vec![Tile::new([1]); 20_000];
    assert_eq!(kind(a.plan()), ErrorKind::TooManyTileLevels);

    // 5. Axis names of nested `*` merges stay short (they grew exponentially).
    let text = format!("f32[4,4]{{1,0:T{}}}", "(*,2)".repeat(limits::MAX_TILE_LEVELS));
    let a: ArrayShape = text.parse().unwrap();
    let (names, peak) =
        measure("5: names of 16 `*` levels", || a.plan().unwrap().expanded_axis_names());
    assert!(names.iter().all(|n| n.len() < 100), "{names:?}");
    assert!(peak < BUDGET, "{peak}");
    let text = format!("f32[4,4]{{1,0:T{}}}", "(*,2)".repeat(26));
    assert_eq!(kind(text.parse::<Shape>()), ErrorKind::TooManyTileLevels);

    // 6. The pad-reshape-transpose text of an empty array with a huge dimension: no overflow
    //    (a debug build checks every operation; these tests run in one).
    let a: ArrayShape = "s64[7,0,4611686018427387904]{1,2,0}".parse().unwrap();
    let recipe = a.plan().unwrap().pad_reshape_transpose().to_string();
    assert!(recipe.ends_with("buf = a.reshape(-1)  # 0 elements; buf[offset]\n"), "{recipe}");

    // 7. A tile whose element count does not fit in 64 bits: the plan of the (empty) array
    //    is fine, and its tile level says what it covers.
    let a: ArrayShape = "f32[0,2]{1,0:T(4294967296,4294967297)}".parse().unwrap();
    let plan = a.plan().unwrap();
    assert_eq!(plan.grid_len(), 0);
    assert_eq!(plan.tile_levels()[0].tile, [4294967296, 4294967297]);
}

/// The error of `Shape::try_array` on a tuple of 100,000 leaves quotes 200 characters of it:
/// a few hundred bytes, where it copied the whole text (1.1 MB) before, which a caller
/// asking of every row of a report paid per row.
#[test]
fn the_error_of_an_array_asked_of_a_long_tuple_is_short() {
    let _one = one_at_a_time();
    let wide: Shape = format!("({})", vec!["f32[2]{0}"; 100_000].join(", ")).parse().unwrap();
    let (e, peak) = measure("try_array of a wide tuple", || wide.try_array().unwrap_err());
    assert_eq!(e.kind(), ErrorKind::NotStaticArray);
    assert!(e.message().starts_with("`(f32[2]{0}, f32[2]{0}, "), "{}", e.message());
    assert!(e.message().ends_with("...` is a tuple, not an array shape"), "{}", e.message());
    assert!(peak < 4096, "{peak} bytes");
}

/// Reading a module whose one instruction is a tuple of many equal elements (short leaves,
/// or the same tuple nested 63 deep) holds each distinct element once and a 4-byte id per
/// element: the module's peak stays under twice its text (the ids' list grows by doubling).
/// Each element was a `Shape` of its own (152 bytes, in a list grown by doubling; 63 of them
/// per deep element): over 1.3 MB for the 9,000 leaves of 64 KiB of short leaves, and 63
/// times the 500 deep elements' 152 bytes (4.8 MB) for the deep tuples.
#[test]
fn a_tuple_of_equal_elements_is_read_in_less_than_twice_its_text() {
    let _one = one_at_a_time();
    for class in [Class::ShortLeaves, Class::DeepTuples] {
        let bytes = hostile_inputs::generate(class, N);
        let (text, problems) = decode(&bytes);
        assert!(problems.is_empty(), "{}: {problems:?}", class.name());
        let (m, w) = work(|| Module::parse(&text));
        assert_eq!(m.instructions.len(), 1, "{}", class.name());
        let Shape::Tuple(t) = &m.shapes.raw()[0] else { panic!("{}", class.name()) };
        assert_eq!((t.len() > 400, t.distinct().len()), (true, 1), "{}", class.name());
        assert!(w.peak < 2 * N, "{}: {w:?} for {} bytes", class.name(), bytes.len());
    }
}

/// A tuple whose expansion is past the module's budget of shape-index entries (the deep
/// tuples at 8N bytes: 3,943 elements, each 64 subshapes deep, 8.2 million entries against
/// 4.19 million) is refused at its line before it is parsed, in work and memory linear in
/// its text, and the analyses have nothing to expand; at 4N (1,972 elements, 4.1 million
/// entries) it is read and analysed whole
/// (`every_class_of_hostile_module_costs_work_linear_in_its_size`). Without the budget the
/// analyses expanded the 252,000 subshapes and copied their indices (up to 64 entries each)
/// several times: here 1.23 GB allocated, 351 MB at the peak (and 13.7 GB, 52 s for
/// `xlayout hlo` on 20 MB, release build).
#[test]
fn a_tuple_past_the_budget_of_shape_index_entries_is_refused_at_its_line() {
    let _one = one_at_a_time();
    let bytes = hostile_inputs::generate(Class::DeepTuples, 8 * N);
    let elements = bytes.windows(4).filter(|w| w == b"f32[").count() as u64;
    let entries = elements * (64 * 65 / 2);
    assert!(entries > xlayout::hlo::MODULE_SHAPE_INDEX_BUDGET, "{entries}");
    let (r, w) = work(|| read(&bytes));
    eprintln!("deep tuples at {} bytes: {w:?}", bytes.len());
    assert_eq!(r.instructions, 1);
    assert_eq!(r.problems, [(DiagnosticKind::InvalidShape, 4, 1)]);
    // The parameter's one allocation, of no known size.
    assert_eq!((r.allocations, r.argument_bytes), (1, 0));
    let (text, _) = decode(&bytes);
    let m = Module::parse(&text);
    let subshapes = 1 + 64 * elements;
    assert_eq!(
        m.diagnostics[0].message,
        format!(
            "the result shape has {subshapes} subshapes with {entries} shape-index entries (0 \
             in the module before it); the analyses take at most 4194304 entries a module: \
             not read"
        )
    );
    assert_eq!(m.instructions.iter().map(|i| i.shape).collect::<Vec<_>>(), [None]);
    // The module of one instruction, and no expansion (the text is UTF-8: borrowed).
    assert!(w.peak < 64 << 10, "{w:?} for {} bytes", bytes.len());
    assert!(w.allocated < 64 << 10, "{w:?} for {} bytes", bytes.len());
    assert!(w.steps < 4 * bytes.len() as u64, "{w:?} for {} bytes", bytes.len());
}

/// Drawing any array shape (the fuzz target `draw`'s: sizes of 0 under tiles of 2^31 to
/// 2^63-1, `*` merges, sub-byte types, `L(n)`, windows and origins at the ends of `usize`;
/// the map of the HTML report too) takes memory for what is drawn, never for what the shape's
/// numbers say: at most [`DRAW_BUDGET`]. The shapes asked for 51 GB (an abort) and
/// for more than `usize` (a panic).
#[test]
fn drawing_any_shape_allocates_within_a_bound() {
    use proptest::test_runner::{Config, TestRunner};
    let _one = one_at_a_time();
    for text in [
        "u8[0,1]{1,0:T(2147483648,2147483648)}",
        "f32[0,5]{1,0:T(2,9223372036854775807)}",
        "f32[4096,4096]{1,0:T(8,128)}",
    ] {
        let case = [b"\0", text.as_bytes()].concat();
        let (reached, peak) = measure(text, || checks::draw::draw_case(&case));
        assert_eq!(reached, checks::Reached::Full, "{text}");
        assert!(peak < DRAW_BUDGET, "{text}: {peak} bytes");
    }
    // Any shape and options, from the bytes as the fuzz target builds them.
    let config = Config { cases: 1500, failure_persistence: None, ..Config::default() };
    let worst = std::cell::RefCell::new((0, Vec::new()));
    let bytes = proptest::collection::vec(proptest::num::u8::ANY, 0..96);
    TestRunner::new(config)
        .run(&bytes, |bytes| {
            let (_, peak) = peak_of(|| checks::draw::draw_case(&bytes));
            if peak > worst.borrow().0 {
                *worst.borrow_mut() = (peak, bytes.clone());
            }
            proptest::prop_assert!(peak < DRAW_BUDGET, "{peak} bytes for {bytes:?}");
            Ok(())
        })
        .unwrap();
    let (peak, bytes) = worst.into_inner();
    eprintln!("drawing: at most {peak} bytes, for {bytes:?}");
}

/// The memory a picture may take: two panels of at most 16,384 cells each, their text (a few
/// megabytes) and the cells' strings while it is written (the largest the test has measured
/// is about 20 MB).
const DRAW_BUDGET: usize = BUDGET;

#[test]
fn limits_are_errors_at_the_text_that_crosses_them() {
    let _one = one_at_a_time();
    let r = limits::MAX_RANK;
    let at = |text: &str| text.parse::<Shape>().unwrap_err();
    // minor_to_major entries, tile entries and split configs share the rank limit.
    let m2m = vec!["0"; r + 1].join(",");
    let e = at(&format!("f32[2]{{{m2m}}}"));
    assert_eq!((e.kind(), e.span()), (ErrorKind::RankTooLarge, Some(7 + 2 * r..8 + 2 * r)));
    let tile = vec!["1"; r + 1].join(",");
    let e = at(&format!("f32[2]{{0:T({tile})}}"));
    assert_eq!((e.kind(), e.span()), (ErrorKind::RankTooLarge, Some(11 + 2 * r..12 + 2 * r)));
    let e = at(&format!("f32[2]{{0:SC{}}}", "(0:1)".repeat(r + 1)));
    assert_eq!(e.kind(), ErrorKind::RankTooLarge);
    let e = at(&format!("f32[2]{{0:T{}}}", "(1)".repeat(limits::MAX_TILE_LEVELS + 1)));
    let t = 10 + 3 * limits::MAX_TILE_LEVELS;
    assert_eq!((e.kind(), e.span()), (ErrorKind::TooManyTileLevels, Some(t..t + 1)));
    // Buffers count as nesting too.
    let text = format!("{}f32[2]{}", "b(".repeat(65), ")".repeat(65));
    assert_eq!(at(&text).kind(), ErrorKind::NestingTooDeep);
    // A layout alone has the same limits.
    let e = format!("{{0:T{}}}", "(1)".repeat(17)).parse::<Layout>().unwrap_err();
    assert_eq!(e.kind(), ErrorKind::TooManyTileLevels);
    // Built in code: the checked type refuses what the parser would.
    let mut a = ArrayShape::new(PrimitiveType::F32, [1]);
    a.dims = vec![Dim::Static(1); r + 1];
    a.layout = None;
    assert_eq!(kind(a.check().map(|_| ())), ErrorKind::RankTooLarge);
}

/// What reading one input cost: the library's steps (`xlayout::hlo::__steps`), the bytes
/// allocated in all, and the most that were live at once (beyond what was live before).
#[derive(Clone, Copy, Debug)]
struct Work {
    steps: u64,
    allocated: usize,
    peak: usize,
}

/// Runs `f` and measures its work.
fn work<R>(f: impl FnOnce() -> R) -> (R, Work) {
    let (base, total, steps) = (LIVE.load(Relaxed), TOTAL.load(Relaxed), xlayout::hlo::__steps());
    PEAK.store(base, Relaxed);
    let r = f();
    let w = Work {
        steps: xlayout::hlo::__steps() - steps,
        allocated: TOTAL.load(Relaxed) - total,
        peak: PEAK.load(Relaxed) - base,
    };
    (r, w)
}

/// What the reading of one input says, for the checks of each class.
struct Read {
    instructions: usize,
    lines: usize,
    problems: Vec<(DiagnosticKind, usize, usize)>,
    rules: Vec<Rule>,
    spaces: usize,
    /// The predicted allocations, and their arguments' bytes.
    allocations: usize,
    argument_bytes: u64,
}

/// Everything `xlayout hlo` and `xlayout hlo --peak` do with a module's bytes before
/// printing: decode, read, analyse, report (grouped), and the peak with its summary.
fn read(bytes: &[u8]) -> Read {
    let (text, problems) = decode(bytes);
    let mut m = Module::parse(&text);
    m.add_diagnostics(problems);
    let a = Analysis::new(&m);
    let options = ReportOptions { group_by: Some(xlayout::hlo::GroupBy::Op), ..Default::default() };
    let r = Report::new(&a, options);
    let peak = Peak::new(&a);
    let _ = peak.summary(&m, &Default::default());
    Read {
        instructions: m.instructions.len(),
        lines: m.lines,
        problems: m.diagnostics.iter().map(|d| (d.kind, d.line, d.problems())).collect(),
        rules: peak.not_modelled.iter().map(|n| n.rule).collect(),
        spaces: r.totals.by_memory_space.len(),
        allocations: peak.assignment.allocations.len(),
        argument_bytes: peak.assignment.argument_bytes,
    }
}

/// The size each class is read at, and four times it.
const N: usize = 64 << 10;

/// Each class of the second hostile-input round, at N and 4N bytes: the steps, the bytes
/// allocated and the peak of live bytes at 4N are at most five times those at N plus N/4
/// (a reader quadratic in any of them would take sixteen times), and what was read is right.
#[test]
fn every_class_of_hostile_module_costs_work_linear_in_its_size() {
    let _one = one_at_a_time();
    for class in Class::ALL.into_iter().filter(|&c| !c.is_report()) {
        let small = hostile_inputs::generate(class, N);
        let large = hostile_inputs::generate(class, 4 * N);
        let start = Instant::now();
        let (r1, w1) = work(|| read(&small));
        let (r4, w4) = work(|| read(&large));
        eprintln!(
            "{}: {} and {} bytes, {w1:?} and {w4:?}, {:?}",
            class.name(),
            small.len(),
            large.len(),
            start.elapsed()
        );
        let ratio = |a: f64, b: f64| b / a;
        let size = ratio(small.len() as f64, large.len() as f64);
        assert!((3.5..4.5).contains(&size), "{}: sizes {size}", class.name());
        // Plus a constant: a class that allocates next to nothing (a line of strings keeps
        // no statement) would otherwise compare the harness's own allocations on other
        // threads. A quadratic cost is sixteen times, far above it.
        let slack = N as f64 / 4.0;
        for (what, a, b) in [
            ("steps", w1.steps as f64, w4.steps as f64),
            ("bytes allocated", w1.allocated as f64, w4.allocated as f64),
            ("peak bytes", w1.peak as f64, w4.peak as f64),
        ] {
            assert!(b <= 5.0 * a + slack, "{}: {what} {a} then {b}", class.name());
        }
        check(class, &small, &r1);
        check(class, &large, &r4);
    }
}

/// What a class's module reads as: the class's own point, checked at each size.
fn check(class: Class, bytes: &[u8], r: &Read) {
    let name = class.name();
    let kinds =
        |k: DiagnosticKind| -> usize { r.problems.iter().filter(|p| p.0 == k).map(|p| p.2).sum() };
    // No class makes the phi simplification stop at its budget.
    assert!(!r.rules.contains(&Rule::PhiBudget), "{name}: {:?}", r.rules);
    match class {
        Class::Strings | Class::Comments => {
            // One line, no statement: one unreadable line.
            assert_eq!((r.lines, r.instructions), (1, 0), "{name}");
            assert_eq!(kinds(DiagnosticKind::UnreadableLine), 1, "{name}");
        }
        Class::LoneCr => {
            // Every line read: the header, a blank, ENTRY, the parameter, the negates, `}`.
            let negates = bytes.split(|&b| b == b'\r').count() - 6;
            assert_eq!(r.instructions, negates + 1, "{name}");
            assert_eq!(r.lines, negates + 5, "{name}");
            assert!(r.problems.is_empty(), "{name}: {:?}", r.problems);
        }
        Class::NotUtf8Lines => {
            // Every line reported twice (not UTF-8, then unreadable): 100 of each listed.
            let lines = bytes.len() / 2;
            assert_eq!(r.lines, lines);
            assert_eq!(kinds(DiagnosticKind::NotUtf8), lines, "{name}");
            assert_eq!(kinds(DiagnosticKind::UnreadableLine), lines, "{name}");
            assert_eq!(r.problems.len(), 2 * (xlayout::hlo::MAX_LISTED + 1));
        }
        Class::SpacePerInstruction => {
            assert_eq!(r.spaces, r.instructions, "{name}");
            assert!(r.problems.is_empty(), "{name}: {:?}", r.problems);
        }
        Class::SpacePerLeaf => {
            assert_eq!(r.instructions, 1);
            assert_eq!(r.spaces, bytes.split(|&b| b == b'S').count() - 1, "{name}");
        }
        Class::GteChain | Class::SameBranch | Class::WhileConditions | Class::AliasPairs => {
            // Every instruction (`name = ...`) read, without a problem.
            let statements = bytes.windows(3).filter(|w| w == b" = ").count();
            assert_eq!(r.instructions, statements, "{name}");
            assert!(r.problems.is_empty(), "{name}: {:?}", r.problems);
        }
        Class::OneLine => {
            // One line, every instruction read, without a problem.
            let statements = bytes.windows(3).filter(|w| w == b" = ").count();
            assert_eq!((r.lines, r.instructions), (1, statements), "{name}");
            assert!(r.problems.is_empty(), "{name}: {:?}", r.problems);
        }
        Class::AliasedOutputs => {
            // Every output of the fusion is written over the parameter passed for it: the
            // n entry parameters and the n outputs are n buffers, each a parameter's
            // allocation (4 bytes), and the result's index table one more.
            assert!(r.problems.is_empty(), "{name}: {:?}", r.problems);
            let n = (r.instructions - 2) / 2;
            assert_eq!((r.allocations, r.argument_bytes), (n + 1, 4 * n as u64), "{name}");
        }
        Class::BadIndexGtes => {
            // Each bad index is not followed, and says so.
            assert!(r.rules.contains(&Rule::Unfollowed), "{name}: {:?}", r.rules);
        }
        Class::JoinDump => {
            // One instruction, read whole: its op_name and source file (with an escaped
            // quote each) are a third of the text each.
            assert_eq!(r.instructions, 1, "{name}");
            assert!(r.problems.is_empty(), "{name}: {:?}", r.problems);
        }
        Class::DeepTuples | Class::ShortLeaves | Class::PaddedLeaves => {
            // One entry parameter, read whole: XLA:CPU gives each of its subshapes an
            // allocation of its own, a tuple's the index table of its elements (8 bytes each).
            assert_eq!(r.instructions, 1, "{name}");
            assert!(r.problems.is_empty(), "{name}: {:?}", r.problems);
            let leaves = bytes.windows(4).filter(|w| w == b"f32[").count();
            let (tables, leaf_bytes) = match class {
                // The outer tuple's, and one of a single element for each level inside.
                Class::DeepTuples => (1 + leaves * (limits::MAX_NESTING - 1), 4),
                // f32[100,2]{1,0:T(8,128)}: XLA:CPU sizes a buffer by `ByteSizeOf`, which
                // counts the elements and not the tiles' padding.
                Class::PaddedLeaves => (1, 100 * 2 * 4),
                _ => (1, 4),
            };
            let table_bytes = 8 * (tables - 1 + leaves) as u64;
            assert_eq!(r.allocations, tables + leaves, "{name}");
            assert_eq!(r.argument_bytes, table_bytes + leaf_bytes * leaves as u64, "{name}");
        }
        Class::ShapeLines
        | Class::OomLines
        | Class::JoinReport
        | Class::OomNumber
        | Class::OomEntries => {}
    }
}

/// A million lines that are not UTF-8 cost a few bytes each: the decoded text (three bytes
/// of U+FFFD and the line end for each two bytes read) and counters, not a diagnostic each.
#[test]
fn bad_lines_cost_a_few_bytes_each() {
    let _one = one_at_a_time();
    let bytes = hostile_inputs::generate(Class::NotUtf8Lines, 2_000_000);
    let (r, w) = work(|| read(&bytes));
    eprintln!("{} bad lines: {w:?}", r.lines);
    assert_eq!(r.lines, 1_000_000);
    // The decoded text is 4 MB, 2 bytes per byte read, grown from 2 MB (both live then).
    assert!(w.peak < 4 * bytes.len(), "{} bytes at most for {} bytes", w.peak, bytes.len());
}

/// `xlayout oom` on bad lines (lines that are not UTF-8; lines in an entry that are no field
/// of it), at N and 4N bytes: the bytes allocated and the peak of live bytes at 4N at most
/// five times those at N plus N/4, and each bad line costs a few bytes at most: the lines
/// are read one at a time, not held in a list, and past the first 100 problems of a kind
/// a problem is a counter.
#[test]
fn an_oom_report_of_bad_lines_costs_a_few_bytes_a_line() {
    let _one = one_at_a_time();
    let parse = |bytes: &[u8]| {
        let (text, _) = decode(bytes);
        let r = OomReport::parse(&text);
        (r.entries.len(), r.problems.iter().map(|p| (p.line, p.more)).collect::<Vec<_>>())
    };
    for class in [Class::NotUtf8Lines, Class::OomLines] {
        let small = hostile_inputs::generate(class, N);
        let large = hostile_inputs::generate(class, 4 * N);
        let (r1, w1) = work(|| parse(&small));
        let (r4, w4) = work(|| parse(&large));
        eprintln!("oom {}: {w1:?} and {w4:?}", class.name());
        let slack = N as f64 / 4.0;
        for (what, a, b) in [
            ("bytes allocated", w1.allocated as f64, w4.allocated as f64),
            ("peak bytes", w1.peak as f64, w4.peak as f64),
        ] {
            assert!(b <= 5.0 * a + slack, "{}: {what} {a} then {b}", class.name());
        }
        for (bytes, (entries, problems), w) in [(&small, r1, w1), (&large, r4, w4)] {
            let lines = bytes.split(|&b| b == b'\n').count() - 1;
            match class {
                // No report: nothing read, nothing wrong but that (said by the command).
                // The decoded text is 2 bytes per byte read (grown from the input's
                // length: both live then); no list of lines beside it.
                Class::NotUtf8Lines => {
                    assert_eq!((entries, problems.len()), (0, 0));
                    assert!(w.peak < 4 * bytes.len(), "{} bytes for {}", w.peak, bytes.len());
                }
                // The entry, the first 100 of its unreadable lines (lines 5 to 104), and a
                // count of the rest from line 105 on; the text is UTF-8, borrowed, so the
                // peak is a constant: the problems and the entry.
                _ => {
                    assert_eq!(entries, 1);
                    assert_eq!(problems.len(), xlayout::hlo::MAX_LISTED + 1);
                    assert_eq!(problems[0], (5, 0));
                    assert_eq!(problems[100], (105, lines - 104));
                    assert!(w.peak < 64 << 10, "{} bytes for {}", w.peak, bytes.len());
                }
            }
        }
    }
}

/// Bytes written to it, counted; nothing kept.
#[derive(Default)]
struct Counter(usize);

impl std::io::Write for Counter {
    fn write(&mut self, b: &[u8]) -> std::io::Result<usize> {
        self.0 += b.len();
        Ok(b.len())
    }
    fn flush(&mut self) -> std::io::Result<()> {
        Ok(())
    }
}

/// `xlayout oom --hlo DUMP REPORT`'s work without its printing: the report read, joined to
/// the dump, what the dump says against it (the lines on standard error), and the JSON of the
/// report's entries and of the dump's table of named instructions, counted.
fn oom_join(dump: &[u8], report: &[u8]) -> (usize, Vec<(usize, usize)>, usize) {
    let (text, _) = decode(dump);
    let m = Module::parse(&text);
    let r = OomReport::from_bytes(report);
    let joined = join(&r.entries, &m);
    let problems = join_problems(&r.entries, &joined);
    let mut named = Named::new(&m);
    named.add(&joined);
    let mut json = Counter::default();
    serde_json::to_writer(&mut json, &r.with_dump(Some(&joined))).unwrap();
    serde_json::to_writer(&mut json, &named).unwrap();
    let words: usize = problems.iter().map(|p| p.message.len()).sum();
    (named.len(), problems.iter().map(|p| (p.line, p.more)).collect(), json.0 + words)
}

/// Issue 31, item 7: a report whose every entry names one instruction of a dump whose shape,
/// op_name and source file are long (`join-report` and `join-dump`). Each entry borrowed the
/// dump's text (it copied the op_name and source, 1.6 GB of RSS for a 0.7 MB report), its
/// JSON refers to the instruction written once (not its shape, op_name and source per entry:
/// 2.5 GB), and the sentences about entries are at most 100 of each kind, quoting at most
/// 200 characters of a shape (not a line per entry with the whole shape: 880 MB). At 4N and
/// 16N bytes of each, the bytes allocated, the peak of live bytes and the bytes of JSON and
/// of sentences at 16N are at most five times those at 4N plus N/4; every entry is about 150
/// bytes, so a cost per entry of the dump's size would be sixteen times.
#[test]
fn an_oom_report_joined_to_a_dump_costs_work_linear_in_both() {
    let _one = one_at_a_time();
    let sized = |n: usize| {
        (
            hostile_inputs::generate(Class::JoinDump, n),
            hostile_inputs::generate(Class::JoinReport, n),
        )
    };
    // 4N bytes and 16N: 1,700 and 6,800 entries, more than 100 of each kind.
    let (d1, r1) = sized(4 * N);
    let (d4, r4) = sized(16 * N);
    let ((named1, p1, out1), w1) = work(|| oom_join(&d1, &r1));
    let ((named4, p4, out4), w4) = work(|| oom_join(&d4, &r4));
    eprintln!("oom --hlo: {w1:?}, {out1} bytes out and {w4:?}, {out4} bytes out");
    let slack = N as f64 / 4.0;
    for (what, a, b) in [
        ("bytes allocated", w1.allocated as f64, w4.allocated as f64),
        ("peak bytes", w1.peak as f64, w4.peak as f64),
        ("bytes written", out1 as f64, out4 as f64),
    ] {
        assert!(b <= 5.0 * a + slack, "{what} {a} then {b}");
    }
    // The JSON and the sentences: a few times the two inputs, not a dump per entry.
    assert!(out4 < 10 * (d4.len() + r4.len()), "{out4} bytes for {} and {}", d4.len(), r4.len());
    for (report, named, problems) in [(&r1, named1, &p1), (&r4, named4, &p4)] {
        assert_eq!(named, 1);
        // Nine entries in ten name f.1 with another shape, the tenth a name not in the dump:
        // 100 of each listed, and a count of the rest from the 101st entry of each kind.
        let entries = report.windows(7).filter(|w| w == b". Size:").count();
        let (other, gone) = (entries - entries / 10, entries / 10);
        assert_eq!(problems.len(), 2 * 101, "{entries} entries");
        let counts: Vec<usize> = problems.iter().map(|p| p.1).filter(|&m| m > 0).collect();
        assert_eq!(counts, [other - 100, gone - 100]);
        // Entry k starts on line 4 + 7 (k - 1): the 101st of f.1's is entry 112, of gone's
        // entry 1010.
        let at: Vec<usize> = problems.iter().filter(|p| p.1 > 0).map(|p| p.0).collect();
        assert_eq!(at, [4 + 7 * 111, 4 + 7 * 1009]);
    }
}

/// Totals of `files` files, file k owning one buffer of k + 1 bytes in memory space
/// `space(k)`.
fn file_totals(files: usize, space: impl Fn(usize) -> i64) -> Vec<Totals> {
    (0..files)
        .map(|k| {
            let sizes = xlayout::hlo::Sizes { array_bytes: k as u64 + 1, ..Default::default() };
            let sum = Sum { instructions: 1, sizes, saturated: false };
            Totals {
                instructions: 1,
                owned: sum,
                by_memory_space: vec![Keyed { key: space(k), sum }],
                ..Totals::default()
            }
        })
        .collect()
}

/// Issue 31, item 8: `hlo` over many files, each bringing a memory space of its own, put
/// every space seen so far in order again for each file (80,000 files: 10.9 s, 57% of it
/// sorting). Adding up the totals of 20,000 and of 80,000 such files (the number),
/// the bytes allocated and the peak at 80,000 are at most five times those at 20,000 (a sort
/// per file allocated a scratch list of the spaces so far each time: sixteen times), and the
/// sums are right.
#[test]
fn the_totals_of_many_files_cost_work_linear_in_their_spaces() {
    let _one = one_at_a_time();
    let add_up = |files: &[Totals]| {
        let mut all = RunningTotals::default();
        for t in files {
            all.add(t);
        }
        all.into_totals()
    };
    // Spaces in descending order: each file's space goes before all the others.
    let (small, large) = (20_000, 80_000);
    let f1 = file_totals(small, |k| -(k as i64));
    let f4 = file_totals(large, |k| -(k as i64));
    let start = Instant::now();
    let (t1, w1) = work(|| add_up(&f1));
    let (t4, w4) = work(|| add_up(&f4));
    eprintln!("totals of files: {w1:?} and {w4:?}, {:?}", start.elapsed());
    for (what, a, b) in [
        ("bytes allocated", w1.allocated as f64, w4.allocated as f64),
        ("peak bytes", w1.peak as f64, w4.peak as f64),
    ] {
        assert!(b <= 5.0 * a + (64 << 10) as f64, "{what} {a} then {b}");
    }
    for (t, files) in [(&t1, small), (&t4, large)] {
        assert_eq!((t.instructions, t.owned.instructions), (files as u64, files as u64));
        let keys: Vec<i64> = t.by_memory_space.iter().map(|k| k.key).collect();
        assert_eq!(keys, (0..files as i64).map(|k| k - files as i64 + 1).collect::<Vec<_>>());
        // Space -k holds file k's k + 1 bytes.
        assert!(t.by_memory_space.iter().all(|k| k.sum.sizes.array_bytes == (1 - k.key) as u64));
    }
    // Spaces that repeat, in any order: the same sums as merging the files one by one.
    let files = file_totals(5_000, |k| ((k * 7919) % 97) as i64 - 40);
    let mut merged = Totals::default();
    for t in &files {
        merged.merge(t);
    }
    assert_eq!(add_up(&files), merged);
    assert_eq!(merged.by_memory_space.len(), 97);
}
