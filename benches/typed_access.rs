//! Typed access through what `layout!` generates, against hand-written code, in the same run:
//!
//! - `packed_access`: summing every element of a packed `s4` buffer through
//!   `PackedBuffer::read` (bounds check, generated offset, shift, mask, sign extension)
//!   against the same loop with a hand-written offset and shift-and-mask (target ratio <= 1.2);
//! - `layer_norm`: the tiled bf16 layer norm of `examples/layer_norm.rs` (tile by tile on the
//!   heap, row pairs as slices) against the same kernel on a row-major array, and the same
//!   kernel written element by element through the tile's index (`tile.view[[r, c]]`, what
//!   the example did before row groups).
//!
//! `cargo bench --bench typed_access`

use std::hint::black_box;

use criterion::{Criterion, Throughput};

mod common;
use common::median_ns;
use xlayout::{bf16, layout, HeapBuffer, PackedHeapBuffer, S4};

#[allow(dead_code)] // its `main` and printing are the example's own
#[path = "../examples/layer_norm.rs"]
mod layer_norm;

layout! { struct Nibbles = s4[512,1024]{1,0:T(64,128)(8,1)E(4)}; }

const PACKED: &str = "packed_access/s4[512,1024]{1,0:T(64,128)(8,1)E(4)}";
const ROWS: usize = 512;
const COLS: usize = 1024;

/// The layout's offset by hand: 8 column tiles of 64x128 per row block, 8-row sub-tiles.
#[inline(always)]
fn hand_offset(i: usize, j: usize) -> usize {
    (((i >> 6) * (COLS / 128) + (j >> 7)) << 13)
        + (((i & 63) >> 3) << 10)
        + ((j & 127) << 3)
        + (i & 7)
}

/// Element `offset` of a 4-bit stream, sign-extended, by hand.
#[inline(always)]
fn hand_nibble(bytes: &[u8], offset: usize) -> i8 {
    let byte = bytes[offset >> 1] >> ((offset & 1) << 2);
    ((byte << 4) as i8) >> 4
}

fn packed_access(c: &mut Criterion) {
    let mut buf = PackedHeapBuffer::<Nibbles>::zeroed();
    for i in 0..ROWS {
        for j in 0..COLS {
            buf.set([i, j], S4::wrapping((i * 7 + j * 3) as i8));
        }
    }
    for i in (0..ROWS).step_by(3) {
        for j in (0..COLS).step_by(5) {
            assert_eq!(hand_offset(i, j), Nibbles.offset([i, j]));
            assert_eq!(hand_nibble(buf.as_bytes(), hand_offset(i, j)), buf.read([i, j]).get());
        }
    }
    let mut g = c.benchmark_group(PACKED);
    g.throughput(Throughput::Elements((ROWS * COLS) as u64));
    g.sample_size(30);
    g.bench_function("hand-written", |b| {
        let bytes = black_box(buf.as_bytes());
        b.iter(|| {
            let mut sum = 0i32;
            for i in 0..ROWS {
                for j in 0..COLS {
                    sum += i32::from(hand_nibble(bytes, hand_offset(i, j)));
                }
            }
            sum
        })
    });
    g.bench_function("PackedBuffer::read", |b| {
        let view = black_box(&buf).view();
        b.iter(|| {
            let mut sum = 0i32;
            for i in 0..ROWS {
                for j in 0..COLS {
                    sum += i32::from(view.read([i, j]));
                }
            }
            sum
        })
    });
    g.finish();
}

const NORM: &str = "layer_norm/bf16[256,1024]{1,0:T(8,128)(2,1)}";

/// The tiled layer norm element by element through each tile's own index: bit for bit the
/// example's, with an in-tile offset and a bounds check per element.
fn layer_norm_indexed(
    x: &HeapBuffer<layer_norm::Activations>,
    gamma: &[f32; 1024],
    beta: &[f32; 1024],
    y: &mut HeapBuffer<layer_norm::Activations>,
) {
    let (mut sum, mut sum_sq) = (vec![0.0f32; 256], vec![0.0f32; 256]);
    for tile in x.tiles() {
        let [i0, _] = tile.origin;
        for r in 0..8 {
            for c in 0..128 {
                let v = tile.view[[r, c]].to_f32();
                sum[i0 + r] += v;
                sum_sq[i0 + r] += v * v;
            }
        }
    }
    let rows = layer_norm::moments(&sum, &sum_sq);
    for (tile, mut out) in x.tiles().zip(y.tiles_mut()) {
        let [i0, j0] = tile.origin;
        for r in 0..8 {
            for c in 0..128 {
                let v = tile.view[[r, c]];
                out.view[[r, c]] =
                    layer_norm::normalize(v, rows[i0 + r], gamma[j0 + c], beta[j0 + c]);
            }
        }
    }
}

fn layer_norm(c: &mut Criterion) {
    use layer_norm::{layer_norm_row_major, layer_norm_tiled, Activations, COLS, ROWS};
    let (x_rows, gamma, beta) = layer_norm::inputs();
    let x = HeapBuffer::<Activations>::from_row_major(&x_rows).unwrap();
    // The three kernels agree to the bit before they are timed.
    let mut expected = vec![bf16::ZERO; ROWS * COLS];
    layer_norm_row_major(&x_rows, &gamma, &beta, &mut expected);
    for kernel in [layer_norm_tiled, layer_norm_indexed] {
        let mut y = HeapBuffer::<Activations>::zeroed();
        kernel(&x, &gamma, &beta, &mut y);
        let mut got = vec![bf16::ZERO; ROWS * COLS];
        y.unpack_into(&mut got).unwrap();
        assert!(got.iter().zip(&expected).all(|(a, b)| a.to_bits() == b.to_bits()));
    }
    let mut g = c.benchmark_group(NORM);
    g.throughput(Throughput::Elements((ROWS * COLS) as u64));
    g.sample_size(30);
    g.bench_function("row-major", |b| {
        let mut y = vec![bf16::ZERO; ROWS * COLS];
        b.iter(|| layer_norm_row_major(black_box(&x_rows), &gamma, &beta, &mut y))
    });
    g.bench_function("tiled", |b| {
        let mut y = HeapBuffer::<Activations>::zeroed();
        b.iter(|| layer_norm_tiled(black_box(&x), &gamma, &beta, &mut y))
    });
    g.bench_function("tiled, indexed", |b| {
        let mut y = HeapBuffer::<Activations>::zeroed();
        b.iter(|| layer_norm_indexed(black_box(&x), &gamma, &beta, &mut y))
    });
    g.finish();
}

fn main() {
    let mut c = Criterion::default().configure_from_args();
    packed_access(&mut c);
    layer_norm(&mut c);
    c.final_summary();
    let report = |group: &str, base: &str, others: &[&str], n: usize| {
        let Some(t0) = median_ns(group, base) else { return };
        println!("\n{group} (median; ratio to {base}, lower is better):");
        println!("  {base:<20} {:.3} ns/element", t0 / n as f64);
        for bench in others {
            if let Some(t) = median_ns(group, bench) {
                println!("  {bench:<20} {:.3} ns/element  ratio {:.2}", t / n as f64, t / t0);
            }
        }
    };
    report(PACKED, "hand-written", &["PackedBuffer::read"], ROWS * COLS);
    report(NORM, "row-major", &["tiled", "tiled, indexed"], 256 * 1024);
}
