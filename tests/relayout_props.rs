//! Relayout over generated pairs of layouts of one array: odd sizes, size-0 and size-1
//! dimensions, any physical order, up to three tile levels (tiles shorter and longer than
//! the space, `*` entries, nested tiles that pad), `L` tails, and sub-byte `E(n)` on either
//! side, including widths that cross bytes (`E(6)`) and different widths on the two sides.
//!
//! The reference is built without relayout: a zeroed buffer with each logical element
//! written, through `Plan::offset` and `write_packed`, at the offset the index engine gives.
//! Relayout must produce exactly that buffer (every element in place, every padding bit
//! zero), from a source whose padding holds garbage, into a destination that held garbage.

use proptest::prelude::*;

use crate::support::checks::every_setting;
use crate::support::strategies as common;
use xlayout::{
    read_packed, relayout, write_packed, ArrayShape, ErrorKind, Plan, PrimitiveType, RelayoutPlan,
    Shape, Simd,
};

#[derive(Clone, Debug)]
struct Side {
    element_bits: i64,
    minor_to_major: Vec<usize>,
    tiles: Vec<Vec<Option<usize>>>,
    align: i64,
}

#[derive(Clone, Debug)]
struct Pair {
    element_type: PrimitiveType,
    dims: Vec<usize>,
    from: Side,
    to: Side,
}

fn shape(t: PrimitiveType, dims: &[usize], s: &Side) -> ArrayShape {
    common::array_shape(t, dims, &s.minor_to_major, &s.tiles, s.align, s.element_bits)
}

impl Pair {
    fn shapes(&self) -> (ArrayShape, ArrayShape) {
        (
            shape(self.element_type, &self.dims, &self.from),
            shape(self.element_type, &self.dims, &self.to),
        )
    }
}

/// Power-of-two tilings, the kind devices use and the strided path handles: a first tile
/// of sizes up to 8, then smaller ones that mostly divide it (`(2,1)`-like row groups).
fn pow2_tiles() -> impl Strategy<Value = Vec<Vec<Option<usize>>>> {
    let size = |sizes: Vec<usize>| proptest::sample::select(sizes).prop_map(Some);
    let first = proptest::collection::vec(size(vec![1, 2, 4, 8]), 1..=3);
    let later = proptest::collection::vec(size(vec![1, 1, 2]), 1..=4);
    (first, proptest::collection::vec(later, 0..=2)).prop_map(|(first, mut later)| {
        later.insert(0, first);
        later
    })
}

fn side(rank: usize, element_bits: i64, pow2: bool) -> impl Strategy<Value = Side> {
    let tiles = if pow2 {
        prop_oneof![1 => Just(Vec::new()), 4 => pow2_tiles()].boxed()
    } else {
        proptest::collection::vec(common::any_tile(), 0..=3).boxed()
    };
    (
        Just((0..rank).collect::<Vec<usize>>()).prop_shuffle(),
        tiles,
        prop_oneof![3 => Just(1i64), 1 => 2i64..=9],
    )
        .prop_map(move |(minor_to_major, tiles, align)| Side {
            element_bits,
            minor_to_major,
            tiles,
            align,
        })
}

