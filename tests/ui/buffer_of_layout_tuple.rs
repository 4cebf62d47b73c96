// a tuple of layouts is not a layout: one buffer per element
use xlayout::{layout, Buffer};

layout! {
    struct A = f32[8];
    struct B = s32[];
}

fn main() {
    let _ = Buffer::<(A, B)>::zeroed();
}
