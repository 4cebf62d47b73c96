// the item form is `struct Name = SHAPE;`
use xlayout::layout;

layout! {
    pub struct Tiled f32[3,5]{1,0:T(2,2)};
}

fn main() {}
