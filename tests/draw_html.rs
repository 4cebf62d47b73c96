//! The HTML report of an HLO module, read back with an XML parser: totals, bars, the sortable
//! tables and their rows, the maps the padded shapes link to, and text from a hostile dump
//! staying text.

use roxmltree::{Document, Node};
use xlayout::draw::{report_html, HtmlOptions};
use xlayout::hlo::{decode, Analysis, GroupBy, Module, Report, ReportOptions};

fn data(name: &str) -> Vec<u8> {
    crate::support::data(&format!("hlo/{name}"))
}

/// The report page of a dump.
fn page(dump: &[u8], options: ReportOptions) -> String {
    let (text, _) = decode(dump);
    let m = Module::parse(&text);
    let a = Analysis::new(&m);
    let r = Report::new(&a, options);
    report_html(&r, &HtmlOptions { source: String::from("dump.txt"), ..HtmlOptions::default() })
}

/// The page as XML (it must be well-formed; `<!DOCTYPE html>` is its only declaration).
fn parse(html: &str) -> Document<'_> {
    let options = roxmltree::ParsingOptions { allow_dtd: true, ..Default::default() };
    Document::parse_with_options(html, options).unwrap_or_else(|e| panic!("not XML: {e}"))
}

fn class(n: Node, c: &str) -> bool {
    n.attribute("class").is_some_and(|x| x.split(' ').any(|y| y == c))
}

fn by_id<'a, 'i>(doc: &'a Document<'i>, id: &str) -> Node<'a, 'i> {
    doc.descendants().find(|n| n.attribute("id") == Some(id)).unwrap_or_else(|| panic!("no #{id}"))
}

/// The text of every cell of every body row of a table.
fn rows(table: Node) -> Vec<Vec<String>> {
    let body = table.children().find(|n| n.has_tag_name("tbody")).unwrap();
    body.children()
        .filter(|n| n.has_tag_name("tr"))
        .map(|tr| {
            tr.children()
                .filter(|n| n.has_tag_name("td"))
                .map(|td| {
                    td.descendants()
                        .filter(|t| t.is_text())
                        .filter_map(|t| t.text())
                        .collect::<String>()
                })
                .collect()
        })
        .collect()
}

/// `data-value` of the cells of one column.
fn values(table: Node, column: usize) -> Vec<u64> {
    let body = table.children().find(|n| n.has_tag_name("tbody")).unwrap();
    body.children()
        .filter(|n| n.has_tag_name("tr"))
        .map(|tr| {
            let td = tr.children().filter(|n| n.has_tag_name("td")).nth(column).unwrap();
            td.attribute("data-value").unwrap().parse().unwrap()
        })
        .collect()
}

