//! The scenario runner: reads the oracle's scenario format and prints the oracle's
//! normalized output, answering from a fibkit [`Netns`] instead of the kernel.

use fibkit::Netns;

use crate::exec::{run_ip, run_sysctl, GetAnswer, Outcome};
use crate::normal;

/// One statement of a scenario file.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Stmt {
    /// A `## comment` echoed to the output.
    Comment(String),
    /// A statement to execute (continuation lines joined, trailing ` #` comment removed).
    Line(String),
}

/// Split a scenario into statements, as the oracle's `read_statements` does.
pub fn read_statements(text: &str) -> Vec<Stmt> {
    let mut out = Vec::new();
    let mut buf = String::new();
    for raw in text.lines() {
        let stripped = raw.trim();
        if buf.is_empty() && (stripped.is_empty() || stripped.starts_with('#')) {
            if stripped.starts_with("##") {
                out.push(Stmt::Comment(stripped.to_string()));
            }
            continue;
        }
        let t = raw.trim_end();
        if let Some(x) = t.strip_suffix('\\') {
            buf.push_str(x);
            buf.push(' ');
            continue;
        }
        buf.push_str(raw);
        let stmt = strip_trailing_comment(&buf).trim().to_string();
        buf.clear();
        if !stmt.is_empty() {
            out.push(Stmt::Line(stmt));
        }
    }
    if !buf.trim().is_empty() {
        out.push(Stmt::Line(buf.trim().to_string()));
    }
    out
}

fn strip_trailing_comment(s: &str) -> &str {
    // re.sub(r"\s+#.*$", "", buf): the first whitespace-then-# sequence starts a comment
    let b = s.as_bytes();
    for i in 1..b.len() {
        if b[i] == b'#' && b[i - 1].is_ascii_whitespace() {
            let mut j = i - 1;
            while j > 0 && b[j - 1].is_ascii_whitespace() {
                j -= 1;
            }
            return &s[..j];
        }
    }
    s
}

/// A minimal shell-word splitter (`shlex.split` without comments).
pub fn shell_split(s: &str) -> Result<Vec<String>, String> {
    let mut out = Vec::new();
    let mut cur = String::new();
    let mut have = false;
    let mut chars = s.chars().peekable();
    while let Some(c) = chars.next() {
        match c {
            '\'' => {
                have = true;
                loop {
                    match chars.next() {
                        Some('\'') => break,
                        Some(x) => cur.push(x),
                        None => return Err("No closing quotation".into()),
                    }
                }
            }
            '"' => {
                have = true;
                loop {
                    match chars.next() {
                        Some('"') => break,
                        // shlex (POSIX mode) escapes only `"` and `\` inside double
                        // quotes: before any other character the backslash stays
                        Some('\\') => match chars.next() {
                            Some(x @ ('"' | '\\')) => cur.push(x),
                            Some(x) => {
                                cur.push('\\');
                                cur.push(x);
                            }
                            None => return Err("No escaped character".into()),
                        },
                        Some(x) => cur.push(x),
                        None => return Err("No closing quotation".into()),
                    }
                }
            }
            '\\' => {
                have = true;
                if let Some(x) = chars.next() {
                    cur.push(x);
                }
            }
            c if c.is_whitespace() => {
                if have {
                    out.push(std::mem::take(&mut cur));
                    have = false;
                }
            }
            c => {
                have = true;
                cur.push(c);
            }
        }
    }
    if have {
        out.push(cur);
    }
    Ok(out)
}

/// The oracle's `normalize_text_line`.
pub fn normalize_text_line(line: &str) -> String {
    let collapsed: Vec<&str> = line.split_whitespace().collect();
    let mut words: Vec<String> = Vec::new();
    let mut i = 0;
    while i < collapsed.len() {
        let w = collapsed[i];
        if w == "expires" && i + 1 < collapsed.len() && is_secs(collapsed[i + 1]) {
            words.push("expires".into());
            i += 2;
            continue;
        }
        if w == "age" && i + 1 < collapsed.len() && is_secs(collapsed[i + 1]) && !words.is_empty() {
            i += 2;
            continue;
        }
        words.push(w.to_string());
        i += 1;
    }
    let joined = strip_used(&words.join(" "));
    joined.split_whitespace().collect::<Vec<_>>().join(" ")
}

