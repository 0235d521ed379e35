"""The long-lived daemon and the stdio bridge agent hosts launch."""
