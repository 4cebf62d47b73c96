//! The verifier's unit tests: XLA's check order, every rule, and a property over generated
//! shapes.

use super::*;
use crate::{Dim, PrimitiveType, SplitConfig, Tile};
use alloc::vec;

fn array(dims: &[u64], m2m: &[i64]) -> ArrayShape {
    ArrayShape::new(PrimitiveType::F32, dims.iter().copied())
        .with_layout(Layout::new(m2m.iter().copied()))
}

fn layout_mut(a: &mut ArrayShape) -> &mut Layout {
    a.layout.as_mut().unwrap()
}

fn first(a: ArrayShape) -> Error {
    Shape::Array(a).validate().unwrap_err()
}

fn loc(e: &Error) -> Location {
    e.path().unwrap().location
}

#[test]
fn default_shapes_are_valid() {
    assert_eq!(Shape::Array(array(&[3, 5], &[1, 0])).validate(), Ok(()));
    assert_eq!(Shape::Array(array(&[], &[])).validate(), Ok(()));
    assert_eq!(Shape::Token.validate(), Ok(()));
    assert_eq!(Shape::Opaque.validate(), Ok(()));
    assert_eq!(Shape::Tuple(vec![].into()).validate(), Ok(()));
    assert!(Shape::Tuple(vec![].into()).validate_all().is_empty());
}

#[test]
fn no_layout_is_valid() {
    let mut a = array(&[3, 5], &[1, 1]);
    a.layout = None;
    assert_eq!(Shape::Array(a).validate(), Ok(()));
}

#[test]
fn check_order_tiles_before_element_size() {
    let mut a = array(&[3, 5], &[1, 0]);
    layout_mut(&mut a).tiles.push(Tile::new([0]));
    layout_mut(&mut a).element_size_in_bits = -1;
    let e = first(a.clone());
    assert_eq!(e.kind(), ErrorKind::InvalidTileDimension);
    assert_eq!(loc(&e), Location::TileDim { tile: 0, dim: 0 });
    assert!(e.message().contains(
        "layout has invalid tiles: tile dimension 0 must be positive or kCombineDimension: \
         f32[3,5]"
    ));
    let all = Shape::Array(a).validate_all();
    assert_eq!(all.len(), 2);
    assert_eq!(all[1].kind(), ErrorKind::NegativeElementSize);
    assert_eq!(loc(&all[1]), Location::ElementSize);
}

#[test]
fn check_order_minor_to_major_first() {
    let mut a = array(&[3, 5], &[1, 1]);
    layout_mut(&mut a).tiles.push(Tile::new([0]));
    let e = first(a);
    assert_eq!(e.kind(), ErrorKind::MinorToMajorDuplicate);
    assert_eq!(loc(&e), Location::MinorToMajor(1));
    assert!(e
        .message()
        .starts_with("layout minor_to_major field has duplicate values: {1, 1}; shape: f32[3,5]"));
    assert!(e.message().contains("dimension 1 appears twice"));
}

#[test]
fn check_order_index_type_before_tiles_and_pointer_type() {
    let mut a = array(&[3, 5], &[1, 0]);
    layout_mut(&mut a).tiles.push(Tile::new([0]));
    layout_mut(&mut a).index_primitive_type = Some(PrimitiveType::U32);
    layout_mut(&mut a).pointer_primitive_type = Some(PrimitiveType::U8);
    let all = Shape::Array(a).validate_all();
    let kinds: Vec<_> = all.iter().map(|e| e.kind()).collect();
    assert_eq!(
        kinds,
        [
            ErrorKind::IndexPrimitiveType,
            ErrorKind::PointerPrimitiveType,
            ErrorKind::InvalidTileDimension
        ]
    );
    assert_eq!(loc(&all[0]), Location::IndexType);
    assert_eq!(loc(&all[1]), Location::PointerType);
}