fn pair() -> impl Strategy<Value = Pair> {
    // Element types with the storage widths a side may choose (0: the type's own).
    let types = prop_oneof![
        Just((PrimitiveType::F32, vec![0])),
        Just((PrimitiveType::Bf16, vec![0])),
        Just((PrimitiveType::S8, vec![0])),
        Just((PrimitiveType::F64, vec![0])),
        Just((PrimitiveType::S4, vec![0, 4])),
        Just((PrimitiveType::U4, vec![4])),
        Just((PrimitiveType::U2, vec![0, 2])),
        Just((PrimitiveType::Pred, vec![0, 1])),
        Just((PrimitiveType::S1, vec![1])),
        Just((PrimitiveType::F6e3m2fn, vec![0, 6])),
        Just((PrimitiveType::U8, vec![0, 12, 24])),
    ];
    let dim =
        prop_oneof![1 => Just(0usize), 4 => Just(1usize), 24 => 2usize..=9, 8 => 10usize..=40];
    // Mostly power-of-two tiles and equal widths (the strided paths), often anything.
    let pow2 = || prop_oneof![3 => Just(true), 1 => Just(false)];
    (types, 0usize..=4, pow2(), pow2(), any::<(prop::sample::Index, prop::sample::Index, bool)>())
        .prop_flat_map(move |((t, widths), rank, pow2_from, pow2_to, (i, j, same))| {
            let from_bits = widths[i.index(widths.len())];
            let to_bits = if same { from_bits } else { widths[j.index(widths.len())] };
            (
                Just(t),
                proptest::collection::vec(dim.clone(), rank),
                side(rank, from_bits, pow2_from),
                side(rank, to_bits, pow2_to),
            )
        })
        .prop_map(|(element_type, dims, from, to)| Pair { element_type, dims, from, to })
}

/// Grids larger than this are skipped to keep the suite fast.
const MAX_GRID: usize = 20_000;

fn value(id: usize, seed: u64) -> u64 {
    (id as u64 ^ seed).wrapping_mul(0x9E37_79B9_7F4A_7C15).rotate_left(29)
}

fn garbage(len: usize, seed: u64) -> Vec<u8> {
    (0..len).map(|i| (value(i, seed) >> 13) as u8).collect()
}

fn mask(bits: usize) -> u64 {
    if bits >= 64 {
        u64::MAX
    } else {
        (1u64 << bits) - 1
    }
}

