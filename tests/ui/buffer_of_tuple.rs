// a buffer holds one array
use xlayout::layout;

fn main() {
    let _ = layout!(b((f32[2])));
}
