//! Network devices: loopback, dummy, veth and bridge, with the admin and carrier state
//! routing sees.

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
    /// A bridge (`br_dev_setup`): an Ethernet device whose carrier follows its ports
    /// (see [`Link::master`]): on while it is up and one of them is up with carrier.
    Bridge,
    /// A persistent tun (layer 3, `ARPHRD_NONE`: no address, `POINTOPOINT`, `NOARP`)
    /// or tap (Ethernet) device (`ip tuntap add`). No process is attached to it in a
    /// model, so it never has carrier.
    Tun {
        /// A tap device.
        tap: bool,
        /// Its `IFF_*` tun flags besides the mode (`IFF_NO_PI`, `IFF_ONE_QUEUE`,
        /// `IFF_VNET_HDR`, `IFF_MULTI_QUEUE`), as `tun_flags` shows them.
        flags: u16,
        /// Its owner (`TUNSETOWNER`: `ip tuntap add ... user`), if set.
        owner: Option<u32>,
        /// Its group (`TUNSETGROUP`: `ip tuntap add ... group`), if set.
        group: Option<u32>,
    },
    /// A macvlan device (`drivers/net/macvlan.c`): an Ethernet device of its own
    /// address on top of a lower Ethernet device, whose carrier it copies (see
    /// [`crate::macvlan`]).
    Macvlan {
        /// The lower device's ifindex (never another macvlan: one made on a macvlan
        /// goes on that macvlan's lower device).
        lower: u32,
        /// `MACVLAN_MODE_*` ([`macvlan_mode`]).
        mode: u32,
        /// `MACVLAN_FLAG_*`: 1 `nopromisc`, 2 `nodst`.
        flags: u16,
        /// `bcqueuelen` (the length of its broadcast queue asked for).
        bcqueuelen: u32,
        /// Its MTU ceiling: the lower device's at creation (0: none).
        max_mtu: u32,
        /// A macvtap (`drivers/net/macvtap.c`): the same device with a character
        /// device for a process, and a queue (`txqueuelen` 500, a root qdisc).
        tap: bool,
        /// The source mode's remote addresses, oldest first (the port's
        /// `vlan_source_hash` entries of this device; shown in the kernel's order by
        /// [`Netns::macvlan_sources`](crate::netns::Netns::macvlan_sources)).
        sources: Vec<[u8; 6]>,
    },
    /// A VXLAN device (see [`crate::vxlan`]).
    Vxlan(Box<crate::vxlan::Vxlan>),
}

/// `__dev_set_promiscuity` / `__dev_set_allmulti` by one step on a device's count:
/// the count is an unsigned int, so a step down from zero wraps (the kernel only
/// guards the way up: a step that would bring the count back to zero is refused
/// with EOVERFLOW and leaves it as it was).
pub fn dev_count_step(count: &mut u32, up: bool) {
    *count = if up {
        count.checked_add(1).unwrap_or(*count)
    } else {
        count.wrapping_sub(1)
    };
}

/// `is_valid_ether_addr`: a unicast Ethernet address other than 00:00:00:00:00:00 (what
/// the kernel takes for a device's address, or a macvlan's source address; anything
/// else is EADDRNOTAVAIL).
pub fn is_valid_ether_addr(a: &[u8; 6]) -> bool {
    a[0] & 1 == 0 && *a != [0; 6]
}

/// The macvlan modes (`MACVLAN_MODE_*`, `if_link.h`).
pub mod macvlan_mode {
    /// Frames between macvlans of one lower device are dropped.
    pub const PRIVATE: u32 = 1;
    /// Frames between macvlans go out through the lower device (the default).
    pub const VEPA: u32 = 2;
    /// Frames between macvlans are passed directly.
    pub const BRIDGE: u32 = 4;
    /// The only macvlan of its lower device, which it takes over (its address).
    pub const PASSTHRU: u32 = 8;
    /// Receives the frames of listed source addresses.
    pub const SOURCE: u32 = 16;

    /// `IFLA_MACVLAN_MACADDR_MODE`: add the address given.
    pub const MACADDR_ADD: u32 = 0;
    /// Delete the address given.
    pub const MACADDR_DEL: u32 = 1;
    /// Empty the list.
    pub const MACADDR_FLUSH: u32 = 2;
    /// Replace the list.
    pub const MACADDR_SET: u32 = 3;

