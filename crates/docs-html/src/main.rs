//! The rules dialog's page, rendered at build time: Markdown (public/rules.md, a copy of
//! docs/rules.md) on stdin, the HTML fragment the client shows (public/rules.htm) on stdout.
//! scripts/build-web-engine.sh runs it; the client inserts the fragment as it is and only
//! adds what needs its own code (the contents list, the pieces' pictures, the split of the
//! before/after diagrams: `enhanceRules` in public/modals.js).
//!
//! CommonMark with GitHub's tables, by pulldown-cmark, and what the dialog and its styles
//! expect, as the client's renderer (public/markdown.js, replaced by this) made it:
//! - the page's title (a leading `#` heading) is left out: the dialog has its own (an h2);
//!   the other headings move one level down (`##` is an h3, `###` an h4);
//! - each heading has an id, its text in lowercase with every run of other characters than
//!   a-z and 0-9 made one `-` ("1. The goal" is `1-the-goal`), the contents list's anchors;
//!   a repeated id gets `-1`, `-2`, ...;
//! - a table sits in a `div.table-wrap` (it scrolls sideways on a phone), its header cells
//!   are `th scope="col"`, and column alignment is dropped (the page's CSP allows no style
//!   attributes);
//! - a code block is a `pre.diagram` (the board diagrams), without its last newline;
//! - raw HTML is shown as text, never passed through, and a link is kept only to an http(s)
//!   address, a `#` anchor or a path of the site (otherwise its text stays, unlinked).

use std::collections::HashSet;
use std::io::{Read, Write};

use pulldown_cmark::{html, CowStr, Event, HeadingLevel, Options, Parser, Tag, TagEnd};

fn main() -> std::io::Result<()> {
    let mut md = String::new();
    std::io::stdin().read_to_string(&mut md)?;
    std::io::stdout().write_all(render(&md).as_bytes())
}

/// The id of a heading with this text (as public/markdown.js made them).
fn slug(text: &str) -> String {
    let lower = text.to_lowercase();
    let words: Vec<&str> =
        lower.split(|c: char| !c.is_ascii_alphanumeric()).filter(|w| !w.is_empty()).collect();
    words.join("-")
}

fn render(md: &str) -> String {
    let mut events: Vec<Event> = Parser::new_ext(md, Options::ENABLE_TABLES).collect();
    if matches!(events.first(), Some(Event::Start(Tag::Heading { level: HeadingLevel::H1, .. }))) {
        let title_end = events.iter().position(|e| matches!(e, Event::End(TagEnd::Heading(_))));
        events.drain(..title_end.map_or(0, |i| i + 1));
    }
    let mut out = Vec::with_capacity(events.len());
    let mut ids = HashSet::new();
    let mut in_table_head = false;
    let mut code: Option<String> = None;
    let mut links_kept = Vec::new();
    for (i, event) in events.iter().enumerate() {
        let event = event.clone();
        if let Some(text) = &mut code {
            match event {
                Event::Text(t) => text.push_str(&t),
                Event::End(TagEnd::CodeBlock) => {
                    let text = text.strip_suffix('\n').unwrap_or(text).to_string();
                    out.push(Event::Text(text.into()));
                    out.push(Event::Html("</code></pre>\n".into()));
                    code = None;
                }
                _ => {}
            }
            continue;
        }
        match event {
            Event::Start(Tag::Heading { level, .. }) => {
                let text: String = events[i + 1..]
                    .iter()
                    .take_while(|e| !matches!(e, Event::End(TagEnd::Heading(_))))
                    .filter_map(|e| match e {
                        Event::Text(t) | Event::Code(t) => Some(t.as_ref()),
                        _ => None,
                    })
                    .collect();
                let base = slug(&text);
                let mut id = base.clone();
                for n in 1.. {
                    if ids.insert(id.clone()) {
                        break;
                    }
                    id = format!("{base}-{n}");
                }
                out.push(Event::Start(Tag::Heading {
                    level: lower(level),
                    id: (!id.is_empty()).then(|| CowStr::from(id)),
                    classes: Vec::new(),
                    attrs: Vec::new(),
                }));
            }
            Event::End(TagEnd::Heading(level)) => out.push(Event::End(TagEnd::Heading(lower(level)))),
            Event::Start(Tag::Table(_)) => {
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
            Event::Start(Tag::TableCell) if in_table_head => {
                out.push(Event::Html("<th scope=\"col\">".into()))
            }
            Event::End(TagEnd::TableCell) if in_table_head => out.push(Event::Html("</th>".into())),
            Event::Start(Tag::CodeBlock(_)) => {
                out.push(Event::Html("<pre class=\"diagram\"><code>".into()));
                code = Some(String::new());
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
    page
}

/// One heading level down (the dialog's title is the h2), h6 at most.
fn lower(level: HeadingLevel) -> HeadingLevel {
    HeadingLevel::try_from((level as usize + 1).min(6)).unwrap_or(HeadingLevel::H6)
}

#[cfg(test)]
mod tests {
    use super::render;

    #[test]
    fn the_title_goes_and_headings_move_down_a_level_with_ids() {
        let page = render("# Iron Arena: how to play\n\nIntro.\n\n## 1. The goal\n\n### Spring: `Recoil`\n\n## 1. The goal\n");
        assert_eq!(
            page,
            "<p>Intro.</p>\n<h3 id=\"1-the-goal\">1. The goal</h3>\n\
             <h4 id=\"spring-recoil\">Spring: <code>Recoil</code></h4>\n<h3 id=\"1-the-goal-1\">1. The goal</h3>\n"
        );
    }

    #[test]
    fn a_table_is_wrapped_with_column_headers_and_no_alignment() {
        let page = render("| piece | when |\n|:---|---:|\n| Cog | **charged** |\n");
        assert_eq!(
            page,
            "<div class=\"table-wrap\"><table><thead><tr><th scope=\"col\">piece</th><th scope=\"col\">when</th>\
             </tr></thead><tbody>\n<tr><td>Cog</td><td><strong>charged</strong></td></tr>\n</tbody></table>\n</div>\n"
        );
    }

    #[test]
    fn a_code_block_is_a_diagram_escaped_without_its_last_newline() {
        assert_eq!(
            render("```\n9  . <k> &\n   a b\n```\n"),
            "<pre class=\"diagram\"><code>9  . &lt;k&gt; &amp;\n   a b</code></pre>\n"
        );
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
