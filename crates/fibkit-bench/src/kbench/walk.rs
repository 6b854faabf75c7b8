//! The destination walk of kbench.

/// One step of the module's restart generator: `rnd · 1664525 + 1013904223`, 64-bit.
fn lcg(rnd: u64) -> u64 {
    rnd.wrapping_mul(1_664_525).wrapping_add(1_013_904_223)
}

/// Splits an address into 32-bit words, most significant first.
fn to_words(addr: u128) -> [u32; 4] {
    [
        (addr >> 96) as u32,
        (addr >> 64) as u32,
        (addr >> 32) as u32,
        addr as u32,
    ]
}

/// Joins 32-bit words, most significant first, into an address.
fn from_words(w: [u32; 4]) -> u128 {
    w.iter().fold(0u128, |acc, &x| (acc << 32) | u128::from(x))
}

/// The IPv6 destinations of a kbench run, as the kernel module visits them on x86-64.
///
/// The walk is an endless iterator of addresses (as `u128`); the driver takes one per
/// lookup attempt. Its rules, from the kbench specification:
///
/// - `delta = (end − start) / loop_count`, 128 bits, where the subtraction is the module's
///   own per-word one: word by word from the least significant, `e − s − carry` when
///   `s + carry ≤ e`, else `s + carry − e` with a carry of 1 into the next word (sic: not a
///   correct borrow). If a carry is left over, or the difference is zero, the module never
///   scans: the walk then yields `start` for ever. A quotient of zero becomes 1.
/// - Before each lookup the address advances by `delta` **per 32-bit word, without carry
///   between words** (the module's carry test can never be true on x86-64). The first
///   address is therefore `start + delta`.
/// - When the address is above `end`, it restarts at `start`, and each word, least
///   significant first, gets `delta[k] & rnd` added (per word, without carry), after
///   `rnd = rnd · 1664525 + 1013904223` (64-bit; only its low 32 bits are used). `rnd`
///   starts at 0 for each walk.
///
/// A `loop_count` of 0 (the module would divide by zero) is taken as 1.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct DestWalk {
    start: [u32; 4],
    end: [u32; 4],
    cur: [u32; 4],
    delta: Option<[u32; 4]>,
    rnd: u64,
}

impl DestWalk {
    /// A walk over `start..=end` sized for `loop_count` lookups.
    pub fn new(start: u128, end: u128, loop_count: u64) -> DestWalk {
        let (s, e) = (to_words(start), to_words(end));
        DestWalk {
            start: s,
            end: e,
            cur: s,
            delta: module_delta(s, e, loop_count.max(1)),
            rnd: 0,
        }
    }

    /// The per-word step, packed into a `u128` (words most significant first); `None` when
    /// the module would not scan and the walk stays on `start`.
    pub fn delta(&self) -> Option<u128> {
        self.delta.map(from_words)
    }

    /// The per-word step as 32-bit words, most significant first.
    pub fn delta_words(&self) -> Option<[u32; 4]> {
        self.delta
    }

    /// The address looked up last (`start` before the first step).
    pub fn current(&self) -> u128 {
        from_words(self.cur)
    }
}

/// The module's delta computation, words most significant first.
fn module_delta(s: [u32; 4], e: [u32; 4], loop_count: u64) -> Option<[u32; 4]> {
    let mut delta = [0u32; 4];
    let mut carry = 0u64;
    for k in (0..4).rev() {
        let sk = u64::from(s[k]) + carry;
        let ek = u64::from(e[k]);
        if sk <= ek {
            delta[k] = (ek - sk) as u32;
            carry = 0;
        } else {
            // Truncation to 32 bits is the module's.
            delta[k] = (sk - ek) as u32;
            carry = 1;
        }
    }
    if carry != 0 || delta == [0; 4] {
        return None;
    }
    // Long division of the 128-bit delta by loop_count, most significant word first.
    let divisor = u128::from(loop_count);
    let mut rem = 0u128;
    for word in delta.iter_mut() {
        let quo = u128::from(*word) + (rem << 32);
        rem = quo % divisor;
        // rem < divisor, so quo / divisor < 2^32.
        *word = (quo / divisor) as u32;
    }
    if delta == [0; 4] {
        delta[3] = 1;
    }
    Some(delta)
}

impl Iterator for DestWalk {
    type Item = u128;

    fn next(&mut self) -> Option<u128> {
        if let Some(delta) = self.delta {
            for (c, d) in self.cur.iter_mut().zip(delta) {
                *c = c.wrapping_add(d);
            }
            // Word-wise lexicographic comparison is the 128-bit comparison.
            if self.cur > self.end {
                self.cur = self.start;
                for k in (0..4).rev() {
                    self.rnd = lcg(self.rnd);
                    self.cur[k] = self.cur[k].wrapping_add(delta[k] & self.rnd as u32);
                }
            }
        }
        Some(from_words(self.cur))
    }

    fn size_hint(&self) -> (usize, Option<usize>) {
        (usize::MAX, None)
    }
}

