// type names are lower case; the message suggests the right one
use xlayout::layout;

fn main() {
    let _ = layout!(F32[3,5]);
}
