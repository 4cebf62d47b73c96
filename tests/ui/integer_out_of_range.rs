// XLA would wrap this literal to a negative number
use xlayout::layout;

fn main() {
    let _ = layout!(f32[9223372036854775808]);
}
