//! Fixtures shared by the engine's integration tests.

use fibkit::addr::{ifa, Addr4, Addr6};
use fibkit::link::LinkKind;
use fibkit::netns::LinkAdd;
use fibkit::Netns;

/// A namespace with link `d0` (up) holding 192.0.2.1/24 and 2001:db8:1::1/64, and the
/// link's index.
pub fn ns_with_link() -> (Netns, u32) {
    let mut ns = Netns::new();
    let d0 = ns
        .link_add(&LinkAdd {
            name: "d0".into(),
            kind: Some(LinkKind::Dummy),
            up: true,
            ..Default::default()
        })
        .expect("link");
    ns.addr4_add(
        d0,
        Addr4 {
            local: 0xc000_0201,
            address: 0xc000_0201,
            plen: 24,
            broadcast: 0,
            scope: 0,
            flags: ifa::PERMANENT,
            metric: 0,
            label: String::new(),
        },
    )
    .expect("addr");
    ns.addr6_add(
        d0,
        Addr6 {
            addr: 0x2001_0db8_0001_u128 << 80 | 1,
            plen: 64,
            flags: 0,
            metric: 0,
            scope: 0,
        },
    )
    .expect("addr6");
    (ns, d0)
}
