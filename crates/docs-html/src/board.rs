//! A board diagram of the rules (a code block `board <south> <north> [charged=<squares>]`):
//! one letter grid, or a before and an after grid side by side, read into full positions
//! (IAPN) that the client draws with the board's own squares and pieces.
//!
//! A grid is rows `<rank>  <cell> <cell> …` (rank 9 at the top) and a last row of file
//! letters; grids on one line are separated by three spaces or more, and a line of words
//! over them is their captions ("before", "after"). A cell is `.` (empty), `*` (a marked
//! square: a path, an area), `x` (a piece destroyed there) or a piece's letter (IAPN's:
//! uppercase South, lowercase North). The position holds the grid's pieces on an otherwise
//! empty board, South to move in the first grid and North in the second (the diagrams show
//! South's move); `charged=d6,f6` names the squares whose piece is charged, in whichever
//! grid a piece stands there.

const FILES: &str = "abcdefghi";

/// One grid: its caption, its pieces and marks by square, the files and ranks it shows.
#[derive(Default)]
struct Grid {
    caption: String,
    cells: Vec<(usize, usize, char)>,
    files: Vec<usize>,
    ranks: Vec<usize>,
    text: Vec<String>,
}

fn split_wide(line: &str) -> Vec<String> {
    let mut parts = Vec::new();
    let mut cur = String::new();
    let mut spaces = 0;
    for c in line.trim().chars() {
        if c == ' ' {
            spaces += 1;
            continue;
        }
        if spaces >= 3 && !cur.is_empty() {
            parts.push(std::mem::take(&mut cur));
        } else {
            cur.extend(std::iter::repeat_n(' ', spaces));
        }
        spaces = 0;
        cur.push(c);
    }
    if !cur.is_empty() {
        parts.push(cur);
    }
    parts
}

fn grids(text: &str) -> Result<Vec<Grid>, String> {
    let lines: Vec<&str> = text.lines().filter(|l| !l.trim().is_empty()).collect();
    let Some(files_line) = lines.last() else { return Err("an empty board diagram".into()) };
    let file_parts = split_wide(files_line);
    let mut out: Vec<Grid> = file_parts.iter().map(|_| Grid::default()).collect();
    for (k, part) in file_parts.iter().enumerate() {
        for f in part.split(' ') {
            let file = FILES
                .find(f)
                .filter(|_| f.len() == 1)
                .ok_or(format!("'{f}' is not a file in '{files_line}'"))?;
            out[k].files.push(file);
        }
    }
    for line in &lines[..lines.len() - 1] {
        let parts = split_wide(line);
        let is_rank = parts.first().is_some_and(|p| p.as_bytes().first().is_some_and(u8::is_ascii_digit));
        if !is_rank {
            if parts.len() != out.len() {
                return Err(format!("the captions '{line}' are not one per grid"));
            }
            for (g, caption) in out.iter_mut().zip(parts) {
                g.caption = caption;
            }
            continue;
        }
        if parts.len() != out.len() {
            return Err(format!("the row '{line}' is not one per grid"));
        }
        for (g, part) in out.iter_mut().zip(parts) {
            let (rank, cells) = part.split_once("  ").ok_or(format!("no rank in '{part}'"))?;
            let rank: usize = match rank.parse::<usize>() {
                Ok(r @ 1..=9) => r - 1,
                _ => return Err(format!("'{rank}' is not a rank")),
            };
            let cells: Vec<&str> = cells.split(' ').collect();
            if cells.len() != g.files.len() {
                return Err(format!("the row '{part}' does not have one cell per file"));
            }
            for (&file, cell) in g.files.iter().zip(cells) {
                let c = cell
                    .chars()
                    .next()
                    .filter(|_| cell.len() == 1)
                    .ok_or(format!("'{cell}' is not a cell"))?;
                if !(c == '.' || c == '*' || c == 'x' || c.is_ascii_alphabetic()) {
                    return Err(format!("'{c}' is not a cell"));
                }
                g.cells.push((file, rank, c));
            }
            g.ranks.push(rank);
            g.text.push(part.clone());
        }
    }
    for g in &mut out {
        let files: String = g.files.iter().map(|&f| format!("{} ", &FILES[f..=f])).collect();
        g.text.push(format!("   {}", files.trim_end()));
        if g.ranks.is_empty() {
            return Err("a grid without ranks".into());
        }
    }
    Ok(out)
}

fn square(file: usize, rank: usize) -> String {
    format!("{}{}", &FILES[file..=file], rank + 1)
}

