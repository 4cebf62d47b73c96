// a result's dynamic dimension needs an argument's size, and `where` names buffers' dimensions
use xlayout::ffi::handler;

handler! {
    pub fn unsized_result(x: f32[?,8], n: i64) -> (y: f32[?,8], z: f32[<=4]) where y[1] = x[2], n[0] = x[0] {
        Ok(())
    }
}

fn main() {}
