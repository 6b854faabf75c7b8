//! `fib`: an iproute2-compatible front end to the fibkit routing engine.
//!
//! ```text
//! fib [-4|-6] [-j] [-d] OBJECT COMMAND ...     one command on a fresh namespace
//! fib [-force] -batch FILE                      commands from FILE ('-' = stdin), one namespace
//! fib scenario [--check] [--raw] FILE...        run oracle scenarios, print normalized answers
//! fib bench { kbench | lpm | flood | updates | files } [options]   benchmarks
//! ```

#![forbid(unsafe_code)]

use std::io::Read;
use std::process::ExitCode;

use fibkit_iproute::exec::{run_ip, GetAnswer, Outcome};
use fibkit_iproute::scenario::{
    compare, has_raw, run_scenario_connected_text, run_scenario_raw, RawText, NO_TEXT,
};
use fibkit_iproute::show::ShowOpts;

#[macro_use]
mod out;
mod bench;
mod import;
mod mirror;
mod text;

fn usage() -> ExitCode {
    eprintln!(
        "Usage: fib [ OPTIONS ] OBJECT {{ COMMAND | help }}\n       fib [ -force ] -batch filename\n       fib scenario [--check] [--raw] FILE...\n       fib bench {{ kbench | lpm | flood | updates | files }} [options]\n       fib import mrt FILE [--format bgpdump|prefixes|updates|batch] [--peer ADDR] [--keep-going]\n       fib mirror [--save FILE|-] | [--follow] | [-4|-6] [-j] OBJECT COMMAND ...\nwhere  OBJECT := {{ address | addrlabel | fou | ila | ioam | l2tp | link | macsec | maddress |\n                   mptcp | mroute | mrule | neighbor | netconf | nexthop | route | rule | sr |\n                   stats | tcpmetrics | token | tunnel | tuntap | vrf | xfrm }}\n       OPTIONS := {{ -4 | -6 | -0 | -M | -B | -f[amily] FAMILY | -j[son] | -p[retty] | -d[etails] |\n                   -o[neline] | -br[ief] | -N[umeric] | -color=never | -V[ersion] }}"
    );
    ExitCode::from(255)
}

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let Some(first) = args.first() else {
        return usage();
    };
    match first.as_str() {
        "scenario" => scenario(&args[1..]),
        "import" => import::main(&args[1..]),
        "mirror" => mirror::main(&args[1..]),
        "bench" => match bench::main(&args[1..]) {
            Ok(()) => ExitCode::SUCCESS,
            Err(e) => {
                eprint!("{e}");
                ExitCode::from(2)
            }
        },
        // fib's own help; `-h` before an object is ip's -human
        "help" | "-h" | "--help" | "-help" if args.len() == 1 => {
            usage();
            ExitCode::SUCCESS
        }
        _ => ip_main(&args),
    }
}

fn scenario(args: &[String]) -> ExitCode {
    let check = args.iter().any(|a| a == "--check");
    // the oracle's --raw: each answered query followed by the text `ip` prints (with
    // --check, also whenever the recording holds such text)
    let raw = args.iter().any(|a| a == "--raw");
    let files: Vec<&String> = args.iter().filter(|a| !a.starts_with("--")).collect();
    if files.is_empty() {
        eprintln!("fib scenario: no scenario file given");
        return ExitCode::from(2);
    }
    let mut failed = 0;
    for f in files {
        let text = if f == "-" {
            let mut s = String::new();
            if std::io::stdin().read_to_string(&mut s).is_err() {
                eprintln!("fib scenario: cannot read stdin");
                return ExitCode::from(2);
            }
            s
        } else {
            match std::fs::read_to_string(f) {
                Ok(s) => s,
                Err(e) => {
                    eprintln!("fib scenario: {f}: {e}");
                    return ExitCode::from(2);
                }
            }
        };
        if !check {
            out!(
                "{}",
                run_scenario_raw(&text, raw.then_some(get_text as RawText))
            );
            continue;
        }
        let exp_path = format!("{f}.expected");
        let Ok(exp) = std::fs::read_to_string(&exp_path) else {
            outln!("MISSING {exp_path}");
            failed += 1;
            continue;
        };
        let raw = raw || has_raw(&exp);
        // a recording without raw lines still holds the text of `connected` answers
        // the oracle could not read as JSON: the printer makes it, its raw lines go
        let text_only = !raw
            && exp
                .lines()
                .any(|l| l.contains("=> unparsable ") && !l.ends_with(NO_TEXT));
        let out = if text_only {
            run_scenario_connected_text(&text, get_text as RawText)
        } else {
            run_scenario_raw(&text, raw.then_some(get_text as RawText))
        };
        let d = compare(&exp, &out);
        if d.is_empty() {
            outln!("PASS {f}");
        } else {
            failed += 1;
            outln!("FAIL {f} ({} lines differ)", d.len());
            for (n, e, g) in d.iter().take(40) {
                outln!("  line {n}\n    kernel: {e}\n    fibkit: {g}");
            }
        }
    }
    if failed > 0 {
        ExitCode::from(1)
    } else {
        ExitCode::SUCCESS
    }
}

