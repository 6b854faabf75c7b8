//! The kernel build options (`CONFIG_*`) that change what the kernel answers.
//!
//! fibkit answers as the kernel it is checked against was built. Two kernels of the same
//! release can differ here: the 6.18.44 builds this project was recorded on first had
//! multicast routing and later had none (a multicast destination's `ip -6 route get
//! ... iif DEV` answers differently with and without it), and the latest has no SRv6
//! lightweight tunnels or HMAC either. [`KernelConfig::default`] is
//! the build the project records with now; a scenario recorded on another build names
//! its options in a `# kernel-config:` line (see `fibkit_iproute::scenario`), and the
//! live mirror reads the host's.

/// The options modelled.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub struct KernelConfig {
    /// `CONFIG_IP_MROUTE` (with `CONFIG_IP_MROUTE_MULTIPLE_TABLES`): IPv4 multicast
    /// routing, whose rules (`ip mrule`) and tables (`ip mroute show table`) exist only
    /// with it; without it the rules' family is not supported and every multicast
    /// route dump is empty.
    pub ip_mroute: bool,
    /// `CONFIG_IPV6_MROUTE`: IPv6 multicast routing. With it, `rt6_fill_node` asks
    /// multicast routing (`ip6mr_get_route`) about an input lookup's multicast route,
    /// which no multicast routing daemon has resolved here: the answer fails with
    /// EMSGSIZE. Without it the route is answered as any other, with its `iif`.
    /// IPv6 multicast routing also has rules and tables (`ip -6 mrule`, `ip -6
    /// mroute`) and a `mc_forwarding` setting per device (`ip netconf`).
    pub ipv6_mroute: bool,
    /// `CONFIG_IPV6_SEG6_LWTUNNEL`: the `seg6` and `seg6local` lightweight tunnels.
    /// Without it `lwtunnel_valid_encap_type` refuses both (EOPNOTSUPP, "lwt
    /// encapsulation type not supported") wherever a route or nexthop names one.
    pub ipv6_seg6_lwtunnel: bool,
    /// `CONFIG_IPV6_SEG6_HMAC`: the SRv6 HMAC key table (`ip sr hmac`); without it the
    /// seg6 generic netlink family answers its commands with the kernel-internal
    /// ENOTSUPP (524).
    pub ipv6_seg6_hmac: bool,
}

impl KernelConfig {
    /// Read `CONFIG_NAME=y|n` words (`CONFIG_` may be left out; `m` counts as `y`),
    /// changing the options named. An unknown option or value is an error naming it.
    pub fn set_words<'a>(
        &mut self,
        words: impl IntoIterator<Item = &'a str>,
    ) -> Result<(), String> {
        for w in words {
            let (name, v) = w
                .split_once('=')
                .ok_or_else(|| format!("kernel option \"{w}\": NAME=y or NAME=n expected"))?;
            let on = match v {
                "y" | "m" => true,
                "n" => false,
                _ => return Err(format!("kernel option \"{w}\": value must be y, m or n")),
            };
            match name.strip_prefix("CONFIG_").unwrap_or(name) {
                "IP_MROUTE" => self.ip_mroute = on,
                "IPV6_MROUTE" => self.ipv6_mroute = on,
                "IPV6_SEG6_LWTUNNEL" => self.ipv6_seg6_lwtunnel = on,
                "IPV6_SEG6_HMAC" => self.ipv6_seg6_hmac = on,
                _ => return Err(format!("kernel option \"{name}\" is not modelled")),
            }
        }
        Ok(())
    }

    /// Whether the family's multicast routing is built in (`v6`: IPv6's).
    pub fn mroute(&self, v6: bool) -> bool {
        if v6 {
            self.ipv6_mroute
        } else {
            self.ip_mroute
        }
    }

    /// The options as `CONFIG_NAME=y|n` words.
    pub fn words(&self) -> Vec<String> {
        let yn = |b: bool| if b { "y" } else { "n" };
        vec![
            format!("CONFIG_IP_MROUTE={}", yn(self.ip_mroute)),
            format!("CONFIG_IPV6_MROUTE={}", yn(self.ipv6_mroute)),
            format!("CONFIG_IPV6_SEG6_LWTUNNEL={}", yn(self.ipv6_seg6_lwtunnel)),
            format!("CONFIG_IPV6_SEG6_HMAC={}", yn(self.ipv6_seg6_hmac)),
        ]
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn words_round_trip_and_errors() {
        let mut c = KernelConfig::default();
        assert!(!c.ipv6_mroute);
        c.set_words(["CONFIG_IPV6_MROUTE=y"]).unwrap();
        assert!(c.ipv6_mroute);
        assert_eq!(
            c.words(),
            [
                "CONFIG_IP_MROUTE=n",
                "CONFIG_IPV6_MROUTE=y",
                "CONFIG_IPV6_SEG6_LWTUNNEL=n",
                "CONFIG_IPV6_SEG6_HMAC=n"
            ]
        );
        c.set_words(["CONFIG_IPV6_SEG6_LWTUNNEL=y", "IPV6_SEG6_HMAC=m"])
            .unwrap();
        assert!(c.ipv6_seg6_lwtunnel && c.ipv6_seg6_hmac);
        c.set_words(["CONFIG_IPV6_SEG6_LWTUNNEL=n"]).unwrap();
        assert!(!c.ipv6_seg6_lwtunnel && c.ipv6_seg6_hmac);
        c.set_words(["CONFIG_IP_MROUTE=m"]).unwrap();
        assert!(c.ip_mroute && c.mroute(false) && c.mroute(true));
        c.set_words(["IPV6_MROUTE=n"]).unwrap();
        assert!(!c.ipv6_mroute);
        assert!(c.set_words(["CONFIG_NET_VRF=y"]).is_err());
        assert!(c.set_words(["CONFIG_IPV6_MROUTE"]).is_err());
        assert!(c.set_words(["CONFIG_IPV6_MROUTE=x"]).is_err());
    }
}
