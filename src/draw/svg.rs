//! Writing SVG and HTML text: escaping, and the panel of cells both map panels are drawn as.

use alloc::collections::BTreeMap;
use alloc::string::String;
use alloc::vec::Vec;
use core::fmt::Write;

/// `text` made safe as XML or HTML element content and as a quoted attribute value (either
/// quote): `&`, `<`, `>`, `"` and `'` become character references, and the characters XML 1.0
/// does not allow at all (most C0 controls, U+FFFE, U+FFFF) become U+FFFD, so that text from
/// an untrusted dump can neither open markup nor make the document unreadable.
///
/// ```
/// use xlayout::draw::escape;
/// assert_eq!(escape(r#"<script>alert("x's")</script>"#),
///            "&lt;script&gt;alert(&quot;x&#39;s&quot;)&lt;/script&gt;");
/// assert_eq!(escape("a\u{0}b & c"), "a\u{fffd}b &amp; c");
/// ```
pub fn escape(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for ch in text.chars() {
        match ch {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' => out.push_str("&quot;"),
            '\'' => out.push_str("&#39;"),
            '\t' | '\n' | '\r' => out.push(ch),
            c if (c as u32) < 0x20 || c == '\u{fffe}' || c == '\u{ffff}' => out.push('\u{fffd}'),
            c => out.push(c),
        }
    }
    out
}

/// Height of a cell, in pixels.
pub(crate) const CELL_HEIGHT: usize = 18;
/// Width of a character of the 11px monospace font, rounded up, in pixels.
const CHAR_WIDTH: usize = 7;
/// Cells never get wider than this; longer labels are left out (the tooltip keeps them).
const MAX_CELL_WIDTH: usize = 120;
/// Tile colours: light enough for black text, distinct from the padding grey.
const PALETTE: [&str; 8] =
    ["#cfe2ff", "#ffe0b3", "#d4edda", "#f8d7da", "#e2d9f3", "#fff3bf", "#d0f0f0", "#f3d9ec"];
/// Space above the cells of a panel: heading, axis title, column labels.
const PANEL_TOP: usize = 52;
/// Height of a note line under a panel.
const NOTE_HEIGHT: usize = 16;

/// What a cell holds.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Kind {
    /// An element of the array (or a tile, in the tiles mode).
    Data,
    /// A padding position of the index space.
    Padding,
    /// A position after the index space, added by `L(n)`.
    Tail,
}

/// One cell of a panel.
pub(crate) struct Cell {
    /// The element offset the cell stands for (the first one, for a tile).
    pub offset: usize,
    pub kind: Kind,
    /// The logical index text (`2,3`), when the cell has one.
    pub index: Option<String>,
    /// What the cell shows.
    pub label: String,
    /// A tile that reaches past the array (drawn hatched over its colour).
    pub partial: bool,
    /// The tooltip, shown when the label does not fit or is empty.
    pub tooltip: String,
    /// A memory position the logical panel's window does not show, drawn faded.
    pub outside: bool,
}

impl Cell {
    /// A cell that is no partial tile and not outside the window.
    pub fn new(
        offset: usize,
        kind: Kind,
        index: Option<String>,
        label: String,
        tooltip: String,
    ) -> Cell {
        Cell { offset, kind, index, label, partial: false, tooltip, outside: false }
    }
}

/// Where a panel leaves rows or columns out: the panel rows (columns) that do not follow
/// the one before them, a dashed line drawn above (left of) each.
#[derive(Default)]
pub(crate) struct Gaps {
    pub rows: Vec<usize>,
    pub cols: Vec<usize>,
}

impl Gaps {
    /// The gaps of a panel that shows the rows `rows` and columns `cols` of a larger grid
    /// (each increasing).
    pub fn between(rows: &[usize], cols: &[usize]) -> Gaps {
        let jumps =
            |v: &[usize]| (1..v.len()).filter(|&i| v[i] != v[i - 1] + 1).collect::<Vec<_>>();
        Gaps { rows: jumps(rows), cols: jumps(cols) }
    }
}

