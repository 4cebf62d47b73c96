// split configs name a physical dimension of the shape
use xlayout::layout;

fn main() {
    let _ = layout!(f32[3,5]{1,0:SC(5:1)});
}
