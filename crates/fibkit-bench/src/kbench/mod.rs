//! The kbench measurement: statistics, output lines, histogram, destination walk, driver.
//!
//! This follows the project's kbench specification (`../shared/docs/KBENCH.md` from the
//! repository root). The text functions of this module produce exactly what the kernel
//! module prints, and are checked byte for byte against fixtures recorded from the Python
//! reference (`../shared/tools/kbench/kbench_ref.py`).
//!
//! All arithmetic is integer arithmetic, as in the module. Samples are `u64` (cycles or
//! nanoseconds); sums and midpoints are computed in 128 bits, so no sample set can
//! overflow.
//!
//! # Short sample sets
//!
//! The module's percentile reads `s[i + 1]` whenever `p·n` is not a multiple of 100, even
//! when `i + 1 == n` (it reads past the end of the sorted samples; the Python reference
//! raises `IndexError` there). That happens for the 95th percentile when `n < 20`, the
//! 90th when `n < 10` and the 50th when `n == 1`. fibkit reads the last sample instead
//! (`s[n − 1]`), so such a percentile is `(s[n−1] + s[n−1]) / 2 = s[n−1]`, the maximum.
//! The recorded fixtures for those sets were produced by the reference with the same
//! substitution (and say so in their header).

mod run;
mod svg;
mod walk;

use std::fmt;

pub use run::{
    default_clock, run, run_v4, run_walk, Iface, KbenchConfig, KbenchResult, Outcome,
    DEFAULT_CLOCK_UNIT,
};
pub use svg::svg_histogram;
pub use walk::{DestWalk, DestWalkV4};

/// Number of histogram buckets sized from the spread `p95 − min` (more rows can follow
/// after rounding, see [`histogram`]).
pub const HIST_BUCKETS: u64 = 15;

/// Width of a histogram bar in columns; `┊` marks column `HIST_WIDTH / 2`, the median.
pub const HIST_WIDTH: usize = 50;

/// The module's percentile of an ascending sample slice.
///
/// With `n = sorted.len()` and `i = p·n / 100` (integer division): `s[i]` when
/// `p·n % 100 == 0`, otherwise `(s[i] + s[i+1]) / 2` (integer). This is not the textbook
/// median for odd `n`, on purpose. Reads past the end are replaced by the last sample (see
/// the [module documentation](self#short-sample-sets)); `p` above 100 therefore gives the
/// maximum. Returns `None` for an empty slice. The slice must be sorted ascending, or the
/// result has no meaning (it still does not panic).
pub fn percentile(p: u32, sorted: &[u64]) -> Option<u64> {
    let last = sorted.len().checked_sub(1)?;
    let pn = u128::from(p) * sorted.len() as u128;
    let i = usize::try_from(pn / 100).map_or(last, |i| i.min(last));
    if pn % 100 == 0 {
        Some(sorted[i])
    } else {
        let j = (i + 1).min(last);
        Some(midpoint(sorted[i], sorted[j]))
    }
}

/// `(a + b) / 2` without overflow, rounding down like the module's integer division.
fn midpoint(a: u64, b: u64) -> u64 {
    // The quotient of a sum of two u64 values by 2 always fits in u64.
    ((u128::from(a) + u128::from(b)) / 2) as u64
}

/// The statistics of one run, as printed on the first output line of the module.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct Stats {
    /// Smallest sample, `s[0]`.
    pub min: u64,
    /// Largest sample, `s[n − 1]`.
    pub max: u64,
    /// Number of samples (timed hits), `n`.
    pub count: u64,
    /// `floor(Σs / n)`.
    pub average: u64,
    /// [`percentile`]`(95)`.
    pub p95: u64,
    /// [`percentile`]`(90)`.
    pub p90: u64,
    /// [`percentile`]`(50)`.
    pub p50: u64,
    /// Median absolute deviation: [`percentile`]`(50)` of the sorted `|s[i] − p50|`,
    /// unscaled.
    pub mad: u64,
}

impl Stats {
    /// Statistics of samples in any order (a sorted copy is made). `None` when empty.
    pub fn from_samples(samples: &[u64]) -> Option<Stats> {
        let mut sorted = samples.to_vec();
        sorted.sort_unstable();
        Stats::from_sorted(&sorted)
    }

    /// Statistics of samples already sorted ascending. `None` when empty.
    ///
    /// Unsorted input gives meaningless figures but does not panic.
    pub fn from_sorted(sorted: &[u64]) -> Option<Stats> {
        let (&min, &max) = (sorted.first()?, sorted.last()?);
        let n = sorted.len();
        let sum: u128 = sorted.iter().map(|&x| u128::from(x)).sum();
        // The average of u64 values fits in u64.
        let average = (sum / n as u128) as u64;
        let p95 = percentile(95, sorted)?;
        let p90 = percentile(90, sorted)?;
        let p50 = percentile(50, sorted)?;
        let mut deviations: Vec<u64> = sorted.iter().map(|&x| x.abs_diff(p50)).collect();
        deviations.sort_unstable();
        let mad = percentile(50, &deviations)?;
        Some(Stats {
            min,
            max,
            count: n as u64,
            average,
            p95,
            p90,
            p50,
            mad,
        })
    }
}

