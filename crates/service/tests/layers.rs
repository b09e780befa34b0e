//! The house's shape, checked: the modules of the service and of the Worker (`src/`)
//! import each other in one direction only (no circle), and the Worker runs no SQL of
//! its own (every statement is the service's, executed by the thin adapters `d1.rs` and
//! `do_sql.rs`). Read from the source as text: `crate::…` paths outside comments and
//! tests, as the compiler resolves them.

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

fn sources(dir: &Path, out: &mut Vec<PathBuf>) {
    for entry in std::fs::read_dir(dir).unwrap_or_else(|e| panic!("{}: {e}", dir.display())) {
        let path = entry.map(|e| e.path()).unwrap_or_default();
        if path.is_dir() {
            sources(&path, out);
        } else if path.extension().is_some_and(|x| x == "rs") {
            out.push(path);
        }
    }
}

/// The code of a file: comments and the `#[cfg(test)]` module removed.
fn code(text: &str) -> String {
    let text = text.split("#[cfg(test)]").next().unwrap_or_default();
    text.lines().map(|l| l.split("//").next().unwrap_or_default()).collect::<Vec<_>>().join("\n")
}

/// Module name (`a`, `a::b`) -> the modules of the same crate it refers to.
fn graph(root: &Path) -> BTreeMap<String, BTreeSet<String>> {
    let mut files = Vec::new();
    sources(root, &mut files);
    let name = |p: &Path| {
        let rel = p.strip_prefix(root).unwrap_or(p).with_extension("");
        rel.to_string_lossy().replace("/mod", "").replace('/', "::")
    };
    let modules: BTreeMap<String, String> =
        files.iter().map(|p| (name(p), code(&std::fs::read_to_string(p).unwrap_or_default()))).collect();
    let mut g = BTreeMap::new();
    for (m, src) in &modules {
        if m == "lib" {
            continue;
        }
        let mut deps = BTreeSet::new();
        let mut refer = |path: &str| {
            let parts: Vec<&str> = path.split("::").collect();
            let two = parts.iter().take(2).copied().collect::<Vec<_>>().join("::");
            let dep = if modules.contains_key(&two) { two } else { parts[0].to_owned() };
            if modules.contains_key(&dep) && &dep != m && !m.starts_with(&format!("{dep}::")) {
                deps.insert(dep);
            }
        };
        for (i, _) in src.match_indices("crate::") {
            let rest = &src[i + 7..];
            if let Some(group) = rest.strip_prefix('{') {
                for item in group.split('}').next().unwrap_or_default().split(',') {
                    refer(item.trim());
                }
            } else {
                let end =
                    rest.find(|c: char| !(c.is_alphanumeric() || c == '_' || c == ':')).unwrap_or(rest.len());
                refer(rest[..end].trim_end_matches(':'));
            }
        }
        g.insert(m.clone(), deps);
    }
    g
}

/// A circle of `g`, if there is one.
fn circle(g: &BTreeMap<String, BTreeSet<String>>) -> Option<Vec<String>> {
    fn visit(
        g: &BTreeMap<String, BTreeSet<String>>,
        m: &str,
        path: &mut Vec<String>,
        done: &mut BTreeSet<String>,
    ) -> Option<Vec<String>> {
        if let Some(i) = path.iter().position(|p| p == m) {
            return Some(path[i..].to_vec());
        }
        if done.contains(m) {
            return None;
        }
        path.push(m.to_owned());
        for d in g.get(m).into_iter().flatten() {
            if let Some(c) = visit(g, d, path, done) {
                return Some(c);
            }
        }
        path.pop();
        done.insert(m.to_owned());
        None
    }
    let mut done = BTreeSet::new();
    g.keys().find_map(|m| visit(g, m, &mut Vec::new(), &mut done))
}

fn repo() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..")
}

#[test]
fn the_service_and_the_worker_have_no_module_circle() {
    for root in [repo().join("crates/service/src"), repo().join("src")] {
        let g = graph(&root);
        assert!(g.len() > 10, "{}: only {} modules read", root.display(), g.len());
        assert_eq!(circle(&g), None, "{}: modules that import each other in a circle", root.display());
    }
}

#[test]
fn a_circle_is_found_when_there_is_one() {
    let g: BTreeMap<String, BTreeSet<String>> = [("a", "b"), ("b", "c"), ("c", "a"), ("d", "a")]
        .into_iter()
        .map(|(m, d)| (m.to_owned(), BTreeSet::from([d.to_owned()])))
        .collect();
    assert_eq!(circle(&g), Some(vec!["a".into(), "b".into(), "c".into()]));
}

#[test]
fn the_worker_runs_no_sql_of_its_own() {
    let mut files = Vec::new();
    sources(&repo().join("src"), &mut files);
    for f in files {
        let text = code(&std::fs::read_to_string(&f).unwrap_or_default());
        for word in ["SELECT ", "INSERT ", "UPDATE ", "DELETE FROM", "CREATE TABLE"] {
            assert!(
                !text.contains(word),
                "{} holds SQL ({word:?}): statements are the service's",
                f.display()
            );
        }
    }
}
