//! Large layouts live on the heap: `HeapBuffer` is allocated zeroed in place, so no copy of
//! the array passes through the stack (a test thread has 2 MiB of it; these arrays are 8 and
//! 64 MiB, and run in debug builds, where nothing is optimized away).

use xlayout::{bf16, layout, HeapBuffer, StaticLayout};

layout! {
    /// 64 MiB of f32 in TPU tiles.
    struct Big = f32[4096,4096]{1,0:T(8,128)};
    /// The example: 8 MiB of bf16 in tile pairs.
    struct Bf16Pairs = bf16[1024,4096]{1,0:T(8,128)(2,1)};
}

#[test]
fn a_64_mib_buffer_is_created_filled_and_read_back() {
    assert_eq!(Big::BYTE_LEN, 64 << 20);
    let mut buf = HeapBuffer::<Big>::zeroed();
    // Every value below 2^24 is an exact f32, so each element can hold its row-major position.
    for i in 0..4096 {
        for j in 0..4096 {
            buf[[i, j]] = (i * 4096 + j) as f32;
        }
    }
    // Moving the buffer moves a pointer.
    let buf = std::hint::black_box(buf);
    for i in 0..4096 {
        for j in 0..4096 {
            assert_eq!(buf[[i, j]], (i * 4096 + j) as f32, "({i}, {j})");
        }
    }
    // Tile 1 of row block 0 starts at column 128: (0, 128) = 128.0, then (0, 129) ...
    assert_eq!(buf.as_slice()[1024..1027], [128.0, 129.0, 130.0]);
    let mut back = vec![0.0f32; 4096 * 4096];
    buf.unpack_into(&mut back).unwrap();
    assert!(back.iter().enumerate().all(|(k, &x)| x == k as f32));
}

#[test]
fn an_8_mib_bf16_buffer_by_tiles() {
    let mut buf = HeapBuffer::<Bf16Pairs>::zeroed();
    for mut tile in buf.tiles_mut() {
        let [i0, j0] = tile.origin;
        for r in 0..8 {
            for c in 0..128 {
                tile.view[[r, c]] = bf16::from_f32(((i0 + r) % 7 + (j0 + c) % 5) as f32);
            }
        }
    }
    for (i, j) in [(0, 0), (1, 0), (7, 127), (8, 128), (1023, 4095), (513, 1000)] {
        assert_eq!(buf[[i, j]].to_f32(), (i % 7 + j % 5) as f32, "({i}, {j})");
    }
    // Row pairs interleave inside a tile: (1, 0) is the second element of the storage.
    assert_eq!(buf.bits()[1], bf16::from_f32(1.0).to_bits());
}

layout! {
    /// Exactly `MAX_INLINE_BYTES` (512 x 512 x 4 bytes): the largest layout held inline.
    struct OneMiB = f32[512,512];
    /// One row more: 1,050,624 bytes, heap only.
    struct OneRowMore = f32[513,512];
    /// 505 x 400 padded by its tiles to 512 x 512: 1 MiB of storage, inline.
    struct PaddedToOneMiB = f32[505,400]{1,0:T(8,128)};
    /// 505 x 513 padded to 512 x 640: what counts is the storage, padding included.
    struct PaddedPast = f32[505,513]{1,0:T(8,128)};
    /// 2048 x 1024 nibbles, two a byte: 1 MiB, inline.
    struct Nibbles = s4[2048,1024]{1,0:E(4)};
    /// One column more: 1,049,600 bytes.
    struct NibblesPast = s4[2048,1025]{1,0:E(4)};
}

// Which layouts `layout!` gives a buffer held inline: at most 1 MiB of storage, counted
// with padding and packing (tests/ui/buffer_too_large.rs shows the error for the others).
static_assertions::assert_impl_all!(OneMiB: xlayout::InlineLayout);
static_assertions::assert_impl_all!(PaddedToOneMiB: xlayout::InlineLayout);
static_assertions::assert_impl_all!(Nibbles: xlayout::InlineLayout);
static_assertions::assert_not_impl_any!(OneRowMore: xlayout::InlineLayout);
static_assertions::assert_not_impl_any!(PaddedPast: xlayout::InlineLayout);
static_assertions::assert_not_impl_any!(NibblesPast: xlayout::InlineLayout);

#[test]
fn the_inline_limit_is_the_storage_in_bytes() {
    use xlayout::fixed::MAX_INLINE_BYTES;
    assert_eq!(MAX_INLINE_BYTES, 1 << 20);
    let bytes = [
        OneMiB::BYTE_LEN,
        OneRowMore::BYTE_LEN,
        PaddedToOneMiB::BYTE_LEN,
        PaddedPast::BYTE_LEN,
        Nibbles::BYTE_LEN,
        NibblesPast::BYTE_LEN,
    ];
    assert_eq!(
        bytes,
        [1 << 20, 513 * 512 * 4, 512 * 512 * 4, 512 * 640 * 4, 1 << 20, 2048 * 1025 / 2]
    );
    // Past the limit, the heap forms hold them.
    let mut buf = HeapBuffer::<PaddedPast>::zeroed();
    buf[[504, 512]] = 1.0;
    // Row block 63, column tile 4: ((63 * 5 + 4) * 8 + 0) * 128 + 0 = 326,656.
    assert_eq!(buf.as_slice().iter().position(|&x| x == 1.0), Some(326_656));
    let mut packed = xlayout::PackedHeapBuffer::<NibblesPast>::zeroed();
    packed.set([2047, 1024], xlayout::S4::new(-1).unwrap());
    assert_eq!(packed.as_bytes()[2048 * 1025 / 2 - 1], 0xf0);
}
