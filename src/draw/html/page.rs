//! The page around the sections: one stylesheet scoped to the report's own element (so that
//! the report looks the same in a page of its own and inside a notebook, whose stylesheet
//! it neither changes nor takes), the modules largest first with the small ones folded, and
//! the sorting script.

use std::fmt::Write;

use super::super::svg::{escape, DEFS, STYLE};
use super::HtmlPage;

/// The class of the element a report lives in; every rule of [`REPORT_STYLE`] is scoped to
/// it.
pub(super) const ROOT: &str = "xlayout-report";

/// The scope every rule of the report's stylesheet starts with: the root's class three
/// times, so that the rules outrank a notebook's own rules for rendered tables (JupyterLab's
/// `:not(.jp-RenderedMarkdown).jp-RenderedHTMLCommon td`, which right-aligns every cell, is
/// two classes and an element; the classic notebook's `.rendered_html td` one class)
/// wherever the notebook puts its stylesheet.
const SCOPE: &str = ".xlayout-report.xlayout-report.xlayout-report";

/// The report's stylesheet, before scoping: `&` is the report's element itself, any other
/// selector is scoped to its descendants. No `<` or `&` other than those `&`s, no `@` rule:
/// [`scoped`] reads it rule by rule, and the page is XML too. Text cells align left, numbers
/// right; a number never breaks; names, shapes and the free text of the `wrap` cells (a
/// source path, an `op_name`, why it pads) break anywhere past a width that keeps them
/// readable, so that a table fits a notebook's width rather than run off the page.
const REPORT_STYLE: &str = "\
&{font-family:system-ui,sans-serif;color:#111;background:#fff;line-height:1.35;\
max-width:100%;overflow-x:auto;text-align:left}\
h1,h2,h3{font-weight:bold;line-height:1.25;color:#111}\
h1{font-size:1.5em;margin:0.6em 0 0.3em 0}h2{font-size:1.2em;margin:1.6em 0 0.5em 0}\
h3{font-size:1em;margin:1em 0 0.4em 0}p{margin:0.5em 0}\
.about{color:#555}\
table{border-collapse:collapse;margin:0.5em 0;font-size:0.85em;table-layout:auto;width:auto;\
border:none;color:#111}\
th,td{border:1px solid #ccc;padding:2px 6px;text-align:left;vertical-align:top;\
line-height:1.3;white-space:normal;overflow-wrap:break-word;max-width:none;background:none}\
th{font-weight:bold}\
td.num{text-align:right;font-variant-numeric:tabular-nums;white-space:nowrap}\
td.shape{font-family:monospace;overflow-wrap:anywhere;min-width:10em}\
td.name{overflow-wrap:anywhere;min-width:6em}td.wrap{overflow-wrap:anywhere;min-width:5em}\
table.sortable thead th{cursor:pointer;background:#f2f2f2;user-select:none}\
table.sortable thead th[aria-sort=ascending]::after{content:' \\25B2'}\
table.sortable thead th[aria-sort=descending]::after{content:' \\25BC'}\
table.totals th{background:#f2f2f2}\
svg.defs{position:absolute}\
svg.bars rect.data{fill:#4e79a7}svg.bars rect.padding{fill:#e15759}\
svg.bars text{fill:#111}svg.bars .note{fill:#555}\
p.peak{font-size:1.1em}p.peak b{font-size:1.2em}\
svg.timeline,svg.lifetimes{max-width:100%;height:auto;display:block}\
svg.timeline rect.data,svg.lifetimes rect.data{fill:#4e79a7}\
svg.timeline rect.padding,svg.lifetimes rect.padding{fill:#e15759}\
svg.timeline g.step:hover rect,svg.lifetimes a:hover rect{fill-opacity:0.7}\
svg.timeline .peak-line,svg.lifetimes .peak-line{stroke:#111;stroke-width:1.5;stroke-dasharray:4 3}\
svg.timeline .axis{stroke:#888}svg.timeline text,svg.lifetimes text{fill:#111}\
svg.lifetimes rect.padded{stroke:#e15759;stroke-width:2}\
svg.timeline rect.arguments,svg.lifetimes rect.arguments{fill:#bab0ac}\
svg.timeline rect.outputs,svg.lifetimes rect.outputs{fill:#59a14f}\
svg.lifetimes rect.value{fill:#9cb3d1}p.allocated{font-size:1.1em}p.allocated b{font-size:1.2em}\
table.split td.share{color:#555}\
section.map .xlayout-map{max-width:none}\
section.map,div.wide{margin:1em 0;overflow-x:auto}\
details.module{margin:0.4em 0}details.module>summary{cursor:pointer;font-size:1.05em}\
details.module>summary .size{color:#555}nav li .size{color:#555}";

