//! The plan's unit tests: worked examples and consistency of every path.

use alloc::vec;
use alloc::vec::Vec;

use super::program::INLINE_REGS;
use super::tables::TABLE_LIMIT;
use super::*;
use crate::{ArrayShape, Dim, ErrorKind, Layout, Location, PrimitiveType, Tile, TileDim};

fn shape(ty: PrimitiveType, dims: &[u64], m2m: &[i64], tiles: &[&[Option<u64>]]) -> ArrayShape {
    let mut layout = Layout::new(m2m.iter().copied());
    for t in tiles {
        layout.tiles.push(Tile {
            dims: t.iter().map(|d| d.map_or(TileDim::Combine, TileDim::Size)).collect(),
        });
    }
    ArrayShape::new(ty, dims.iter().copied()).with_layout(layout)
}

fn check_consistent(plan: &Plan) {
    let mut seen = vec![false; plan.grid_len()];
    let mut it = plan.row_major();
    let mut n = 0;
    while let Some((index, off)) = it.next_ref() {
        assert_eq!(plan.offset(index).unwrap(), off, "{index:?}");
        assert!(!seen[off]);
        seen[off] = true;
        assert_eq!(plan.index_of(off).as_deref(), Some(index));
        n += 1;
    }
    assert_eq!(n, plan.dims().iter().product::<usize>());
    let mut it = plan.memory_order();
    let mut off = 0;
    while let Some(ix) = it.next_ref() {
        assert_eq!(ix.map(<[usize]>::to_vec), plan.index_of(off), "offset {off}");
        assert_eq!(ix.is_some(), seen[off]);
        off += 1;
    }
    assert_eq!(off, plan.grid_len());
}

#[test]
fn doc_example() {
    let s = shape(PrimitiveType::F32, &[3, 5], &[1, 0], &[&[Some(2), Some(2)]]);
    let plan = s.plan().unwrap();
    assert_eq!(plan.expanded_shape(), [2, 3, 2, 2]);
    assert_eq!(plan.offset(&[2, 3]).unwrap(), 17);
    let all: Vec<usize> = plan.row_major_offsets().collect();
    assert_eq!(all, [0, 1, 4, 5, 8, 2, 3, 6, 7, 10, 12, 13, 16, 17, 20]);
    check_consistent(&plan);
}

#[test]
fn combine_chains() {
    let s = shape(
        PrimitiveType::F32,
        &[2, 7, 8, 11, 10],
        &[4, 3, 2, 1, 0],
        &[&[None, None, Some(2), None, Some(3)]],
    );
    let plan = s.plan().unwrap();
    assert_eq!(plan.expanded_shape(), [56, 37, 2, 3]);
    assert_eq!(plan.offset(&[1, 6, 7, 10, 9]).unwrap(), 12430);
    assert_eq!(plan.offset(&[0, 1, 0, 0, 0]).unwrap(), 888);
    check_consistent(&plan);
}

#[test]
fn nested_merge_of_split_dims() {
    // A second level merging dims produced by the first: both programs need divisions
    // of runtime values.
    for tiles in [
        &[&[Some(3), Some(4)][..], &[None, Some(5)][..]][..],
        &[&[Some(2), Some(3)][..], &[None, None, Some(2), Some(5)][..]][..],
        &[&[None, Some(3)][..], &[Some(2), None, Some(7), Some(2)][..]][..],
    ] {
        let s = shape(PrimitiveType::F32, &[5, 7, 3], &[0, 2, 1], tiles);
        check_consistent(&s.plan().unwrap());
    }
}

