//! Newtype ids, so a thread id can never be passed where an item id is expected.

use crate::decode::Decode;
use serde::Serialize;
use std::fmt;

macro_rules! id_type {
    ($(#[$doc:meta])* $name:ident) => {
        $(#[$doc])*
        #[derive(Clone, Debug, Default, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Decode)]
        #[serde(transparent)]
        pub struct $name(pub String);

        impl $name {
            pub fn as_str(&self) -> &str {
                &self.0
            }
        }

        impl fmt::Display for $name {
            fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str(&self.0)
            }
        }

        impl From<&str> for $name {
            fn from(s: &str) -> Self {
                Self(s.to_owned())
            }
        }

        impl From<String> for $name {
            fn from(s: String) -> Self {
                Self(s)
            }
        }
    };
}

id_type!(
    /// A thread (`thr_…`).
    ThreadId
);
id_type!(
    /// A thread item (`msg_…`, `tsk_…`, `cTC_…`, or anything a server picks).
    ItemId
);
id_type!(
    /// An uploaded attachment (`atc_…`).
    AttachmentId
);
