// u128 holds no XLA element type
use xlayout::{Shape, View};

fn main() {
    let shape: Shape = "u64[2]".parse().unwrap();
    let _ = View::new(&[0u128; 2], &shape);
}
