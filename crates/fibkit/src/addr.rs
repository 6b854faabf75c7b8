//! Interface addresses (IPv4 `in_ifaddr`, IPv6 `inet6_ifaddr`).

/// `IFA_F_*` address flags.
pub mod ifa {
    /// Secondary address.
    pub const SECONDARY: u32 = 0x01;
    /// An IPv6 temporary (privacy) address: the same bit as [`SECONDARY`].
    pub const TEMPORARY: u32 = 0x01;
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

/// An address's lifetimes as the kernel keeps them (`ifa_valid_lft`/`valid_lft`,
/// `ifa_preferred_lft`/`prefered_lft`, `ifa_tstamp`/`tstamp`): the seconds each had
/// when they were last set, at `tstamp` on the engine's clock
/// ([`crate::Netns::now`]); [`Lifetime::INFINITE`] is forever. An address whose valid
/// lifetime is finite is not `IFA_F_PERMANENT` (iproute2 prints it `dynamic`), loses
/// its preferred state (`deprecated`) once the preferred lifetime has run out, and is
/// deleted once the valid one has ([`crate::Netns::set_now`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Lifetime {
    /// Valid lifetime in seconds at `tstamp`.
    pub valid: u32,
    /// Preferred lifetime in seconds at `tstamp` (never above `valid`).
    pub preferred: u32,
    /// When they were set (engine seconds).
    pub tstamp: u64,
}

impl Lifetime {
    /// `INFINITY_LIFE_TIME`.
    pub const INFINITE: u32 = u32::MAX;

    /// Both lifetimes forever.
    pub const FOREVER: Lifetime = Lifetime {
        valid: Lifetime::INFINITE,
        preferred: Lifetime::INFINITE,
        tstamp: 0,
    };

    /// `flags` with the `IFA_F_PERMANENT` and `IFA_F_DEPRECATED` the lifetimes imply
    /// (`set_ifa_lifetime`, `inet6_addr_add`): permanent when the valid lifetime is
    /// forever, deprecated when the preferred one is 0.
    pub fn flags(&self, flags: u32) -> u32 {
        let mut f = flags & !(ifa::PERMANENT | ifa::DEPRECATED);
        if self.is_permanent() {
            f |= ifa::PERMANENT;
        }
        if self.preferred == 0 {
            f |= ifa::DEPRECATED;
        }
        f
    }

    /// Whether the valid lifetime is forever (the address is `IFA_F_PERMANENT`).
    pub fn is_permanent(&self) -> bool {
        self.valid == Lifetime::INFINITE
    }

    /// The lifetimes left at `now` as `inet6_fill_ifaddr`/`inet_fill_ifaddr` report
    /// them for an address that is not shown as forever: each minus the whole seconds
    /// since `tstamp`, down to 0; a preferred lifetime of forever leaves both as set.
    pub fn left(&self, now: u64) -> (u32, u32) {
        let (mut valid, mut preferred) = (self.valid, self.preferred);
        if preferred != Lifetime::INFINITE {
            let t = now.saturating_sub(self.tstamp);
            preferred = u64::from(preferred).saturating_sub(t) as u32;
            if valid != Lifetime::INFINITE {
                valid = u64::from(valid).saturating_sub(t) as u32;
            }
        }
        (valid, preferred)
    }

    /// Whether the valid lifetime has run out at `now`.
    pub fn expired(&self, now: u64) -> bool {
        self.valid != Lifetime::INFINITE && now.saturating_sub(self.tstamp) >= u64::from(self.valid)
    }

    /// Whether the preferred lifetime has run out at `now`.
    pub fn deprecated(&self, now: u64) -> bool {
        self.preferred != Lifetime::INFINITE
            && now.saturating_sub(self.tstamp) >= u64::from(self.preferred)
    }
}

impl Default for Lifetime {
    fn default() -> Lifetime {
        Lifetime::FOREVER
    }
}

/// An IPv4 interface address.
#[derive(Clone, Debug)]
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
    /// Valid and preferred lifetimes (`valid_lft`, `preferred_lft`).
    pub life: Lifetime,
    /// When the address entered the namespace's address hash (`inet_hash_insert`), set
    /// by [`crate::Netns::addr4_add`]: of several devices holding one address,
    /// `__ip_dev_find` finds the one whose address came last (the hash chain takes new
    /// entries at its head). Not part of an address's identity (ignored by `==`).
    pub hashed: u64,
}

impl PartialEq for Addr4 {
    fn eq(&self, o: &Addr4) -> bool {
        // every field but `hashed`
        let Addr4 {
            local,
            address,
            plen,
            broadcast,
            scope,
            flags,
            metric,
            label,
            life,
            hashed: _,
        } = self;
        *local == o.local
            && *address == o.address
            && *plen == o.plen
            && *broadcast == o.broadcast
            && *scope == o.scope
            && *flags == o.flags
            && *metric == o.metric
            && *label == o.label
            && *life == o.life
    }
}

impl Eq for Addr4 {}

impl Addr4 {
    /// 127.0.0.1/8, scope host, permanent: what the loopback gets when it comes up
    /// (`inetdev_event`), labelled with its name.
    pub fn loopback(label: &str) -> Addr4 {
        Addr4 {
            life: Default::default(),
            local: 0x7f00_0001,
            address: 0x7f00_0001,
            plen: 8,
            broadcast: 0,
            scope: crate::route::scope::HOST,
            flags: ifa::PERMANENT,
            metric: 0,
            label: label.into(),
            hashed: 0,
        }
    }

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
    /// Valid and preferred lifetimes (`valid_lft`, `preferred_lft`).
    pub life: Lifetime,
    /// Kept over its link's going down, waiting for DAD to run again when the link
    /// comes up (`INET6_IFADDR_STATE_PREDAD`; a `nodad` address is not tentative
    /// meanwhile, but is announced again all the same).
    pub predad: bool,
}
