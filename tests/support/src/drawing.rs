//! Reading the SVG maps back: an XML parser, then the cells, frames and notes of each panel
//! from the attributes the drawing gives them (`data-index`, `data-offset`, the panel's
//! cell size), so tests assert structure, not bytes.

use std::collections::{BTreeMap, BTreeSet};

use xlayout::draw::{map_svg, MapOptions};
use xlayout::Shape;

/// One drawn cell.
#[derive(Debug, Clone)]
pub struct Cell {
    pub index: Option<String>,
    pub offset: usize,
    pub pad: bool,
    pub text: Option<String>,
    /// The fill of its rectangle: the tile's colour, or grey for the `L` tail.
    pub fill: String,
    /// A memory position outside the logical panel's window, drawn faded.
    pub outside: bool,
}

/// A panel: its geometry attributes, cells in drawing order and frame segments per level.
pub struct Panel {
    pub rows: usize,
    pub cols: usize,
    pub cells: Vec<Cell>,
    /// Level -> segments in cell units: (vertical?, fixed line, from, to).
    pub frames: Vec<BTreeSet<(bool, usize, usize, usize)>>,
    /// Whether the outer edge is drawn as a first-level frame.
    pub closed: bool,
    /// The dashed lines where rows or columns are left out, in cell units as `frames`.
    pub gaps: BTreeSet<(bool, usize, usize, usize)>,
    pub notes: Vec<String>,
}

pub struct Map {
    pub title: String,
    /// The natural size (the `width` and `height` attributes, equal to the `viewBox`'s).
    pub size: (usize, usize),
    /// Whether the memory panel is beside the logical one (else under it).
    pub beside: bool,
    /// One cell per tile (else one per element).
    pub tiles: bool,
    pub logical: Panel,
    pub memory: Panel,
    pub text: String,
}

pub fn attr(n: roxmltree::Node, name: &str) -> usize {
    n.attribute(name).unwrap_or_else(|| panic!("no {name}")).parse().unwrap()
}

pub fn has_class(n: roxmltree::Node, class: &str) -> bool {
    n.attribute("class").is_some_and(|c| c.split(' ').any(|x| x == class))
}

/// `M x,y V y2` / `M x,y H x2` pieces of a frame path, in cell units.
fn segments(
    d: &str,
    left: usize,
    top: usize,
    cw: usize,
    ch: usize,
) -> Vec<(bool, usize, usize, usize)> {
    let mut out = Vec::new();
    for piece in d.split('M').filter(|p| !p.is_empty()) {
        let (start, vertical) = match piece.find('V') {
            Some(i) => (i, true),
            None => (piece.find('H').expect("V or H"), false),
        };
        let (x, y) = piece[..start].split_once(',').unwrap();
        let (x, y): (usize, usize) = (x.parse().unwrap(), y.parse().unwrap());
        let end: usize = piece[start + 1..].parse().unwrap();
        let (cx, cy) = ((x - left) / cw, (y - top) / ch);
        assert_eq!(
            ((x - left) % cw, (y - top) % ch),
            (0, 0),
            "frames run along cell edges: {piece}"
        );
        out.push(if vertical {
            (true, cx, cy, (end - top) / ch)
        } else {
            (false, cy, cx, (end - left) / cw)
        });
    }
    out
}

