//! Exact small cases, the choice of engine, and each kernel's edges against the general
//! path. The property tests of the facade (`tests/relayout_props.rs`) cover random layouts.

use alloc::format;
use alloc::string::{String, ToString};
use alloc::vec;
use alloc::vec::Vec;

#[cfg(feature = "rayon")]
use super::decompose::Block;
#[cfg(feature = "rayon")]
use super::engine::Blocks;
use super::*;

fn array(text: &str) -> ArrayShape {
    text.parse::<Shape>().unwrap().as_array().unwrap().clone()
}

fn plan(from: &str, to: &str) -> RelayoutPlan {
    RelayoutPlan::new(&array(from), &array(to)).unwrap()
}

fn engine_name(p: &RelayoutPlan) -> &'static str {
    match p.engine {
        Engine::Zero => "zero",
        Engine::Bytes { .. } => "bytes",
        Engine::Packed { .. } => "packed",
        Engine::General => "general",
    }
}

/// The expected destination, element by element through both index maps, with zero
/// padding: the definition the fast paths must meet.
fn reference(p: &RelayoutPlan, src: &[u8]) -> Vec<u8> {
    let mut dst = vec![0u8; p.dst_len()];
    general::copy(&p.from, &p.to, src, &mut dst);
    dst
}

pub(super) fn noise(len: usize, seed: u64) -> Vec<u8> {
    let mut x = seed.wrapping_mul(0x9E37_79B9_7F4A_7C15) | 1;
    (0..len)
        .map(|_| {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            (x >> 24) as u8
        })
        .collect()
}

/// A destination of `len` bytes starting at `offset` bytes past a 64-byte boundary, in a
/// buffer filled with `fill` around it.
pub(super) fn placed(len: usize, offset: usize, fill: u8) -> (Vec<u8>, usize) {
    let buf = vec![fill; len + 128];
    let at = buf.as_ptr().align_offset(64) + offset;
    (buf, at)
}

/// Runs `p` on noise over a dirty destination and compares with the reference: with every
/// setting a run may choose (every SIMD level this machine runs, plain and streaming stores,
/// every block size the plan measures), into destinations on a cache line, on 32 and 16
/// bytes past one (the two non-temporal store widths), and one byte off any alignment, from
/// sources with other offsets; on one thread and on all; and measuring, on slices of its
/// own work (the measuring run's choice, remembered, then serves a second run).
fn check(p: &RelayoutPlan) {
    let src = noise(p.src_len(), p.src_len() as u64 + 7);
    let want = reference(p, &src);
    let sources: Vec<(Vec<u8>, usize)> = [0, 48, 32, 3]
        .iter()
        .map(|&offset| {
            let (mut buf, at) = placed(p.src_len(), offset, 0);
            buf[at..at + p.src_len()].copy_from_slice(&src);
            (buf, at)
        })
        .collect();
    // `run(p, src, dst)` into each destination placement, from each source.
    let each = |what: &str, run: &dyn Fn(&[u8], &mut [u8])| {
        for (offset, (sbuf, sat)) in [0, 16, 32, 1].into_iter().zip(&sources) {
            let src = &sbuf[*sat..*sat + p.src_len()];
            let (mut buf, at) = placed(p.dst_len(), offset, 0xA5);
            run(src, &mut buf[at..at + p.dst_len()]);
            assert_eq!(buf[at..at + p.dst_len()], want[..], "{what}, offset {offset}");
            assert!(buf[..at].iter().chain(&buf[at + p.dst_len()..]).all(|&b| b == 0xA5));
        }
    };
    for simd in Simd::supported() {
        let p = p.clone().with_simd(simd);
        for choice in p.__candidates() {
            each(&format!("{choice}"), &|s, d| p.__run_with(&choice, s, d).unwrap());
        }
        for stream_min in [usize::MAX, 0] {
            let p = p.clone().with_stream_min(stream_min);
            each(&format!("{simd:?}, stream_min {stream_min}"), &|s, d| p.run(s, d).unwrap());
            #[cfg(feature = "rayon")]
            each(&format!("parallel, {simd:?}, stream_min {stream_min}"), &|s, d| {
                p.run_parallel(s, d).unwrap()
            });
        }
    }
    let measuring = p.clone().__with_measure_min(0);
    each("measuring", &|s, d| measuring.run(s, d).unwrap());
    let owned = p.run_owned(&src).unwrap();
    assert_eq!((&owned[..], owned.as_ptr() as usize % 64), (&want[..], 0));
}

