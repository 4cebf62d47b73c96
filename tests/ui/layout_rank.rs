// the layout must list every dimension
use xlayout::layout;

fn main() {
    let _ = layout!(f32[3,5]{0});
}
