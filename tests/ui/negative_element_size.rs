// `E(n)` needs n >= 0
use xlayout::layout;

fn main() {
    let _ = layout!(f32[3,5]{1,0:E(-4)});
}
