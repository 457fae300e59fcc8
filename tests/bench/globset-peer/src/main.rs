// SPDX-License-Identifier: MIT
//! globset on the rules and paths bench-peers writes: `globset-peer RULES PATHS REPS`.
//! RULES has one `<rule index>\t<glob>` per line (every anchored alternative of a rule, with
//! the same rule index), PATHS one path per line. Prints the build time, the CPU time per path
//! (best of REPS passes over all paths, thread CPU time as bench-peers measures warder), then
//! the first matching rule of every path (-1 for none).
use globset::{GlobBuilder, GlobSetBuilder};
use std::io::{BufRead, BufReader, Write};

fn cpu_now() -> f64 {
    let mut ts = libc::timespec { tv_sec: 0, tv_nsec: 0 };
    unsafe { libc::clock_gettime(libc::CLOCK_THREAD_CPUTIME_ID, &mut ts) };
    ts.tv_sec as f64 + ts.tv_nsec as f64 * 1e-9
}

fn lines(path: &str) -> Vec<String> {
    let f = std::fs::File::open(path).unwrap_or_else(|e| panic!("{}: {}", path, e));
    BufReader::new(f).lines().map(|l| l.unwrap()).collect()
}

fn main() {
    let args: Vec<String> = std::env::args().collect();
    if args.len() != 4 {
        eprintln!("usage: globset-peer RULES PATHS REPS");
        std::process::exit(2);
    }
    let reps: usize = args[3].parse().unwrap();
    let rules = lines(&args[1]);
    let paths = lines(&args[2]);
    let t0 = cpu_now();
    let mut owner = Vec::with_capacity(rules.len());
    let mut b = GlobSetBuilder::new();
    for l in &rules {
        let (idx, glob) = l.split_once('\t').expect("rule line");
        let g = GlobBuilder::new(glob)
            .literal_separator(true)
            .backslash_escape(true)
            .build()
            .unwrap_or_else(|e| panic!("{}: {}", glob, e));
        b.add(g);
        owner.push(idx.parse::<i64>().unwrap());
    }
    let set = b.build().unwrap();
    let build = cpu_now() - t0;
    let mut hits = Vec::new();
    let mut first = vec![-1i64; paths.len()];
    let mut best = f64::MAX;
    for _ in 0..reps {
        let t = cpu_now();
        for (i, p) in paths.iter().enumerate() {
            set.matches_into(p.as_str(), &mut hits);
            first[i] = hits.iter().map(|&h| owner[h]).min().unwrap_or(-1);
        }
        let e = cpu_now() - t;
        if e < best {
            best = e;
        }
    }
    let out = std::io::stdout();
    let mut o = out.lock();
    writeln!(o, "build_ms {:.3}", build * 1e3).unwrap();
    writeln!(o, "ns_per_path {:.1}", best * 1e9 / paths.len().max(1) as f64).unwrap();
    for f in first {
        writeln!(o, "{}", f).unwrap();
    }
}