/// `check` runs every level this machine supports; the others are said on standard error,
/// not passed over in silence (and fail where `XLAYOUT_REQUIRE_SIMD` asks for them).
#[cfg(feature = "std")]
#[test]
fn every_simd_level_is_tested_here_or_said_untested() {
    let all = [Simd::Portable, Simd::Sse2, Simd::Avx2, Simd::Avx512];
    assert_eq!(Simd::supported().collect::<Vec<_>>(), all[..Simd::supported().count()]);
    for level in all.into_iter().filter(|l| !l.is_supported()) {
        cpu::tests::say_untested(level, "the relayout kernels' checks against the general path");
    }
}

#[test]
fn doc_example_offset_17_and_nine_zeros() {
    let p = plan("f32[3,5]{1,0}", "f32[3,5]{1,0:T(2,2)}");
    assert_eq!(engine_name(&p), "bytes");
    let src: Vec<f32> = (0..15).map(|i| 100.0 + i as f32).collect();
    let mut dst = vec![f32::NAN; 24];
    p.run_typed(&src, &mut dst).unwrap();
    assert_eq!(dst[17], 113.0); // (2, 3) = 5·2 + 3
    let want = [
        100.0, 101.0, 105.0, 106.0, 102.0, 103.0, 107.0, 108.0, 104.0, 0.0, 109.0, 0.0, 110.0,
        111.0, 0.0, 0.0, 112.0, 113.0, 0.0, 0.0, 114.0, 0.0, 0.0, 0.0,
    ];
    assert_eq!(dst, want);
    assert_eq!(dst.iter().filter(|&&v| v == 0.0).count(), 9);
}

#[test]
fn engines() {
    assert_eq!(engine_name(&plan("f32[0,5]", "f32[0,5]{0,1:T(2,2)}")), "zero");
    assert_eq!(engine_name(&plan("s4[8,8]{1,0:E(4)}", "s4[8,8]{0,1:T(2,2)E(4)}")), "packed");
    assert_eq!(engine_name(&plan("s4[8,8]", "s4[8,8]{0,1:E(4)}")), "general");
    assert_eq!(engine_name(&plan("f32[6,4]", "f32[6,4]{1,0:T(*,2)}")), "general");
    assert_eq!(engine_name(&plan("f32[4,4]", "f32[4,4]{1,0:T(2,4)(3,1)}")), "general");
    assert_eq!(engine_name(&plan("f6e3m2fn[4,4]{1,0:E(6)}", "f6e3m2fn[4,4]{0,1:E(6)}")), "general");
    assert_eq!(engine_name(&plan("u8[4,4]{1,0:E(24)}", "u8[4,4]{0,1:E(24)}")), "bytes");
}

