"""rulespec's checks of a compiled game, one subpackage per part of the pipeline
spec -> IR -> {concrete model, z3} -> checks -> reports:

- `concrete/`: checks on the compiled reference model (random playouts, the Hypothesis
  state machine, coverage, replayable traces);
- `symbolic/`: the z3 back end (the encoding of the IR, the queries, witnesses);
- `compare/`: two versions of a game compared (rules, where play parts, properties);
- `cli/`: what users run (the `rulespec` command, the check table, FAQ, benchmark, and the
  pytest plugin of the property suite).
"""
