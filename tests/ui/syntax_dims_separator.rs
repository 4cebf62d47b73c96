// dimensions are separated by commas
use xlayout::layout;

fn main() {
    let _ = layout!(f32[3;5]);
}