#[test]
fn every_kernel_matches_the_reference() {
    let pairs = [
        // runs, with edges in both dimensions and an L tail
        ("f32[19,300]{1,0}", "f32[19,300]{1,0:T(8,128)L(1000)}"),
        ("f32[19,300]{1,0:T(8,128)}", "f32[19,300]{1,0}"),
        // row pairs, quads, nibble groups, with edges
        ("bf16[37,300]{1,0}", "bf16[37,300]{1,0:T(8,128)(2,1)}"),
        ("bf16[37,300]{1,0:T(8,128)(2,1)}", "bf16[37,300]{1,0}"),
        ("s8[70,260]{1,0}", "s8[70,260]{1,0:T(32,128)(4,1)}"),
        ("u8[24,40]{1,0}", "u8[24,40]{1,0:T(8,16)(8,1)}"),
        ("s4[130,260]{1,0:E(4)}", "s4[130,260]{1,0:T(64,128)(8,1)E(4)}"),
        ("s4[130,260]{1,0:T(64,128)(8,1)E(4)}", "s4[130,260]{1,0:E(4)}"),
        ("u4[10,12]{1,0:E(4)}", "u4[10,12]{1,0:T(2,4)(2,1)E(4)}"),
        ("u4[12,12]{1,0:E(4)}", "u4[12,12]{1,0:T(4,4)(4,1)E(4)}"),
        ("u2[12,16]{1,0:E(2)}", "u2[12,16]{1,0:T(4,8)(4,1)E(2)}"),
        ("u2[16,16]{1,0:E(2)}", "u2[16,16]{1,0:T(8,8)(8,1)E(2)}"),
        ("pred[16,24]{1,0:E(1)}", "pred[16,24]{1,0:T(8,8)(8,1)E(1)}"),
        ("u4[32,32]{1,0:E(4)}", "u4[32,32]{1,0:T(16,8)(16,1)E(4)}"),
        ("u4[7,9]{1,0:E(4)}", "u4[7,9]{0,1:E(4)}"),
        ("u1[7,9]{1,0:E(1)}", "u1[7,9]{1,0:T(2,4)L(5)E(1)}"),
        // every interleave width, both ways (the way back is a deinterleave)
        ("u8[6,10]{1,0}", "u8[6,10]{1,0:T(2,1)}"),
        ("u8[6,10]{1,0:T(2,1)}", "u8[6,10]{1,0}"),
        ("s8[70,260]{1,0:T(32,128)(4,1)}", "s8[70,260]{1,0}"),
        // vector kernels with a scalar remainder: 40 = 32 + 8 columns, 21 = 16 + 5; and
        // each width in turn (AVX2, SSE2, integer words): 53 = 32 + 16 + 5, 27 = 16 + 8 + 3,
        // 51 bytes = 32 + 16 + 3
        ("s8[8,53]{1,0}", "s8[8,53]{1,0:T(4,53)(4,1)}"),
        ("bf16[6,27]{1,0}", "bf16[6,27]{1,0:T(2,27)(2,1)}"),
        ("bf16[6,27]{1,0:T(2,27)(2,1)}", "bf16[6,27]{1,0}"),
        ("s4[16,102]{1,0:E(4)}", "s4[16,102]{1,0:T(8,102)(8,1)E(4)}"),
        ("s8[8,40]{1,0}", "s8[8,40]{1,0:T(4,40)(4,1)}"),
        ("bf16[6,21]{1,0}", "bf16[6,21]{1,0:T(2,21)(2,1)}"),
        ("bf16[6,21]{1,0:T(2,21)(2,1)}", "bf16[6,21]{1,0}"),
        ("u8[24,40]{1,0:T(8,16)(8,1)}", "u8[24,40]{1,0}"),
        ("u16[12,33]{1,0}", "u16[12,33]{1,0:T(4,1)}"),
        ("u16[12,33]{1,0:T(4,1)}", "u16[12,33]{1,0}"),
        ("u16[16,33]{1,0}", "u16[16,33]{1,0:T(8,1)}"),
        ("u16[16,33]{1,0:T(8,1)}", "u16[16,33]{1,0}"),
        ("f32[6,35]{1,0}", "f32[6,35]{1,0:T(2,1)}"),
        ("f32[6,35]{1,0:T(2,1)}", "f32[6,35]{1,0}"),
        ("f32[8,35]{1,0}", "f32[8,35]{1,0:T(4,1)}"),
        ("f32[8,35]{1,0:T(4,1)}", "f32[8,35]{1,0}"),
        ("f64[6,35]{1,0}", "f64[6,35]{1,0:T(2,1)}"),
        ("f64[6,35]{1,0:T(2,1)}", "f64[6,35]{1,0}"),
        ("c128[6,7]{1,0}", "c128[6,7]{1,0:T(2,1)}"),
        ("c128[6,7]{1,0:T(2,1)}", "c128[6,7]{1,0}"),
        ("u4[16,12]{1,0:T(8,4)(8,1)E(4)}", "u4[16,12]{1,0:E(4)}"),
        // the vector nibble kernel: 16-byte chunks of 8 rows, and the rest
        ("s4[16,100]{1,0:E(4)}", "s4[16,100]{1,0:T(8,64)(8,1)E(4)}"),
        ("s4[9,72]{1,0:E(4)}", "s4[9,72]{1,0:T(64,128)(8,1)E(4)}"),
        // transposes, square and not, with blocks and edges, 1..16-byte elements
        ("f32[2,64,36]{2,1,0}", "f32[2,64,36]{1,2,0}"),
        // more source rows than a transpose takes at a time (128 for a 32 KiB L1), whole
        // 16x8 tiles, 4x4 ones and single elements at the edges
        ("f32[300,45]{1,0}", "f32[300,45]{0,1}"),
        ("f32[45,300]{1,0}", "f32[45,300]{0,1}"),
        ("f32[5,7]{1,0}", "f32[5,7]{0,1}"),
        ("u32[3,2]{1,0}", "u32[3,2]{0,1}"),
        ("f32[3,20,37]{2,1,0}", "f32[3,20,37]{1,2,0}"),
        ("u8[33,17]{1,0}", "u8[33,17]{0,1}"),
        ("u16[9,40]{1,0}", "u16[9,40]{0,1}"),
        ("f64[17,16]{1,0}", "f64[17,16]{0,1}"),
        ("c128[5,9]{1,0}", "c128[5,9]{0,1:T(2,2)}"),
        ("u8[5,9]{1,0:E(24)}", "u8[5,9]{0,1:T(2,4)E(24)}"),
        // one tiling to another, tiles longer than the space, size-1 dims
        ("f32[20,24]{1,0:T(4,8)}", "f32[20,24]{1,0:T(8,4)}"),
        ("f32[3]{0}", "f32[3]{0:T(2,2)}"),
        ("f32[1,5,1]{2,1,0}", "f32[1,5,1]{0,1,2:T(2,2,2)}"),
        ("f32[8,8]{1,0}", "f32[8,8]{1,0:T(2,4)(2,1,1,1)}"),
        ("f32[]", "f32[]{:T(4)}"),
        ("bf16[5,3]{0,1:T(2,2)(2,1)}", "bf16[5,3]{1,0:T(4,2)}"),
    ];
    for (from, to) in pairs {
        let p = plan(from, to);
        assert_ne!(engine_name(&p), "general", "{from} -> {to}");
        check(&p);
    }
}

