//! The repository carries what it cites: every file and section anchor named by a text of
//! the repository (comments, tests, markdown, SQL, scripts, the OpenAPI document) exists, so
//! a reader who follows a citation lands somewhere. Also holds the house options table of
//! docs/rules.md equal to the engine's catalogue.

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

/// Where the repository's own files are published: links from text that leaves the
/// repository (the OpenAPI document) use it.
const PUBLISHED: &str = "https://github.com/continental-rummy/continental/blob/main/";

/// Directories that hold no text of ours: build output, git, installed tools.
const SKIPPED_DIRS: [&str; 3] = ["target", ".git", "node_modules"];

/// Extensions of the text files whose citations are checked; shell scripts without an
/// extension are recognised by their `#!` line.
const TEXT_EXTENSIONS: [&str; 11] = [
    "rs", "md", "json", "sql", "sh", "toml", "yaml", "yml", "lua", "py", "txt",
];

fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .parent()
        .expect("the api crate lies in the workspace")
        .to_path_buf()
}

/// The repository's text files, as paths relative to `root` with `/` separators, and their
/// contents.
fn text_files(root: &Path) -> BTreeMap<String, String> {
    let mut out = BTreeMap::new();
    let mut dirs = vec![root.to_path_buf()];
    while let Some(dir) = dirs.pop() {
        for entry in std::fs::read_dir(&dir).expect("read a directory").flatten() {
            let path = entry.path();
            let name = entry.file_name().to_string_lossy().into_owned();
            let Ok(kind) = entry.file_type() else { continue };
            if kind.is_dir() {
                // Hidden directories other than `.ci` hold tools' state (virtualenvs, caches).
                if !SKIPPED_DIRS.contains(&name.as_str()) && (!name.starts_with('.') || name == ".ci") {
                    dirs.push(path);
                }
                continue;
            }
            let ext = path.extension().and_then(|e| e.to_str()).unwrap_or("");
            if !TEXT_EXTENSIONS.contains(&ext) && !ext.is_empty() {
                continue;
            }
            let Ok(text) = std::fs::read_to_string(&path) else {
                continue;
            };
            if !ext.is_empty() || text.starts_with("#!") {
                let rel = path.strip_prefix(root).expect("under the root");
                out.insert(rel.to_string_lossy().replace('\\', "/"), text);
            }
        }
    }
    out
}

/// The anchors a markdown page offers: GitHub's heading slugs (duplicates numbered) and
/// explicit `id="…"` / `name="…"` attributes.
fn anchors(markdown: &str) -> BTreeSet<String> {
    let mut out = BTreeSet::new();
    for attr in ["id=\"", "name=\""] {
        for (i, _) in markdown.match_indices(attr) {
            let rest = &markdown[i + attr.len()..];
            let before = markdown[..i].bytes().last();
            if before.is_none_or(|b| !is_word(b))
                && let Some(end) = rest.find('"')
            {
                out.insert(rest[..end].to_owned());
            }
        }
    }
    let mut seen: BTreeMap<String, usize> = BTreeMap::new();
    let mut fenced = false;
    for line in markdown.lines() {
        if line.trim_start().starts_with("```") {
            fenced = !fenced;
            continue;
        }
        let hashes = line.chars().take_while(|c| *c == '#').count();
        if fenced || !(1..=6).contains(&hashes) || !line[hashes..].starts_with(' ') {
            continue;
        }
        let slug: String = line[hashes..]
            .trim()
            .to_lowercase()
            .chars()
            .filter(|c| c.is_alphanumeric() || matches!(c, ' ' | '-' | '_'))
            .map(|c| if c == ' ' { '-' } else { c })
            .collect();
        let n = seen.entry(slug.clone()).or_insert(0);
        out.insert(if *n == 0 {
            slug.clone()
        } else {
            format!("{slug}-{n}")
        });
        *n += 1;
    }
    out
}

fn is_word(b: u8) -> bool {
    b.is_ascii_alphanumeric() || b == b'_'
}

fn is_path(b: u8) -> bool {
    is_word(b) || matches!(b, b'.' | b'/' | b'-')
}

fn is_anchor(b: u8) -> bool {
    is_word(b) || b == b'-'
}

