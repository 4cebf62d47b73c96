//! The pictures in a real browser: each SVG map is written to a file, loaded by headless
//! Chromium in a laptop-sized window, and the DOM it rendered is read back: no parse error,
//! no console error, the same cells, offsets and padding as the text the library wrote, and
//! a picture that fits the window's width at its own proportions.
//!
//! Which browser they run is decided when the tests are built (build.rs, with
//! [`chromium::find`]): `XLAYOUT_CHROMIUM`, else a `chromium` (or `chromium-browser`,
//! `google-chrome`) on `PATH`. Without one they are `ignored`, the reason in the summary;
//! under CI (`CI=true`, where `.ci/run` installs Debian's `chromium`) they fail instead.

mod chromium;

use crate::support::drawing;

use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use xlayout::draw::{map_svg, MapOptions};
use xlayout::ArrayShape;

/// The browser the build found (build.rs), for `what`. Without one, the tests that always
/// need it are ignored (`xlayout_no_chromium`) unless the build was under CI, where they fail
/// here; so does a stale screenshot, which needs one to be taken again.
fn chromium(what: &str) -> PathBuf {
    match option_env!("XLAYOUT_TEST_CHROMIUM") {
        Some(path) => PathBuf::from(path),
        None => panic!(
            "{what} needs Chromium, and none was found when the tests were built (PATH has \
             none of {}, and XLAYOUT_CHROMIUM is not set; under CI every tool a test needs is \
             installed): `apt-get install chromium` (or set XLAYOUT_CHROMIUM), then \
             `touch build.rs`",
            chromium::NAMES.join(", ")
        ),
    }
}

/// The build's rules for finding a browser (build.rs runs [`chromium::find`]), on made-up
/// environments: `XLAYOUT_CHROMIUM` first, then `PATH` in its order (each directory tried
/// for every name before the next), and without either, ignored on a developer's machine
/// and failed under CI.
#[test]
fn the_build_finds_chromium_or_ignores_or_fails_the_browser_tests() {
    use chromium::{find, Chromium};
    let files = [Path::new("/opt/b/google-chrome"), Path::new("/usr/bin/chromium-browser")];
    let is_file = |p: &Path| files.contains(&p);
    let with = |vars: &[(&str, &str)]| {
        let vars: Vec<(String, String)> =
            vars.iter().map(|(k, v)| (k.to_string(), v.to_string())).collect();
        find(
            move |name| {
                vars.iter().find(|(k, _)| k == name).map(|(_, v)| std::ffi::OsString::from(v))
            },
            is_file,
        )
    };
    let found = |p: &str| Chromium::Found(PathBuf::from(p));
    assert_eq!(with(&[("XLAYOUT_CHROMIUM", "/x/chrome"), ("PATH", "/opt/b")]), found("/x/chrome"));
    assert_eq!(
        with(&[("XLAYOUT_CHROMIUM", ""), ("PATH", "/opt/b")]),
        found("/opt/b/google-chrome")
    );
    assert_eq!(with(&[("PATH", "/usr/bin:/opt/b")]), found("/usr/bin/chromium-browser"));
    assert_eq!(with(&[("PATH", "/opt/b:/usr/bin")]), found("/opt/b/google-chrome"));
    assert_eq!(with(&[("PATH", "/bin:/usr/local/bin")]), Chromium::Ignore);
    assert_eq!(with(&[]), Chromium::Ignore);
    assert_eq!(with(&[("PATH", "/bin"), ("CI", "false")]), Chromium::Ignore);
    assert_eq!(with(&[("PATH", "/bin"), ("CI", "true")]), Chromium::Fail);
    assert_eq!(with(&[("CI", "1")]), Chromium::Fail);
    assert_eq!(with(&[("PATH", "/usr/bin"), ("CI", "true")]), found("/usr/bin/chromium-browser"));
}

/// What the browser made of a file: the serialized DOM after scripts ran, and the console
/// messages it logged.
struct Rendered {
    dom: String,
    console: Vec<String>,
}

