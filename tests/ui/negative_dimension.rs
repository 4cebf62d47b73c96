// dimension sizes are 0 or more
use xlayout::layout;

fn main() {
    let _ = layout!(f32[3,-5]);
}
