//! The SVG maps of `xlayout::draw`, read back with an XML parser: the cells of each panel,
//! their offsets and logical indices, the padding, the tile frames, the caps.
//!
//! Expected offsets are derived in the comments from the tiled-layout document's definition
//! (the same derivations as /work/shared/spec and the conformance data), never taken from the
//! code under test.

use crate::support::drawing;

use std::collections::BTreeSet;

use drawing::map;
use xlayout::draw::{map_svg, MapOptions, MAX_CELLS};
use xlayout::{ErrorKind, Shape};

/// Figure 1 of the tiled-layout document: f32[3,5] tiled by (2,2). The padded 4x6 array is
/// cut into 2x3 tiles of 2x2, tiles in row-major order, elements row-major inside a tile:
/// offset(r, c) = ((r/2)·3 + c/2)·4 + (r%2)·2 + c%2. Padding: row 3 and column 5.
fn figure_1_offset(r: usize, c: usize) -> usize {
    ((r / 2) * 3 + c / 2) * 4 + (r % 2) * 2 + c % 2
}

#[test]
fn figure_1_logical_panel() {
    let m = map("f32[3,5]{1,0:T(2,2)}", &MapOptions::default());
    assert_eq!(m.title, "f32[3,5]{1,0:T(2,2)}");
    let p = &m.logical;
    assert_eq!((p.rows, p.cols, p.cells.len()), (4, 6, 24));
    for (k, cell) in p.cells.iter().enumerate() {
        let (r, c) = (k / 6, k % 6);
        let want = figure_1_offset(r, c);
        assert_eq!(cell.index.as_deref(), Some(format!("{r},{c}").as_str()));
        assert_eq!(cell.offset, want, "({r},{c})");
        assert_eq!(cell.text.as_deref(), Some(want.to_string().as_str()), "({r},{c})");
        assert_eq!(cell.pad, r == 3 || c == 5, "({r},{c})");
    }
    assert_eq!(p.cells.iter().filter(|c| c.pad).count(), 9);
    // The document's example element: (2,3) at 17.
    assert_eq!(p.cells[2 * 6 + 3].text.as_deref(), Some("17"));
    // One tile level: lines at columns 2 and 4 over all 4 rows, at row 2 over all 6 columns,
    // and the panel's edge (whole tiles) as a frame too.
    let want: BTreeSet<_> = [(true, 2, 0, 4), (true, 4, 0, 4), (false, 2, 0, 6)].into();
    assert_eq!(p.frames, [want]);
    assert!(p.closed);
    assert!(p.notes.is_empty());
}

#[test]
fn figure_1_memory_panel() {
    let m = map("f32[3,5]{1,0:T(2,2)}", &MapOptions::default());
    let p = &m.memory;
    // Rows of one 2x2 tile: 6 rows of 4, offsets 0..24 in order.
    assert_eq!((p.rows, p.cols, p.cells.len()), (6, 4, 24));
    let mut holds: Vec<Option<String>> = vec![None; 24];
    for r in 0..3 {
        for c in 0..5 {
            holds[figure_1_offset(r, c)] = Some(format!("{r},{c}"));
        }
    }
    for (k, cell) in p.cells.iter().enumerate() {
        assert_eq!(cell.offset, k);
        assert_eq!(cell.index, holds[k], "offset {k}");
        assert_eq!(cell.text, holds[k].clone(), "offset {k}");
        assert_eq!(cell.pad, holds[k].is_none(), "offset {k}");
    }
    // The padding positions XLA's document draws in its memory strip.
    let pads: Vec<usize> = p.cells.iter().filter(|c| c.pad).map(|c| c.offset).collect();
    assert_eq!(pads, [9, 11, 14, 15, 18, 19, 21, 22, 23]);
    // A line between every two rows (each row is one tile), none inside a row.
    let want: BTreeSet<_> = (1..6).map(|r| (false, r, 0, 4)).collect();
    assert_eq!(p.frames, [want]);
    assert!(p.closed);
}

#[test]
fn figure_1_svg_is_committed() {
    // The README shows this file; it must be what the library draws today.
    // `XLAYOUT_BLESS=1 cargo test --test draw_svg` rewrites it after a deliberate change.
    let m = map("f32[3,5]{1,0:T(2,2)}", &MapOptions::default());
    let path = concat!(env!("CARGO_MANIFEST_DIR"), "/docs/figure1.svg");
    if std::env::var_os("XLAYOUT_BLESS").is_some() {
        std::fs::write(path, &m.text).unwrap();
    }
    let committed = std::fs::read_to_string(path).unwrap();
    assert!(committed == m.text, "{path} is stale: rerun with XLAYOUT_BLESS=1 and review it");
}

