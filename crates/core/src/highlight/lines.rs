//! Lines cut into tokens: each language's lexer, one line after another with what each
//! line leaves open for the next.

use super::{langs, lexer, markup, Lang, State, Token};

/// Cuts one line (without its line break) into tokens, appended to `out` in order.
pub fn line_tokens(lang: Lang, line: &str, state: &mut State, out: &mut Vec<Token>) {
    match lang {
        Lang::Html => markup::html(line, state, out),
        Lang::Css => markup::css(line, state, out),
        Lang::Json => markup::json(line, state, out),
        Lang::Yaml => markup::yaml(line, out),
        Lang::Toml => markup::toml(line, state, out),
        Lang::Markdown => markup::markdown(line, state, out),
        Lang::Diff => markup::diff(line, out),
        _ => lexer::code(langs::syntax(lang), line, state, out),
    }
}

/// Tokens for a diff's lines, asked for in the order the lines are shown
/// (`diff::rows_html_with`).
pub trait LineHighlighter {
    /// The tokens of a line of the old side, the new side, or both (an unchanged line in
    /// one column).
    fn tokens(&mut self, text: &str, old_side: bool, new_side: bool, out: &mut Vec<Token>);
    /// Lines were folded away: what they left open is not known.
    fn skip(&mut self);
}

/// A diff's two sides in one language, each lexed in order with what its lines leave open.
pub struct DiffSides {
    lang: Lang,
    old: State,
    new: State,
}

impl DiffSides {
    pub fn new(lang: Lang) -> Self {
        DiffSides {
            lang,
            old: State::default(),
            new: State::default(),
        }
    }
}

impl LineHighlighter for DiffSides {
    fn tokens(&mut self, text: &str, old_side: bool, new_side: bool, out: &mut Vec<Token>) {
        if new_side {
            line_tokens(self.lang, text, &mut self.new, out);
            if old_side {
                // An unchanged line leaves the old side as it leaves the new one.
                self.old = self.new;
            }
        } else if old_side {
            line_tokens(self.lang, text, &mut self.old, out);
        }
    }

    fn skip(&mut self) {
        self.old = State::default();
        self.new = State::default();
    }
}
