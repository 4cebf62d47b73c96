//! The `layout!` macro through the facade: every input form, the generated constants and
//! accessors against the runtime plan of the same text, and the promises of the generated type
//! pinned with static_assertions.

use static_assertions::{assert_eq_size, assert_impl_all, assert_not_impl_any, const_assert_eq};
use xlayout::fixed::{InlineLayout, StaticLayout, TypedLayout};
use xlayout::{layout, Buffer, PrimitiveType, Shape, TileDim};

layout! {
    /// Figure 1 of XLA's tiled-layout document; derives of its own pass through.
    #[derive(Debug, Default, PartialEq, Eq, Hash, PartialOrd)]
    pub struct Fig1 = f32[3,5]{1,0:T(2,2)};

    pub(crate) struct Fig2 = f32[4,8]<1,0:T(2,4)(2,1)>;
    struct Pasted = "bf16[8,1,1280,16384]{3,2,0,1:T(8,128)(2,1)}";
    struct Untiled = s32[2,3];
    struct Scalar = f64[];
    struct TiledScalar = u32[]{:T(128)};
    struct Empty = f32[0,5]{1,0:T(8,128)};
    struct Combined = f32[2,7,8,11,10]{4,3,2,1,0:T(*,*,2,*,3)};
    struct Packed = s4[16,256]{1,0:T(64,128)(8,1)E(4)};
    struct Complex = c64[3]{0:T(2)};
    struct Bits = pred[5]{0:L(8)};
    struct Longer = f32[8]{0:T(2,2)};
    /// An inverse program with more registers than the library's `index_of_program` has: its
    /// `index_of` is written out.
    struct Rank8 = f32[3,3,3,3,3,3,3,3]{7,6,5,4,3,2,1,0:T(2,2,2,2,2,2,2,2)(2,2)(2,1)};
}

// The promises: zero-sized, Copy, Send, Sync, the traits; nothing else is derived (each derive
// would cost every layout's build), and a user's own derives pass through.
assert_eq_size!(Fig1, ());
assert_eq_size!(Pasted, ());
assert_impl_all!(Pasted: Copy, Clone, Send, Sync, StaticLayout, TypedLayout);
assert_not_impl_any!(Pasted: Default, core::fmt::Debug, PartialEq, core::hash::Hash);
assert_impl_all!(Fig1: Copy, Clone, Send, Sync, Default, core::fmt::Debug, PartialEq, Eq, core::hash::Hash, StaticLayout, TypedLayout);
assert_impl_all!(Packed: StaticLayout);
assert_not_impl_any!(Packed: TypedLayout); // 4-bit elements are not whole Rust values
assert_impl_all!(Buffer<Fig1>: Clone, Send, Sync);
assert_not_impl_any!(Buffer<Fig1>: Copy); // a copy of a large array is never silent

// Constants are constants.
const_assert_eq!(Fig1::RANK, 2);
const_assert_eq!(Fig1::GRID_LEN, 24);
const_assert_eq!(Fig1::BYTE_LEN, 96);
const_assert_eq!(Pasted::GRID_LEN, 167_772_160);
const FIG1_2_3: usize = Fig1.offset([2, 3]);
const_assert_eq!(FIG1_2_3, 17);
const FIG2_1_0: usize = Fig2.offset([1, 0]);
const_assert_eq!(FIG2_1_0, 1);
const_assert_eq!(Longer.offset([5]), 9); // spec 5.1: a tile longer than the shape pads

fn plan<L: StaticLayout>() -> xlayout::Plan {
    L::TEXT.parse::<Shape>().unwrap().as_array().unwrap().plan().unwrap()
}

