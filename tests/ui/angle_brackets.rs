// the `<...>` form points at the same tokens
use xlayout::layout;

fn main() {
    let _ = layout!(f32[3,5]<1,1:T(2,2)>);
}