/// A grid of cells with its labels; cells are in row-major order, the last row may be short.
pub(crate) struct Panel {
    /// CSS class of the panel: `logical` or `memory`.
    pub class: &'static str,
    pub heading: String,
    /// What the rows and columns are, on one line under the heading.
    pub axes: String,
    pub col_labels: Vec<String>,
    pub row_labels: Vec<String>,
    pub cols: usize,
    pub cells: Vec<Cell>,
    /// For each tile level to frame, the elements of memory one tile spans.
    pub frames: Vec<usize>,
    /// The span that colours a cell: cells whose offsets fall in the same run share a colour.
    pub colour_span: usize,
    /// Whether the panel's edge is a tile boundary (it shows whole tiles): the border is then
    /// drawn as a first-level frame.
    pub closed: bool,
    pub gaps: Gaps,
    pub notes: Vec<String>,
}

impl Panel {
    fn rows(&self) -> usize {
        self.cells.len().div_ceil(self.cols.max(1))
    }

    fn cell_width(&self) -> usize {
        let longest = self
            .cells
            .iter()
            .map(|c| c.label.chars().count())
            .chain(self.col_labels.iter().map(|l| l.chars().count().min(4)))
            .max()
            .unwrap_or(1);
        (longest * CHAR_WIDTH + 8).clamp(22, MAX_CELL_WIDTH)
    }

    fn gutter(&self) -> usize {
        let longest = self.row_labels.iter().map(|l| l.chars().count()).max().unwrap_or(0);
        longest * CHAR_WIDTH + 8
    }

    /// Width and height of the drawn panel.
    pub fn size(&self) -> (usize, usize) {
        let width = (self.gutter() + self.cols * self.cell_width())
            .max(self.heading.chars().count() * CHAR_WIDTH)
            .max(self.axes.chars().count() * CHAR_WIDTH)
            .max(self.notes.iter().map(|n| n.chars().count() * CHAR_WIDTH).max().unwrap_or(0));
        let height = PANEL_TOP + self.rows() * CELL_HEIGHT + 6 + self.notes.len() * NOTE_HEIGHT;
        (width, height)
    }

