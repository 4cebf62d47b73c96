// A `Buffer` holds its array inline (on the stack): a layout of more than 1 MiB gets none,
// and `HeapBuffer` is named. f32[10000,10000] is 400 MB; before, rustc grew to 1.28 GB and
// the program aborted with a stack overflow. Exactly 1 MiB (f32[512,512]) is still inline,
// and the heap forms take any size.
use xlayout::{layout, Buffer, HeapBuffer, PackedBuffer, PackedHeapBuffer};

layout! {
    struct Large = f32[10000,10000];
    struct OneMiB = f32[512,512];
    struct OneRowMore = f32[513,512];
    struct Nibbles = s4[2048,1025]{1,0:E(4)};
}

fn main() {
    let _ = Buffer::<OneMiB>::zeroed();
    let _ = HeapBuffer::<Large>::zeroed();
    let _ = PackedHeapBuffer::<Nibbles>::zeroed();
    let _ = Buffer::<Large>::zeroed();
    let _: Buffer<OneRowMore> = Default::default();
    let _ = PackedBuffer::<Nibbles>::zeroed();
}