/// Every constant and every offset of `L` against the runtime plan of its text.
fn agrees_with_runtime<L: StaticLayout>(layout: L) {
    let shape: Shape = L::TEXT.parse().unwrap();
    assert_eq!(shape.to_string(), L::TEXT);
    let a = shape.as_array().unwrap();
    let p = plan::<L>();
    assert_eq!(L::RANK, p.rank());
    assert_eq!(L::DIMS, p.dims());
    assert_eq!(L::GRID_LEN, p.grid_len());
    assert_eq!(L::PADDED_LEN, p.padded_len());
    assert_eq!(L::BYTE_LEN, p.byte_len());
    assert_eq!(L::ELEMENT_BITS, p.element_bits());
    assert_eq!(L::ELEMENT_TYPE, a.element_type);
    assert_eq!(L::XLA_BYTE_SIZE, a.byte_size().ok());
    let layout_of = a.layout.as_ref().unwrap();
    let m2m: Vec<usize> = layout_of.minor_to_major.iter().map(|&m| m as usize).collect();
    assert_eq!(L::MINOR_TO_MAJOR, m2m);
    let tiles: Vec<Vec<TileDim>> = layout_of.tiles.iter().map(|t| t.dims.clone()).collect();
    assert_eq!(L::TILES.iter().map(|t| t.to_vec()).collect::<Vec<_>>(), tiles);
    assert_eq!(layout.to_shape(), shape);
    let mut it = p.row_major();
    while let Some((index, offset)) = it.next_ref() {
        let ix = L::Index::try_from(index).ok().unwrap();
        assert_eq!(layout.offset(ix), offset, "{} {index:?}", L::TEXT);
        assert_eq!(layout.checked_offset(ix), Some(offset));
        assert_eq!(layout.index_of(offset), Some(ix));
    }
    let memory: Vec<Option<Vec<usize>>> =
        layout.memory_order().map(|ix| ix.map(|ix| ix.as_ref().to_vec())).collect();
    assert_eq!(memory, p.memory_order().collect::<Vec<_>>(), "{}", L::TEXT);
    assert_eq!(layout.index_of(L::GRID_LEN), None);
}

#[test]
fn every_form_and_kind_agrees_with_the_runtime() {
    agrees_with_runtime(Fig1);
    agrees_with_runtime(Fig2);
    agrees_with_runtime(Untiled);
    agrees_with_runtime(Scalar);
    agrees_with_runtime(TiledScalar);
    agrees_with_runtime(Combined);
    agrees_with_runtime(Packed);
    agrees_with_runtime(Complex);
    agrees_with_runtime(Bits);
    agrees_with_runtime(Longer);
    agrees_with_runtime(Rank8);
}

#[test]
fn big_layout_spot_checks() {
    // Too big to walk: spot checks against the plan.
    let p = plan::<Pasted>();
    for ix in [[0, 0, 0, 0], [1, 0, 0, 0], [7, 0, 1279, 16383], [3, 0, 9, 130], [0, 0, 1, 0]] {
        assert_eq!(Pasted.offset(ix), p.offset(&ix).unwrap(), "{ix:?}");
        assert_eq!(Pasted.index_of(Pasted.offset(ix)), Some(ix));
    }
    assert_eq!(Pasted::XLA_BYTE_SIZE, Some(335_544_320));
}

#[test]
fn empty_and_default_layouts() {
    assert_eq!(Empty::GRID_LEN, 0);
    assert_eq!(Empty.checked_offset([0, 0]), None);
    assert_eq!(Empty.index_of(0), None);
    assert_eq!(Empty.memory_order().count(), 0);
    assert_eq!(Untiled::TEXT, "s32[2,3]{1,0}"); // XLA's default layout attached
    assert_eq!(Scalar::TEXT, "f64[]");
    assert_eq!(Combined::XLA_BYTE_SIZE, None); // XLA's ArraySize is undefined with `*`
}