    /// iproute2's word for a mode.
    pub fn name(mode: u32) -> &'static str {
        match mode {
            PRIVATE => "private",
            VEPA => "vepa",
            BRIDGE => "bridge",
            PASSTHRU => "passthru",
            SOURCE => "source",
            _ => "unknown",
        }
    }
}

/// The tun flags (`if_tun.h`).
pub mod tunf {
    /// No packet information header (what `ip tuntap` asks for without `pi`).
    pub const NO_PI: u16 = 0x1000;
    /// `one_queue` (kept, without effect).
    pub const ONE_QUEUE: u16 = 0x2000;
    /// `vnet_hdr`.
    pub const VNET_HDR: u16 = 0x4000;
    /// `multi_queue`.
    pub const MULTI_QUEUE: u16 = 0x0100;
}

impl LinkKind {
    /// The flags a new device of the kind starts with (`loopback_setup`; `ifb_setup`
    /// clears `MULTICAST` and sets `NOARP`; `ether_setup` for veth).
    pub fn initial_flags(&self) -> u32 {
        match self {
            LinkKind::Loopback => iff::LOOPBACK,
            LinkKind::Dummy => iff::BROADCAST | iff::NOARP,
            // tun_net_init: a tun is point-to-point without ARP, and so is a VXLAN GPE
            // device (vxlan_raw_setup)
            LinkKind::Tun { tap: false, .. } => iff::POINTOPOINT | iff::MULTICAST | iff::NOARP,
            LinkKind::Vxlan(c) if c.gpe => iff::POINTOPOINT | iff::MULTICAST | iff::NOARP,
            LinkKind::Veth { .. }
            | LinkKind::Bridge
            | LinkKind::Tun { tap: true, .. }
            | LinkKind::Macvlan { .. }
            | LinkKind::Vxlan(_) => iff::BROADCAST | iff::MULTICAST,
        }
    }

    /// The TSO size limit a new device of the kind has before it is registered:
    /// `alloc_netdev_mqs` gives every device `GSO_LEGACY_MAX_SIZE` (64 KiB), which the
    /// setups of ifb (the dummy here), veth and the loopback raise to
    /// `GSO_MAX_SIZE`; a macvlan or VXLAN device takes its lower device's only at its
    /// `ndo_init`/`newlink`, a bridge its ports' as they join.
    pub fn setup_tso_max_size(&self) -> u32 {
        match self {
            LinkKind::Loopback | LinkKind::Dummy | LinkKind::Veth { .. } => TSO_MAX_SIZE,
            _ => 65536,
        }
    }

    /// The device's MTU floor (`min_mtu`): `ether_setup`'s 68, none for ifb and the
    /// loopback.
    pub fn min_mtu(&self) -> u32 {
        match self {
            LinkKind::Dummy | LinkKind::Loopback => 0,
            _ => 68,
        }
    }

    /// The device's MTU ceiling (`max_mtu`; 0: none). A macvlan's is its lower
    /// device's at creation.
    pub fn max_mtu(&self) -> u32 {
        match self {
            LinkKind::Veth { .. }
            | LinkKind::Bridge
            | LinkKind::Tun { tap: false, .. }
            | LinkKind::Vxlan(_) => 65535,
            // tun_net_init: a tap's leaves room for its Ethernet header
            LinkKind::Tun { tap: true, .. } => 65521,
            LinkKind::Dummy | LinkKind::Loopback => 0,
            LinkKind::Macvlan { max_mtu, .. } => *max_mtu,
        }
    }

    /// The iproute2 `type` keyword of the kind.
    pub fn type_name(&self) -> &'static str {
        match self {
            LinkKind::Loopback => "loopback",
            LinkKind::Dummy => "dummy",
            LinkKind::Veth { .. } => "veth",
            LinkKind::Bridge => "bridge",
            LinkKind::Tun { .. } => "tun",
            LinkKind::Macvlan { tap: false, .. } => "macvlan",
            LinkKind::Macvlan { tap: true, .. } => "macvtap",
            LinkKind::Vxlan(_) => "vxlan",
        }
    }
}

