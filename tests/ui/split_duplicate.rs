// two split configs on one dimension
use xlayout::layout;

fn main() {
    let _ = layout!(f32[30,50]{1,0:SC(0:1)(0:2)});
}