fn render(browser: &Path, file: &Path) -> Rendered {
    let profile = file.with_extension("profile");
    let mut child = Command::new(browser)
        .args(["--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking"])
        .args(["--disable-component-update", "--disable-sync", "--no-first-run"])
        .args(["--enable-logging=stderr", "--v=0", "--virtual-time-budget=5000"])
        .arg(format!("--window-size={},{}", SCREEN.0, SCREEN.1))
        .arg(format!("--user-data-dir={}", profile.display()))
        .arg("--dump-dom")
        .arg(format!("file://{}", file.display()))
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap_or_else(|e| panic!("cannot run {}: {e}", browser.display()));
    // Read both pipes on threads so a chatty browser cannot block on a full pipe.
    let mut stdout = child.stdout.take().unwrap();
    let mut stderr = child.stderr.take().unwrap();
    let out = std::thread::spawn(move || {
        let mut s = String::new();
        std::io::Read::read_to_string(&mut stdout, &mut s).map(|_| s)
    });
    let err = std::thread::spawn(move || {
        let mut s = String::new();
        std::io::Read::read_to_string(&mut stderr, &mut s).map(|_| s)
    });
    let start = Instant::now();
    let status = loop {
        if let Some(status) = child.try_wait().unwrap() {
            break status;
        }
        if start.elapsed() > Duration::from_secs(120) {
            let _ = child.kill();
            panic!("{} did not finish loading {} in 120 s", browser.display(), file.display());
        }
        std::thread::sleep(Duration::from_millis(50));
    };
    let dom = out.join().unwrap().unwrap();
    let stderr = err.join().unwrap().unwrap();
    let _ = std::fs::remove_dir_all(&profile);
    assert!(status.success(), "{} failed on {}: {stderr}", browser.display(), file.display());
    let console = stderr.lines().filter(|l| l.contains(":CONSOLE")).map(str::to_string).collect();
    Rendered { dom, console }
}

/// The browser window: a laptop's screen.
const SCREEN: (usize, usize) = (1366, 768);

/// The widest vertical scroll bar a browser draws, in pixels.
const SCROLL_BAR: f64 = 20.0;

/// A script for the end of an SVG map: it writes on the root, as `data-drawn`, the width and
/// height the browser drew the picture at and the width of the window.
const MEASURE: &str = "<script>//<![CDATA[\n\
    var root = document.documentElement, box = root.getBoundingClientRect();\n\
    root.setAttribute('data-drawn', [box.width, box.height, window.innerWidth].join(' '));\n\
    //]]></script></svg>";

/// A scratch directory for the files the browser loads.
fn scratch(name: &str) -> PathBuf {
    crate::support::scratch!(&format!("browser-{name}"))
}

#[test]
#[cfg_attr(
    xlayout_no_chromium,
    ignore = "no Chromium when built: install it (or set XLAYOUT_CHROMIUM), then `touch build.rs`"
)]
fn svg_maps_render_in_chromium() {
    let browser = chromium("this test");
    let dir = scratch("svg");
    let tiles = MapOptions { tiles: true, ..MapOptions::default() };
    let window = MapOptions { origin: (6, 126), window: Some((4, 4)), ..MapOptions::default() };
    let cases = [
        ("figure1", "f32[3,5]{1,0:T(2,2)}", MapOptions::default(), 24, 9),
        ("bf16", "bf16[16,256]{1,0:T(8,128)(2,1)}", MapOptions::default(), 4096, 0),
        ("window", "bf16[16,256]{1,0:T(8,128)(2,1)}", window, 16, 0),
        ("tiles", "f32[3,5]{1,0:T(2,2)L(32)}", tiles.clone(), 6, 0),
        ("big-tiles", "f32[4096,4096]{1,0:T(8,128)}", tiles, 512 * 32, 0),
        ("corner", "f32[4096,4096]", MapOptions::default(), 64 * 64, 0),
    ];
    for (name, shape, options, logical_cells, logical_pads) in cases {
        let shape: ArrayShape = shape.parse().unwrap();
        let svg = map_svg(&shape, &options).unwrap();
        let file = dir.join(format!("{name}.svg"));
        std::fs::write(&file, svg.replacen("</svg>", MEASURE, 1)).unwrap();
        let rendered = render(&browser, &file);
        assert!(rendered.console.is_empty(), "{name}: {:?}", rendered.console);
        assert!(!rendered.dom.contains("parsererror"), "{name}: {}", rendered.dom);
        let (want, got) = (drawing::read(&svg), drawing::read(&rendered.dom));
        // Drawn at its natural size when that fits the window's width, else scaled down to
        // it (less a vertical scroll bar, for a tall one), its proportions kept (to the pixel
        // the browser rounds the height to).
        let (width, height, window) = drawn_size(&rendered.dom);
        let (w, h) = (want.size.0 as f64, want.size.1 as f64);
        let what = format!("{name}: drawn {width}x{height} in {window}, natural {w}x{h}");
        if w <= window - SCROLL_BAR {
            assert_eq!(width, w, "{what}");
        } else {
            assert!(width <= window && width >= window - SCROLL_BAR, "{what}");
        }
        assert!((height - h * width / w).abs() < 1.0, "{what}");
        assert_eq!(got.logical.cells.len(), logical_cells, "{name}");
        assert_eq!(got.logical.cells.iter().filter(|c| c.pad).count(), logical_pads, "{name}");
        for (panel, w, g) in
            [("logical", &want.logical, &got.logical), ("memory", &want.memory, &got.memory)]
        {
            assert_eq!(w.cells.len(), g.cells.len(), "{name} {panel}");
            for (a, b) in w.cells.iter().zip(&g.cells) {
                assert_eq!(
                    (&a.index, a.offset, a.pad, &a.text),
                    (&b.index, b.offset, b.pad, &b.text),
                    "{name} {panel}"
                );
            }
        }
    }
}