#[test]
fn expression_forms_are_the_same_layout() {
    let a = layout!(f32[3,5]{1,0:T(2,2)});
    let b = layout!(f32[3,5]<1,0:T(2,2)>);
    let c = layout!("f32[3,5]{1,0:T(2,2)}");
    let d = layout!(f32 [ 3 , 5 ] { 1 , 0 : T ( 2 , 2 ) });
    let e = layout!(r"f32[3,5]{1,0:T(2,2)} /* a comment, as in a dump */");
    for i in 0..3 {
        for j in 0..5 {
            let o = Fig1.offset([i, j]);
            assert_eq!([a.offset([i, j]), b.offset([i, j]), c.offset([i, j])], [o; 3]);
            assert_eq!([d.offset([i, j]), e.offset([i, j])], [o; 2]);
        }
    }
    assert_eq!(core::mem::size_of_val(&a), 0);
    let default = layout!(u8[4, 2]);
    assert_eq!(default.offset([3, 1]), 7);
}

#[test]
fn typed_storage() {
    let mut buf = Buffer::<Fig1>::zeroed();
    for i in 0..3 {
        for j in 0..5 {
            buf[[i, j]] = (i * 10 + j) as f32;
        }
    }
    // Row 0 of Figure 1's memory strip: (0,0) (0,1) (1,0) (1,1) (0,2) ...
    assert_eq!(buf.as_slice()[..6], [0.0, 1.0, 10.0, 11.0, 2.0, 3.0]);
    assert_eq!(buf.as_slice()[9], 0.0); // padding stays zero
    let mut c = Buffer::<Complex>::zeroed();
    c[[2]] = [1.0, -1.0];
    assert_eq!(c.as_slice(), [[0.0, 0.0], [0.0, 0.0], [1.0, -1.0], [0.0, 0.0]]);
    let bits = Buffer::<Bits>::zeroed();
    assert_eq!(bits.as_slice().len(), 8); // L(8) tail padding
}

#[test]
#[should_panic(expected = "index out of bounds for the layout f32[3,5]{1,0:T(2,2)}")]
fn out_of_range_offset_panics() {
    let _ = Fig1.offset([3, 0]);
}

#[test]
fn unchecked_offset_never_panics() {
    let _ = Fig1.offset_unchecked([usize::MAX, usize::MAX]);
    let _ = Combined.offset_unchecked([usize::MAX; 5]);
    let _ = Empty.offset_unchecked([7, 7]);
}

/// `Hand` (written out in layout-runtime's docs) has every constant and offset of `Made` (what
/// the macro generates for the same text), over indices up to one past each dimension.
fn same_layout<Hand, Made>()
where
    Hand: StaticLayout<Index = [usize; 2]>,
    Made: StaticLayout<Index = [usize; 2]>,
{
    assert_eq!(Hand::TEXT, Made::TEXT);
    assert_eq!(
        (Hand::RANK, Hand::DIMS, Hand::MINOR_TO_MAJOR, Hand::TILES, Hand::ELEMENT_TYPE),
        (Made::RANK, Made::DIMS, Made::MINOR_TO_MAJOR, Made::TILES, Made::ELEMENT_TYPE)
    );
    assert_eq!(
        (Hand::ELEMENT_BITS, Hand::GRID_LEN, Hand::PADDED_LEN, Hand::BYTE_LEN, Hand::XLA_BYTE_SIZE),
        (Made::ELEMENT_BITS, Made::GRID_LEN, Made::PADDED_LEN, Made::BYTE_LEN, Made::XLA_BYTE_SIZE)
    );
    for o in 0..Made::GRID_LEN + 6 {
        assert_eq!(Hand::LAYOUT.index_of(o), Made::LAYOUT.index_of(o), "{o}");
    }
    for i in 0..=Made::DIMS[0] {
        for j in 0..=Made::DIMS[1] {
            let (h, m) = (Hand::LAYOUT, Made::LAYOUT);
            assert_eq!(h.checked_offset([i, j]), m.checked_offset([i, j]), "{i} {j}");
        }
    }
}

layout! {
    struct Nibbles = u4[4,4]{1,0:E(4)};
    struct PairRows = f32[16,256]{1,0:T(8,128)(2,1)};
    struct Pairs = f32[4,2]{1,0:T(2,1)};
    struct Vector = f32[8]{0:T(2,2)};
}

