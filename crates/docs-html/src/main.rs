//! The players' pages, rendered at build time: Markdown on stdin (public/rules.md, a copy of
//! docs/rules.md; docs/api.md), the HTML fragment the client shows on stdout
//! (public/rules.htm, public/api.htm). scripts/build-web-engine.sh runs it; the client
//! inserts the fragment as it is and only adds what needs its own code (the contents list,
//! the pieces' pictures, the board diagrams drawn by its board renderer: `enhanceRules` in
//! public/modals.js).
//!
//! CommonMark with GitHub's tables, by pulldown-cmark, and what the dialog and its styles
//! expect, as the client's renderer (public/markdown.js, replaced by this) made it:
//! - the page's title (a leading `#` heading) is left out: the dialog has its own (an h2);
//!   the other headings move one level down (`##` is an h3, `###` an h4);
//! - each heading has an id, its text in lowercase with every run of other characters than
//!   a-z and 0-9 made one `-` ("1. The goal" is `1-the-goal`), the contents list's anchors;
//!   a repeated id gets `-1`, `-2`, ...; a `###` heading "Piece: Ability" is the ability's
//!   (`### Axe: Slash` is `#slash`), so that every ability has a short address;
//! - a table sits in a `div.table-wrap`, its header cells are `th scope="col"`, each body
//!   cell carries its column's name (`data-label`: a phone shows the rows as cards, the
//!   name before each cell), and column alignment is dropped (the page's CSP allows no style
//!   attributes); a row of a table with a `letter` and a `piece` column is that piece's anchor (its name
//!   without "The " and a "(king)": `#sickle`, `#mistress`, `#father-time`; the full name
//!   and the name run together are anchors too: `#the-mistress`, `#fathertime`);
//! - a code block is a `pre.diagram`, without its last newline; a code block whose info
//!   string is `board <south faction> <north faction> [charged=<squares>]` is a board
//!   diagram (one grid, or a before and an after grid side by side): each grid becomes a
//!   `figure.board-diagram` with the full position as IAPN (`data-iapn`, the grid's pieces
//!   on an otherwise empty board; South to move before, North after), the part of the board
//!   it shows (`data-view`, e.g. `c2 g6`), its marked squares (`data-marks`: `*`, a path or
//!   an area; `data-destroyed`: `x`), its caption and the grid as text; the client draws
//!   it with the board's own squares and pieces. A grid that does not read as a board is a
//!   build error;
//! - raw HTML is shown as text, never passed through, and a link is kept only to an http(s)
//!   address, a `#` anchor or a path of the site (otherwise its text stays, unlinked).

use std::collections::HashSet;
use std::io::{Read, Write};

use pulldown_cmark::{html, CowStr, Event, HeadingLevel, Options, Parser, Tag, TagEnd};

fn main() {
    let mut md = String::new();
    let page = std::io::stdin().read_to_string(&mut md).map_err(|e| e.to_string()).and_then(|_| render(&md));
    match page.and_then(|p| std::io::stdout().write_all(p.as_bytes()).map_err(|e| e.to_string())) {
        Ok(()) => {}
        Err(e) => {
            eprintln!("docs-html: {e}");
            std::process::exit(1);
        }
    }
}

/// The id of a heading with this text (as public/markdown.js made them).
fn slug(text: &str) -> String {
    let lower = text.to_lowercase();
    let words: Vec<&str> =
        lower.split(|c: char| !c.is_ascii_alphanumeric()).filter(|w| !w.is_empty()).collect();
    words.join("-")
}

/// A heading's id: a `###` "Piece: Ability" is the ability's, any other its whole text's.
fn heading_slug(level: HeadingLevel, text: &str) -> String {
    match text.split_once(": ") {
        Some((_, ability)) if level == HeadingLevel::H3 && !slug(ability).is_empty() => slug(ability),
        _ => slug(text),
    }
}

