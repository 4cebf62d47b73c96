// text after a complete shape
use xlayout::layout;

fn main() {
    let _ = layout!(f32[3,5]{1,0} extra);
}
