//! Checks of what a generated layout stores, chosen by the storage trait it implements:
//! `storage_checks![A, B, ..]` is one check function per layout, which runs `tiles_agree` for
//! a `TiledLayout`, `packed_agrees` for a `PackedLayout`, and nothing for the others (picked
//! at compile time by autoref: the most specific impl applies).

use core::marker::PhantomData;

use xlayout::fixed::{PackedLayout, StaticLayout, TiledLayout};
use xlayout::{HeapBuffer, PackedHeapBuffer, Shape, SubByte, TileDim};

/// What a check looked at, with the number of elements compared.
#[derive(Debug)]
pub enum Checked {
    Tiles(usize),
    Packed(usize),
    Nothing,
}

/// The layout `L`, for picking its check.
pub struct Probe<L>(pub PhantomData<L>);

pub trait ViaTiles {
    fn check(&self) -> Checked;
}

impl<L: TiledLayout> ViaTiles for &&Probe<L> {
    fn check(&self) -> Checked {
        Checked::Tiles(tiles_agree::<L>())
    }
}

pub trait ViaPacked {
    fn check(&self) -> Checked;
}

impl<L: PackedLayout> ViaPacked for &Probe<L> {
    fn check(&self) -> Checked {
        Checked::Packed(packed_agrees::<L>())
    }
}

pub trait ViaNothing {
    fn check(&self) -> Checked;
}

impl<L> ViaNothing for Probe<L> {
    fn check(&self) -> Checked {
        Checked::Nothing
    }
}

/// `[check of A, check of B, ..]` as functions.
#[macro_export]
macro_rules! storage_checks {
    ($($t:ident),* $(,)?) => {
        [$(|| {
            #[allow(unused_imports)]
            use $crate::storage::{ViaNothing, ViaPacked, ViaTiles};
            (&&&$crate::storage::Probe::<$t>(core::marker::PhantomData)).check()
        }),*]
    };
}

/// The physical coordinates of `index` as the first tile level sees them, most major first,
/// with leading zeros when the tile has more entries than the array has dimensions.
fn physical<L: StaticLayout>(index: &[usize], tile_rank: usize) -> Vec<usize> {
    let mut p: Vec<usize> = L::MINOR_TO_MAJOR.iter().rev().map(|&d| index[d]).collect();
    while p.len() < tile_rank {
        p.insert(0, 0);
    }
    p
}

/// The tiles of `L` against its offsets: `TILE_COUNT` tiles of the tile layout's length cover
/// the grid; tile `k` is storage `[k·T, (k+1)·T)` in memory order, its origin is the index at
/// `k·T`; every element of the array is in the tile its offset says, at the place the tile
/// layout gives its in-tile coordinates (the first tile's sizes dividing its physical ones,
/// when the first tile has no `*`). Returns the number of elements compared.
pub fn tiles_agree<L: TiledLayout>() -> usize {
    type Tile<L> = <L as TiledLayout>::Tile;
    let t = <Tile<L> as StaticLayout>::PADDED_LEN;
    assert_eq!(L::TILE_COUNT * t, L::GRID_LEN, "{}", L::TEXT);
    let buf = HeapBuffer::<L>::zeroed();
    let base = buf.as_slice().as_ptr();
    let mut tiles = 0;
    for (k, tile) in buf.tiles().enumerate() {
        let at = (tile.view.as_slice().as_ptr() as usize - base as usize) / size_of::<L::Elem>();
        assert_eq!(at, k * t, "{} tile {k}", L::TEXT);
        assert_eq!(Some(tile.origin), L::LAYOUT.index_of(k * t), "{} tile {k}", L::TEXT);
        tiles += 1;
    }
    assert_eq!(tiles, L::TILE_COUNT);
    let first = L::TILES[0];
    let sizes: Vec<usize> = first
        .iter()
        .filter_map(|d| match d {
            TileDim::Size(n) => Some(*n as usize),
            TileDim::Combine => None,
        })
        .collect();
    let plan = L::TEXT.parse::<Shape>().unwrap().try_array().unwrap().plan().unwrap();
    if plan.dims().iter().product::<usize>() > 1 << 16 {
        return 0; // too many to walk in a test; the tiles above are checked
    }
    let tile_layout = <Tile<L> as StaticLayout>::LAYOUT;
    let mut compared = 0;
    let mut it = plan.row_major();
    while let Some((index, offset)) = it.next_ref() {
        let in_tile = tile_layout.index_of(offset % t);
        assert!(in_tile.is_some(), "{} {index:?} is padding of its tile", L::TEXT);
        if sizes.len() == first.len() {
            let p = physical::<L>(index, first.len());
            let expected: Vec<usize> =
                p[p.len() - sizes.len()..].iter().zip(&sizes).map(|(x, s)| x % s).collect();
            assert_eq!(in_tile.unwrap().as_ref(), expected, "{} {index:?}", L::TEXT);
        }
        compared += 1;
    }
    compared
}

/// A different element for different `k` (as far as the type's bits allow).
fn element<E: SubByte>(k: usize) -> E {
    E::from_packed((k.wrapping_mul(0x9e37_79b9) >> 7) as u8)
}

/// Every element of `L` written with `set` and read with `read`, `get` and the runtime's
/// `read_packed`; the bytes against the runtime's `write_packed`, and `pack_from` /
/// `unpack_into` against both. Returns the number of elements compared.
pub fn packed_agrees<L: PackedLayout>() -> usize {
    let plan = L::TEXT.parse::<Shape>().unwrap().try_array().unwrap().plan().unwrap();
    assert_eq!(L::ELEMENT_BITS, plan.element_bits());
    let mut ours = PackedHeapBuffer::<L>::zeroed();
    let mut theirs = vec![0u8; plan.byte_len()];
    let mut row_major = Vec::new();
    let mut it = plan.row_major();
    while let Some((index, _)) = it.next_ref() {
        let ix = L::Index::try_from(index).ok().unwrap();
        let v = element::<L::Elem>(row_major.len());
        ours.set(ix, v);
        plan.write_packed(&mut theirs, index, u64::from(v.to_packed())).unwrap();
        row_major.push(v);
    }
    assert_eq!(ours.as_bytes(), theirs, "{}", L::TEXT);
    let mut it = plan.row_major();
    let mut k = 0;
    while let Some((index, _)) = it.next_ref() {
        let ix = L::Index::try_from(index).ok().unwrap();
        let v = row_major[k];
        assert_eq!(ours.read(ix), v, "{} {index:?}", L::TEXT);
        assert_eq!(ours.get(ix), Some(v), "{} {index:?}", L::TEXT);
        let raw = plan.read_packed(ours.as_bytes(), index).unwrap();
        assert_eq!(L::Elem::from_packed(raw as u8), v, "{} {index:?}", L::TEXT);
        assert_eq!(raw, u64::from(v.to_packed()), "{} {index:?}", L::TEXT);
        k += 1;
    }
    let packed = PackedHeapBuffer::<L>::from_row_major(&row_major).unwrap();
    assert_eq!(packed.as_bytes(), theirs, "{}", L::TEXT);
    let mut back = vec![<L::Elem as xlayout::Element>::ZERO; row_major.len()];
    packed.unpack_into(&mut back).unwrap();
    assert_eq!(back, row_major, "{}", L::TEXT);
    k
}
