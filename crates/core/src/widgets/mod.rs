//! Widget logic without a DOM: how widget props become class names and validated CSS
//! values, chart geometry, the icon table, form values and action payloads, the approval
//! request of the fork and structured-input answers. Tested natively; the views in
//! `views::widgets` only turn the results into elements.

pub mod approval;
pub mod chart;
pub mod form;
pub mod icons;
pub mod structured;
pub mod style;
