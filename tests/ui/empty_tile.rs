// a tile has at least one entry
use xlayout::layout;

fn main() {
    let _ = layout!(f32[3,5]{1,0:T()});
}
