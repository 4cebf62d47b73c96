// no such element type
use xlayout::layout;

fn main() {
    let _ = layout!(f33[3,5]);
}