/// The `data-drawn` figures [`MEASURE`] wrote: width, height, window width.
fn drawn_size(dom: &str) -> (f64, f64, f64) {
    let start = dom.find("data-drawn=\"").expect("the measuring script ran") + 12;
    let text = &dom[start..start + dom[start..].find('"').unwrap()];
    let v: Vec<f64> = text.split(' ').map(|x| x.parse().unwrap()).collect();
    (v[0], v[1], v[2])
}

/// The report page of one of the test dumps.
fn report_page(dump: &[u8]) -> String {
    use xlayout::draw::{report_html, HtmlOptions};
    use xlayout::hlo::{decode, Analysis, Module, Report, ReportOptions};
    let (text, _) = decode(dump);
    let m = Module::parse(&text);
    let a = Analysis::new(&m);
    let r = Report::new(&a, ReportOptions::default());
    report_html(
        &r,
        &HtmlOptions { source: String::from("tpu_train_step.txt"), ..HtmlOptions::default() },
    )
}

/// The text of column `column` of each body row of the table with id `id`, from a DOM as
/// the browser serializes it (HTML, not XML: read by hand).
fn column(dom: &str, id: &str, column: usize) -> Vec<String> {
    let start = dom.find(&format!("id=\"{id}\"")).unwrap_or_else(|| panic!("no #{id}"));
    let table = &dom[start..start + dom[start..].find("</table>").unwrap()];
    let body = &table[table.find("<tbody>").unwrap()..];
    body.split("<tr")
        .skip(1)
        .map(|row| {
            let cell = row.split("<td").nth(column + 1).unwrap();
            let cell = &cell[cell.find('>').unwrap() + 1..cell.find("</td>").unwrap()];
            // Drop tags inside the cell (a shape's link).
            let mut text = String::new();
            let mut in_tag = false;
            for ch in cell.chars() {
                match ch {
                    '<' => in_tag = true,
                    '>' => in_tag = false,
                    c if !in_tag => text.push(c),
                    _ => {}
                }
            }
            text
        })
        .collect()
}