fn ip_main(args: &[String]) -> ExitCode {
    // ip's main reads the global options up to the object (or `--`), each by any
    // prefix in its order (`-b` is `-batch`, `-f` `-family`, `-fo` `-force`); the
    // engine reads them again for each command and reports their errors
    let mut force = false;
    let mut batch: Option<String> = None;
    let mut opts: Vec<String> = Vec::new();
    let mut i = 0;
    while i < args.len() {
        let w = args[i].as_str();
        if w == "--" || !w.starts_with('-') || w.len() < 2 {
            break;
        }
        let name = fibkit_iproute::exec::global_options(&args[i..=i])
            .1
            .first()
            .copied();
        match name {
            Some("-force") => force = true,
            Some("-batch") if i + 1 < args.len() => {
                i += 1;
                batch = Some(args[i].clone());
            }
            Some("-loops" | "-family" | "-rcvbuf" | "-netns") if i + 1 < args.len() => {
                opts.push(args[i].clone());
                i += 1;
                opts.push(args[i].clone());
            }
            _ => opts.push(args[i].clone()),
        }
        i += 1;
    }
    let mut ns = fibkit::Netns::new();
    if let Some(file) = batch {
        // (the words after the options, an object's included, are not read; an
        // option's error still ends the batch before it starts)
        match fibkit_iproute::exec::check_global_options(&opts) {
            Ok(None) => {}
            Ok(Some(version)) => {
                out!("{version}");
                return ExitCode::SUCCESS;
            }
            Err(f) => {
                eprint!("{}", f.stderr);
                return ExitCode::from(u8::try_from(f.status & 0xff).unwrap_or(1));
            }
        }
        return run_batch(&mut ns, &file, &opts, force);
    }
    opts.extend(args[i..].iter().cloned());
    ExitCode::from(one(&mut ns, &opts).0)
}

/// `ip -batch FILE` (`-` for stdin), read as iproute2's `do_batch` reads it (see
/// [`fibkit_iproute::batch`]): each command runs with the options given before
/// `-batch` (and, a convenience of fib's, a leading `ip` dropped); the first command
/// that fails ends the batch with status 1 after `Command failed FILE:LINE`, unless
/// `-force`; a failure iproute2 meets inside an `exit()` ends it at once whatever
/// `-force` says, with that status and no such line.
fn run_batch(ns: &mut fibkit::Netns, file: &str, rest: &[String], force: bool) -> ExitCode {
    let mut text = Vec::new();
    // only opening the file can fail: a read error (a directory opens, then reading it
    // is EISDIR) ends `getline` as the end of the file would, after what was read
    let opened: std::io::Result<Box<dyn Read>> = if file == "-" {
        Ok(Box::new(std::io::stdin()))
    } else {
        std::fs::File::open(file).map(|f| Box::new(f) as Box<dyn Read>)
    };
    if let Err(e) = opened.map(|mut f| {
        let _ = f.read_to_end(&mut text);
    }) {
        // strerror's text, without Rust's "(os error N)"
        let msg = e.to_string();
        let msg = msg.split(" (os error").next().unwrap_or(&msg);
        eprintln!("Cannot open file \"{file}\" for reading: {msg}");
        return ExitCode::from(1);
    }
    let mut status = 0u8;
    // One bulk load: the indexes are never compiled, since the namespace ends with
    // the batch, and queries in between are answered from the tables themselves
    // (exactly: conformance test `recorded_scenarios_as_one_bulk_load`).
    ns.begin_bulk();
    // a batch's socket is not strict (see fibkit_iproute::names::set_strict)
    fibkit_iproute::names::set_strict(false);
    for step in fibkit_iproute::batch::Reader::new(&text) {
        let (line, mut words) = match step {
            fibkit_iproute::batch::Step::Command { line, words } => (line, words),
            fibkit_iproute::batch::Step::Stop { stderr, exits } => {
                eprint!("{stderr}");
                return ExitCode::from(exits.unwrap_or(status));
            }
        };
        fibkit_iproute::batch::drop_leading_ip(&mut words);
        let mut all = rest.to_vec();
        // unlike ip's, a batch line may start with options of its own (`-6 rule add
        // ...`): the scripts `fib mirror --save` writes use them
        all.extend(words);
        let (code, exits) = one(ns, &all);
        if exits {
            return ExitCode::from(code);
        }
        if code != 0 {
            eprintln!("Command failed {file}:{line}");
            status = 1;
            if !force {
                break;
            }
        }
    }
    ExitCode::from(status)
}

