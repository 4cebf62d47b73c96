// XLA's int64 size limit
use xlayout::layout;

fn main() {
    let _ = layout!(f32[2305843009213693952]);
}
