//! The layout-pair predicates against brute force: both index maps enumerated element by
//! element, on random pairs of tiled and untiled layouts up to rank 5 (odd sizes, size-0 and
//! size-1 dimensions, up to three tile levels, `*`, `L`, sub-byte `E(n)`), and the tiled cases
//! the issue pins (jax-ml/jax#24404).

use proptest::prelude::*;
use xlayout::algebra::{self, xla, Moved, Reason};
use xlayout::{ArrayShape, Plan, PrimitiveType};

use crate::support::strategies as common;

#[derive(Clone, Debug)]
struct Layout {
    minor_to_major: Vec<usize>,
    tiles: Vec<Vec<Option<usize>>>,
    align: i64,
    bits: i64,
}

fn layout(rank: usize) -> impl Strategy<Value = Layout> {
    (
        Just((0..rank).collect::<Vec<usize>>()).prop_shuffle(),
        prop_oneof![2 => Just(Vec::new()), 3 => proptest::collection::vec(common::any_tile(), 1..=3)],
        prop_oneof![4 => Just(1i64), 1 => 2i64..=6],
        prop_oneof![4 => Just(0i64), 1 => Just(4i64)],
    )
        .prop_map(|(minor_to_major, tiles, align, bits)| Layout { minor_to_major, tiles, align, bits })
}

fn make(t: PrimitiveType, dims: &[usize], l: &Layout) -> ArrayShape {
    // `E(4)` only on a 4-bit type; other types keep their own width.
    let bits = if t == PrimitiveType::S4 { l.bits } else { 0 };
    common::array_shape(t, dims, &l.minor_to_major, &l.tiles, l.align, bits)
}

/// Dimensions of rank 0 to 5: mostly small and odd, some 0 and 1.
fn dims() -> impl Strategy<Value = Vec<usize>> {
    let dim = prop_oneof![1 => Just(0usize), 4 => Just(1usize), 16 => 2usize..=5, 2 => 6usize..=13];
    proptest::collection::vec(dim, 0..=5)
}

/// The prime factors of `n` (with 0 and 1 as they are).
fn factors(mut n: usize) -> Vec<usize> {
    if n < 2 {
        return vec![n];
    }
    let mut out = Vec::new();
    let mut p = 2;
    while p * p <= n {
        while n % p == 0 {
            out.push(p);
            n /= p;
        }
        p += 1;
    }
    if n > 1 {
        out.push(n);
    }
    out
}

/// Another list of dimensions with the same product: the factors shuffled and grouped into
/// up to 5 dimensions, some of size 1.
fn reshaped(from: Vec<usize>) -> impl Strategy<Value = Vec<usize>> {
    let n: usize = from.iter().product();
    let f = factors(n);
    (Just(f).prop_shuffle(), 0usize..=5, proptest::collection::vec(0usize..=5, 0..=8)).prop_map(
        move |(f, extra_ones, cuts)| {
            if n == 0 {
                let mut d = vec![0usize];
                d.extend(std::iter::repeat(1).take(extra_ones % 3));
                return d;
            }
            let groups = (cuts.len() % 5) + 1;
            let mut dims = vec![1usize; groups];
            for (i, p) in f.iter().enumerate() {
                dims[cuts.get(i).copied().unwrap_or(i) % groups] *= p;
            }
            for i in 0..extra_ones % 3 {
                dims.insert((i * 2) % (dims.len() + 1), 1);
            }
            dims.truncate(5);
            if dims.iter().product::<usize>() != n {
                // Truncating dropped a factor: fall back to the original dimensions.
                return from.clone();
            }
            dims
        },
    )
}

fn element_type() -> impl Strategy<Value = PrimitiveType> {
    prop_oneof![4 => Just(PrimitiveType::F32), 1 => Just(PrimitiveType::Bf16), 1 => Just(PrimitiveType::S4)]
}