#[test]
fn errors() {
    let s = shape(PrimitiveType::F32, &[3, 5], &[1, 0], &[&[Some(2), None]]);
    let e = s.plan().unwrap_err();
    assert_eq!(e.kind(), ErrorKind::TrailingCombine);
    assert_eq!(e.path().unwrap().location, Location::TileDim { tile: 0, dim: 1 });
    let s = shape(PrimitiveType::F32, &[3, 5], &[1, 0], &[&[Some(0)]]);
    assert_eq!(s.plan().unwrap_err().kind(), ErrorKind::InvalidTileDimension);
    let s = shape(PrimitiveType::F32, &[3, 5], &[1, 1], &[]);
    assert_eq!(s.plan().unwrap_err().kind(), ErrorKind::MinorToMajorDuplicate);
    let s = shape(PrimitiveType::F32, &[3, 5], &[2, 0], &[]);
    assert_eq!(s.plan().unwrap_err().kind(), ErrorKind::MinorToMajorOutOfBounds);
    let s = shape(PrimitiveType::F32, &[3, 5], &[0], &[]);
    assert_eq!(s.plan().unwrap_err().kind(), ErrorKind::LayoutRank);
    let s = shape(PrimitiveType::F32, &[3], &[0], &[&[]]);
    assert_eq!(s.plan().unwrap_err().kind(), ErrorKind::EmptyTile);
    // Shapes XLA's verifier rejects as too large never reach the plan: the error is the
    // verifier's.
    let big = u64::MAX / 2;
    let s = shape(PrimitiveType::F32, &[big, 3], &[1, 0], &[]);
    assert_eq!(s.plan().unwrap_err().kind(), ErrorKind::ShapeTooLarge);
    let s = shape(PrimitiveType::U8, &[u64::MAX - 1], &[0], &[&[Some(4)]]);
    assert_eq!(s.plan().unwrap_err().kind(), ErrorKind::ShapeTooLarge);
    let s = shape(PrimitiveType::F32, &[1 << 62], &[0], &[]);
    assert_eq!(s.plan().unwrap_err().kind(), ErrorKind::ShapeTooLarge);
    // Valid shapes whose padded grid or bytes do not fit in usize: the plan's own error.
    let s = shape(PrimitiveType::U8, &[1 << 62], &[0], &[&[Some(3)]]);
    assert_eq!(s.plan().unwrap().grid_len(), (1 << 62) + 2);
    let s = shape(PrimitiveType::F32, &[(1 << 61) - 1], &[0], &[&[Some(1 << 62)]]);
    assert_eq!(s.plan().unwrap_err().kind(), ErrorKind::SizeOverflow);
    let s = shape(PrimitiveType::S8, &[1, i64::MAX as u64], &[1, 0], &[&[Some(4), Some(2)]]);
    assert_eq!(s.plan().unwrap_err().kind(), ErrorKind::SizeOverflow);
    let s = shape(PrimitiveType::F32, &[0, big, big], &[2, 1, 0], &[]);
    assert_eq!(s.plan().unwrap().grid_len(), 0);
    let mut s = shape(PrimitiveType::F32, &[3], &[0], &[]);
    s.dims[0] = Dim::Unbounded;
    assert_eq!(s.plan().unwrap_err().kind(), ErrorKind::NotStaticArray);
    s.dims[0] = Dim::Bounded(4);
    assert_eq!(s.plan().unwrap().grid_len(), 4);
    let s = shape(PrimitiveType::Token, &[], &[], &[]);
    assert_eq!(s.plan().unwrap_err().kind(), ErrorKind::ElementType);
    let mut s = shape(PrimitiveType::F32, &[3], &[0], &[]);
    s.layout.as_mut().unwrap().tail_padding_alignment_in_elements = 0;
    assert_eq!(s.plan().unwrap_err().kind(), ErrorKind::TailPaddingAlignment);
    let mut s = shape(PrimitiveType::F32, &[3], &[0], &[]);
    s.layout.as_mut().unwrap().element_size_in_bits = -1;
    assert_eq!(s.plan().unwrap_err().kind(), ErrorKind::NegativeElementSize);
}

