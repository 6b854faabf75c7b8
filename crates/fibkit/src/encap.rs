//! Lightweight tunnel encapsulations of a route's nexthop (`encap ip|ip6|seg6`; the
//! kernel's lwtunnel states: net/ipv4/ip_tunnel_core.c, net/ipv6/seg6_iptunnel.c).
//!
//! An encapsulation does not change which route a lookup finds: it travels with the
//! nexthop, is shown with it, tells two otherwise equal IPv4 routes (and IPv6
//! multipath legs) apart, and is matched by an IPv4 delete that names one. The types
//! this kernel has are modelled; `mpls`, `ila`, `ioam6`, `rpl` and `xfrm` it refuses
//! (EOPNOTSUPP), and fibkit refuses `seg6local` and `bpf`, which it does not model.

/// `TUNNEL_CSUM` of `LWTUNNEL_IP_FLAGS`.
pub const TUNNEL_CSUM: u16 = 0x01;
/// `TUNNEL_KEY`.
pub const TUNNEL_KEY: u16 = 0x04;
/// `TUNNEL_SEQ`.
pub const TUNNEL_SEQ: u16 = 0x08;

/// An SRv6 encapsulation's mode (`SEG6_IPTUN_MODE_*`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Seg6Mode {
    /// `inline`: the SRH is inserted (IPv6 routes only).
    Inline,
    /// `encap`: an outer IPv6 header with the SRH.
    Encap,
    /// `l2encap`.
    L2Encap,
    /// `encap.red` (reduced SRH).
    EncapRed,
    /// `l2encap.red`.
    L2EncapRed,
}

impl Seg6Mode {
    /// iproute2's name.
    pub fn name(self) -> &'static str {
        match self {
            Seg6Mode::Inline => "inline",
            Seg6Mode::Encap => "encap",
            Seg6Mode::L2Encap => "l2encap",
            Seg6Mode::EncapRed => "encap.red",
            Seg6Mode::L2EncapRed => "l2encap.red",
        }
    }

    /// The mode named `s`.
    pub fn from_name(s: &str) -> Option<Seg6Mode> {
        Some(match s {
            "inline" => Seg6Mode::Inline,
            "encap" => Seg6Mode::Encap,
            "l2encap" => Seg6Mode::L2Encap,
            "encap.red" => Seg6Mode::EncapRed,
            "l2encap.red" => Seg6Mode::L2EncapRed,
            _ => return None,
        })
    }
}

/// One encapsulation.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub enum Encap {
    /// `encap ip`: an IPv4 tunnel's metadata (for collect-metadata tunnel devices).
    Ip {
        /// Tunnel id (`id`).
        id: u64,
        /// Outer source.
        src: u32,
        /// Outer destination.
        dst: u32,
        /// Outer TTL (0: inherit).
        ttl: u8,
        /// Outer TOS.
        tos: u8,
        /// `TUNNEL_*` flags (`key`, `csum`, `seq`).
        flags: u16,
    },
    /// `encap ip6`.
    Ip6 {
        /// Tunnel id.
        id: u64,
        /// Outer source.
        src: u128,
        /// Outer destination.
        dst: u128,
        /// Outer hop limit.
        hoplimit: u8,
        /// Outer traffic class.
        tc: u8,
        /// `TUNNEL_*` flags.
        flags: u16,
    },
    /// `encap seg6`: an SRv6 segment routing header.
    Seg6 {
        /// The mode.
        mode: Seg6Mode,
        /// The segments as iproute2 lists them (the first to visit first; an inline
        /// header ends with `::`, the slot of the final destination).
        segs: Vec<u128>,
        /// The HMAC key id (0: none).
        hmac: u32,
    },
}

impl Encap {
    /// `lwtunnel_build_state`'s checks for a route of family `v6` (`seg6_build_state`:
    /// an inline SRH only on IPv6 routes).
    pub fn check(&self, v6: bool) -> crate::Result<()> {
        match self {
            Encap::Seg6 {
                mode: Seg6Mode::Inline,
                ..
            } if !v6 => Err(crate::Error::new(crate::Errno::EINVAL)),
            _ => Ok(()),
        }
    }

    /// The keyword after `encap`.
    pub fn type_name(&self) -> &'static str {
        match self {
            Encap::Ip { .. } => "ip",
            Encap::Ip6 { .. } => "ip6",
            Encap::Seg6 { .. } => "seg6",
        }
    }
}
