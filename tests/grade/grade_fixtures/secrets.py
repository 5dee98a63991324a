"""Evil module beside the submission: shadows the standard ``secrets`` wherever it is imported."""

print("SHADOWED secrets imported")
token_hex = token_bytes = randbits = None