/// Interface flags (`IFF_*`), as `dev_get_flags()` reports them.
pub mod iff {
    /// Administratively up.
    pub const UP: u32 = 0x1;
    /// Has a broadcast address.
    pub const BROADCAST: u32 = 0x2;
    /// Debugging (no effect).
    pub const DEBUG: u32 = 0x4;
    /// The loopback device.
    pub const LOOPBACK: u32 = 0x8;
    /// Point-to-point.
    pub const POINTOPOINT: u32 = 0x10;
    /// `trailers off` (no effect).
    pub const NOTRAILERS: u32 = 0x20;
    /// Operationally up.
    pub const RUNNING: u32 = 0x40;
    /// No ARP / neighbour discovery: neighbours take the device's own address.
    pub const NOARP: u32 = 0x80;
    /// Promiscuous (as asked by the user: `promisc on`).
    pub const PROMISC: u32 = 0x100;
    /// All multicast (as asked by the user: `allmulticast on`).
    pub const ALLMULTI: u32 = 0x200;
    /// Supports multicast.
    pub const MULTICAST: u32 = 0x1000;
    /// Can set the media type.
    pub const PORTSEL: u32 = 0x2000;
    /// Auto media select.
    pub const AUTOMEDIA: u32 = 0x4000;
    /// Dialup device with changing addresses.
    pub const DYNAMIC: u32 = 0x8000;
    /// Carrier.
    pub const LOWER_UP: u32 = 0x1_0000;
    /// `IFF_DORMANT`: the driver's dormant bit (a macvlan's copy of its lower device's).
    pub const DORMANT: u32 = 0x2_0000;
    /// The flags `__dev_change_flags` writes as asked (besides `UP`, and `PROMISC` and
    /// `ALLMULTI`, which it counts).
    pub const CHANGEABLE: u32 =
        DEBUG | NOTRAILERS | NOARP | DYNAMIC | MULTICAST | PORTSEL | AUTOMEDIA;
    /// Every flag a request may ask for.
    pub const SETTABLE: u32 = CHANGEABLE | PROMISC | ALLMULTI;
    /// The names iproute2's `print_link_flags()` prints, in its order.
    pub const NAMES: &[(u32, &str)] = &[
        (LOOPBACK, "LOOPBACK"),
        (BROADCAST, "BROADCAST"),
        (POINTOPOINT, "POINTOPOINT"),
        (MULTICAST, "MULTICAST"),
        (NOARP, "NOARP"),
        (ALLMULTI, "ALLMULTI"),
        (PROMISC, "PROMISC"),
        (0x400, "MASTER"),
        (0x800, "SLAVE"),
        (DEBUG, "DEBUG"),
        (DYNAMIC, "DYNAMIC"),
        (AUTOMEDIA, "AUTOMEDIA"),
        (PORTSEL, "PORTSEL"),
        (NOTRAILERS, "NOTRAILERS"),
        (UP, "UP"),
        (LOWER_UP, "LOWER_UP"),
        (DORMANT, "DORMANT"),
        (0x4_0000, "ECHO"),
    ];
}

