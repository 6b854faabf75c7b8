//! IPv4 and IPv6 prefixes held as integers (network byte order read as a big-endian number).

use std::fmt;
use std::net::{Ipv4Addr, Ipv6Addr};

/// An address family.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Family {
    /// IPv4 (AF_INET).
    V4,
    /// IPv6 (AF_INET6).
    V6,
}

/// The mask of the first `len` bits of a 32-bit address.
#[inline]
pub fn mask4(len: u8) -> u32 {
    if len == 0 {
        0
    } else {
        u32::MAX << (32 - u32::from(len.min(32)))
    }
}

/// The mask of the first `len` bits of a 128-bit address.
#[inline]
pub fn mask6(len: u8) -> u128 {
    if len == 0 {
        0
    } else {
        u128::MAX << (128 - u32::from(len.min(128)))
    }
}

/// An IPv4 prefix. Invariant of values built by [`Prefix4::new`]: host bits are zero.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Default)]
pub struct Prefix4 {
    /// The network address.
    pub addr: u32,
    /// The prefix length, 0..=32.
    pub len: u8,
}

impl Prefix4 {
    /// A prefix with its host bits cleared.
    pub fn new(addr: u32, len: u8) -> Self {
        let len = len.min(32);
        Prefix4 {
            addr: addr & mask4(len),
            len,
        }
    }
    /// Whether `a` lies inside the prefix.
    #[inline]
    pub fn contains(&self, a: u32) -> bool {
        (a ^ self.addr) & mask4(self.len) == 0
    }
    /// Whether `other` lies inside (or equals) this prefix.
    pub fn covers(&self, other: &Prefix4) -> bool {
        other.len >= self.len && self.contains(other.addr)
    }
}

impl fmt::Display for Prefix4 {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}/{}", Ipv4Addr::from(self.addr), self.len)
    }
}

/// An IPv6 prefix. Invariant of values built by [`Prefix6::new`]: host bits are zero.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Default)]
pub struct Prefix6 {
    /// The network address.
    pub addr: u128,
    /// The prefix length, 0..=128.
    pub len: u8,
}

impl Prefix6 {
    /// A prefix with its host bits cleared.
    pub fn new(addr: u128, len: u8) -> Self {
        let len = len.min(128);
        Prefix6 {
            addr: addr & mask6(len),
            len,
        }
    }
    /// Whether `a` lies inside the prefix.
    #[inline]
    pub fn contains(&self, a: u128) -> bool {
        (a ^ self.addr) & mask6(self.len) == 0
    }
    /// Whether `other` lies inside (or equals) this prefix.
    pub fn covers(&self, other: &Prefix6) -> bool {
        other.len >= self.len && self.contains(other.addr)
    }
}

impl fmt::Display for Prefix6 {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}/{}", Ipv6Addr::from(self.addr), self.len)
    }
}

/// Address classification helpers (the kernel's `ipv4_is_*`).
pub mod v4 {
    /// 224.0.0.0/4
    pub fn is_multicast(a: u32) -> bool {
        a & 0xf000_0000 == 0xe000_0000
    }
    /// 224.0.0.0/24
    pub fn is_local_multicast(a: u32) -> bool {
        a & 0xffff_ff00 == 0xe000_0000
    }
    /// 255.255.255.255
    pub fn is_lbcast(a: u32) -> bool {
        a == u32::MAX
    }
    /// The zero address only: the kernel's `ipv4_is_zeronet` has meant 0.0.0.0 alone
    /// since 0.0.0.0/8 became a valid unicast range ("Allow 0.0.0.0/8 as a valid
    /// address range", 5.3), so an address such as 0.1.2.3 gets its prefix and
    /// broadcast routes (`fib_add_ifaddr`) and is a valid preferred source
    /// (`__inet_dev_addr_type` looks it up like any other).
    pub fn is_zeronet(a: u32) -> bool {
        a == 0
    }
    /// 127.0.0.0/8
    pub fn is_loopback(a: u32) -> bool {
        a & 0xff00_0000 == 0x7f00_0000
    }
}

/// IPv6 address type bits (the kernel's `__ipv6_addr_type`), reduced to what routing needs.
pub mod v6 {
    /// Unicast.
    pub const UNICAST: u32 = 0x0001;
    /// Multicast.
    pub const MULTICAST: u32 = 0x0002;
    /// ::1
    pub const LOOPBACK: u32 = 0x0010;
    /// fe80::/10
    pub const LINKLOCAL: u32 = 0x0020;
    /// fec0::/10
    pub const SITELOCAL: u32 = 0x0040;
    /// ::ffff:0:0/96
    pub const MAPPED: u32 = 0x1000;
    /// ::/96 but `::` and `::1` (IPv4-compatible)
    pub const COMPATV4: u32 = 0x0080;
    /// ::
    pub const ANY: u32 = 0x0000;

    /// Scope values of `__ipv6_addr_src_scope`.
    pub const SCOPE_NODELOCAL: i32 = 0x01;
    /// Link-local scope.
    pub const SCOPE_LINKLOCAL: i32 = 0x02;
    /// Site-local scope.
    pub const SCOPE_SITELOCAL: i32 = 0x05;
    /// Global scope.
    pub const SCOPE_GLOBAL: i32 = 0x0e;

    /// The type bits of an address.
    pub fn addr_type(a: u128) -> u32 {
        let st = (a >> 96) as u32;
        if st & 0xe000_0000 != 0 && st & 0xe000_0000 != 0xe000_0000 {
            return UNICAST;
        }
        if st & 0xff00_0000 == 0xff00_0000 {
            // ipv6_addr_scope2type: the scope field's type bit too (interface-local
            // counts as loopback, link-local as link-local, site-local as site-local)
            return MULTICAST
                | match (st >> 16) & 0xf {
                    1 => LOOPBACK,
                    2 => LINKLOCAL,
                    5 => SITELOCAL,
                    _ => 0,
                };
        }
        if st & 0xffc0_0000 == 0xfe80_0000 {
            return LINKLOCAL | UNICAST;
        }
        if st & 0xffc0_0000 == 0xfec0_0000 {
            return SITELOCAL | UNICAST;
        }
        if st & 0xfe00_0000 == 0xfc00_0000 {
            return UNICAST;
        }
        if a >> 32 == 0 {
            if a == 0 {
                return ANY;
            }
            if a == 1 {
                return LOOPBACK | UNICAST;
            }
            return COMPATV4 | UNICAST;
        }
        if a >> 32 == 0xffff {
            return MAPPED;
        }
        UNICAST
    }

    /// `__ipv6_addr_src_scope`: the scope used by source address selection.
    pub fn src_scope(a: u128) -> i32 {
        let t = addr_type(a);
        if t == ANY {
            return 0;
        }
        if t & MULTICAST != 0 {
            return ((a >> 112) & 0x0f) as i32;
        }
        if t & LOOPBACK != 0 || t & LINKLOCAL != 0 {
            return SCOPE_LINKLOCAL;
        }
        if t & SITELOCAL != 0 {
            return SCOPE_SITELOCAL;
        }
        SCOPE_GLOBAL
    }

    /// Whether the address is multicast (ff00::/8).
    pub fn is_multicast(a: u128) -> bool {
        a >> 120 == 0xff
    }
}