/// A buffer with `fill` everywhere, then element `id` (row-major) written as `values(id)`.
fn buffer(plan: &Plan, fill: Vec<u8>, values: &dyn Fn(usize) -> u64) -> Vec<u8> {
    let mut buf = fill;
    let bits = plan.element_bits() as u32;
    let mut it = plan.row_major();
    let mut id = 0;
    while let Some((ix, _)) = it.next_ref() {
        write_packed(&mut buf, plan.offset(ix).unwrap(), bits, values(id)).unwrap();
        id += 1;
    }
    buf
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(1000))]

    #[test]
    fn every_element_lands_where_the_index_engine_says(p in pair(), seed in any::<u64>()) {
        let (from, to) = p.shapes();
        let (fp, tp) = (from.plan().unwrap(), to.plan().unwrap());
        prop_assume!(fp.grid_len() <= MAX_GRID && tp.grid_len() <= MAX_GRID);
        let keep = mask(fp.element_bits().min(tp.element_bits()));

        // Source: garbage in its padding; destination: garbage everywhere.
        let src = buffer(&fp, garbage(fp.byte_len(), seed), &|id| value(id, seed));
        let expected = buffer(&tp, vec![0; tp.byte_len()], &|id| value(id, seed) & keep);
        let plan = RelayoutPlan::new(&from, &to).unwrap();
        prop_assert_eq!((plan.src_len(), plan.dst_len()), (fp.byte_len(), tp.byte_len()));
        let mut dst = garbage(tp.byte_len(), !seed);
        plan.run(&src, &mut dst).unwrap();
        prop_assert_eq!(&dst, &expected);

        // The same through the free function and on all cores.
        let mut again = garbage(tp.byte_len(), seed ^ 5);
        relayout(&src, &from.clone().into(), &mut again, &to.clone().into()).unwrap();
        prop_assert_eq!(&again, &expected);
        let mut par = garbage(tp.byte_len(), seed ^ 9);
        plan.run_parallel(&src, &mut par).unwrap();
        prop_assert_eq!(&par, &expected);
        // Every setting a run may choose, at every SIMD level, into a destination at an
        // alignment the seed picks, and a run that measures them.
        every_setting(&format_args!("{from} -> {to}"), &plan, &src, &expected, seed);

        // Element by element, through the index engine on both sides.
        let mut it = fp.row_major();
        while let Some((ix, off)) = it.next_ref() {
            let a = read_packed(&src, off, fp.element_bits() as u32).unwrap();
            prop_assert_eq!(tp.read_packed(&dst, ix).unwrap(), a & keep, "index {:?}", ix);
        }
        // Padding, including the L tail and the unused bits of the last byte, is zero.
        let mut it = tp.memory_order();
        let mut off = 0;
        while let Some(ix) = it.next_ref() {
            if ix.is_none() {
                prop_assert_eq!(read_packed(&dst, off, tp.element_bits() as u32).unwrap(), 0);
            }
            off += 1;
        }
        let used_bits = tp.grid_len() * tp.element_bits();
        for bit in used_bits..dst.len() * 8 {
            prop_assert_eq!((dst[bit / 8] >> (bit % 8)) & 1, 0, "bit {} past the grid", bit);
        }
    }

    #[test]
    fn relayout_and_back_restores_the_source(p in pair(), seed in any::<u64>()) {
        let (from, to) = p.shapes();
        let (fp, tp) = (from.plan().unwrap(), to.plan().unwrap());
        prop_assume!(fp.grid_len() <= MAX_GRID && tp.grid_len() <= MAX_GRID);
        // Values that fit the narrower side survive the trip; padding comes back zero.
        let keep = mask(fp.element_bits().min(tp.element_bits()));
        let src = buffer(&fp, vec![0; fp.byte_len()], &|id| value(id, seed) & keep);
        let there = RelayoutPlan::new(&from, &to).unwrap();
        let back = RelayoutPlan::new(&to, &from).unwrap();
        let mut mid = vec![0xEE; there.dst_len()];
        there.run(&src, &mut mid).unwrap();
        let mut out = vec![0x11; back.dst_len()];
        back.run(&mid, &mut out).unwrap();
        prop_assert_eq!(&out, &src);
        every_setting(&format_args!("{to} -> {from}"), &back, &mid, &src, seed);
    }

    #[test]
    fn wrong_lengths_are_refused_and_dst_untouched(p in pair(), grow in any::<bool>()) {
        let (from, to) = p.shapes();
        let plan = RelayoutPlan::new(&from, &to).unwrap();
        prop_assume!(plan.src_len() <= 1 << 20 && plan.dst_len() <= 1 << 20);
        let src = vec![1u8; plan.src_len()];
        let mut dst = vec![0x77u8; plan.dst_len()];
        let bad_src = if grow || plan.src_len() == 0 { plan.src_len() + 1 } else { plan.src_len() - 1 };
        let e = plan.run(&vec![1u8; bad_src], &mut dst).unwrap_err();
        prop_assert_eq!(e.kind(), ErrorKind::BufferLength);
        let mut longer = vec![0x77u8; plan.dst_len() + 1];
        prop_assert_eq!(plan.run(&src, &mut longer).unwrap_err().kind(), ErrorKind::BufferLength);
        prop_assert!(dst.iter().chain(&longer).all(|&b| b == 0x77));
    }
}

fn array(text: &str) -> ArrayShape {
    text.parse::<Shape>().unwrap().as_array().unwrap().clone()
}

#[test]
fn tiled_layout_document_figure_1() {
    // f32[3,5] row-major -> {1,0:T(2,2)}: offset 17 holds element (2,3); 9 positions pad.
    let from: Shape = "f32[3,5]{1,0}".parse().unwrap();
    let to: Shape = "f32[3,5]{1,0:T(2,2)}".parse().unwrap();
    let src: Vec<u8> = (1..=15u32).flat_map(|v| (v as f32).to_le_bytes()).collect();
    let mut dst = vec![0xFF; 96];
    relayout(&src, &from, &mut dst, &to).unwrap();
    let got: Vec<f32> = dst.chunks(4).map(|c| f32::from_le_bytes(c.try_into().unwrap())).collect();
    assert_eq!(got[17], 14.0); // (2,3) is the 14th element counting from 1
    #[rustfmt::skip]
    let want = [
        1.0, 2.0, 6.0, 7.0,    3.0, 4.0, 8.0, 9.0,    5.0, 0.0, 10.0, 0.0,
        11.0, 12.0, 0.0, 0.0,  13.0, 14.0, 0.0, 0.0,  15.0, 0.0, 0.0, 0.0,
    ];
    assert_eq!(got, want);
    assert_eq!(got.iter().filter(|&&v| v == 0.0).count(), 9);
    let plan = RelayoutPlan::new(from.try_array().unwrap(), to.try_array().unwrap()).unwrap();
    every_setting(&"figure 1", &plan, &src, &dst, 1);
}

