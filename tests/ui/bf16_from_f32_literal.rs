// a bf16 buffer holds bf16 values: an f32 literal is a type error that names bf16
use xlayout::{layout, Buffer};

layout! { struct Pairs = bf16[16,256]{1,0:T(8,128)(2,1)}; }

fn main() {
    let mut buf = Buffer::<Pairs>::zeroed();
    buf[[1, 2]] = 1.0f32;
}
