// a split index below the dimension's size
use xlayout::layout;

fn main() {
    let _ = layout!(f32[30,50]{1,0:SC(1:50)});
}
