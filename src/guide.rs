//! From `layout!` to a typed, tiled kernel on the heap: a walk through the choices a kernel
//! author makes, each step a test that runs.
//!
//! # 1. Name the layout
//!
//! Write the layout once, in XLA's own syntax (as an HLO dump prints it). The macro checks it
//! with the runtime's parser and validator while your crate compiles and generates a
//! zero-sized type whose offsets are constant arithmetic: shifts and masks for power-of-two
//! tiles.
//!
//! ```
//! use xlayout::{layout, StaticLayout};
//!
//! layout! {
//!     /// Activations as a TPU holds them: 8x128 tiles, rows interleaved in pairs.
//!     pub struct Act = bf16[256,1024]{1,0:T(8,128)(2,1)};
//! }
//! assert_eq!(Act.offset([1, 0]), 1); // (1,0) sits next to (0,0): row pairs interleave
//! assert_eq!(Act::BYTE_LEN, 512 * 1024);
//! assert_eq!(Act::XLA_BYTE_SIZE, Some(512 * 1024)); // what XLA allocates
//! ```
//!
//! # 2. Choose the storage
//!
//! | you have | use | why |
//! |---|---|---|
//! | a small array (at most 1 MiB), or `no_std` without `alloc` | [`Buffer<L>`](crate::Buffer) | inline `[T; N]`; `Buffer::zeroed` is `const` |
//! | any size | [`HeapBuffer<L>`](crate::HeapBuffer) | allocated zeroed on the heap; the stack never holds the array |
//! | storage someone else owns | [`StaticView<L>`](crate::StaticView), [`StaticViewMut<L>`](crate::StaticViewMut) | a slice, its length checked once |
//! | `E(n)`-packed sub-byte elements | [`PackedBuffer<L>`](crate::PackedBuffer) and its heap / view forms | one element at a time, `get` / `set` |
//!
//! All of them index the same way and have the same methods (`get`, `pack_from`,
//! `unpack_into`, `view`, `view_mut`, `bits`, `tiles`). A `Buffer` is `Clone`, not `Copy`:
//! copying a large array is something you write, never something that happens. An array of
//! more than a megabyte belongs on the heap (a thread's stack is a few megabytes; a debug build
//! may hold more than one copy on it), so `layout!` gives only layouts of at most
//! [`MAX_INLINE_BYTES`](crate::fixed::MAX_INLINE_BYTES) (1 MiB) a `Buffer`
//! ([`InlineLayout`](crate::InlineLayout)); `Buffer::<Big>::zeroed()` of a larger one is a
//! compile error that names `HeapBuffer`:
//!
//! ```
//! use xlayout::{layout, HeapBuffer};
//! layout! { struct Big = f32[4096,4096]{1,0:T(8,128)}; } // 64 MiB
//! let mut big = HeapBuffer::<Big>::zeroed();
//! big[[4095, 4095]] = 1.0;
//! assert_eq!(big.as_slice().len(), 4096 * 4096);
//! ```
//!
//! # 3. Elements are real types
//!
//! Each XLA element type has one Rust type, [`elem`](crate::elem)`::<name>`: `bf16` and
//! `f16` are `half`'s ([`bf16`](crate::bf16), re-exported, so a `half` dependency of your own
//! names the same types); the 8-, 6- and 4-bit floats are [`F8e4m3fn`](crate::F8e4m3fn) and
//! its siblings; sub-byte integers are [`S4`](crate::S4), [`U4`](crate::U4), ... Floats come
//! from `f32` with [`Float::from_f32`](crate::Float::from_f32) (round to nearest even, as XLA
//! converts); the raw bits stay one call away.
//!
//! ```
//! use xlayout::{bf16, layout, Buffer, Float, F8e4m3fn};
//!
//! layout! {
//!     struct Pairs = bf16[16,256]{1,0:T(8,128)(2,1)};
//!     struct Fp8 = f8e4m3fn[4];
//! }
//! let mut x = Buffer::<Pairs>::zeroed();
//! x[[1, 2]] = bf16::from_f32(1.0);
//! assert_eq!(x[[1, 2]].to_f32(), 1.0);
//! assert_eq!(x.bits()[5], 0x3f80); // the raw bits, at (1,2)'s offset
//!
//! let mut q = Buffer::<Fp8>::zeroed();
//! q[[0]] = F8e4m3fn::from_f32(0.3); // rounds to the nearest f8e4m3fn, 0.3125
//! q[[1]] = Float::from_f32(448.0); // the largest finite value
//! assert_eq!(q[[0]].to_f32(), 0.3125);
//! assert_eq!(q.bits()[..2], [0x2a, 0x7e]);
//! ```
//!
//! An `f32` where a `bf16` goes is a type error that says so, not a silent bit pattern:
//!
//! ```compile_fail
//! use xlayout::{layout, Buffer};
//! layout! { struct Pairs = bf16[16,256]{1,0:T(8,128)(2,1)}; }
//! let mut x = Buffer::<Pairs>::zeroed();
//! x[[1, 2]] = 1.0f32; // expected `bf16`, found `f32`
//! ```
//!
//! # 4. Move data in and out
//!
//! Host code holds arrays row-major. [`Buffer::from_row_major`](crate::Buffer::from_row_major)
//! and `pack_from` lay one out (padding zero); `unpack_into` brings it back. For shapes known
//! only at run time, or to convert many buffers fast, the runtime's
//! [`RelayoutPlan::run_typed`](crate::RelayoutPlan::run_typed) takes `bf16` slices directly
//! (`xlayout::bf16` is `half::bf16`, always `bytemuck::Pod` here: no `half` dependency of your
//! own is needed):
//!
//! ```
//! use xlayout::{bf16, layout, HeapBuffer, RelayoutPlan, Shape, StaticLayout};
//!
//! layout! { struct Act = bf16[256,1024]{1,0:T(8,128)(2,1)}; }
//! let host: Vec<bf16> = (0..256 * 1024).map(|k| bf16::from_f32((k % 251) as f32)).collect();
//!
//! let a = HeapBuffer::<Act>::from_row_major(&host)?;
//!
//! let mut b = HeapBuffer::<Act>::zeroed();
//! let row_major: Shape = "bf16[256,1024]".parse()?;
//! let plan = RelayoutPlan::new(row_major.try_array()?, Act.to_shape().try_array()?)?;
//! plan.run_typed::<bf16>(&host, b.as_mut_slice())?;
//! assert_eq!(a.as_slice(), b.as_slice());
//!
//! let mut back = vec![bf16::ZERO; host.len()];
//! b.unpack_into(&mut back)?;
//! assert_eq!(back, host);
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```
//!
//! # 5. Packed sub-byte elements
//!
//! With `E(n)` XLA packs sub-byte elements `8 / n` to a byte. They have no address, so a
//! [`PackedBuffer`](crate::PackedBuffer) reads and writes them by value, with a shift and a
//! mask; signed ones come back sign-extended.
//!
//! ```
//! use xlayout::{layout, PackedHeapBuffer, S4};
//!
//! layout! { struct Q = s4[64,128]{1,0:T(64,128)(8,1)E(4)}; }
//! let mut q = PackedHeapBuffer::<Q>::zeroed();
//! q.set([3, 5], S4::new(-3).unwrap());
//! assert_eq!(q.read([3, 5]).get(), -3);
//! assert_eq!(q.get([64, 0]), None); // out of range
//! assert_eq!(q.as_bytes().len(), 64 * 128 / 2);
//! ```
//!
//! A layout with `E(n)` has no typed `Buffer`; the compiler says what to use instead:
//!
//! ```compile_fail
//! use xlayout::{layout, Buffer};
//! layout! { struct Q = s4[64,128]{1,0:E(4)}; }
//! let _ = Buffer::<Q>::zeroed(); // `Q` has no typed storage ... use `PackedBuffer<Q>`
//! ```
//!
//! # 6. A tiled kernel
//!
//! A layout whose tiles are contiguous is a [`TiledLayout`](crate::TiledLayout): `tiles()`
//! walks them in memory order, each a view of the tile's own small layout (here
//! `bf16[8,128]{1,0:T(2,1)}`) with the logical index of its first element. Inside a tile,
//! don't index element by element: take the rows as slices, which loops walk with no index
//! arithmetic and the compiler vectorizes. A tile without later levels (`T(8,128)`) hands out
//! its rows ([`rows`](crate::Buffer::rows)); a `(2,1)` tile interleaves its rows in pairs,
//! so it hands out row pairs ([`row_groups::<2>`](crate::Buffer::row_groups)), each 128
//! `[bf16; 2]`, the two rows of the pair side by side, one per column. Asking a layout for
//! rows it does not have is a compile error. Row sums, then a per-row scale:
//!
//! ```
//! use xlayout::{bf16, layout, HeapBuffer, StaticLayout, TiledLayout};
//!
//! layout! { struct Act = bf16[256,1024]{1,0:T(8,128)(2,1)}; }
//! type Tile = <Act as TiledLayout>::Tile;
//! assert_eq!(Tile::TEXT, "bf16[8,128]{1,0:T(2,1)}");
//!
//! let host: Vec<bf16> = (0..256 * 1024).map(|k| bf16::from_f32((k / 1024) as f32)).collect();
//! let mut x = HeapBuffer::<Act>::from_row_major(&host)?;
//!
//! let mut row_sum = vec![0.0f32; 256];
//! for tile in x.tiles() {
//!     let [i0, _j0] = tile.origin;
//!     for (p, pairs) in tile.view.row_groups::<2>().enumerate() {
//!         for &[upper, lower] in pairs {
//!             row_sum[i0 + 2 * p] += upper.to_f32();
//!             row_sum[i0 + 2 * p + 1] += lower.to_f32();
//!         }
//!     }
//! }
//! assert_eq!(row_sum[3], 3.0 * 1024.0); // row 3 holds 3.0 everywhere
//!
//! for mut tile in x.tiles_mut() {
//!     let [i0, _] = tile.origin;
//!     for (p, pairs) in tile.view.row_groups_mut::<2>().enumerate() {
//!         let scale = [1.0 / row_sum[i0 + 2 * p].max(1.0), 1.0 / row_sum[i0 + 2 * p + 1].max(1.0)];
//!         for pair in pairs {
//!             *pair = [0, 1].map(|k| bf16::from_f32(pair[k].to_f32() * scale[k]));
//!         }
//!     }
//! }
//! assert_eq!(x[[3, 700]].to_f32(), 1.0 / 1024.0);
//! # Ok::<(), xlayout::fixed::LengthError>(())
//! ```
//!
//! `tile.view[[r, c]]` works too, and is the way into a tile of any other shape; it computes
//! an in-tile offset and checks the index for every element, which made the layer norm below
//! take 2.6 times as long as with row pairs (`docs/benchmarks-history.md`). `examples/layer_norm.rs` is a whole kernel in the fast style (a bf16
//! layer norm, checked to the bit against the same kernel on a row-major array);
//! `docs/benchmarks-history.md` has its speed next to that version, and the cost of packed access next to
//! a hand-written shift and mask.
