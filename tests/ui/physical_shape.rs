// `P(...)` is a legacy sparse-array field
use xlayout::layout;

fn main() {
    let _ = layout!(f32[3]{0:P(f32[3])});
}