/// A piece's anchors from its table cell ("The Mistress (king)"): the main one first.
fn piece_anchors(cell: &str) -> Vec<String> {
    let name = cell.split(" (").next().unwrap_or(cell).trim();
    let full = slug(name);
    let short = slug(name.strip_prefix("The ").unwrap_or(name));
    let mut ids = vec![short.clone()];
    for alt in [full, short.replace('-', "")] {
        if !alt.is_empty() && !ids.contains(&alt) {
            ids.push(alt);
        }
    }
    ids
}

fn escape(text: &str) -> String {
    text.replace('&', "&amp;").replace('<', "&lt;").replace('>', "&gt;").replace('"', "&quot;")
}

/// The text of the events up to the end of the current cell or heading.
fn text_until_end(events: &[Event]) -> String {
    events
        .iter()
        .take_while(|e| !matches!(e, Event::End(TagEnd::Heading(_) | TagEnd::TableCell)))
        .filter_map(|e| match e {
            Event::Text(t) | Event::Code(t) => Some(t.as_ref()),
            _ => None,
        })
        .collect()
}

fn render(md: &str) -> Result<String, String> {
    let mut events: Vec<Event> = Parser::new_ext(md, Options::ENABLE_TABLES).collect();
    if matches!(events.first(), Some(Event::Start(Tag::Heading { level: HeadingLevel::H1, .. }))) {
        let title_end = events.iter().position(|e| matches!(e, Event::End(TagEnd::Heading(_))));
        events.drain(..title_end.map_or(0, |i| i + 1));
    }
    let mut out = Vec::with_capacity(events.len());
    let mut ids = HashSet::new();
    let mut unique = |base: String| {
        let mut id = base.clone();
        for n in 1.. {
            if ids.insert(id.clone()) {
                break;
            }
            id = format!("{base}-{n}");
        }
        id
    };
    let mut in_table_head = false;
    let mut columns: Vec<String> = Vec::new();
    let mut column = 0;
    let mut pending_anchors: Vec<String> = Vec::new();
    let mut code: Option<(String, String)> = None;
    let mut links_kept = Vec::new();
    for (i, event) in events.iter().enumerate() {
        let event = event.clone();
        if let Some((info, text)) = &mut code {
            match event {
                Event::Text(t) => text.push_str(&t),
                Event::End(TagEnd::CodeBlock) => {
                    let text = text.strip_suffix('\n').unwrap_or(text).to_string();
                    if let Some(factions) = info.strip_prefix("board ") {
                        out.push(Event::Html(board::render(factions, &text)?.into()));
                    } else {
                        out.push(Event::Html("<pre class=\"diagram\"><code>".into()));
                        out.push(Event::Text(text.into()));
                        out.push(Event::Html("</code></pre>\n".into()));
                    }
                    code = None;
                }
                _ => {}
            }
            continue;
        }
        match event {
            Event::Start(Tag::Heading { level, .. }) => {
                let id = unique(heading_slug(level, &text_until_end(&events[i + 1..])));
                out.push(Event::Start(Tag::Heading {
                    level: lower(level),
                    id: (!id.is_empty()).then(|| CowStr::from(id)),
                    classes: Vec::new(),
                    attrs: Vec::new(),
                }));
            }
            Event::End(TagEnd::Heading(level)) => out.push(Event::End(TagEnd::Heading(lower(level)))),
            Event::Start(Tag::Table(_)) => {
                columns.clear();
                out.push(Event::Html("<div class=\"table-wrap\">".into()));
                out.push(Event::Start(Tag::Table(Vec::new())));
            }
            Event::End(TagEnd::Table) => {
                out.push(event);
                out.push(Event::Html("</div>\n".into()));
            }
            Event::Start(Tag::TableHead) | Event::End(TagEnd::TableHead) => {
                in_table_head = matches!(event, Event::Start(_));
                out.push(event);
            }
            Event::Start(Tag::TableRow) => {
                column = 0;
                // A piece's row of its faction's table (a `letter` and a `piece` column) is
                // its anchor: the cell of the `piece` column names it.
                let faction_table = columns.iter().any(|c| c == "letter");
                let cell =
                    columns.iter().position(|c| c == "piece").filter(|_| faction_table).and_then(|k| {
                        events[i + 1..]
                            .iter()
                            .enumerate()
                            .take_while(|(_, e)| !matches!(e, Event::End(TagEnd::TableRow)))
                            .filter(|(_, e)| matches!(e, Event::Start(Tag::TableCell)))
                            .nth(k)
                            .map(|(j, _)| text_until_end(&events[i + 2 + j..]))
                    });
                match cell.map(|c| piece_anchors(&c)) {
                    Some(anchors) if !anchors[0].is_empty() => {
                        let id = unique(anchors[0].clone());
                        out.push(Event::Html(format!("<tr id=\"{id}\">").into()));
                        // The other spellings, in the row's first cell.
                        pending_anchors = anchors[1..].iter().map(|a| unique(a.clone())).collect();
                    }
                    _ => out.push(event),
                }
            }
            Event::Start(Tag::TableCell) if in_table_head => {
                out.push(Event::Html("<th scope=\"col\">".into()));
                columns.push(text_until_end(&events[i + 1..]).trim().to_lowercase());
            }
            Event::End(TagEnd::TableCell) if in_table_head => out.push(Event::Html("</th>".into())),
            Event::Start(Tag::TableCell) => {
                let label = columns.get(column).cloned().unwrap_or_default();
                column += 1;
                let mut html = format!("<td data-label=\"{}\">", escape(&label));
                for a in pending_anchors.drain(..) {
                    html.push_str(&format!("<span id=\"{a}\"></span>"));
                }
                out.push(Event::Html(html.into()));
            }
            Event::Start(Tag::CodeBlock(kind)) => {
                let info = match kind {
                    pulldown_cmark::CodeBlockKind::Fenced(info) => info.trim().to_string(),
                    pulldown_cmark::CodeBlockKind::Indented => String::new(),
                };
                code = Some((info, String::new()));
            }
            Event::Html(raw) | Event::InlineHtml(raw) => out.push(Event::Text(raw)),
            Event::Start(Tag::Link { ref dest_url, .. }) => {
                let keep = ["http:", "https:", "#", "/"].iter().any(|p| dest_url.starts_with(p));
                links_kept.push(keep);
                if keep {
                    out.push(event);
                }
            }
            Event::End(TagEnd::Link) => {
                if links_kept.pop().unwrap_or(false) {
                    out.push(event);
                }
            }
            _ => out.push(event),
        }
    }
    let mut page = String::with_capacity(md.len() * 3 / 2);
    html::push_html(&mut page, out.into_iter());
    Ok(page)
}

