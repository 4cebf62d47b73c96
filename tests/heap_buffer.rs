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