#[test]
fn tiled_layout_document_figure_2_row_pairs() {
    // 4×8 with T(2,4)(2,1): offset = 16·⌊r/2⌋ + 8·⌊c/4⌋ + 2·(c mod 4) + (r mod 2).
    let plan =
        RelayoutPlan::new(&array("u8[4,8]{1,0}"), &array("u8[4,8]{1,0:T(2,4)(2,1)}")).unwrap();
    let src: Vec<u8> = (0..32).collect();
    let mut dst = [0u8; 32];
    plan.run(&src, &mut dst).unwrap();
    for r in 0..4 {
        for c in 0..8 {
            assert_eq!(dst[16 * (r / 2) + 8 * (c / 4) + 2 * (c % 4) + r % 2] as usize, 8 * r + c);
        }
    }
    every_setting(&"figure 2", &plan, &src, &dst, 2);
}

#[test]
fn int4_nibbles_low_first_and_row_groups() {
    // s4[2,4] row-major, packed: each byte holds columns (2k, 2k+1), the first in the low
    // nibble. Column-major packs rows (0, 1) of each column instead.
    let plan = RelayoutPlan::new(&array("s4[2,4]{1,0:E(4)}"), &array("s4[2,4]{0,1:E(4)}")).unwrap();
    let mut dst = [0xFFu8; 4];
    plan.run(&[0x21, 0x43, 0x65, 0x87], &mut dst).unwrap();
    // Column-major: (0,0)=1 (1,0)=5 | (0,1)=2 (1,1)=6 | ...
    assert_eq!(dst, [0x51, 0x62, 0x73, 0x84]);
    every_setting(&"s4 column-major", &plan, &[0x21, 0x43, 0x65, 0x87], &dst, 3);
    // An odd count leaves the high nibble of the last byte zero.
    let plan = RelayoutPlan::new(&array("u4[3]{0:E(4)}"), &array("u4[3]{0:E(4)}")).unwrap();
    let mut dst = [0xFFu8; 2];
    plan.run(&[0x21, 0xF3], &mut dst).unwrap();
    assert_eq!(dst, [0x21, 0x03]);
    every_setting(&"u4[3]", &plan, &[0x21, 0xF3], &dst, 0);
}

#[test]
fn f6_elements_cross_bytes() {
    let plan =
        RelayoutPlan::new(&array("f6e3m2fn[2,2]{1,0:E(6)}"), &array("f6e3m2fn[2,2]{0,1:E(6)}"))
            .unwrap();
    // Row-major a b c d, six bits each: a=1 b=2 c=3 d=63.
    let mut src = [0u8; 3];
    for (k, v) in [1u64, 2, 3, 63].into_iter().enumerate() {
        write_packed(&mut src, k, 6, v).unwrap();
    }
    let mut dst = [0xFFu8; 3];
    plan.run(&src, &mut dst).unwrap();
    let got: Vec<u64> = (0..4).map(|k| read_packed(&dst, k, 6).unwrap()).collect();
    assert_eq!(got, [1, 3, 2, 63]);
    every_setting(&"f6 transpose", &plan, &src, &dst, 1);
}

#[test]
fn size_zero_and_one_dimensions() {
    let plan =
        RelayoutPlan::new(&array("f32[0,7]{1,0}"), &array("f32[0,7]{0,1:T(8,128)}")).unwrap();
    assert_eq!((plan.src_len(), plan.dst_len()), (0, 0));
    plan.run(&[], &mut []).unwrap();
    let plan =
        RelayoutPlan::new(&array("f32[1,1]{1,0}"), &array("f32[1,1]{1,0:T(2,2)L(3)}")).unwrap();
    let mut dst = [0xAAu8; 24];
    plan.run(&7f32.to_le_bytes(), &mut dst).unwrap();
    assert_eq!(dst[..4], 7f32.to_le_bytes());
    assert!(dst[4..].iter().all(|&b| b == 0));
    every_setting(&"f32[1,1] -> T(2,2)L(3)", &plan, &7f32.to_le_bytes(), &dst, 2);
}

