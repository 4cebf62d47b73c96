// XLA's FFI passes dense buffers: a tiled layout is refused at its tile
use xlayout::ffi::handler;

handler! {
    pub fn tiled(x: f32[16,256]{1,0:T(8,128)}) -> (y: f32[16,256]{1,0}) {
        Ok(())
    }
}

fn main() {}