/// The grid's position as IAPN (`south north board turn charged ply`).
fn iapn(g: &Grid, factions: &str, turn: &str, charged: &[String]) -> String {
    let mut board = [[None::<char>; 9]; 9];
    for &(f, r, c) in &g.cells {
        if c.is_ascii_alphabetic() && c != 'x' {
            board[r][f] = Some(c);
        }
    }
    let mut ranks = Vec::new();
    let mut on = Vec::new();
    for r in (0..9).rev() {
        let mut row = String::new();
        let mut empty = 0;
        for (f, cell) in board[r].iter().enumerate() {
            match cell {
                Some(c) => {
                    if empty > 0 {
                        row.push_str(&empty.to_string());
                        empty = 0;
                    }
                    row.push(*c);
                    if charged.contains(&square(f, r)) {
                        on.push(square(f, r));
                    }
                }
                None => empty += 1,
            }
        }
        if empty > 0 {
            row.push_str(&empty.to_string());
        }
        ranks.push(row);
    }
    let on = if on.is_empty() { "-".to_string() } else { on.join(",") };
    let ply = if turn == "s" { 0 } else { 1 };
    format!("{factions} {} {turn} {on} {ply}", ranks.join("/"))
}

/// The diagram's HTML: each grid a `figure.board-diagram` (module docs).
pub fn render(info: &str, text: &str) -> Result<String, String> {
    let words: Vec<&str> = info.split_whitespace().collect();
    let (factions, charged) = match words.as_slice() {
        [south, north, rest @ ..] => {
            let mut charged = Vec::new();
            for w in rest {
                let list = w
                    .strip_prefix("charged=")
                    .ok_or(format!("'{w}': only charged=<squares> may follow the factions"))?;
                charged.extend(list.split(',').map(str::to_owned));
            }
            (format!("{south} {north}"), charged)
        }
        _ => return Err(format!("'board {info}': the two factions are missing")),
    };
    let grids = grids(text).map_err(|e| format!("board diagram: {e}\n{text}"))?;
    let mut html = String::from("<div class=\"board-diagrams\">");
    for (k, g) in grids.iter().enumerate() {
        let turn = if k == 0 { "s" } else { "n" };
        let marks = |want: char| {
            let v: Vec<String> = g.cells.iter().filter(|c| c.2 == want).map(|c| square(c.0, c.1)).collect();
            v.join(",")
        };
        let (f0, f1) =
            (g.files.iter().min().copied().unwrap_or(0), g.files.iter().max().copied().unwrap_or(8));
        let (r0, r1) =
            (g.ranks.iter().min().copied().unwrap_or(0), g.ranks.iter().max().copied().unwrap_or(8));
        html.push_str(&format!(
            "<figure class=\"board-diagram\" data-iapn=\"{}\" data-view=\"{} {}\" data-marks=\"{}\" data-destroyed=\"{}\">",
            escape(&iapn(g, &factions, turn, &charged)),
            square(f0, r0),
            square(f1, r1),
            marks('*'),
            marks('x'),
        ));
        if !g.caption.is_empty() {
            html.push_str(&format!("<figcaption>{}</figcaption>", escape(&g.caption)));
        }
        html.push_str(&format!(
            "<pre class=\"diagram\"><code>{}</code></pre></figure>",
            escape(&g.text.join("\n"))
        ));
    }
    html.push_str("</div>\n");
    Ok(html)
}

fn escape(text: &str) -> String {
    text.replace('&', "&amp;").replace('<', "&lt;").replace('>', "&gt;").replace('"', "&quot;")
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::render;

    #[test]
    fn a_before_and_after_pair_reads_into_two_positions_with_their_marks() {
        let html = render(
            "blades clockwork charged=e5",
            "   before            after\n6  . . p . .      6  . . x . .\n5  . . * . .      5  . . D . .\n4  . . D . .      4  . . . . .\n   c d e f g         c d e f g",
        )
        .unwrap();
        assert_eq!(
            html,
            "<div class=\"board-diagrams\">\
             <figure class=\"board-diagram\" data-iapn=\"blades clockwork 9/9/9/4p4/9/4D4/9/9/9 s - 0\" data-view=\"c4 g6\" data-marks=\"e5\" data-destroyed=\"\">\
             <figcaption>before</figcaption><pre class=\"diagram\"><code>6  . . p . .\n5  . . * . .\n4  . . D . .\n   c d e f g</code></pre></figure>\
             <figure class=\"board-diagram\" data-iapn=\"blades clockwork 9/9/9/9/4D4/9/9/9/9 n e5 1\" data-view=\"c4 g6\" data-marks=\"\" data-destroyed=\"e6\">\
             <figcaption>after</figcaption><pre class=\"diagram\"><code>6  . . x . .\n5  . . D . .\n4  . . . . .\n   c d e f g</code></pre></figure></div>\n"
        );
    }

    #[test]
    fn a_grid_that_is_not_a_board_is_an_error() {
        assert!(render("clockwork", "1  . .\n   a b").is_err(), "one faction");
        assert!(render("clockwork blades", "1  . . .\n   a b").is_err(), "a cell too many");
        assert!(render("clockwork blades", "1  . ?\n   a b").is_err(), "an unknown cell");
        assert!(render("clockwork blades", "0  . .\n   a b").is_err(), "rank 0");
        assert!(render("clockwork blades", "1  . .\n   a z").is_err(), "file z");
        assert!(render("clockwork blades flipped", "1  . .\n   a b").is_err(), "an unknown option");
    }
}
