// field letters are case-sensitive
use xlayout::layout;

fn main() {
    let _ = layout!(f32[3,5]{1,0:t(2,2)});
}