/// Where the parts of `b` start in a destination of `len` bytes that starts on a cache
/// line, viewed as `T`s (`unit` block elements per `T`).
#[cfg(feature = "rayon")]
fn part_starts<T: bytemuck::Pod + Send>(b: &Block, len: usize, unit: usize) -> Vec<usize> {
    let (mut buf, at) = placed(len, 0, 0);
    let dst: &mut [T] = bytemuck::cast_slice_mut(&mut buf[at..at + len]);
    let base = dst.as_ptr() as usize;
    let parts = parallel::parts(b, dst, unit).unwrap_or_default();
    parts.iter().map(|(_, slice, _)| slice.as_ptr() as usize - base).collect()
}

#[test]
fn each_sse2_kernel_on_small_buffers() {
    // One small pair per kernel of `simd` (edges and scalar remainders included), streamed
    // and not: small enough for Miri to check every `unsafe` block of the kernels through
    // real plans (`cargo +nightly miri test -p layout-runtime --lib relayout`, README).
    for (from, to) in [
        ("s8[8,40]{1,0}", "s8[8,40]{1,0:T(4,40)(4,1)}"), // interleave_u8x4
        ("bf16[6,21]{1,0}", "bf16[6,21]{1,0:T(2,21)(2,1)}"), // interleave_u16x2
        ("bf16[6,21]{1,0:T(2,21)(2,1)}", "bf16[6,21]{1,0}"), // deinterleave_u16x2
        ("f32[5,7]{1,0}", "f32[5,7]{0,1}"),              // transpose4, with edges
        ("s4[9,72]{1,0:E(4)}", "s4[9,72]{1,0:T(64,128)(8,1)E(4)}"), // spread_nibbles8
        ("f32[9,40]{1,0}", "f32[9,40]{1,0:T(8,32)}"),    // runs through stream_copy
    ] {
        let p = plan(from, to);
        assert_ne!(engine_name(&p), "general", "{from} -> {to}");
        check(&p);
    }
}