/// The oracle's `\bused \d+\b` removed: `used`, a space and digits, with a word
/// boundary before and after (`used 0/0/0` keeps its `/0/0`).
fn strip_used(line: &str) -> String {
    let word = |c: u8| c.is_ascii_alphanumeric() || c == b'_';
    let b = line.as_bytes();
    let mut out = String::with_capacity(line.len());
    let mut i = 0;
    while i < b.len() {
        if b[i..].starts_with(b"used ") && (i == 0 || !word(b[i - 1])) {
            let digits = b[i + 5..].iter().take_while(|c| c.is_ascii_digit()).count();
            let end = i + 5 + digits;
            if digits > 0 && (end == b.len() || !word(b[end])) {
                i = end;
                continue;
            }
        }
        let c = line[i..].chars().next().expect("in bounds");
        out.push(c);
        i += c.len_utf8();
    }
    out
}

fn is_secs(s: &str) -> bool {
    let t = s.strip_prefix('-').unwrap_or(s);
    t.strip_suffix("sec")
        .is_some_and(|n| !n.is_empty() && n.chars().all(|c| c.is_ascii_digit()))
}

/// The oracle's `clean_msg`: lines stripped, joined with ` / `, `"` replaced by `'`.
pub fn clean_msg(text: &str) -> String {
    let lines: Vec<&str> = text
        .trim()
        .lines()
        .map(str::trim)
        .filter(|l| !l.is_empty())
        .collect();
    lines.join(" / ").replace('"', "'")
}

fn is_route_get(args: &[String]) -> bool {
    let mut i = 0;
    while i < args.len() && args[i].starts_with('-') {
        if args[i] == "-f" || args[i] == "-family" {
            i += 1;
        }
        i += 1;
    }
    if i + 1 >= args.len() {
        return false;
    }
    let obj = &args[i];
    let cmd = &args[i + 1];
    !obj.is_empty()
        && "route".starts_with(obj.as_str())
        && !cmd.is_empty()
        && "get".starts_with(cmd.as_str())
}

/// Whether a route get (`args`: the whole `ip` command) asks for `connected` without
/// `from`.
fn get_connects(args: &[String]) -> bool {
    let words: Vec<&str> = args
        .iter()
        .map(String::as_str)
        .skip_while(|a| a.starts_with('-'))
        .skip(2)
        .collect();
    crate::exec::route_get_connects(&words)
}

/// Python's `repr` of a string, as the oracle prints an output it could not read: in
/// single quotes unless the text holds one and no double quote; backslashes, the
/// quote, tabs, newlines, carriage returns and other control characters escaped.
fn py_repr(s: &str) -> String {
    let q = if s.contains('\'') && !s.contains('"') {
        '"'
    } else {
        '\''
    };
    let mut o = String::with_capacity(s.len() + 2);
    o.push(q);
    for c in s.chars() {
        match c {
            '\\' => o.push_str("\\\\"),
            '\n' => o.push_str("\\n"),
            '\r' => o.push_str("\\r"),
            '\t' => o.push_str("\\t"),
            c if c == q => {
                o.push('\\');
                o.push(c);
            }
            c if (c as u32) < 0x20 || c as u32 == 0x7f => {
                o.push_str(&format!("\\x{:02x}", c as u32));
            }
            c => o.push(c),
        }
    }
    o.push(q);
    o
}

/// Runs scenarios against one namespace and collects the output lines.
pub struct Runner {
    /// The namespace.
    pub ns: Netns,
    /// Output lines so far.
    pub out: Vec<String>,
    /// The oracle's `--raw`: when set, each answered query is followed by its
    /// iproute2 text (the function's result for the namespace, the query's `ip`
    /// arguments and the answer), one `  raw| ` line per line.
    pub raw: Option<RawText>,
    /// The oracle's `--raw` proper: each answered query is asked a second time for its
    /// text (`ip route get` again: a second lookup, which sees what the first left
    /// behind, such as `fib_select_default`'s turn), its text printed when
    /// [`Runner::raw`] is set. Without it, [`Runner::raw`] serves only the second
    /// answer of `connected` queries.
    pub raw_lines: bool,
    /// The link names the oracle has seen (its `known_links`): after each `ip link`
    /// command with the word `add` that succeeds, a link of a name it has not seen
    /// gets an address from its index (see [`Runner::refresh_links`]).
    known_links: std::collections::BTreeSet<String>,
    /// How the last `ip` statement failed (`None`: it succeeded, or the last statement
    /// was no `ip` command); what `fib -batch` goes by to end a batch as iproute2 does.
    pub last_failure: Option<crate::exec::Failure>,
}

