//! `fib mirror`: rebuild the current network namespace's routing state in fibkit
//! (through rtnetlink, see the `fibkit-netlink` crate) and answer for it.
//!
//! ```text
//! fib mirror [-q] [--save FILE|-]                  print the commands that rebuild the state
//! fib mirror [-q] [-4|-6] [-j] OBJECT COMMAND ...  mirror, then run one ip command on it
//! fib mirror [-q] --load FILE OBJECT COMMAND ...   replay a saved mirror, then run the command
//! fib mirror [-q] --follow [--resync] [--verify] [OBJECT COMMAND ...]
//!                                                  follow changes: route events
//!                                                  applied one by one, else a resync
//! ```
//!
//! To mirror another namespace, run it there: `ip netns exec NAME fib mirror ...`.
//! Warnings (what could not be mirrored exactly) go to stderr, prefixed with
//! `fib mirror: warning:`; `-q` silences them.

use std::io::Write;
use std::process::ExitCode;

use fibkit_iproute::exec::{run_ip, run_sysctl};
use fibkit_iproute::scenario::shell_split;
use fibkit_netlink::{Follower, Warning};

fn usage() -> ExitCode {
    eprintln!(
        "Usage: fib mirror [-q] [--save FILE|-]\n       fib mirror [-q] [-4|-6] [-j] OBJECT COMMAND ...\n       fib mirror [-q] --load FILE [-4|-6] [-j] OBJECT COMMAND ...\n       fib mirror [-q] --follow [--resync] [--verify] [OBJECT COMMAND ...]\nMirrors the current network namespace (use \"ip netns exec NAME fib mirror ...\" for another)."
    );
    ExitCode::from(255)
}

fn warn_all(ws: &[Warning], quiet: bool) {
    if quiet {
        return;
    }
    for w in ws {
        eprintln!("fib mirror: warning: {w}");
    }
}

/// The `sysctl` lines of a saved mirror are comments, so that `fib -batch` reads the
/// file; `--load` applies them.
const SYSCTL_PREFIX: &str = "# sysctl ";

/// Likewise the groups the host's processes joined (`mcjoin DEV GROUP`: no `ip`
/// command joins one).
const MCJOIN_PREFIX: &str = "# mcjoin ";

/// Likewise the attributes of their own that paths of IPv6 multipath routes have
/// (`pathattrs ...`: no `ip` command sets them apart from the route's other paths).
const PATHATTRS_PREFIX: &str = "# pathattrs ";

/// Likewise the kernel's build options that change answers (`kernel-config
/// CONFIG_X=y ...`), written as a scenario names them.
const KCONFIG_PREFIX: &str = fibkit_iproute::scenario::KERNEL_CONFIG;

/// `mcjoin DEV GROUP` of a saved mirror: the socket membership on the device.
fn run_mcjoin(ns: &mut fibkit::Netns, a: &str) -> Result<(), String> {
    let mut f = a.split_whitespace();
    let (Some(dev), Some(g), None) = (f.next(), f.next(), f.next()) else {
        return Err(format!("bad mcjoin line: {a}"));
    };
    let idx = ns
        .link_index(dev)
        .ok_or_else(|| format!("mcjoin: no device {dev}"))?;
    let g: std::net::IpAddr = g.parse().map_err(|_| format!("mcjoin: bad group {g}"))?;
    ns.mc_socket_join(idx, g)
        .map_err(|e| format!("mcjoin {dev} {g}: {e}"))
}

fn script(commands: &[String]) -> String {
    let mut s = String::from(
        "# fibkit mirror of a network namespace: `fib -batch FILE` rebuilds it without the\n# sysctls, socket group memberships, multipath paths' own attributes and kernel\n# build options (comment lines), `fib mirror --load FILE OBJECT COMMAND...` with them.\n",
    );
    for c in commands {
        if let Some(a) = c.strip_prefix("sysctl ") {
            s.push_str(SYSCTL_PREFIX);
            s.push_str(a);
        } else if let Some(a) = c.strip_prefix("mcjoin ") {
            s.push_str(MCJOIN_PREFIX);
            s.push_str(a);
        } else if let Some(a) = c.strip_prefix("pathattrs ") {
            s.push_str(PATHATTRS_PREFIX);
            s.push_str(a);
        } else if let Some(a) = c.strip_prefix("kernel-config ") {
            s.push_str(KCONFIG_PREFIX);
            s.push(' ');
            s.push_str(a);
        } else {
            s.push_str(c);
        }
        s.push('\n');
    }
    s
}

fn load(file: &str) -> Result<fibkit::Netns, String> {
    let text = if file == "-" {
        let mut s = String::new();
        std::io::Read::read_to_string(&mut std::io::stdin(), &mut s)
            .map_err(|e| format!("stdin: {e}"))?;
        s
    } else {
        std::fs::read_to_string(file).map_err(|e| format!("{file}: {e}"))?
    };
    let mut ns = fibkit::Netns::new();
    for (n, line) in text.lines().enumerate() {
        if let Some(a) = line.strip_prefix(SYSCTL_PREFIX) {
            run_sysctl(&mut ns, a).map_err(|e| format!("{file}:{}: {e}", n + 1))?;
            continue;
        }
        if let Some(a) = line.strip_prefix(MCJOIN_PREFIX) {
            run_mcjoin(&mut ns, a).map_err(|e| format!("{file}:{}: {e}", n + 1))?;
            continue;
        }
        if let Some(a) = line.strip_prefix(KCONFIG_PREFIX) {
            ns.kernel
                .set_words(a.split_whitespace())
                .map_err(|e| format!("{file}:{}: {e}", n + 1))?;
            continue;
        }
        if let Some(a) = line.strip_prefix(PATHATTRS_PREFIX) {
            fibkit_netlink::translate::run_pathattrs(&mut ns, a)
                .map_err(|e| format!("{file}:{}: {e}", n + 1))?;
            continue;
        }
        let line = line.split('#').next().unwrap_or("");
        let words = shell_split(line).map_err(|_| format!("{file}:{}: bad quoting", n + 1))?;
        if words.is_empty() {
            continue;
        }
        if let Err(f) = run_ip(&mut ns, &words) {
            return Err(format!("{file}:{}: {}", n + 1, f.stderr.trim_end()));
        }
    }
    Ok(ns)
}

