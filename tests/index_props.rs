//! Properties of the index map over generated layouts: odd sizes, size-0 and size-1
//! dimensions, random physical orders, up to three tile levels with tiles shorter and longer
//! than the current space, `*` entries (never last), `L` and sub-byte `E`.
//!
//! The reference is a deliberately naive pad-reshape-transpose written here on whole arrays
//! of element ids (no code shared with the plan): transpose to physical order, then per tile
//! level add leading axes, merge `*` axes, pad, reshape, transpose, and read the offsets off
//! the flattened result.

use proptest::prelude::*;

use crate::support::strategies as common;
use xlayout::{ArrayShape, Plan, PrimitiveType, Shape};

/// A dense row-major array of element ids (`None` = padding).
#[derive(Clone, Debug)]
struct Nd {
    shape: Vec<usize>,
    data: Vec<Option<usize>>,
}

fn unravel(mut k: usize, shape: &[usize]) -> Vec<usize> {
    let mut ix = vec![0; shape.len()];
    for i in (0..shape.len()).rev() {
        ix[i] = k % shape[i];
        k /= shape[i];
    }
    ix
}

fn ravel(ix: &[usize], shape: &[usize]) -> usize {
    ix.iter().zip(shape).fold(0, |acc, (&i, &s)| acc * s + i)
}

impl Nd {
    fn iota(shape: &[usize]) -> Nd {
        let n = shape.iter().product();
        Nd { shape: shape.to_vec(), data: (0..n).map(Some).collect() }
    }

    /// numpy `transpose(perm)`: axis i of the result is axis perm[i] of self.
    fn transpose(&self, perm: &[usize]) -> Nd {
        let shape: Vec<usize> = perm.iter().map(|&p| self.shape[p]).collect();
        let mut data = vec![None; self.data.len()];
        for (k, slot) in data.iter_mut().enumerate() {
            let j = unravel(k, &shape);
            let mut i = vec![0; j.len()];
            for (a, &p) in perm.iter().enumerate() {
                i[p] = j[a];
            }
            *slot = self.data[ravel(&i, &self.shape)];
        }
        Nd { shape, data }
    }

    fn reshape(&self, shape: &[usize]) -> Nd {
        assert_eq!(shape.iter().product::<usize>(), self.data.len());
        Nd { shape: shape.to_vec(), data: self.data.clone() }
    }

    /// numpy `pad` at the end of every axis up to `shape` (padding is `None`).
    fn pad(&self, shape: &[usize]) -> Nd {
        let n = shape.iter().product();
        let mut data = vec![None; n];
        for k in 0..self.data.len() {
            let i = unravel(k, &self.shape);
            data[ravel(&i, shape)] = self.data[k];
        }
        Nd { shape: shape.to_vec(), data }
    }
}

/// The documented recipe, step by step, on the whole array. Returns the flattened buffer
/// (element id or padding per offset) and the final shape.
fn naive(dims: &[usize], minor_to_major: &[usize], tiles: &[Vec<Option<usize>>]) -> Nd {
    let mut a = Nd::iota(dims);
    let physical: Vec<usize> = minor_to_major.iter().rev().copied().collect();
    a = a.transpose(&physical);
    for tile in tiles {
        let n = tile.len();
        if n > a.shape.len() {
            let mut s = vec![1; n - a.shape.len()];
            s.extend(&a.shape);
            a = a.reshape(&s);
        }
        let p = a.shape.len() - n;
        // Merge each `*` axis into the next one (a row-major reshape).
        let mut merged: Vec<usize> = a.shape[..p].to_vec();
        let mut sizes = Vec::new();
        let mut carry = 1;
        for (i, t) in tile.iter().enumerate() {
            carry *= a.shape[p + i];
            if let Some(t) = t {
                merged.push(carry);
                sizes.push(*t);
                carry = 1;
            }
        }
        a = a.reshape(&merged);
        let k = sizes.len();
        let mut padded = merged[..p].to_vec();
        let mut split = merged[..p].to_vec();
        for (i, &t) in sizes.iter().enumerate() {
            let s = merged[p + i];
            let count = s.div_ceil(t);
            padded.push(count * t);
            split.push(count);
            split.push(t);
        }
        a = a.pad(&padded).reshape(&split);
        let mut perm: Vec<usize> = (0..p).collect();
        perm.extend((0..k).map(|i| p + 2 * i));
        perm.extend((0..k).map(|i| p + 2 * i + 1));
        a = a.transpose(&perm);
    }
    a
}

