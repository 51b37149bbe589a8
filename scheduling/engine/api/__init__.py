"""API machinery: objects, quantities, defaults, validation, admission."""