#[test]
fn minor_to_major_length_is_checked_on_model_values() {
    let e = first(array(&[3, 5], &[0]));
    assert_eq!(e.kind(), ErrorKind::LayoutRank);
    assert_eq!(loc(&e), Location::Layout);
    let e = first(array(&[3, 5], &[2, 1, 0]));
    assert_eq!(e.kind(), ErrorKind::LayoutRank);
    // validate_all goes on: 2 is out of range for rank 2.
    let all = Shape::Array(array(&[3, 5], &[2, 1, 0])).validate_all();
    assert_eq!(all[1].kind(), ErrorKind::MinorToMajorOutOfBounds);
    assert_eq!(loc(&all[1]), Location::MinorToMajor(0));
}

#[test]
fn minor_to_major_out_of_bounds() {
    let e = first(array(&[3, 5], &[-1, 0]));
    assert_eq!(e.kind(), ErrorKind::MinorToMajorOutOfBounds);
    assert_eq!(loc(&e), Location::MinorToMajor(0));
    assert!(e
        .message()
        .contains("layout minor_to_major field has out-of-bounds value: {-1, 0}; shape: f32[3,5]"));
    let e = first(array(&[3, 5], &[1, 2]));
    assert_eq!(loc(&e), Location::MinorToMajor(1));
}

#[test]
fn tail_padding_zero_is_rejected_on_model_values() {
    let mut a = array(&[3, 5], &[1, 0]);
    layout_mut(&mut a).tail_padding_alignment_in_elements = 0;
    let e = first(a);
    assert_eq!(e.kind(), ErrorKind::TailPaddingAlignment);
    assert_eq!(loc(&e), Location::TailPadding);
    assert!(e.message().contains("layout tail_padding_alignment_in_elements field is <= 0"));
}

#[test]
fn token_element_type_in_an_array() {
    let a = ArrayShape::new(PrimitiveType::Token, [2]);
    let e = first(a);
    assert_eq!(e.kind(), ErrorKind::ElementType);
    assert_eq!(loc(&e), Location::ElementType);
    let t = ArrayShape::new(PrimitiveType::Tuple, []);
    assert_eq!(first(t).kind(), ErrorKind::ElementType);
}

#[test]
fn empty_tile_and_every_zero_entry() {
    let mut a = array(&[3, 5], &[1, 0]);
    layout_mut(&mut a).tiles =
        vec![Tile::default(), Tile::new([0, 2, 0]), Tile { dims: vec![TileDim::Combine] }];
    let all = Shape::Array(a).validate_all();
    let locs: Vec<_> = all.iter().map(loc).collect();
    assert_eq!(
        locs,
        [
            Location::Tile(0),
            Location::TileDim { tile: 1, dim: 0 },
            Location::TileDim { tile: 1, dim: 2 }
        ]
    );
    assert_eq!(all[0].kind(), ErrorKind::EmptyTile);
    assert!(all[0].message().starts_with("layout has invalid tiles: f32[3,5]"));
}

#[test]
fn tile_entry_beyond_int64_is_invalid() {
    let mut a = array(&[3, 5], &[1, 0]);
    layout_mut(&mut a).tiles = vec![Tile::new([1 << 63])];
    assert_eq!(first(a).kind(), ErrorKind::InvalidTileDimension);
}

