"""Comparing versions of a game, and what play does: rules diff, parting games, property
results and play statistics (`stats`: engine; `policies`, `intervals`, `runner`, `report`,
`plots`: its parts)."""