/// Run one `ip`-style command, printing as `ip` does; returns the exit status and
/// whether iproute2 would have ended with `exit()` there (see `Failure::exits`).
fn one(ns: &mut fibkit::Netns, args: &[String]) -> (u8, bool) {
    let result = run_ip(ns, args);
    // warnings iproute2 prints while it reads the line (address flags it drops, `nat`);
    // a failure carries them in its text already
    if result.is_ok() {
        eprint!("{}", fibkit_iproute::exec::parse_warnings(args));
    }
    // iproute_get warns about a destination prefix while parsing, before it asks
    let parsed = match &result {
        Ok(Outcome::Get(_)) => true,
        Err(f) => f.errno.is_some(),
        Ok(_) => false,
    };
    if parsed {
        if let Some(w) = get_prefix_warning(args) {
            eprint!("{w}");
        }
    }
    match result {
        Ok(Outcome::Ok(s)) => {
            out!("{s}");
            (0, false)
        }
        Ok(Outcome::Get(g)) => (connected_again(ns, args, &g), false),
        Err(f) => {
            out!("{}", f.stdout);
            eprint!("{}", f.stderr);
            (u8::try_from(f.status & 0xff).unwrap_or(1), f.exits)
        }
    }
}

/// `ip route get ... connected` without `from`: iproute2 turns the answer's preferred
/// source into a source and asks again, but sends the first request unchanged (the
/// rewritten attributes are the answer's, not the request's), so the same answer comes
/// back and is printed a second time, as plain text (the JSON printer is gone by
/// then). An answer without a preferred source (a `fibmatch` of a route without
/// `src`) stops with "Failed to connect the route" and status 1, its JSON array
/// left open. Prints the answer (once, without `connected`) and returns the status.
fn connected_again(ns: &mut fibkit::Netns, args: &[String], g: &GetAnswer) -> u8 {
    let first = get_text(ns, args, g);
    let connects =
        route_get_words(args).is_some_and(|words| fibkit_iproute::exec::route_get_connects(&words));
    if !connects {
        out!("{first}");
        return 0;
    }
    if !fibkit_iproute::exec::get_answer_connects(g) {
        // iproute_get returns before the JSON printer closes its array
        let json = fibkit_iproute::exec::global_options(args)
            .1
            .contains(&"-json");
        if json {
            out!("{}", first.trim_end().trim_end_matches(']').trim_end());
        } else {
            out!("{first}");
        }
        eprintln!("Failed to connect the route");
        return 1;
    }
    out!("{first}");
    // the second request is a lookup of its own
    let again =
        fibkit_iproute::exec::route_get_again(ns, args).unwrap_or_else(|| Box::new(g.clone()));
    let plain = fibkit_iproute::exec::connected_text_args(args);
    out!("{}", get_text(ns, &plain, &again));
    0
}

