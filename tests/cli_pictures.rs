//! The command's pictures: `xlayout map SHAPE --svg [FILE]` with its window, origin and
//! tiles options. The pictures themselves are the library's (tests/draw_svg.rs checks
//! them); here: that the command writes exactly them, where it is told, and fails as a
//! command should.

use std::path::PathBuf;
use std::process::{Command, Stdio};

use xlayout::draw::{map_svg, MapOptions};
use xlayout::ArrayShape;

/// Exit status, standard output, standard error.
fn xlayout(args: &[&str]) -> (i32, String, String) {
    let out = Command::new(env!("CARGO_BIN_EXE_xlayout"))
        .args(args)
        .stdin(Stdio::null())
        .output()
        .unwrap();
    let text = |b: Vec<u8>| String::from_utf8(b).unwrap();
    (out.status.code().unwrap(), text(out.stdout), text(out.stderr))
}

fn scratch(name: &str) -> PathBuf {
    let dir = PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("cli-pictures").join(name);
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

fn svg(shape: &str, options: &MapOptions) -> String {
    map_svg(&shape.parse::<ArrayShape>().unwrap(), options).unwrap()
}

const FIGURE_1: &str = "f32[3,5]{1,0:T(2,2)}";

#[test]
fn map_svg_goes_to_standard_output_or_a_file() {
    let whole = svg(FIGURE_1, &MapOptions::default());
    assert_eq!(xlayout(&["map", FIGURE_1, "--svg"]), (0, whole.clone(), String::new()));
    assert_eq!(xlayout(&["map", FIGURE_1, "--svg", "-"]), (0, whole.clone(), String::new()));
    let file = scratch("svg").join("figure1.svg");
    let path = file.to_str().unwrap();
    assert_eq!(xlayout(&["map", FIGURE_1, "--svg", path]), (0, String::new(), String::new()));
    assert_eq!(std::fs::read_to_string(&file).unwrap(), whole);
}

#[test]
fn map_svg_options_are_the_library_s() {
    let options = MapOptions {
        at: Some(vec![1]),
        origin: (1, 2),
        window: Some((2, 3)),
        ..MapOptions::default()
    };
    let shape = "f32[2,3,5]{2,1,0:T(2,2)}";
    let args = ["map", shape, "--at", "1", "--svg", "--window", "2,3", "--origin", "1,2"];
    assert_eq!(xlayout(&args).1, svg(shape, &options));
    let tiles = MapOptions { tiles: true, ..MapOptions::default() };
    let shape = "f32[4096,4096]{1,0:T(8,128)}";
    assert_eq!(xlayout(&["map", shape, "--svg", "--tiles"]).1, svg(shape, &tiles));
}

#[test]
fn map_svg_failures() {
    // The picture options need --svg.
    let (status, out, err) = xlayout(&["map", FIGURE_1, "--tiles"]);
    assert_eq!((status, out.as_str()), (2, ""));
    assert!(
        err.starts_with("error: the following required arguments were not provided:\n  --svg"),
        "{err}"
    );
    let (status, _, err) = xlayout(&["map", FIGURE_1, "--svg", "--window", "4"]);
    assert_eq!(status, 2);
    assert!(
        err.starts_with(
            "error: invalid value '4' for '--window <ROWS,COLS>': `4` is not two numbers"
        ),
        "{err}"
    );
    // A window the slice does not have is the shape's error, status 1.
    let (status, out, err) = xlayout(&["map", FIGURE_1, "--svg", "--origin", "9,9"]);
    assert_eq!((status, out.as_str()), (1, ""));
    assert_eq!(err, "error: the window origin (9,9) is outside the 4x6 elements drawn\n");
    // A file that cannot be written: status 2, its name and why.
    let (status, _, err) = xlayout(&["map", FIGURE_1, "--svg", "/nonexistent-dir/x.svg"]);
    assert_eq!(status, 2);
    assert!(err.starts_with("xlayout: cannot write /nonexistent-dir/x.svg: "), "{err}");
}