/// A network device of the namespace.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Link {
    /// Interface index (`lo` is 1).
    pub index: u32,
    /// Place in the namespace's device list (`dev_base_head`): the kernel lists its
    /// devices in the order they were registered, whatever their index (a veth's
    /// peer before the device itself), and walks that list (`for_each_netdev`).
    pub registered: u64,
    /// Interface name.
    pub name: String,
    /// Device kind.
    pub kind: LinkKind,
    /// Hardware address.
    pub mac: [u8; 6],
    /// Link-layer broadcast address (`dev->broadcast`: all ones for an Ethernet-like
    /// device, zeros for the loopback; `ip link set DEV broadcast LLADDR`).
    pub broadcast: [u8; 6],
    /// Administratively up (IFF_UP).
    pub up: bool,
    /// Carrier (lower layer up). Loopback and dummy always have it; a veth has it
    /// while both ends are up.
    pub carrier: bool,
    /// Carrier changes since the device was registered (`IFLA_CARRIER_CHANGES`: every
    /// `netif_carrier_on|off` that changed the state once the device was registered; a
    /// veth, a bridge, a tun or tap turn theirs off right after registration).
    pub carrier_changes: u32,
    /// Device group (`ip link set DEV group N`).
    pub group: u32,
    /// MTU.
    pub mtu: u32,
    /// Whether the device has ever been up: its default qdisc, attached at the first
    /// `dev_activate`, stays (and is shown) after it goes down again.
    pub qdisc_attached: bool,
    /// Whether the qdisc attached then is `noqueue` because the queue length was 0 at
    /// that moment (a queueing kind's `pfifo_fast` otherwise; it stays whatever the
    /// queue length becomes: conformance scenario 413).
    pub qdisc_noqueue: bool,
    /// Transmit queue length (`txqueuelen`; the kernel keeps an `int`'s bits): 32 for
    /// ifb, 1000 for loopback and veth.
    pub txqlen: u32,
    /// Description (`ip link set DEV alias TEXT`; `IFLA_IFALIAS`).
    pub alias: Option<String>,
    /// The device's flags but for `UP`, `RUNNING` and `LOWER_UP` (which follow `up`
    /// and `carrier`): the kind's own (`LOOPBACK`; `BROADCAST`, `NOARP` for ifb;
    /// `BROADCAST`, `MULTICAST` for veth) as changed by `ip link set` (`arp`,
    /// `multicast`, `dynamic`, `trailers`), and `PROMISC`/`ALLMULTI` as asked.
    pub flags: u32,
    /// The promiscuity count `ip -d link` shows (1 while `promisc on`).
    pub promiscuity: u32,
    /// The all-multicast count `ip -d link` shows (1 while `allmulticast on`).
    pub allmulti: u32,
    /// Alternative names (`ip link property add dev DEV altname NAME`), in the order
    /// they were added. Each is a name of the device for every lookup by name.
    pub altnames: Vec<String>,
    /// The bridge this device is a port of (`ip link set DEV master BR`), 0 for none.
    pub master: u32,
    /// A bridge's MTU was set by the user (`BROPT_MTU_SET_BY_USER`): its ports' MTUs
    /// no longer decide it.
    pub mtu_by_user: bool,
    /// Promiscuous for its unicast list (`uc_promisc`): a device without a unicast
    /// filter whose list (a macvlan's address) was not empty when its receive mode
    /// was last set while up; it holds one of [`Link::promiscuity`].
    pub uc_promisc: bool,
    /// The operational state as the link watch and `ip link set DEV state|mode` leave
    /// it (see [`Link::oper_code`]).
    pub oper: Oper,
    /// Limits and settings that change no route (`gso_max_size`, queue counts,
    /// protodown, ...).
    pub tuning: LinkTuning,
}

/// RFC 2863 operational states (`IF_OPER_*`), as `IFLA_OPERSTATE` carries them.
pub mod oper {
    /// `IF_OPER_UNKNOWN`: a device without carrier events (a dummy, the loopback).
    pub const UNKNOWN: u8 = 0;
    /// `IF_OPER_NOTPRESENT`.
    pub const NOTPRESENT: u8 = 1;
    /// `IF_OPER_DOWN`.
    pub const DOWN: u8 = 2;
    /// `IF_OPER_LOWERLAYERDOWN`: no carrier on a device stacked on another.
    pub const LOWERLAYERDOWN: u8 = 3;
    /// `IF_OPER_TESTING`.
    pub const TESTING: u8 = 4;
    /// `IF_OPER_DORMANT`.
    pub const DORMANT: u8 = 5;
    /// `IF_OPER_UP`.
    pub const UP: u8 = 6;
    /// iproute2's words for them, by number.
    pub const NAMES: [&str; 7] = [
        "UNKNOWN",
        "NOTPRESENT",
        "DOWN",
        "LOWERLAYERDOWN",
        "TESTING",
        "DORMANT",
        "UP",
    ];
}

