//! A small kernel against a fixed layout: y = A·x with A stored as a TPU-style tiled matrix,
//! `f32[64,384]{1,0:T(8,128)}`. The layout is written once, checked when this file compiles,
//! and its offsets are constant arithmetic.
//!
//! The kernel walks A in memory order, a whole 8x128 tile at a time (the loop a device would
//! run over contiguous tiles), and checks itself against the plain row-major product.
//!
//! `cargo run --release --example matvec`

use xlayout::{layout, Buffer, StaticLayout};

layout! {
    /// The matrix: 8 row blocks of 3 tiles of 8x128.
    pub struct Matrix = f32[64,384]{1,0:T(8,128)};
}

const ROWS: usize = 64;
const COLS: usize = 384;
const TILE_ROWS: usize = 8;
const TILE_COLS: usize = 128;

/// y = A·x, reading A tile by tile in memory order.
fn matvec(a: &Buffer<Matrix>, x: &[f32; COLS]) -> [f32; ROWS] {
    let mut y = [0.0f32; ROWS];
    let storage = a.as_slice();
    for (t, tile) in storage.chunks_exact(TILE_ROWS * TILE_COLS).enumerate() {
        // Tile t covers rows 8·(t / 3) .., columns 128·(t % 3) .. : check it with the layout.
        let (r0, c0) = (t / (COLS / TILE_COLS) * TILE_ROWS, t % (COLS / TILE_COLS) * TILE_COLS);
        debug_assert_eq!(Matrix.offset([r0, c0]), t * TILE_ROWS * TILE_COLS);
        for (r, row) in tile.chunks_exact(TILE_COLS).enumerate() {
            let dot: f32 = row.iter().zip(&x[c0..c0 + TILE_COLS]).map(|(a, x)| a * x).sum();
            y[r0 + r] += dot;
        }
    }
    y
}

fn main() {
    // Fill A through logical indices; the layout puts each value where the tiles want it.
    let mut a = Buffer::<Matrix>::zeroed();
    for i in 0..ROWS {
        for j in 0..COLS {
            a[[i, j]] = ((i * 7 + j * 3) % 11) as f32 - 5.0;
        }
    }
    let x: [f32; COLS] = core::array::from_fn(|j| (j % 5) as f32 * 0.5);

    let y = matvec(&a, &x);

    // The same product, the plain way, by logical index.
    let mut worst = 0.0f32;
    for (i, yi) in y.iter().enumerate() {
        let expected: f32 = (0..COLS).map(|j| a[[i, j]] * x[j]).sum();
        worst = worst.max((yi - expected).abs());
    }
    println!("layout  {}", Matrix::TEXT);
    println!(
        "storage {} bytes (XLA's ArraySize {:?}), {} tiles",
        Matrix::BYTE_LEN,
        Matrix::XLA_BYTE_SIZE,
        Matrix::GRID_LEN / 1024
    );
    println!("y[..4]  {:?}", &y[..4]);
    println!("largest difference from the row-major product: {worst}");
    assert!(worst < 1e-3, "the tiled kernel disagrees");
}