#[test]
fn train_step_report() {
    let html = page(&data("tpu_train_step.txt"), ReportOptions::default());
    assert!(html.starts_with("<!DOCTYPE html>\n"));
    let doc = parse(&html);
    let root = doc.root_element();
    assert_eq!(root.tag_name().name(), "html");
    let title = root.descendants().find(|n| n.has_tag_name("title")).unwrap();
    assert_eq!(title.text(), Some("xlayout: jit_train_step"));
    // Nothing outside the page: no external resource of any kind, one script (ours).
    for n in root.descendants().filter(|n| n.is_element()) {
        for attr in ["src", "href"] {
            if let Some(v) = n.attribute(attr) {
                assert!(v.starts_with('#'), "<{}> {attr}={v}", n.tag_name().name());
            }
        }
    }
    assert_eq!(root.descendants().filter(|n| n.has_tag_name("script")).count(), 1);

    // The eight owners, largest first. Their bytes (XLA's ArraySize, from tests/hlo.rs):
    // the f32[1280,4096] buffers are 1280·4096·4 = 20 MiB (copy-start also owns its 4-byte
    // u32 context); the fusion f32[16,40,4096] (its 40 rows are whole tiles of 8) is
    // 10 MiB; bf16[16,1280,40]{2,1,0:T(8,128)(2,1)} allocates 16·160 tiles of 8x128 bf16 = 5 MiB for 1.5625 MiB of data.
    let allocated = by_id(&doc, "table-allocated");
    let names: Vec<String> = rows(allocated).iter().map(|r| r[1].clone()).collect();
    assert_eq!(
        names,
        [
            "copy-start",
            "Arg_1.2",
            "fusion.3",
            "fusion.1",
            "Arg_0.1",
            "fusion",
            "Arg_2.3",
            "fusion.2"
        ]
    );
    assert_eq!(
        values(allocated, 5)[..5],
        [20_971_524, 20_971_520, 20_971_520, 10_485_760, 5_242_880]
    );
    // Padding: Arg_0.1 pads 5242880 - 1638400; s32[16]{0:T(128)} is 512 bytes for 64;
    // f32[]{:T(128)} 512 for 4.
    let padding = by_id(&doc, "table-padding");
    let names: Vec<String> = rows(padding).iter().map(|r| r[1].clone()).collect();
    assert_eq!(names, ["Arg_0.1", "fusion.2", "Arg_2.3"]);
    assert_eq!(values(padding, 7), [3_604_480, 508, 448]);
    assert_eq!(rows(by_id(&doc, "table-expansion")).len(), 3);
    for id in ["table-allocated", "table-padding", "table-expansion", "spaces", "computations"] {
        assert!(class(by_id(&doc, id), "sortable"), "{id}");
    }

    // One bar per owner, with its exact bytes.
    let bars: Vec<(String, u64)> = root
        .descendants()
        .filter(|n| class(*n, "bar"))
        .map(|g| {
            (
                g.attribute("data-instruction").unwrap().to_string(),
                g.attribute("data-bytes").unwrap().parse().unwrap(),
            )
        })
        .collect();
    assert_eq!(bars.len(), 8);
    assert_eq!(bars[4], (String::from("Arg_0.1"), 5_242_880));

    // Each padded shape links to its map, and the map is there: one first tile, padding
    // hatched. bf16[16,1280,40]: the slice (1280, 40) in tiles of (8,128): 8 rows of 128
    // columns, columns 40..128 padding.
    let links: Vec<(String, String)> = root
        .descendants()
        .filter(|n| n.has_tag_name("a"))
        .map(|a| (a.attribute("href").unwrap().to_string(), a.text().unwrap_or("").to_string()))
        .collect();
    assert!(links.contains(&("#map-0".into(), "bf16[16,1280,40]{2,1,0:T(8,128)(2,1)}".into())));
    // The three padded shapes first, then the arrays of the buffers live at the
    // temporaries' peak whose layouts have tiles (8 maps at most).
    let maps: Vec<Node> = root.descendants().filter(|n| class(*n, "map")).collect();
    let titles: Vec<&str> = maps
        .iter()
        .map(|m| m.children().find(|n| n.has_tag_name("h3")).unwrap().text().unwrap())
        .collect();
    assert_eq!(
        titles,
        [
            "bf16[16,1280,40]{2,1,0:T(8,128)(2,1)}",
            "f32[]{:T(128)}",
            "s32[16]{0:T(128)}",
            "f32[1280,4096]{1,0:T(8,128)S(1)}",
            "f32[1280,4096]{1,0:T(8,128)}",
            "f32[16,40,4096]{2,1,0:T(8,128)}",
            "f32[16,40,1280]{2,1,0:T(8,128)}"
        ]
    );
    for (href, _) in &links {
        by_id(&doc, &href[1..]);
    }
    // Readable at its natural size: 8 rows and 32 columns of the first tile, around the
    // last column of data (columns 24..56: 16 of data, 16 of padding).
    let svg = maps[0].children().find(|n| n.has_tag_name("svg")).unwrap();
    assert!(class(svg, "xlayout-map"));
    let logical = svg.descendants().find(|n| class(*n, "logical")).unwrap();
    let cells: Vec<Node> = logical.children().filter(|n| class(*n, "cell")).collect();
    assert_eq!(cells.len(), 8 * 32);
    assert_eq!(cells.iter().filter(|c| class(**c, "pad")).count(), 8 * 16);
    // The page defines the hatch pattern once; the maps do not repeat it.
    assert_eq!(
        root.descendants().filter(|n| n.attribute("id") == Some("xlayout-hatch")).count(),
        1
    );
}

#[test]
fn groups_and_problems() {
    let by = ReportOptions { group_by: Some(GroupBy::Opcode), ..ReportOptions::default() };
    let html = page(&data("tpu_train_step.txt"), by);
    let doc = parse(&html);
    // fusion: 20 MiB + 10 MiB + 3.125 MiB + 512 B; parameter: 20 MiB + 5 MiB + 512 B;
    // copy-start: its 20 MiB destination and 4-byte context.
    let groups: Vec<String> =
        rows(by_id(&doc, "table-groups")).iter().map(|r| r[0].clone()).collect();
    assert_eq!(groups, ["fusion", "parameter", "copy-start"]);

    let html = page(&data("problems.txt"), ReportOptions::default());
    let doc = parse(&html);
    let problems = rows(by_id(&doc, "table-problems"));
    assert!(problems.len() >= 3, "{problems:?}");
    assert!(problems.iter().any(|r| r[1].contains("unreadable line")), "{problems:?}");
}