/// A device's stored operational state (`dev->operstate`) and link mode
/// (`dev->link_mode`), kept as the kernel keeps them: the link watch
/// (`rfc2863_policy`) recomputes the state at each carrier change from the carrier
/// and the mode in force then (`UP` becomes `DORMANT` in mode dormant); between two
/// carrier changes it is what `ip link set DEV state` last made it (`set_operstate`).
/// A device without carrier events (a dummy) keeps `UNKNOWN` until a user changes it.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Oper {
    /// `IF_LINK_MODE_*` (`ip link set DEV mode default|dormant`: 0 or 1).
    pub link_mode: u8,
    /// Carrier changes so far (each one a link watch run).
    pub gen: u32,
    /// The link mode the last link watch run saw.
    pub watch_mode: u8,
    /// A state fixed since a carrier change (the count then): one a user set
    /// (`IFLA_OPERSTATE`), or the link watch's where it looked at another device (a
    /// macvlan without carrier by protodown over a lower device that has it: `DOWN`).
    pub user: Option<(u32, u8)>,
    /// `__LINK_STATE_DORMANT` and `__LINK_STATE_TESTING`, which a macvlan copies from
    /// its lower device (`netif_stacked_transfer_operstate`).
    pub dormant: bool,
    /// See [`Oper::dormant`].
    pub testing: bool,
    /// Whether a link watch has run on the device: until one does, a device that was
    /// registered with carrier keeps `IF_OPER_UNKNOWN` (`linkwatch_init_dev` leaves
    /// it), whatever its carrier and link mode.
    pub watched: bool,
}

/// Device settings that no route depends on, kept so that `ip -d link` shows them and
/// their checks answer as the kernel's do.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct LinkTuning {
    /// `gso_max_size` (`GSO_LEGACY_MAX_SIZE`, 65536, by default).
    pub gso_max_size: u32,
    /// `gso_max_segs` (`GSO_MAX_SEGS`, 65535).
    pub gso_max_segs: u32,
    /// `gro_max_size` (65536).
    pub gro_max_size: u32,
    /// Transmit queues asked for at creation (`numtxqueues`); `None`: the kind's.
    pub num_tx_queues: Option<u32>,
    /// Receive queues asked for at creation (`numrxqueues`).
    pub num_rx_queues: Option<u32>,
    /// `protodown on` (a device with `IFF_CHANGE_PROTO_DOWN` only: macvlan, VXLAN).
    pub proto_down: bool,
    /// The protodown reason bits (`protodown_reason N on|off`).
    pub proto_down_reason: u32,
    /// `tso_max_size` as the kernel last set it (`netif_set_tso_max_size`): a VXLAN
    /// device's from its lower device when made or given a new one, a macvlan's from
    /// its lower device when made (`netif_inherit_tso_max`), a bridge's from its ports
    /// at each port added or removed (`br_set_gso_limits`). A copy of that moment: it
    /// does not follow the other device's later changes. `None`: the kind's value at
    /// allocation (see [`crate::Netns::link_tso_max_size`]).
    pub tso_max_size: Option<u32>,
    /// `ip stats set dev DEV l3_stats on|off` (`RTM_SETSTATS`): L3 offload statistics
    /// requested (`netdev_offload_xstats_enable`, which any device takes; without a
    /// driver that counts them they are never in use and stay 0).
    pub l3_stats: bool,
}

impl Default for LinkTuning {
    fn default() -> Self {
        LinkTuning {
            gso_max_size: 65536,
            gso_max_segs: 65535,
            gro_max_size: 65536,
            num_tx_queues: None,
            num_rx_queues: None,
            proto_down: false,
            proto_down_reason: 0,
            tso_max_size: None,
            l3_stats: false,
        }
    }
}

impl LinkTuning {
    /// The GSO and GRO limits given (each kept as it is when `None`).
    pub fn set_gso(
        &mut self,
        gso_max_size: Option<u32>,
        gso_max_segs: Option<u32>,
        gro_max_size: Option<u32>,
    ) {
        for (v, slot) in [
            (gso_max_size, &mut self.gso_max_size),
            (gso_max_segs, &mut self.gso_max_segs),
            (gro_max_size, &mut self.gro_max_size),
        ] {
            if let Some(v) = v {
                *slot = v;
            }
        }
    }
}

/// `GRO_MAX_SIZE`: the largest `gro_max_size` (8 × 65535).
pub const GRO_MAX_SIZE: u32 = 524_280;