#[derive(Clone, Debug)]
struct Case {
    element_type: PrimitiveType,
    element_bits: i64,
    dims: Vec<usize>,
    minor_to_major: Vec<usize>,
    tiles: Vec<Vec<Option<usize>>>,
    align: i64,
}

impl Case {
    fn shape(&self) -> ArrayShape {
        let (t, bits) = (self.element_type, self.element_bits);
        common::array_shape(t, &self.dims, &self.minor_to_major, &self.tiles, self.align, bits)
    }
}

fn case() -> impl Strategy<Value = Case> {
    let types = prop_oneof![
        Just((PrimitiveType::F32, 0)),
        Just((PrimitiveType::Bf16, 0)),
        Just((PrimitiveType::S4, 0)),
        Just((PrimitiveType::S4, 4)),
        Just((PrimitiveType::U2, 2)),
        Just((PrimitiveType::Pred, 1)),
        Just((PrimitiveType::F6e3m2fn, 6)),
        Just((PrimitiveType::U8, 12)),
    ];
    let dim = prop_oneof![1 => Just(0usize), 2 => Just(1usize), 12 => 2usize..=9];
    (0usize..=4)
        .prop_flat_map(move |rank| {
            (
                proptest::collection::vec(dim.clone(), rank),
                Just((0..rank).collect::<Vec<usize>>()).prop_shuffle(),
                proptest::collection::vec(common::any_tile(), 0..=3),
            )
        })
        .prop_flat_map(move |(dims, m2m, tiles)| {
            (types.clone(), 1i64..=9).prop_map(move |((t, e), align)| Case {
                element_type: t,
                element_bits: e,
                dims: dims.clone(),
                minor_to_major: m2m.clone(),
                tiles: tiles.clone(),
                align,
            })
        })
}

fn all_indices(dims: &[usize]) -> Vec<Vec<usize>> {
    let n: usize = dims.iter().product();
    (0..n).map(|k| unravel(k, dims)).collect()
}

/// The largest grid a case may have; bigger ones are skipped to keep the suite fast.
const MAX_GRID: usize = 6000;

