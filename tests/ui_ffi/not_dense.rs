// a handler's layout is a dimension order and nothing else
use xlayout::ffi::handler;

handler! {
    pub fn packed(x: s4[8]{0:E(4)}, y: f32[8]{0:S(1)}) -> (z: f32[8]{0:L(4)}) {
        Ok(())
    }
}

fn main() {}