/// The comment that names a scenario's kernel build options (see [`Runner::run_text`]).
pub const KERNEL_CONFIG: &str = "# kernel-config:";

/// The printer of a query's iproute2 text for [`Runner::raw`].
pub type RawText = fn(&Netns, &[String], &GetAnswer) -> String;

impl Default for Runner {
    fn default() -> Self {
        Runner::new()
    }
}

impl Runner {
    /// A runner with a fresh namespace.
    pub fn new() -> Runner {
        let ns = Netns::new();
        let known_links = ns.links().map(|l| l.name.clone()).collect();
        Runner {
            ns,
            out: Vec::new(),
            raw: None,
            raw_lines: false,
            known_links,
            last_failure: None,
        }
    }

    /// The header line fibkit prints instead of the kernel's.
    pub fn header() -> String {
        format!(
            "# fibkit {} | iproute2-6.1.0 syntax | dummy-model ifb | mp-seed 1",
            env!("CARGO_PKG_VERSION")
        )
    }

    /// Run a whole scenario text. Its `# kernel-config: CONFIG_X=y ...` lines (comments
    /// to the oracle) first set the kernel build options the recording was made with
    /// ([`fibkit::kconfig::KernelConfig`]); one that cannot be read is reported as a
    /// `BADLINE` (a difference from any recording).
    pub fn run_text(&mut self, text: &str) {
        for l in text.lines() {
            if let Some(words) = l.trim().strip_prefix(KERNEL_CONFIG) {
                if let Err(e) = self.ns.kernel.set_words(words.split_whitespace()) {
                    self.out.push(format!("BADLINE {} => {e}", l.trim()));
                }
            }
        }
        for st in read_statements(text) {
            match st {
                Stmt::Comment(c) => self.out.push(c),
                Stmt::Line(l) => self.statement(&l),
            }
        }
    }

    /// Execute one statement.
    pub fn statement(&mut self, text: &str) {
        self.last_failure = None;
        let toks = match shell_split(text) {
            Ok(t) => t,
            Err(e) => {
                self.out.push(format!("BADLINE {text} => {e}"));
                return;
            }
        };
        let Some(head) = toks.first() else { return };
        match head.as_str() {
            "ip" => self.do_ip(text, &toks[1..]),
            "sysctl" => {
                let rest: String = toks[1..]
                    .iter()
                    .filter(|t| *t != "-w" && *t != "-q")
                    .cloned()
                    .collect::<Vec<_>>()
                    .concat();
                let key = rest.split('=').next().unwrap_or("");
                let ok_key = rest.contains('=')
                    && (key.starts_with("net.ipv4.")
                        || key.starts_with("net.ipv6.")
                        || key.starts_with("net.core."));
                if !ok_key {
                    self.out.push(format!("REFUSED {text} => only net.ipv4.*, net.ipv6.*, net.core.* assignments KEY=VALUE are allowed"));
                    return;
                }
                match run_sysctl(&mut self.ns, &rest) {
                    Ok(()) => self.out.push(format!("CMD {text} => ok")),
                    Err(e) => self
                        .out
                        .push(format!("CMD {text} => error \"{}\"", clean_msg(&e))),
                }
            }
            "dump" => {
                let mut what: Vec<String> = toks[1..].to_vec();
                if what.is_empty() {
                    what = vec!["routes".into(), "rules".into(), "nexthops".into()];
                }
                if what == ["all"] {
                    what = ["links", "addrs", "routes", "rules", "nexthops", "neigh"]
                        .iter()
                        .map(|s| s.to_string())
                        .collect();
                }
                self.dump(&what);
            }
            "sleep" => {
                let secs = toks
                    .get(1)
                    .and_then(|s| s.parse::<f64>().ok())
                    .unwrap_or(1.0)
                    .clamp(0.0, 30.0);
                self.ns.sleep_ms((secs * 1000.0).round() as u64);
            }
            "echo" => self.out.push(format!("# {}", toks[1..].join(" "))),
            _ => self.out.push(format!(
                "BADLINE {text} => unknown statement (use ip/sysctl/dump/sleep/echo)"
            )),
        }
    }