#[test]
#[cfg_attr(
    xlayout_no_chromium,
    ignore = "no Chromium when built: install it (or set XLAYOUT_CHROMIUM), then `touch build.rs`"
)]
fn html_report_renders_and_sorts_in_chromium() {
    let browser = chromium("this test");
    let dir = scratch("html");
    let dump =
        std::fs::read(concat!(env!("CARGO_MANIFEST_DIR"), "/tests/data/hlo/tpu_train_step.txt"))
            .unwrap();
    let html = report_page(&dump);
    let file = dir.join("report.html");
    std::fs::write(&file, &html).unwrap();
    let rendered = render(&browser, &file);
    assert!(rendered.console.is_empty(), "{:?}", rendered.console);
    // The sort script ran on every table (the layout changes' too) and left the rows in place.
    assert_eq!(rendered.dom.matches("data-sortable=\"ready\"").count(), 6);
    assert_eq!(column(&rendered.dom, "table-relayouts", 2), ["transpose.2 (fused)", "copy-start"]);
    let owners = [
        "copy-start",
        "Arg_1.2",
        "fusion.3",
        "fusion.1",
        "Arg_0.1",
        "fusion",
        "Arg_2.3",
        "fusion.2",
    ];
    assert_eq!(column(&rendered.dom, "table-allocated", 1), owners);
    assert_eq!(rendered.dom.matches("class=\"bar\"").count(), 8);
    // The three padded shapes, and the four tiled array shapes of the buffers live at the
    // temporaries' peak that are not one (f32[1280,4096] in S(1) and in S(0),
    // f32[16,40,4096], f32[16,40,1280]): every layout here has tiles, so each is worth a map.
    assert_eq!(rendered.dom.matches("<section class=\"map\"").count(), 7);

    // Clicks, as a user makes them: the instruction header of the largest-owners table
    // (text: ascending), the padding header of the padding table twice (numbers: descending,
    // then ascending).
    let clicks = "<script>//<![CDATA[\n\
        document.querySelectorAll('#table-allocated thead th')[1].click();\n\
        var padding = document.querySelectorAll('#table-padding thead th')[7];\n\
        padding.click(); padding.click();\n\
        //]]></script></body>";
    let clicked = dir.join("clicked.html");
    std::fs::write(&clicked, html.replacen("</body>", clicks, 1)).unwrap();
    let rendered = render(&browser, &clicked);
    assert!(rendered.console.is_empty(), "{:?}", rendered.console);
    let mut sorted = owners.map(String::from).to_vec();
    sorted.sort(); // JavaScript compares UTF-16 code units: the same order for ASCII names
    assert_eq!(column(&rendered.dom, "table-allocated", 1), sorted);
    // Padding bytes 448 (s32[16] in a 128-tile), 508 (f32[] in a 128-tile), 3604480.
    assert_eq!(column(&rendered.dom, "table-padding", 1), ["Arg_2.3", "fusion.2", "Arg_0.1"]);
    assert!(rendered.dom.contains("aria-sort=\"ascending\""));
}

#[test]
#[cfg_attr(
    xlayout_no_chromium,
    ignore = "no Chromium when built: install it (or set XLAYOUT_CHROMIUM), then `touch build.rs`"
)]
fn hostile_dump_runs_nothing_in_chromium() {
    let browser = chromium("this test");
    let dir = scratch("hostile");
    // Scheduled, so the peak's figure, timeline and lifetime bars carry its text too.
    let dump = br#"HloModule m, is_scheduled=true
ENTRY %main {
  %p = f32[10]{0:T(128)} parameter(0), metadata={op_name="<script>document.body.setAttribute('data-pwned','1')</script>\"q\"" source_file="<img src=x onerror=document.body.setAttribute('data-pwned','2')>" source_line=1}
  ROOT %n = f32[10]{0:T(128)} negate(%p), metadata={op_name="]]></script><script>document.body.setAttribute('data-pwned','3')</script>"}
}
"#;
    let file = dir.join("hostile.html");
    std::fs::write(&file, report_page(dump)).unwrap();
    let rendered = render(&browser, &file);
    assert!(rendered.console.is_empty(), "{:?}", rendered.console);
    assert!(!rendered.dom.contains("data-pwned=\""), "a script from the dump ran");
    assert!(rendered.dom.contains("&lt;script&gt;document.body.setAttribute('data-pwned','1')"));
    assert_eq!(rendered.dom.matches("data-sortable=\"ready\"").count(), 5);
    assert!(rendered.dom.contains("data-peak-bytes=\"80\""));
    assert_eq!(rendered.dom.matches("<g class=\"lifetime\"").count(), 2);
}

/// Every module of tests/data marked `is_scheduled=true`, by path.
fn scheduled_modules() -> Vec<PathBuf> {
    let mut found = Vec::new();
    let mut dirs = vec![PathBuf::from(concat!(env!("CARGO_MANIFEST_DIR"), "/tests/data"))];
    while let Some(dir) = dirs.pop() {
        for entry in std::fs::read_dir(&dir).unwrap() {
            let path = entry.unwrap().path();
            if path.is_dir() {
                dirs.push(path);
            } else if path.extension().is_some_and(|e| e == "txt") {
                let text = std::fs::read(&path).unwrap();
                let first = text.split(|b| *b == b'\n').next().unwrap_or(b"");
                if first.starts_with(b"HloModule ")
                    && String::from_utf8_lossy(first).contains("is_scheduled=true")
                {
                    found.push(path);
                }
            }
        }
    }
    found.sort();
    found
}

