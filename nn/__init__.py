"""Neural networks on top of micrograd's Value (filled in by the nn issue)."""
