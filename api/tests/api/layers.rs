//! The layers of `api/src` hold: a module names (`crate::<module>`) only the modules below it
//! in [`LAYERS`], so no two modules import each other, directly or round a circle. Read from
//! the source, as rust-analyzer's tidy tests read theirs: a top-level module is its
//! `<module>.rs` and every file under `<module>/`, tests and doc links included (a test module
//! that needs something from above is a sign that the thing sits too high).

use std::collections::{BTreeMap, BTreeSet};
use std::path::Path;

/// The top-level modules of `api/src`, lowest first; each may name only those before it.
/// The hosted game is pure and needs nothing of the crate. What the process is given (server
/// keys, settings) and what it reports (logs, traces, metrics) know no database and no HTTP.
/// The store keeps games; the wire shows them (its page cursors are the store's). Tokens sit
/// on the wire's cursor seal; the one error maps every error below it to a status. Then what
/// `AppState` holds, `AppState`, the use cases, the handlers, the document and the wiring.
/// ARCHITECTURE.md draws the same order.
const LAYERS: &[&str] = &[
    "domain",
    "server_keys",
    "config",
    "telemetry",
    "metrics",
    "store",
    "wire",
    "auth",
    "error",
    "limits",
    "queue",
    "workers",
    "live",
    "state",
    "service",
    "http",
    "openapi",
    "background",
    "startup",
];

/// The crate's roots, which declare the modules rather than belong to one.
const ROOTS: [&str; 2] = ["lib.rs", "main.rs"];

/// One module named by another: where, and which.
#[derive(Debug)]
struct Import {
    /// The naming file, relative to `api/src`.
    file: String,
    /// Its 1-based line.
    line: usize,
    /// The module of the file.
    from: String,
    /// The module it names.
    to: String,
    /// The line as written, for the message.
    text: String,
}

/// Every `.rs` file of `dir` and below, relative to `dir` with `/` separators, and its text.
fn rust_files(dir: &Path) -> BTreeMap<String, String> {
    let mut out = BTreeMap::new();
    let mut dirs = vec![dir.to_path_buf()];
    while let Some(at) = dirs.pop() {
        for entry in std::fs::read_dir(&at).expect("read a directory").flatten() {
            let path = entry.path();
            if path.is_dir() {
                dirs.push(path);
            } else if path.extension().is_some_and(|e| e == "rs") {
                let rel = path.strip_prefix(dir).expect("under the directory");
                let text = std::fs::read_to_string(&path).expect("read a source file");
                out.insert(rel.to_string_lossy().replace('\\', "/"), text);
            }
        }
    }
    out
}

/// The top-level module a file belongs to: `store/citus/nodes.rs` is `store`.
fn module_of(file: &str) -> &str {
    let first = file.split('/').next().unwrap_or(file);
    first.strip_suffix(".rs").unwrap_or(first)
}

fn is_ident(b: u8) -> bool {
    b.is_ascii_alphanumeric() || b == b'_'
}

/// The identifier that starts at `at`, if one does.
fn ident_at(text: &str, at: usize) -> Option<&str> {
    let len = text.as_bytes()[at..].iter().take_while(|b| is_ident(**b)).count();
    (len > 0).then(|| &text[at..at + len])
}

/// Where the first byte that is not whitespace is, from `at`.
fn skip_space(text: &str, at: usize) -> usize {
    at + text.as_bytes()[at..]
        .iter()
        .take_while(|b| b.is_ascii_whitespace())
        .count()
}

/// The first segment of each path of the group that opens at `open` (`{store::Lock, wire::{A,
/// B}}` gives `store` and `wire`), with where each starts.
fn group_heads(text: &str, open: usize) -> Vec<(usize, &str)> {
    let bytes = text.as_bytes();
    let mut heads = Vec::new();
    let mut depth = 0;
    for (at, byte) in bytes.iter().enumerate().skip(open) {
        let head = match byte {
            b'{' => {
                depth += 1;
                depth == 1
            }
            b',' => depth == 1,
            b'}' if depth == 1 => break,
            b'}' => {
                depth -= 1;
                false
            }
            _ => false,
        };
        if head {
            let start = skip_space(text, at + 1);
            heads.extend(ident_at(text, start).map(|name| (start, name)));
        }
    }
    heads
}