/// The anchor that follows `text[at..]` when it starts with `#`, and where it ends.
fn anchor_at(text: &str, at: usize) -> (Option<&str>, usize) {
    if text.as_bytes().get(at) != Some(&b'#') {
        return (None, at);
    }
    let len = text.as_bytes()[at + 1..]
        .iter()
        .take_while(|b| is_anchor(**b))
        .count();
    (Some(&text[at + 1..at + 1 + len]), at + 1 + len)
}

/// Joins `rel` onto the directory `base` (both relative to the root), resolving `.` and
/// `..`; `None` when it climbs out of the repository.
fn join(base: &str, rel: &str) -> Option<String> {
    let mut parts: Vec<&str> = base.split('/').filter(|p| !p.is_empty()).collect();
    for part in rel.split('/') {
        match part {
            "" | "." => {}
            ".." => {
                parts.pop()?;
            }
            p => parts.push(p),
        }
    }
    Some(parts.join("/"))
}

/// Every citation in `files` that leads nowhere, one line each: a file the repository does
/// not hold, or an anchor its page does not have. `exists` says whether a path (a file or a
/// directory, relative to the root) is in the repository. Plain string searches rather than
/// regexes: the test binary's dependencies are not optimised, and this reads every file.
fn broken_citations(files: &BTreeMap<String, String>, exists: &dyn Fn(&str) -> bool) -> Vec<String> {
    let mut page_anchors: BTreeMap<String, BTreeSet<String>> = BTreeMap::new();
    let mut broken = Vec::new();
    let mut check = |file: &str, shown: &str, target: Option<String>, anchor: Option<&str>| {
        let Some(path) = target.filter(|p| exists(p)) else {
            broken.push(format!(
                "{file}: `{shown}` names a file the repository does not hold"
            ));
            return;
        };
        let known = match files.get(&path) {
            Some(page) if path.ends_with(".md") => {
                page_anchors.entry(path.clone()).or_insert_with(|| anchors(page))
            }
            _ => return,
        };
        if let Some(anchor) = anchor
            && !known.contains(anchor)
        {
            broken.push(format!("{file}: `{shown}`: {path} has no anchor #{anchor}"));
        }
    };
    let mut unpublished = Vec::new();
    for (file, text) in files {
        // Most files cite nothing: a substring test spares them the rest.
        if !text.contains(".md") && !text.contains("://") && !text.contains("](") {
            continue;
        }
        let dir = file.rsplit_once('/').map_or("", |(d, _)| d);
        let bytes = text.as_bytes();
        // URLs: links to the published repository are checked; every URL is then blanked so
        // that the paths of other sites are not read as ours.
        let mut blanked = bytes.to_vec();
        for (i, _) in text.match_indices("://") {
            let start = i - bytes[..i]
                .iter()
                .rev()
                .take_while(|b| b.is_ascii_alphabetic())
                .count();
            let end = i + bytes[i..]
                .iter()
                .take_while(|b| !b.is_ascii_whitespace() && !b")>\"'`]".contains(b))
                .count();
            if let Some(rest) = text[start..end].strip_prefix(PUBLISHED) {
                let len = rest.bytes().take_while(|b| is_path(*b)).count();
                let at = start + PUBLISHED.len() + len;
                let (anchor, _) = anchor_at(text, at);
                let path = rest[..len].trim_end_matches('/').to_owned();
                check(file, &text[start..end], Some(path), anchor);
            }
            blanked[start..end].fill(b' ');
        }
        let text = String::from_utf8(blanked).expect("ASCII blanks keep UTF-8");
        let bytes = text.as_bytes();
        // Markdown links resolve from the page's own directory, as GitHub resolves them.
        let mut link_starts = BTreeSet::new();
        if file.ends_with(".md") {
            for (i, _) in text.match_indices("](") {
                let start = i + 2;
                let Some(len) = text[start..].find(|c: char| c == ')' || c.is_whitespace()) else {
                    continue;
                };
                let target = &text[start..start + len];
                if target.is_empty() || target.contains(':') || bytes[start + len] != b')' {
                    continue;
                }
                let (path, anchor) = target
                    .split_once('#')
                    .map_or((target, None), |(p, a)| (p, Some(a)));
                let resolved = if path.is_empty() {
                    Some(file.clone())
                } else {
                    join(dir, path)
                };
                check(file, target, resolved, anchor);
                link_starts.insert(start);
            }
        }
        // Every other mention of a markdown file, in prose, comments or strings: from the
        // root (how code cites), or from the file's own directory.
        for (i, _) in text.match_indices(".md") {
            if bytes.get(i + 3).is_some_and(|b| is_word(*b)) {
                continue;
            }
            let mut start = i - bytes[..i].iter().rev().take_while(|b| is_path(**b)).count();
            // A mention starts with a word character, `./` or `../`: no stray `/`, `-` or `.`.
            while start < i
                && !is_word(bytes[start])
                && !text[start..].starts_with("./")
                && !text[start..].starts_with("../")
            {
                start += 1;
            }
            if start == i || link_starts.contains(&start) {
                continue;
            }
            let mut mention = &text[start..i + 3];
            // A script's `$root/README.md`: the variable is a directory, the rest is ours.
            if start > 0 && bytes[start - 1] == b'$' {
                mention = mention.split_once('/').map_or(mention, |(_, rest)| rest);
            }
            let (anchor, end) = anchor_at(&text, i + 3);
            let shown = &text[start..end];
            let resolved = [join("", mention), join(dir, mention)]
                .into_iter()
                .flatten()
                .find(|p| exists(p));
            check(file, shown, resolved.or(Some(mention.to_owned())), anchor);
            // The OpenAPI document leaves the repository: a relative path would open nowhere.
            if file.ends_with("openapi.json") {
                unpublished.push(format!("{file}: `{shown}` must be a link under {PUBLISHED}"));
            }
        }
    }
    broken.extend(unpublished);
    broken
}