impl Link {
    /// The device this one is stacked on (`dev_get_iflink` when it is not the device
    /// itself): a veth's peer (0 once gone), a macvlan's lower device.
    pub fn iflink(&self) -> Option<u32> {
        match self.kind {
            LinkKind::Veth { peer } => Some(peer),
            LinkKind::Macvlan { lower, .. } => Some(lower),
            _ => None,
        }
    }

    /// Whether this is the loopback device.
    pub fn is_loopback(&self) -> bool {
        self.kind == LinkKind::Loopback
    }

    /// Whether the qdisc attached at its first opening is a pfifo_fast (a queueing
    /// kind: dummy, tun/tap, macvtap; not one made `noqueue`).
    pub fn has_pfifo_fast(&self) -> bool {
        self.qdisc_attached
            && !self.qdisc_noqueue
            && matches!(
                self.kind,
                LinkKind::Dummy | LinkKind::Tun { .. } | LinkKind::Macvlan { tap: true, .. }
            )
    }

    /// Whether this is a device of `ARPHRD_NONE` (no link-layer address): a tun, or a
    /// VXLAN GPE device (`vxlan_raw_setup`).
    pub fn is_tun(&self) -> bool {
        match &self.kind {
            LinkKind::Tun { tap: false, .. } => true,
            LinkKind::Vxlan(c) => c.gpe,
            _ => false,
        }
    }

    /// `addrconf_link_ready`'s test: up, with carrier, and operationally up
    /// (`netif_oper_up`: `UP` or `UNKNOWN`; not `DORMANT` or `TESTING`).
    pub fn oper_up(&self) -> bool {
        self.up && self.carrier && matches!(self.oper_code(), oper::UP | oper::UNKNOWN)
    }

    /// `default_operstate`: what the link watch makes of the device's carrier and
    /// dormant/testing bits. A device that never has a carrier event (loopback, dummy)
    /// is never watched: `UNKNOWN`; nor is a VXLAN device until protodown changes its
    /// carrier (then down without carrier, its `iflink` being itself, else up).
    fn watched_oper(&self) -> u8 {
        match self.kind {
            LinkKind::Loopback | LinkKind::Dummy => oper::UNKNOWN,
            LinkKind::Vxlan(_) if !self.oper.watched => oper::UNKNOWN,
            _ if self.oper.testing => oper::TESTING,
            // a device stacked on another (`iflink` not itself) is lower-layer-down
            // without carrier; one whose `iflink` is itself, down
            LinkKind::Veth { .. } | LinkKind::Macvlan { .. } if !self.carrier => {
                oper::LOWERLAYERDOWN
            }
            LinkKind::Bridge | LinkKind::Tun { .. } | LinkKind::Vxlan(_) if !self.carrier => {
                oper::DOWN
            }
            _ if self.oper.dormant => oper::DORMANT,
            _ => oper::UP,
        }
    }

    /// `dev->operstate`: the state a user set since the last carrier change, else the
    /// link watch's (`rfc2863_policy`: `UP` is `DORMANT` in link mode dormant).
    pub fn oper_code(&self) -> u8 {
        if let Some((g, s)) = self.oper.user {
            if g == self.oper.gen {
                return s;
            }
        }
        let w = self.watched_oper();
        if w == oper::UP && self.oper.watch_mode == 1 {
            oper::DORMANT
        } else {
            w
        }
    }

    /// A carrier change (`netif_carrier_on|off`), which runs the link watch.
    pub fn set_carrier(&mut self, c: bool) {
        if self.carrier != c {
            self.carrier = c;
            self.carrier_changes = self.carrier_changes.wrapping_add(1);
            self.link_watch();
        }
    }

    /// A link watch run (`linkwatch_do_dev`): the state is the policy's again.
    pub fn link_watch(&mut self) {
        self.oper.watched = true;
        self.oper.gen = self.oper.gen.wrapping_add(1);
        self.oper.watch_mode = self.oper.link_mode;
    }

