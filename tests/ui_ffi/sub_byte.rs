// an FFI buffer's elements are a byte or more each
use xlayout::ffi::handler;

handler! {
    pub fn sub_byte(x: s4[8]{0}) -> (y: f32[8]{0}) {
        let _ = (x, y);
        Ok(())
    }
}

fn main() {}