#[test]
fn size_overflow() {
    let ok = ArrayShape::new(PrimitiveType::F32, [2305843009213693951]);
    assert_eq!(Shape::Array(ok).validate(), Ok(()));
    let e = first(ArrayShape::new(PrimitiveType::F32, [2305843009213693952]));
    assert_eq!(e.kind(), ErrorKind::ShapeTooLarge);
    assert_eq!(loc(&e), Location::Shape);
    assert!(e.message().starts_with("Shape f32[2305843009213693952] size may overflow int64_t."));
    let e = first(ArrayShape::new(PrimitiveType::S8, [1 << 32, 1 << 32]));
    assert_eq!(loc(&e), Location::Dim(1));
    // E is ignored; `?` is skipped; a zero dimension makes any later one fit, as in XLA,
    // but a size beyond int64 is never an XLA dimension.
    let mut a = ArrayShape::new(PrimitiveType::F32, [2305843009213693951]);
    layout_mut(&mut a).element_size_in_bits = 1;
    assert_eq!(Shape::Array(a).validate(), Ok(()));
    let mut a = ArrayShape::new(PrimitiveType::F32, [4, 4]);
    a.dims[0] = Dim::Unbounded;
    assert_eq!(Shape::Array(a).validate(), Ok(()));
    let e = first(ArrayShape::new(PrimitiveType::F32, [u64::MAX]));
    assert_eq!(loc(&e), Location::Dim(0));
    let ok = ArrayShape::new(PrimitiveType::F32, [0, i64::MAX as u64]);
    assert_eq!(Shape::Array(ok).validate(), Ok(()));
    let e = first(ArrayShape::new(PrimitiveType::F32, [0, 1 << 63]));
    assert_eq!(loc(&e), Location::Dim(1));
}

#[test]
fn split_configs_use_the_physical_dimension() {
    // physical 0 of {0,1} is logical 1 (size 5): index 4 is in range.
    let mut a = array(&[3, 5], &[0, 1]);
    layout_mut(&mut a).split_configs = vec![SplitConfig { dimension: 0, split_indices: vec![4] }];
    assert_eq!(Shape::Array(a.clone()).validate(), Ok(()));
    layout_mut(&mut a).split_configs[0].split_indices = vec![1, 5];
    let e = first(a);
    assert_eq!(e.kind(), ErrorKind::SplitConfigIndexOutOfBounds);
    assert_eq!(loc(&e), Location::SplitIndex { split: 0, index: 1 });
    assert!(e.message().contains("split config split index is out of bounds: 5 (dim size 5)"));
}

#[test]
fn split_of_an_unbounded_dimension_is_out_of_bounds() {
    // XLA sizes `?` as -2^63, so every split index is beyond it; no indices is fine.
    let mut a = array(&[3, 5], &[1, 0]);
    a.dims[1] = Dim::Unbounded;
    layout_mut(&mut a).split_configs = vec![SplitConfig { dimension: 1, split_indices: vec![] }];
    assert_eq!(Shape::Array(a.clone()).validate(), Ok(()));
    layout_mut(&mut a).split_configs[0].split_indices = vec![2];
    let e = first(a);
    assert_eq!(e.kind(), ErrorKind::SplitConfigIndexOutOfBounds);
    assert!(e.message().contains("(dim size -9223372036854775808)"));
}

#[test]
fn every_bad_split_config_is_reported() {
    let mut a = array(&[3, 5], &[1, 0]);
    layout_mut(&mut a).split_configs = vec![
        SplitConfig { dimension: 5, split_indices: vec![1] },
        SplitConfig { dimension: 0, split_indices: vec![2, 2] },
        SplitConfig { dimension: 0, split_indices: vec![1] },
        SplitConfig { dimension: 1, split_indices: vec![9] },
    ];
    let all = Shape::Array(a).validate_all();
    let kinds: Vec<_> = all.iter().map(|e| e.kind()).collect();
    assert_eq!(
        kinds,
        [
            ErrorKind::SplitConfigDimension,
            ErrorKind::SplitConfigIndices,
            ErrorKind::SplitConfigDuplicate,
            ErrorKind::SplitConfigIndexOutOfBounds
        ]
    );
    let locs: Vec<_> = all.iter().map(loc).collect();
    assert_eq!(
        locs,
        [
            Location::SplitDim(0),
            Location::SplitIndex { split: 1, index: 1 },
            Location::SplitDim(2),
            Location::SplitIndex { split: 3, index: 0 }
        ]
    );
    assert!(all[1]
        .message()
        .contains("split config split indices must be strictly increasing and positive: {2, 2}"));
}

