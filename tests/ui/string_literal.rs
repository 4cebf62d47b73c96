// in a pasted string the whole literal is underlined
use xlayout::layout;

fn main() {
    let _ = layout!("f32[3,5]{1,0:T(0,2)}");
}
