// every parameter and result has a name of its own
use xlayout::ffi::handler;

handler! {
    pub fn duplicate_names(x: f32[8], x: f32[8], scale: f32) -> (scale: f32[8]) {
        Ok(())
    }
}

fn main() {}
