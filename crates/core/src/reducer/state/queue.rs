//! Queue and steer (Agent UI): the controls the running run offers, and the turns the
//! runtime holds for after it.

/// The controls the runtime offers for the run streaming now, and its queue.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct RunQueue {
    /// The run the controls apply to (queue and steer writes name it).
    pub run_id: Option<String>,
    pub can_queue: bool,
    pub can_steer: bool,
    /// The turns waiting for the run to end, in the runtime's order.
    pub queued: Vec<QueuedTurn>,
}

/// A turn the runtime holds until the running run ends.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct QueuedTurn {
    pub turn_id: String,
    pub text: String,
}
