"""The deep search: explicit-state search on the compiled model, beside z3.

z3's searches from a deal reach a handful of actions; the failures a rule change makes
often lie tens or hundreds of actions deep. This package searches the concrete model's
state graph for them, as an explicit-state model checker (TLC) does: states are values,
hashed and deduplicated; chance is a choice (the search picks each shuffle from a small,
fixed set of deals, and the replay file it writes records the outcomes); the budget is a
number of states, so a verdict does not depend on the machine or its load.

- `space`: the state graph: chosen chance, successors, paths, the replay file of a path.
- `goals`: what is looked for, each directed by a distance taken from the property: a
  shared supply asked for more than it holds, a game that comes back to a round start it
  has been at (a search over rounds, each round one macro step), a round that comes back
  to a state within itself.

Nothing here knows a game: the zones, variables and actions come from the IR and the
model; a found witness is checked again by the query that asked for it (the same replay
check a recorded witness passes) before it becomes a row's verdict.
"""