    fn do_ip(&mut self, text: &str, args: &[String]) {
        if is_route_get(args) {
            let r = run_ip(&mut self.ns, args);
            self.last_failure = r.as_ref().err().cloned();
            let mut raw = None;
            let line = match r {
                Ok(Outcome::Get(b)) if get_connects(args) => match self.raw {
                    // `connected`: the oracle's `ip -d -j` prints the answer as JSON,
                    // then again as text (see the CLI), which it cannot read as JSON
                    _ if !crate::exec::get_answer_connects(&b) => {
                        self.last_failure = Some(crate::exec::Failure {
                            stdout: String::new(),
                            errno: None,
                            stderr: "Failed to connect the route\n".into(),
                            status: 1,
                            exits: false,
                        });
                        "error ? \"Failed to connect the route\"".to_string()
                    }
                    Some(f) => {
                        let plain = crate::exec::connected_text_args(args);
                        let with = |o: &[&str], rest: &[String]| -> Vec<String> {
                            o.iter()
                                .map(|w| w.to_string())
                                .chain(rest.iter().cloned())
                                .collect()
                        };
                        // iproute_get asks the kernel a second time for the text
                        let again =
                            crate::exec::route_get_again(&mut self.ns, args).unwrap_or(b.clone());
                        let out = f(&self.ns, &with(&["-d", "-j"], args), &b)
                            + &f(&self.ns, &with(&["-d"], &plain), &again);
                        format!("unparsable {}", py_repr(out.trim()))
                    }
                    None => NO_TEXT.to_string(),
                },
                Ok(Outcome::Get(b)) => {
                    // the oracle runs `ip route get` again for the text; no text when
                    // that run fails
                    if self.raw_lines {
                        let again = crate::exec::route_get_again(&mut self.ns, args);
                        if let Some(f) = self.raw {
                            raw = Some(again.map_or_else(String::new, |a| f(&self.ns, args, &a)));
                        }
                    }
                    let view = normal::OracleView::of(args);
                    match *b {
                        GetAnswer::V4(g, fm) => normal::get4_line_as(&self.ns, &g, fm, view),
                        GetAnswer::V6(g, fm) => normal::get6_line_as(&self.ns, &g, fm, view),
                    }
                }
                Ok(Outcome::Ok(_)) => "empty".to_string(),
                Err(f) => match f.errno {
                    Some(e) => format!("error {}", e.name()),
                    None => format!("error ? \"{}\"", clean_msg(&f.stderr)),
                },
            };
            self.out.push(format!("QUERY {text} => {line}"));
            // as the oracle prints `ip`'s stdout: trailing blanks of the whole text
            // dropped, each line kept as it is
            for l in raw.as_deref().unwrap_or("").trim_end().lines() {
                self.out.push(format!("{RAW_PREFIX}{l}"));
            }
            return;
        }
        let result = run_ip(&mut self.ns, args);
        if result.as_ref().map_or_else(|f| f.status == 0, |_| true) {
            self.refresh_links(args);
        }
        self.last_failure = result.as_ref().err().filter(|f| f.status != 0).cloned();
        match result {
            Ok(Outcome::Ok(stdout)) => {
                self.out.push(format!("CMD {text} => ok"));
                for l in stdout.trim().lines() {
                    if !l.trim().is_empty() {
                        self.out.push(format!("  | {}", normalize_text_line(l)));
                    }
                }
            }
            Ok(Outcome::Get(_)) => self.out.push(format!("CMD {text} => ok")),
            // a message on stderr with exit status 0 (`link afstats dev NOSUCH`): the
            // oracle goes by the status
            Err(f) if f.status == 0 => {
                self.out.push(format!("CMD {text} => ok"));
                for l in f.stdout.trim().lines() {
                    if !l.trim().is_empty() {
                        self.out.push(format!("  | {}", normalize_text_line(l)));
                    }
                }
            }
            Err(f) => {
                // the oracle learns an errno from the netlink answer; an ioctl's
                // refusal (`ip maddr`) reaches it only as text
                let e = f
                    .errno
                    .filter(|_| !f.stderr.starts_with("ioctl"))
                    .map_or("?", |e| e.name());
                self.out.push(format!(
                    "CMD {text} => error {e} \"{}\"",
                    clean_msg(&f.stderr)
                ));
            }
        }
    }

