//! The command's pictures: `xlayout map SHAPE --svg [FILE]` with its window, origin and
//! tiles options (and the text map's window, which means the same cells), and
//! `xlayout hlo ... --html PAGE`. The pictures themselves are the
//! library's (the root crate's tests/draw_svg.rs and tests/draw_html.rs check them); here: that the command
//! writes exactly them, where it is told, and fails as a command should.

use xlayout::draw::{map_svg, MapOptions, DEFAULT_CELLS, DEFAULT_ROWS, MAX_CELLS, MAX_MEMORY_ROW};
use xlayout::ArrayShape;

use crate::support;

/// Exit status, standard output, standard error.
fn xlayout(args: &[&str]) -> (i32, String, String) {
    let run = support::xlayout(args, b"");
    (run.status, run.stdout, run.stderr)
}

fn scratch(name: &str) -> std::path::PathBuf {
    support::scratch!(&format!("pictures-{name}"))
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

/// A slice with no rows under enormous tiles: 38 characters that asked for 51 GB (status 134,
/// an abort) and for more than `usize` (status 101, a panic). The picture is sized by what it
/// draws: no cell, the first 256 of the padded columns labelled, and it says so.
#[test]
fn map_svg_of_an_empty_array_under_enormous_tiles() {
    for (shape, columns) in [
        ("u8[0,1]{1,0:T(2147483648,2147483648)}", "2147483648"),
        ("f32[0,5]{1,0:T(2,9223372036854775807)}", "9223372036854775807"),
    ] {
        let (status, out, err) = xlayout(&["map", shape, "--svg"]);
        assert_eq!((status, err.as_str()), (0, ""), "{shape}");
        assert_eq!(out, svg(shape, &MapOptions::default()));
        assert!(out.len() < 64 << 10, "{shape}: {} bytes", out.len());
        assert_eq!(out.matches("<g class=\"cell").count(), 0, "{shape}");
        let note = format!(
            "showing element rows 0..0 of 0, columns 0..{MAX_MEMORY_ROW} of {columns} (at most \
             {MAX_CELLS} cells per panel)"
        );
        assert!(out.contains(&note), "{shape}: {out}");
        let (status, text, _) = xlayout(&["map", shape]);
        assert_eq!(status, 0);
        assert!(text.starts_with("(no elements: the slice is 0x"), "{text}");
    }
}

/// The numbers of a text map's grid (its lines up to the first that is not a grid line).
fn grid_numbers(text: &str) -> Vec<usize> {
    let grid = text.lines().take_while(|l| l.chars().all(|c| " |-+0123456789".contains(c)));
    let words = grid.flat_map(|l| l.split([' ', '|', '-', '+']).filter(|w| !w.is_empty()));
    words.map(|w| w.parse().unwrap()).collect()
}

/// The `data-offset`s of the logical panel's cells of an SVG map, in drawing order.
fn logical_offsets(svg: &str) -> Vec<usize> {
    let panel = &svg[svg.find("panel logical").unwrap()..svg.find("panel memory").unwrap()];
    let cells = panel.split("<g class=\"cell").skip(1);
    cells
        .map(|c| {
            let v = &c[c.find("data-offset=\"").unwrap() + 13..];
            v[..v.find('"').unwrap()].parse().unwrap()
        })
        .collect()
}

#[test]
fn map_windows_are_the_same_cells_in_text_and_svg() {
    // Rows 6..10, columns 126..130 of bf16 pairs cross both (8,128) tile boundaries:
    // offset(r, c) = 2048(r/8) + 1024(c/128) + 256((r%8)/2) + 2(c%128) + r%2.
    let shape = "bf16[16,256]{1,0:T(8,128)(2,1)}";
    let window = ["map", shape, "--origin", "6,126", "--window", "4,4"];
    let (status, text, err) = xlayout(&window);
    assert_eq!((status, err.as_str()), (0, ""));
    let want = [
        [1020, 1022, 1792, 1794],
        [1021, 1023, 1793, 1795],
        [2300, 2302, 3072, 3074],
        [2301, 2303, 3073, 3075],
    ];
    assert_eq!(grid_numbers(&text), want.concat());
    assert!(text.contains("\nshowing element rows 6..10 of 16, columns 126..130 of 256\n"));
    let (_, svg, _) = xlayout(&[&window[..], &["--svg"]].concat());
    assert_eq!(logical_offsets(&svg), want.concat());
    // An origin the text map has no cell at: the SVG map's message. (The SVG map draws
    // first-level padding, so 3,0 is a cell there.)
    let (status, out, err) = xlayout(&["map", FIGURE_1, "--origin", "3,0"]);
    assert_eq!((status, out.as_str()), (1, ""));
    assert_eq!(err, "error: the window origin (3,0) is outside the 3x5 elements drawn\n");
    assert_eq!(xlayout(&["map", FIGURE_1, "--origin", "3,0", "--svg"]).0, 0);
}

#[test]
fn map_help_states_the_sizes_applied() {
    let (_, help, _) = xlayout(&["map", "--help"]);
    let help = help.split_whitespace().collect::<Vec<_>>().join(" ");
    for said in [
        String::from("[default: the text map, 32 rows and 32 columns;"),
        format!("the whole slice when it has at most {DEFAULT_CELLS} elements ({MAX_CELLS} tiles with --tiles), else its top-left corner of at most that many: {DEFAULT_ROWS} rows of a wide slice, more of a narrow one]"),
        format!("At most {MAX_CELLS} cells: a larger window keeps its first {MAX_MEMORY_ROW} columns"),
    ] {
        assert!(help.contains(&said), "{said}: {help}");
    }
    // The text map: 32 rows of 32 offsets by default; a larger window is cut at 16384 cells,
    // 64 rows of 256 columns. f32[40,40] is row-major: offset 40r + c.
    let (_, text, _) = xlayout(&["map", "f32[40,40]"]);
    let want: Vec<usize> = (0..32).flat_map(|r| (0..32).map(move |c| 40 * r + c)).collect();
    assert_eq!(grid_numbers(&text), want);
    let (_, text, _) = xlayout(&["map", "f32[4096,4096]", "--window", "1000,1000"]);
    let want: Vec<usize> = (0..64).flat_map(|r| (0..256).map(move |c| 4096 * r + c)).collect();
    assert_eq!(grid_numbers(&text), want);
    let note = "showing element rows 0..64 of 4096, columns 0..256 of 4096 (at most 16384 cells";
    assert!(text.contains(note), "{text}");
    // The SVG map: the whole slice up to 4096 elements, else a corner of as many; up to
    // 16384 tiles with --tiles (a 4096x4096 array has 512x32 tiles of 8x128).
    assert_eq!(logical_offsets(&xlayout(&["map", "f32[64,64]", "--svg"]).1).len(), DEFAULT_CELLS);
    assert_eq!(logical_offsets(&xlayout(&["map", "f32[64,65]", "--svg"]).1).len(), 64 * 64);
    let tiles = ["map", "f32[4096,4096]{1,0:T(8,128)}", "--svg", "--tiles"];
    assert_eq!(logical_offsets(&xlayout(&tiles).1).len(), MAX_CELLS);
    // A corner of as many when the slice is larger, narrow ones too: 1024x32 tiles show 512
    // rows of 32 (not 64 rows, 2048 tiles), 10000x16 elements 256 rows of 16; 48 columns
    // leave room for 85 rows (4080 cells), 100000 columns for 64 rows of 256.
    let tiles = ["map", "f32[8192,4096]{1,0:T(8,128)}", "--svg", "--tiles"];
    assert_eq!(logical_offsets(&xlayout(&tiles).1).len(), MAX_CELLS);
    for (shape, cells) in [
        ("f32[10000,16]", DEFAULT_CELLS),
        ("f32[10000,48]", 85 * 48),
        ("f32[2,4096]{1,0:T(8,128)}", DEFAULT_CELLS),
    ] {
        assert_eq!(logical_offsets(&xlayout(&["map", shape, "--svg"]).1).len(), cells, "{shape}");
    }
    let tiles = ["map", "f32[100000,100000]{1,0:T(8,128)}", "--svg", "--tiles"];
    let (_, svg, _) = xlayout(&tiles);
    assert_eq!(logical_offsets(&svg).len(), DEFAULT_ROWS * MAX_MEMORY_ROW);
    assert!(svg.contains("showing tile rows 0..64 of 12500, columns 0..256 of 782"), "{svg}");
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
