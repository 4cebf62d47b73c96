//! The page's section on layout changes: every instruction that only moves elements
//! ([`Relayouts`]), the bytes it moves when it changes a layout, and the result layout that
//! would make it free, as `xlayout relayouts` lists them.

use std::fmt::Write;

use super::cells::bytes_cell;
use crate::draw::svg::escape;
use crate::hlo::{shown, Module, Relayouts};
use crate::memory::units::iec_bytes;

/// Rows of the table at most (the most bytes moved first); the rest are counted.
const MAX_ROWS: usize = 200;

/// Writes the section of module `m`; `p` prefixes its ids.
pub(super) fn relayouts_section(out: &mut String, m: &Module<'_>, p: &str) {
    let r = Relayouts::new(m);
    let _ = write!(
        out,
        "<h2 id=\"{p}relayouts\">Layout changes</h2><p>Instructions that only move elements \
         (copy, transpose, reshape, bitcast, copy-start; fusion bodies included): {} of {}, \
         keep every element where it was (tiles included); <span class=\"moved\" \
         data-moved-bytes=\"{}\">{}</span> moved to change layouts.</p>",
        r.free,
        r.rows.len(),
        r.moved_bytes,
        iec_bytes(r.moved_bytes)
    );
    if r.rows.is_empty() {
        return;
    }
    let _ = write!(
        out,
        "<div class=\"wide\"><table class=\"sortable\" id=\"{p}table-relayouts\"><thead><tr>\
         <th data-sort=\"num\">moved</th><th data-sort=\"text\">free</th>\
         <th data-sort=\"text\">instruction</th><th data-sort=\"text\">opcode</th>\
         <th data-sort=\"text\">computation</th><th data-sort=\"text\">from</th>\
         <th data-sort=\"text\">to</th><th data-sort=\"text\">free with</th>\
         <th data-sort=\"text\">why</th><th data-sort=\"num\">line</th></tr></thead><tbody>"
    );
    for row in r.rows.iter().take(MAX_ROWS) {
        let free = match row.bitcast {
            Some(true) => "yes",
            Some(false) => "no",
            None => "?",
        };
        let with = match (row.bitcast, &row.bitcast_layout) {
            (Some(false), Some(l)) => l.as_str(),
            _ => "",
        };
        let fused = if row.fused { " (fused)" } else { "" };
        let _ = write!(
            out,
            "<tr class=\"relayout\" data-bitcast=\"{free}\">{}<td>{free}</td><td class=\"name\">{}{fused}</td>\
             <td class=\"name\">{}</td><td class=\"name\">{}</td><td class=\"shape\">{}</td><td class=\"shape\">{}</td>\
             <td class=\"shape\">{}</td><td class=\"wrap\">{}</td><td class=\"num\" data-value=\"{}\">{}</td></tr>",
            bytes_cell(row.moved_bytes),
            escape(row.instruction),
            escape(row.opcode),
            escape(&shown(row.computation.map_or("-", |c| m.computations[c].name))),
            escape(row.from.as_deref().unwrap_or("-")),
            escape(row.to.as_deref().unwrap_or("-")),
            escape(with),
            escape(&row.reason),
            row.line,
            row.line
        );
    }
    out.push_str("</tbody></table></div>");
    if r.rows.len() > MAX_ROWS {
        let _ = write!(
            out,
            "<p class=\"note\">{} more, which move less: <code>xlayout relayouts</code> lists \
             them all.</p>",
            r.rows.len() - MAX_ROWS
        );
    }
}