#[test]
fn every_cited_file_and_anchor_exists() {
    let root = root();
    let files = text_files(&root);
    assert!(
        files.contains_key("docs/rules.md") && files.contains_key("api/tests/api/docs.rs"),
        "the walk finds the repository's files"
    );
    let exists = |p: &str| files.contains_key(p) || root.join(p).exists();
    let broken = broken_citations(&files, &exists);
    assert!(
        broken.is_empty(),
        "citations that lead nowhere:\n{}",
        broken.join("\n")
    );
    // The generated document too, not only the committed copy.
    let generated = BTreeMap::from([(
        "openapi/openapi.json".to_owned(),
        continental::openapi::document(),
    )]);
    let broken = broken_citations(&generated, &exists);
    assert!(
        broken.is_empty(),
        "the generated document's citations:\n{}",
        broken.join("\n")
    );
}

#[test]
fn the_checker_catches_what_it_is_for() {
    // Made up with `format!` so that this file itself cites nothing missing.
    let rules = format!("docs/rules{}", ".md");
    let page = "# Rules\n\n<a id=\"scoring\"></a>\n## Claims (\"May I?\")\n\n## Claims (\"May I?\")\n";
    let rows = [
        (
            format!("// as {}.md says", "RULES"),
            false,
            "a bare mention of a missing file",
        ),
        (
            format!("// as {}.md §2 says", "API"),
            false,
            "another missing file",
        ),
        (format!("// see {rules}#scoring"), true, "an explicit anchor"),
        (format!("// see {rules}#claims-may-i"), true, "a heading's slug"),
        (
            format!("// see {rules}#claims-may-i-1"),
            true,
            "a repeated heading's slug",
        ),
        (
            format!("// see {rules}#no-such-section"),
            false,
            "an anchor the page lacks",
        ),
        (
            format!("/// [x]({PUBLISHED}{rules}#scoring)"),
            true,
            "a published link",
        ),
        (
            format!("/// [x]({PUBLISHED}{rules}#nope)"),
            false,
            "a published link, bad anchor",
        ),
        (
            format!("/// [x]({PUBLISHED}docs/gone{}#scoring)", ".md"),
            false,
            "a published link, no file",
        ),
        (
            format!("/// [x](https://example.com/{rules}#nope)"),
            true,
            "someone else's URL",
        ),
    ];
    for (text, ok, why) in rows {
        let files = BTreeMap::from([
            (rules.clone(), page.to_owned()),
            ("api/src/x.rs".to_owned(), text.clone()),
        ]);
        let exists = |p: &str| files.contains_key(p);
        let broken = broken_citations(&files, &exists);
        assert_eq!(broken.is_empty(), ok, "{why}: {text} gave {broken:?}");
    }
    // Markdown links resolve from the page's directory; OpenAPI text must use published links.
    let files = BTreeMap::from([
        (rules.clone(), page.to_owned()),
        (
            format!("docs/api{}", ".md"),
            format!("[a](rules{md}#scoring) [b](../rules{md})", md = ".md"),
        ),
        (
            "openapi/openapi.json".to_owned(),
            format!("\"see {rules}#scoring\""),
        ),
    ]);
    let exists = |p: &str| files.contains_key(p);
    let broken = broken_citations(&files, &exists);
    assert_eq!(
        broken.len(),
        2,
        "a link out of docs/ to a missing page, and a relative path in OpenAPI: {broken:?}"
    );
}