proptest! {
    #![proptest_config(ProptestConfig::with_cases(300))]

    #[test]
    fn plan_matches_pad_reshape_transpose(c in case()) {
        let shape = c.shape();
        let plan = Plan::new(&shape.check().unwrap()).unwrap();
        prop_assume!(plan.grid_len() <= MAX_GRID);
        let reference = naive(&c.dims, &c.minor_to_major, &c.tiles);
        prop_assert_eq!(plan.expanded_shape(), &reference.shape[..]);
        prop_assert_eq!(plan.grid_len(), reference.data.len());

        // Offsets: equal to the reference, distinct, inside the grid; index_of inverts them.
        let indices = all_indices(&c.dims);
        let mut expected = vec![usize::MAX; indices.len()];
        for (off, id) in reference.data.iter().enumerate() {
            if let Some(id) = id {
                prop_assert_eq!(expected[*id], usize::MAX, "element {} stored twice", id);
                expected[*id] = off;
            }
        }
        let mut seen = vec![false; plan.grid_len()];
        for (id, ix) in indices.iter().enumerate() {
            let off = plan.offset(ix).unwrap();
            prop_assert_eq!(off, expected[id], "index {:?}", ix);
            prop_assert_eq!(plan.offset_unchecked(ix), off);
            prop_assert!(off < plan.grid_len());
            prop_assert!(!seen[off]);
            seen[off] = true;
            prop_assert_eq!(plan.index_of(off), Some(ix.clone()));
        }

        // Row-major iteration: the same pairs in the same order.
        let pairs: Vec<(Vec<usize>, usize)> = plan.row_major().collect();
        prop_assert_eq!(pairs.len(), indices.len());
        for ((ix, off), (id, jx)) in pairs.iter().zip(indices.iter().enumerate()) {
            prop_assert_eq!(ix, jx);
            prop_assert_eq!(*off, expected[id]);
        }

        // Memory order: every offset once, the element stored there or padding.
        let mut it = plan.memory_order();
        let mut off = 0;
        while let Some(ix) = it.next_ref() {
            let want = reference.data[off].map(|id| indices[id].clone());
            prop_assert_eq!(ix.map(<[usize]>::to_vec), want.clone(), "offset {}", off);
            prop_assert_eq!(plan.index_of(off), want);
            off += 1;
        }
        prop_assert_eq!(off, plan.grid_len());
        prop_assert_eq!(plan.index_of(plan.grid_len()), None);

        // Sizes: the grid rounded up to L, times the storage bits, in whole bytes.
        let bits = if c.element_bits > 0 {
            c.element_bits as usize
        } else {
            c.element_type.byte_width() as usize * 8
        };
        let align = c.align as usize;
        let padded = plan.grid_len().div_ceil(align) * align;
        prop_assert_eq!(plan.element_bits(), bits);
        prop_assert_eq!(plan.padded_len(), padded);
        prop_assert_eq!(shape.nested_element_count().unwrap(), padded as u64);
        prop_assert_eq!(shape.nested_byte_size().unwrap(), (padded * bits).div_ceil(8) as u64);
    }

    #[test]
    fn packed_values_round_trip(c in case()) {
        let shape = c.shape();
        let plan = Plan::new(&shape.check().unwrap()).unwrap();
        prop_assume!(plan.grid_len() <= MAX_GRID);
        let bits = plan.element_bits() as u32;
        let mask = (1u64 << bits) - 1;
        let value = |id: usize| (id as u64).wrapping_mul(0x9E37_79B9_7F4A_7C15) >> 7;
        let mut buf = vec![0xA5u8; plan.byte_len()];
        let indices = all_indices(&c.dims);
        for (id, ix) in indices.iter().enumerate() {
            plan.write_packed(&mut buf, ix, value(id)).unwrap();
        }
        for (id, ix) in indices.iter().enumerate() {
            prop_assert_eq!(plan.read_packed(&buf, ix).unwrap(), value(id) & mask);
            let pos = plan.bit_position(ix).unwrap();
            let bit = plan.offset(ix).unwrap() * bits as usize;
            prop_assert_eq!((pos.byte, pos.bit as usize), (bit / 8, bit % 8));
        }
        // Padding positions keep the bits they had.
        let original = vec![0xA5u8; plan.byte_len()];
        for (off, _) in plan.memory_order().enumerate().filter(|(_, ix)| ix.is_none()) {
            prop_assert_eq!(
                xlayout::read_packed(&buf, off, bits).unwrap(),
                xlayout::read_packed(&original, off, bits).unwrap()
            );
        }
    }

    #[test]
    fn text_round_trip_gives_the_same_plan(c in case()) {
        let shape = c.shape();
        let plan = Plan::new(&shape.check().unwrap()).unwrap();
        prop_assume!(plan.grid_len() <= MAX_GRID);
        let parsed: Shape = shape.to_string().parse().unwrap();
        let again = parsed.as_array().unwrap().plan().unwrap();
        prop_assert_eq!(again.expanded_shape(), plan.expanded_shape());
        let a: Vec<usize> = plan.row_major_offsets().collect();
        let b: Vec<usize> = again.row_major_offsets().collect();
        prop_assert_eq!(a, b);
    }
}

#[test]
fn trailing_combine_is_refused() {
    let c = Case {
        element_type: PrimitiveType::F32,
        element_bits: 0,
        dims: vec![3, 5],
        minor_to_major: vec![1, 0],
        tiles: vec![vec![Some(2), Some(2)], vec![Some(2), None]],
        align: 1,
    };
    let e = Plan::new(&c.shape().check().unwrap()).unwrap_err();
    assert_eq!(e.kind(), xlayout::ErrorKind::TrailingCombine);
    assert!(e.message().contains("tile 1"), "{}", e.message());
}