/// The brute-force answer: the checks in the order `check_reshape` runs them, the index maps
/// walked in row-major order. `to_operand` turns a result index into the operand's.
fn brute(
    from: &ArrayShape,
    to: &ArrayShape,
    to_operand: &dyn Fn(&[usize]) -> Vec<usize>,
) -> Option<Reason> {
    let (a, b) = (from.plan().ok()?, to.plan().ok()?);
    let (ca, cb) = (from.check().ok()?, to.check().ok()?);
    if (from.element_type, a.element_bits()) != (to.element_type, b.element_bits()) {
        let bits = |p: &Plan| p.element_bits() as u64;
        return Some(Reason::ElementType {
            from: (from.element_type, bits(&a)),
            to: (to.element_type, bits(&b)),
        });
    }
    let (na, nb) = (ca.element_count().ok()?, cb.element_count().ok()?);
    if na != nb {
        return Some(Reason::ElementCount { from: na, to: nb });
    }
    for (k, (index, to_offset)) in b.row_major().enumerate() {
        let from_index = to_operand(&index);
        let from_offset = a.offset(&from_index).unwrap();
        if from_offset != to_offset {
            let to_u64 = |v: &[usize]| v.iter().map(|&x| x as u64).collect();
            return Some(Reason::Moves(Moved {
                position: k as u64,
                from_index: to_u64(&from_index),
                to_index: to_u64(&index),
                from_offset: from_offset as u64,
                to_offset: to_offset as u64,
            }));
        }
    }
    let allocated = |c: &xlayout::CheckedArray, p: &Plan, n: u64| {
        if c.tiles().is_empty() {
            n
        } else {
            p.padded_len() as u64
        }
    };
    let (sa, sb) = (allocated(&ca, &a, na), allocated(&cb, &b, nb));
    Some(if sa != sb { Reason::PaddedSize { from: sa, to: sb } } else { Reason::Bitcast })
}

/// The operand index of a reshape: the same row-major position.
fn same_position(from: &[usize], to: &[usize], index: &[usize]) -> Vec<usize> {
    let mut k = 0;
    for (&i, &d) in index.iter().zip(to) {
        k = k * d + i;
    }
    let mut out = vec![0; from.len()];
    for (slot, &d) in out.iter_mut().zip(from).rev() {
        if d > 0 {
            *slot = k % d;
            k /= d;
        }
    }
    out
}

/// Grids larger than this are skipped to keep brute force fast.
const MAX_GRID: usize = 4096;

fn small(s: &ArrayShape) -> bool {
    s.plan().is_ok_and(|p| p.grid_len() <= MAX_GRID)
}

/// Every minor_to_major of `rank` dimensions.
fn orders(rank: usize) -> Vec<Vec<usize>> {
    let mut out: Vec<Vec<usize>> = vec![Vec::new()];
    for d in 0..rank {
        out = out
            .into_iter()
            .flat_map(|p| {
                (0..=p.len()).map(move |i| {
                    let mut q = p.clone();
                    q.insert(i, d);
                    q
                })
            })
            .collect();
    }
    out
}