#[test]
fn the_options_table_of_the_rules_is_the_engine_catalogue() {
    let rules = std::fs::read_to_string(root().join("docs/rules.md")).expect("docs/rules.md");
    let rows: BTreeSet<String> = rules
        .lines()
        .filter_map(|l| {
            let cells: Vec<&str> = l.split('|').map(str::trim).collect();
            (cells.len() > 4 && cells[1].starts_with('`') && cells[2].starts_with('`'))
                .then(|| format!("{} {} {}", cells[1], cells[2], cells[3]))
        })
        .collect();
    let mut expected = BTreeSet::new();
    for variant in engine::Variant::ALL {
        for option in variant.house_options() {
            let default = serde_json::to_string(&option.default).expect("a default");
            expected.insert(format!("`{}` `{}` `{default}`", variant.id(), option.name));
        }
    }
    assert_eq!(
        rows, expected,
        "docs/rules.md#options lists every option with its default"
    );
}

/// The operations docs/api.md#endpoints names, as (method, path): a row names one or more,
/// `…/x` standing for `/v1/games/{id}/x` and `?query` left out.
fn endpoints_table(api: &str) -> BTreeSet<(String, String)> {
    let table = api
        .split("<a id=\"endpoints\"></a>")
        .nth(1)
        .and_then(|rest| rest.split("\n\n").find(|part| part.starts_with('|')))
        .expect("docs/api.md has its endpoints table");
    let mut out = BTreeSet::new();
    for row in table.lines().skip(2) {
        let first = row.split('|').nth(1).unwrap_or_default();
        let mut method = String::new();
        for named in first.split('`').skip(1).step_by(2) {
            let path = match named.split_once(' ') {
                Some((m, path)) => {
                    m.clone_into(&mut method);
                    path
                }
                None => named,
            };
            let path = path.split('?').next().unwrap_or_default();
            let path = match path.strip_prefix('…') {
                Some(rest) => format!("/v1/games/{{id}}{rest}"),
                None => path.to_owned(),
            };
            out.insert((method.clone(), path));
        }
    }
    out
}

#[test]
fn every_operation_of_the_document_is_in_the_endpoints_table() {
    let api = std::fs::read_to_string(root().join("docs/api.md")).expect("docs/api.md");
    let listed = endpoints_table(&api);
    let document: serde_json::Value =
        serde_json::from_str(&continental::openapi::document()).expect("the document is JSON");
    let mut documented = BTreeSet::new();
    for (path, item) in document["paths"].as_object().expect("paths") {
        for method in item.as_object().expect("a path item").keys() {
            documented.insert((method.to_uppercase(), path.clone()));
        }
    }
    let missing: Vec<_> = documented.difference(&listed).collect();
    assert!(
        missing.is_empty(),
        "operations docs/api.md#endpoints does not name: {missing:?}"
    );
    // The table also names what the binary serves outside the document (the document itself,
    // its page, the table in the browser); an API path it names is one the document has.
    let unknown: Vec<_> = listed
        .difference(&documented)
        .filter(|(_, path)| path.starts_with("/v1/"))
        .collect();
    assert!(
        unknown.is_empty(),
        "docs/api.md#endpoints names what the document has not: {unknown:?}"
    );
}
