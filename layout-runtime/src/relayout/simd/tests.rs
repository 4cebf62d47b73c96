//! The AVX-512 kernels at their boundaries, against the element-by-element moves they
//! replace: every width around a vector's (one short of it, one over), destinations and
//! sources at every offset in a line, buffers that end where the kernel's last element
//! does (the masked loads and stores of `transpose16` must touch nothing past it), and
//! both VBMI paths. On a machine without AVX-512 they say so on standard error (see
//! `cpu::tests::say_untested`) rather than pass silently.

use alloc::vec;
use alloc::vec::Vec;

use super::super::cpu::{tests::say_untested, Avx512, Simd};
use super::super::geometry::{Transpose, ONCE};
use super::super::tests::{noise, placed};
use super::avx512::{self, Zmm};
use super::groups::{Group, Nibbles8, U16x2, U8x4, Vector};
use super::stream::{fence, Line};
use super::transpose16::transpose16;
use core::arch::x86_64::__m512i;

fn avx512() -> Option<Avx512> {
    let z = Avx512::new();
    if z.is_none() {
        say_untested(Simd::Avx512, "the AVX-512 kernels' boundary tests (simd::tests)");
    }
    z
}

#[test]
fn a_line_is_one_store_on_a_line_and_plain_stores_elsewhere() {
    let Some(_) = avx512() else { return };
    let v: [u8; 64] = core::array::from_fn(|i| i as u8 + 1);
    for offset in 0..64 {
        let (mut buf, at) = placed(64, offset, 0);
        let out: &mut [u8; 64] = (&mut buf[at..at + 64]).try_into().unwrap();
        // SAFETY: the token above proves AVX-512 F, all `Zmm` needs.
        unsafe { Zmm.line(out, &v) };
        fence();
        assert_eq!(buf[at..at + 64], v, "offset {offset}");
        assert!(buf[..at].iter().chain(&buf[at + 64..]).all(|&b| b == 0));
    }
}

#[test]
fn zmm_copies_stream_heads_middles_tails_and_seams() {
    let Some(z) = avx512() else { return };
    let src = noise(700, 1);
    for offset in 0..65 {
        for len in [0, 1, 15, 63, 64, 65, 127, 128, 129, 183, 230] {
            let (mut buf, at) = placed(len, offset, 0);
            avx512::stream_copy(z, &mut buf[at..at + len], &src[..len]);
            fence();
            assert_eq!(buf[at..at + len], src[..len], "offset {offset} len {len}");
            assert!(buf[..at].iter().chain(&buf[at + len..]).all(|&b| b == 0));
        }
        // Piece k starts 37k bytes into `src`: pieces overlap or leave gaps, like rows.
        for run in [1, 3, 16, 48, 63, 64, 65, 100, 128] {
            for pieces in [0, 1, 2, 5] {
                let len = run * pieces;
                let (mut buf, at) = placed(len, offset, 0);
                avx512::stream_gather(z, &mut buf[at..at + len], run, |k| &src[37 * k..][..run]);
                fence();
                let want: Vec<u8> =
                    (0..pieces).flat_map(|k| src[37 * k..][..run].iter().copied()).collect();
                assert_eq!(buf[at..at + len], want[..], "offset {offset} run {run} x{pieces}");
                assert!(buf[..at].iter().chain(&buf[at + len..]).all(|&b| b == 0));
            }
        }
    }
}

/// `lanes` puts 16-byte piece `(h, i)` (quarter `h` of vector `i`) in memory order.
#[test]
fn lanes_order_the_quarters() {
    let Some(_) = avx512() else { return };
    fn check<const K: usize>() {
        // Every byte of piece (h, i) holds 16h + i + 1.
        let v: [__m512i; K] = core::array::from_fn(|i| {
            let bytes: [u8; 64] = core::array::from_fn(|b| (16 * (b / 16) + i + 1) as u8);
            // SAFETY: the caller checked for AVX-512.
            unsafe { __m512i::load(&bytes) }
        });
        // SAFETY: as above.
        let out = unsafe { __m512i::lanes(v) };
        let mut got = Vec::new();
        for o in out {
            let mut bytes = [0u8; 64];
            // SAFETY: as above.
            unsafe { o.store(&mut bytes, false) };
            got.extend(bytes.chunks(16).map(|q| {
                assert!(q.iter().all(|&b| b == q[0]));
                q[0]
            }));
        }
        let want: Vec<u8> =
            (0..4).flat_map(|h| (0..K).map(move |i| (16 * h + i + 1) as u8)).collect();
        assert_eq!(got, want, "K = {K}");
    }
    check::<2>();
    check::<4>();
    check::<8>();
}

/// Runs `G` on 64-byte vectors (VBMI's permutes and AVX-512 BW's unpacks both) for tiles
/// of `cols` columns around the vector's width, one tile and two repeated, from sources and
/// into destinations at several offsets, streamed and not; compares with `G::scalar`.
fn group_kernel<G: Group>(widths: &[usize]) {
    let Some(z) = avx512() else { return };
    let e = G::E;
    for z in [z.without_vbmi(), z] {
        let vbmi = z.vbmi();
        for &cols in widths {
            for (s_off, d_off) in [(0, 0), (3, 16), (17, 32), (1, 48), (64, 5)] {
                // X rows of `cols` elements, `cols + 3` apart; bytes for the nibble kernel.
                let t = Transpose {
                    src: s_off,
                    src_row_stride: cols + 3,
                    dst: d_off,
                    dst_row_stride: G::X,
                    rows: G::X,
                    cols,
                };
                let src = noise(e * (s_off + G::X * (cols + 3)), cols as u64);
                let out = e * (d_off + G::X * cols);
                let mut want = vec![0xA5; out];
                G::scalar(&src, &mut want, t);
                for stream in [false, true] {
                    let (mut buf, at) = placed(out, 0, 0xA5);
                    avx512::groups::<G>(z, &src, &mut buf[at..at + out], t, ONCE, stream);
                    fence();
                    assert_eq!(buf[at..at + out], want[..], "cols {cols} at {d_off}, vbmi {vbmi}");
                }
            }
        }
    }
}

