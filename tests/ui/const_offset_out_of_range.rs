// an index out of range in a constant is a compile error, with the layout's message
use xlayout::layout;

layout! { struct Tiled = f32[256,1024]{1,0:T(8,128)}; }

const AT: usize = Tiled.offset([9, 130]);
const PAST: usize = Tiled.offset([9, 1024]);

fn main() {
    let _ = (AT, PAST);
}
