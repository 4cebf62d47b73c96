//! Hostile input: every input of the hostile-input issue, and the limits, answered with an
//! error or a correct result in bounded memory, measured by a counting allocator.
//!
//! One test function runs the cases one after another, so the allocator's peak belongs to
//! the case being measured (the harness runs tests of one binary on several threads).
//! Times are printed, not asserted: speed is for benchmarks.

use std::alloc::{GlobalAlloc, Layout as AllocLayout, System};
use std::sync::atomic::{AtomicUsize, Ordering::Relaxed};
use std::time::Instant;

use xlayout::{limits, ArrayShape, Dim, ErrorKind, Layout, PrimitiveType, Shape, Tile};

/// Counts live bytes and their peak since the last reset.
struct Counting;

static LIVE: AtomicUsize = AtomicUsize::new(0);
static PEAK: AtomicUsize = AtomicUsize::new(0);

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
    let base = LIVE.load(Relaxed);
    PEAK.store(base, Relaxed);
    let start = Instant::now();
    let r = f();
    let peak = PEAK.load(Relaxed) - base;
    eprintln!("{name}: {:?}, peak {} bytes", start.elapsed(), peak);
    (r, peak)
}

fn kind<T: std::fmt::Debug>(r: Result<T, xlayout::Error>) -> ErrorKind {
    r.unwrap_err().kind()
}

#[test]
fn every_hostile_input_is_answered_in_bounded_memory() {
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

#[test]
fn limits_are_errors_at_the_text_that_crosses_them() {
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