/// The modules of the crate that `text` names, each with where: `crate::<module>` in a path,
/// in a `use` line or a doc link, and each path of a group (`use crate::{a, b::c}`). A macro's
/// `$crate` and a longer name ending in `crate` (`my_crate::`) are not this crate.
fn named_modules(text: &str) -> Vec<(usize, &str)> {
    let bytes = text.as_bytes();
    let mut named = Vec::new();
    for (at, _) in text.match_indices("crate::") {
        if at > 0 && (is_ident(bytes[at - 1]) || bytes[at - 1] == b'$') {
            continue;
        }
        let next = skip_space(text, at + "crate::".len());
        if bytes.get(next) == Some(&b'{') {
            named.extend(group_heads(text, next));
        } else if let Some(name) = ident_at(text, next) {
            named.push((at, name));
        }
    }
    named
}

/// Every import of one top-level module by another in `files` (relative to `api/src`).
fn imports(files: &BTreeMap<String, String>) -> Vec<Import> {
    let mut out = Vec::new();
    for (file, text) in files.iter().filter(|(f, _)| !ROOTS.contains(&f.as_str())) {
        let from = module_of(file);
        for (at, to) in named_modules(text) {
            if to == from || to == "self" {
                continue;
            }
            let line = text[..at].matches('\n').count() + 1;
            out.push(Import {
                file: file.clone(),
                line,
                from: from.to_owned(),
                to: to.to_owned(),
                text: text.lines().nth(line - 1).unwrap_or_default().trim().to_owned(),
            });
        }
    }
    out
}

/// Each import against [`LAYERS`], one line each: a module naming one above it, or a module
/// the list does not place.
fn against_the_layers(imports: &[Import]) -> Vec<String> {
    let rank = |m: &str| LAYERS.iter().position(|l| *l == m);
    let mut wrong = Vec::new();
    for i in imports {
        let place = |m: &str| match rank(m) {
            Some(r) => format!("layer {}", r + 1),
            None => "not in LAYERS".to_owned(),
        };
        let upward = match (rank(&i.from), rank(&i.to)) {
            (Some(from), Some(to)) => to > from,
            _ => true,
        };
        if upward {
            wrong.push(format!(
                "api/src/{}:{}: `{}` ({}) imports `crate::{}` ({}), which is not below it: {}",
                i.file,
                i.line,
                i.from,
                place(&i.from),
                i.to,
                place(&i.to),
                i.text
            ));
        }
    }
    wrong
}

/// Each circle of imports among the modules, once (from its smallest module), as
/// `a -> b -> a` with where each step is imported.
fn cycles(imports: &[Import]) -> Vec<String> {
    let mut edges: BTreeMap<&str, BTreeMap<&str, &Import>> = BTreeMap::new();
    for i in imports {
        edges
            .entry(i.from.as_str())
            .or_default()
            .entry(i.to.as_str())
            .or_insert(i);
    }
    let mut found = BTreeSet::new();
    for start in edges.keys().copied() {
        // Depth first from `start`, through modules after it only: each circle is found from
        // its smallest module, and once.
        let mut stack: Vec<(&str, Vec<&Import>)> = vec![(start, Vec::new())];
        let mut seen = BTreeSet::new();
        while let Some((at, path)) = stack.pop() {
            for (&to, &import) in edges.get(at).into_iter().flatten() {
                let mut next = path.clone();
                next.push(import);
                if to == start {
                    let circle: Vec<String> = next.iter().map(|i| i.from.clone()).collect();
                    let places: Vec<String> = next
                        .iter()
                        .map(|i| format!("api/src/{}:{}", i.file, i.line))
                        .collect();
                    found.insert(format!(
                        "{} -> {start} ({})",
                        circle.join(" -> "),
                        places.join(", ")
                    ));
                } else if to > start && seen.insert(to) {
                    stack.push((to, next));
                }
            }
        }
    }
    found.into_iter().collect()
}

