//! Interface addresses (IPv4 `in_ifaddr`, IPv6 `inet6_ifaddr`).

/// `IFA_F_*` address flags.
pub mod ifa {
    /// Secondary address.
    pub const SECONDARY: u32 = 0x01;
    /// No duplicate address detection.
    pub const NODAD: u32 = 0x02;
    /// Optimistic DAD.
    pub const OPTIMISTIC: u32 = 0x04;
    /// DAD failed.
    pub const DADFAILED: u32 = 0x08;
    /// Home address.
    pub const HOMEADDRESS: u32 = 0x10;
    /// Deprecated.
    pub const DEPRECATED: u32 = 0x20;
    /// Tentative.
    pub const TENTATIVE: u32 = 0x40;
    /// Permanent (configured by the administrator).
    pub const PERMANENT: u32 = 0x80;
    /// Managed temporary address.
    pub const MANAGETEMPADDR: u32 = 0x100;
    /// Do not create a prefix route.
    pub const NOPREFIXROUTE: u32 = 0x200;
    /// Join the multicast group of the address (`autojoin`).
    pub const MCAUTOJOIN: u32 = 0x400;
    /// Stable privacy address.
    pub const STABLE_PRIVACY: u32 = 0x800;
    /// The flags `__inet_insert_ifa` takes off an IPv4 address (`IPV6ONLY_FLAGS`).
    pub const IPV6ONLY: u32 =
        NODAD | OPTIMISTIC | DADFAILED | HOMEADDRESS | TENTATIVE | MANAGETEMPADDR | STABLE_PRIVACY;
}

/// An IPv4 interface address.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Addr4 {
    /// The local address (`ifa_local`).
    pub local: u32,
    /// The peer/prefix address (`ifa_address`; equals `local` without `peer`).
    pub address: u32,
    /// Prefix length.
    pub plen: u8,
    /// Explicit broadcast address (0: none).
    pub broadcast: u32,
    /// Scope.
    pub scope: u8,
    /// `IFA_F_*` flags.
    pub flags: u32,
    /// Metric of the prefix route.
    pub metric: u32,
    /// Label (defaults to the device name).
    pub label: String,
}

impl Addr4 {
    /// The network mask.
    pub fn mask(&self) -> u32 {
        crate::prefix::mask4(self.plen)
    }
    /// `inet_ifa_match`: whether `a` is in this address's subnet.
    pub fn matches(&self, a: u32) -> bool {
        (a ^ self.address) & self.mask() == 0
    }
    /// Whether this is a secondary address.
    pub fn secondary(&self) -> bool {
        self.flags & ifa::SECONDARY != 0
    }
}

/// An IPv6 interface address.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Addr6 {
    /// The address.
    pub addr: u128,
    /// Prefix length.
    pub plen: u8,
    /// `IFA_F_*` flags.
    pub flags: u32,
    /// Metric of the prefix route.
    pub metric: u32,
    /// Scope word for printing (`global`, `link`, `host`).
    pub scope: u8,
    /// The peer (`IFA_ADDRESS` beside a different `IFA_LOCAL`): the kernel adds a host
    /// route to it when the address comes into use.
    pub peer: Option<u128>,
}
