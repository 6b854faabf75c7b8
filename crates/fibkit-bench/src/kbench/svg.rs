//! A standalone SVG rendering of the kbench histogram.

use std::fmt::Write as _;

use super::{bar_columns, percentile, Histogram, HIST_WIDTH};

/// Pixels per histogram column.
const COL: usize = 10;
/// Height of a row, in pixels.
const ROW: usize = 20;
/// Left margin holding the bucket values.
const LEFT: usize = 90;
/// Right margin holding the counts.
const RIGHT: usize = 90;
/// Space above the first row (title and column header).
const TOP: usize = 56;
/// Space below the last row (footer).
const BOTTOM: usize = 36;

/// Escapes text for an SVG text node or attribute.
fn escape(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for c in text.chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' => out.push_str("&quot;"),
            '\'' => out.push_str("&apos;"),
            c => out.push(c),
        }
    }
    out
}

/// A standalone SVG picture of the kbench histogram of samples sorted ascending.
///
/// It draws the same rows as [`super::histogram`], one horizontal bar per bucket: the dark
/// part is the bucket's share (`count·50/n` columns), the light part extends it to the
/// running total, and a dashed line marks the 50 % column, so it crosses the median's row.
/// Bucket values are on the left, counts on the right, `title` on top, and the sample
/// count, median, 95th percentile, bucket width and a legend below. With no sample, the picture says
/// `no match`. The output is deterministic (no time stamp, no random ids).
pub fn svg_histogram(sorted: &[u64], title: &str) -> String {
    let hist = Histogram::from_sorted(sorted);
    let rows = hist.as_ref().map_or(1, |h| h.buckets.len());
    let width = LEFT + HIST_WIDTH * COL + RIGHT;
    let height = TOP + rows * ROW + BOTTOM;
    let title = escape(title);

    let mut out = String::new();
    // Writing into a String cannot fail.
    let _ = writeln!(
        out,
        r#"<svg xmlns="http://www.w3.org/2000/svg" width="{width}" height="{height}" viewBox="0 0 {width} {height}" font-family="monospace" font-size="12">"#
    );
    let _ = writeln!(out, "<title>{title}</title>");
    let _ = writeln!(
        out,
        r##"<rect x="0" y="0" width="{width}" height="{height}" fill="#ffffff"/>"##
    );
    let _ = writeln!(
        out,
        r#"<text x="{}" y="20" text-anchor="middle" font-size="14" font-weight="bold">{title}</text>"#,
        width / 2
    );

    let Some(hist) = hist else {
        let _ = writeln!(
            out,
            r#"<text x="{}" y="{}" text-anchor="middle">no match</text>"#,
            width / 2,
            TOP + ROW / 2
        );
        out.push_str("</svg>\n");
        return out;
    };

    let header_y = TOP - 8;
    let _ = writeln!(
        out,
        r#"<text x="{}" y="{header_y}" text-anchor="end">value</text>"#,
        LEFT - 8
    );
    let _ = writeln!(
        out,
        r#"<text x="{}" y="{header_y}" text-anchor="end">count</text>"#,
        width - 8
    );
    for (row, bucket) in hist.buckets.iter().enumerate() {
        let y = TOP + row * ROW;
        let (dark, light) = bar_columns(bucket, hist.total);
        let text_y = y + ROW / 2 + 4;
        let _ = writeln!(
            out,
            r#"<text x="{}" y="{text_y}" text-anchor="end">{}</text>"#,
            LEFT - 8,
            bucket.start
        );
        if dark > 0 {
            let _ = writeln!(
                out,
                r##"<rect x="{LEFT}" y="{}" width="{}" height="{}" fill="#4a5a78"/>"##,
                y + 2,
                dark * COL,
                ROW - 4
            );
        }
        if light > 0 {
            let _ = writeln!(
                out,
                r##"<rect x="{}" y="{}" width="{}" height="{}" fill="#c3cbdb"/>"##,
                LEFT + dark * COL,
                y + 2,
                light * COL,
                ROW - 4
            );
        }
        let _ = writeln!(
            out,
            r#"<text x="{}" y="{text_y}" text-anchor="end">{}</text>"#,
            width - 8,
            bucket.count
        );
    }
    let plot_bottom = TOP + rows * ROW;
    let _ = writeln!(
        out,
        r##"<line x1="{LEFT}" y1="{}" x2="{LEFT}" y2="{plot_bottom}" stroke="#000000"/>"##,
        TOP - 4
    );
    let mid = LEFT + HIST_WIDTH / 2 * COL;
    let _ = writeln!(
        out,
        r##"<line x1="{mid}" y1="{}" x2="{mid}" y2="{plot_bottom}" stroke="#888888" stroke-dasharray="3,3"/>"##,
        TOP - 4
    );
    let p50 = percentile(50, sorted).unwrap_or_default();
    let p95 = percentile(95, sorted).unwrap_or_default();
    let _ = writeln!(
        out,
        r#"<text x="{LEFT}" y="{}">n={} 50th={p50} 95th={p95} bucket={} (dark: bucket, light: running total, dashed: 50 %)</text>"#,
        plot_bottom + 22,
        hist.total,
        hist.width
    );
    out.push_str("</svg>\n");
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn escapes_title_and_counts_rows() {
        let s: Vec<u64> = (100..200).collect();
        let svg = svg_histogram(&s, "a <b> & \"c\"");
        assert!(svg.starts_with("<svg "));
        assert!(svg.ends_with("</svg>\n"));
        assert!(svg.contains("<title>a &lt;b&gt; &amp; &quot;c&quot;</title>"));
        assert!(!svg.contains("<b>"));
        let rows = Histogram::from_sorted(&s).unwrap().buckets.len();
        // One count label per row plus the header's "count".
        assert_eq!(svg.matches(r#"text-anchor="end">"#).count(), 2 * rows + 2);
    }

    #[test]
    fn empty_is_no_match() {
        let svg = svg_histogram(&[], "t");
        assert!(svg.contains("no match"));
        assert!(svg.ends_with("</svg>\n"));
    }
}