/// The hand-written layouts in layout-runtime's docs are exactly what the macro generates.
#[test]
fn doc_layouts_match_the_macro() {
    use xlayout::__doc_layouts::U4x4x4E4;
    use xlayout::__doc_layouts::{F32x16x256T8x128T2x1, F32x3x5T2x2, F32x4x2T2x1, F32x8T2x2};
    use xlayout::fixed::{PackedLayout, TiledLayout};
    type Tile<L> = <L as TiledLayout>::Tile;
    same_layout::<F32x3x5T2x2, Fig1>();
    same_layout::<Tile<F32x3x5T2x2>, Tile<Fig1>>();
    same_layout::<F32x16x256T8x128T2x1, PairRows>();
    same_layout::<Tile<F32x16x256T8x128T2x1>, Tile<PairRows>>();
    same_layout::<F32x4x2T2x1, Pairs>();
    same_layout::<U4x4x4E4, Nibbles>();
    same_layout::<Tile<F32x8T2x2>, Tile<Vector>>();
    assert_eq!((F32x8T2x2::TEXT, F32x8T2x2::GRID_LEN), (Vector::TEXT, Vector::GRID_LEN));
    for o in 0..20 {
        assert_eq!(F32x8T2x2.index_of(o), Vector.index_of(o), "{o}");
    }
    assert_eq!(<F32x3x5T2x2 as TiledLayout>::TILE_COUNT, <Fig1 as TiledLayout>::TILE_COUNT);
    assert_eq!(<F32x3x5T2x2 as TypedLayout>::ZEROED, <Fig1 as TypedLayout>::ZEROED);
    assert_eq!(<U4x4x4E4 as PackedLayout>::ZEROED, <Nibbles as PackedLayout>::ZEROED);
    assert_eq!(Fig1::ELEMENT_TYPE, PrimitiveType::F32);
}

/// `pack_from` puts row-major element k at the plan's offset of its index, zeroes padding, and
/// `unpack_into` brings the array back.
fn pack_round_trip<L: TypedLayout + InlineLayout>()
where
    L::Elem: PartialEq + core::fmt::Debug,
{
    let p = plan::<L>();
    let n: usize = p.dims().iter().product();
    // Distinct non-zero values of any element type, from its ZERO and a counter.
    let values: Vec<L::Elem> = (0..n).map(|k| value::<L::Elem>(k + 1)).collect();
    let buf = Buffer::<L>::from_row_major(&values).unwrap();
    let storage = buf.as_slice();
    let mut filled = vec![false; storage.len()];
    for (k, (index, offset)) in p.row_major().enumerate() {
        assert_eq!(storage[offset], values[k], "{} {index:?}", L::TEXT);
        filled[offset] = true;
    }
    for (o, &f) in filled.iter().enumerate() {
        if !f {
            assert_eq!(storage[o], <L::Elem as xlayout::Element>::ZERO, "{} padding @{o}", L::TEXT);
        }
    }
    let mut back = vec![<L::Elem as xlayout::Element>::ZERO; n];
    buf.unpack_into(&mut back).unwrap();
    assert_eq!(back, values);
    let mut through_view = vec![<L::Elem as xlayout::Element>::ZERO; storage.len()];
    xlayout::StaticViewMut::<L>::new(&mut through_view).unwrap().pack_from(&values).unwrap();
    assert_eq!(through_view, storage);
    let e = Buffer::<L>::from_row_major(&values[..n.saturating_sub(1)]);
    assert_eq!(e.is_err(), n > 0);
}