impl fmt::Display for Stats {
    /// The module's first line, without the trailing newline:
    /// `min=%u max=%u count=%u average=%u 95th=%u 90th=%u 50th=%u mad=%u`.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "min={} max={} count={} average={} 95th={} 90th={} 50th={} mad={}",
            self.min, self.max, self.count, self.average, self.p95, self.p90, self.p50, self.mad
        )
    }
}

/// The module's first output line for samples in any order, newline included:
/// `min=.. max=.. count=.. average=.. 95th=.. 90th=.. 50th=.. mad=..\n`, or
/// `msg="no match"\n` when there is no sample.
pub fn stats_line(samples: &[u64]) -> String {
    match Stats::from_samples(samples) {
        Some(stats) => format!("{stats}\n"),
        None => "msg=\"no match\"\n".to_string(),
    }
}

/// The module's second output line, newline included:
/// `table=%u avgdepth=%u.%u maxdepth=%u`.
///
/// `total_depth` is the sum of the depths of the `nodes` route-carrying nodes of the
/// table's lookup structure (root at depth 0); the average is truncated to one decimal,
/// `x = floor(10·total_depth / nodes)` printed as `x/10 "." x%10` (`0.0` when `nodes` is
/// 0). What a depth step is depends on the structure measured and must be documented by
/// the caller.
pub fn depth_line(table: u32, total_depth: u64, nodes: u64, max_depth: u64) -> String {
    let avg10 = (u128::from(total_depth) * 10)
        .checked_div(u128::from(nodes))
        .unwrap_or(0);
    format!(
        "table={table} avgdepth={}.{} maxdepth={max_depth}\n",
        avg10 / 10,
        avg10 % 10
    )
}

/// One row of the latency histogram.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct HistogramBucket {
    /// The smallest value of the bucket; the bucket is `[start, start + width)`.
    pub start: u64,
    /// Number of samples in the bucket.
    pub count: u64,
    /// Number of samples in this bucket and all buckets before it.
    pub cumulative: u64,
}

/// The bucket layout of the module's histogram.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct Histogram {
    /// Bucket width (`share` in the module), at least 1.
    pub width: u64,
    /// Number of samples the bars are scaled to.
    pub total: u64,
    /// The rows, in ascending order. Empty buckets are included.
    pub buckets: Vec<HistogramBucket>,
}

impl Histogram {
    /// Buckets of samples sorted ascending, as the module lays them out; `None` when empty.
    ///
    /// `share = (p95 − min) / 15`; `order = (ilog2(share)·3 + 5) / 10` with
    /// `ilog2(0) = −1` and C's truncation toward zero, at least 1; `unit = 10^(order−1)`;
    /// the width is `share / unit · unit` (at least 1) and the first bucket starts at
    /// `min / unit · unit`. Buckets are emitted until the samples run out or the next
    /// sample is above p95, so samples above p95 are not counted.
    pub fn from_sorted(sorted: &[u64]) -> Option<Histogram> {
        let min = *sorted.first()?;
        let p95 = percentile(95, sorted)?;
        let share = p95.saturating_sub(min) / HIST_BUCKETS;
        // C: int order = (ilog2(share) * 3 + 5) / 10; ilog2(0) is -1 here, giving 0.
        let order = match share.checked_ilog2() {
            Some(log) => (log * 3 + 5) / 10,
            None => 0,
        }
        .max(1);
        // order is at most (63·3 + 5) / 10 = 19, so unit fits in u64.
        let unit = 10u64.pow(order - 1);
        let width = (share / unit * unit).max(1);
        let mut start = u128::from(min / unit * unit);
        let width128 = u128::from(width);

        let mut buckets = Vec::new();
        let (mut i, mut cumulative) = (0usize, 0u64);
        loop {
            let mut count = 0u64;
            while i < sorted.len() && u128::from(sorted[i]) < start + width128 {
                count += 1;
                i += 1;
            }
            cumulative += count;
            buckets.push(HistogramBucket {
                // Every emitted start is at most the sample that follows it (or the
                // first bucket's start, at most min), so it fits in u64.
                start: u64::try_from(start).unwrap_or(u64::MAX),
                count,
                cumulative,
            });
            start += width128;
            match sorted.get(i) {
                Some(&next) if next <= p95 => {}
                _ => break,
            }
        }
        Some(Histogram {
            width,
            total: sorted.len() as u64,
            buckets,
        })
    }
}

/// Columns of a bar: `(dark, light)` where `dark = count·50/n` and the light part extends
/// the bar to `cumulative·50/n`.
fn bar_columns(bucket: &HistogramBucket, total: u64) -> (usize, usize) {
    let scale = |x: u64| (u128::from(x) * HIST_WIDTH as u128 / u128::from(total.max(1))) as usize;
    let dark = scale(bucket.count);
    let cum = scale(bucket.cumulative).min(HIST_WIDTH);
    (dark.min(cum), cum - dark.min(cum))
}