#[test]
fn bad_shapes_are_refused_and_dst_untouched() {
    let mut dst = vec![0x55u8; 64];
    let arr: Shape = "f32[4,4]".parse().unwrap();
    let cases: [(&str, ErrorKind); 6] = [
        ("s32[4,4]", ErrorKind::ElementType),
        ("f32[4,5]", ErrorKind::ShapeMismatch),
        ("f32[16]", ErrorKind::ShapeMismatch),
        ("(f32[4,4])", ErrorKind::NotStaticArray),
        ("f32[?,4]", ErrorKind::NotStaticArray),
        ("b(f32[4,4])", ErrorKind::NotStaticArray),
    ];
    for (text, kind) in cases {
        let other: Shape = text.parse().unwrap();
        let e = relayout(&[0; 64], &arr, &mut dst, &other).unwrap_err();
        assert_eq!(e.kind(), kind, "{text}");
        let e = relayout(&[0; 64], &other, &mut dst, &arr).unwrap_err();
        assert_eq!(e.kind(), kind, "{text}");
    }
    assert_eq!(
        relayout(&[0; 64], &arr, &mut dst, &Shape::Token).unwrap_err().kind(),
        ErrorKind::NotStaticArray
    );
    let plan = RelayoutPlan::new(&array("f32[4,4]"), &array("f32[4,4]{0,1}")).unwrap();
    let e = plan.run_typed(&[0u64; 8], &mut [0u64; 8]).unwrap_err();
    assert_eq!(e.kind(), ErrorKind::ElementType);
    let mut typed = vec![-1f32; 16];
    let e = plan.run_typed(&[0f32; 15], &mut typed).unwrap_err();
    assert_eq!(e.kind(), ErrorKind::BufferLength);
    assert!(typed.iter().all(|&v| v == -1.0));
    assert!(dst.iter().all(|&b| b == 0x55));
}

/// An `XLAYOUT_SIMD` that names no level is ignored, with one warning on standard error however
/// many plans read it: this test binary runs itself again with such a value, on the test below
/// alone.
#[test]
fn an_unknown_simd_level_is_ignored_with_one_warning() {
    // The test's name in the harness: its module path without the crate's name.
    let module = module_path!().split_once("::").map_or("", |(_, m)| m);
    let name = format!("{module}::plans_take_the_simd_level_the_environment_names");
    let name = name.trim_start_matches("::");
    let out = std::process::Command::new(std::env::current_exe().unwrap())
        .args(["--exact", name, "--nocapture"])
        .env("XLAYOUT_SIMD", "avx9")
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "{stderr}");
    assert!(String::from_utf8_lossy(&out.stdout).contains("1 passed"));
    let warning =
        "warning: XLAYOUT_SIMD=\"avx9\" is ignored: it takes `portable`, `sse2`, `avx2` or `avx512`";
    assert_eq!(stderr.matches(warning).count(), 1, "{stderr}");
    assert_eq!(stderr.matches("warning").count(), 1, "{stderr}");
}

/// Plans run at the level `XLAYOUT_SIMD` names (at most the best this machine runs), or at the
/// best when it names none; run with `avx9` by the test above.
#[test]
fn plans_take_the_simd_level_the_environment_names() {
    let asked = std::env::var("XLAYOUT_SIMD").ok().and_then(|v| Simd::from_name(v.trim()));
    let want = asked.map_or(Simd::detect(), |l| l.min(Simd::detect()));
    for _ in 0..3 {
        let plan = RelayoutPlan::new(&array("f32[8,8]"), &array("f32[8,8]{0,1}")).unwrap();
        assert_eq!(plan.simd(), want);
    }
}
