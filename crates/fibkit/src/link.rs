//! Network devices: loopback, dummy and veth, with the admin and carrier state routing sees.

/// What kind of device a link is.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum LinkKind {
    /// The loopback device `lo` (always index 1).
    Loopback,
    /// A dummy device (always has carrier, NOARP).
    Dummy,
    /// One end of a veth pair; `peer` is the other end's index (0 once the peer is gone).
    Veth {
        /// The peer's ifindex.
        peer: u32,
    },
}

impl LinkKind {
    /// The iproute2 `type` keyword of the kind.
    pub fn type_name(&self) -> &'static str {
        match self {
            LinkKind::Loopback => "loopback",
            LinkKind::Dummy => "dummy",
            LinkKind::Veth { .. } => "veth",
        }
    }
}

/// A network device of the namespace.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Link {
    /// Interface index (`lo` is 1).
    pub index: u32,
    /// Interface name.
    pub name: String,
    /// Device kind.
    pub kind: LinkKind,
    /// Hardware address.
    pub mac: [u8; 6],
    /// Administratively up (IFF_UP).
    pub up: bool,
    /// Carrier (lower layer up). Loopback and dummy always have it; a veth has it
    /// while both ends are up.
    pub carrier: bool,
    /// Device group (`ip link set DEV group N`).
    pub group: u32,
    /// MTU.
    pub mtu: u32,
    /// Whether the device has ever been up: its default qdisc, attached at the first
    /// `dev_activate`, stays (and is shown) after it goes down again.
    pub qdisc_attached: bool,
    /// Transmit queue length (`txqueuelen`; the kernel keeps an `int`'s bits): 32 for
    /// ifb, 1000 for loopback and veth.
    pub txqlen: u32,
    /// Description (`ip link set DEV alias TEXT`; `IFLA_IFALIAS`).
    pub alias: Option<String>,
}

impl Link {
    /// Whether this is the loopback device.
    pub fn is_loopback(&self) -> bool {
        self.kind == LinkKind::Loopback
    }

    /// The kernel's `netif_oper_up`-style readiness used by IPv6 address configuration:
    /// up with carrier.
    pub fn oper_up(&self) -> bool {
        self.up && self.carrier
    }

    /// iproute2's operstate word for `ip link show`.
    pub fn operstate(&self) -> &'static str {
        match self.kind {
            LinkKind::Loopback | LinkKind::Dummy => {
                if self.up {
                    "UNKNOWN"
                } else {
                    "DOWN"
                }
            }
            LinkKind::Veth { .. } => {
                if !self.up {
                    "DOWN"
                } else if self.carrier {
                    "UP"
                } else {
                    "LOWERLAYERDOWN"
                }
            }
        }
    }

    /// The flag words iproute2 prints between `<` and `>`.
    pub fn flag_words(&self) -> Vec<&'static str> {
        let mut v = Vec::new();
        match self.kind {
            LinkKind::Loopback => v.push("LOOPBACK"),
            LinkKind::Dummy => {
                v.push("BROADCAST");
                v.push("NOARP");
            }
            LinkKind::Veth { .. } => {
                if self.up && !self.carrier {
                    v.push("NO-CARRIER");
                }
                v.push("BROADCAST");
                v.push("MULTICAST");
            }
        }
        if self.up {
            v.push("UP");
            if self.carrier {
                v.push("LOWER_UP");
            }
        }
        v
    }

    /// The modified EUI-64 interface identifier derived from the MAC address.
    pub fn eui64(&self) -> u64 {
        let m = self.mac;
        let bytes = [m[0] ^ 0x02, m[1], m[2], 0xff, 0xfe, m[3], m[4], m[5]];
        u64::from_be_bytes(bytes)
    }
}