    /// The oracle's bookkeeping after an `ip link` command holding the word `add` has
    /// succeeded (`refresh_links`): each link whose name it has not seen yet (a veth
    /// peer, a renamed link) is noted, and an Ethernet-like one whose address is none
    /// of the command's (the one the oracle added to it included) is given
    /// `02:00:00:00:1h:ll` from its index with `ip link set dev NAME address ...`, taken
    /// down and up again around that when the device refuses it while up. (The engine
    /// gives a new veth peer that address itself; a link re-created under a name seen
    /// before keeps the kernel's random address, which no model can know.)
    fn refresh_links(&mut self, args: &[String]) {
        let mut i = 0;
        while i < args.len() && args[i].starts_with('-') {
            i += if args[i] == "-f" || args[i] == "-family" {
                2
            } else {
                1
            };
        }
        let link_obj = args
            .get(i)
            .is_some_and(|o| matches!(o.as_str(), "link" | "l" | "li" | "lin"));
        if !link_obj || !args.iter().any(|a| a == "add") {
            return;
        }
        let is_mac = |t: &str| {
            t.len() == 17
                && t.split(':')
                    .all(|b| b.len() == 2 && b.bytes().all(|c| c.is_ascii_hexdigit()))
        };
        let mut explicit: Vec<String> = args
            .iter()
            .filter(|t| is_mac(t))
            .map(|t| t.to_ascii_lowercase())
            .collect();
        // the address the oracle put after `add` when none stood before `type`
        if let Some(a) = args.iter().position(|t| t == "add") {
            let t = args.iter().position(|t| t == "type").unwrap_or(args.len());
            if !args[a..t.max(a)].iter().any(|w| w == "address") {
                explicit.push(crate::show::mac_text(&Netns::link_mac_nth(
                    self.ns.link_macs_given(),
                )));
            }
        }
        let fresh: Vec<(String, [u8; 6], bool, u32, bool)> = self
            .ns
            .links()
            .filter(|l| !self.known_links.contains(&l.name))
            .map(|l| {
                use fibkit::link::LinkKind;
                let ether = !matches!(l.kind, LinkKind::Loopback) && !l.is_tun();
                (l.name.clone(), l.mac, l.up, l.index, ether)
            })
            .collect();
        let words = |w: &[&str]| -> Vec<String> { w.iter().map(|x| x.to_string()).collect() };
        for (name, mac, up, idx, ether) in fresh {
            self.known_links.insert(name.clone());
            let want = Netns::index_mac(idx);
            // (a bridge the engine gave that address for the kernel's random one is
            // set all the same, which fixes it: BridgeConf::addr_random)
            let random = self.ns.bridge_conf(idx).addr_random;
            if !ether || (mac == want && !random) || explicit.contains(&crate::show::mac_text(&mac))
            {
                continue;
            }
            let set = words(&[
                "link",
                "set",
                "dev",
                &name,
                "address",
                &crate::show::mac_text(&want),
            ]);
            if run_ip(&mut self.ns, &set).is_err() && up {
                let _ = run_ip(&mut self.ns, &words(&["link", "set", "dev", &name, "down"]));
                let _ = run_ip(&mut self.ns, &set);
                let _ = run_ip(&mut self.ns, &words(&["link", "set", "dev", &name, "up"]));
            }
        }
    }