/// `rules` with every selector scoped to the report's element ([`SCOPE`]).
///
/// ```text
/// scoped("&{a:b}td,th.x{c:d}") == ".s{a:b}.s td,.s th.x{c:d}"   (with .s for SCOPE)
/// ```
pub(super) fn scoped(rules: &str) -> String {
    let mut out = String::with_capacity(rules.len() * 2);
    for rule in rules.split_inclusive('}') {
        let Some((selectors, body)) = rule.split_once('{') else {
            out.push_str(rule);
            continue;
        };
        for (k, selector) in selectors.split(',').enumerate() {
            if k > 0 {
                out.push(',');
            }
            match selector.strip_prefix('&') {
                Some(rest) => {
                    out.push_str(SCOPE);
                    out.push_str(rest);
                }
                None => {
                    out.push_str(SCOPE);
                    out.push(' ');
                    out.push_str(selector);
                }
            }
        }
        out.push('{');
        out.push_str(body);
    }
    out
}

/// The element a report's HTML lives in, its stylesheet (and the maps' and the hatch
/// pattern they draw padding with) first: the opening of every fragment.
pub(super) fn open_root(out: &mut String) {
    let _ = write!(
        out,
        "<div class=\"{ROOT}\"><style>{}{STYLE}</style>\
         <svg xmlns=\"http://www.w3.org/2000/svg\" width=\"0\" height=\"0\" class=\"defs\">{DEFS}</svg>",
        scoped(REPORT_STYLE)
    );
}

/// The close of every fragment: the note on sizes, the sorting script, the element's end.
pub(super) fn close_root(out: &mut String) {
    let _ = write!(
        out,
        "<p class=\"about\">Made by xlayout {}. Sizes are XLA's ShapeUtil::ArraySize; data is \
         the elements at their natural width; padding is the difference.</p>\
         <script>//<![CDATA[\n{SCRIPT}\n//]]></script></div>",
        env!("CARGO_PKG_VERSION")
    );
}

impl HtmlPage {
    /// The page as a fragment of HTML for a page that is not its own (a notebook's output:
    /// what `_repr_html_` of the Python package's reports gives): one `<div
    /// class="xlayout-report">` holding its stylesheet, scoped to that element so that it
    /// neither restyles the notebook nor is restyled by it, its sections and its script.
    ///
    /// ```
    /// use xlayout::draw::HtmlPage;
    /// use xlayout::hlo::{Analysis, Module, Report, ReportOptions};
    /// let m = Module::parse("HloModule m\n%p = f32[10]{0:T(128)} parameter(0)\n");
    /// let a = Analysis::new(&m);
    /// let mut page = HtmlPage::default();
    /// page.add(&Report::new(&a, ReportOptions::default()), &Default::default());
    /// let html = page.fragment();
    /// assert!(html.starts_with("<div class=\"xlayout-report\"><style>") && html.ends_with("</div>"));
    /// assert!(!html.contains("<body") && !html.contains("}body{") && !html.contains("}td{"));
    /// ```
    pub fn fragment(&self) -> String {
        let size = self.sections.iter().map(|s| s.html.len()).sum::<usize>();
        let mut out = String::with_capacity(size + 16384);
        open_root(&mut out);
        let order = self.order();
        if self.sections.len() != 1 {
            let first = if self.largest_first { ", largest first" } else { "" };
            let _ = write!(out, "<nav><h1>{} modules{first}</h1><ol>", self.sections.len());
            for &k in &order {
                let s = &self.sections[k];
                let _ = write!(
                    out,
                    "<li><a href=\"#{}\">{}</a> <span class=\"size\">{}</span></li>",
                    s.anchor,
                    escape(&s.name),
                    escape(&s.size)
                );
            }
            out.push_str("</ol></nav>");
        }
        for (rank, &k) in order.iter().enumerate() {
            let s = &self.sections[k];
            if self.largest_first && self.sections.len() > 1 {
                // The largest open, the others folded under their name and size.
                let open = if rank == 0 { " open=\"open\"" } else { "" };
                let _ = write!(
                    out,
                    "<details class=\"module\" id=\"{}\"{open}><summary><b>{}</b> \
                     <span class=\"size\">{}</span></summary>{}</details>",
                    s.anchor,
                    escape(&s.name),
                    escape(&s.size),
                    s.html
                );
            } else {
                out.push_str(&s.html);
            }
        }
        close_root(&mut out);
        out
    }