/// bf16[16,256]{1,0:T(8,128)(2,1)}: the (8,128) tiles give the index space
/// (2,2,8,128) = (r/8, c/128, r%8, c%128); the (2,1) tiles split the in-tile (8,128) into
/// (4,128,2,1) = ((r%8)/2, c%128, r%2, 0). Strides of (2,2,4,128,2,1): (2048,1024,256,2,1,1).
fn bf16_offset(r: usize, c: usize) -> usize {
    2048 * (r / 8) + 1024 * (c / 128) + 256 * ((r % 8) / 2) + 2 * (c % 128) + r % 2
}

#[test]
fn bf16_pairs_logical_panel() {
    let m = map("bf16[16,256]{1,0:T(8,128)(2,1)}", &MapOptions::default());
    let p = &m.logical;
    assert_eq!((p.rows, p.cols, p.cells.len()), (16, 256, 4096));
    assert!(p.cells.iter().all(|c| !c.pad));
    for (k, cell) in p.cells.iter().enumerate() {
        let (r, c) = (k / 256, k % 256);
        assert_eq!(cell.offset, bf16_offset(r, c), "({r},{c})");
        assert_eq!(cell.text.as_deref(), Some(bf16_offset(r, c).to_string().as_str()));
    }
    // Chosen cells: row pairs interleave, the second tile column starts at 1024, the second
    // tile row at 2048.
    let text = |r: usize, c: usize| p.cells[r * 256 + c].text.clone().unwrap();
    assert_eq!(
        [text(0, 1), text(1, 1), text(2, 0), text(0, 128), text(8, 0), text(15, 255)],
        ["2", "3", "256", "1024", "2048", "4095"]
    );
    // Level 0: the (8,128) tile edges; level 1: every (2,1) pair, i.e. a line between every
    // two columns and between rows 2k-1 and 2k.
    let level0: BTreeSet<_> = [(true, 128, 0, 16), (false, 8, 0, 256)].into();
    let level1: BTreeSet<_> =
        (1..256).map(|c| (true, c, 0, 16)).chain((1..8).map(|k| (false, 2 * k, 0, 256))).collect();
    assert_eq!(p.frames, [level0, level1]);
    assert!(p.closed);
}

#[test]
fn bf16_pairs_memory_panel() {
    let m = map("bf16[16,256]{1,0:T(8,128)(2,1)}", &MapOptions::default());
    let p = &m.memory;
    // Rows of 256: one (2,1) pair (2 elements) times the 128 pairs across a tile row.
    assert_eq!((p.rows, p.cols, p.cells.len()), (16, 256, 4096));
    assert!(p.cells.iter().all(|c| !c.pad));
    let text = |o: usize| p.cells[o].text.clone().unwrap();
    assert_eq!(
        [text(0), text(1), text(2), text(255), text(256), text(1024), text(2048), text(4095)],
        ["0,0", "1,0", "0,1", "1,127", "2,0", "0,128", "8,0", "15,255"].map(String::from),
    );
}

#[test]
fn bf16_pairs_memory_panel_is_the_inverse() {
    let m = map("bf16[16,256]{1,0:T(8,128)(2,1)}", &MapOptions::default());
    let mut holds = vec![String::new(); 4096];
    for r in 0..16 {
        for c in 0..256 {
            holds[bf16_offset(r, c)] = format!("{r},{c}");
        }
    }
    for (k, cell) in m.memory.cells.iter().enumerate() {
        assert_eq!((cell.offset, cell.text.as_deref()), (k, Some(holds[k].as_str())));
    }
}

#[test]
fn transposed_layout_pads_its_minor_dimension() {
    // {0,1}: dimension 0 is minor. Physical (d1, d0) = (5, 3) padded to (6, 4), tiles of
    // (2,2) over (c, r): offset = ((c/2)·2 + r/2)·4 + (c%2)·2 + r%2.
    let m = map("f32[3,5]{0,1:T(2,2)}", &MapOptions::default());
    let p = &m.logical;
    assert_eq!((p.rows, p.cols), (4, 6));
    for (k, cell) in p.cells.iter().enumerate() {
        let (r, c) = (k / 6, k % 6);
        assert_eq!(cell.offset, ((c / 2) * 2 + r / 2) * 4 + (c % 2) * 2 + r % 2, "({r},{c})");
        assert_eq!(cell.pad, r == 3 || c == 5);
    }
    assert!(m.text.contains("physical order, major to minor: dim 1, dim 0; tiles (2,2)"));
}