#[test]
fn scalars_and_empty() {
    let s = shape(PrimitiveType::U32, &[], &[], &[&[Some(128)]]);
    let plan = s.plan().unwrap();
    assert_eq!(plan.expanded_shape(), [1, 128]);
    assert_eq!(plan.offset(&[]).unwrap(), 0);
    assert_eq!(plan.row_major().collect::<Vec<_>>(), [(vec![], 0)]);
    check_consistent(&plan);
    let s = shape(PrimitiveType::F32, &[], &[], &[]);
    check_consistent(&s.plan().unwrap());
    let s = shape(PrimitiveType::F32, &[0, 3], &[1, 0], &[&[Some(2), Some(2)]]);
    let plan = s.plan().unwrap();
    assert_eq!(plan.expanded_shape(), [0, 2, 2, 2]);
    assert_eq!(plan.grid_len(), 0);
    assert_eq!(plan.row_major().count(), 0);
    assert_eq!(plan.memory_order().count(), 0);
    assert_eq!(plan.index_of(0), None);
    assert_eq!(plan.offset(&[0, 0]).unwrap_err().kind(), ErrorKind::IndexOutOfBounds);
}

#[test]
fn tables_and_program_agree() {
    // Small enough to tabulate, and one dimension too many entries for tables: both paths
    // give the closed form of T(8,128) over a row-major [r, c] array.
    let closed = |i: usize, j: usize, cols: usize| {
        ((i / 8) * cols.div_ceil(128) + j / 128) * 1024 + (i % 8) * 128 + j % 128
    };
    for rows in [20, TABLE_LIMIT + 3] {
        let s = shape(PrimitiveType::F32, &[rows as u64, 300], &[1, 0], &[&[Some(8), Some(128)]]);
        let plan = s.plan().unwrap();
        assert_eq!(plan.tables.is_some(), rows == 20);
        for i in [0, 1, 7, 8, 9, rows - 1] {
            for j in [0, 127, 128, 299] {
                assert_eq!(plan.offset(&[i, j]).unwrap(), closed(i, j, 300), "{rows} {i} {j}");
            }
        }
        let row_major: Vec<usize> = plan.row_major_offsets().take(600).collect();
        let expected: Vec<usize> = (0..600).map(|k| closed(k / 300, k % 300, 300)).collect();
        assert_eq!(row_major, expected);
    }
    // Out of range, unchecked: a number, no panic, on both paths.
    let s = shape(PrimitiveType::F32, &[3, 5], &[1, 0], &[&[Some(2), Some(2)]]);
    let plan = s.plan().unwrap();
    assert!(plan.tables.is_some());
    let _ = plan.offset_unchecked(&[usize::MAX, 7, 9]);
    let _ = plan.offset_unchecked(&[]);
}

#[test]
fn untabulated_plans_give_the_same_answers() {
    // Tabulated, strided and merged layouts: without tables, every offset, index and walk
    // is the tabulated plan's.
    for text in [
        "f32[20,300]{1,0:T(8,128)}",
        "bf16[3,16,256]{2,1,0:T(8,128)(2,1)}",
        "f32[3,5]{0,1}",
        "f32[2,7,8,11,10]{4,3,2,1,0:T(*,*,2,*,3)}",
    ] {
        let s: ArrayShape = text.parse().unwrap();
        let (tabulated, untabulated) =
            (s.plan().unwrap(), Plan::untabulated(&s.check().unwrap()).unwrap());
        assert!(untabulated.tables.is_none(), "{text}");
        assert_eq!(
            tabulated.tables.is_some(),
            text.starts_with("f32[20") || text.starts_with("bf16")
        );
        check_consistent(&untabulated);
        let all = |p: &Plan| p.row_major_offsets().collect::<Vec<usize>>();
        assert_eq!(all(&untabulated), all(&tabulated), "{text}");
        assert_eq!(
            untabulated.offset_unchecked(&[usize::MAX, 7, 9]),
            tabulated.run_forward(&[usize::MAX, 7, 9])
        );
    }
}

#[test]
fn many_registers_use_the_heap_path() {
    let tiles: Vec<&[Option<u64>]> = vec![&[Some(2), Some(2), Some(2)]; 10];
    let s = shape(PrimitiveType::F32, &[3, 3, 3], &[2, 1, 0], &tiles);
    let plan = s.plan().unwrap();
    assert!(plan.space.registers() > INLINE_REGS);
    check_consistent(&plan);
}
