// `D(...)` entries are D, C, S or H
use xlayout::layout;

fn main() {
    let _ = layout!(f32[3]{0:D(X)});
}
