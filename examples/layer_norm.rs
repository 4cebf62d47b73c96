//! A bf16 layer norm over TPU tiles: the activations are `bf16[256,1024]` in the layout XLA
//! gives them on a TPU, `{1,0:T(8,128)(2,1)}` (8x128 tiles whose rows are interleaved in
//! pairs), on the heap. The kernel never computes an offset: it walks the tiles in memory
//! order, each a contiguous 8x128 view with its logical origin, and inside a tile the rows
//! pair by pair (`row_groups::<2>()`: 128 `[bf16; 2]`, one per column, the two rows of the
//! pair side by side), as plain slices the compiler vectorizes.
//!
//! `y[i, j] = (x[i, j] - mean_i) / sqrt(var_i + eps) * gamma[j] + beta[j]`, the sums in
//! `f32`. The same kernel on a plain row-major array is the reference: both add each row's
//! elements in the same order, so the results agree to the bit.
//!
//! `cargo run --release --example layer_norm`; `benches/typed_access.rs` times both.

use xlayout::{bf16, layout, HeapBuffer, StaticLayout, TiledLayout};

layout! {
    /// Activations: 256 rows of 1024 features in TPU bf16 tile pairs.
    pub struct Activations = bf16[256,1024]{1,0:T(8,128)(2,1)};
}

/// Rows and features of the activations.
pub const ROWS: usize = 256;
/// Features per row.
pub const COLS: usize = 1024;
const EPS: f32 = 1e-5;

/// Columns of one tile.
const TILE_COLS: usize = 128;

/// Each row's mean and `1 / sqrt(variance + eps)`, from its sum and sum of squares.
pub fn moments(sum: &[f32], sum_sq: &[f32]) -> Vec<(f32, f32)> {
    let n = COLS as f32;
    sum.iter()
        .zip(sum_sq)
        .map(|(&s, &q)| {
            let mean = s / n;
            (mean, 1.0 / (q / n - mean * mean + EPS).sqrt())
        })
        .collect()
}

/// One output element.
#[inline(always)]
pub fn normalize(x: bf16, (mean, rstd): (f32, f32), gamma: f32, beta: f32) -> bf16 {
    bf16::from_f32((x.to_f32() - mean) * rstd * gamma + beta)
}

/// The layer norm on tiled storage, tile by tile, into `y` (same layout).
pub fn layer_norm_tiled(
    x: &HeapBuffer<Activations>,
    gamma: &[f32; COLS],
    beta: &[f32; COLS],
    y: &mut HeapBuffer<Activations>,
) {
    let (mut sum, mut sum_sq) = (vec![0.0f32; ROWS], vec![0.0f32; ROWS]);
    // Tiles lie row block by row block, each block's tiles left to right: every row's sums
    // take its elements in column order, as the row-major kernel's do.
    for tile in x.tiles() {
        let [i0, _] = tile.origin;
        for (p, pairs) in tile.view.row_groups::<2>().enumerate() {
            let (r0, r1) = (i0 + 2 * p, i0 + 2 * p + 1);
            let (mut s0, mut q0, mut s1, mut q1) = (sum[r0], sum_sq[r0], sum[r1], sum_sq[r1]);
            for &[a, b] in pairs {
                let (a, b) = (a.to_f32(), b.to_f32());
                (s0, q0, s1, q1) = (s0 + a, q0 + a * a, s1 + b, q1 + b * b);
            }
            (sum[r0], sum_sq[r0], sum[r1], sum_sq[r1]) = (s0, q0, s1, q1);
        }
    }
    let rows = moments(&sum, &sum_sq);
    for (tile, mut out) in x.tiles().zip(y.tiles_mut()) {
        let [i0, j0] = tile.origin;
        let (gamma, beta) = (&gamma[j0..j0 + TILE_COLS], &beta[j0..j0 + TILE_COLS]);
        let groups = tile.view.row_groups::<2>().zip(out.view.row_groups_mut::<2>());
        for (p, (src, dst)) in groups.enumerate() {
            let (upper, lower) = (rows[i0 + 2 * p], rows[i0 + 2 * p + 1]);
            for (((&[a, b], d), &g), &be) in src.iter().zip(dst).zip(gamma).zip(beta) {
                *d = [normalize(a, upper, g, be), normalize(b, lower, g, be)];
            }
        }
    }
}

/// The same layer norm on a row-major array (`x[i * COLS + j]`): the reference.
pub fn layer_norm_row_major(x: &[bf16], gamma: &[f32; COLS], beta: &[f32; COLS], y: &mut [bf16]) {
    let (mut sum, mut sum_sq) = (vec![0.0f32; ROWS], vec![0.0f32; ROWS]);
    for (i, row) in x.chunks_exact(COLS).enumerate() {
        for &v in row {
            let v = v.to_f32();
            sum[i] += v;
            sum_sq[i] += v * v;
        }
    }
    let rows = moments(&sum, &sum_sq);
    for (i, (row, out)) in x.chunks_exact(COLS).zip(y.chunks_exact_mut(COLS)).enumerate() {
        for (j, (&v, o)) in row.iter().zip(out).enumerate() {
            *o = normalize(v, rows[i], gamma[j], beta[j]);
        }
    }
}

/// Inputs: activations in row-major order, and the per-feature scale and shift.
pub fn inputs() -> (Vec<bf16>, [f32; COLS], [f32; COLS]) {
    let x = (0..ROWS * COLS)
        .map(|k| {
            let (i, j) = (k / COLS, k % COLS);
            bf16::from_f32(((i * 31 + j * 17) % 97) as f32 / 13.0 - 3.0 + i as f32 / 64.0)
        })
        .collect();
    let gamma = core::array::from_fn(|j| 1.0 + (j % 7) as f32 / 8.0);
    let beta = core::array::from_fn(|j| (j % 5) as f32 / 4.0 - 0.5);
    (x, gamma, beta)
}

fn main() {
    let (x_rows, gamma, beta) = inputs();
    let x = HeapBuffer::<Activations>::from_row_major(&x_rows).expect("one value per element");
    let mut y = HeapBuffer::<Activations>::zeroed();
    layer_norm_tiled(&x, &gamma, &beta, &mut y);

    let mut expected = vec![bf16::ZERO; ROWS * COLS];
    layer_norm_row_major(&x_rows, &gamma, &beta, &mut expected);
    let mut got = vec![bf16::ZERO; ROWS * COLS];
    y.unpack_into(&mut got).expect("one value per element");
    let differ = got.iter().zip(&expected).filter(|(a, b)| a.to_bits() != b.to_bits()).count();

    println!("layout  {}", Activations::TEXT);
    println!(
        "storage {} bytes on the heap, {} tiles of {}",
        Activations::BYTE_LEN,
        Activations::TILE_COUNT,
        <Activations as TiledLayout>::Tile::TEXT
    );
    println!("y[0, ..4] {:?}", &got[..4]);
    println!("elements that differ from the row-major kernel: {differ}");
    assert_eq!(differ, 0, "the tiled kernel disagrees with the row-major one");
}
