//! IPv6 address labels (`ip addrlabel`, RFC 6724's policy table): `net/ipv6/addrlabel.c`.
//! Source address selection prefers a source whose label is the destination's.

use crate::error::{Errno, Error, Result};
use crate::netns::Netns;
use crate::prefix::{v6, Prefix6};

/// One entry of the label table.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct AddrLabel {
    /// The prefix (host bits cleared).
    pub prefix: Prefix6,
    /// The device it is limited to (0: any).
    pub ifindex: u32,
    /// The label.
    pub label: u32,
    /// The address type the entry is limited to (0: any): an IPv4-mapped, IPv4-compatible
    /// or loopback type, as [`addrtype_of`] derives it from the prefix given.
    pub addrtype: u32,
}

/// The type bits an entry may be limited to (`ipv6_addr_label` masks an address's type
/// down to them).
const TYPE_BITS: u32 = v6::MAPPED | v6::COMPATV4 | v6::LOOPBACK;

/// `ip6addrlbl_alloc`: the address type an entry is limited to, taken from the prefix's
/// address as the request gave it (before its host bits are cleared): an IPv4-mapped
/// address of a /96 (longer is refused), an IPv4-compatible one of a /96, the loopback
/// address of a /128; any other entry matches addresses of any type. So an entry
/// `::1.2.3.4/96` (shown as `::/96`) does not cover `::` or `::1`, while `::/96` does.
/// `None`: an IPv4-mapped prefix longer than /96 (EINVAL).
pub(crate) fn addrtype_of(addr: u128, len: u8) -> Option<u32> {
    let t = v6::addr_type(addr) & TYPE_BITS;
    Some(match t {
        v6::MAPPED if len > 96 => return None,
        v6::MAPPED if len < 96 => 0,
        v6::COMPATV4 if len != 96 => 0,
        v6::LOOPBACK if len != 128 => 0,
        _ => t,
    })
}

/// The label of an address no entry matches (`IPV6_ADDR_LABEL_DEFAULT`).
pub const LABEL_DEFAULT: u32 = u32::MAX;

/// The table a namespace starts with (`ip6addrlbl_init_table`), in the order the
/// kernel adds its entries.
const DEFAULTS: &[(u128, u8, u32)] = &[
    (0, 0, 1),
    (0xfc00u128 << 112, 7, 5),
    (0xfec0u128 << 112, 10, 11),
    (0x2002u128 << 112, 16, 2),
    (0x3ffeu128 << 112, 16, 12),
    (0x2001_0000u128 << 96, 32, 6),
    (0x2001_0010u128 << 96, 28, 7),
    (0xffffu128 << 32, 96, 4),
    (0, 96, 3),
    (1, 128, 0),
];

/// `__ip6addrlbl_add` without replacement: the table is kept longest prefix first, and
/// a new entry goes before an entry of its length that names no device.
fn insert(table: &mut Vec<AddrLabel>, new: AddrLabel) -> Result<()> {
    let mut at = table.len();
    for (i, p) in table.iter().enumerate() {
        if p.prefix == new.prefix && p.ifindex == new.ifindex {
            return Err(Error::new(Errno::EEXIST));
        }
        if (p.prefix.len == new.prefix.len && p.ifindex == 0) || p.prefix.len < new.prefix.len {
            at = i;
            break;
        }
    }
    table.insert(at, new);
    Ok(())
}

/// The default table.
pub(crate) fn default_table() -> Vec<AddrLabel> {
    let mut t = Vec::new();
    for &(addr, len, label) in DEFAULTS {
        let new = AddrLabel {
            prefix: Prefix6::new(addr, len),
            ifindex: 0,
            label,
            addrtype: addrtype_of(addr, len).unwrap_or(0),
        };
        // the defaults are distinct
        let _ = insert(&mut t, new);
    }
    t
}

impl Netns {
    /// The label table, in the kernel's order (`ip addrlabel list`).
    pub fn addrlabels(&self) -> &[AddrLabel] {
        &self.addrlabels
    }

    /// `ipv6_addr_label`: the label of `addr` for device `ifindex`, from the first
    /// entry that matches (`__ip6addrlbl_match`: its device, if any, its address type,
    /// if any, and its prefix).
    pub(crate) fn addr_label(&self, addr: u128, ifindex: u32) -> u32 {
        let t = v6::addr_type(addr) & TYPE_BITS;
        self.addrlabels
            .iter()
            .find(|p| {
                (p.ifindex == 0 || p.ifindex == ifindex)
                    && (p.addrtype == 0 || p.addrtype == t)
                    && p.prefix.contains(addr)
            })
            .map_or(LABEL_DEFAULT, |p| p.label)
    }

    /// `ip addrlabel add prefix P [dev D] label L` (`prefix` as the request gave it, host
    /// bits kept: they decide the address type the entry is limited to, [`addrtype_of`]):
    /// EINVAL for an IPv4-mapped prefix
    /// longer than /96 (`ip6addrlbl_alloc`), a device that does not exist or the
    /// default label; EEXIST for an entry of the same prefix and device.
    pub fn addrlabel_add(&mut self, prefix: Prefix6, ifindex: u32, label: u32) -> Result<()> {
        if label == LABEL_DEFAULT || (ifindex != 0 && self.link(ifindex).is_none()) {
            return Err(Error::new(Errno::EINVAL));
        }
        let Some(addrtype) = addrtype_of(prefix.addr, prefix.len) else {
            return Err(Error::new(Errno::EINVAL));
        };
        let new = AddrLabel {
            prefix: Prefix6::new(prefix.addr, prefix.len),
            ifindex,
            label,
            addrtype,
        };
        insert(&mut self.addrlabels, new)?;
        self.bump();
        Ok(())
    }

    /// `ip addrlabel del prefix P [dev D] label L`: the entry of that prefix and
    /// device, whatever its label (`ip6addrlbl_del`); ESRCH when there is none. The
    /// device need not exist any more (an entry outlives its device: `ip addrlabel
    /// flush` deletes it; scenario 493).
    pub fn addrlabel_del(&mut self, prefix: Prefix6, ifindex: u32) -> Result<()> {
        let prefix = Prefix6::new(prefix.addr, prefix.len);
        let Some(i) = self
            .addrlabels
            .iter()
            .position(|p| p.prefix == prefix && p.ifindex == ifindex)
        else {
            return Err(Error::new(Errno::ESRCH));
        };
        self.addrlabels.remove(i);
        self.bump();
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn default_table_is_in_the_kernels_order() {
        let t: Vec<(u8, u32)> = default_table()
            .iter()
            .map(|e| (e.prefix.len, e.label))
            .collect();
        // as `ip addrlabel list` shows a new namespace's
        assert_eq!(
            t,
            [
                (128, 0),
                (96, 3),
                (96, 4),
                (32, 6),
                (28, 7),
                (16, 12),
                (16, 2),
                (10, 11),
                (7, 5),
                (0, 1)
            ]
        );
    }
}