    /// iproute2's operstate word for `ip link show` (`IFLA_OPERSTATE`: `DOWN` while
    /// the device is not running).
    pub fn operstate(&self) -> &'static str {
        if !self.up {
            return "DOWN";
        }
        oper::NAMES[usize::from(self.oper_code().min(6))]
    }

    /// `dev_get_flags()`: the flags with `UP`, and `RUNNING` and `LOWER_UP` while up
    /// with carrier.
    pub fn dev_flags(&self) -> u32 {
        let mut f = self.flags;
        if self.up {
            f |= iff::UP;
            if self.carrier {
                f |= iff::LOWER_UP;
            }
            if self.oper_up() {
                f |= iff::RUNNING;
            }
            if self.oper.dormant {
                f |= iff::DORMANT;
            }
        }
        f
    }

    /// `__dev_change_flags` for the flags of `mask` (within [`iff::SETTABLE`]) set as
    /// in `flags`: the changeable ones are written, `PROMISC` and `ALLMULTI` move their
    /// counts by one when the user's own setting changes. Returns the flags that
    /// changed.
    pub fn set_flags(&mut self, flags: u32, mask: u32) -> u32 {
        let mask = mask & iff::SETTABLE;
        let old = self.flags;
        let want = (old & !mask) | (flags & mask);
        let mut new = (old & !iff::CHANGEABLE) | (want & iff::CHANGEABLE);
        for (bit, count) in [
            (iff::PROMISC, &mut self.promiscuity),
            (iff::ALLMULTI, &mut self.allmulti),
        ] {
            if (want ^ old) & bit != 0 {
                // the error of a refused step up is dropped here
                dev_count_step(count, want & bit != 0);
                if want & bit != 0 {
                    new |= bit;
                } else {
                    new &= !bit;
                }
            }
        }
        self.flags = new;
        old ^ new
    }

    /// Whether neighbours on the device need no resolution (`arp_constructor`,
    /// `ndisc_constructor`: `NOARP` or `LOOPBACK`).
    pub fn noarp(&self) -> bool {
        self.flags & (iff::NOARP | iff::LOOPBACK) != 0
    }

    /// The flag words iproute2 prints between `<` and `>`.
    pub fn flag_words(&self) -> Vec<&'static str> {
        let f = self.dev_flags();
        let mut v = Vec::new();
        if self.up && !self.carrier {
            v.push("NO-CARRIER");
        }
        v.extend(
            iff::NAMES
                .iter()
                .filter(|&&(b, _)| f & b != 0)
                .map(|&(_, n)| n),
        );
        v
    }

    /// The modified EUI-64 interface identifier derived from the MAC address.
    pub fn eui64(&self) -> u64 {
        let m = self.mac;
        let bytes = [m[0] ^ 0x02, m[1], m[2], 0xff, 0xfe, m[3], m[4], m[5]];
        u64::from_be_bytes(bytes)
    }
}

/// `TSO_MAX_SIZE` (`GSO_MAX_SIZE`, 512 KiB less 8), the limit of most devices.
pub const TSO_MAX_SIZE: u32 = 524280;

impl crate::netns::Netns {
    /// Device `index`'s `tso_max_size`: the one the kernel last set (see
    /// [`LinkTuning::tso_max_size`]), else its kind's: 64 KiB (`TSO_LEGACY_MAX_SIZE`)
    /// for a tun or tap, a VXLAN device and a bridge (whose drivers set none at
    /// creation), [`TSO_MAX_SIZE`] for the others. 0 for no device.
    pub fn link_tso_max_size(&self, index: u32) -> u32 {
        let Some(l) = self.links.get(&index) else {
            return 0;
        };
        l.tuning.tso_max_size.unwrap_or(match l.kind {
            LinkKind::Tun { .. } | LinkKind::Vxlan(_) | LinkKind::Bridge => 65536,
            _ => TSO_MAX_SIZE,
        })
    }

    /// The devices device `dev` is stacked on directly (its lower devices, as
    /// `netdev_upper_dev_link` made them): a VXLAN device's lower device, a macvlan's,
    /// a bridge's ports.
    fn lowers_of(&self, dev: u32) -> Vec<u32> {
        match self.links.get(&dev).map(|l| &l.kind) {
            Some(LinkKind::Vxlan(c)) if c.lower != 0 => vec![c.lower],
            Some(LinkKind::Macvlan { lower, .. }) => vec![*lower],
            Some(LinkKind::Bridge) => self.bridge_ports(dev),
            _ => Vec::new(),
        }
    }

