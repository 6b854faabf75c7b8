//! Prefixes, and the bounds-checked byte cursor every decoder reads through.

use std::fmt;
use std::net::{IpAddr, Ipv4Addr, Ipv6Addr};

use crate::error::Fault;

/// An IP prefix in canonical form: the bits past `len` are zero.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Prefix {
    addr: IpAddr,
    len: u8,
}

impl Prefix {
    /// The prefix `addr/len` with the host bits cleared, or `None` if `len` exceeds the
    /// address size.
    pub fn new(addr: IpAddr, len: u8) -> Option<Prefix> {
        match addr {
            IpAddr::V4(a) if len <= 32 => {
                let mask = u32::MAX.checked_shl(32 - u32::from(len)).unwrap_or(0);
                let a = Ipv4Addr::from(u32::from(a) & mask);
                Some(Prefix {
                    addr: IpAddr::V4(a),
                    len,
                })
            }
            IpAddr::V6(a) if len <= 128 => {
                let mask = u128::MAX.checked_shl(128 - u32::from(len)).unwrap_or(0);
                let a = Ipv6Addr::from(u128::from(a) & mask);
                Some(Prefix {
                    addr: IpAddr::V6(a),
                    len,
                })
            }
            _ => None,
        }
    }

    /// The network address (host bits zero).
    pub fn addr(&self) -> IpAddr {
        self.addr
    }

    /// The prefix length in bits.
    pub fn len(&self) -> u8 {
        self.len
    }

    /// Whether this is the default route of its family (length 0).
    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    /// Whether the prefix is IPv6.
    pub fn is_ipv6(&self) -> bool {
        self.addr.is_ipv6()
    }

    /// Whether `ip` lies inside the prefix.
    pub fn contains(&self, ip: IpAddr) -> bool {
        Prefix::new(ip, self.len).is_some_and(|p| p.addr == self.addr)
    }
}

/// `addr/len`, the address as [`DisplayIp`] prints it.
impl fmt::Display for Prefix {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}/{}", DisplayIp(self.addr), self.len)
    }
}

/// An address printed as bgpdump prints it. IPv4 as usual; IPv6 with the longest run of
/// zero groups (the leftmost of equal runs) shortened to `::` even when it is a single
/// group, and IPv4-mapped (`::ffff:a.b.c.d`) and IPv4-compatible (`::a.b.c.d`)
/// addresses with a dotted quad.
#[derive(Debug, Clone, Copy)]
pub struct DisplayIp(pub IpAddr);

impl fmt::Display for DisplayIp {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let a = match self.0 {
            IpAddr::V4(a) => return a.fmt(f),
            IpAddr::V6(a) => a,
        };
        let o = a.octets();
        let tail4 = Ipv4Addr::new(o[12], o[13], o[14], o[15]);
        let g = a.segments();
        if g[..5] == [0; 5] && g[5] == 0xffff {
            return write!(f, "::ffff:{tail4}");
        }
        if g[..6] == [0; 6] && u32::from(tail4) > 1 {
            return write!(f, "::{tail4}");
        }
        // The longest run of zero groups, as (start, length); the first wins ties.
        let mut best = (0usize, 0usize);
        let mut i = 0;
        while i < 8 {
            let run = g.iter().skip(i).take_while(|&&x| x == 0).count();
            if run > best.1 {
                best = (i, run);
            }
            i += run.max(1);
        }
        let mut i = 0;
        while i < 8 {
            if best.1 > 0 && i == best.0 {
                f.write_str(if i == 0 { "::" } else { ":" })?;
                i += best.1;
                continue;
            }
            write!(f, "{:x}", g.get(i).copied().unwrap_or(0))?;
            if i != 7 {
                f.write_str(":")?;
            }
            i += 1;
        }
        Ok(())
    }
}

/// A read position in a byte slice; every read is bounds-checked and names the field
/// in its error.
#[derive(Debug, Clone)]
pub(crate) struct Cursor<'a> {
    buf: &'a [u8],
}

impl<'a> Cursor<'a> {
    pub(crate) fn new(buf: &'a [u8]) -> Self {
        Cursor { buf }
    }

    pub(crate) fn is_empty(&self) -> bool {
        self.buf.is_empty()
    }

    pub(crate) fn remaining(&self) -> usize {
        self.buf.len()
    }

    pub(crate) fn peek(&self) -> Option<u8> {
        self.buf.first().copied()
    }

    pub(crate) fn take(&mut self, n: usize, what: &'static str) -> Result<&'a [u8], Fault> {
        if n > self.buf.len() {
            return Err(Fault::Truncated(what));
        }
        let (head, tail) = self.buf.split_at(n);
        self.buf = tail;
        Ok(head)
    }

    pub(crate) fn rest(&mut self) -> &'a [u8] {
        std::mem::take(&mut self.buf)
    }