/// The IPv4 destinations of a kbench run: **fibkit's own extension**, the kernel module
/// has no IPv4 walk of this form.
///
/// It follows the IPv6 rules on a single 32-bit word, without the quirks: `delta =
/// (end − start) / loop_count` (a quotient of 0 becomes 1; `end ≤ start` means no scan,
/// the walk yields `start` for ever), the address advances by `delta` before each lookup,
/// and when it would pass `end` it restarts at `start + (delta & rnd)` after
/// `rnd = rnd · 1664525 + 1013904223` (64-bit, low 32 bits used, seeded 0). Every address
/// of a scanning walk lies in `start..=end`. A `loop_count` of 0 is taken as 1.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct DestWalkV4 {
    start: u32,
    end: u32,
    cur: u32,
    delta: Option<u32>,
    rnd: u64,
}

impl DestWalkV4 {
    /// A walk over `start..=end` sized for `loop_count` lookups.
    pub fn new(start: u32, end: u32, loop_count: u64) -> DestWalkV4 {
        let delta = match end.checked_sub(start) {
            Some(0) | None => None,
            Some(diff) => Some(
                u32::try_from(u64::from(diff) / loop_count.max(1))
                    .unwrap_or(u32::MAX)
                    .max(1),
            ),
        };
        DestWalkV4 {
            start,
            end,
            cur: start,
            delta,
            rnd: 0,
        }
    }

    /// The step; `None` when the walk stays on `start`.
    pub fn delta(&self) -> Option<u32> {
        self.delta
    }

    /// The address looked up last (`start` before the first step).
    pub fn current(&self) -> u32 {
        self.cur
    }
}

impl Iterator for DestWalkV4 {
    type Item = u32;

    fn next(&mut self) -> Option<u32> {
        if let Some(delta) = self.delta {
            let next = u64::from(self.cur) + u64::from(delta);
            self.cur = if next > u64::from(self.end) {
                self.rnd = lcg(self.rnd);
                // delta ≤ end − start, so this stays within start..=end.
                self.start + (delta & self.rnd as u32)
            } else {
                next as u32
            };
        }
        Some(self.cur)
    }

    fn size_hint(&self) -> (usize, Option<usize>) {
        (usize::MAX, None)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn words_round_trip() {
        let a = 0x2001_0db8_0000_0001_0002_0003_0004_0005u128;
        assert_eq!(to_words(a), [0x2001_0db8, 1, 0x0002_0003, 0x0004_0005]);
        assert_eq!(from_words(to_words(a)), a);
    }

    #[test]
    fn first_address_is_start_plus_delta() {
        let mut w = DestWalk::new(0x2400 << 112, 0x2a07 << 112, 5000);
        let d = w.delta().unwrap();
        assert_eq!(w.next(), Some((0x2400 << 112) + d));
    }

    #[test]
    fn no_carry_between_words() {
        // Low word wraps without carrying into the next one.
        let start = 0xffff_fff0u128;
        let end = 1u128 << 33;
        let mut w = DestWalk::new(start, end, 1);
        // Module delta: low word 0xfffffff0 (sic), word 2: 2 − 0 − 1 = 1.
        assert_eq!(w.delta_words(), Some([0, 0, 1, 0xffff_fff0]));
        let a = w.next().unwrap();
        assert_eq!(a, (1u128 << 32) | 0xffff_ffe0);
    }

    #[test]
    fn restart_uses_lcg_per_word() {
        // loop_count 1: delta = end − start, so the second step passes end.
        let start = 0x1000u128;
        let end = 0x1fffu128;
        let mut w = DestWalk::new(start, end, 1);
        assert_eq!(w.next(), Some(end));
        let rnd1 = lcg(0);
        let expected = start + u128::from(0xfffu32 & rnd1 as u32);
        assert_eq!(w.next(), Some(expected));
    }

    #[test]
    fn no_scan_cases_stay_on_start() {
        let mut w = DestWalk::new(5, 5, 10);
        assert_eq!(w.delta(), None);
        assert!(w.by_ref().take(5).all(|a| a == 5));
        let mut w = DestWalk::new(0x3000 << 112, 0x2000 << 112, 10);
        assert_eq!(w.delta(), None);
        assert_eq!(w.next(), Some(0x3000 << 112));
        let mut w4 = DestWalkV4::new(10, 3, 10);
        assert_eq!(w4.delta(), None);
        assert_eq!(w4.next(), Some(10));
    }

    #[test]
    fn zero_quotient_becomes_one() {
        assert_eq!(DestWalk::new(1, 5, 5000).delta(), Some(1));
        assert_eq!(DestWalk::new(1, 5, 0).delta(), Some(4));
        assert_eq!(DestWalkV4::new(1, 5, 5000).delta(), Some(1));
    }

    #[test]
    fn v4_walk_stays_in_range_and_restarts() {
        let (start, end) = (0x0a00_0000u32, 0x0a00_00ffu32);
        let mut w = DestWalkV4::new(start, end, 4);
        assert_eq!(w.delta(), Some(63));
        let got: Vec<u32> = w.by_ref().take(5).collect();
        let r = lcg(0) as u32;
        assert_eq!(
            got,
            vec![
                start + 63,
                start + 126,
                start + 189,
                start + 252,
                start + (63 & r)
            ]
        );
        // Full range: the fourth step would pass the end and restarts low.
        let v: Vec<u32> = DestWalkV4::new(0, u32::MAX, 3).take(4).collect();
        assert_eq!(&v[..3], &[0x5555_5555, 0xaaaa_aaaa, 0xffff_ffff]);
        assert_eq!(v[3], 0x5555_5555 & lcg(0) as u32);
    }
}