    /// The oracle's `dump`.
    pub fn dump(&mut self, what: &[String]) {
        // the oracle's dump runs its own `ip` commands, without an earlier one's -N or -r
        crate::names::set_numeric(false);
        crate::names::set_resolve(false);
        self.out.push("DUMP begin".into());
        let has = |w: &str| what.iter().any(|x| x == w);
        let so = crate::show::ShowOpts::default();
        if has("links") {
            for l in self.ns.links() {
                let mut words = l.flag_words();
                if let Some(peer) = l.iflink() {
                    // iproute2 marks a link whose lower device (a veth's peer, a
                    // macvlan's lower device) is down
                    if self.ns.link(peer).is_some_and(|p| !p.up) {
                        words.push("M-DOWN");
                    }
                }
                let flags = words.join(",");
                self.out
                    .push(format!("link {} {} {}", l.name, l.operstate(), flags));
            }
        }
        if has("addrs") {
            let mut o = so;
            o.oneline = true;
            if let Ok(text) = crate::show::addr_show(&self.ns, &o, &[]) {
                for line in text.lines() {
                    let mut l = normalize_text_line(line);
                    if let Some(p) = l.find(": ") {
                        if l[..p].chars().all(|c| c.is_ascii_digit()) {
                            l = l[p + 2..].to_string();
                        }
                    }
                    if let Some(p) = l.find("\\ valid_lft") {
                        l.truncate(p);
                    }
                    self.out.push(format!("addr {}", l.trim()));
                }
            }
        }
        if has("routes") {
            for l in normal::dump_routes(&self.ns) {
                self.out.push(l);
            }
        }
        if has("rules") {
            for (fam, name) in [
                (fibkit::prefix::Family::V4, "rule4"),
                (fibkit::prefix::Family::V6, "rule6"),
            ] {
                let mut o = so;
                o.family = Some(fam);
                if let Ok(text) = crate::show::rule_show(&self.ns, &o, &[]) {
                    for line in text.lines() {
                        if !line.trim().is_empty() {
                            self.out
                                .push(format!("{name} {}", normalize_text_line(line)));
                        }
                    }
                }
            }
        }
        if has("nexthops") {
            for line in crate::exec::nexthop_lines(&self.ns) {
                self.out
                    .push(format!("nexthop {}", normalize_text_line(&line)));
            }
        }
        if has("neigh") {
            if let Ok(text) = crate::show::neigh_show(&self.ns, &so, &["nud".into(), "all".into()])
            {
                for line in text.lines() {
                    if !line.trim().is_empty() {
                        self.out
                            .push(format!("neigh {}", normalize_text_line(line)));
                    }
                }
            }
        }
        self.out.push("DUMP end".into());
    }
}

/// Run a scenario text and return the output (header first).
pub fn run_scenario(text: &str) -> String {
    run_scenario_raw(text, None)
}

/// [`run_scenario`], with the queries' iproute2 text when `raw` is given (as the
/// oracle's `--raw` prints it).
pub fn run_scenario_raw(text: &str, raw: Option<RawText>) -> String {
    run_scenario_with(text, raw, raw.is_some(), false)
}

/// [`run_scenario`] as the oracle's `--raw` runs it, each answered query asked a second
/// time (for the text a recording with raw lines holds), the text itself not printed;
/// as one bulk load when `bulk` (see [`run_scenario_bulk`]).
pub fn run_scenario_asking_twice(text: &str, bulk: bool) -> String {
    run_scenario_with(text, None, true, bulk)
}

/// [`run_scenario`] as the oracle runs it without `--raw`, with `text` printing the
/// second answer of `connected` queries (which the oracle records when it cannot read
/// their output as JSON).
pub fn run_scenario_connected_text(text: &str, printer: RawText) -> String {
    run_scenario_with(text, Some(printer), false, false)
}

/// A scenario's output (header first), with the queries' text when `raw` is given, and
/// as one bulk load when `bulk`.
fn run_scenario_with(text: &str, raw: Option<RawText>, raw_lines: bool, bulk: bool) -> String {
    let mut r = Runner::new();
    r.raw = raw;
    r.raw_lines = raw_lines;
    r.out.push(Runner::header());
    let was = bulk.then(|| r.ns.begin_bulk());
    r.run_text(text);
    if let Some(was) = was {
        r.ns.end_bulk(was);
    }
    let mut s = r.out.join("\n");
    s.push('\n');
    s
}