mod board;

/// One heading level down (the dialog's title is the h2), h6 at most.
fn lower(level: HeadingLevel) -> HeadingLevel {
    HeadingLevel::try_from((level as usize + 1).min(6)).unwrap_or(HeadingLevel::H6)
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    fn render(md: &str) -> String {
        super::render(md).unwrap()
    }

    #[test]
    fn the_title_goes_and_headings_move_down_a_level_with_ids() {
        let page = render("# Iron Arena: how to play\n\nIntro.\n\n## 1. The goal\n\n### Spring: `Recoil`\n\n## 1. The goal\n");
        assert_eq!(
            page,
            "<p>Intro.</p>\n<h3 id=\"1-the-goal\">1. The goal</h3>\n\
             <h4 id=\"recoil\">Spring: <code>Recoil</code></h4>\n<h3 id=\"1-the-goal-1\">1. The goal</h3>\n"
        );
    }

    #[test]
    fn a_table_is_wrapped_with_column_headers_and_no_alignment() {
        let page = render("| letter | piece |\n|:---|---:|\n| C | **Cog** |\n");
        assert_eq!(
            page,
            "<div class=\"table-wrap\"><table><thead><tr><th scope=\"col\">letter</th><th scope=\"col\">piece</th>\
             </tr></thead><tbody>\n<tr id=\"cog\"><td data-label=\"letter\">C</td><td data-label=\"piece\"><strong>Cog</strong></td></tr>\n</tbody></table>\n</div>\n"
        );
    }

    #[test]
    fn a_piece_row_is_its_anchor_under_each_spelling() {
        let page = render("| piece | when |\n|---|---|\n| The Mistress | x |\n\n| letter | piece |\n|---|---|\n| `M` | The Mistress (king) |\n| `F` | Father Time (king) |\n");
        assert!(page.contains("<tr id=\"mistress\"><td data-label=\"letter\"><span id=\"the-mistress\"></span><code>M</code></td>"), "{page}");
        assert!(
            page.contains("<tr id=\"father-time\"><td data-label=\"letter\"><span id=\"fathertime\"></span>"),
            "{page}"
        );
        let other = render("| a | b |\n|---|---|\n| x | y |\n");
        assert!(other.contains("<tr><td data-label=\"a\">x</td>"), "{other}");
    }

    #[test]
    fn a_code_block_is_a_diagram_escaped_without_its_last_newline() {
        assert_eq!(
            render("```\n9  . <k> &\n   a b\n```\n"),
            "<pre class=\"diagram\"><code>9  . &lt;k&gt; &amp;\n   a b</code></pre>\n"
        );
    }

    #[test]
    fn a_board_block_is_a_diagram_and_a_bad_one_an_error() {
        let page = render("```board clockwork blades\n2  . C\n1  F .\n   a b\n```\n");
        assert!(page.starts_with("<div class=\"board-diagrams\"><figure class=\"board-diagram\" data-iapn=\"clockwork blades 9/9/9/9/9/9/9/1C7/F8 s - 0\" data-view=\"a1 b2\""), "{page}");
        assert!(super::render("```board clockwork blades\n2  . C C\n   a b\n```\n").is_err());
    }

    /// Every diagram of the players' rules page is a setup the engine reads (IAPN; most show
    /// part of a board, without king-pieces, so not a whole game's position), and every
    /// piece and ability has its anchor.
    #[test]
    fn the_rules_page_diagrams_are_positions_and_every_piece_and_ability_has_an_anchor() {
        let md =
            std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/../../docs/rules.md")).unwrap();
        let page = render(&md);
        let positions: Vec<&str> =
            page.split("data-iapn=\"").skip(1).map(|r| r.split('"').next().unwrap()).collect();
        assert!(positions.len() >= 21, "{} diagrams", positions.len());
        for p in positions {
            if let Err(e) = engine::iapn::parse_setup(p) {
                panic!("{p}: {e}");
            }
        }
        let grids = page
            .split("<pre class=\"diagram\"><code>")
            .skip(1)
            .filter(|c| c.as_bytes()[1..3] == *b"  ")
            .count();
        assert_eq!(
            grids,
            page.matches("<figure class=\"board-diagram\"").count(),
            "a letter grid outside a board diagram"
        );
        for id in [
            "in-short",
            "cog",
            "gear",
            "pendulum",
            "spring",
            "hands",
            "dial",
            "father-time",
            "dagger",
            "axe",
            "sickle",
            "sabres",
            "sword",
            "mistress",
            "phial",
            "magnet",
            "torch",
            "scales",
            "telescope",
            "scientist",
            "merge",
            "recoil",
            "recall",
            "timeout",
            "stab",
            "assassinate",
            "slash",
            "sidestep",
            "detonate",
            "attract",
            "burn",
            "leap-capture",
            "fathertime",
            "the-mistress",
            "the-scientist",
        ] {
            assert!(page.contains(&format!(" id=\"{id}\"")), "no anchor #{id}");
        }
    }

    #[test]
    fn lists_nest_and_number() {
        assert_eq!(
            render("1. one\n2. two\n   - `a`\n"),
            "<ol>\n<li>one</li>\n<li>two\n<ul>\n<li><code>a</code></li>\n</ul>\n</li>\n</ol>\n"
        );
    }

    #[test]
    fn raw_html_is_text_and_only_safe_links_are_kept() {
        assert_eq!(
            render("<b>x</b> [a](#goal) [b](https://example.org/) [c](javascript:alert(1)) *i*\n"),
            "<p>&lt;b&gt;x&lt;/b&gt; <a href=\"#goal\">a</a> <a href=\"https://example.org/\">b</a> c <em>i</em></p>\n"
        );
        assert_eq!(render("<div>\nblock\n</div>\n"), "&lt;div&gt;\nblock\n&lt;/div&gt;\n");
    }
}