/// What `ip` prints on stdout for a route get's answer (`args`: the whole command).
fn get_text(ns: &fibkit::Netns, args: &[String], g: &GetAnswer) -> String {
    // (the options as ip reads them: by any prefix, after `-f inet6` and the like)
    let given = fibkit_iproute::exec::global_options(args).1;
    let option = |name: &str| given.contains(&name);
    let opts = ShowOpts {
        json: option("-json"),
        details: option("-details"),
        pretty: option("-pretty"),
        oneline: option("-oneline"),
        stats: given
            .iter()
            .filter(|o| matches!(**o, "-stats" | "-statistics"))
            .count() as u32,
        ..ShowOpts::default()
    };
    match g {
        GetAnswer::V4(r, fm) => text::get4(ns, r, *fm, &opts),
        GetAnswer::V6(r, fm) => {
            let (dst, src, iif) = get6_flow(ns, args);
            text::get6(ns, r, *fm, &opts, dst, src, iif)
        }
    }
}

/// The words of an `ip route get` command line after `get` (`None` for another
/// command).
fn route_get_words(args: &[String]) -> Option<Vec<&str>> {
    // (after the global options, values such as `-f inet6`'s included)
    let mut words = args
        .iter()
        .map(String::as_str)
        .skip(fibkit_iproute::exec::global_options(args).0);
    let object = words.next()?;
    let verb = words.next()?;
    ("route".starts_with(object)
        && !object.is_empty()
        && "get".starts_with(verb)
        && !verb.is_empty())
    .then(|| words.collect())
}

/// iproute_get's warning for a destination given with a prefix length other than the
/// address's full length (the query uses the full length anyway).
fn get_prefix_warning(args: &[String]) -> Option<String> {
    let words = route_get_words(args)?;
    let mut i = 0;
    while i < words.len() {
        // (iproute_get's keywords by their prefixes, as the query itself reads them)
        match fibkit_iproute::exec::get_keyword(words[i]) {
            "from" | "iif" | "oif" | "dev" | "mark" | "tos" | "uid" | "ipproto" | "sport"
            | "dport" | "vrf" => i += 2,
            "to" | "fibmatch" | "notify" | "connected" => i += 1,
            "as" if words.get(i + 1) == Some(&"to") => i += 3,
            "as" => i += 2,
            x => {
                // (the length as get_prefix read it: `/040` is 32, `/255.0.0.0` 8)
                let (addr, _) = x.split_once('/')?;
                let max = if addr.contains(':') { 128 } else { 32 };
                let len = u32::from(fibkit_iproute::names::parse_prefix(x, None)?.len);
                return (len != max).then(|| {
                    format!(
                        "Warning: /{len} as prefix is invalid, only /{max} (or none) is supported.\n"
                    )
                });
            }
        }
    }
    None
}

/// The destination, source and input device of an `ip -6 route get` command line (for
/// printing: the answer itself does not carry the query).
fn get6_flow(ns: &fibkit::Netns, args: &[String]) -> (u128, u128, u32) {
    let mut dst = 0;
    let mut src = 0;
    let mut iif = 0;
    let words = route_get_words(args).unwrap_or_default();
    let mut i = 0;
    while i < words.len() {
        let w = words[i];
        let next = words.get(i + 1).copied().unwrap_or("");
        // (`f` is `from`, `i` `iif`, ...: the keywords as the query itself reads them)
        match fibkit_iproute::exec::get_keyword(w) {
            "from" => {
                src = next
                    .split('/')
                    .next()
                    .and_then(|s| s.parse::<std::net::Ipv6Addr>().ok())
                    .map_or(0, u128::from);
                i += 2;
            }
            "iif" => {
                // (`ifN` too, as iproute2 resolves it)
                iif = fibkit_iproute::exec::ll_index(ns, next).unwrap_or(0);
                i += 2;
            }
            "oif" | "dev" | "mark" | "tos" | "uid" | "ipproto" | "sport" | "dport" | "vrf" => {
                i += 2;
            }
            "to" => i += 1,
            "fibmatch" | "notify" | "connected" => i += 1,
            "as" if next == "to" => i += 3,
            "as" => i += 2,
            x => {
                if let Some(a) = x
                    .split('/')
                    .next()
                    .and_then(|s| s.parse::<std::net::Ipv6Addr>().ok())
                {
                    dst = u128::from(a);
                }
                i += 1;
            }
        }
    }
    (dst, src, iif)
}