    pub(crate) fn u8(&mut self, what: &'static str) -> Result<u8, Fault> {
        let b = self.take(1, what)?;
        Ok(b.first().copied().unwrap_or(0))
    }

    pub(crate) fn u16(&mut self, what: &'static str) -> Result<u16, Fault> {
        let mut a = [0u8; 2];
        a.copy_from_slice(self.take(2, what)?);
        Ok(u16::from_be_bytes(a))
    }

    pub(crate) fn u32(&mut self, what: &'static str) -> Result<u32, Fault> {
        let mut a = [0u8; 4];
        a.copy_from_slice(self.take(4, what)?);
        Ok(u32::from_be_bytes(a))
    }

    /// A 2- or 4-byte AS number.
    pub(crate) fn asn(&mut self, four: bool, what: &'static str) -> Result<u32, Fault> {
        if four {
            self.u32(what)
        } else {
            self.u16(what).map(u32::from)
        }
    }

    pub(crate) fn ipv4(&mut self, what: &'static str) -> Result<Ipv4Addr, Fault> {
        self.u32(what).map(Ipv4Addr::from)
    }

    pub(crate) fn ipv6(&mut self, what: &'static str) -> Result<Ipv6Addr, Fault> {
        let mut a = [0u8; 16];
        a.copy_from_slice(self.take(16, what)?);
        Ok(Ipv6Addr::from(a))
    }

    /// An IPv4 (`v6 == false`) or IPv6 address.
    pub(crate) fn ip(&mut self, v6: bool, what: &'static str) -> Result<IpAddr, Fault> {
        if v6 {
            self.ipv6(what).map(IpAddr::V6)
        } else {
            self.ipv4(what).map(IpAddr::V4)
        }
    }

    /// A prefix in BGP NLRI encoding (length in bits, then just enough bytes); the bits
    /// past the length are cleared, as bgpdump does.
    pub(crate) fn prefix(&mut self, v6: bool, what: &'static str) -> Result<Prefix, Fault> {
        let len = self.u8(what)?;
        let max = if v6 { 128 } else { 32 };
        if len > max {
            return Err(Fault::BadPrefixLength(len));
        }
        let bytes = self.take(usize::from(len).div_ceil(8), what)?;
        let mut a = [0u8; 16];
        a.get_mut(..bytes.len())
            .ok_or(Fault::BadPrefixLength(len))?
            .copy_from_slice(bytes);
        let addr = if v6 {
            IpAddr::V6(Ipv6Addr::from(a))
        } else {
            IpAddr::V4(Ipv4Addr::new(a[0], a[1], a[2], a[3]))
        };
        Prefix::new(addr, len).ok_or(Fault::BadPrefixLength(len))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn prefix_masks_trailing_bits() {
        // 11.8.0.0/13 encoded with a stray bit in the third byte.
        let mut c = Cursor::new(&[13, 11, 15]);
        let p = c.prefix(false, "nlri").unwrap();
        assert_eq!(p.to_string(), "11.8.0.0/13");
        assert!(c.is_empty());
    }

    #[test]
    fn prefix_rejects_long_lengths_and_truncation() {
        assert_eq!(
            Cursor::new(&[33, 1, 2, 3, 4, 5]).prefix(false, "nlri"),
            Err(Fault::BadPrefixLength(33))
        );
        assert_eq!(
            Cursor::new(&[24, 10, 0]).prefix(false, "nlri"),
            Err(Fault::Truncated("nlri"))
        );
        let mut c = Cursor::new(&[0]);
        assert_eq!(c.prefix(true, "nlri").unwrap().to_string(), "::/0");
    }

    #[test]
    fn display_like_inet_ntop() {
        let ip = |s: &str| DisplayIp(s.parse().unwrap()).to_string();
        assert_eq!(ip("::ffff:193.0.0.56"), "::ffff:193.0.0.56");
        assert_eq!(ip("::192.168.1.2"), "::192.168.1.2");
        assert_eq!(ip("::1"), "::1");
        assert_eq!(ip("2001:7f8:30::2:1:0:8447"), "2001:7f8:30::2:1:0:8447");
        assert_eq!(ip("fe80::"), "fe80::");
        assert_eq!(ip("::"), "::");
        assert_eq!(ip("1:0:0:2:0:0:0:3"), "1:0:0:2::3");
        assert_eq!(ip("1:0:0:2:3:0:0:4"), "1::2:3:0:0:4");
        assert_eq!(ip("2001:db8::1"), "2001:db8::1");
    }
}
