"""Credentials out of everything stored: the rules (`secret_*`), the gate that applies them to
text and names (`redact`), and to structured values and paths (`structured`).

Below both the adapters (which redact every event before it leaves them) and the store (which
keeps the rules' fingerprint and counts placeholders): nothing here imports either."""
