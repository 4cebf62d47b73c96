// `token` has no dimensions (XLA's parser aborts on this)
use xlayout::layout;

fn main() {
    let _ = layout!(token[1]);
}
