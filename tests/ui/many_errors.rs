// all errors of one invocation at once
use xlayout::layout;

fn main() {
    let _ = layout!(f32[3,5]{1,1:T(0,2)E(-1)});
}