#[test]
fn tail_padding_follows_the_grid_in_memory() {
    // L(32) rounds the 24 positions of Figure 1 up to 32: 8 tail cells after the 9 padding.
    let m = map("f32[3,5]{1,0:T(2,2)L(32)}", &MapOptions::default());
    let p = &m.memory;
    assert_eq!((p.rows, p.cols, p.cells.len()), (8, 4, 32));
    assert_eq!(p.cells.iter().filter(|c| c.pad).count(), 9 + 8);
    assert!(p.cells[24..].iter().all(|c| c.pad && c.index.is_none()));
    assert!(m.text.contains("then 8 of L tail padding"));
}

#[test]
fn a_slice_of_a_rank_3_array() {
    // Dimension 0 is untiled and most major: offset = d0·24 + Figure 1's offset of (d1, d2).
    let at = MapOptions { at: Some(vec![1]), ..MapOptions::default() };
    let m = map("f32[2,3,5]{2,1,0:T(2,2)}", &at);
    let p = &m.logical;
    assert_eq!((p.rows, p.cols), (4, 6));
    assert_eq!(p.cells[2 * 6 + 3].index.as_deref(), Some("1,2,3"));
    assert_eq!(p.cells[2 * 6 + 3].offset, 24 + 17);
    assert!(m.text.contains("logical of slice [1, :, :]"));
    // Memory: the offsets the slice touches, 24..48, in rows of a tile.
    let mem = &m.memory;
    assert_eq!((mem.cells.len(), mem.cells[0].offset), (24, 24));
    assert_eq!(mem.cells[17].index.as_deref(), Some("1,2,3")); // offset 24 + 17
    assert!(!mem.closed);
}

#[test]
fn a_window_zooms_into_a_region() {
    let o = MapOptions { origin: (6, 126), window: Some((4, 4)), ..MapOptions::default() };
    let m = map("bf16[16,256]{1,0:T(8,128)(2,1)}", &o);
    let p = &m.logical;
    assert_eq!((p.rows, p.cols), (4, 4));
    for (k, cell) in p.cells.iter().enumerate() {
        let (r, c) = (6 + k / 4, 126 + k % 4);
        assert_eq!(cell.index.as_deref(), Some(format!("{r},{c}").as_str()));
        assert_eq!(cell.offset, bf16_offset(r, c));
    }
    // The window crosses both tile boundaries: one level-0 line each way.
    assert!(p.frames[0].contains(&(true, 2, 0, 4)) && p.frames[0].contains(&(false, 2, 0, 4)));
    assert!(!p.closed);
    assert_eq!(p.notes, ["showing element rows 6..10 of 16, columns 126..130 of 256"]);
    // Memory, rows of 256: rows 6-7 hold offsets 1020..1024 (columns 126, 127: the end of
    // the row at 768) and 1792..1796 (columns 128, 129: the start of the row at 1792);
    // rows 8-9 add 2048 to the first tile's and 2048 + 1024 to the second's: the rows at
    // 2048 (its end) and 3072 (its start). The panel shows those 4 rows and their columns
    // 0..4 and 252..256, the 16 other positions of them faded.
    let window: BTreeSet<usize> =
        (6..10).flat_map(|r| (126..130).map(move |c| bf16_offset(r, c))).collect();
    let mem = &m.memory;
    assert_eq!((mem.rows, mem.cols), (4, 8));
    let mut k = 0;
    for start in [768, 1792, 2048, 3072] {
        for col in [0, 1, 2, 3, 252, 253, 254, 255] {
            let cell = &mem.cells[k];
            assert_eq!(cell.offset, start + col);
            assert_eq!(cell.outside, !window.contains(&cell.offset), "offset {}", cell.offset);
            k += 1;
        }
    }
    assert_eq!(mem.cells.iter().filter(|c| !c.outside).count(), 16);
    // Offset 1020 holds (6,126).
    assert_eq!(mem.cells[4].text.as_deref(), Some("6,126"));
    // Dashed lines above the rows at 1792 and 3072 (rows left out before them) and left of
    // column 252.
    assert_eq!(mem.gaps, [(false, 1, 0, 8), (false, 3, 0, 8), (true, 4, 0, 4)].into());
    assert_eq!(
        mem.notes,
        [
            "rows and columns holding none of the window left out (dashed lines)",
            "faded: offsets outside the window"
        ]
    );
    assert!(m.text.contains("memory order: where the window is, 256 offsets per row"));
}