pub fn panel(svg: roxmltree::Node, class: &str) -> Panel {
    let p = svg
        .descendants()
        .find(|n| has_class(*n, "panel") && has_class(*n, class))
        .unwrap_or_else(|| panic!("no {class} panel"));
    let (cw, ch, left, top) = (
        attr(p, "data-cell-width"),
        attr(p, "data-cell-height"),
        attr(p, "data-left"),
        attr(p, "data-top"),
    );
    let cells = p
        .children()
        .filter(|n| has_class(*n, "cell"))
        .map(|g| Cell {
            index: g.attribute("data-index").map(str::to_string),
            offset: attr(g, "data-offset"),
            pad: has_class(g, "pad"),
            outside: has_class(g, "outside"),
            fill: g
                .children()
                .find(|r| r.has_tag_name("rect"))
                .and_then(|r| r.attribute("fill"))
                .expect("a cell's rectangle has a fill")
                .to_string(),
            text: g
                .children()
                .find(|t| t.has_tag_name("text"))
                .and_then(|t| t.text())
                .map(str::to_string),
        })
        .collect();
    let mut frames: Vec<BTreeSet<_>> = Vec::new();
    let mut closed = false;
    for path in p.children().filter(|n| has_class(*n, "frame")) {
        if has_class(path, "edge") {
            closed = true;
            continue;
        }
        let level: usize = path
            .attribute("class")
            .unwrap()
            .split(' ')
            .find_map(|c| c.strip_prefix("level"))
            .unwrap()
            .parse()
            .unwrap();
        if frames.len() <= level {
            frames.resize(level + 1, BTreeSet::new());
        }
        frames[level].extend(segments(path.attribute("d").unwrap(), left, top, cw, ch));
    }
    let gaps = p
        .children()
        .filter(|n| has_class(*n, "gap"))
        .flat_map(|n| segments(n.attribute("d").unwrap(), left, top, cw, ch))
        .collect();
    let notes = p
        .children()
        .filter(|n| has_class(*n, "note"))
        .map(|n| n.text().unwrap_or("").to_string())
        .collect();
    let (rows, cols) = (attr(p, "data-rows"), attr(p, "data-cols"));
    Panel { rows, cols, cells, frames, closed, gaps, notes }
}

/// The map of `shape`, read back.
pub fn map(shape: &str, options: &MapOptions) -> Map {
    let s: Shape = shape.parse().unwrap();
    read(&map_svg(s.try_array().unwrap(), options).unwrap())
}

/// An SVG map's text, parsed (it must be well-formed XML in the SVG namespace) and read.
pub fn read(text: &str) -> Map {
    let doc = roxmltree::Document::parse(text).unwrap_or_else(|e| panic!("not XML: {e}"));
    let svg = doc.root_element();
    assert_eq!(svg.tag_name().name(), "svg");
    assert_eq!(svg.tag_name().namespace(), Some("http://www.w3.org/2000/svg"));
    let title =
        svg.children().find(|n| n.has_tag_name("title")).unwrap().text().unwrap().to_string();
    let (logical, memory) = (panel(svg, "logical"), panel(svg, "memory"));
    let tiles = svg.attribute("data-mode") == Some("tiles");
    let size = (attr(svg, "width"), attr(svg, "height"));
    assert_eq!(svg.attribute("viewBox"), Some(format!("0 0 {} {}", size.0, size.1).as_str()));
    let beside = match svg.attribute("data-panels") {
        Some("beside") => true,
        Some("stacked") => false,
        other => panic!("data-panels is {other:?}"),
    };
    Map { title, size, beside, tiles, logical, memory, text: text.to_string() }
}

/// What is wrong with the colours of a map whose first-level tiles each take `span`
/// consecutive positions of memory (`usize::MAX` for an untiled layout): a tile drawn in two
/// colours, or tiles `k` and `k + 1`, next to each other in memory, in the same one. A cell's
/// tile is its offset divided by `span`; the grey `L` tail is no tile.
pub fn colour_clashes(m: &Map, span: usize) -> Vec<String> {
    let mut problems = Vec::new();
    let mut fill: BTreeMap<usize, &str> = BTreeMap::new();
    for c in m.logical.cells.iter().chain(&m.memory.cells) {
        if c.pad && c.fill == "#e0e0e0" {
            continue;
        }
        let tile = c.offset / span.max(1);
        let first = *fill.entry(tile).or_insert(&c.fill);
        if first != c.fill {
            problems.push(format!("tile {tile} is drawn {first} and {}", c.fill));
        }
    }
    for (&tile, colour) in &fill {
        if fill.get(&(tile + 1)) == Some(colour) {
            problems.push(format!("tiles {tile} and {} are both {colour}", tile + 1));
        }
    }
    problems
}
