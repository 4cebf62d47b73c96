// dimension numbers run from 0 to rank-1
use xlayout::layout;

fn main() {
    let _ = layout!(f32[3,5]{2,0});
}