/// `fib mirror ...` (the arguments after `mirror`).
pub fn main(args: &[String]) -> ExitCode {
    let mut quiet = false;
    let mut save: Option<String> = None;
    let mut load_file: Option<String> = None;
    let mut follow = false;
    let mut resync_only = false;
    let mut verify = false;
    let mut rest: Vec<String> = Vec::new();
    let mut i = 0;
    while i < args.len() {
        let a = args[i].as_str();
        if !rest.is_empty() {
            rest.push(args[i].clone());
            i += 1;
            continue;
        }
        match a {
            "-q" | "--quiet" => quiet = true,
            "--follow" => follow = true,
            "--resync" => resync_only = true,
            "--verify" => verify = true,
            "--save" | "--load" => {
                i += 1;
                let Some(f) = args.get(i) else {
                    return usage();
                };
                if a == "--save" {
                    save = Some(f.clone());
                } else {
                    load_file = Some(f.clone());
                }
            }
            "-h" | "--help" | "help" => {
                usage();
                return ExitCode::SUCCESS;
            }
            _ => rest.push(args[i].clone()),
        }
        i += 1;
    }
    if follow {
        return follow_main(quiet, !resync_only, verify, &rest);
    }
    if resync_only || verify {
        return usage();
    }
    let mut ns = if let Some(f) = load_file {
        match load(&f) {
            Ok(ns) => ns,
            Err(e) => {
                eprintln!("fib mirror: {e}");
                return ExitCode::from(1);
            }
        }
    } else {
        let state = match fibkit_netlink::dump() {
            Ok(s) => s,
            Err(e) => {
                eprintln!("fib mirror: {e}");
                return ExitCode::from(2);
            }
        };
        let t = state.translate();
        warn_all(&t.warnings, quiet);
        if rest.is_empty() || save.is_some() {
            let text = script(&t.commands);
            let target = save.unwrap_or_else(|| "-".into());
            if target == "-" {
                out!("{text}");
            } else if let Err(e) =
                std::fs::File::create(&target).and_then(|mut f| f.write_all(text.as_bytes()))
            {
                eprintln!("fib mirror: {target}: {e}");
                return ExitCode::from(1);
            }
            if rest.is_empty() {
                return ExitCode::SUCCESS;
            }
        }
        t.netns
    };
    if rest.is_empty() {
        return usage();
    }
    ExitCode::from(crate::one(&mut ns, &rest).0)
}

fn follow_main(quiet: bool, incremental: bool, verify: bool, cmd: &[String]) -> ExitCode {
    let (mut f, first) = match Follower::new() {
        Ok(x) => x,
        Err(e) => {
            eprintln!("fib mirror: {e}");
            return ExitCode::from(2);
        }
    };
    f.incremental = incremental;
    let s = &first.state;
    outln!(
        "resync 0: {} links, {} addresses, {} routes, {} rules, {} nexthops, {} warnings",
        s.links.len(),
        s.addrs.len(),
        s.routes.len(),
        s.rules.len(),
        s.nexthops.len(),
        first.translation.warnings.len()
    );
    warn_all(&first.translation.warnings, quiet);
    let mut ns = first.translation.netns;
    if !cmd.is_empty() {
        run_on(&mut ns, cmd);
    }
    for n in 1u64.. {
        let u = match f.wait_and_update(&mut ns) {
            Ok(u) => u,
            Err(e) => {
                eprintln!("fib mirror: {e}");
                return ExitCode::from(2);
            }
        };
        if u.incremental {
            outln!(
                "update {n}: {} events: {}, applied one by one",
                u.events,
                u.changes
            );
        } else {
            outln!(
                "resync {n}: {} events: {}, {} warnings",
                u.events,
                u.changes,
                u.warnings.len()
            );
        }
        warn_all(&u.warnings, quiet);
        if verify && u.incremental {
            match f.verify(&ns) {
                Ok(d) if d.is_empty() => outln!("verify {n}: the kernel's routes"),
                Ok(d) => {
                    outln!("verify {n}: {} lines differ", d.len());
                    for l in d {
                        outln!("  {l}");
                    }
                }
                Err(e) => eprintln!("fib mirror: verify: {e}"),
            }
        }
        if !cmd.is_empty() {
            run_on(&mut ns, cmd);
        }
    }
    ExitCode::SUCCESS
}

/// Run the follower's command on the mirror; one that may change it (not a `get`,
/// `show` or `list`) runs on a copy, so that the next events apply to the kernel's
/// state.
fn run_on(ns: &mut fibkit::Netns, cmd: &[String]) {
    let reads = cmd
        .iter()
        .any(|w| matches!(w.as_str(), "get" | "show" | "list" | "lst" | "ls"));
    if reads {
        crate::one(ns, cmd);
    } else {
        crate::one(&mut ns.clone(), cmd);
    }
}
