// an untiled layout has no tiles to walk
use xlayout::{layout, Buffer};

layout! { struct Rows = f32[8,128]; }

fn main() {
    let buf = Buffer::<Rows>::zeroed();
    for _tile in buf.tiles() {}
}