    /// Whether device `dev` is `top` or stacked over it (`__netdev_has_upper_dev`:
    /// `top`'s uppers, all the way up, are the macvlans and VXLAN devices made on it
    /// and the bridge it is a port of); the loop check of `__netdev_upper_dev_link`.
    pub(crate) fn is_stacked_on(&self, dev: u32, top: u32) -> bool {
        let mut todo = vec![dev];
        let mut seen = std::collections::BTreeSet::new();
        while let Some(cur) = todo.pop() {
            if cur == top {
                return true;
            }
            if seen.insert(cur) {
                todo.extend(self.lowers_of(cur));
            }
        }
        false
    }

    /// `dev->lower_level`: 1 for a device stacked on nothing, else one more than its
    /// highest lower device's.
    fn lower_level(&self, dev: u32, depth: u32) -> u32 {
        if depth > 16 {
            return 1;
        }
        1 + self
            .lowers_of(dev)
            .into_iter()
            .map(|x| self.lower_level(x, depth + 1))
            .max()
            .unwrap_or(0)
    }

    /// `dev->upper_level`: 1 for a device nothing is stacked on, else one more than
    /// its highest upper device's.
    fn upper_level(&self, dev: u32, depth: u32) -> u32 {
        if depth > 16 {
            return 1;
        }
        let uppers: Vec<u32> = self
            .links
            .keys()
            .copied()
            .filter(|&u| u != dev && self.lowers_of(u).contains(&dev))
            .collect();
        1 + uppers
            .into_iter()
            .map(|u| self.upper_level(u, depth + 1))
            .max()
            .unwrap_or(0)
    }

    /// Whether a new device made over `lower` would be too deep a stack
    /// (`__netdev_upper_dev_link`'s EMLINK: `lower`'s level and the new device's one
    /// above eight).
    pub(crate) fn stack_too_deep(&self, lower: u32) -> bool {
        self.lower_level(lower, 0) + 1 > 8
    }

    /// `__netdev_upper_dev_link(dev, upper)`'s checks before it links: a loop (the
    /// upper device already stacked over `dev`) is EBUSY, a stack deeper than
    /// `MAX_NEST_DEV` (8 levels) EMLINK "Too many links".
    pub(crate) fn check_upper_link(&self, dev: u32, upper: u32) -> crate::error::Result<()> {
        use crate::error::{Errno, Error};
        if self.is_stacked_on(dev, upper) {
            return Err(Error::new(Errno::EBUSY));
        }
        if self.lower_level(dev, 0) + self.upper_level(upper, 0) > 8 {
            return Err(Error::new(Errno::EMLINK));
        }
        Ok(())
    }

    /// `netif_set_tso_max_size(dev, size)`: the limit, and a larger `gso_max_size`
    /// lowered to it.
    pub(crate) fn link_set_tso_max_size(&mut self, index: u32, size: u32) {
        if let Some(l) = self.links.get_mut(&index) {
            let size = size.min(TSO_MAX_SIZE);
            l.tuning.tso_max_size = Some(size);
            l.tuning.gso_max_size = l.tuning.gso_max_size.min(size);
        }
    }

    /// `netif_inherit_tso_max(to, from)`: device `to` takes `from`'s limit as it is now.
    pub(crate) fn link_inherit_tso_max(&mut self, to: u32, from: u32) {
        let size = self.link_tso_max_size(from);
        if size != 0 {
            self.link_set_tso_max_size(to, size);
        }
    }

    /// `RTM_SETSTATS` with `IFLA_STATS_SET_OFFLOAD_XSTATS_L3_STATS` (`ip stats set dev
    /// DEV l3_stats on|off`, `rtnl_stats_set`): the device's L3 offload statistics
    /// requested or not. Asking for the state the device is in already is no error
    /// (the kernel's EALREADY is dropped); no device: ENODEV.
    pub fn link_set_l3_stats(&mut self, index: u32, on: bool) -> crate::error::Result<()> {
        let l = self
            .links
            .get_mut(&index)
            .ok_or(crate::error::Error::new(crate::error::Errno::ENODEV))?;
        l.tuning.l3_stats = on;
        self.bump();
        Ok(())
    }
}
