//! `wasm-bindgen INPUT --out-dir DIR [--target T] [--out-name N] [flags]`: the official
//! CLI's flags that the project's builds use, each passed to wasm-bindgen-cli-support as the
//! official CLI passes it (its `rmain`), every other option at the official CLI's default,
//! so the glue and the wasm are the ones the official CLI writes.

use std::path::PathBuf;
use std::process::ExitCode;

use wasm_bindgen_cli_support::Bindgen;

const USAGE: &str = "usage: wasm-bindgen INPUT --out-dir DIR [--target bundler|web|nodejs|no-modules|deno|experimental-nodejs-module|module] \
[--out-name NAME] [--no-typescript] [--remove-name-section] [--remove-producers-section] \
[--experimental-reset-state-function] [--force-enable-abort-handler] | --version";

#[derive(Debug, Default, PartialEq)]
struct Args {
    input: Option<PathBuf>,
    out_dir: Option<PathBuf>,
    target: Option<String>,
    out_name: Option<String>,
    no_typescript: bool,
    remove_name_section: bool,
    remove_producers_section: bool,
    reset_state_function: bool,
    force_enable_abort_handler: bool,
    version: bool,
}

fn parse(args: impl IntoIterator<Item = String>) -> Result<Args, String> {
    let mut parsed = Args::default();
    let mut args = args.into_iter();
    while let Some(arg) = args.next() {
        // `--flag=value` and `--flag value` both, as clap takes them.
        let (flag, inline) = match arg.split_once('=') {
            Some((f, v)) if f.starts_with("--") => (f.to_string(), Some(v.to_string())),
            _ => (arg.clone(), None),
        };
        let mut value = |name: &str| {
            inline.clone().or_else(|| args.next()).ok_or_else(|| format!("{name} needs a value"))
        };
        match flag.as_str() {
            "--out-dir" => parsed.out_dir = Some(PathBuf::from(value("--out-dir")?)),
            "--target" => parsed.target = Some(value("--target")?),
            "--out-name" => parsed.out_name = Some(value("--out-name")?),
            "--no-typescript" => parsed.no_typescript = true,
            "--remove-name-section" => parsed.remove_name_section = true,
            "--remove-producers-section" => parsed.remove_producers_section = true,
            "--experimental-reset-state-function" => parsed.reset_state_function = true,
            "--force-enable-abort-handler" => parsed.force_enable_abort_handler = true,
            "--version" | "-V" => parsed.version = true,
            f if f.starts_with('-') => return Err(format!("unknown option {f}")),
            _ if parsed.input.is_none() => parsed.input = Some(PathBuf::from(arg)),
            _ => return Err(format!("a second input: {arg}")),
        }
    }
    Ok(parsed)
}

/// The library's error (anyhow's, not re-exported) with its chain of causes, as the official
/// CLI prints it.
fn fail(e: impl std::fmt::Debug) -> String {
    format!("{e:?}")
}

fn run(args: &Args) -> Result<(), String> {
    let input = args.input.as_ref().ok_or("no input file")?;
    let out_dir = args.out_dir.as_ref().ok_or("--out-dir is required")?;
    let mut b = Bindgen::new();
    match args.target.as_deref().unwrap_or("bundler") {
        "bundler" => b.bundler(true),
        "web" => b.web(true),
        "nodejs" => b.nodejs(true),
        "no-modules" => b.no_modules(true),
        "deno" => b.deno(true),
        "experimental-nodejs-module" => b.nodejs_module(true),
        "module" => b.module(true),
        other => return Err(format!("unknown --target {other}")),
    }
    .map_err(fail)?;
    // The official CLI's calls with its defaults for the flags not taken here. Two differ
    // from the library's own defaults: the default module path is kept, and externref is
    // off unless the wasm's features say otherwise (the deprecated flag, always passed).
    #[allow(deprecated)]
    b.input_path(input)
        .debug(false)
        .demangle(true)
        .keep_lld_exports(false)
        .keep_debug(false)
        .split_debug_info(false)
        .remove_name_section(args.remove_name_section)
        .remove_producers_section(args.remove_producers_section)
        .typescript(!args.no_typescript)
        .omit_imports(false)
        .omit_default_module_path(false)
        .split_linked_modules(false)
        .js_string_builtins(false)
        .ts_typed_array_buffers(false)
        .reference_types(false)
        .reset_state_function(args.reset_state_function)
        .force_enable_abort_handler(args.force_enable_abort_handler);
    if let Some(name) = &args.out_name {
        b.out_name(name);
    }
    b.generate(out_dir).map_err(fail)
}

fn main() -> ExitCode {
    let result = parse(std::env::args().skip(1)).and_then(|args| {
        if args.version {
            // The official CLI prints "wasm-bindgen VERSION"; the tag tells setup.sh this one is
            // installed (not an official CLI left in .tools/bin from before).
            println!("wasm-bindgen {} (iron-arena)", env!("CARGO_PKG_VERSION"));
            Ok(())
        } else {
            run(&args)
        }
    });
    match result {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("error: {e}\n{USAGE}");
            ExitCode::FAILURE
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn args(s: &str) -> Result<Args, String> {
        parse(s.split_whitespace().map(String::from))
    }

    #[test]
    fn takes_the_official_flags_in_both_forms() {
        let a = args("in.wasm --target=module --out-dir out --out-name index --no-typescript").unwrap();
        assert_eq!(a.input, Some(PathBuf::from("in.wasm")));
        assert_eq!(a.target.as_deref(), Some("module"));
        assert_eq!(a.out_dir, Some(PathBuf::from("out")));
        assert_eq!(a.out_name.as_deref(), Some("index"));
        assert!(a.no_typescript && !a.remove_name_section);
    }

    #[test]
    fn refuses_what_it_does_not_know() {
        assert_eq!(args("in.wasm --weak-refs").unwrap_err(), "unknown option --weak-refs");
        assert_eq!(args("a.wasm b.wasm").unwrap_err(), "a second input: b.wasm");
        assert_eq!(args("a.wasm --out-dir").unwrap_err(), "--out-dir needs a value");
        assert_eq!(run(&args("--out-dir o").unwrap()).unwrap_err(), "no input file");
        assert_eq!(
            run(&args("a.wasm --out-dir o --target esm").unwrap()).unwrap_err(),
            "unknown --target esm"
        );
    }
}
