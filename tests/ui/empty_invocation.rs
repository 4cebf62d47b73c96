// a shape is required
use xlayout::layout;

fn main() {
    let _ = layout!();
}
