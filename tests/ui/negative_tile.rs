// a tile entry is positive or `*` (XLA's parser aborts on -1)
use xlayout::layout;

fn main() {
    let _ = layout!(f32[3,5]{1,0:T(-1,2)});
}
