//! Code that settings call for, fetched as soon as they are set rather than when first
//! used: the adapters of the other stream envelopes, and the built-in table of the
//! element's language (both in chunks, `crate::chunks::runtime`).

use super::Runtime;
use chat_shell_core::options::Options;
use chat_shell_core::strings::{is_english, Strings};
use leptos::prelude::*;

impl Runtime {
    /// Fetch the `events`, `agent-ui` and AG-UI adapters now; settles either way (a
    /// failure shows when an answer needs them).
    pub(super) fn prefetch_adapters(&self) {
        wasm_bindgen_futures::spawn_local(crate::chunks::runtime::prefetch_adapters());
    }

    /// The strings for `options`' locale and words: English and the host's words at once;
    /// the language's built-in table once its code is there, if the options still ask for
    /// that locale and those words.
    pub(super) fn load_strings(&self, options: &Options) {
        self.signals
            .strings
            .set(Strings::with_table(&options.locale, None).with_overrides(&options.strings));
        if is_english(&options.locale) {
            return;
        }
        let (locale, overrides, strings) = (
            options.locale.clone(),
            options.strings.clone(),
            self.signals.strings,
        );
        let options = self.signals.options;
        wasm_bindgen_futures::spawn_local(async move {
            let Ok(table) = crate::chunks::runtime::locale_table(locale.clone()).await else {
                return;
            };
            // Still the locale and words asked for.
            let current = options
                .try_with_untracked(|o| o.locale == locale && o.strings == overrides)
                .unwrap_or(false);
            if current {
                strings.try_set(Strings::with_table(&locale, table).with_overrides(&overrides));
            }
        });
    }
}