/// The module's verbose histogram for samples sorted ascending, every line ending in a
/// newline; an empty string when there is no sample.
///
/// Header: `" %8s │"` of `value`, 25 spaces, `┊`, 24 spaces, `" %8s"` of `count`. Each row:
/// `" %8u │"` of the bucket start, `▒` × (bucket count · 50 / n), `░` up to
/// (cumulative count · 50 / n), spaces to column 50, `" %8u"` of the bucket count. See
/// [`Histogram::from_sorted`] for the bucket layout.
pub fn histogram(sorted: &[u64]) -> String {
    let Some(hist) = Histogram::from_sorted(sorted) else {
        return String::new();
    };
    let half = HIST_WIDTH / 2;
    let mut out = format!(
        " {:>8} │{}┊{} {:>8}\n",
        "value",
        " ".repeat(half),
        " ".repeat(HIST_WIDTH - half - 1),
        "count"
    );
    for bucket in &hist.buckets {
        let (dark, light) = bar_columns(bucket, hist.total);
        out.push_str(&format!(
            " {:>8} │{}{}{} {:>8}\n",
            bucket.start,
            "▒".repeat(dark),
            "░".repeat(light),
            " ".repeat(HIST_WIDTH - dark - light),
            bucket.count
        ));
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn percentile_rule_is_not_the_textbook_median() {
        // n = 5: 50·5 = 250, i = 2, not exact: (s[2] + s[3]) / 2.
        assert_eq!(percentile(50, &[1, 2, 3, 10, 20]), Some(6));
        // n = 4: 200 is exact: s[2].
        assert_eq!(percentile(50, &[1, 2, 3, 10]), Some(3));
        // n = 20: 95·20 = 1900 exact: s[19].
        let s: Vec<u64> = (0..20).collect();
        assert_eq!(percentile(95, &s), Some(19));
        assert_eq!(percentile(90, &s), Some(18));
    }

    #[test]
    fn percentile_guard_reads_last_sample() {
        assert_eq!(percentile(95, &[7]), Some(7));
        assert_eq!(percentile(50, &[7]), Some(7));
        assert_eq!(percentile(95, &[1, 9]), Some(9));
        assert_eq!(percentile(50, &[1, 9]), Some(9)); // 100 % 100 == 0: s[1]
        assert_eq!(percentile(100, &[1, 9]), Some(9));
        assert_eq!(percentile(u32::MAX, &[1, 9]), Some(9));
        assert_eq!(percentile(95, &[]), None);
    }

    #[test]
    fn stats_of_huge_values_do_not_overflow() {
        let s = [u64::MAX, u64::MAX - 1, u64::MAX];
        let st = Stats::from_samples(&s).unwrap();
        assert_eq!(st.max, u64::MAX);
        assert_eq!(st.average, u64::MAX - 1); // floor((3·MAX − 1) / 3)
        assert_eq!(st.min, u64::MAX - 1);
    }

    #[test]
    fn no_match_line() {
        assert_eq!(stats_line(&[]), "msg=\"no match\"\n");
        assert_eq!(histogram(&[]), "");
    }

    #[test]
    fn stats_line_sorts_its_input() {
        assert_eq!(stats_line(&[3, 1, 2]), stats_line(&[1, 2, 3]));
        assert_eq!(
            stats_line(&[3, 1, 2]),
            "min=1 max=3 count=3 average=2 95th=3 90th=3 50th=2 mad=1\n"
        );
    }

    #[test]
    fn depth_line_format() {
        assert_eq!(
            depth_line(254, 218, 10, 39),
            "table=254 avgdepth=21.8 maxdepth=39\n"
        );
        assert_eq!(
            depth_line(254, 0, 0, 0),
            "table=254 avgdepth=0.0 maxdepth=0\n"
        );
        assert_eq!(
            depth_line(255, 7, 3, 4),
            "table=255 avgdepth=2.3 maxdepth=4\n"
        );
    }

    #[test]
    fn histogram_header_and_single_sample() {
        let h = histogram(&[600]);
        let lines: Vec<&str> = h.lines().collect();
        assert_eq!(lines.len(), 2);
        assert_eq!(
            lines[0],
            format!("    value │{}┊{}    count", " ".repeat(25), " ".repeat(24))
        );
        assert_eq!(lines[1], format!("      600 │{}        1", "▒".repeat(50)));
    }

    #[test]
    fn histogram_layout_rounds_width_to_unit() {
        // share = (p95 − min) / 15: 1999 → ilog2 10 → order 3 → unit 100 → 1900.
        let mut s: Vec<u64> = vec![1234; 10];
        s.extend(std::iter::repeat_n(1234 + 1999 * 15, 190));
        let h = Histogram::from_sorted(&s).unwrap();
        assert_eq!(h.width, 1900);
        assert_eq!(h.buckets[0].start, 1200);
    }
}
