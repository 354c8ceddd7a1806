"""Adversarial suite for issue 12: attacks by someone who reads the source (CONTRACT §2, §3)."""