#[test]
fn text_from_the_dump_stays_text() {
    let dump = br#"HloModule m<script>alert(1)</script>
ENTRY %main {
  %p = f32[10]{0:T(128)} parameter(0), metadata={op_name="<script>document.body.setAttribute('data-pwned','1')</script>\"quoted\" & 'single'" source_file="<img src=x onerror=alert(2)>.py" source_line=1}
  ROOT %n = f32[10]{0:T(128)} negate(%p), metadata={op_name="]]></script><script>alert(3)</script>"}
}
"#;
    let html = page(dump, ReportOptions::default());
    let doc = parse(&html);
    let root = doc.root_element();
    // One script element (ours), no img, no element with an event handler.
    assert_eq!(root.descendants().filter(|n| n.has_tag_name("script")).count(), 1);
    assert_eq!(root.descendants().filter(|n| n.has_tag_name("img")).count(), 0);
    assert!(root.descendants().all(|n| n.attributes().all(|a| !a.name().starts_with("on"))));
    // The text reads as the dump wrote it.
    let text: String =
        root.descendants().filter(|n| n.is_text()).filter_map(|n| n.text()).collect();
    assert!(
        text.contains(
            r#"<script>document.body.setAttribute('data-pwned','1')</script>"quoted" & 'single'"#
        ),
        "{text}"
    );
    assert!(text.contains("<img src=x onerror=alert(2)>.py:1"));
    assert!(text.contains("]]></script><script>alert(3)</script>"));
    // Our script is the last one, whole: nothing from the dump inside it.
    let script = root.descendants().find(|n| n.has_tag_name("script")).unwrap();
    assert!(!script.text().unwrap_or("").contains("alert"));
}

#[test]
fn several_modules_share_a_page() {
    use xlayout::draw::HtmlPage;
    let mut page = HtmlPage::default();
    let dumps = ["tpu_train_step.txt", "tpu_oom_shapes.txt", "tpu_fragment.txt"];
    for name in dumps {
        let bytes = data(name);
        let (text, _) = decode(&bytes);
        let m = Module::parse(&text);
        let a = Analysis::new(&m);
        let r = Report::new(&a, ReportOptions::default());
        page.add(&r, &HtmlOptions { source: name.to_string(), ..HtmlOptions::default() });
    }
    let html = page.finish();
    let doc = parse(&html);
    let root = doc.root_element();
    let title = root.descendants().find(|n| n.has_tag_name("title")).unwrap();
    assert_eq!(title.text(), Some("xlayout: 3 modules"));
    // The list of modules links to each section; every id is unique and every link lands.
    let nav = root.descendants().find(|n| n.has_tag_name("nav")).unwrap();
    let targets: Vec<&str> = nav.descendants().filter_map(|n| n.attribute("href")).collect();
    assert_eq!(targets, ["#module", "#m1-module", "#m2-module"]);
    let mut ids: Vec<&str> = root.descendants().filter_map(|n| n.attribute("id")).collect();
    let all = ids.len();
    ids.sort_unstable();
    ids.dedup();
    assert_eq!(ids.len(), all, "duplicate ids");
    for href in root.descendants().filter_map(|n| n.attribute("href")) {
        assert!(ids.binary_search(&&href[1..]).is_ok(), "{href} goes nowhere");
    }
    assert_eq!(root.descendants().filter(|n| class(*n, "module")).count(), 3);
    assert!(ids.contains(&"m1-table-allocated") && ids.contains(&"m2-table-allocated"));
    assert_eq!(root.descendants().filter(|n| n.has_tag_name("script")).count(), 1);
}

#[test]
fn a_page_draws_a_bounded_number_of_maps() {
    use xlayout::draw::{HtmlPage, PAGE_MAPS};
    let mut page = HtmlPage::default();
    for k in 0..PAGE_MAPS + 8 {
        // Each module one padded buffer: f32[k+1] in tiles of 128.
        let text = format!("HloModule m{k}\n%p = f32[{}]{{0:T(128)}} parameter(0)\n", k + 1);
        let m = Module::parse(&text);
        let a = Analysis::new(&m);
        page.add(&Report::new(&a, ReportOptions::default()), &HtmlOptions::default());
    }
    let html = page.finish();
    parse(&html);
    assert_eq!(html.matches("<section class=\"map\"").count(), PAGE_MAPS);
    assert_eq!(html.matches("No maps for this module: the page has its 32.").count(), 8);
}