#[test]
fn split_check_does_not_index_with_a_broken_minor_to_major() {
    for m2m in [vec![7, -3], vec![1, 1], vec![0], vec![]] {
        let mut a = array(&[3, 5], &m2m);
        layout_mut(&mut a).split_configs =
            vec![SplitConfig { dimension: 1, split_indices: vec![100] }];
        let all = Shape::Array(a).validate_all();
        assert!(!all.is_empty());
        assert!(all.iter().all(|e| e.kind() != ErrorKind::SplitConfigIndexOutOfBounds));
    }
}

#[test]
fn tuple_paths_and_buffers() {
    let bad = Shape::Array(array(&[3, 5], &[1, 1]));
    let s = Shape::Tuple(
        vec![
            Shape::Token,
            Shape::Tuple(vec![Shape::Opaque, bad.clone()].into()),
            Shape::Buffer(array(&[2], &[3])),
        ]
        .into(),
    );
    let e = s.validate().unwrap_err();
    assert_eq!(e.path().unwrap().tuple_indices, [1, 1]);
    let all = s.validate_all();
    assert_eq!(all.len(), 2);
    assert_eq!(
        all[1].path(),
        Some(&Path { tuple_indices: vec![2], location: Location::MinorToMajor(0) })
    );
}

mod properties {
    use super::*;
    use proptest::prelude::*;

    fn dim() -> impl Strategy<Value = Dim> {
        prop_oneof![
            6 => (0u64..40).prop_map(Dim::Static),
            1 => (0u64..40).prop_map(Dim::Bounded),
            1 => Just(Dim::Unbounded),
            1 => Just(Dim::Static(u64::MAX / 3)),
        ]
    }

    fn tile_dim() -> impl Strategy<Value = TileDim> {
        prop_oneof![
            6 => (0u64..9).prop_map(TileDim::Size),
            1 => Just(TileDim::Combine),
            1 => Just(TileDim::Size(u64::MAX)),
        ]
    }

    fn shape() -> impl Strategy<Value = ArrayShape> {
        (
            prop::collection::vec(dim(), 0..4),
            prop::collection::vec(-1i64..5, 0..5),
            prop::collection::vec(prop::collection::vec(tile_dim(), 0..4), 0..3),
            -1i64..4,
            -1i64..9,
            prop::collection::vec((-1i64..4, prop::collection::vec(-1i64..40, 0..3)), 0..3),
            any::<bool>(),
        )
            .prop_map(|(dims, m2m, tiles, l, e, splits, has_layout)| {
                let mut layout = Layout::new(m2m);
                layout.tiles = tiles.into_iter().map(|dims| Tile { dims }).collect();
                layout.tail_padding_alignment_in_elements = l;
                layout.element_size_in_bits = e;
                layout.split_configs = splits
                    .into_iter()
                    .map(|(dimension, split_indices)| SplitConfig { dimension, split_indices })
                    .collect();
                ArrayShape {
                    element_type: PrimitiveType::F32,
                    dims,
                    layout: has_layout.then_some(layout),
                }
            })
    }

    proptest! {
        #[test]
        fn never_panics_and_first_error_agrees(a in shape()) {
            let s = Shape::Tuple(vec![Shape::Token, Shape::Array(a.clone())].into());
            let all = s.validate_all();
            prop_assert_eq!(s.validate().err(), all.first().cloned());
            for e in &all {
                prop_assert_eq!(&e.path().unwrap().tuple_indices, &vec![1]);
            }
            let size = a.byte_size();
            let _ = (a.byte_size_of(), a.element_count());
            // A valid static shape without `*` in its first tile has an ArraySize (or
            // one beyond int64).
            let combines = a.layout.as_ref().and_then(|l| l.tiles.first())
                .is_some_and(|t| t.dims.contains(&TileDim::Combine));
            let unbounded = a.dims.contains(&Dim::Unbounded);
            if all.is_empty() && !combines && !unbounded {
                prop_assert!(
                    size.is_ok() || size.as_ref().unwrap_err().kind() == ErrorKind::SizeOverflow,
                    "{:?}", size
                );
            }
        }
    }
}
