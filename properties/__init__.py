"""rulespec's checks of a compiled game: random-playout properties, the Hypothesis state
machine, the z3 queries, reports and the command line."""
