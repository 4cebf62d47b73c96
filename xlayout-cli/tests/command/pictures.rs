//! The command's pictures: `xlayout map SHAPE --svg [FILE]` with its window, origin and
//! tiles options, and `xlayout hlo ... --html PAGE`. The pictures themselves are the
//! library's (the root crate's tests/draw_svg.rs and tests/draw_html.rs check them); here: that the command
//! writes exactly them, where it is told, and fails as a command should.

use xlayout::draw::{map_svg, MapOptions};
use xlayout::ArrayShape;

use crate::support;

/// Exit status, standard output, standard error.
fn xlayout(args: &[&str]) -> (i32, String, String) {
    let run = support::xlayout(args, b"");
    (run.status, run.stdout, run.stderr)
}

fn scratch(name: &str) -> std::path::PathBuf {
    support::scratch(&format!("pictures-{name}"))
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

#[test]
fn hlo_html_writes_the_page() {
    let dump = concat!(env!("CARGO_MANIFEST_DIR"), "/../tests/data/hlo/tpu_train_step.txt");
    let text_report = xlayout(&["hlo", dump]);
    let page = scratch("html").join("report.html");
    let path = page.to_str().unwrap();
    // The report in --format as before, and the page beside it.
    assert_eq!(xlayout(&["hlo", dump, "--html", path]), text_report);
    let html = std::fs::read_to_string(&page).unwrap();
    assert!(html.starts_with("<!DOCTYPE html>\n"));
    assert!(html.contains("<title>xlayout: jit_train_step</title>"));
    assert!(html.contains(&format!("<p class=\"about\">{dump}: 49 lines")));
    // `-`: the page on standard output, instead of --format.
    let (status, out, _) = xlayout(&["hlo", dump, "--html", "-"]);
    assert_eq!((status, out), (text_report.0, html));
    // Several modules: one page, a section each.
    let fragment = concat!(env!("CARGO_MANIFEST_DIR"), "/../tests/data/hlo/tpu_fragment.txt");
    xlayout(&["hlo", dump, fragment, "--html", path]);
    let html = std::fs::read_to_string(&page).unwrap();
    assert!(html.contains("<title>xlayout: 2 modules</title>"));
    assert_eq!(html.matches("<section class=\"module\"").count(), 2);
    // A page that cannot be written: status 2, its name and why.
    let (status, _, err) = xlayout(&["hlo", dump, "--html", "/nonexistent-dir/r.html"]);
    assert_eq!(status, 2);
    assert!(err.starts_with("xlayout: cannot write /nonexistent-dir/r.html: "), "{err}");
}