/// What the measuring script writes: each timeline's drawn width and height, and the
/// page's width against the window's.
const MEASURE_PAGE: &str = "<script>//<![CDATA[\n\
    Array.prototype.forEach.call(document.querySelectorAll('svg.timeline'), function (svg) {\n\
      var box = svg.getBoundingClientRect();\n\
      svg.setAttribute('data-drawn', [box.width, box.height].join(' '));\n\
    });\n\
    var root = document.documentElement;\n\
    root.setAttribute('data-page', [root.scrollWidth, window.innerWidth].join(' '));\n\
    //]]></script></body>";

/// The values of attribute `name` in a serialized DOM, in document order.
fn attributes(dom: &str, name: &str) -> Vec<String> {
    let key = format!(" {name}=\"");
    dom.match_indices(&key)
        .map(|(at, _)| {
            let start = at + key.len();
            dom[start..start + dom[start..].find('"').unwrap()].to_string()
        })
        .collect()
}

/// The issue's promise: every scheduled module of the test data, on the page `peak --html`
/// and `hlo --html` write, shows its peak (`data-peak-bytes`, the bytes the analysis
/// finds) with a timeline Chromium draws (a column per step, or per run of steps), on a
/// page no wider than a laptop's screen.
#[test]
#[cfg_attr(
    xlayout_no_chromium,
    ignore = "no Chromium when built: install it (or set XLAYOUT_CHROMIUM), then `touch build.rs`"
)]
fn every_peak_renders_in_chromium() {
    use xlayout::draw::{HtmlOptions, HtmlPage};
    use xlayout::hlo::{decode, Analysis, Module, Peak, Report, ReportOptions};
    let browser = chromium("this test");
    let modules = scheduled_modules();
    assert!(modules.len() >= 64, "{modules:?}");
    let mut page = HtmlPage::default();
    let mut expected = Vec::new();
    for path in &modules {
        let bytes = std::fs::read(path).unwrap();
        let (text, _) = decode(&bytes);
        let m = Module::parse(&text);
        let a = Analysis::new(&m);
        let peak = Peak::new(&a);
        let columns = peak.sequence.len().min(960);
        expected.push((peak.xla.bytes.to_string(), peak.sequence.len(), columns));
        let report = Report::new(&a, ReportOptions::default());
        let source = path.display().to_string();
        page.add_with_peak(&report, Some(&peak), &HtmlOptions { source, ..HtmlOptions::default() });
    }
    let html = page.finish();
    let file = scratch("peaks").join("peaks.html");
    std::fs::write(&file, html.replacen("</body>", MEASURE_PAGE, 1)).unwrap();
    let rendered = render(&browser, &file);
    assert!(rendered.console.is_empty(), "{:?}", rendered.console);
    let peaks = attributes(&rendered.dom, "data-peak-bytes");
    let steps = attributes(&rendered.dom, "data-steps");
    let columns = attributes(&rendered.dom, "data-columns");
    let drawn = attributes(&rendered.dom, "data-drawn");
    assert_eq!(
        (peaks.len(), steps.len(), drawn.len()),
        (modules.len(), modules.len(), modules.len())
    );
    for (k, (bytes, n, c)) in expected.iter().enumerate() {
        let what = modules[k].display();
        assert_eq!(
            (&peaks[k], &steps[k], &columns[k]),
            (bytes, &n.to_string(), &c.to_string()),
            "{what}"
        );
        let size: Vec<f64> = drawn[k].split(' ').map(|x| x.parse().unwrap()).collect();
        assert!(size[0] > 600.0 && size[1] > 100.0, "{what}: timeline drawn {size:?}");
    }
    // A column (a `g.step`) per step or run of steps, each with its tooltip.
    let groups = rendered.dom.matches("<g class=\"step\"").count();
    assert_eq!(groups, expected.iter().map(|e| e.2).sum::<usize>());
    let page: Vec<f64> =
        attributes(&rendered.dom, "data-page")[0].split(' ').map(|x| x.parse().unwrap()).collect();
    assert!(page[0] <= page[1], "the page is {} wide in a window of {}", page[0], page[1]);
    // A one-module page has its timeline at `id="timeline"`.
    assert!(html.contains("<div class=\"timeline\" id=\"timeline\">"));
}