    /// Appends the panel to `out`, its top-left corner at (`x`, `y`), tile colours from
    /// `colours` (shared between panels so a tile has one colour in both).
    pub fn write(&self, out: &mut String, x: usize, y: usize, colours: &mut Colours) {
        let (cw, ch, gutter) = (self.cell_width(), CELL_HEIGHT, self.gutter());
        let rows = self.rows();
        let _ = write!(
            out,
            r#"<g class="panel {}" transform="translate({x},{y})" data-rows="{rows}" data-cols="{}" data-cell-width="{cw}" data-cell-height="{ch}" data-left="{gutter}" data-top="{PANEL_TOP}">"#,
            self.class, self.cols,
        );
        let _ = write!(
            out,
            r#"<text class="heading" x="0" y="14">{}</text><text class="axis" x="0" y="30">{}</text>"#,
            escape(&self.heading),
            escape(&self.axes)
        );
        // Column labels, thinned out to every k-th column when they would overlap.
        let widest = self.col_labels.iter().map(|l| l.chars().count()).max().unwrap_or(0);
        let every = (widest * CHAR_WIDTH + 4).div_ceil(cw).max(1);
        for (c, label) in self.col_labels.iter().enumerate().step_by(every) {
            let _ = write!(
                out,
                r#"<text class="tick" x="{}" y="{}" text-anchor="middle">{}</text>"#,
                gutter + c * cw + cw / 2,
                PANEL_TOP - 6,
                escape(label)
            );
        }
        for (r, label) in self.row_labels.iter().enumerate() {
            let _ = write!(
                out,
                r#"<text class="tick" x="{}" y="{}" text-anchor="end">{}</text>"#,
                gutter - 4,
                PANEL_TOP + r * ch + ch / 2 + 4,
                escape(label)
            );
        }
        let cols = self.cols.max(1);
        let key = |c: &Cell| (c.kind != Kind::Tail).then(|| c.offset / self.colour_span.max(1));
        for (i, cell) in self.cells.iter().enumerate() {
            let (r, c) = (i / cols, i % cols);
            let near = |dr: usize, dc: isize| -> Option<usize> {
                let rr = r.checked_sub(dr)?;
                let cc = c.checked_add_signed(dc).filter(|&cc| cc < cols)?;
                key(self.cells.get(rr * cols + cc)?)
            };
            let fill = match key(cell) {
                Some(k) => {
                    let colour =
                        colours.pick(k, &[near(0, -1), near(1, -1), near(1, 0), near(1, 1)]);
                    PALETTE[colour]
                }
                None => "#e0e0e0",
            };
            let (cx, cy) = (gutter + c * cw, PANEL_TOP + r * ch);
            let class = match (cell.kind, cell.partial) {
                (Kind::Data, false) => "cell",
                (Kind::Data, true) => "cell partial",
                (Kind::Padding, _) => "cell pad",
                (Kind::Tail, _) => "cell pad tail",
            };
            let outside = if cell.outside { " outside" } else { "" };
            let _ = write!(out, r#"<g class="{class}{outside}""#);
            if let Some(index) = &cell.index {
                let _ = write!(out, r#" data-index="{}""#, escape(index));
            }
            let _ = write!(
                out,
                r#" data-offset="{}"><rect x="{cx}" y="{cy}" width="{cw}" height="{ch}" fill="{fill}"/>"#,
                cell.offset
            );
            if cell.kind != Kind::Data || cell.partial {
                let _ = write!(
                    out,
                    r#"<rect class="hatch" x="{cx}" y="{cy}" width="{cw}" height="{ch}"/>"#
                );
            }
            let fits = cell.label.chars().count() * CHAR_WIDTH + 4 <= cw;
            if !cell.label.is_empty() && fits {
                let _ = write!(
                    out,
                    r#"<text x="{}" y="{}">{}</text>"#,
                    cx + cw / 2,
                    cy + ch / 2 + 4,
                    escape(&cell.label)
                );
            }
            // The label and the axes say it all when the label fits; a tooltip otherwise.
            if !fits || cell.label.is_empty() {
                let _ = write!(out, "<title>{}</title>", escape(&cell.tooltip));
            }
            out.push_str("</g>");
        }
        for (level, &span) in self.frames.iter().enumerate() {
            let block = |c: &Cell| match c.kind {
                Kind::Tail => usize::MAX,
                _ => c.offset / span.max(1),
            };
            let d = frame_path(&self.cells, cols, cw, ch, gutter, PANEL_TOP, block);
            if !d.is_empty() {
                let deep = if level >= 2 { " deep" } else { "" };
                let _ = write!(out, r#"<path class="frame level{level}{deep}" d="{d}"/>"#);
            }
        }
        let (width, height) = (cols * cw, rows * ch);
        let mut d = String::new();
        for &r in &self.gaps.rows {
            let _ = write!(d, "M{gutter},{}H{}", PANEL_TOP + r * ch, gutter + width);
        }
        for &c in &self.gaps.cols {
            let _ = write!(d, "M{},{PANEL_TOP}V{}", gutter + c * cw, PANEL_TOP + height);
        }
        if !d.is_empty() {
            let _ = write!(out, r#"<path class="gap" d="{d}"/>"#);
        }
        if !self.cells.is_empty() {
            let (full, last) = (self.cells.len() / cols, self.cells.len() % cols);
            let class = if self.closed { "frame level0 edge" } else { "border" };
            let _ = write!(out, r#"<path class="{class}" d="M{gutter},{PANEL_TOP}h{}"#, cols * cw);
            let bottom = PANEL_TOP + full * ch;
            if last == 0 {
                let _ = write!(out, "V{bottom}H{gutter}Z\"/>");
            } else {
                let _ = write!(out, "V{bottom}H{}v{ch}H{gutter}Z\"/>", gutter + last * cw);
            }
        }
        for (k, note) in self.notes.iter().enumerate() {
            let _ = write!(
                out,
                r#"<text class="note" x="0" y="{}">{}</text>"#,
                PANEL_TOP + rows * ch + 6 + (k + 1) * NOTE_HEIGHT - 4,
                escape(note)
            );
        }
        out.push_str("</g>");
    }
}

/// The SVG path of the lines between neighbouring cells whose `block` differs, collinear
/// pieces joined: `M x,y V y2` for vertical runs, `M x,y H x2` for horizontal ones.
fn frame_path(
    cells: &[Cell],
    cols: usize,
    cw: usize,
    ch: usize,
    left: usize,
    top: usize,
    block: impl Fn(&Cell) -> usize,
) -> String {
    let rows = cells.len().div_ceil(cols);
    let at = |r: usize, c: usize| cells.get(r * cols + c).filter(|_| c < cols).map(&block);
    let mut d = String::new();
    // Vertical lines: between column c and c + 1.
    for c in 0..cols.saturating_sub(1) {
        let mut start = None;
        for r in 0..=rows {
            let split =
                r < rows && matches!((at(r, c), at(r, c + 1)), (Some(a), Some(b)) if a != b);
            match (split, start) {
                (true, None) => start = Some(r),
                (false, Some(s)) => {
                    let _ = write!(d, "M{},{}V{}", left + (c + 1) * cw, top + s * ch, top + r * ch);
                    start = None;
                }
                _ => {}
            }
        }
    }
    // Horizontal lines: between row r and r + 1.
    for r in 0..rows.saturating_sub(1) {
        let mut start = None;
        for c in 0..=cols {
            let split =
                c < cols && matches!((at(r, c), at(r + 1, c)), (Some(a), Some(b)) if a != b);
            match (split, start) {
                (true, None) => start = Some(c),
                (false, Some(s)) => {
                    let _ =
                        write!(d, "M{},{}H{}", left + s * cw, top + (r + 1) * ch, left + c * cw);
                    start = None;
                }
                _ => {}
            }
        }
    }
    d
}

/// Tile colours, picked greedily so that no tile shares its colour with the tiles before and
/// after it in memory nor with a tile drawn next to it (left, above, diagonally above), and
/// kept per tile across panels. A tile is its number in memory order (its cells' offset
/// divided by the panel's colour span); whichever of two neighbours in memory is drawn
/// second avoids the first's colour, and with 8 colours for at most 6 neighbours one is
/// always free.
#[derive(Default)]
pub(crate) struct Colours {
    chosen: BTreeMap<usize, usize>,
}

impl Colours {
    fn pick(&mut self, key: usize, neighbours: &[Option<usize>]) -> usize {
        if let Some(&c) = self.chosen.get(&key) {
            return c;
        }
        let in_memory = [key.checked_sub(1), key.checked_add(1)];
        let taken: Vec<usize> = neighbours
            .iter()
            .chain(&in_memory)
            .flatten()
            .filter(|&&n| n != key)
            .filter_map(|n| self.chosen.get(n).copied())
            .collect();
        let colour = (0..PALETTE.len()).find(|c| !taken.contains(c)).unwrap_or(0);
        self.chosen.insert(key, colour);
        colour
    }
}

/// The style sheet of a map: its size (natural, or scaled down to the page's width with its
/// proportions kept), cell text, hatching, frames per tile level. Every rule is scoped to
/// `.xlayout-map` (the class of a map's root), so maps placed inside an HTML page style only
/// themselves.
pub(crate) const STYLE: &str = "\
.xlayout-map{max-width:100%;height:auto}\
.xlayout-map text{fill:#111}\
.xlayout-map .title{font-size:14px;font-weight:bold}\
.xlayout-map .heading{font-weight:bold}\
.xlayout-map .axis{fill:#333}\
.xlayout-map .tick{fill:#666;font-size:9px}\
.xlayout-map .note{fill:#a33}\
.xlayout-map .cell rect{stroke:#fff;stroke-width:1}\
.xlayout-map .cell text{text-anchor:middle}\
.xlayout-map .cell.pad text{fill:#777}\
.xlayout-map .hatch{fill:url(#xlayout-hatch)}\
.xlayout-map .frame{fill:none;stroke:#222;stroke-linecap:square}\
.xlayout-map .level0{stroke-width:2.5}\
.xlayout-map .level1{stroke-width:1.25;stroke:#444}\
.xlayout-map .deep{stroke-width:0.75;stroke:#555;stroke-dasharray:3 2}\
.xlayout-map .border{fill:none;stroke:#888;stroke-width:1}\
.xlayout-map .outside{opacity:0.35}\
.xlayout-map .gap{fill:none;stroke:#a33;stroke-width:1.5;stroke-dasharray:4 3}";

/// The hatch pattern padding cells are drawn with.
pub(crate) const DEFS: &str = r##"<defs><pattern id="xlayout-hatch" width="6" height="6" patternUnits="userSpaceOnUse" patternTransform="rotate(45)"><rect width="6" height="6" fill="#ffffff" fill-opacity="0.45"/><line x1="0" y1="0" x2="0" y2="6" stroke="#888" stroke-width="2"/></pattern></defs>"##;