#[test]
fn blocks_large_enough_to_split_between_threads() {
    // Above the parallel split's minimum: `check` runs these on all cores too, where each
    // thread owns a slice of the destination cut along the outermost loop, or along the
    // destination rows of a transpose that has no outer loop.
    for (from, to) in [
        ("f32[264,260]{1,0}", "f32[264,260]{1,0:T(8,128)}"),
        ("f32[5,96,80]{2,1,0}", "f32[5,96,80]{1,2,0}"),
        ("f32[200,300]{1,0}", "f32[200,300]{0,1}"),
        ("bf16[64,1030]{1,0:T(8,128)(2,1)}", "bf16[64,1030]{1,0}"),
        ("s4[256,300]{1,0:E(4)}", "s4[256,300]{1,0:T(64,128)(8,1)E(4)}"),
        ("u2[256,300]{1,0:E(2)}", "u2[256,300]{0,1:E(2)}"),
    ] {
        let p = plan(from, to);
        #[cfg(feature = "rayon")]
        {
            // The largest block splits into several parts, each starting on a cache line.
            let b = |blocks: &Blocks| blocks.copies.iter().max_by_key(|b| b.len()).cloned();
            let starts = match &p.engine {
                Engine::Bytes { blocks, size: 4 } => {
                    part_starts::<u32>(&b(blocks).unwrap(), p.dst_len(), 1)
                }
                Engine::Bytes { blocks, size: 2 } => {
                    part_starts::<u16>(&b(blocks).unwrap(), p.dst_len(), 1)
                }
                Engine::Packed { blocks, bits } => {
                    part_starts::<u8>(&b(blocks).unwrap(), p.dst_len(), 8 / bits)
                }
                _ => Vec::new(),
            };
            assert!(starts.len() >= 2, "{from} -> {to}: {starts:?}");
            assert!(starts.iter().all(|s| s % 64 == 0), "{from} -> {to}: {starts:?}");
        }
        check(&p);
    }
}

#[test]
fn unaligned_buffers_take_the_byte_array_path() {
    // Buffers one byte off any alignment: the kernels run on [u8; E] instead of integers.
    for (from, to) in [
        ("f32[9,13,37]{2,1,0}", "f32[9,13,37]{1,2,0}"),
        ("f32[19,300]{1,0}", "f32[19,300]{1,0:T(8,128)}"),
        ("bf16[37,300]{1,0}", "bf16[37,300]{1,0:T(8,128)(2,1)}"),
        ("bf16[37,300]{1,0:T(8,128)(2,1)}", "bf16[37,300]{1,0}"),
        ("u16[9,40]{1,0}", "u16[9,40]{0,1}"),
    ] {
        for simd in Simd::supported() {
            let p = plan(from, to).with_simd(simd);
            let src = noise(p.src_len() + 1, 11);
            let mut dst = vec![0x3Cu8; p.dst_len() + 1];
            p.run(&src[1..], &mut dst[1..]).unwrap();
            assert_eq!(dst[0], 0x3C);
            assert_eq!(dst[1..], reference(&p, &src[1..])[..], "{from} -> {to}, {simd:?}");
        }
    }
}

#[test]
fn general_path_matches_index_maps() {
    for (from, to) in [
        ("s4[5,3]{1,0}", "s4[5,3]{0,1:T(2,2)E(4)}"),
        ("f6e3m2fn[5,7]{1,0:E(6)}", "f6e3m2fn[5,7]{0,1:T(2,4)E(6)}"),
        ("f32[6,4]", "f32[6,4]{1,0:T(*,2)}"),
        ("f32[4,4]", "f32[4,4]{1,0:T(2,4)(3,1)}"),
        ("u8[5,5]{1,0:E(13)}", "u8[5,5]{0,1:T(2,2)E(13)}"),
    ] {
        let p = plan(from, to);
        let src = noise(p.src_len(), 3);
        let mut dst = vec![0xFFu8; p.dst_len()];
        p.run(&src, &mut dst).unwrap();
        let bits = |pl: &Plan| pl.element_bits() as u32;
        let keep = bits(&p.from).min(bits(&p.to));
        let mask = if keep >= 64 { u64::MAX } else { (1u64 << keep) - 1 };
        let mut it = p.from.row_major();
        while let Some((ix, off)) = it.next_ref() {
            let v = crate::read_packed(&src, off, bits(&p.from)).unwrap_or_else(|_| {
                // Over 64 bits: compare the low 64 only.
                crate::read_packed(&src, off * bits(&p.from) as usize / 8, 8).unwrap()
            });
            let got = p.to.read_packed(&dst, ix).unwrap_or(v);
            if keep <= 64 {
                assert_eq!(got & mask, v & mask, "{from} -> {to} at {ix:?}");
            }
        }
        let mut it = p.to.memory_order();
        let mut off = 0;
        while let Some(ix) = it.next_ref() {
            if ix.is_none() {
                assert_eq!(crate::read_packed(&dst, off, bits(&p.to)).unwrap(), 0);
            }
            off += 1;
        }
    }
}