/// [`run_scenario`] with the whole scenario applied as one bulk load
/// ([`Netns::begin_bulk`]): the lookup indexes stay stale until the end, so every
/// `ip route get` is answered from the tables themselves and every gateway check of
/// a changed table is remembered across commands. `fib -batch` runs this way; the
/// output must not differ from [`run_scenario`]'s.
pub fn run_scenario_bulk(text: &str) -> String {
    run_scenario_with(text, None, false, true)
}

/// The start of the oracle's `--raw` lines: a query's text as `ip` printed it.
pub const RAW_PREFIX: &str = "  raw| ";

/// Whether a recording was made with `--raw` (holds some query's `ip` text).
pub fn has_raw(recording: &str) -> bool {
    recording.lines().any(|l| l.starts_with(RAW_PREFIX))
}

/// What a runner without an iproute2 text printer answers for a query whose `ip` output
/// the oracle could not read as JSON (`ip route get ... connected`).
pub const NO_TEXT: &str = "unparsable (no text printer)";

/// A recording without its `--raw` lines, to compare with a run that prints only the
/// normalized answers (the engine's own tests, which have no iproute2 text printer):
/// the text of an output the oracle could not read as JSON becomes [`NO_TEXT`] too.
pub fn strip_raw(recording: &str) -> String {
    let mut s = String::with_capacity(recording.len());
    for l in recording.lines().filter(|l| !l.starts_with(RAW_PREFIX)) {
        match l.split_once(" => unparsable ") {
            Some((head, _)) if l.starts_with("QUERY ") => {
                s.push_str(head);
                s.push_str(" => ");
                s.push_str(NO_TEXT);
            }
            _ => s.push_str(l),
        }
        s.push('\n');
    }
    s
}

/// A `--raw` line with the seconds of its expiry timers blanked (`expires 599sec`,
/// `"expires":599`): the kernel's count down depends on when the query ran (599 or
/// 598), the rest of the text does not.
fn raw_timers_blind(line: &str) -> String {
    value_blind(line, "expires")
}

/// `line` with the number after each `key` (`key N` or `"key":N`) replaced by `#`.
fn value_blind(line: &str, key: &str) -> String {
    let mut out = String::with_capacity(line.len());
    let mut rest = line;
    while let Some(i) = rest.find(key) {
        let (head, tail) = rest.split_at(i + key.len());
        out.push_str(head);
        // (text, compact JSON, pretty JSON)
        let sep = if tail.starts_with(' ') {
            " "
        } else if tail.starts_with("\": ") {
            "\": "
        } else if tail.starts_with("\":") {
            "\":"
        } else {
            ""
        };
        let after = &tail[sep.len()..];
        let digits = after
            .bytes()
            .take_while(|b| b.is_ascii_digit() || (*b == b'.' && key != "expires"))
            .count();
        if sep.is_empty() || digits == 0 {
            rest = tail;
            continue;
        }
        out.push_str(sep);
        out.push('#');
        rest = &after[digits..];
    }
    out.push_str(rest);
    out
}

/// Compare an output with a recorded `.expected` text, ignoring the header line, the
/// seconds left of expiry timers in `--raw` lines, and the times resilient nexthop
/// groups report (`idle_time` of a bucket, `unbalanced_time` of a group: the kernel's
/// count from when each command ran, in hundredths) and a bridge's and its ports'
/// timers (`gc_timer` and the STP timers, in seconds left).
/// Returns the differing lines as `(line number, expected, got)`.
pub fn compare(expected: &str, got: &str) -> Vec<(usize, String, String)> {
    let body = |t: &str| -> Vec<String> {
        t.lines()
            .filter(|l| !l.starts_with("# kernel ") && !l.starts_with("# fibkit "))
            .map(|l| {
                let l = if l.starts_with(RAW_PREFIX) {
                    raw_timers_blind(l)
                } else {
                    l.to_string()
                };
                // and a bridge's timers (`gc_timer`, whose work runs every ageing
                // period from the bridge's first opening; the STP timers) and its
                // ports' (STP)
                [
                    "idle_time",
                    "unbalanced_time",
                    "gc_timer",
                    "hello_timer",
                    "tcn_timer",
                    "topology_change_timer",
                    "hold_timer",
                    "message_age_timer",
                    "forward_delay_timer",
                ]
                .iter()
                .fold(l, |acc, k| value_blind(&acc, k))
            })
            .collect()
    };
    let e = body(expected);
    let g = body(got);
    let mut diffs = Vec::new();
    for i in 0..e.len().max(g.len()) {
        let a = e.get(i).cloned().unwrap_or_default();
        let b = g.get(i).cloned().unwrap_or_default();
        if a != b {
            diffs.push((i + 1, a, b));
        }
    }
    diffs
}