/// A value of `T` that is different for different `k` (within what the test uses).
fn value<T: xlayout::Element>(k: usize) -> T {
    use core::any::Any;
    let any: Box<dyn Any> = match core::any::type_name::<T>() {
        "f32" => Box::new(k as f32),
        "f64" => Box::new(k as f64),
        "u8" => Box::new((k % 251 + 1) as u8),
        "u16" => Box::new(k as u16),
        "half::binary16::f16" => Box::new(half::f16::from_f32(k as f32)),
        "half::bfloat::bf16" => Box::new(half::bf16::from_f32(k as f32)),
        "u32" => Box::new(k as u32),
        "i32" => Box::new(k as i32),
        "bool" => Box::new(true),
        "[f32; 2]" => Box::new([k as f32, -(k as f32)]),
        other => panic!("no test values for {other}"),
    };
    *any.downcast::<T>().unwrap()
}

#[test]
fn pack_and_unpack_agree_with_the_runtime() {
    pack_round_trip::<Fig1>();
    pack_round_trip::<Fig2>();
    pack_round_trip::<Untiled>();
    pack_round_trip::<Scalar>();
    pack_round_trip::<TiledScalar>();
    pack_round_trip::<Empty>();
    pack_round_trip::<Combined>();
    pack_round_trip::<Complex>();
    pack_round_trip::<Bits>();
    pack_round_trip::<Longer>();
}

#[test]
fn pack_errors_leave_storage_alone() {
    let mut storage = vec![7.0f32; 24];
    let mut view = xlayout::StaticViewMut::<Fig1>::new(&mut storage).unwrap();
    let e = view.pack_from(&[1.0; 14]).unwrap_err();
    assert_eq!((e.expected, e.actual), (15, 14));
    assert_eq!(
        e.to_string(),
        "the row-major slice has 14 elements; the array f32[3,5]{1,0:T(2,2)} has 15"
    );
    assert!(storage.iter().all(|&x| x == 7.0));
}

/// A custom element size is XLA's: its parser and verifier take `E(n)` on any element type
/// (tests/data/element_size.json, from jaxlib by tests/data/element_size.py), and so do the
/// runtime and `layout!`. A width that is neither the type's own nor, for a sub-byte type, its
/// packing has no storage (XLA's CPU compiler drops such an `E(n)`): `layout!` says so with
/// a warning at the `E`, which this module allows, and the layout keeps its offsets and sizes.
#[allow(deprecated)]
mod element_size {
    use static_assertions::{assert_impl_all, assert_not_impl_any};
    use xlayout::fixed::{PackedLayout, StaticLayout, TypedLayout};
    use xlayout::{layout, Shape};

    layout! {
        struct Wide = bf16[64,384]{1,0:T(8,128)(2,1)E(4)};
        struct Own = bf16[64,384]{1,0:E(16)};
        struct Nibbles = s4[64,128]{1,0:T(64,128)(8,1)E(4)};
        struct Spread = u2[8]{0:E(4)};
    }

    assert_impl_all!(Wide: StaticLayout);
    assert_not_impl_any!(Wide: TypedLayout, PackedLayout);
    assert_impl_all!(Own: TypedLayout);
    assert_impl_all!(Nibbles: PackedLayout);
    assert_not_impl_any!(Spread: TypedLayout, PackedLayout);

    #[test]
    fn xla_takes_every_element_size_and_so_does_the_runtime() {
        let doc: serde_json::Value =
            serde_json::from_str(include_str!("data/element_size.json")).unwrap();
        let cases = doc["cases"].as_array().unwrap();
        assert_eq!(cases.len(), 9);
        for case in cases {
            let text = case["shape"].as_str().unwrap();
            let parsed = case["parsed"].as_str().unwrap();
            let shape: Shape = text.parse().unwrap();
            assert_eq!(format!("ok {shape}"), parsed);
        }
        // The offsets stay (in elements), and the sizes count E(4) bits an element.
        assert_eq!(Wide::TEXT, "bf16[64,384]{1,0:T(8,128)(2,1)E(4)}");
        assert_eq!(Wide.offset([1, 130]), 1024 + 2 * 2 + 1);
        assert_eq!((Wide::ELEMENT_BITS, Wide::BYTE_LEN), (4, 64 * 384 / 2));
        assert_eq!(Spread::BYTE_LEN, 4);
    }
}