fn with_order(s: &ArrayShape, m2m: &[usize]) -> ArrayShape {
    let mut layout = s.layout_or_default().into_owned();
    layout.minor_to_major = m2m.iter().map(|&d| d as i64).collect();
    s.clone().with_layout(layout)
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 600, max_global_rejects: 20_000, ..ProptestConfig::default() })]

    #[test]
    fn reshape_equals_brute_force(
        (t, from_dims, to_dims, la, lb) in (element_type(), dims()).prop_flat_map(|(t, d)| {
            let r = d.len();
            (Just(t), Just(d.clone()), reshaped(d), layout(r), layout(5))
        })
    ) {
        let from = make(t, &from_dims, &la);
        let mut lb = lb;
        lb.minor_to_major.retain(|&d| d < to_dims.len());
        let to = make(t, &to_dims, &lb);
        prop_assume!(small(&from) && small(&to));
        let want = brute(&from, &to, &|i| same_position(&from_dims, &to_dims, i)).unwrap();
        let got = algebra::check_reshape(&from, &to, false).unwrap();
        prop_assert_eq!(&got, &want, "{} -> {}", from, to);
        // Untiled (and the same storage width), the answer is XLA's own.
        let untiled = |s: &ArrayShape| s.layout.as_ref().map_or(true, |l| l.tiles.is_empty());
        if untiled(&from) && untiled(&to) && la.bits == lb.bits {
            prop_assert_eq!(got.is_bitcast(), xla::reshape_is_bitcast(&from, &to, false).unwrap());
        }
        // The layout search: what it finds is a bitcast, and when it finds nothing no order of
        // the result's dimensions is one.
        match algebra::reshape_bitcast_layout(&from, &to).unwrap() {
            Some(found) => {
                prop_assert_eq!(&found.dims, &to.dims);
                let r = brute(&from, &found, &|i| same_position(&from_dims, &to_dims, i)).unwrap();
                prop_assert!(r.is_bitcast(), "{} -> {}: {}", from, found, r);
            }
            None => {
                for m2m in orders(to.rank()) {
                    let candidate = with_order(&to, &m2m);
                    let r = brute(&from, &candidate, &|i| same_position(&from_dims, &to_dims, i));
                    prop_assert!(!r.is_some_and(|r| r.is_bitcast()), "{} -> {} missed", from, candidate);
                }
            }
        }
    }

    #[test]
    fn transpose_equals_brute_force(
        (t, from_dims, perm, la, lb) in (element_type(), dims()).prop_flat_map(|(t, d)| {
            let r = d.len();
            (Just(t), Just(d), Just((0..r).collect::<Vec<usize>>()).prop_shuffle(), layout(r), layout(r))
        })
    ) {
        let from = make(t, &from_dims, &la);
        let to_dims: Vec<usize> = perm.iter().map(|&p| from_dims[p]).collect();
        let to = make(t, &to_dims, &lb);
        prop_assume!(small(&from) && small(&to));
        let to_operand = |index: &[usize]| {
            let mut out = vec![0; index.len()];
            for (&p, &i) in perm.iter().zip(index) {
                out[p] = i;
            }
            out
        };
        let want = brute(&from, &to, &to_operand).unwrap();
        let got = algebra::check_transpose(&from, &to, &perm, false).unwrap();
        prop_assert_eq!(&got, &want, "{} -> {} by {:?}", from, to, perm);
        // Untiled: XLA's layout-only rule implies the physical answer, and equals it when no
        // dimension has size 1 (moving one changes the order but not the memory).
        let untiled = |s: &ArrayShape| s.layout.as_ref().map_or(true, |l| l.tiles.is_empty());
        if untiled(&from) && untiled(&to) && la.bits == lb.bits {
            let by_xla = xla::transpose_is_bitcast(&from, &to, &perm, false).unwrap();
            prop_assert!(!by_xla || got.is_bitcast());
            if from_dims.iter().all(|&d| d > 1) {
                prop_assert_eq!(by_xla, got.is_bitcast());
            }
        }
        match algebra::transpose_bitcast_layout(&from, &to, &perm).unwrap() {
            Some(found) => {
                prop_assert!(brute(&from, &found, &to_operand).unwrap().is_bitcast(), "{} -> {}", from, found);
            }
            None => {
                for m2m in orders(to.rank()) {
                    let candidate = with_order(&to, &m2m);
                    let r = brute(&from, &candidate, &to_operand);
                    prop_assert!(!r.is_some_and(|r| r.is_bitcast()), "{} -> {} missed", from, candidate);
                }
            }
        }
    }

    #[test]
    fn an_untiled_bitcast_always_decomposes(
        (t, from_dims, to_dims, la, lb) in (element_type(), dims()).prop_flat_map(|(t, d)| {
            let r = d.len();
            (Just(t), Just(d.clone()), reshaped(d), layout(r), layout(5))
        })
    ) {
        let strip = |l: &Layout| Layout { tiles: Vec::new(), align: 1, bits: 0, ..l.clone() };
        let from = make(t, &from_dims, &strip(&la));
        let mut lb = strip(&lb);
        lb.minor_to_major.retain(|&d| d < to_dims.len());
        let to = make(t, &to_dims, &lb);
        // XLA's DecomposeBitcast CHECKs that each step of its answer is a bitcast: so must ours.
        prop_assert!(algebra::decompose_bitcast(&from, &to).unwrap().is_some(), "{} -> {}", from, to);
    }
}