#[test]
fn widths_differ_low_bits_kept_high_bits_zero() {
    let p = plan("s4[2,2]", "s4[2,2]{1,0:E(4)}");
    let mut packed = [0xFFu8; 2];
    p.run(&[0xF1, 0x02, 0x0E, 0x7F], &mut packed).unwrap();
    assert_eq!(packed, [0x21, 0xFE]);
    let back = plan("s4[2,2]{1,0:E(4)}", "s4[2,2]");
    let mut bytes = [0xAAu8; 4];
    back.run(&packed, &mut bytes).unwrap();
    assert_eq!(bytes, [0x01, 0x02, 0x0E, 0x0F]);
}

#[test]
fn errors_leave_dst_untouched() {
    let p = plan("f32[3,5]", "f32[3,5]{1,0:T(2,2)}");
    let mut dst = vec![7u8; 96];
    let e = p.run(&[0; 59], &mut dst).unwrap_err();
    assert_eq!(e.kind(), ErrorKind::BufferLength);
    assert!(e.message().contains("59"), "{}", e.message());
    assert_eq!(p.run(&[0; 60], &mut dst[..95]).unwrap_err().kind(), ErrorKind::BufferLength);
    assert_eq!(p.run(&[0; 61], &mut dst).unwrap_err().kind(), ErrorKind::BufferLength);
    assert_eq!(
        p.run_typed(&[0u16; 30], &mut [0u16; 48]).unwrap_err().kind(),
        ErrorKind::ElementType
    );
    assert!(dst.iter().all(|&b| b == 7));

    let err = |a: &str, b: &str| RelayoutPlan::new(&array(a), &array(b)).unwrap_err().kind();
    assert_eq!(err("f32[3,5]", "s32[3,5]"), ErrorKind::ElementType);
    assert_eq!(err("f32[3,5]", "f32[5,3]"), ErrorKind::ShapeMismatch);
    assert_eq!(err("f32[3,5]", "f32[3,5,1]"), ErrorKind::ShapeMismatch);
    assert_eq!(err("f32[?,5]", "f32[3,5]"), ErrorKind::NotStaticArray);
    assert!(RelayoutPlan::new(&array("f32[3,5]"), &array("f32[3,<=5]")).is_ok());
    let tuple: Shape = "(f32[2])".parse().unwrap();
    let arr: Shape = "f32[2]".parse().unwrap();
    let e = relayout(&[0; 8], &tuple, &mut dst[..8], &arr).unwrap_err();
    assert_eq!(e.kind(), ErrorKind::NotStaticArray);
    let e = relayout(&[0; 8], &arr, &mut dst[..8], &Shape::Token).unwrap_err();
    assert_eq!(e.kind(), ErrorKind::NotStaticArray);
    assert!(dst.iter().all(|&b| b == 7));
    let _: String = e.message().into();
}

#[test]
fn bounded_dims_count_as_their_bound() {
    let p = plan("f32[<=3,5]{1,0}", "f32[3,5]{0,1}");
    check(&p);
}

#[test]
fn zero_sized_arrays_zero_the_destination() {
    let p = plan("f32[0,5]{1,0}", "f32[0,5]{1,0:T(2,2)L(4)}");
    assert_eq!(p.dst_len(), 0);
    p.run(&[], &mut []).unwrap();
    let p = plan("f32[0]{0}", "f32[0]{0}");
    p.run(&[], &mut []).unwrap();
}

