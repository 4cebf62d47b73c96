// static layouts need static sizes: both dynamic dimensions are reported
use xlayout::layout;

fn main() {
    let _ = layout!(f32[<=8,?]{1,0});
}