#[test]
fn row_pairs_interleave_at_every_width() {
    group_kernel::<U16x2>(&[1, 15, 16, 31, 32, 33, 63, 64, 65, 128, 130]);
}

#[test]
fn quads_interleave_at_every_width() {
    group_kernel::<U8x4>(&[1, 31, 32, 63, 64, 65, 127, 128, 129, 200]);
}

#[test]
fn nibble_groups_at_every_width() {
    group_kernel::<Nibbles8>(&[1, 15, 16, 31, 63, 64, 65, 130]);
}

#[test]
fn row_pairs_split_at_every_width() {
    let Some(z) = avx512() else { return };
    for pairs in [1, 15, 16, 31, 32, 33, 63, 64, 65, 100, 128] {
        for (s_off, d_off, gap) in [(0, 0, 0), (5, 8, 3), (1, 16, 32), (64, 24, 1)] {
            // `pairs` pairs into two rows `pairs + gap` apart, in 2-byte elements.
            let t = Transpose {
                src: s_off,
                src_row_stride: 2,
                dst: d_off,
                dst_row_stride: pairs + gap,
                rows: pairs,
                cols: 2,
            };
            let src: Vec<[u8; 2]> =
                bytemuck::cast_slice(&noise(2 * (s_off + 2 * pairs), pairs as u64)).to_vec();
            let len = d_off + 2 * pairs + gap;
            let mut want = vec![[0xA5u8; 2]; len];
            t.scalar(&src, &mut want);
            for stream in [false, true] {
                let (mut buf, at) = placed(2 * len, 0, 0xA5);
                let dst: &mut [[u8; 2]] = bytemuck::cast_slice_mut(&mut buf[at..at + 2 * len]);
                avx512::deinterleave_u16x2(z, &src, dst, t, ONCE, stream);
                fence();
                assert_eq!(dst, &want[..], "{pairs} pairs at {d_off}, stream {stream}");
            }
        }
    }
}

/// `transpose16` on every shape around its tiles (16 rows, 32 columns), with both buffers
/// ending exactly at the transpose's last element, starting anywhere in a line, with rows
/// whole lines apart and not; and a transpose past a buffer's end refused, not read.
#[test]
fn transpose16_stays_inside_both_buffers() {
    let Some(z) = avx512() else { return };
    type E = [u8; 4];
    for (rows, cols) in
        [(1, 1), (3, 40), (15, 17), (16, 32), (17, 33), (31, 16), (48, 64), (70, 45)]
    {
        for (s_off, d_off, pad) in [(0, 0, 0), (3, 16, 0), (16, 1, 16), (5, 7, 3), (13, 12, 48)] {
            let (ss, ds) = (cols + pad, rows + pad);
            let t = Transpose {
                src: s_off,
                src_row_stride: ss,
                dst: d_off,
                dst_row_stride: ds,
                rows,
                cols,
            };
            let (src_len, dst_len) =
                (s_off + (rows - 1) * ss + cols, d_off + (cols - 1) * ds + rows);
            let src: Vec<E> = bytemuck::cast_slice(&noise(4 * src_len, 9)).to_vec();
            let mut want = vec![[0xA5u8; 4]; dst_len];
            t.scalar(&src, &mut want);
            for (band, stream) in [(16, false), (64, true), (512, true)] {
                // Buffers placed so that each ends where the transpose does, at every
                // offset in a line.
                for shift in [0, 4, 60] {
                    let (mut sbuf, sat) = placed(4 * src_len, shift, 0);
                    sbuf[sat..sat + 4 * src_len].copy_from_slice(bytemuck::cast_slice(&src));
                    let s: &[E] = bytemuck::cast_slice(&sbuf[sat..sat + 4 * src_len]);
                    let (mut dbuf, dat) = placed(4 * dst_len, shift, 0xA5);
                    let d: &mut [E] = bytemuck::cast_slice_mut(&mut dbuf[dat..dat + 4 * dst_len]);
                    assert!(transpose16(z, s, d, t, band, stream));
                    fence();
                    assert_eq!(d, &want[..], "{rows}x{cols} from {s_off} to {d_off}, pad {pad}");
                    assert!(dbuf[..dat]
                        .iter()
                        .chain(&dbuf[dat + 4 * dst_len..])
                        .all(|&b| b == 0xA5));
                }
            }
        }
    }
    // One element short of the source: refused whole, nothing written.
    let t = Transpose::matrix(16, 32);
    let src = vec![[1u8; 4]; 16 * 32 - 1];
    let mut dst = vec![[0u8; 4]; 16 * 32];
    assert!(!transpose16(z, &src, &mut dst, t, 128, true));
    assert!(dst.iter().all(|&e| e == [0; 4]));
}