/// FNV-1a, 64 bits: a digest of the page a screenshot is of, the same on every machine.
fn fnv1a(bytes: &[u8]) -> u64 {
    bytes
        .iter()
        .fold(0xcbf2_9ce4_8422_2325, |h, b| (h ^ u64::from(*b)).wrapping_mul(0x100_0000_01b3))
}

/// CRC-32 (ISO-HDLC, PNG's), bit by bit.
fn crc32(bytes: &[u8]) -> u32 {
    let mut crc = 0xffff_ffffu32;
    for b in bytes {
        crc ^= u32::from(*b);
        for _ in 0..8 {
            crc = if crc & 1 == 1 { (crc >> 1) ^ 0xedb8_8320 } else { crc >> 1 };
        }
    }
    !crc
}

/// The `tEXt` value of `keyword` in a PNG, if it has one.
fn png_text(png: &[u8], keyword: &str) -> Option<String> {
    let mut at = 8;
    while at + 12 <= png.len() {
        let len = u32::from_be_bytes(png[at..at + 4].try_into().unwrap()) as usize;
        let kind = &png[at + 4..at + 8];
        let data = png.get(at + 8..at + 8 + len)?;
        if kind == b"tEXt" {
            if let Some(text) = data.strip_prefix(format!("{keyword}\0").as_bytes()) {
                return Some(String::from_utf8_lossy(text).into_owned());
            }
        }
        at += 12 + len;
    }
    None
}

/// `png` with a `tEXt` chunk `keyword` = `text` before its end.
fn with_png_text(png: &[u8], keyword: &str, text: &str) -> Vec<u8> {
    let end = png.len() - 12; // IEND: a zero length, the type, its CRC
    assert_eq!(&png[end + 4..end + 8], b"IEND");
    let mut chunk = b"tEXt".to_vec();
    chunk.extend_from_slice(keyword.as_bytes());
    chunk.push(0);
    chunk.extend_from_slice(text.as_bytes());
    let mut out = png[..end].to_vec();
    out.extend_from_slice(&((chunk.len() - 4) as u32).to_be_bytes());
    out.extend_from_slice(&chunk);
    out.extend_from_slice(&crc32(&chunk).to_be_bytes());
    out.extend_from_slice(&png[end..]);
    out
}

/// The README's screenshot, docs/report.png, is of the HTML report the library writes now:
/// it carries the digest of the page it was taken of, and a page that changed is
/// photographed again here (the new picture to commit), so it cannot go stale unseen.
#[test]
fn the_readme_screenshot_is_of_the_current_page() {
    use xlayout::draw::{report_html, HtmlOptions};
    use xlayout::hlo::{decode, Analysis, Module, Report, ReportOptions};
    let source = "tests/data/hlo/tpu_train_step.txt";
    let bytes = std::fs::read(format!("{}/{source}", env!("CARGO_MANIFEST_DIR"))).unwrap();
    let (text, _) = decode(&bytes);
    let m = Module::parse(&text);
    let a = Analysis::new(&m);
    let html = report_html(
        &Report::new(&a, ReportOptions::default()),
        &HtmlOptions { source: source.to_string(), ..HtmlOptions::default() },
    );
    let digest = format!("{:016x}", fnv1a(html.as_bytes()));
    let png_path = PathBuf::from(concat!(env!("CARGO_MANIFEST_DIR"), "/docs/report.png"));
    let committed = std::fs::read(&png_path).unwrap();
    if png_text(&committed, "xlayout-page").as_deref() == Some(digest.as_str()) {
        return;
    }
    let browser = chromium("docs/report.png is of an older page: taking it again");
    let dir = scratch("screenshot");
    let page = dir.join("report.html");
    std::fs::write(&page, &html).unwrap();
    let shot = dir.join("report.png");
    let profile = dir.join("profile");
    let status = Command::new(browser)
        .args(["--headless", "--no-sandbox", "--disable-gpu", "--hide-scrollbars"])
        .args(["--disable-background-networking", "--no-first-run"])
        .arg(format!("--window-size={},{}", SCREEN.0, 900))
        .arg(format!("--user-data-dir={}", profile.display()))
        .arg(format!("--screenshot={}", shot.display()))
        .arg(format!("file://{}", page.display()))
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .status()
        .unwrap();
    assert!(status.success());
    let taken = std::fs::read(&shot).unwrap();
    std::fs::write(&png_path, with_png_text(&taken, "xlayout-page", &digest)).unwrap();
    panic!("docs/report.png was of an older page: it is taken again now, commit it");
}