#[test]
fn a_measuring_run_times_slices_of_its_own_work_and_remembers_the_winner() {
    // A shape no other test plans: the remembered choice is this test's.
    let p = plan("f32[264,328]{1,0}", "f32[264,328]{0,1}").__with_measure_min(0);
    assert_eq!(p.choice().how(), ChosenBy::Rules);
    let candidates = p.__candidates();
    // Two levels (where AVX2 runs), both kinds of stores, three transpose row counts.
    let levels = Simd::supported().filter(|&s| s >= Simd::Sse2).count().max(1);
    let streams = if p.simd() == Simd::Portable { 1 } else { 2 };
    assert_eq!(candidates.len(), levels * streams * 3);
    let src = noise(p.src_len(), 5);
    let mut dst = AlignedBox::zeroed(p.dst_len());
    dst.fill(0xA5);
    p.run(&src, &mut dst).unwrap();
    assert_eq!(dst[..], reference(&p, &src));
    let choice = p.choice();
    let ChosenBy::Measured { candidates: timed, measured_bytes, .. } = choice.how() else {
        panic!("{choice}")
    };
    // The first stage's levels and stores, then the winner's two other row counts; on
    // slices of which the block has twice as many as are timed at most, so that at least
    // half of the work is done by the winner alone.
    assert_eq!(timed, levels * streams + 2);
    assert!(measured_bytes > 0 && measured_bytes <= p.dst_len() / 2 + 4096, "{measured_bytes}");
    let ChosenBy::Measured { copy_permille, .. } = choice.how() else { unreachable!() };
    if p.simd() != Simd::Portable {
        assert!(copy_permille > 0, "{choice}"); // a streaming copy timed beside them
    }
    assert!(candidates.iter().any(|c| c.ctx() == choice.ctx()), "{choice}");
    // Later runs and plans of the shape take the remembered choice, without measuring; a
    // destination elsewhere in a cache line is measured apart.
    let again = plan("f32[264,328]{1,0}", "f32[264,328]{0,1}").__with_measure_min(0);
    assert_eq!(again.choice(), choice);
    dst.fill(0x5A);
    again.run(&src, &mut dst).unwrap();
    assert_eq!(dst[..], reference(&p, &src));
    // Unless the winner ran slower than the copy timed beside it by more than its noise,
    // which the second run then re-checks (as a debug build's kernels do): the better of
    // the two is kept, and later runs take it.
    let second = again.choice();
    let rechecked = matches!(second.how(), ChosenBy::Measured { rechecked: true, .. });
    assert!(second == choice || rechecked, "{choice} then {second}");
    dst.fill(0x5A);
    again.run(&src, &mut dst).unwrap();
    assert_eq!(dst[..], reference(&p, &src));
    assert_eq!(again.choice(), second);
    let (mut buf, at) = placed(p.dst_len(), 16, 0);
    let off = &mut buf[at..at + p.dst_len()];
    assert_eq!(again.choice_for(off).how(), ChosenBy::Rules);
    again.run(&src, off).unwrap();
    assert_eq!(off[..], reference(&p, &src));
    assert!(matches!(again.choice_for(off).how(), ChosenBy::Measured { .. }));
    // What the caller fixed is not measured, and is remembered apart.
    let fixed = again.clone().with_simd(Simd::Portable).with_stream_min(usize::MAX);
    assert_eq!(fixed.choice().how(), ChosenBy::Rules);
    assert_eq!(fixed.__candidates().len(), 3);
    fixed.run(&src, &mut dst).unwrap();
    assert_eq!(dst[..], reference(&p, &src));
    let by = fixed.choice();
    assert!(matches!(by.how(), ChosenBy::Measured { candidates: 3, .. }), "{by}");
    assert_eq!((by.simd(), by.streams()), (Simd::Portable, false));
    assert!(by.to_string().ends_with("(SIMD level and stores forced)"), "{by}");
    // Measuring off: the rules.
    assert_eq!(again.with_measuring(false).choice().how(), ChosenBy::Rules);
}

#[test]
fn small_blocks_are_not_measured() {
    // Fewer slices than the candidates need (five destination rows, for at least six
    // slices on any machine): the rules decide, nothing is remembered.
    let p = plan("f32[4,5]{1,0}", "f32[4,5]{0,1}").__with_measure_min(0);
    let src = noise(p.src_len(), 6);
    let mut dst = vec![0; p.dst_len()];
    p.run(&src, &mut dst).unwrap();
    assert_eq!(dst, reference(&p, &src));
    assert_eq!(p.choice().how(), ChosenBy::Rules);
    // Runs copy the same way at every level but AVX-512 (whole lines a store, against 16
    // bytes): the stores, their width and the order of the loops (tile rows, tiles, rows of
    // a tile: tiles inside rows, or rows inside tiles) are chosen.
    let runs = plan("f32[512,256]{1,0}", "f32[512,256]{1,0:T(8,128)}");
    let streams = if runs.simd() == Simd::Portable { 1 } else { 2 };
    let widths = if runs.simd() == Simd::Avx512 { 2 } else { 1 };
    assert_eq!(runs.__candidates().len(), widths * streams * 2);
}