    /// The order the sections are shown in: as added, or largest first (a stable order:
    /// modules of one size keep the order they were added in).
    fn order(&self) -> Vec<usize> {
        let mut order: Vec<usize> = (0..self.sections.len()).collect();
        if self.largest_first {
            order.sort_by_key(|&k| std::cmp::Reverse(self.sections[k].bytes));
        }
        order
    }

    /// The page: a whole HTML document (what `xlayout hlo --html` writes), its body the
    /// [`fragment`](HtmlPage::fragment).
    pub fn finish(self) -> String {
        let title = match &self.sections[..] {
            [s] => s.name.clone(),
            all => format!("{} modules", all.len()),
        };
        let fragment = self.fragment();
        let mut out = String::with_capacity(fragment.len() + 512);
        let _ = write!(
            out,
            "<!DOCTYPE html>\n<html xmlns=\"http://www.w3.org/1999/xhtml\" lang=\"en\"><head>\
             <meta charset=\"utf-8\"/><title>xlayout: {}</title>\
             <style>body{{margin:1.5em;background:#fff}}</style></head><body>{fragment}</body></html>\n",
            escape(&title)
        );
        out
    }
}

/// Sorting: a click on a header of a `sortable` table orders its body rows by that column
/// (numbers by their `data-value`, text by its content), descending first for numbers;
/// a second click reverses. Each table is made sortable once, however many reports a page
/// (a notebook) holds, each with this script. No `<` or `&` and no `]]>`: it sits in a
/// CDATA section.
pub(super) const SCRIPT: &str = r#"(function () {
  function key(cell, numeric) {
    if (!cell) { return numeric ? -Infinity : ''; }
    if (numeric) {
      var v = cell.getAttribute('data-value');
      return v === null ? -Infinity : Number(v);
    }
    return cell.textContent;
  }
  function compare(x, y) { return x > y ? 1 : (y > x ? -1 : 0); }
  var tables = document.querySelectorAll('table.sortable:not([data-sortable])');
  Array.prototype.forEach.call(tables, function (table) {
    var heads = table.querySelectorAll('thead th');
    Array.prototype.forEach.call(heads, function (th, col) {
      th.setAttribute('title', 'sort by this column');
      th.addEventListener('click', function () {
        var numeric = th.getAttribute('data-sort') === 'num';
        var now = th.getAttribute('aria-sort');
        var descending = now ? now === 'ascending' : numeric;
        var body = table.tBodies[0];
        var rows = Array.prototype.slice.call(body.rows);
        rows.sort(function (a, b) {
          var c = compare(key(a.cells[col], numeric), key(b.cells[col], numeric));
          return descending ? -c : c;
        });
        rows.forEach(function (row) { body.appendChild(row); });
        Array.prototype.forEach.call(heads, function (h) { h.removeAttribute('aria-sort'); });
        th.setAttribute('aria-sort', descending ? 'descending' : 'ascending');
      });
    });
    table.setAttribute('data-sortable', 'ready');
  });
})();"#;

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_rule_is_scoped() {
        assert_eq!(
            scoped("&{a:b}td,th.x{c:d}"),
            format!("{SCOPE}{{a:b}}{SCOPE} td,{SCOPE} th.x{{c:d}}")
        );
        let style = scoped(REPORT_STYLE);
        for rule in style.split_inclusive('}') {
            let selectors = rule.split_once('{').unwrap().0;
            for s in selectors.split(',') {
                assert!(s.starts_with(SCOPE), "{s} is not scoped");
            }
        }
        // XML: no `<`, and `&` only as the scope's placeholder, gone after scoping.
        assert!(!style.contains('<') && !style.contains('&'));
    }
}