#[test]
fn four_rows_in_one_tile_or_four_tiles() {
    // jax-ml/jax#24404: on (8,128) tiles, 4x128 -> 4x1x128 "would require 4 copy
    // operations", 4x128 -> 1x4x128 "is effectively free". XLA's open ReshapeIsBitcast says
    // free for both.
    let x: ArrayShape = "f32[4,128]{1,0:T(8,128)}".parse().unwrap();
    let split: ArrayShape = "f32[4,1,128]{2,1,0:T(8,128)}".parse().unwrap();
    let lead: ArrayShape = "f32[1,4,128]{2,1,0:T(8,128)}".parse().unwrap();
    assert!(xla::reshape_is_bitcast(&x, &split, false).unwrap());
    assert!(xla::reshape_is_bitcast(&x, &lead, false).unwrap());
    let moves = algebra::check_reshape(&x, &split, false).unwrap();
    let same = |i: &[usize]| same_position(&[4, 128], &[4, 1, 128], i);
    assert_eq!(Some(&moves), brute(&x, &split, &same).as_ref());
    assert_eq!(
        moves,
        Reason::Moves(Moved {
            position: 128,
            from_index: vec![1, 0],
            to_index: vec![1, 0, 0],
            from_offset: 128,
            to_offset: 1024,
        })
    );
    // The buffers: one tile of 1024 elements against four.
    assert_eq!((x.byte_size().unwrap(), split.byte_size().unwrap()), (4096, 16384));
    assert_eq!(algebra::check_reshape(&x, &lead, false).unwrap(), Reason::Bitcast);
    // The layout that makes the split free keeps its tiles and puts the 1 most major.
    let free = algebra::reshape_bitcast_layout(&x, &split).unwrap().unwrap();
    assert_eq!(free.to_string(), "f32[4,1,128]{2,0,1:T(8,128)}");
    assert!(brute(&x, &free, &same).unwrap().is_bitcast());
}

#[test]
fn bf16_row_pairs_keep_their_rows_together() {
    // (8,128)(2,1): bf16 rows interleave in pairs. Splitting the rows keeps the memory only
    // when the pairs stay whole and the tiles full.
    let x: ArrayShape = "bf16[16,256]{1,0:T(8,128)(2,1)}".parse().unwrap();
    let r = |t: &str| algebra::check_reshape(&x, &t.parse().unwrap(), false).unwrap();
    assert!(r("bf16[2,8,256]{2,1,0:T(8,128)(2,1)}").is_bitcast());
    assert!(!r("bf16[16,2,128]{2,1,0:T(8,128)(2,1)}").is_bitcast());
    assert!(!r("bf16[4096]{0:T(1024)}").is_bitcast());
    // Untiled, row-major: the interleaved pairs are not row-major.
    let row_major = r("bf16[16,256]{1,0}");
    assert_eq!(
        row_major.to_string(),
        "element (0,1) of the operand is at offset 2; as element (0,1) of the result (its \
         row-major position 1) it is at offset 1"
    );
}

#[test]
fn a_transpose_to_the_operands_physical_order_is_free_under_tiles() {
    let x: ArrayShape = "f32[16,3,12]{1,2,0:T(8,128)}".parse().unwrap();
    let t = algebra::transpose_bitcast_layout(
        &x,
        &"f32[12,16,3]{2,1,0:T(8,128)}".parse().unwrap(),
        &[2, 0, 1],
    )
    .unwrap()
    .unwrap();
    assert_eq!(t.to_string(), "f32[12,16,3]{2,0,1:T(8,128)}");
    assert!(algebra::check_transpose(&x, &t, &[2, 0, 1], false).unwrap().is_bitcast());
    // The wrong dimensions for these shapes are an error, not an answer.
    let e = algebra::check_transpose(&x, &t, &[0, 1, 2], false).unwrap_err();
    assert_eq!(e.kind(), xlayout::ErrorKind::ShapeMismatch);
}

#[test]
fn a_combine_in_transposed_order_is_compared_element_by_element_within_limits() {
    // `*` merges the physically major dimension 1 into dimension 0: no form; compared one by
    // one, and refused past the limit.
    let a: ArrayShape = "f32[3,5]{0,1:T(*,4)}".parse().unwrap();
    let b: ArrayShape = "f32[15]{0:T(4)}".parse().unwrap();
    let want = brute(&a, &b, &|i| same_position(&[3, 5], &[15], i)).unwrap();
    assert_eq!(algebra::check_reshape(&a, &b, false).unwrap(), want);
    let big: ArrayShape = "f32[4097,4097]{0,1:T(*,3)}".parse().unwrap();
    let flat: ArrayShape = "f32[16785409]".parse().unwrap();
    let e = algebra::check_reshape(&big, &flat, false).unwrap_err();
    assert_eq!(e.kind(), xlayout::ErrorKind::WorkLimit);
}