#[test]
fn layout_changes_have_a_section() {
    // tpu_train_step: a fused transpose that moves its padded rows, a copy to S(1) that
    // moves none: the rows of `xlayout relayouts`, the most bytes moved first.
    let html = page(&data("tpu_train_step.txt"), ReportOptions::default());
    let doc = parse(&html);
    let moved = doc.descendants().find(|n| class(*n, "moved")).unwrap();
    assert_eq!(moved.attribute("data-moved-bytes"), Some("13762560"));
    let table = by_id(&doc, "table-relayouts");
    let r = rows(table);
    assert_eq!(r.len(), 2);
    assert_eq!(&r[0][..4], ["13.12MiB", "no", "transpose.2 (fused)", "transpose"]);
    assert_eq!(r[0][7], "f32[16,40,1280]{1,2,0:T(8,128)}");
    assert_eq!(&r[1][..4], ["0B", "yes", "copy-start", "copy-start"]);
    assert_eq!(values(table, 0), [13762560, 0]);
}

/// Sums past 64 bits stop at 2^64 - 1; the totals table says they did, once, and a page of
/// ordinary sums says nothing of it.
#[test]
fn saturated_sums_are_said() {
    let html = page(&data("saturated.txt"), ReportOptions::default());
    let doc = parse(&html);
    let said: Vec<String> = doc
        .descendants()
        .filter(|n| n.has_tag_name("tr") && class(*n, "saturated"))
        .map(|n| n.descendants().filter(|t| t.is_text()).map(|t| t.text().unwrap()).collect())
        .collect();
    assert_eq!(
        said,
        ["saturatedsums here reached 2 − 1 bytes and stopped there: each is at least what it says, and its padding says nothing"
            .replace("2 − 1", "264 − 1")]
    );
    let ordinary = page(&data("tpu_train_step.txt"), ReportOptions::default());
    assert!(!ordinary.contains("class=\"saturated\""));
}

/// A notebook's page stays light: every JAX CPU program of the test data (the small ones
/// and the large: attention gradients of 789 MB, MLP steps of 4096-wide layers) gives a
/// page under 300 KB; its heading is the predicted allocation, and the timeline's tallest
/// temporaries column is the temporaries' peak the heading names, at the step it names.
#[test]
fn cpu_pages_are_light_and_their_timeline_adds_up() {
    use xlayout::hlo::Peak;
    let mut largest = 0;
    for (dir, p) in crate::support::every_jax_program() {
        let name = p["name"].as_str().unwrap();
        let bytes = crate::support::data(&format!("hlo/{dir}/{name}/after_optimizations.txt"));
        let (text, _) = decode(&bytes);
        let m = Module::parse(&text);
        let a = Analysis::new(&m);
        let peak = Peak::new(&a);
        let r = Report::new(&a, ReportOptions::default());
        let mut page = xlayout::draw::HtmlPage::default();
        page.add_with_peak(&r, Some(&peak), &HtmlOptions::default());
        let html = page.finish();
        assert!(html.len() < 300 << 10, "{name}: {} bytes", html.len());
        largest = largest.max(html.len());
        let doc = parse(&html);
        let heading = by_id(&doc, "allocation");
        let attribute = |k: &str| heading.attribute(k).unwrap().parse::<u64>().unwrap();
        assert_eq!(attribute("data-allocated-bytes"), peak.assignment.allocated_bytes);
        let steps: Vec<(u64, u64)> = doc
            .descendants()
            .filter(|n| class(*n, "step"))
            .map(|g| {
                let at = |k: &str| g.attribute(k).unwrap().parse::<u64>().unwrap();
                (at("data-step"), at("data-temporaries"))
            })
            .collect();
        let tallest = steps.iter().map(|s| s.1).max().unwrap_or(0);
        assert_eq!(tallest, attribute("data-temp-peak-bytes"), "{name}");
        if tallest > 0 {
            let first = steps.iter().find(|s| s.1 == tallest).unwrap().0;
            assert_eq!(first, attribute("data-temp-peak-step"), "{name}");
        }
    }
    eprintln!("largest page: {largest} bytes");
}