/// The top-level modules of `api/src`: its files but the roots, and its folders.
fn top_level_modules(src: &Path) -> BTreeSet<String> {
    std::fs::read_dir(src)
        .expect("read api/src")
        .flatten()
        .filter_map(|e| {
            let name = e.file_name().to_string_lossy().into_owned();
            match e.path().is_dir() {
                true => Some(name),
                false if ROOTS.contains(&name.as_str()) => None,
                false => name.strip_suffix(".rs").map(str::to_owned),
            }
        })
        .collect()
}

#[test]
fn every_module_imports_only_the_layers_below_it() {
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    let modules = top_level_modules(&src);
    let listed: BTreeSet<String> = LAYERS.iter().map(|m| (*m).to_owned()).collect();
    assert_eq!(
        modules, listed,
        "LAYERS (api/tests/api/layers.rs) lists every top-level module of api/src once, and only those"
    );
    let files = rust_files(&src);
    let imports = imports(&files);
    assert!(
        imports.iter().any(|i| i.from == "error" && i.to == "store"),
        "the reading finds the imports (error maps the store's errors)"
    );
    let wrong = against_the_layers(&imports);
    let circles = cycles(&imports);
    assert!(
        wrong.is_empty() && circles.is_empty(),
        "imports against the layers of api/src (lowest first: {}; move what both need down to the \
         lower module):\n{}\ncircles:\n{}",
        LAYERS.join(" < "),
        wrong.join("\n"),
        circles.join("\n")
    );
}

#[test]
fn the_layer_check_catches_what_it_is_for() {
    let files = BTreeMap::from([
        (
            "lib.rs".to_owned(),
            "//! [`crate::http`]\npub mod http;".to_owned(),
        ),
        (
            "telemetry.rs".to_owned(),
            "use crate::config::LogFormat;\nuse crate::error::ApiError;".to_owned(),
        ),
        (
            "error.rs".to_owned(),
            "use crate::{\n    domain::Rating,\n    store::{A, B},\n};\nuse crate::error::X;".to_owned(),
        ),
        (
            "store/sql.rs".to_owned(),
            "fn f() { crate::telemetry::traces::on(); $crate::wire::x(); my_crate::http::y(); }".to_owned(),
        ),
        (
            "wire/moves.rs".to_owned(),
            "#[cfg(test)]\nmod tests { use crate::http::extract; }".to_owned(),
        ),
    ]);
    let imports = imports(&files);
    let named: Vec<String> = imports
        .iter()
        .map(|i| format!("{}:{} {}", i.file, i.line, i.to))
        .collect();
    assert_eq!(
        named,
        [
            "error.rs:2 domain",
            "error.rs:3 store",
            "store/sql.rs:1 telemetry",
            "telemetry.rs:1 config",
            "telemetry.rs:2 error",
            "wire/moves.rs:2 http",
        ],
        "groups read per path, the module's own and the roots' names, `$crate` and `my_crate` left out"
    );
    let wrong = against_the_layers(&imports);
    assert_eq!(wrong.len(), 2, "{wrong:#?}");
    assert_eq!(
        wrong[0],
        "api/src/telemetry.rs:2: `telemetry` (layer 4) imports `crate::error` (layer 9), which is not \
         below it: use crate::error::ApiError;"
    );
    assert!(
        wrong[1].starts_with("api/src/wire/moves.rs:2: `wire` (layer 7) imports `crate::http`"),
        "{wrong:#?}"
    );
    assert_eq!(
        cycles(&imports),
        [
            "error -> store -> telemetry -> error (api/src/error.rs:3, api/src/store/sql.rs:1, api/src/telemetry.rs:2)"
        ],
    );
}