#[test]
fn a_window_of_whole_tiles_shows_their_memory() {
    // The second (8,128) tile of bf16[16,256]: offsets 1024..2048, 4 whole rows of 256.
    let o = MapOptions { origin: (0, 128), window: Some((8, 128)), ..MapOptions::default() };
    let m = map("bf16[16,256]{1,0:T(8,128)(2,1)}", &o);
    let mem = &m.memory;
    assert_eq!((mem.rows, mem.cols), (4, 256));
    let offsets: Vec<usize> = mem.cells.iter().map(|c| c.offset).collect();
    assert_eq!(offsets, (1024..2048).collect::<Vec<_>>());
    assert!(mem.cells.iter().all(|c| !c.outside));
    assert!(mem.gaps.is_empty() && mem.notes.is_empty());
}

#[test]
fn tiles_mode_draws_one_cell_per_tile() {
    let tiles = MapOptions { tiles: true, ..MapOptions::default() };
    let m = map("f32[3,5]{1,0:T(2,2)}", &tiles);
    let p = &m.logical;
    // 2x3 tiles; each shows its first offset (a tile is 4 consecutive offsets); the tiles
    // reaching past row 2 or column 4 are partly padding.
    assert_eq!((p.rows, p.cols), (2, 3));
    let firsts: Vec<_> = p.cells.iter().map(|c| c.text.clone().unwrap()).collect();
    assert_eq!(firsts, ["0", "4", "8", "12", "16", "20"]);
    let corners: Vec<_> = p.cells.iter().map(|c| c.index.clone().unwrap()).collect();
    assert_eq!(corners, ["0,0", "0,2", "0,4", "2,0", "2,2", "2,4"]);
    let s: Shape = "f32[3,5]{1,0:T(2,2)}".parse().unwrap();
    let svg = map_svg(s.try_array().unwrap(), &tiles).unwrap();
    assert_eq!(svg.matches(r#"<g class="cell partial""#).count(), 2 * 4);
    // Memory: the 6 tiles in order, in one row (a tile row has 3 tiles; rows have at least 4
    // cells, so two tile rows are joined).
    let mem = &m.memory;
    assert_eq!((mem.rows, mem.cols), (1, 6));
    let offsets: Vec<_> = mem.cells.iter().map(|c| c.offset).collect();
    assert_eq!(offsets, [0, 4, 8, 12, 16, 20]);
    assert_eq!(mem.cells[4].text.as_deref(), Some("2,2"));
}

#[test]
fn tiles_mode_fits_a_4096_square() {
    // 4096/8 = 512 tile rows of 4096/128 = 32 tiles, each of 1024 elements; tile (1, 2)
    // starts at (32 + 2)·1024 = 34816.
    let tiles = MapOptions { tiles: true, ..MapOptions::default() };
    let m = map("f32[4096,4096]{1,0:T(8,128)}", &tiles);
    assert_eq!((m.logical.rows, m.logical.cols), (512, 32));
    assert_eq!(m.logical.cells[32 + 2].offset, 34816);
    assert_eq!(m.logical.cells[32 + 2].index.as_deref(), Some("8,256"));
    assert!(m.logical.notes.is_empty());
    assert_eq!((m.memory.rows, m.memory.cols), (512, 32));
    assert_eq!(m.memory.cells[33].index.as_deref(), Some("8,128"));
    assert!(m.text.len() < 10 << 20, "{} bytes", m.text.len());
}

#[test]
fn large_arrays_are_cut_and_say_so() {
    let m = map("f32[4096,4096]", &MapOptions::default());
    assert_eq!((m.logical.rows, m.logical.cols), (64, 64));
    assert_eq!(
        m.logical.notes,
        ["showing element rows 0..64 of 4096, columns 0..64 of 4096 (choose a window to see more)"]
    );
    // Memory, rows of 256 (MAX_MEMORY_ROW; an array row is 4096): array row r starts at
    // r·4096, the first 64 positions of memory row 16r.
    assert_eq!((m.memory.rows, m.memory.cols), (64, 64));
    for (k, cell) in m.memory.cells.iter().enumerate() {
        assert_eq!(cell.offset, (k / 64) * 4096 + k % 64);
        assert!(!cell.outside);
    }
    // Columns 64..256 are left out after the last shown one: no line, the labels say it.
    assert_eq!(m.memory.notes, ["rows holding none of the window left out (dashed lines)"]);
    assert_eq!(m.memory.gaps.len(), 63);
    let big = MapOptions { window: Some((1000, 1000)), ..MapOptions::default() };
    let m = map("f32[4096,4096]", &big);
    assert_eq!((m.logical.rows, m.logical.cols), (64, 256));
    assert_eq!(m.logical.cells.len(), MAX_CELLS);
    assert!(m.logical.notes[0].ends_with("(at most 16384 cells per panel)"));
    // Each array row of the window is one whole memory row: 64 rows, the 63 between them
    // left out.
    assert_eq!((m.memory.rows, m.memory.cols), (64, 256));
    assert_eq!(m.memory.cells[256].offset, 4096);
    assert_eq!(m.memory.gaps.len(), 63);
    assert_eq!(m.memory.notes, ["rows holding none of the window left out (dashed lines)"]);
    // Shifted by 100 columns, array row r covers memory rows 16r (positions 100..256) and
    // 16r + 1 (0..100): 128 rows of all 256 columns, twice the cap. The first 64 rows (array
    // rows 0..32) are drawn, and the picture says so.
    let shifted = MapOptions { origin: (0, 100), window: Some((64, 256)), ..MapOptions::default() };
    let m = map("f32[4096,4096]", &shifted);
    assert_eq!((m.memory.rows, m.memory.cols, m.memory.cells.len()), (64, 256, MAX_CELLS));
    for (k, cell) in m.memory.cells.iter().enumerate() {
        let (row, col) = (k / 256, k % 256);
        assert_eq!(cell.offset, (row / 2) * 4096 + (row % 2) * 256 + col);
        assert_eq!(cell.outside, if row % 2 == 0 { col < 100 } else { col >= 100 }, "{k}");
    }
    assert_eq!(
        m.memory.notes,
        [
            "showing the first 64 of the 128 rows that hold the window (at most 16384 cells per panel)",
            "rows holding none of the window left out (dashed lines)",
            "faded: offsets outside the window",
        ]
    );
}

#[test]
fn huge_arrays_stay_small_pictures() {
    for (shape, tiles) in [
        ("s8[1000000000,1000000000]{1,0:T(8,128)}", false),
        ("s8[1000000000,1000000000]{1,0:T(8,128)}", true),
        ("s8[1000000000,1000000000]{0,1}", false),
        ("s8[1000000000,1000000000,1]{0,1,2:T(8,128)(2,1)}", false),
    ] {
        let o =
            MapOptions { tiles, window: Some((usize::MAX, usize::MAX)), ..MapOptions::default() };
        let m = map(shape, &o);
        assert!(m.logical.cells.len() <= MAX_CELLS && m.memory.cells.len() <= MAX_CELLS);
        assert!(m.text.len() < 10 << 20, "{shape}: {} bytes", m.text.len());
        assert!(!m.logical.notes.is_empty(), "{shape}");
    }
    // A whole array whose `L` tail is 2^40 elements: memory in rows of 2 (a row of the
    // array), 2^39 of them; the first 8192 fill the panel.
    let m = map("f32[2]{0:L(1099511627776)}", &MapOptions::default());
    assert_eq!((m.memory.rows, m.memory.cols), (8192, 2));
    assert_eq!(
        m.memory.notes,
        ["showing the first 8192 of the 549755813888 rows (at most 16384 cells per panel)"]
    );
}

#[test]
fn scalars_and_vectors() {
    let m = map("f32[]", &MapOptions::default());
    assert_eq!(m.logical.cells.len(), 1);
    assert_eq!(m.logical.cells[0].index.as_deref(), Some("()"));
    assert_eq!(m.memory.cells[0].text.as_deref(), Some("()"));
    // A tiled scalar: one element, 127 padding positions, in one row of the 128-tile.
    let m = map("u32[]{:T(128)}", &MapOptions::default());
    assert_eq!((m.memory.rows, m.memory.cols), (1, 128));
    assert_eq!(m.memory.cells.iter().filter(|c| c.pad).count(), 127);
    // A vector tiled by 4: one row of 8 cells, 3 of them padding; memory in rows of 4.
    let m = map("f32[5]{0:T(4)}", &MapOptions::default());
    assert_eq!((m.logical.rows, m.logical.cols), (1, 8));
    assert_eq!(m.logical.cells.iter().filter(|c| c.pad).count(), 3);
    assert_eq!((m.memory.rows, m.memory.cols), (2, 4));
    // An empty array draws nothing and says why.
    let m = map("f32[0,5]", &MapOptions::default());
    assert!(m.logical.cells.is_empty() && m.memory.cells.is_empty());
    assert_eq!(m.logical.notes, ["the slice has no elements: it is 0x5"]);
}

#[test]
fn untiled_layouts_in_tiles_mode_draw_elements() {
    let tiles = MapOptions { tiles: true, ..MapOptions::default() };
    let m = map("f32[3,5]", &tiles);
    assert_eq!(m.logical.cells.len(), 15);
    assert!(m.logical.notes.iter().any(|n| n == "the layout has no tiles: one cell per element"));
}

#[test]
fn bad_requests_are_errors() {
    let shape: Shape = "f32[2,3,5]{2,1,0:T(2,2)}".parse().unwrap();
    let a = shape.try_array().unwrap();
    let kind = |o: MapOptions| map_svg(a, &o).unwrap_err().kind();
    let d = MapOptions::default;
    assert_eq!(kind(MapOptions { at: Some(vec![2]), ..d() }), ErrorKind::IndexOutOfBounds);
    assert_eq!(kind(MapOptions { at: Some(vec![0, 0]), ..d() }), ErrorKind::IndexOutOfBounds);
    assert_eq!(kind(MapOptions { origin: (4, 0), ..d() }), ErrorKind::IndexOutOfBounds);
    assert_eq!(kind(MapOptions { window: Some((0, 3)), ..d() }), ErrorKind::IndexOutOfBounds);
    // Origin (3, 5) is first-level padding: drawable.
    assert!(map_svg(a, &MapOptions { origin: (3, 5), ..d() }).is_ok());
    let merged: Shape = "f32[3,5]{1,0:T(*,2)(2)}".parse().unwrap();
    let e = map_svg(merged.try_array().unwrap(), &MapOptions { tiles: true, ..d() }).unwrap_err();
    assert_eq!(e.kind(), ErrorKind::CombinedDimension);
    let unbounded: Shape = "f32[?,5]".parse().unwrap();
    let e = map_svg(unbounded.try_array().unwrap(), &d()).unwrap_err();
    assert_eq!(e.kind(), ErrorKind::NotStaticArray);
}

#[test]
fn tiles_next_in_memory_differ_in_colour() {
    // Each layout with the memory one first-level tile takes: its elements, or for the
    // multi-level ones the (8,128) or (2,4) tile, the inner (2,1) tiles filling it exactly.
    // In f32[]{:T(5)(5,2)} the (5,2) level re-splits the axis that counts the (5) tiles, so
    // runs of 5 positions stand for them (30 positions: [1,3,5,2]); the property test found
    // runs 1 and 2 alike under the old colouring.
    let tiles = MapOptions { tiles: true, ..MapOptions::default() };
    let window = MapOptions { origin: (6, 120), window: Some((12, 24)), ..MapOptions::default() };
    let cases = [
        ("f32[3,5]{1,0:T(2,2)}", MapOptions::default(), 4),
        ("f32[3,5]{0,1:T(2,2)}", MapOptions::default(), 4),
        ("f32[9,13]{1,0:T(2,2)L(64)}", MapOptions::default(), 4),
        ("f32[16,16]{1,0:T(2,4)(2,1)}", MapOptions::default(), 8),
        ("f32[24,40]{0,1:T(4,8)}", MapOptions::default(), 32),
        ("bf16[16,256]{1,0:T(8,128)(2,1)}", MapOptions::default(), 1024),
        ("bf16[32,512]{1,0:T(8,128)(2,1)}", window.clone(), 1024),
        ("f32[64,1024]{1,0:T(8,128)}", tiles.clone(), 1024),
        ("f32[1024,64]{0,1:T(8,128)}", tiles.clone(), 1024),
        ("bf16[100,300]{0,1:T(8,128)(2,1)}", tiles.clone(), 1024),
        ("f32[2,30,30]{2,1,0:T(4,4)}", MapOptions { at: Some(vec![1]), ..tiles }, 16),
        ("f32[]{:T(5)(5,2)}", MapOptions::default(), 5),
    ];
    for (shape, options, span) in cases {
        let m = map(shape, &options);
        assert_eq!(drawing::colour_clashes(&m, span), Vec::<String>::new(), "{shape}");
        // Several tiles, so the check checks something.
        let cells = m.logical.cells.iter().chain(&m.memory.cells);
        let colours: BTreeSet<&str> = cells.map(|c| c.fill.as_str()).collect();
        assert!(colours.len() >= 2, "{shape}");
    }
}
