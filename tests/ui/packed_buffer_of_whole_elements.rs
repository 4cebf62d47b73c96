// PackedBuffer is for sub-byte elements packed with E(n); f32 elements use Buffer
use xlayout::{layout, PackedBuffer};

layout! { struct Floats = f32[8,128]{1,0:T(8,128)}; }

fn main() {
    let _ = PackedBuffer::<Floats>::zeroed();
}
