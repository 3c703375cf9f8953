//! A game's webhook, as far as the table knows it.

/// What is wrong with a game's webhook.
#[derive(Debug, thiserror::Error)]
pub enum WebhookError {
    /// The URL's host does not resolve.
    #[error("`webhook_url`: {0}")]
    Unresolvable(String),
    /// The URL's host resolves to an address of the service's own network.
    #[error("`webhook_url` resolves to a loopback, private, link-local or unspecified address")]
    Private,
    /// The game was created without one.
    #[error("this game was created without a webhook_url")]
    NoWebhook,
}
