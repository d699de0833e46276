//! The styles of the chunks (`style/chunks/*.css`): each comes with its chunk, not with the
//! first load, and joins the element's one stylesheet (shared by every element and the
//! document) the first time the chunk's views show. Parsed by the browser's own CSS parser, then
//! appended rule by rule, so the order within a stylesheet holds and every root sees it at once.

use std::cell::RefCell;

pub(crate) const WIDGETS: &str = include_str!("../../style/chunks/widgets.css");
pub(crate) const ITEMS: &str = include_str!("../../style/chunks/items.css");
pub(crate) const HISTORY: &str = include_str!("../../style/chunks/history.css");
pub(crate) const TEAM: &str = include_str!("../../style/chunks/team.css");
pub(crate) const MENUS: &str = include_str!("../../style/chunks/menus.css");
pub(crate) const BRANCHES: &str = include_str!("../../style/chunks/branches.css");

thread_local! {
    /// The stylesheets already added, by their text's address.
    static ADDED: RefCell<Vec<usize>> = const { RefCell::new(Vec::new()) };
}

/// Add `css` (one of this module's stylesheets) to the element's stylesheet, once.
pub(crate) fn add(css: &'static str) {
    let key = css.as_ptr() as usize;
    if ADDED.with(|a| a.borrow().contains(&key)) {
        return;
    }
    let Some(sheet) = crate::stylesheet::stylesheet() else {
        return;
    };
    let Ok(parsed) = web_sys::CssStyleSheet::new() else {
        return;
    };
    if parsed.replace_sync(css).is_err() {
        return;
    }
    let (Ok(rules), Ok(existing)) = (parsed.css_rules(), sheet.css_rules()) else {
        return;
    };
    let mut at = existing.length();
    for i in 0..rules.length() {
        if let Some(rule) = rules.item(i) {
            if sheet.insert_rule_with_index(&rule.css_text(), at).is_ok() {
                at += 1;
            }
        }
    }
    ADDED.with(|a| a.borrow_mut().push(key));
}
