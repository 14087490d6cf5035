"""Comparing two versions of a game (`rulespec diff`, and the FAQ's parting games):

- `versions`: reading a version — a spec path, a game id, or PATH@REV from git;
- `rules`: what changed in the rules, on the IR, with renames, reorderings and equivalent
  rewrites told apart from changes in play;
- `parting`: where play parts — the shortest game after which the versions behave
  differently (z3 on both transition systems, else lock-step games), as data: `find_parting`;
- `checks`: the property table of `rulespec check`, old beside new;
- `run`: one comparison start to end; `report`: the report and its renderings.
"""