/// Whether the running kernel's rtnetlink answers at all: `ip -o link show lo` must
/// finish within `wait`. A kernel whose routing lock is held by a task that died (an
/// oops in a netlink handler) leaves every later `ip` command, and `ip netns add`,
/// asleep for good; the live tests ask this first and skip with a message rather than
/// hang. The probe's `ip` is left behind if it never finishes (it cannot be killed).
pub fn kernel_netlink_answers(wait: std::time::Duration) -> bool {
    use std::process::{Command, Stdio};
    let Ok(mut child) = Command::new("ip")
        .args(["-o", "link", "show", "lo"])
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
    else {
        return false;
    };
    let start = std::time::Instant::now();
    while start.elapsed() < wait {
        match child.try_wait() {
            Ok(Some(status)) => return status.success(),
            Ok(None) => std::thread::sleep(std::time::Duration::from_millis(20)),
            Err(_) => return false,
        }
    }
    let _ = child.kill();
    false
}

#[cfg(test)]
mod tests {
    use super::{compare, normalize_text_line, raw_timers_blind};

    #[test]
    fn resilient_times_are_blind_in_every_json_form() {
        assert!(compare(
            "x\n  | \"idle_time\": 2.3,\n  | [{\"idle_time\":1.5}]",
            "x\n  | \"idle_time\": 0,\n  | [{\"idle_time\":0}]"
        )
        .is_empty());
    }

    #[test]
    fn used_times_go_as_the_oracle_strips_them() {
        // `\bused \d+\b`: the first number only, whatever follows it but a word
        assert_eq!(
            normalize_text_line("lladdr 02:00:00:00:00:01  used 0/0/0PERMANENT "),
            "lladdr 02:00:00:00:00:01 /0/0PERMANENT"
        );
        assert_eq!(normalize_text_line("a used 12 b"), "a b");
        assert_eq!(
            normalize_text_line("unused 5 used 12abc"),
            "unused 5 used 12abc"
        );
        assert_eq!(
            normalize_text_line("x expires 33sec age 4sec y"),
            "x expires y"
        );
    }

    #[test]
    fn raw_expiry_seconds_are_blind_only_in_raw_lines() {
        let a = "  raw| 2001:db8::/48 dev d0 metric 1024 expires 599sec pref medium";
        let b = "  raw| 2001:db8::/48 dev d0 metric 1024 expires 598sec pref medium";
        assert_eq!(raw_timers_blind(a), raw_timers_blind(b));
        let j = r#"  raw| [{"dst":"2001:db8::/48","expires":599,"pref":"medium"}]"#;
        assert!(raw_timers_blind(j).contains(r#""expires":#,"#));
        // other differences still count, and other lines are compared as they are
        // a bridge's garbage collection timer counts down from its ageing time
        let e = "    bridge forward_delay 1500 gc_timer 299.50 group_fwd_mask 0\n";
        let f = "    bridge forward_delay 1500 gc_timer 0.00 group_fwd_mask 0\n";
        assert!(compare(e, f).is_empty());
        let g = "    bridge forward_delay 1501 gc_timer 0.00 group_fwd_mask 0\n";
        assert_eq!(compare(e, g).len(), 1);
        let c = "  raw| 2001:db8::/48 dev d1 metric 1024 expires 599sec pref medium";
        assert_ne!(raw_timers_blind(a), raw_timers_blind(c));
        let exp = format!("# kernel x\n{a}\nQUERY q => unicast expires 5\n");
        let got = format!("# fibkit y\n{b}\nQUERY q => unicast expires 6\n");
        assert_eq!(compare(&exp, &got).len(), 1);
    }
}
